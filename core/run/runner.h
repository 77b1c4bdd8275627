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

/// Runs to the end (or until progress returns false: cancelled = true). Throws std::invalid_argument for
/// an unknown policy and PolicyError for an invalid policy action.
RunOutput runSimulation(const ClusterSpec& cluster, const Trace& trace, const RunSpec& spec,
                        const std::function<bool(double)>& progress = {}, const ThroughputTable* table = nullptr,
                        const std::vector<SimObserver*>& extraObservers = {},
                        const std::function<void(Simulator&)>& prepare = {});

} // namespace ss
