#pragma once
// Chronus's lease planning (ALGORITHMS.md §5.4): the per-lease capacity table, greedy admission with the
// binary search on deadlines, the MILP solved at every lease boundary (COIN-OR CBC through its C++ API, with
// a time limit) and the greedy selector it falls back to. Plain data in, plain data out: no engine here.
#include <string>
#include <vector>

namespace ss::chronus {

/// GPU demand rounded up for capacity accounting: 1, 2, 4, 8; above 8 unchanged (3 -> 4, 5..7 -> 8).
int roundUpGpus(int gpus);

/// One deadline level of a job as the planner sees it: leases 0..maxLease-1 (relative to the planning
/// horizon's first lease) may be used; finishing within them earns `value`.
struct PlanLevel {
    int level = 0;     ///< index into the job's deadline levels
    int maxLease = 0;
    double value = 0;
};

/// A job to plan: `gpus` already rounded up, `need` leases (R_j), its candidate levels (each with
/// maxLease >= need).
struct PlanJob {
    int job = 0;
    int gpus = 1;
    int need = 1;
    std::vector<PlanLevel> levels;
};

/// A plan: for every PlanJob (same order), the level chosen (-1 = none) and the leases it holds (relative,
/// ascending).
struct LeasePlan {
    std::vector<int> level;
    std::vector<std::vector<int>> leases;
    double objective = 0;
    bool complete = false; ///< every job got a level
};

/// Free GPUs per lease, relative to a first lease; leases past the end are at `total`.
class CapacityTable {
public:
    explicit CapacityTable(int total = 0) : m_total(total) {}
    int total() const { return m_total; }
    int freeAt(int lease) const { return lease < int(m_free.size()) ? m_free[size_t(lease)] : m_total; }
    void take(int lease, int gpus);
    void give(int lease, int gpus);
    /// The `need` latest leases below `maxLease` with at least `gpus` free (ascending); empty when fewer.
    std::vector<int> latestFit(int gpus, int need, int maxLease) const;
    /// Smallest maxLease in [lo, hi] at which latestFit succeeds (monotone in maxLease); -1 when none.
    int smallestFeasibleMax(int gpus, int need, int lo, int hi) const;
    /// Leases 0..n-1 as a vector (the MILP's capacities).
    std::vector<int> freeVector(int n) const;

private:
    int m_total = 0;
    std::vector<int> m_free;
};

/// Greedy admission of one job (§5.4 "Admission control"): the job's tightest level first; when it does not
/// fit, the binary search on the deadline up to the loosest level (tolerance ratio 1.0).
struct AdmissionResult {
    enum Kind { Accepted, AcceptedLater, Unaccepted } kind = Unaccepted;
    int maxLease = -1;        ///< the lease-aligned deadline accepted (relative), -1 when unaccepted
    int level = -1;           ///< the first level whose deadline the accepted maxLease meets
    std::vector<int> leases;  ///< the cached plan (relative)
    int bestAvailable = 0;    ///< unaccepted: leases with enough free GPUs before the loosest deadline
};
/// `maxLeases`: each level's maxLease (ascending, as the levels); levels with maxLease < need are skipped.
AdmissionResult admitGreedy(const CapacityTable& cap, int gpus, int need, const std::vector<int>& maxLeases);

/// Greedy selector (the MILP's fallback): (job, level) entries by (value, demand, -slack, maxLease), largest
/// first; each takes the latest free leases; once a job is placed its other levels are skipped.
/// `earliest`: each takes the earliest free leases instead (the MILP's first incumbent when the current-lease
/// term is a bonus).
LeasePlan greedyPlan(const std::vector<PlanJob>& jobs, std::vector<int> capacity, bool earliest = false);

struct MilpOptions {
    double timeLimit = 5.0;   ///< seconds (CBC's maximum seconds)
    double gap = 1e-4;        ///< relative gap at which CBC stops
    int maxNodes = 200;       ///< branch-and-bound nodes (a deterministic bound, unlike the time limit); < 0 = none
    bool minusCurrent = true; ///< objective's current-lease term: -g/Gmax (leave GPUs free now) or +g/Gmax
    double gMax = 8;          ///< the largest rounded demand (objective normaliser)
};

struct MilpResult {
    LeasePlan plan;
    bool solved = false;     ///< CBC returned a feasible solution that we used
    bool optimal = false;    ///< proven optimal within the gap
    bool hitTimeLimit = false;
    bool hitNodeLimit = false;
    bool byBound = false;    ///< the greedy plan met an upper bound of the objective: optimal without CBC
    int binaries = 0;        ///< X and S variables of the model as written (before aggregation)
    int columns = 0;         ///< columns CBC saw (uncontended leases aggregated into one integer per level)
    int rows = 0;
    double seconds = 0;      ///< wall time of building and solving
    std::string status;      ///< "optimal", "time limit (incumbent)", "infeasible", "time limit (no solution)", ...
};

/// Solves the lease MILP for `jobs` over `capacity` (free GPUs of leases 0..capacity.size()-1; jobs' levels
/// must not reach past it). Every job must take exactly one level (sum_v S = 1). When the greedy selector cannot
/// place every job, the jobs it placed are solved exactly and the others stay unplanned (plan.complete false,
/// the status says how many). A greedy plan is handed to
/// CBC as the first incumbent; when it meets the upper bound (every job at its most
/// valuable level; the current-lease term at its best: 0 with minus, min(sum g, free GPUs now) / Gmax with
/// plus) it is optimal and CBC is not called (`force`: call CBC anyway, for benchmarks). Never throws for
/// solver trouble: solved = false.
MilpResult solveLeaseMilp(const std::vector<PlanJob>& jobs, const std::vector<int>& capacity, const MilpOptions& opt,
                          bool force = false);

/// Objective of a plan as the MILP counts it (for comparing the MILP with the greedy fallback).
double planObjective(const std::vector<PlanJob>& jobs, const LeasePlan& plan, const MilpOptions& opt);

} // namespace ss::chronus
