#include "policy/oasis/subroutine.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>

namespace ss::oasis {

namespace {

constexpr double kBig = std::numeric_limits<double>::infinity();

struct Unit {
    double cost;
    int server;
    int units;
};

/// Servers that can take at least one item in slot t, cheapest first (ties: lower index); only the first `need`
/// of that order (each takes >= 1 item, so they hold the cheapest `need` items: all that prefixCosts and fill read).
void sortedUnits(const Ledger& l, const PriceFamily& pf, int t, const Amounts& demand, int need, std::vector<Unit>& out,
                 const std::vector<char>* mask = nullptr)
{
    out.clear();
    if (need <= 0)
        return;
    auto consider = [&](int s) {
        if (mask && !(*mask)[size_t(s)])
            return false;
        const int u = l.unitsFreeCapped(s, t, demand, need);
        if (u > 0)
            out.push_back({pf.unitCost(l, s, t, demand), s, u});
        return u > 0;
    };
    // The servers something was ever reserved on in slot t, each; of the others only the first `need` (lowest
    // ids) that can take an item: a server never reserved prices every resource at the zero-load price (and one
    // lacking a resource the job needs takes no item), so they all cost the same per item and the lowest ids go
    // first among them, as a scan of every server would rank them. (A slot is mostly untouched: 16 % of the
    // servers on average for 2k jobs on alibaba-scale.)
    for (const int s : l.touchedAt(t))
        consider(s);
    int fresh = 0;
    for (int s = 0; s < l.servers() && fresh < need; ++s)
        if (!l.touched(s, t) && consider(s))
            ++fresh;
    const auto cheaper = [](const Unit& a, const Unit& b) {
        return a.cost < b.cost || (a.cost == b.cost && a.server < b.server);
    };
    if (out.size() > size_t(need)) {
        std::partial_sort(out.begin(), out.begin() + need, out.end(), cheaper);
        out.resize(size_t(need));
    } else {
        std::sort(out.begin(), out.end(), cheaper);
    }
}

/// prefix[n] = cheapest cost of n items (n = 0..need), kBig past what fits.
void prefixCosts(const std::vector<Unit>& units, int need, std::vector<double>& prefix)
{
    prefix.assign(size_t(need) + 1, kBig);
    prefix[0] = 0;
    int n = 0;
    double acc = 0;
    for (const Unit& u : units)
        for (int i = 0; i < u.units && n < need; ++i) {
            acc += u.cost;
            prefix[size_t(++n)] = acc;
        }
}

void fill(const std::vector<Unit>& units, int n, std::vector<std::pair<int, int>>& out)
{
    for (const Unit& u : units) {
        if (n <= 0)
            break;
        const int k = std::min(n, u.units);
        out.push_back({u.server, k});
        n -= k;
    }
}

} // namespace

Quote bestSchedule(const SubroutineInput& in)
{
    const OasisJob& j = *in.job;
    const int T = in.workers->slots();
    const int a = j.arrival;
    const int D = in.work;
    const int N = j.chunks;
    const int zmax = j.psFor(N);
    Quote best;
    if (a >= T)
        return best;
    const int span = T - a;
    // DP in steps of `unit` workers: 1 for elastic jobs; rigid jobs move in whole gangs of min(N, D)
    const int unit = in.rigid ? std::min(N, D) : 1;
    const int levels = (D + unit - 1) / unit;  // work in steps
    const int maxStep = in.rigid ? 1 : N;      // steps per slot
    // cost[k][y], k = slot offset from the arrival, y steps
    std::vector<double> cost(size_t(span) * size_t(maxStep + 1));
    std::vector<Unit> wu, pu;
    std::vector<double> wp, pp;
    // DP rows F(k, d) (least cost of d steps by slot k) and the choice table for reconstruction
    std::vector<double> prev(size_t(levels) + 1, kBig), cur(size_t(levels) + 1);
    prev[0] = 0;
    std::vector<uint16_t> choice(size_t(span) * size_t(levels + 1), 0);
    double bestPayoff = -kBig;
    int bestK = -1, bestY = 0;
    for (int k = 0; k < span; ++k) {
        const int t = a + k;
        const double f = j.f(double(k + 1));
        if (bestK >= 0 && f <= bestPayoff)
            break; // costs are >= 0 and f is non-increasing: no later completion can do better
        sortedUnits(*in.workers, *in.p, t, j.w, N, wu, in.workerMask);
        prefixCosts(wu, N, wp);
        sortedUnits(*in.ps, *in.q, t, j.s, zmax, pu);
        prefixCosts(pu, zmax, pp);
        double* c = &cost[size_t(k) * size_t(maxStep + 1)];
        for (int y = 0; y <= maxStep; ++y)
            c[y] = y == 0 ? 0.0 : wp[size_t(y * unit)] + pp[size_t(j.psFor(y * unit))];
        // completion at this slot: y >= 1 steps now, the rest by the previous slot
        for (int y = 1; y <= std::min(maxStep, levels); ++y) {
            if (c[y] == kBig || prev[size_t(levels - y)] == kBig)
                continue;
            const double g = prev[size_t(levels - y)] + c[y];
            if (f - g > bestPayoff) {
                bestPayoff = f - g;
                bestK = k;
                bestY = y;
            }
        }
        uint16_t* ch = &choice[size_t(k) * size_t(levels + 1)];
        for (int d = 0; d <= levels; ++d) {
            double m = prev[size_t(d)];
            int arg = 0;
            for (int y = 1; y <= std::min(maxStep, d); ++y) {
                if (c[y] == kBig)
                    continue;
                const double v = prev[size_t(d - y)] + c[y];
                if (v < m) {
                    m = v;
                    arg = y;
                }
            }
            cur[size_t(d)] = m;
            ch[d] = uint16_t(arg);
        }
        std::swap(prev, cur);
    }
    if (bestK < 0)
        return best;
    // walk back: bestY at bestK, then the choices of F(k-1, d); in workers
    std::vector<int> ys(size_t(bestK) + 1, 0);
    ys[size_t(bestK)] = bestY * unit;
    int d = levels - bestY;
    for (int k = bestK - 1; k >= 0 && d > 0; --k) {
        const int y = choice[size_t(k) * size_t(levels + 1) + size_t(d)];
        ys[size_t(k)] = y * unit;
        d -= y;
    }
    best.feasible = true;
    best.utility = j.f(double(bestK + 1));
    for (int k = 0; k <= bestK; ++k) {
        const int y = ys[size_t(k)];
        if (y == 0)
            continue;
        const int t = a + k;
        SlotAlloc s;
        s.slot = t;
        s.workers = y;
        s.ps = j.psFor(y);
        sortedUnits(*in.workers, *in.p, t, j.w, N, wu, in.workerMask);
        fill(wu, y, s.y);
        sortedUnits(*in.ps, *in.q, t, j.s, zmax, pu);
        fill(pu, s.ps, s.z);
        for (const auto& [h, n] : s.y)
            best.workerCost += in.p->unitCost(*in.workers, h, t, j.w) * n;
        for (const auto& [kk, n] : s.z)
            best.psCost += in.q->unitCost(*in.ps, kk, t, j.s) * n;
        best.schedule.slots.push_back(std::move(s));
    }
    best.schedule.completion = a + bestK;
    return best;
}

void commitSchedule(const OasisJob& j, const Schedule& s, Ledger& workers, Ledger& ps, int sign)
{
    for (const SlotAlloc& a : s.slots) {
        for (const auto& [h, n] : a.y)
            workers.add(h, a.slot, j.w, sign * n);
        for (const auto& [k, n] : a.z)
            ps.add(k, a.slot, j.s, sign * n);
    }
}

} // namespace ss::oasis
