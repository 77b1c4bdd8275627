#pragma once
// One call that runs a policy on a trace and cluster and returns everything a front end shows or stores.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "metrics/metrics.h"
#include "run/runspec.h"

namespace ss {

struct RunOutput {
    RunSpec spec;                      ///< complete (identity fields filled): spec.id() is the run's identity
    std::string policy;
    uint64_t seed = 0;
    std::string perf;                  ///< PerfConfig::toString()
    std::string clusterName, clusterFingerprint;
    std::string traceName, traceFingerprint;
    Summary summary;
    std::vector<JobRecord> jobs;
    std::vector<TimePoint> series;
    std::shared_ptr<DecisionLog> log;  ///< when RunSpec::keepDecisionLog
    double wallSeconds = 0;
    bool cancelled = false;
    // --- what-if forks (run/fork.h): the run this one was forked from, stored with it ---
    int64_t parentRunId = 0;           ///< store id of the parent (0 = not a fork, or parent not stored)
    uint64_t forkDecision = 0;         ///< decision (counted from 1) where the change was applied
    std::string forkChange;            ///< the change, in words
};

/// A run that does not start from decision 1 (run/checkpoint.h): a simulator restored from a snapshot and the
/// observers' state at that point.
struct RunResume {
    std::unique_ptr<Simulator> sim;        ///< Simulator::restore of a snapshot taken on this run's cluster and trace
    MetricsCollector metrics;              ///< what the metrics had collected when the snapshot was taken
    std::vector<DecisionRecord> logPrefix; ///< the decision records before it (used when the log is kept)
};

/// Called after every step of a run (checkpoints are taken there).
using AfterStep = std::function<void(const Simulator&, const MetricsCollector&)>;

/// Runs to the end (or until progress returns false: cancelled = true). Throws std::invalid_argument for
/// an unknown policy and PolicyError for an invalid policy action. With `resume`, the run goes on from its
/// simulator (whose trace must be `trace`, sorted by submit time); spec.machineEvents are in it already.
RunOutput runSimulation(const ClusterSpec& cluster, const Trace& trace, const RunSpec& spec,
                        const std::function<bool(double)>& progress = {}, const ThroughputTable* table = nullptr,
                        const std::vector<SimObserver*>& extraObservers = {},
                        const std::function<void(Simulator&)>& prepare = {}, const AfterStep& afterStep = {},
                        RunResume* resume = nullptr);

} // namespace ss
