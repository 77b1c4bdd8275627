#pragma once
// An independent ledger of what the engine reports, checking the promises every run must keep whatever the
// policy family (queue, round, lease or slot based): no GPU share is ever booked beyond the whole GPU, a job
// starts only while it waits and stops only while it runs, every job ends (finished or rejected) at most
// once and every arrived job is accounted for at the end, the clock never runs backwards, and the fee of each
// job (GPU share x price x time held, recomputed here from the start/stop events) matches what the metrics
// report. On when RunConfig::checkInvariants is set or the environment has SCHEDSTUDIO_CHECK_INVARIANTS=1
// (the test suite sets it for every test; it costs O(1) per event, so it rides along even on 100k-job runs).
// A violation throws std::logic_error naming time, job and rule.
#include <string>
#include <vector>

#include "sim/engine.h"

namespace ss {

class InvariantChecker : public SimObserver {
public:
    /// Whether SCHEDSTUDIO_CHECK_INVARIANTS=1 is set (read once per process).
    static bool enabledByEnvironment();

    void onRunStart(const SimSetup& setup) override;
    void onJobArrived(double t, int job) override;
    void onJobRejected(double t, int job, std::string_view why) override;
    void onJobStarted(double t, int job, const JobRuntime& rt) override;
    void onJobStopped(double t, int job, const JobRuntime& rt, bool finished) override;
    void onRunEnd(double t) override;

    /// Fee of `job` in dollars from the events seen (share x price per GPU-hour x hours held).
    double fee(int job) const { return m_fee[size_t(job)]; }
    int finished() const { return m_finished; }
    int rejected() const { return m_rejected; }
    int jobs() const { return int(m_state.size()); }
    /// Compares a metrics report (per-job fees in job order, their total) with this ledger; "" when they
    /// agree to 1e-9 relative.
    std::string compareFees(const std::vector<double>& jobFees, double totalFee) const;

private:
    enum class S : unsigned char { Future, Waiting, Running, Finished, Rejected };
    const ClusterSpec* m_cluster = nullptr;
    const Trace* m_trace = nullptr;
    std::vector<S> m_state;
    std::vector<int> m_used;          // milli-GPU booked per GPU
    std::vector<double> m_segStart;   // start of the running segment per job
    std::vector<std::vector<GpuSlot>> m_held;
    std::vector<double> m_fee;
    double m_last = 0;
    int m_finished = 0, m_rejected = 0;
    bool m_ended = false;

    [[noreturn]] void fail(double t, int job, const std::string& what) const;
    void tick(double t, int job);
    void expectJob(double t, int job) const;
};

} // namespace ss
