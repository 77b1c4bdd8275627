#include "policy/oasis/ledger.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ss::oasis {

void Ledger::reset(const std::vector<OasisServer>& servers, int slots)
{
    m_slots = slots;
    m_cap.clear();
    for (const OasisServer& s : servers)
        m_cap.push_back(s.cap);
    m_cells.assign(m_cap.size() * size_t(slots), Cell {});
    m_touched.assign(m_cells.size(), 0);
    m_touchedAt.assign(size_t(std::max(slots, 0)), {});
    m_cached = false;
}

void Ledger::cachePrices(const PriceFamily& pf)
{
    m_U = pf.U;
    m_L = pf.L;
    m_Lr = pf.Lr;
    m_cached = true;
    for (int s = 0; s < servers(); ++s)
        for (int t = 0; t < m_slots; ++t)
            for (int r = 0; r < kResources; ++r)
                m_cells[cell(s, t)].price[r] = pf.price(m_cells[cell(s, t)].used[r], m_cap[size_t(s)][size_t(r)], r);
}

void Ledger::add(int s, int t, const Amounts& demand, int count)
{
    if (!m_touched[cell(s, t)]) {
        m_touched[cell(s, t)] = 1;
        m_touchedAt[size_t(t)].push_back(s);
    }
    for (int r = 0; r < kResources; ++r)
        m_cells[cell(s, t)].used[r] += demand[size_t(r)] * count;
    if (m_cached) {
        PriceFamily pf;
        pf.U = m_U;
        pf.L = m_L;
        pf.Lr = m_Lr;
        for (int r = 0; r < kResources; ++r)
            m_cells[cell(s, t)].price[r] = pf.price(m_cells[cell(s, t)].used[r], m_cap[size_t(s)][size_t(r)], r);
    }
}

double PriceFamily::price(double used, double cap, int r) const
{
    if (cap <= 0)
        return U[size_t(r)];
    const double frac = std::clamp(used / cap, 0.0, 1.0);
    const double l = lower(r);
    return l * std::pow(U[size_t(r)] / l, frac);
}

} // namespace ss::oasis
