#include "policy/oasis/subroutine.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>

namespace ss::oasis {

namespace {

constexpr double kBig = std::numeric_limits<double>::infinity();

using Unit = ServerUnits;

/// Servers that can take at least one item in slot t, cheapest first (ties: lower index), the first `keep` of that
/// order (keep >= need: each takes >= 1 item, so the first `need` hold the cheapest `need` items, all that
/// prefixCosts and fill read), each with the items it takes capped at `need`. Returns whether that is every server
/// that can take an item.
bool rankUnits(const Ledger& l, const PriceFamily& pf, int t, const Amounts& demand, int need, int keep,
               std::vector<Unit>& out, const std::vector<char>* mask)
{
    out.clear();
    if (need <= 0)
        return true;
    auto consider = [&](int s) {
        if (mask && !(*mask)[size_t(s)])
            return false;
        const int u = l.unitsFreeCapped(s, t, demand, need);
        if (u > 0)
            out.push_back({pf.unitCost(l, s, t, demand), s, u});
        return u > 0;
    };
    // The servers something was ever reserved on in slot t, each; of the others only the first `keep` (lowest
    // ids) that can take an item: a server never reserved prices every resource at the zero-load price (and one
    // lacking a resource the job needs takes no item), so they all cost the same per item and the lowest ids go
    // first among them, as a scan of every server would rank them. (A slot is mostly untouched: 16 % of the
    // servers on average for 2k jobs on alibaba-scale.)
    for (const int s : l.touchedAt(t))
        consider(s);
    int fresh = 0, s = 0;
    for (; s < l.servers() && fresh < keep; ++s)
        if (!l.touched(s, t) && consider(s))
            ++fresh;
    bool all = true;
    for (; s < l.servers() && all; ++s) // (is any server left that could take an item?)
        all = l.touched(s, t) || (mask && !(*mask)[size_t(s)]) || l.unitsFreeCapped(s, t, demand, need) == 0;
    const auto cheaper = [](const Unit& a, const Unit& b) { return a.before(b); };
    if (out.size() > size_t(keep)) {
        std::partial_sort(out.begin(), out.begin() + keep, out.end(), cheaper);
        out.resize(size_t(keep));
        all = false;
    } else {
        std::sort(out.begin(), out.end(), cheaper);
    }
    return all;
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

struct Ranked {
    const std::vector<Unit>* units;
    const std::vector<double>* costs;
};
struct RankScratch {
    std::vector<Unit> units;
    std::vector<double> costs;
};
/// The ranking of slot t for this question and the costs of its cheapest items (prefixCosts). With a `question`
/// id (Ledger::keptQuestion: asked before, prices cached), from the ledger's memo (Ledger::Ranking, kept current
/// by the ledger as reservations change) where it has one, else made and kept there; the list may then be longer
/// than `need` servers, and its first `need` are those rankUnits gives with `keep` = need. Without, made in
/// `scratch`. `maskId`: l.maskId(mask).
Ranked sortedUnits(const Ledger& l, const PriceFamily& pf, int t, const Amounts& demand, int need, RankScratch& scratch,
                   int question, const std::vector<char>* mask = nullptr, int maskId = -1, bool withCosts = true)
{
    if (question < 0) {
        rankUnits(l, pf, t, demand, need, need, scratch.units, mask);
        if (withCosts)
            prefixCosts(scratch.units, need, scratch.costs);
        return {&scratch.units, &scratch.costs};
    }
    std::vector<Ledger::Ranking>& kept = l.rankings(t);
    const uint64_t now = l.tick();
    Ledger::Ranking* r = nullptr;
    for (Ledger::Ranking& x : kept)
        if (x.question == question) {
            x.used = now;
            r = &x;
            break;
        }
    if (!r) {
        if (kept.size() < Ledger::kRankings) {
            kept.emplace_back();
            r = &kept.back();
        } else {
            r = &*std::min_element(kept.begin(), kept.end(),
                                   [](const Ledger::Ranking& a, const Ledger::Ranking& b) { return a.used < b.used; });
        }
        r->valid = false;
        r->used = now;
        r->question = question;
        r->need = need;
        r->keep = 2 * need + 8; // room for the servers a few commits take out of the prefix
        r->mask = maskId;
        r->demand = demand;
    }
    if (!r->valid) {
        r->complete = rankUnits(l, pf, t, demand, need, r->keep, r->units, mask);
        r->valid = true;
        r->costsValid = false;
    }
    if (withCosts && !r->costsValid) {
        prefixCosts(r->units, need, r->costs);
        r->costsValid = true;
    }
    return {&r->units, &r->costs};
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

/// One row of the DP: cur[d] = min over y of prev[d - y] + c[y] (y = 0..maxStep, c[0] = 0, y = 0 kept on ties), the
/// y taken in ch[d], for d = 0..upTo.
void dpRow(const std::vector<double>& prev, std::vector<double>& cur, uint16_t* ch, const double* c, int maxStep, int upTo)
{
    for (int d = 0; d <= upTo; ++d) {
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
    // c[y]: the cost of y steps in the slot at hand
    std::vector<double> cost(size_t(maxStep + 1));
    RankScratch wScratch, pScratch;
    const int maskId = in.workers->maskId(in.workerMask);
    // rankings are kept for questions asked again (the engine's jobs share a demand; the seed model's each have theirs)
    const int wMemo = in.workers->pricesCached() ? in.workers->keptQuestion(N, maskId, j.w) : -1;
    const int pMemo = in.ps->pricesCached() ? in.ps->keptQuestion(zmax, -1, j.s) : -1;
    // DP rows F(k, d) (least cost of d steps by slot k) and the choice table for reconstruction
    std::vector<double> prev(size_t(levels) + 1, kBig), cur(size_t(levels) + 1, kBig);
    prev[0] = 0;
    int reach = 0; // the most steps F(k - 1, .) can do (fewer steps can always be done too)
    std::vector<uint16_t> choice; // per slot scanned, levels + 1 choices
    double bestPayoff = -kBig;
    int bestK = -1, bestY = 0;
    for (int k = 0; k < span; ++k) {
        const int t = a + k;
        const double f = j.f(double(k + 1));
        if (bestK >= 0 && f <= bestPayoff)
            break; // costs are >= 0 and f is non-increasing: no later completion can do better
        const std::vector<double>& wp =
            *sortedUnits(*in.workers, *in.p, t, j.w, N, wScratch, wMemo, in.workerMask, maskId).costs;
        const std::vector<double>& pp = *sortedUnits(*in.ps, *in.q, t, j.s, zmax, pScratch, pMemo).costs;
        double* c = cost.data();
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
        choice.resize(size_t(k + 1) * size_t(levels + 1)); // (a row of 0: no steps in this slot)
        bool any = false;
        for (int y = 1; y <= maxStep && !any; ++y)
            any = c[y] != kBig;
        if (!any)
            continue; // nothing fits in this slot: F(k, d) = F(k - 1, d) for every d
        uint16_t* ch = &choice[size_t(k) * size_t(levels + 1)];
        // F(k - 1, d) is kBig past `reach` steps, so F(k, d) is past reach + maxStep (and cur holds kBig there: an
        // older row, whose reach was no further)
        const int upTo = std::min(levels, reach + maxStep);
        if (maxStep == 1) {
            // rigid: one gang or none (dpRow with y = 1 only, without branches; c[1] is finite here)
            const double c1 = c[1];
            const double* pv = prev.data();
            double* cv = cur.data();
            cv[0] = pv[0];
            ch[0] = 0;
            for (int d = 1; d <= upTo; ++d) {
                const double v = pv[d - 1] + c1;
                const bool take = v < pv[d];
                cv[d] = take ? v : pv[d];
                ch[d] = uint16_t(take);
            }
        } else {
            dpRow(prev, cur, ch, c, maxStep, upTo);
        }
        while (reach < upTo && cur[size_t(reach) + 1] != kBig)
            ++reach;
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
        fill(*sortedUnits(*in.workers, *in.p, t, j.w, N, wScratch, wMemo, in.workerMask, maskId, false).units, y, s.y);
        fill(*sortedUnits(*in.ps, *in.q, t, j.s, zmax, pScratch, pMemo, nullptr, -1, false).units, s.ps, s.z);
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
