#pragma once
// Preemptive orderings: SRTF, Tiresias's discretized 2D-LAS and 2D-Gittins (Gu et al., NSDI'19), each
// combined with a placement. Semantics follow SymbioticLab/Tiresias simulator/run_sim.py (dlas_sim_jobs);
// see tiresias.cpp for what was matched and where we differ.
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <memory>

#include "policy/gittinsindex.h"
#include "policy/placement.h"
#include "policy/registry.h"
#include "policy/runindex.h"
#include "policy/sortedchunks.h"
#include "policy/srtfindex.h"

namespace ss {

/// Gittins index over an empirical job-size distribution (GPU-seconds), quantum delta:
/// G(a) = P(S - a <= delta | S > a) / E[min(S - a, delta) | S > a], reported as P * 1e6 / E as Tiresias does.
class GittinsTable {
public:
    GittinsTable() = default;
    GittinsTable(std::vector<double> sizes, double delta);
    /// Index for attained service a; 0 once a reaches the largest sample (as Tiresias).
    double index(double attained) const;
    /// The same value, searching from where the last call with this hint ended (a running job's attained
    /// service only grows, so the sample positions move forward a little between calls).
    struct Hint {
        size_t lo = 0, hi = 0;
    };
    double index(double attained, Hint& hint) const;
    /// The index at `attained` from the positions index() finds there (samples <= attained, samples <= attained +
    /// delta) and the sum of the samples between them: the same value, for a caller that keeps those per piece.
    double valueIn(double attained, size_t lo, size_t hi, double window) const;
    double windowSum(size_t lo, size_t hi) const { return m_prefix[hi] - m_prefix[lo]; }
    double sample(size_t i) const { return m_sizes[i]; }
    bool empty() const { return m_sizes.empty(); }
    size_t samples() const { return m_sizes.size(); }
    double delta() const { return m_delta; }
    /// Where the index changes piece (each sample, each sample - delta), sorted, and for each a lower bound of
    /// the index from there to the next piece start (within a piece the index rises with attained service, so
    /// its value at the start, allowing for rounding, bounds the piece). For GittinsRunIndex.
    /// `high`: for each piece an upper bound of the index over it (its limit at the next piece start, allowing
    /// for rounding).
    /// `hints` (when given): for each piece, the search positions index() finds at its start (samples <= start,
    /// samples <= start + delta), a hint that index() only has to confirm anywhere in the piece.
    void pieceStarts(std::vector<double>& at, std::vector<double>& low, std::vector<double>& high,
                     std::vector<std::pair<size_t, size_t>>* hints = nullptr) const;
    /// Lower and upper bounds of the index from `attained` up to `end`, both inside one piece (end: the next piece
    /// start), allowing for rounding; `hint` as index(attained, hint) left it, `window` = windowSum(hint.lo, hint.hi).
    std::pair<double, double> boundsAt(double attained, double end, const Hint& hint, double window) const;

private:
    std::vector<double> m_sizes;  // sorted
    std::vector<double> m_prefix; // m_prefix[i] = sum of m_sizes[0..i)
    double m_delta = 3250;
    double value(double a, size_t lo, size_t hi) const;
    // bounds of value(a, lo, hi) allowing for rounding; window = windowSum(lo, hi)
    double lowerValue(double a, size_t lo, size_t hi, double window) const;
    double upperValue(double a, size_t lo, size_t hi, double window) const;
    double slackAt(double a) const;
    /// First position with a sample > x, starting from `from` (galloping forward or back).
    size_t upperFrom(double x, size_t from) const;
};

/// Reads a size distribution: a CSV with a `duration` column (Tiresias yarn-gput1000.csv) or one bare column.
/// Throws std::runtime_error "FILE:LINE: column 'duration': reason".
std::vector<double> readSizeDistribution(const std::string& path);

enum class PreemptOrder { Srtf, Las, Gittins };

/// Walks all jobs (running + pending) in priority order, admits what fits by GPU count, preempts running
/// jobs that no longer fit, then places the newly admitted ones (Tiresias semantics). Cost per decision:
/// O(log n) amortised when the waiting jobs that outrank a running job fit in the free GPUs; otherwise the walk
/// takes stretches of running jobs by their summed holding (LAS keeps them ordered, SRTF by estimates of their work left,
/// Gittins by certified lower bounds of their index, gittinsindex.h).
class PreemptiveScheduler : public Scheduler {
public:
    PreemptiveScheduler(std::string name, PreemptOrder order, std::unique_ptr<Placement> placement,
                        std::unique_ptr<Admission> admission, const PolicyOptions& opts);
    std::string name() const override { return m_name; }
    void reset(const SimSetup& setup) override;
    void schedule(SchedContext& ctx) override;
    void onJobStopped(int job, double now, bool finished, const JobRuntime& rt) override;
    /// A job started by someone else (a run's start state) is taken in at the next decision.
    void onJobStarted(int job, double, const JobRuntime&) override
    {
        if (!m_ownStart)
            m_adopt.push_back(job);
    }
    bool hasAdmission() const override { return true; }
    AdmissionRecord admit(const SchedContext& ctx, int job) override;
    std::unique_ptr<Scheduler> clone() const override;
    /// The walk reads running jobs' work left now and attained service, never their rates; every placement
    /// reads only the occupancy (core/policy/*.cpp's five).
    bool reratesAfterDecision() const override { return true; }

