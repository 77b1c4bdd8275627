#pragma once
// OASiS's online primal-dual algorithm (ALGORITHMS.md §3.1b, §3.3): on each arrival, the subroutine's best
// schedule at the current prices; admit iff the payoff mu_i > 0, commit the schedule into the slotted ledgers
// and so raise the prices of every (server, resource, slot) it uses. Committed schedules are never revised.
//
// Price bounds [I: the paper's exact U/L/eta definitions were not recovered] are computed from the jobs the
// algorithm will see, as the analysis assumes they are known in advance:
//   U_1^r = max_i f_i(1) / w_i^r and U_2^r = max_i f_i(1) / s_i^r (the most a job could pay per unit: at price U
//           one worker-slot (PS-slot) costs at least the job's whole utility, so nothing is admitted at full load);
//   L_1 = L_2 = L = min_i f_i(fastest_i) / (4 cost0_i), cost0_i = D_i sum_r w_i^r + z_i fastest_i sum_r s_i^r, the
//           job's zero-load resource volume at its fastest (N_i workers) schedule (the paper's 1/(4 eta) with eta = 1): at
//           zero load no job pays more than a quarter of its best utility.
// alpha = max_r (1, ln(U_1^r / L_1), ln(U_2^r / L_2)).
#include <string>
#include <vector>

#include "model/oasisjob.h"
#include "policy/oasis/ledger.h"
#include "policy/oasis/subroutine.h"

namespace ss::oasis {

struct OasisParams {
    double uScale = 1;      ///< multiplies every U
    double lScale = 1;      ///< multiplies L
    double fixedL = 0;      ///< > 0: use this L
    bool rigid = false;     ///< y(t) in {0, N} (the engine's fixed GPU demand)
    /// How U is computed [I]: PerUnit (U_1^r = max_i f_i(1) / w_i^r, the most a job pays per unit of r) or
    /// PerUnitSlot (U_1^r = max_i f_i(fastest_i) / (D_i w_i^r), U_2^r = max_i f_i(fastest_i) / (Z_i s_i^r) with Z_i
    /// the PS-slots of the fastest schedule: the most a job pays per unit of r per slot, the utility density).
    /// Density: per resource, U^r = the largest and L^r = the smallest utility per unit of r per slot at a job's
    /// fastest schedule, L^r also divided by 4n (n = the (family, resource) pairs some job uses), so that at zero
    /// load no job pays more than a quarter of its utility (ALGORITHMS.md §3.3's per-resource L^k with 1/(4 eta^k)).
    enum class Bounds { PerUnit, PerUnitSlot, Density };
    Bounds bounds = Bounds::PerUnit;
};

/// "unit", "unit-slot" or "density" (throws std::invalid_argument naming the allowed values for anything else).
OasisParams::Bounds boundsFrom(const std::string& name);

/// One admission decision with its payoff broken down.
struct AdmissionDecision {
    int job = 0;            ///< index into the scenario's jobs
    bool admitted = false;
    bool feasible = false;  ///< some schedule finishes within the horizon
    double utility = 0, workerCost = 0, psCost = 0;
    double payoff() const { return utility - workerCost - psCost; }
    Schedule schedule;
    double micros = 0;      ///< subroutine wall time
    std::string reason() const; ///< "utility U - worker cost W - PS cost P = payoff M; ..."
};

class OasisOnline {
public:
    void reset(const OasisScenario& sc, const OasisParams& p = {});
    /// A copy serving the same state with its own copy of the scenario (a policy's clone: Scheduler::clone).
    OasisOnline clone(const OasisScenario& sc) const
    {
        OasisOnline c = *this;
        c.m_sc = &sc;
        return c;
    }
    /// Bounds computed as above from `jobs` (called by reset with the scenario's jobs).
    void setBounds(const std::vector<OasisJob>& jobs);
    void setBounds(const PriceFamily& p, const PriceFamily& q)
    {
        m_p = p;
        m_q = q;
        m_wl.cachePrices(m_p);
        m_pl.cachePrices(m_q);
    }
    /// Runs the subroutine for scenario job `index`, admits iff payoff > 0 and commits. `workerMask`: the worker
    /// servers the job may use (null = all).
    AdmissionDecision offer(int index, const std::vector<char>* workerMask = nullptr);
    /// The subroutine alone (no commit).
    Quote quote(const OasisJob& j, const std::vector<char>* workerMask = nullptr) const;

    /// Both ledgers forget the slots before t (Ledger::forgetBefore): for a caller whose offers all start at t or
    /// later from now on.
    void forgetBefore(int t)
    {
        m_wl.forgetBefore(t);
        m_pl.forgetBefore(t);
    }
    double alpha() const;
    const PriceFamily& workerPrices() const { return m_p; }
    const PriceFamily& psPrices() const { return m_q; }
    const Ledger& workerLedger() const { return m_wl; }
    const Ledger& psLedger() const { return m_pl; }
    Ledger& workerLedger() { return m_wl; } ///< tests: preload reservations (prices follow)
    Ledger& psLedger() { return m_pl; }
    double workerPrice(int h, int t, int r) const { return m_p.price(m_wl.used(h, t, r), m_wl.cap(h)[size_t(r)], r); }
    double psPrice(int k, int t, int r) const { return m_q.price(m_pl.used(k, t, r), m_pl.cap(k)[size_t(r)], r); }
    const OasisScenario& scenario() const { return *m_sc; }

private:
    void densityBounds(const std::vector<OasisJob>& jobs);
    const OasisScenario* m_sc = nullptr;
    OasisParams m_par;
    Ledger m_wl, m_pl;
    PriceFamily m_p, m_q;
};

} // namespace ss::oasis
