#pragma once
// OASiS's dual subroutine (ALGORITHMS.md §3.1b/§3.3): for a job, the schedule that maximises
// f(completion - arrival) - worker cost - PS cost at the current prices. Outer step: dynamic programming over
// slots, F(t, d) = min_y F(t-1, d-y) + cost_t(y) ("finish workload d at slot t and the rest by t-1"); inner step:
// cost_t(y) = the cheapest y workers plus ceil(y b / B) PSs in slot t, servers sorted by unit price and filled
// greedily (optimal: each server's unit cost is constant within a slot and more PSs than needed only cost more).
#include <utility>
#include <vector>

#include "model/oasisjob.h"
#include "policy/oasis/ledger.h"

namespace ss::oasis {

/// Workers and PSs of one job in one slot: (server index, count) pairs.
struct SlotAlloc {
    int slot = 0;
    int workers = 0; ///< sum over h of y_ih(t)
    int ps = 0;      ///< sum over k of z_ik(t)
    std::vector<std::pair<int, int>> y, z;
};

struct Schedule {
    std::vector<SlotAlloc> slots; ///< slots with workers, ascending
    int completion = -1;          ///< t-hat: the last slot with workers
};

/// The subroutine's answer: the best schedule (payoff may be <= 0: then the job is rejected).
struct Quote {
    bool feasible = false;  ///< some schedule completes within the horizon
    double utility = 0;     ///< f(completion - arrival + 1)
    double workerCost = 0;  ///< sum p_h^r(t) w^r y_h(t)
    double psCost = 0;      ///< sum q_k^r(t) s^r z_k(t)
    double payoff() const { return utility - workerCost - psCost; }
    Schedule schedule;
};

struct SubroutineInput {
    const OasisJob* job = nullptr;
    int work = 1;               ///< D: worker-slots needed
    const Ledger* workers = nullptr;
    const Ledger* ps = nullptr;
    const PriceFamily* p = nullptr; ///< worker-server prices
    const PriceFamily* q = nullptr; ///< PS-server prices
    /// Rigid jobs (the engine's fixed GPU demand): y(t) is 0 or a whole gang of min(N, work) workers; the work is
    /// rounded up to whole gangs.
    bool rigid = false;
    /// Worker servers the job may use (1 = allowed; the engine's GPU-type constraints); null = all.
    const std::vector<char>* workerMask = nullptr;
};

Quote bestSchedule(const SubroutineInput& in);

/// Reserves (sign +1) or releases (-1) a schedule's workers and PSs.
void commitSchedule(const OasisJob& j, const Schedule& s, Ledger& workers, Ledger& ps, int sign = 1);

} // namespace ss::oasis
