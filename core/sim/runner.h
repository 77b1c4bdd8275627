#pragma once
// One call that runs a policy on a trace and cluster and returns everything a front end shows or stores.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "metrics/metrics.h"
#include "policy/registry.h"
#include "sim/engine.h"

namespace ss {

struct RunSpec {
    std::string policy = "fifo+firstfit";
    PolicyOptions options;
    RunConfig config;                  ///< seed, perf model, logging
    std::string decisionLogPath;       ///< stream the decision log here (binary; .jsonl = JSON lines)
    bool keepDecisionLog = false;      ///< keep the log in memory (RunOutput::log)
};

struct RunOutput {
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
};

/// Fingerprint (hex) of a trace's jobs (everything that affects a run).
std::string traceFingerprint(const Trace& trace);

/// Runs to the end (or until progress returns false: cancelled = true). Throws std::invalid_argument for
/// an unknown policy and PolicyError for an invalid policy action.
RunOutput runSimulation(const ClusterSpec& cluster, const Trace& trace, const RunSpec& spec,
                        const std::function<bool(double)>& progress = {}, const ThroughputTable* table = nullptr,
                        const std::vector<SimObserver*>& extraObservers = {});

/// The summary as one JSON object (keys: jobs, mean_jct_min, p95_jct_min, mean_fee_usd, makespan_h, ...).
std::string summaryJson(const RunOutput& out, int indent = -1);

} // namespace ss