    /// LAS queue of a job (tests and the GUI).
    int queueOf(int job) const { return m_q[size_t(job)]; }
    const std::vector<double>& thresholds() const { return m_thr; }

private:
    using Key = std::array<double, 5>;
    struct PItem {
        Key key;
        int job;
        bool operator<(const PItem& o) const { return keyJobLess(key, job, o.key, o.job); }
    };
    struct Bucket {
        uint64_t mask = 0;
        int milli = 0; // demand in thousandths of a GPU (whole jobs: 1000 x GPUs)
        SortedChunks<PItem> items; // the waiting jobs of this shape, in priority order
    };

    std::string m_name;
    PreemptOrder m_order;
    StagePtr<Placement> m_place;
    StagePtr<Admission> m_admit;
    std::vector<double> m_thr;
    double m_knob = 0;
    GittinsTable m_gittins;
    mutable std::vector<GittinsTable::Hint> m_gHint; // per job
    bool m_gittinsFromTrace = true;
    double m_gittinsDelta = 3250;
    const Trace* m_trace = nullptr;

    size_t m_scan = 0;
    std::vector<int> m_reenter, m_adopt;
    bool m_ownStart = false;
    std::map<std::pair<uint64_t, int>, int> m_bucketIndex;
    std::vector<Bucket> m_buckets;
    std::vector<int> m_jobBucket; // waiting: its bucket; -2 - bucket: not waiting now; -1: never waited
    std::vector<PItem> m_jobItem;
    // Tiresias list position: queue, zone (0 = stayed running after the last pass, 1 = pending or appended
    // since), order inside the zone
    std::vector<int> m_q;
    std::vector<char> m_zone;
    std::vector<double> m_seq;
    std::vector<double> m_t0;    // start of the current LAS accounting (first start / since promotion); -1 = not yet
    std::vector<double> m_exec0; // executed wall time when the LAS accounting was last reset (promotion)
    double m_back = 0, m_front = 0, m_run = 0, m_arrivalSeq = 0;
    double m_lastWake = -1;
    std::vector<std::pair<Key, int>> m_walkScratch, m_joinScratch;
    const ClusterSpec* m_cluster = nullptr;
    size_t m_types = 0;
    std::vector<int64_t> m_usedByType; // thousandths of a GPU held per GPU type by running jobs
    std::vector<int64_t> m_cap;        // thousandths of a GPU per GPU type in the cluster
    std::vector<int64_t> m_use;        // per running job and GPU type (job * types + type): what it holds
    std::vector<int64_t> m_bud, m_budSave;
    std::vector<SortedChunks<PItem>::const_iterator> m_cur;
    // The decision log's ranking (recordRanking): the first waiting jobs in priority order, kept as jobs join and
    // leave the buckets instead of merged anew at every decision. m_top holds the first m_top.size() of them (all
    // of them when m_topAll); the next ones, when it holds fewer than the record's limit, are merged in after its
    // last. Only while recording (m_topOn).
    std::vector<PItem> m_top;
    bool m_topAll = true;
    bool m_topOn = false;
    size_t m_topCap = 0;
    void topInsert(const PItem& item);
    void topErase(const PItem& item);
    std::vector<int> m_toStart, m_toPreempt, m_cand, m_demoted;
    void account(int job, const std::vector<GpuSlot>& slots, int sign);

