#pragma once
// OASiS's slotted reservations (ALGORITHMS.md §3.4): for every server, resource and future slot, the amount
// already committed to admitted jobs, and the exponential price of it (§3.3: L at zero load, U at full).
#include <vector>

#include "model/oasisjob.h"

namespace ss::oasis {

struct PriceFamily;

class Ledger {
public:
    void reset(const std::vector<OasisServer>& servers, int slots);
    int servers() const { return int(m_cap.size()); }
    int slots() const { return m_slots; }
    const Amounts& cap(int s) const { return m_cap[size_t(s)]; }
    double used(int s, int t, int r) const { return m_used[index(s, t, r)]; }
    /// Whole units of `demand` that still fit on server s in slot t (a large number when demand is all zero).
    int unitsFree(int s, int t, const Amounts& demand) const;
    /// Reserves (count > 0) or releases (count < 0) `count` units of `demand` (and refreshes the cached prices).
    void add(int s, int t, const Amounts& demand, int count);
    /// Caches every (server, slot, resource) price of `pf` and keeps the cache current on add(); unitCost then
    /// reads it instead of evaluating the exponential (bench-oasis: the subroutine's main cost).
    void cachePrices(const PriceFamily& pf);
    bool pricesCached() const { return !m_price.empty(); }
    double cachedPrice(int s, int t, int r) const { return m_price[index(s, t, r)]; }

private:
    size_t index(int s, int t, int r) const { return (size_t(s) * size_t(m_slots) + size_t(t)) * kResources + size_t(r); }
    std::vector<Amounts> m_cap;
    std::vector<double> m_used;
    std::vector<double> m_price; // empty = not cached
    std::vector<char> m_priced;  // per resource: cached family
    Amounts m_U {1, 1, 1, 1};
    double m_L = 1;
    int m_slots = 0;
};

/// One family of prices (worker servers: p_h^r(t), PS servers: q_k^r(t)):
/// price = L (U^r / L)^(used / cap), L at zero load and U^r at full.
struct PriceFamily {
    // (the ledger caches prices: a change to U or L needs Ledger::cachePrices again)
    Amounts U {1, 1, 1, 1};
    double L = 1;
    double price(double used, double cap, int r) const;
    /// Unit cost of one item of `demand` on server s in slot t: sum over r of price x demand.
    double unitCost(const Ledger& l, int s, int t, const Amounts& demand) const;
};

} // namespace ss::oasis
