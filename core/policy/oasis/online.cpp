#include "policy/oasis/online.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace ss::oasis {

std::string AdmissionDecision::reason() const
{
    char buf[256];
    if (!feasible)
        return "no schedule finishes within the horizon";
    std::snprintf(buf, sizeof buf, "utility %.4g - worker cost %.4g - PS cost %.4g = payoff %.4g; %s, completes slot %d",
                  utility, workerCost, psCost, payoff(), admitted ? "admitted" : "rejected (payoff <= 0)",
                  schedule.completion);
    return buf;
}

OasisParams::Bounds boundsFrom(const std::string& name)
{
    if (name == "unit")
        return OasisParams::Bounds::PerUnit;
    if (name == "unit-slot")
        return OasisParams::Bounds::PerUnitSlot;
    if (name == "density")
        return OasisParams::Bounds::Density;
    throw std::invalid_argument("unknown OASiS price bounds '" + name + "' (unit, unit-slot, density)");
}

void OasisOnline::reset(const OasisScenario& sc, const OasisParams& p)
{
    m_sc = &sc;
    m_par = p;
    m_wl.reset(sc.workers, sc.horizon);
    m_pl.reset(sc.psServers, sc.horizon);
    setBounds(sc.jobs);
}

void OasisOnline::setBounds(const std::vector<OasisJob>& jobs)
{
    Amounts u1 {0, 0, 0, 0}, u2 {0, 0, 0, 0};
    double lmin = std::numeric_limits<double>::infinity();
    for (const OasisJob& j : jobs) {
        const int d = j.workerSlots(m_sc ? m_sc->slotSeconds : 1.0);
        const int fastest = (d + j.chunks - 1) / j.chunks;
        const bool perSlot = m_par.bounds == OasisParams::Bounds::PerUnitSlot;
        const double top = perSlot ? j.f(double(fastest)) : j.f(1.0);
        const double wSlots = perSlot ? double(d) : 1.0;
        const double zSlots = perSlot ? double(j.psFor(j.chunks)) * fastest : 1.0;
        for (int r = 0; r < kResources; ++r) {
            if (j.w[size_t(r)] > 0)
                u1[size_t(r)] = std::max(u1[size_t(r)], top / (wSlots * j.w[size_t(r)]));
            if (j.s[size_t(r)] > 0)
                u2[size_t(r)] = std::max(u2[size_t(r)], top / (zSlots * j.s[size_t(r)]));
        }
        double sw = 0, ss = 0;
        for (int r = 0; r < kResources; ++r) {
            sw += j.w[size_t(r)];
            ss += j.s[size_t(r)];
        }
        const double vol = d * sw + double(j.psFor(j.chunks)) * fastest * ss;
        const double v = j.f(double(fastest));
        if (v > 0 && vol > 0)
            lmin = std::min(lmin, v / (4 * vol));
    }
    double L = std::isfinite(lmin) ? lmin : 1e-6;
    L *= m_par.lScale;
    if (m_par.fixedL > 0)
        L = m_par.fixedL;
    m_p.Lr = m_q.Lr = Amounts {0, 0, 0, 0};
    if (m_par.bounds == OasisParams::Bounds::Density) {
        densityBounds(jobs);
        return;
    }
    for (int r = 0; r < kResources; ++r) {
        // a resource no job uses is never priced into a cost: keep its bound at L (ln 1 = 0 in alpha)
        m_p.U[size_t(r)] = std::max(L, u1[size_t(r)] * m_par.uScale);
        m_q.U[size_t(r)] = std::max(L, u2[size_t(r)] * m_par.uScale);
    }
    m_p.L = m_q.L = L;
    m_wl.cachePrices(m_p);
    m_pl.cachePrices(m_q);
}

