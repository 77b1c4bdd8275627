#pragma once
// Checkpoints of a run: engine snapshots (Simulator::snapshot) with the metrics collected up to them, taken while
// the run executes, so that a what-if fork restores the nearest one at or before its fork point and steps on from
// there instead of replaying the run from decision 1 (run/fork.h).
//
// Memory is bounded: a set keeps at most maxCheckpoints() (8 by default). Checkpoints are due every interval()
// decisions (default max(500, jobs / 8), taken after decision K-1 for K a multiple of it: the state a fork at K
// needs); when one more would overflow the set, the interval doubles and only the
// checkpoints on the doubled interval stay, so they stay spread evenly over the run. A checkpoint costs about sizeof(JobRuntime) +
// sizeof(JobRecord) = ~250 bytes per job plus the policy's own per-job state (approxBytes() counts the engine's
// and the metrics' part): the 8 of a 100,000-job run hold ~0.2-0.3 GB at most; a few-thousand-job run, a few MB.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "metrics/metrics.h"
#include "sim/decisionlog.h"
#include "sim/engine.h"

namespace ss {

/// One point of a run that can be continued.
struct RunCheckpoint {
    std::shared_ptr<const SimSnapshot> sim;
    MetricsCollector metrics; ///< as collected when the snapshot was taken
    size_t bytes = 0;         ///< approximate memory held
    uint64_t decisions() const { return sim->decisions(); }
};

/// Checkpoints of one run path (a run, or a fork with its stages). Thread-safe: a background fork may extend it
/// while another thread reads it.
class CheckpointSet {
public:
    /// `path`: the identity of what is simulated (run/fork.h forkPathKey); `cluster` and `trace` (sorted by submit
    /// time): the exact objects simulated. The set keeps them alive: its snapshots refer to them.
    CheckpointSet(std::string path, std::shared_ptr<const ClusterSpec> cluster, std::shared_ptr<const Trace> trace);
    /// Empties the set and makes it a set of another path (the decisions requested stay requested).
    void reset(std::string path, std::shared_ptr<const ClusterSpec> cluster, std::shared_ptr<const Trace> trace);

    const std::string& path() const { return m_path; }
    const ClusterSpec& cluster() const { return *m_cluster; }
    const Trace& trace() const { return *m_trace; }
    std::shared_ptr<const ClusterSpec> clusterPtr() const { return m_cluster; }
    std::shared_ptr<const Trace> tracePtr() const { return m_trace; }

    /// Decisions between checkpoints (0 = automatic: max(500, jobs / 8)); doubles when the set thins out.
    void setInterval(uint64_t every);
    uint64_t interval() const;
    void setMaxCheckpoints(size_t n); ///< at least 2
    size_t maxCheckpoints() const;
    /// Also take one after exactly this many decisions (kept through thinning while the set has room).
    void requestAt(uint64_t decisions);

    /// Offered after each step of the run (and before the first): takes a checkpoint when one is due. Once the
    /// policy has refused to clone (Scheduler::clone returns null), nothing more is tried: cloneRefused().
    void offer(const Simulator& sim, const MetricsCollector& metrics);
    /// The latest checkpoint taken after at most `decisions` decisions; null when none.
    std::shared_ptr<const RunCheckpoint> atOrBefore(uint64_t decisions) const;
    bool cloneRefused() const;
    size_t size() const;
    size_t approxBytes() const;
    /// The run's decision log when it was kept (forks restored with a log copy its records before the checkpoint).
    void setLog(std::shared_ptr<const DecisionLog> log);
    std::shared_ptr<const DecisionLog> log() const;

private:
    mutable std::mutex m_mu;
    std::string m_path;
    std::shared_ptr<const ClusterSpec> m_cluster;
    std::shared_ptr<const Trace> m_trace;
    std::shared_ptr<const DecisionLog> m_log;
    std::map<uint64_t, std::shared_ptr<const RunCheckpoint>> m_cps;
    std::set<uint64_t> m_requested;
    uint64_t m_interval = 0, m_userInterval = 0;
    size_t m_max = 8;
    bool m_refused = false;
    void thin();
    uint64_t autoInterval() const;
};

} // namespace ss
