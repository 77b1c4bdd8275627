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
    std::vector<int> m_qNext;      ///< the waiting jobs in queue order, a list (see schedule())
    int m_qHead = -1, m_qTail = -1;
    size_t m_scan = 0;             ///< jobs before it have arrived
    bool m_resync = true;          ///< read the queue from the engine again
    void queuePush(int j);
    std::vector<int> m_windowJobs; ///< the window of the last decision
    bool m_windowValid = false;    ///< still the window: full, and no job started since
    std::vector<double> m_logWeight; ///< the decision log's ranking: the window's weight per machine
    std::vector<std::pair<std::array<double, 7>, double>> m_logWeightByState; ///< ... per machine state
    bool m_stoppedSince = false;   ///< a job stopped since the last decision
    std::vector<int64_t> m_stateSig, m_sigScratch; ///< free capacity at the end of the last decision, and now
    void stateSignature(const ClusterState& st, std::vector<int64_t>& out) const;
    void charge(int job, const std::vector<GpuSlot>& slots, double sign);
    bool fitsOn(const SchedContext& ctx, int job, int m) const;
    double align(const SchedContext& ctx, int job, int m) const;
    double work(const SchedContext& ctx, int job, int m) const;
};

} // namespace ss