void OasisOnline::densityBounds(const std::vector<OasisJob>& jobs)
{
    // per (family, resource): the largest and smallest utility per unit per slot at the job's fastest schedule
    constexpr double inf = std::numeric_limits<double>::infinity();
    Amounts u1 {0, 0, 0, 0}, u2 {0, 0, 0, 0}, l1 {inf, inf, inf, inf}, l2 {inf, inf, inf, inf};
    for (const OasisJob& j : jobs) {
        const int d = j.workerSlots(m_sc ? m_sc->slotSeconds : 1.0);
        const int fastest = (d + j.chunks - 1) / j.chunks;
        const double v = j.f(double(fastest));
        if (!(v > 0))
            continue;
        const double z = double(j.psFor(j.chunks)) * fastest;
        for (size_t r = 0; r < size_t(kResources); ++r) {
            if (j.w[r] > 0) {
                u1[r] = std::max(u1[r], v / (d * j.w[r]));
                l1[r] = std::min(l1[r], v / (d * j.w[r]));
            }
            if (j.s[r] > 0 && z > 0) {
                u2[r] = std::max(u2[r], v / (z * j.s[r]));
                l2[r] = std::min(l2[r], v / (z * j.s[r]));
            }
        }
    }
    // n = the (family, resource) pairs some job uses: at zero load a job pays at most n x its share f / (4 n)
    int n = 0;
    for (size_t r = 0; r < size_t(kResources); ++r)
        n += (u1[r] > 0) + (u2[r] > 0);
    n = std::max(1, n);
    double lo = inf;
    for (size_t r = 0; r < size_t(kResources); ++r) {
        m_p.Lr[r] = std::isfinite(l1[r]) ? l1[r] / (4.0 * n) * m_par.lScale : 0;
        m_q.Lr[r] = std::isfinite(l2[r]) ? l2[r] / (4.0 * n) * m_par.lScale : 0;
        lo = std::min({lo, m_p.Lr[r] > 0 ? m_p.Lr[r] : inf, m_q.Lr[r] > 0 ? m_q.Lr[r] : inf});
    }
    m_p.L = m_q.L = std::isfinite(lo) ? lo : 1e-6; // resources no job uses (never priced into a cost)
    for (size_t r = 0; r < size_t(kResources); ++r) {
        m_p.U[r] = std::max(m_p.lower(int(r)), u1[r] * m_par.uScale);
        m_q.U[r] = std::max(m_q.lower(int(r)), u2[r] * m_par.uScale);
    }
    m_wl.cachePrices(m_p);
    m_pl.cachePrices(m_q);
}

double OasisOnline::alpha() const
{
    double a = 1;
    for (int r = 0; r < kResources; ++r)
        a = std::max({a, std::log(m_p.U[size_t(r)] / m_p.lower(r)), std::log(m_q.U[size_t(r)] / m_q.lower(r))});
    return a;
}

Quote OasisOnline::quote(const OasisJob& j, const std::vector<char>* workerMask) const
{
    SubroutineInput in;
    in.job = &j;
    in.work = j.workerSlots(m_sc->slotSeconds);
    in.workers = &m_wl;
    in.ps = &m_pl;
    in.p = &m_p;
    in.q = &m_q;
    in.rigid = m_par.rigid;
    in.workerMask = workerMask;
    if (m_par.rigid)
        in.work = ((in.work + j.chunks - 1) / j.chunks) * j.chunks;
    return bestSchedule(in);
}

AdmissionDecision OasisOnline::offer(int index, const std::vector<char>* workerMask)
{
    const OasisJob& j = m_sc->jobs[size_t(index)];
    const auto t0 = std::chrono::steady_clock::now();
    Quote q = quote(j, workerMask);
    AdmissionDecision d;
    d.micros = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    d.job = index;
    d.feasible = q.feasible;
    d.utility = q.utility;
    d.workerCost = q.workerCost;
    d.psCost = q.psCost;
    d.admitted = q.feasible && q.payoff() > 0;
    d.schedule = std::move(q.schedule);
    if (d.admitted)
        commitSchedule(j, d.schedule, m_wl, m_pl, +1);
    return d;
}

} // namespace ss::oasis
