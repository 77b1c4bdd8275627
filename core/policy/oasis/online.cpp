#include "policy/oasis/online.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

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
        const double top = j.f(1.0);
        for (int r = 0; r < kResources; ++r) {
            if (j.w[size_t(r)] > 0)
                u1[size_t(r)] = std::max(u1[size_t(r)], top / j.w[size_t(r)]);
            if (j.s[size_t(r)] > 0)
                u2[size_t(r)] = std::max(u2[size_t(r)], top / j.s[size_t(r)]);
        }
        const int d = j.workerSlots(m_sc ? m_sc->slotSeconds : 1.0);
        const int fastest = (d + j.chunks - 1) / j.chunks;
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
    for (int r = 0; r < kResources; ++r) {
        // a resource no job uses is never priced into a cost: keep its bound at L (ln 1 = 0 in alpha)
        m_p.U[size_t(r)] = std::max(L, u1[size_t(r)] * m_par.uScale);
        m_q.U[size_t(r)] = std::max(L, u2[size_t(r)] * m_par.uScale);
    }
    m_p.L = m_q.L = L;
    m_wl.cachePrices(m_p);
    m_pl.cachePrices(m_q);
}

double OasisOnline::alpha() const
{
    double a = 1;
    for (int r = 0; r < kResources; ++r)
        a = std::max({a, std::log(m_p.U[size_t(r)] / m_p.L), std::log(m_q.U[size_t(r)] / m_q.L)});
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
