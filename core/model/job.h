#pragma once
// Jobs and traces: what a scheduler is asked to run. Plain data, no Qt.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ss {

/// One deadline level (as Chronus): finishing within `offset` seconds of submit earns `value`.
struct DeadlineLevel {
    double offset = 0;
    double value = 0;
};

/// One job of a trace. Times are seconds; `duration` is the work, in seconds on a reference GPU (speed 1.0).
struct Job {
    int64_t id = 0;        ///< id as given by the trace (unique within a trace)
    double submit = 0;     ///< arrival time, seconds from the trace start
    double gpus = 1;       ///< GPU demand: a whole number >= 1, or a fraction in (0,1) of one GPU
    double duration = 0;   ///< work: run time on one reference-speed GPU set of the demanded size
    double iterations = 0; ///< optional (duration = iterations x step time); 0 when unknown
    int32_t model = -1;    ///< index into Trace::models, -1 = unknown
    int32_t user = -1;     ///< index into Trace::users
    int32_t vc = -1;       ///< index into Trace::vcs (virtual cluster)
    int32_t qos = -1;      ///< index into Trace::qosClasses
    int32_t gpuSpec = -1;  ///< index into Trace::gpuSpecs ('|'-separated allowed GPU types), -1 = any type
    float cpu = 0;         ///< CPU cores demanded (0 = not modelled)
    float memGb = 0;       ///< memory demanded in GB (0 = not modelled)
    /// Where the source trace ran it: index into Trace::machineSets (';'-separated machine names), -1 = not
    /// recorded. With `started`, only `--start-at` reads it (the state at a time); no policy does.
    int32_t machines = -1;
    /// When the source trace actually started it (trace clock, seconds); NaN where the format has no start
    /// times (Philly's submit-and-duration lists). Kept so a start state can be taken at any time (`--start-at`).
    double started = std::numeric_limits<double>::quiet_NaN();
    std::vector<DeadlineLevel> deadlines; ///< sorted by offset; empty = best effort

    /// Whole GPUs held: ceil of the demand for demand >= 1, else 1 (a shared GPU).
    int wholeGpus() const { return gpus < 1.0 ? 1 : int(std::ceil(gpus - 1e-9)); }
    /// Share of one GPU in 1/1000 for fractional jobs, 1000 for whole-GPU jobs.
    int milli() const { return gpus >= 1.0 ? 1000 : std::clamp(int(std::lround(gpus * 1000.0)), 1, 1000); }
    bool fractional() const { return gpus < 1.0; }
    bool hasStarted() const { return started == started; } ///< the trace recorded its actual start (not NaN)
};

/// A job trace plus the string tables its jobs index into.
struct Trace {
    std::string name;
    std::vector<Job> jobs;
    std::vector<std::string> models, users, vcs, qosClasses, gpuSpecs;
    std::vector<std::string> machineSets; ///< Job::machines: machine names a job ran on, ';'-separated
    std::vector<std::string> notes; ///< provenance lines (generator command, source file, what was skipped)

    /// Sort jobs by (submit, id); stable, so equal keys keep trace order.
    void sortBySubmit();
    /// Empty when consistent, else a one-line description of the first problem.
    std::string validate() const;
    double span() const; ///< last submit - first submit
    double gpuSeconds() const; ///< the jobs' work: sum of GPUs x duration (reference seconds)
    const std::string& modelName(const Job& j) const;
    /// The machine names the source trace ran `j` on (empty when not recorded).
    std::vector<std::string> machinesOf(const Job& j) const;
    /// Whether any job carries its actual start time (a state at a time can be taken from it).
    bool hasStartTimes() const;
    /// Gavel's priority weight w_m: a QoS class named "w<number>" (e.g. "w5", as Gavel's priority_weight
    /// column and its generator's 20 % weight-5 jobs are read) carries that weight; every other job has 1.
    double priorityWeight(const Job& j) const;
};

/// Interns strings into a table (hash map), for readers that build a Trace. Lookups take string_views and
/// allocate only for new names.
class StringInterner {
public:
    explicit StringInterner(std::vector<std::string>& table);
    int32_t operator()(std::string_view s);
private:
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
    };
    std::vector<std::string>& m_table;
    std::unordered_map<std::string, int32_t, Hash, std::equal_to<>> m_index;
};

} // namespace ss
