#pragma once
// Tetris (Grandl et al., SIGCOMM'14) as a joint ordering + placement policy, in the multi-resource form
// DL2's tetris_env.py uses (GPU, CPU, memory per machine). See tetris.cpp for the variant chosen.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "policy/registry.h"

namespace ss {

class TetrisScheduler : public Scheduler {
public:
    explicit TetrisScheduler(const PolicyOptions& opts);
    std::string name() const override { return "tetris"; }
    void reset(const SimSetup& setup) override;
    void schedule(SchedContext& ctx) override;
    void onJobStopped(int job, double now, bool finished, const JobRuntime& rt) override;
    std::unique_ptr<Scheduler> clone() const override
    {
        auto c = std::make_unique<TetrisScheduler>(*this);
        return c->m_span ? std::move(c) : nullptr;
    }

    /// Tetris score of `job` on machine m now (higher = packed first); NaN when it does not fit there.
    /// `w` weighs remaining work against alignment (see tetris.cpp).
    double score(const SchedContext& ctx, int job, int m, double w) const;

private:
    int m_window = 128;
    StagePtr<Placement> m_span; ///< consolidate, for jobs wider than any machine
    const ClusterSpec* m_cluster = nullptr;
    const Trace* m_trace = nullptr;
    std::vector<double> m_cpuUsed, m_memUsed;
    // Incremental fit tests: m_checked[m] = the decision at which no candidate fitted machine m, unchanged
    // since (0 = unknown; a start or stop on m clears it); a job has been a candidate in every decision from
    // m_candSince[job] to m_candLast[job].
    uint64_t m_decision = 0;
    std::vector<uint64_t> m_checked, m_candSince, m_candLast;
    std::vector<int> m_jWhole, m_jMilli; ///< per job: whole GPUs (0 if fractional), thousandths of a GPU
    std::vector<char> m_jFrac;
    /// per job: 0 not known yet, 1 fits on one machine of its types, 2 larger than every one (must span); the
    /// job's types and the cluster's machines are fixed for a run
    std::vector<char> m_jSpan;
    bool spans(const ClusterSpec& cl, int j, uint64_t typeMask);
    std::vector<int> m_qNext;      ///< the waiting jobs in queue order, a list (see schedule())
    int m_qHead = -1, m_qTail = -1;
    size_t m_scan = 0;             ///< jobs before it have arrived
    bool m_resync = true;          ///< read the queue from the engine again
    void queuePush(int j);
    std::vector<int> m_windowJobs; ///< the window of the last decision
    std::vector<uint64_t> m_windowMasks; ///< their GPU types (JobRuntime::typeMask), read once as the window is made
    bool m_windowSpans = false;    ///< some window job is larger than every machine of its types (must span)
    bool m_windowValid = false;    ///< still the window: full, and no job started since
    // The decision log's scores (only while recording): align and work of a window job on a machine from what
    // they read of the job, unpacked once per decision, and of the machine's kind (GPUs, CPUs, memory), once
    // per job and kind; the same operations in the same order, so bit for bit align - w * work.
    std::vector<double> m_logWeight;     ///< the window's weight per machine, valid at m_logWeightAt's stamp
    std::vector<uint64_t> m_logWeightAt; ///< m_logStamp when computed (0: stale, a start on the machine since)
    /// ... per machine state (kind, free GPUs, largest free share, CPUs and memory used, bit for bit) at this
    /// decision: a few states cover most machines (idle ones of a kind, ones running the same jobs)
    std::vector<std::pair<std::array<uint64_t, 5>, double>> m_logWeightByState;
    std::vector<int> m_logStateOf; ///< per machine: its place in m_logWeightByState (-1: past the table's cap)
    /// a window job's score on a machine state (window index * kLogStates + state), valid at its stamp: the same
    /// on every machine in that state
    static constexpr size_t kLogStates = 256;
    std::vector<int> m_logFirsts; ///< the ranking's scratch: per group of jobs, the first machine of each state
    std::vector<double> m_logScore;
    std::vector<uint64_t> m_logScoreAt;
    std::vector<int> m_kindOf;       ///< per machine: its kind
    std::vector<std::array<double, 3>> m_kinds; ///< GPUs (at least 1), CPUs, memory of each kind
    struct LogJob {
        uint64_t mask;
        int whole, milli;
        bool frac;
        double need, cpu, mem, rem; ///< GPUs asked (whole, or thousandths / 1000), CPUs, memory, work left
    };
    struct LogTerms {
        double dg, cj, mj, work; ///< need / g, cpu / cpus, mem / memory (each 0 unless both > 0), the work term
        uint64_t stamp = 0;      ///< decision these are of (the log's cache)
    };
    /// What align and work compute from a job's demand (GPUs asked, CPUs, memory, work left) on a machine kind
    /// (GPUs at least 1, CPUs, memory), and align on a machine with that much free: the one place the two
    /// expressions are written, so that the log's cached scores are the placement's, bit for bit.
    static LogTerms quotients(const std::array<double, 3>& kind, double need, double cpu, double mem, double rem);
    static double alignOn(const LogTerms& t, const std::array<double, 3>& kind, double freeG, double cpuUsed,
                          double memUsed, double cpu, double mem);
    std::vector<LogJob> m_logJobs;     ///< the window's jobs, in window order
    std::vector<LogTerms> m_logTerms; ///< window index * kinds + kind
    uint64_t m_logStamp = 0;
    const LogTerms& logTerms(size_t i, int kind);
    double logAlign(size_t i, int m, const ClusterState& st);
    bool m_stoppedSince = false;   ///< a job stopped since the last decision
    std::vector<int64_t> m_stateSig, m_sigScratch; ///< free capacity at the end of the last decision, and now
    void stateSignature(const ClusterState& st, std::vector<int64_t>& out) const;
    void charge(int job, const std::vector<GpuSlot>& slots, double sign);
    bool fitsOn(const SchedContext& ctx, int job, int m) const;
    /// Whether a job of that demand fits on machine m now (fitsOn from the job's demand unpacked).
    bool fits(const Machine& mc, int m, const ClusterState& st, uint64_t mask, bool frac, int whole, int milli, double cpu,
              double mem) const;
    double align(const SchedContext& ctx, int job, int m) const;
    double work(const SchedContext& ctx, int job, int m) const;
};

} // namespace ss
