#pragma once
// Diff of two runs (a fork and its parent, or any two runs of one trace): per-job JCT and fee deltas,
// the biggest winners and losers, the first decision where the runs diverge, and metric deltas.
#include <cstdint>
#include <string>
#include <vector>

#include "run/runner.h"

namespace ss {

/// One job in both runs, matched by trace id. Deltas are B - A (negative JCT delta: B finished it sooner).
struct JobDelta {
    int64_t id = 0;
    int indexA = -1, indexB = -1;  ///< index in each run's trace (-1 = not in that run)
    double submit = 0;
    double startA = -1, startB = -1, endA = -1, endB = -1;
    double jctA = -1, jctB = -1;   ///< -1 when it did not finish in that run
    double feeA = 0, feeB = 0;
    JobStatus statusA = JobStatus::Future, statusB = JobStatus::Future;
    bool moved = false;            ///< start or end differs between the runs
    double jctDelta() const;       ///< jctB - jctA, NaN unless both finished
    double feeDelta() const { return feeB - feeA; }
};

struct MetricDelta {
    std::string name;
    double a = 0, b = 0;
    double delta() const { return b - a; }
};

struct RunDiff {
    uint64_t seedA = 0, seedB = 0;
    std::string policyA, policyB;
    std::vector<JobDelta> jobs;        ///< in trace order of A, then jobs only in B
    std::vector<MetricDelta> metrics;
    int moved = 0;                     ///< jobs whose start or end differs
    int onlyA = 0, onlyB = 0;          ///< jobs in one run only (a burst fork adds jobs)
    /// First decision (counted from 1) whose record differs: time, arrivals, completions, preemptions or
    /// placements; 0 = no divergence found. Known only when both runs have decision logs (logsCompared).
    uint64_t firstDivergence = 0;
    double divergenceTime = 0;
    std::string divergenceWhat;        ///< what differs there, in words
    bool logsCompared = false;
    /// Without logs: the earliest time a job's start or end differs (-1 = none).
    double firstMoveTime = -1;
};

RunDiff diffRuns(const RunOutput& a, const RunOutput& b);

enum class DeltaSort { Jct, Fee, Id };
/// Indices into d.jobs sorted by the delta (most negative first = B's biggest winners), jobs without
/// that delta last; Id sorts by trace id.
std::vector<size_t> sortedDeltas(const RunDiff& d, DeltaSort by);

/// The first decision where two logs differ (counted from 1; 0 = none) and what differs.
uint64_t firstDivergence(const DecisionLog& a, const DecisionLog& b, double* time = nullptr, std::string* what = nullptr);

} // namespace ss
