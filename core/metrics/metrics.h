#pragma once
// Metrics observe the engine: per-job records, time series and summaries.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine.h"

namespace ss {

/// One job's outcome. Times in seconds; fee in dollars.
struct JobRecord {
    int index = 0;           ///< job index in the (sorted) trace
    int64_t id = 0;
    double submit = 0;
    double start = -1;       ///< first start; -1 if it never ran
    double end = -1;         ///< completion; -1 if it did not finish
    double jct = -1;         ///< end - submit
    double queueing = -1;    ///< time spent waiting (jct - time running), including after preemptions
    double gpus = 0;         ///< demand
    int machines = 0;        ///< machines spanned by the last placement
    double fee = 0;          ///< sum over GPU shares held x price x time held
    double gpuSeconds = 0;   ///< sum over GPU shares held x time held
    int preemptions = 0;
    int deadlineMet = -1;    ///< -1 no deadline, 0 missed all levels, 1 met at least one level
    double deadlineValue = 0; ///< value of the best level met (Chronus), 0 when missed or none
    double duration = 0;     ///< reference duration (the trace's)
    JobStatus status = JobStatus::Future;
};

/// One sample of the cluster over time (step-wise: value holds until the next sample).
struct TimePoint {
    double t = 0;
    float utilization = 0;   ///< held GPU share / total GPUs
    float fragmentation = 0; ///< free GPUs on partly busy machines / free GPUs
    int queue = 0;
    int running = 0;
};

struct Summary {
    int jobs = 0, finished = 0, unfinished = 0, rejected = 0;
    double meanJctMin = 0, medianJctMin = 0, p95JctMin = 0, p99JctMin = 0;
    double meanQueueMin = 0;
    double meanFeeUsd = 0, totalFeeUsd = 0;
    double makespanH = 0;
    double utilization = 0;  ///< time-weighted mean over the makespan
    int deadlineJobs = 0;
    double deadlineMissRate = 0;
    double jainFairness = 0; ///< Jain's index over per-job speed (reference duration / JCT)
    int preemptions = 0;
    uint64_t events = 0, decisions = 0;
    /// Chronus's deadline miss rate (ALGORITHMS.md §5.5): a job that met a level counts 1 - value/10 of the
    /// first level it met (strict jobs, value 10: 0), one that met none counts 1; mean over deadline jobs.
    double weightedMissRate = 0;
    int bestEffortJobs = 0;          ///< finished jobs without deadlines
    double bestEffortMeanJctMin = 0; ///< their mean JCT
    /// What the policy reported about its own run (Scheduler::runStats), e.g. slo_accepted.
    std::vector<std::pair<std::string, double>> policyStats;
    /// A policy figure by name; NaN when the policy did not report it.
    double policyStat(const std::string& key) const;
};

/// Collects JobRecords and a bounded time series (at most ~4096 points, bins widen as the run grows).
class MetricsCollector : public SimObserver {
public:
    void onRunStart(const SimSetup& setup) override;
    void onJobArrived(double t, int job) override;
    void onJobRejected(double t, int job, std::string_view why) override;
    void onJobStarted(double t, int job, const JobRuntime& rt) override;
    void onJobStopped(double t, int job, const JobRuntime& rt, bool finished) override;
    void onRunEnd(double t) override;

    /// Summary over all jobs; events/decisions are filled in by the caller (the runner).
    Summary summary() const;
    const std::vector<JobRecord>& jobs() const { return m_jobs; }
    std::vector<JobRecord> takeJobs() { return std::move(m_jobs); }
    const std::vector<TimePoint>& series() const { return m_series; }

private:
    const ClusterSpec* m_cluster = nullptr;
    const Trace* m_trace = nullptr;
    std::vector<JobRecord> m_jobs;
    std::vector<TimePoint> m_series;
    std::vector<double> m_segStart;
    int64_t m_heldMilli = 0;
    int m_queue = 0, m_running = 0;
    int m_freeWhole = 0, m_fragFree = 0;
    std::vector<int> m_machineFree;
    std::vector<int> m_gpuHeld;
    double m_bin = 60.0;
    double m_firstSubmit = 0, m_lastEnd = 0;
    double m_utilArea = 0, m_lastT = 0;
    void sample(double t);
    void account(double t);
    void changeMachines(const std::vector<GpuSlot>& slots, int sign);
};

/// Summary statistics helpers (exposed for tests).
double percentile(std::vector<double> v, double p); ///< linear interpolation, p in [0,100]
double percentileSorted(const std::vector<double>& sorted, double p);
double jainIndex(const std::vector<double>& x);

} // namespace ss
