#pragma once
// OASiS's slotted reservations (ALGORITHMS.md §3.4): for every server, resource and future slot, the amount
// already committed to admitted jobs, and the exponential price of it (§3.3: L at zero load, U at full).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "model/oasisjob.h"

namespace ss::oasis {

struct PriceFamily;

/// A server that can take items of a demand in a slot: its unit cost there and how many items fit (capped).
struct ServerUnits {
    double cost;
    int server;
    int units;
    /// The ranking's order: cheaper first, the lower server on equal cost.
    bool before(const ServerUnits& o) const { return cost < o.cost || (cost == o.cost && server < o.server); }
};

class Ledger {
public:
    void reset(const std::vector<OasisServer>& servers, int slots);
    int servers() const { return int(m_cap.size()); }
    int slots() const { return m_slots; }
    const Amounts& cap(int s) const { return m_cap[size_t(s)]; }
    double used(int s, int t, int r) const { return at(s, t).used[r]; }
    /// Whole units of `demand` that still fit on server s in slot t (a large number when demand is all zero).
    int unitsFree(int s, int t, const Amounts& demand) const
    {
        return unitsFreeCapped(s, t, demand, std::numeric_limits<int>::max() / 4);
    }
    /// min(cap, unitsFree(s, t, demand)), the same value, without a division for a resource that holds cap units
    /// (inline: the subroutine calls it for every server in every slot it scans).
    int unitsFreeCapped(int s, int t, const Amounts& demand, int cap) const
    {
        int units = cap;
        const Amounts& c = m_cap[size_t(s)];
        const double* used = at(s, t).used;
        for (int r = 0; r < kResources; ++r) {
            const double d = demand[size_t(r)];
            if (d <= 0)
                continue;
            const double left = c[size_t(r)] - used[r];
            // left >= d * units: floor(left / d + 1e-9) >= units (the 1e-9 covers the product's rounding while
            // units < 2^20)
            if (units < (1 << 20) && left >= d * units)
                continue;
            units = std::min(units, std::max(0, int(std::floor(left / d + 1e-9))));
            if (units == 0)
                return 0;
        }
        return units;
    }
    /// Reserves (count > 0) or releases (count < 0) `count` units of `demand` (and refreshes the cached prices).
    void add(int s, int t, const Amounts& demand, int count);
    /// Caches every (server, slot, resource) price of `pf` and keeps the cache current on add(); unitCost then
    /// reads it instead of evaluating the exponential (bench-oasis: the subroutine's main cost).
    void cachePrices(const PriceFamily& pf);
    bool pricesCached() const { return m_cached; }
    double cachedPrice(int s, int t, int r) const { return at(s, t).price[r]; }
    /// Whether anything was ever reserved on server s in slot t (released or not), and the servers where
    /// something was, in slot t, in the order first reserved. A server never reserved holds nothing: every price
    /// is the zero-load one.
    bool touched(int s, int t) const
    {
        const Slot& b = m_slot[size_t(t)];
        return !b.index.empty() && b.index[size_t(s)] >= 0;
    }
    const std::vector<int>& touchedAt(int t) const { return m_slot[size_t(t)].servers; }
    /// Drops what is kept for the slots before t, for a caller that never asks about them again (the engine's
    /// policy, whose quotes start at the current slot): each reads as never reserved from then on, and a slot
    /// is stored only from its first reservation until it is forgotten, so a long run holds the slots of its
    /// plans ahead, not its whole horizon. Reserving in a forgotten slot throws std::logic_error.
    void forgetBefore(int t);
    /// Slots stored now (tests).
    int slotsStored() const;

