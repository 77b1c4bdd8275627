#include "policy/oasis/ledger.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include <unistd.h>

namespace ss::oasis {

void Ledger::reset(const std::vector<OasisServer>& servers, int slots)
{
    // A slot's cells are stored from its first reservation, only for the servers reserved on (until
    // forgetBefore): what every slot of the horizon costs is its empty entries here. Refuse a horizon whose
    // entries alone would take over half of this machine's memory, with an error rather than be killed for it.
    const double perSlot = double(sizeof(Slot) + sizeof(std::vector<Ranking>));
    const double need = double(std::max(slots, 0)) * perSlot;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0 && need > 0.5 * double(pages) * double(page)) {
        char msg[256];
        std::snprintf(msg, sizeof msg,
                      "OASiS slot ledger: %zu servers x %d slots would take %.1f GiB, over half of this machine's "
                      "%.1f GiB (longer slots, oasis.slot, or a shorter trace make it smaller)",
                      servers.size(), slots, need / 1073741824.0, double(pages) * double(page) / 1073741824.0);
        throw std::runtime_error(msg);
    }
    m_slots = slots;
    m_cap.clear();
    for (const OasisServer& s : servers)
        m_cap.push_back(s.cap);
    m_slot.assign(size_t(std::max(slots, 0)), Slot {});
    m_zero.assign(m_cap.size(), Cell {});
    m_forgotten = 0;
    m_cached = false;
    m_rankings.assign(size_t(std::max(slots, 0)), {});
    m_masks.clear();
    m_asked.clear();
    m_kept.clear();
    m_askedNext = 0;
}

Ledger::Cell& Ledger::store(int s, int t)
{
    Slot& b = m_slot[size_t(t)];
    if (b.index.empty()) {
        if (t < m_forgotten)
            throw std::logic_error("OASiS slot ledger: a reservation in slot " + std::to_string(t)
                                   + ", which was forgotten (slots before " + std::to_string(m_forgotten) + ")");
        b.index.assign(m_cap.size(), -1);
    }
    int& i = b.index[size_t(s)];
    if (i < 0) {
        i = int(b.cells.size());
        b.cells.push_back(m_zero[size_t(s)]);
        b.servers.push_back(s); // (every stored cell was reserved on)
    }
    return b.cells[size_t(i)];
}

void Ledger::forgetBefore(int t)
{
    t = std::min(t, m_slots);
    for (int u = m_forgotten; u < t; ++u) {
        m_slot[size_t(u)] = Slot {}; // (a move: the old storage is freed)
        std::vector<Ranking> {}.swap(m_rankings[size_t(u)]);
    }
    m_forgotten = std::max(m_forgotten, t);
}

int Ledger::slotsStored() const
{
    return int(std::count_if(m_slot.begin(), m_slot.end(), [](const Slot& b) { return !b.index.empty(); }));
}

void Ledger::priceCell(Cell& c, int s, const PriceFamily& pf) const
{
    for (int r = 0; r < kResources; ++r)
        c.price[r] = pf.price(c.used[r], m_cap[size_t(s)][size_t(r)], r);
}

int Ledger::keptQuestion(int need, int mask, const Amounts& demand) const
{
    auto same = [&](const Question& q) { return q.need == need && q.mask == mask && q.demand == demand; };
    for (size_t i = 0; i < m_kept.size(); ++i)
        if (same(m_kept[i]))
            return int(i);
    for (const Question& q : m_asked)
        if (same(q)) {
            m_kept.push_back(q);
            return int(m_kept.size()) - 1;
        }
    if (m_asked.size() < kAsked) {
        m_asked.push_back({need, mask, demand});
    } else {
        m_asked[m_askedNext] = {need, mask, demand};
        m_askedNext = (m_askedNext + 1) % kAsked;
    }
    return -1;
}

int Ledger::maskId(const std::vector<char>* mask) const
{
    if (!mask)
        return -1;
    for (size_t i = 0; i < m_masks.size(); ++i)
        if (m_masks[i] == *mask)
            return int(i);
    m_masks.push_back(*mask);
    return int(m_masks.size()) - 1;
}

void Ledger::cachePrices(const PriceFamily& pf)
{
    m_U = pf.U;
    m_L = pf.L;
    m_Lr = pf.Lr;
    m_cached = true;
    for (std::vector<Ranking>& rs : m_rankings) // every price may have changed
        rs.clear();
    for (int s = 0; s < servers(); ++s)
        priceCell(m_zero[size_t(s)], s, pf);
    for (Slot& b : m_slot)
        for (size_t i = 0; i < b.cells.size(); ++i)
            priceCell(b.cells[i], b.servers[i], pf);
}

void Ledger::add(int s, int t, const Amounts& demand, int count)
{
    Cell& c = store(s, t);
    for (int r = 0; r < kResources; ++r)
        c.used[r] += demand[size_t(r)] * count;
    if (m_cached) {
        PriceFamily pf;
        pf.U = m_U;
        pf.L = m_L;
        pf.Lr = m_Lr;
        priceCell(c, s, pf);
        repairRankings(s, t);
    }
}

void Ledger::repairRankings(int s, int t)
{
    // Only server s changed in slot t: every other server keeps its cost and items, so a ranking stays an exact
    // prefix of the order once s is taken out and put back where its new cost and items put it (when that is
    // inside the prefix, or the ranking holds every server that can take an item).
    for (Ranking& r : m_rankings[size_t(t)]) {
        if (!r.valid || !maskAllows(r.mask, s))
            continue;
        r.costsValid = false;
        for (size_t i = 0; i < r.units.size(); ++i)
            if (r.units[i].server == s) {
                r.units.erase(r.units.begin() + std::ptrdiff_t(i));
                break;
            }
        if (const int u = unitsFreeCapped(s, t, r.demand, r.need); u > 0) {
            const ServerUnits now {cachedUnitCost(s, t, r.demand), s, u};
            size_t pos = 0;
            while (pos < r.units.size() && r.units[pos].before(now))
                ++pos;
            if (pos < r.units.size() || r.complete)
                r.units.insert(r.units.begin() + std::ptrdiff_t(pos), now);
            if (int(r.units.size()) > r.keep) {
                r.units.pop_back();
                r.complete = false;
            }
        }
        if (!r.complete && int(r.units.size()) < r.need)
            r.valid = false; // too short to answer: rebuilt at its next question
    }
}

double PriceFamily::price(double used, double cap, int r) const
{
    if (cap <= 0)
        return U[size_t(r)];
    const double frac = std::clamp(used / cap, 0.0, 1.0);
    const double l = lower(r);
    if (frac == 0)
        return l; // l * pow(x, 0), as pow(x, 0) is 1 for every x (most cells of a long horizon: cachePrices)
    return l * std::pow(U[size_t(r)] / l, frac);
}

} // namespace ss::oasis