    // LAS only: running jobs ordered by their key, which changes only when this class changes q/zone/seq
    // (demotion, joining the running zone), so no key is recomputed per decision.
    RunIndex m_runIdx;
    std::vector<Key> m_runKey;
    std::vector<char> m_inRun;
    void runInsert(int j, const Key& k);
    void runErase(int j);
    // SRTF only: running jobs ordered by their work left now (estimates checked near each boundary, srtfdrift.h)
    SrtfRunIndex m_srtf;
    // Gittins only: running jobs by certified bounds of their index, made around the waiting jobs' indices
    GittinsRunIndex m_gidx;

    // LAS and Gittins: running jobs not in the last queue by predicted threshold-crossing time (fixed while a
    // job runs, as attained service grows linearly). Demotion and the wake-up only look at the front.
    // A binary min-heap of (time, job) whose entries are dropped lazily: an entry is live while its version is
    // its job's. Readers visit the live entries up to a time, in no particular order (the decision does not
    // depend on it: demotions of several jobs are put in the running-list order, the wake-up is a minimum).
    struct CrossEntry {
        double t;
        int job;
        uint32_t ver;
    };
    std::vector<CrossEntry> m_cross;
    std::vector<uint32_t> m_crossVer;
    std::vector<size_t> m_crossStack;
    size_t m_crossLive = 0;
    std::vector<double> m_crossAt; // NaN = not in m_cross
    /// Drops dead entries from the top (and all of them when they outnumber the live ones); false when none is live.
    bool crossPrune();
    template <class F> void crossUpTo(double horizon, F f);
    double m_minGpus = 1;
    double crossMargin(double now) const;
    // las.knob > 0: waiting jobs by the time they become starved (t0 + executed x (1 + knob), fixed while a job
    // waits), so promotion and the wake-up look at the front only (they scanned every waiting job per decision).
    // Lazy as m_cross: an entry is live while its version is its job's (bumped when the job joins or leaves the
    // pending buckets).
    std::vector<CrossEntry> m_starve;
    std::vector<uint32_t> m_starveVer;
    std::vector<char> m_starveIn; // has a live entry
    size_t m_starveLive = 0;
    void starvePush(const SchedContext& ctx, int j);
    void starveDrop(int j);
    bool starvePrune();
    template <class F> void starveUpTo(double horizon, F f);
    static double starveMargin(double now) { return 1e-6 * (1.0 + std::fabs(now)); }
    /// What waiting job j has executed since its last promotion, when it can starve at all (else -1).
    double starveExec(const SchedContext& ctx, int j) const;
    /// Whether waiting job j is starved now (promoted), and when it will be as computed now (+inf: never).
    bool starvedNow(const SchedContext& ctx, int j) const;
    double starvedAt(const SchedContext& ctx, int j) const;
    void crossSet(const SchedContext& ctx, int j);
    void crossErase(int j);

    Key keyFor(const SchedContext& ctx, int j) const;
    double lasAttained(const SchedContext& ctx, int j) const;
    GittinsRunIndex::Service gittinsService(const SchedContext& ctx, int j) const;
    void enqueue(const SchedContext& ctx, int j);
    void removePending(int j);
    void demoteRunning(const SchedContext& ctx);
    void promoteStarved(const SchedContext& ctx);
    void requestWake(SchedContext& ctx);
    /// The decision record's queue: the first logQueueLimit() waiting jobs in priority order, and how many wait.
    void recordRanking(SchedContext& ctx);
    float scoreOf(const Key& k) const;
};

} // namespace ss
