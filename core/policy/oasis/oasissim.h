#pragma once
// Slotted runs of an OASiS scenario: the online primal-dual algorithm and the baselines of the same job model
// (ALGORITHMS.md §3.1b "compared with heuristics"; which ones is our choice [I]):
//   fifo    - jobs in arrival order, each with a fixed worker count (min(N_i, workers)), strict head-of-line;
//   drf     - the same fixed worker counts, jobs ordered by accumulated dominant share (DRF over time);
//   dorm    - Dorm-like fair share: each slot, workers handed out one at a time to the job with the lowest
//             dominant share (progressive filling), up to N_i, PSs following the bandwidth guarantee;
//   greedy  - "admit if it fits": on arrival, the earliest-finishing schedule on the reservations (as many workers
//             as fit in each slot); admitted iff it finishes within the horizon with positive utility.
//   riskreward - the risk-reward heuristic ALGORITHMS.md §3.3 names among the seed's baselines without defining it
//             [I: our design, after the value-based "balance risk and reward" schedulers]: greedy's earliest-finishing
//             schedule, admitted iff its reward f(t-hat - a + 1) exceeds its risk = load x density x volume, where
//             volume = D_i delta_i (worker-slots times the dominant share delta_i = max_r w_i^r / C^r of the worker
//             cluster one worker takes), density = the mean over the jobs arrived so far of f_j(fastest_j) /
//             (D_j delta_j) (the utility a unit of cluster-slot earns), and load = the mean over the job's window
//             [a_i, t-hat] of the dominant reserved share of the worker cluster before it: the utility other jobs
//             are expected to miss because this one holds the capacity, weighted by how likely the capacity is
//             needed at the current load. At zero load every job that fits is admitted (as greedy).
// fifo, drf and dorm admit every job and decide slot by slot (no reservations); a job unfinished at the horizon
// earns nothing. A job's utility is f(completion - arrival + 1), JCT in slots.
#include <string>
#include <utility>
#include <vector>

#include "model/oasisjob.h"
#include "policy/oasis/online.h"

namespace ss::oasis {

struct JobOutcome {
    bool admitted = false;
    int completion = -1; ///< slot, -1 = not finished
    double utility = 0;
    int maxWorkers = 0;  ///< most workers in one slot
    int maxPs = 0;
};

struct OasisRun {
    std::string policy;
    std::vector<JobOutcome> jobs;              ///< scenario job order
    std::vector<AdmissionDecision> decisions;  ///< oasis: one per job, in arrival order
    std::vector<std::vector<std::pair<int, int>>> workersOverTime; ///< per job: (slot, workers) where > 0 (kept when asked)
    double totalUtility = 0;
    int admitted = 0, completed = 0;
    double meanJctSlots = 0; ///< over completed jobs
    double alpha = 0;        ///< oasis only
    double subroutineMeanMs = 0, subroutineMaxMs = 0;
    double wallSeconds = 0;
    /// total_utility, admitted, completed, mean_jct_slots (+ alpha, subroutine_mean_ms, subroutine_max_ms for oasis)
    std::vector<std::pair<std::string, double>> stats() const;
};

/// The policies a scenario runs under: "oasis", "fifo", "drf", "dorm", "greedy", "riskreward".
const std::vector<std::string>& oasisPolicyNames();

struct RunOptions {
    OasisParams oasis;
    int fixedWorkers = 4;       ///< fifo / drf
    bool keepSchedules = false; ///< fill workersOverTime (and keep the decisions' schedules)
};

/// Throws std::invalid_argument for an unknown policy. The scenario must have passed validateScenario.
OasisRun runOasisPolicy(const OasisScenario& sc, const std::string& policy, const RunOptions& o = {});

} // namespace ss::oasis