    /// The subroutine's memo of its rankings (subroutine.cpp, sortedUnits), per slot: for one question (a demand,
    /// the items it may need, the worker servers a mask allows) the servers of slot t that can take an item, in
    /// the order (unit cost, server), each with the items it can take (at most `need`). `units` is always an exact
    /// prefix of that order, at most `keep` long: every add() to a server of slot t repairs the slot's rankings in
    /// place (the server leaves its place and goes back where its new cost puts it, if that is inside the prefix),
    /// so a commit does not make the next job read every server of the slots it reserved in again. A ranking whose
    /// prefix falls below `need` servers (without holding every server that can take an item) is rebuilt at its
    /// next question. Kept only while prices are cached (otherwise a cost reads the caller's PriceFamily).
    /// Mutable: a quote (const) fills it; one ledger serves one simulation at a time (a policy's copy has its own).
    struct Ranking {
        int need = 0;
        int keep = 0;
        int question = -1; // keptQuestion()
        int mask = -1; // maskId(); -1 = every server
        Amounts demand {};
        bool valid = false;
        bool complete = false; // holds every server that can take an item
        uint64_t used = 0;     // when last asked (the least recently asked gives way past kRankings)
        std::vector<ServerUnits> units;
        bool costsValid = false;   // `costs` made from `units` as they are
        std::vector<double> costs; // the subroutine's: costs[n] = the cheapest n items (n <= need)
    };
    /// Rankings kept per slot at most: every add() repairs the slot's, and jobs of the seed's model each have their
    /// own demand (a ranking no later job asks for).
    static constexpr size_t kRankings = 6;
    std::vector<Ranking>& rankings(int t) const { return m_rankings[size_t(t)]; }
    uint64_t tick() const { return ++m_tick; }
    /// Rankings are kept only for a question (need, mask, demand) a quote asked before, among the last kAsked
    /// different ones: then its id (Ranking::question), else -1 (and it is noted as asked).
    int keptQuestion(int need, int mask, const Amounts& demand) const;
    static constexpr size_t kAsked = 16;
    /// A small id for a mask's contents (the same contents, the same id); -1 for null.
    int maskId(const std::vector<char>* mask) const;
    bool maskAllows(int id, int s) const { return id < 0 || m_masks[size_t(id)][size_t(s)] != 0; }
    /// PriceFamily::unitCost from the cached prices (the same sum, term for term).
    double cachedUnitCost(int s, int t, const Amounts& demand) const
    {
        double c = 0;
        for (int r = 0; r < kResources; ++r)
            if (demand[size_t(r)] > 0)
                c += cachedPrice(s, t, r) * demand[size_t(r)];
        return c;
    }

private:
    std::vector<Amounts> m_cap;
    // per (slot, server): the amounts reserved and their cached prices in one cache line (the subroutine reads both)
    struct alignas(64) Cell {
        double used[kResources];
        double price[kResources];
    };
    // per slot, from its first reservation: the cells of the servers reserved on (touched), in the order first
    // reserved, and per server its cell's place there (-1: never reserved). A plan reaches thousands of slots
    // ahead and touches a few servers in each, so the cells of a slot's other servers are not stored: they read
    // m_zero (nothing reserved, the zero-load prices).
    struct Slot {
        std::vector<int> index;
        std::vector<Cell> cells;
        std::vector<int> servers; // cells[i] is servers[i]'s (touchedAt)
    };
    std::vector<Slot> m_slot;
    std::vector<Cell> m_zero;
    int m_forgotten = 0; // slots before it were forgotten
    const Cell& at(int s, int t) const
    {
        const Slot& b = m_slot[size_t(t)];
        if (b.index.empty())
            return m_zero[size_t(s)];
        const int i = b.index[size_t(s)];
        return i < 0 ? m_zero[size_t(s)] : b.cells[size_t(i)];
    }
    Cell& store(int s, int t);
    void priceCell(Cell& c, int s, const PriceFamily& pf) const;
    mutable std::vector<std::vector<Ranking>> m_rankings; // per slot
    mutable uint64_t m_tick = 0;
    struct Question {
        int need, mask;
        Amounts demand;
    };
    mutable std::vector<Question> m_asked; // ring of the last kAsked questions
    mutable std::vector<Question> m_kept;  // keptQuestion's ids
    mutable size_t m_askedNext = 0;
    mutable std::vector<std::vector<char>> m_masks;       // maskId's table
    bool m_cached = false;
    Amounts m_U {1, 1, 1, 1};
    double m_L = 1;
    Amounts m_Lr {0, 0, 0, 0};
    int m_slots = 0;
    void repairRankings(int s, int t);
};

/// One family of prices (worker servers: p_h^r(t), PS servers: q_k^r(t)):
/// price = L (U^r / L)^(used / cap), L at zero load and U^r at full.
struct PriceFamily {
    // (the ledger caches prices: a change to U or L needs Ledger::cachePrices again)
    Amounts U {1, 1, 1, 1};
    double L = 1;
    Amounts Lr {0, 0, 0, 0}; ///< per-resource zero-load prices where > 0 (OasisParams::Bounds::Density), else L
    double lower(int r) const { return Lr[size_t(r)] > 0 ? Lr[size_t(r)] : L; }
    double price(double used, double cap, int r) const;
    /// Unit cost of one item of `demand` on server s in slot t: sum over r of price x demand.
    double unitCost(const Ledger& l, int s, int t, const Amounts& demand) const
    {
        if (l.pricesCached())
            return l.cachedUnitCost(s, t, demand);
        double c = 0;
        for (int r = 0; r < kResources; ++r)
            if (demand[size_t(r)] > 0)
                c += price(l.used(s, t, r), l.cap(s)[size_t(r)], r) * demand[size_t(r)];
        return c;
    }
};

} // namespace ss::oasis
