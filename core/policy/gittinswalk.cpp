// GittinsRunIndex's queries (gittinsindex.h): the last running job, whether any runs behind a position, and the
// walk's stretches (firstNotFitting) with the jobs set aside while it passes them (restUpTo). The sets, the
// certificates and the evaluations they read are in gittinsindex.cpp.
#include "policy/gittinsindex.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "policy/holding.h"

namespace ss {

namespace {
constexpr double kInfIndex = std::numeric_limits<double>::infinity();
} // namespace

template <class F> void GittinsRunIndex::forCells(const Queue& q, int c0, int c1, F f) const
{
    for (int c = std::max(0, c0); c <= std::min(kCells - 1, c1); ++c)
        for (const int j : q.cells[size_t(c)])
            f(j);
}

GittinsRunIndex::Pos GittinsRunIndex::last()
{
    int qi = int(m_queues.size()) - 1;
    while (qi > 0 && m_queues[size_t(qi)].count == 0)
        --qi;
    ready(qi);
    Queue& q = m_queues[size_t(qi)];
    Pos best {};
    bool have = false;
    if (!q.sorted.empty()) {
        best = q.sorted.back();
        have = true;
    }
    // the lowest job above is in the lowest non-empty cell or the two after it (bands span three cells)
    int c0 = 0;
    while (c0 < kCells && q.cells[size_t(c0)].empty())
        ++c0;
    std::vector<int> cand;
    forCells(q, c0, c0 + 2, [&](int j) { cand.push_back(j); });
    for (const int j : cand) {
        const Pos& p = exact(j);
        if (!have || best < p)
            best = p;
        have = true;
    }
    return best;
}

bool GittinsRunIndex::anyAfter(const Pos& p)
{
    const int queues = int(m_queues.size());
    const int qi = int(p.key[0]);
    for (int r = std::max(0, qi + 1); r < queues; ++r)
        if (m_queues[size_t(r)].count > 0)
            return true; // (a later queue: nothing evaluated)
    if (qi < 0 || qi >= queues || m_queues[size_t(qi)].count == 0)
        return false;
    ready(qi);
    Queue& q = m_queues[size_t(qi)];
    const double x = -p.key[1];
    noteAsked(q, x);
    if (!q.sorted.empty() && p < q.sorted.back())
        return true;
    if (x <= q.theta)
        return false; // every job above is ahead of p
    const int cx = cellOf(x);
    if (fenCount(q, 0, cx - 2) > 0)
        return true; // certainly below x
    m_seen.clear();
    forCells(q, cx - 1, cx + 1, [&](int j) { m_seen.push_back(j); });
    for (const int j : m_seen) {
        const JobRec& r = m_jobs[size_t(j)];
        if (r.certHigh < x || (!(r.certLow > x) && p < exact(j)))
            return true;
    }
    return false;
}

int GittinsRunIndex::firstNotFitting(const Pos* from, const Pos* to, int64_t* bud)
{
    const int queues = int(m_queues.size());
    const int qa = from ? int(from->key[0]) : 0;
    const int qb = to ? int(to->key[0]) : queues - 1;
    const size_t T = m_types;
    std::vector<int64_t>& acc = m_acc;
    int first = std::max(0, qa);
    const auto same = [](const Pos& a, const Pos& b) { return !(a < b) && !(b < a); };
    if (m_cont.valid && from && m_cont.version == m_version && from->job == m_cont.job && same(*from, m_pos[size_t(m_cont.job)])
        && (to ? m_cont.hasTo && same(*to, m_cont.to) : !m_cont.hasTo)) {
        // Going on after the job the last call returned: the rest of its stretch is the rest of the lowest jobs
        // found then, in exact order (every job inside below it is among them).
        for (size_t i = m_cont.next; i < m_bottom.size(); ++i) {
            const int64_t* u = useOf(m_bottom[i].job);
            if (!holdingFits(u, bud, T)) {
                if (!m_deferAside)
                    restUpTo(&m_bottom[i], bud);
                m_cont.job = m_bottom[i].job;
                m_cont.next = i + 1;
                m_cont.deferred = m_deferAside;
                return m_cont.job;
            }
            holdingTake(u, bud, T);
        }
        restUpTo(nullptr, bud);
        first = m_cont.queue + 1;
    }
    m_cont.valid = false;
    for (int qi = first; qi <= qb && qi < queues; ++qi) {
        Queue& q = m_queues[size_t(qi)];
        if (q.count == 0)
            continue;
        const Pos* lo = from && qi == qa ? from : nullptr;
        const Pos* hi = to && qi == qb ? to : nullptr;
        if (lo && hi && !(*lo < *hi))
            continue; // nothing between
        const double xf = lo ? -lo->key[1] : kInfIndex, xt = hi ? -hi->key[1] : -kInfIndex;
        auto inside = [&](const Pos& p) { return (!lo || *lo < p) && (!hi || p < *hi); };
        // a job above whose certificate keeps its index in [certLow, certHigh]: certainly outside the stretch, or
        // certainly inside it (below from's index and above to's); neither means it must be evaluated
        auto certOut = [&](const JobRec& r) { return (hi && r.certHigh < xt) || (lo && r.certLow > xf); };
        auto certIn = [&](const JobRec& r) { return (!hi || r.certLow > xt) && (!lo || r.certHigh < xf); };
        std::fill(acc.begin(), acc.end(), 0);
        bool detail = lo || hi;
        if (!detail) {
            // the whole queue: its total, whatever the sets
            std::copy(q.total.begin(), q.total.end(), acc.begin());
            if (holdingFits(acc.data(), bud, T)) {
                holdingTake(acc.data(), bud, T);
                continue;
            }
        }
        ready(qi);
        // jobs above theta are certainly after `from` when from is at or below theta, and certainly before `to`
        // when to is; else by their cells
        const bool fromAbove = lo && xf > q.theta;
        const bool toAbove = hi && xt > q.theta;
        const bool aboveInside = !lo || fromAbove;
        const int cf = fromAbove ? cellOf(xf) : kCells, ct = toAbove ? cellOf(xt) : -1;
        // the zone's jobs inside: one run of its sorted positions (after *lo, before *hi)
        const auto zoneLo = lo ? std::upper_bound(q.sorted.begin(), q.sorted.end(), *lo) : q.sorted.begin();
        const auto zoneHi = hi ? std::lower_bound(zoneLo, q.sorted.end(), *hi) : q.sorted.end();
        if (detail) {
            const size_t z0 = size_t(zoneLo - q.sorted.begin()), z1 = size_t(zoneHi - q.sorted.begin());
            for (size_t t = 0; t < T; ++t)
                acc[t] += q.prefix[z1 * T + t] - q.prefix[z0 * T + t];
            if (aboveInside) {
                fenRange(q, toAbove ? ct + 2 : 0, fromAbove ? cf - 2 : kCells - 1, acc.data());
                // the cells whose bands hold xt or xf: each job by its certificate's bounds where they place it,
                // else by its exact position
                auto add = [&](int j) {
                    const JobRec& r = m_jobs[size_t(j)];
                    if (!certOut(r) && (certIn(r) || inside(exact(j))))
                        for (size_t t = 0; t < T; ++t)
                            acc[t] += useOf(j)[t];
                };
                if (toAbove && fromAbove && cf - 1 <= ct + 1) {
                    forCells(q, ct - 1, cf + 1, add);
                } else {
                    if (toAbove)
                        forCells(q, ct - 1, ct + 1, add);
                    if (fromAbove)
                        forCells(q, cf - 1, cf + 1, add);
                }
            }
            if (holdingFits(acc.data(), bud, T)) {
                holdingTake(acc.data(), bud, T);
                continue;
            }
        }
        // Short of room: the stretch's lowest jobs, in exact order, until they hold the shortfall of every type
        // (each job above them then fits). The zone is evaluated whole; jobs above theta are taken cell by cell
        // from the bottom of the stretch up: once cells up to c are evaluated, every job inside with an index below
        // edge(c) is at hand (an unevaluated one has its band, and so its index, at or above edge(c)). Of the
        // cells' jobs, only those holding a type the stretch is short of need to be at hand; the others are set
        // aside (m_aside) and taken as the walk passes them.
        for (size_t t = 0; t < T; ++t)
            m_need[t] = std::max<int64_t>(0, acc[t] - bud[t]);
        std::vector<Pos>& bottom = m_bottom;
        bottom.clear();
        m_aside.clear();
        m_asideDone = 0;
        m_asideHeld.assign(T, 0);
        auto holdsShort = [&](int j) {
            const int64_t* u = useOf(j);
            for (size_t t = 0; t < T; ++t)
                if (m_need[t] > 0 && u[t] > 0)
                    return true;
            return false;
        };
        bottom.assign(zoneLo, zoneHi);
        const size_t zoneEnd = bottom.size(); // bottom[0, zoneEnd): the zone's, sorted (ready)
        double y = q.theta; // every job inside below y is at hand (jobs above have an index above theta)
        // what the jobs at hand below a level hold; the level only rises, so a job counted stays counted and only
        // the jobs not counted yet (m_pending, places in bottom) and those added since are looked at again
        std::vector<int64_t>& held = m_held;
        std::fill(held.begin(), held.end(), 0);
        std::vector<uint32_t>& pending = m_pending;
        pending.clear();
        size_t seen = 0;
        auto coveredBelow = [&](double level) {
            auto count = [&](size_t k) {
                if (!(-bottom[k].key[1] < level))
                    return false;
                for (size_t t = 0; t < T; ++t)
                    held[t] += useOf(bottom[k].job)[t];
                return true;
            };
            size_t w = 0;
            for (const uint32_t k : pending)
                if (!count(k))
                    pending[w++] = k;
            pending.resize(w);
            for (; seen < bottom.size(); ++seen)
                if (!count(seen))
                    pending.push_back(uint32_t(seen));
            for (size_t t = 0; t < T; ++t)
                if (held[t] < m_need[t])
                    return false;
            return true;
        };
        const int cStart = toAbove ? ct - 1 : (q.theta >= 0 ? cellOf(q.theta) - 1 : 0);
        const int cEnd = !aboveInside ? -1 : fromAbove ? cf + 1 : kCells - 1;
        if (!aboveInside)
            y = kInfIndex; // the zone holds every job inside
        if (!coveredBelow(y)) {
            for (int c = std::max(0, cStart); c <= cEnd; ++c) {
                // a job holding none of the short types is only taken as the walk passes it (below): it is not
                // evaluated where its band alone says whether it is inside
                const double bandLo = edge(c - 1), bandHi = edge(c + 2);
                const bool sureIn = (!lo || bandHi <= xf) && (!hi || bandLo > xt);
                const bool sureOut = (lo && bandLo > xf) || (hi && bandHi <= xt);
                for (const int j : q.cells[size_t(c)]) {
                    if (sureOut)
                        continue;
                    const bool held = holdsShort(j);
                    if (!held && sureIn) {
                        m_aside.push_back({j, bandLo, bandHi});
                    } else {
                        // the certificate's bounds, where the band does not place it
                        const JobRec& r = m_jobs[size_t(j)];
                        if (certOut(r))
                            continue;
                        if (held) {
                            if (inside(exact(j)))
                                bottom.push_back(m_pos[size_t(j)]);
                            continue;
                        }
                        if (certIn(r))
                            m_aside.push_back({j, r.certLow, std::nextafter(r.certHigh, kInfIndex)});
                        else if (inside(exact(j)))
                            m_aside.push_back({j, -kInfIndex, kInfIndex});
                        else
                            continue;
                    }
                    for (size_t t = 0; t < T; ++t)
                        m_asideHeld[t] += useOf(j)[t];
                }
                y = c == cEnd ? kInfIndex : std::max(y, edge(c));
                if (coveredBelow(y))
                    break;
            }
            if (!std::isfinite(y))
                coveredBelow(y);
        }
        {
            // those below y, in order: the zone's are sorted already, the cells' are sorted and merged in. Only the
            // jobs holding a type the stretch is short of are put in order: walking in order, a job that holds
            // none of them always fits (what all the jobs below y hold of such a type fits in what is left of it
            // once the jobs above them are taken), so the walk can only stop at the others, and where it stops
            // depends on them alone; the rest are taken as the walk passes them (restUpTo)
            size_t w = 0, zoneKept = 0;
            for (size_t i = 0; i < bottom.size(); ++i)
                if (-bottom[i].key[1] < y) {
                    if (!holdsShort(bottom[i].job)) {
                        m_aside.push_back({bottom[i].job, -kInfIndex, kInfIndex});
                        continue;
                    }
                    zoneKept += i < zoneEnd ? 1 : 0;
                    bottom[w++] = bottom[i];
                }
            bottom.resize(w);
            if (zoneKept < w) {
                std::sort(bottom.begin() + long(zoneKept), bottom.end());
                m_merged.resize(w);
                std::merge(bottom.begin(), bottom.begin() + long(zoneKept), bottom.begin() + long(zoneKept), bottom.end(),
                           m_merged.begin());
                bottom.swap(m_merged);
            }
        }
        {
            // the level the shortfall reached: the lowest jobs, up to the one that covers it (theta follows it)
            std::fill(m_tmp.begin(), m_tmp.end(), 0);
            double reach = -1;
            for (size_t i = bottom.size(); i-- > 0;) {
                reach = -bottom[i].key[1];
                bool all = true;
                for (size_t t = 0; t < T; ++t) {
                    m_tmp[t] += useOf(bottom[i].job)[t];
                    all = all && m_tmp[t] >= m_need[t];
                }
                if (all)
                    break;
            }
            noteAsked(q, reach);
        }
        // taken now: the stretch less its lowest jobs (held) and less the cells' jobs of other types (taken as
        // the walk passes them, as the lowest jobs of other types are)
        for (size_t t = 0; t < T; ++t)
            bud[t] -= acc[t] - held[t] - m_asideHeld[t];
        for (size_t i = 0; i < bottom.size(); ++i) {
            const int64_t* u = useOf(bottom[i].job);
            if (!holdingFits(u, bud, T)) {
                if (!m_deferAside)
                    restUpTo(&bottom[i], bud);
                m_cont = {true, m_version, bottom[i].job, to ? *to : Pos {}, to != nullptr, qi, i + 1, m_deferAside};
                return bottom[i].job;
            }
            holdingTake(u, bud, T);
        }
        throw std::logic_error("GittinsRunIndex: a stretch that did not fit had no job that did not fit");
    }
    return -1;
}

void GittinsRunIndex::settleSetAside(int64_t* bud)
{
    if (m_cont.valid && m_cont.deferred && m_cont.version == m_version) {
        // (the returned job's position: evaluated at this decision, as the version says)
        restUpTo(&m_pos[size_t(m_cont.job)], bud);
        m_cont.deferred = false;
    }
}

void GittinsRunIndex::restUpTo(const Pos* limit, int64_t* bud)
{
    // every job set aside before `limit` (all when null) and not taken yet is taken now: before it for sure by
    // its band (a higher index), after it for sure, or by its exact position (evaluated once per decision)
    const double g = limit ? -limit->key[1] : 0;
    const auto done = m_aside.begin() + long(m_asideDone);
    const auto mid = limit ? std::partition(done, m_aside.end(),
                                            [&](const Aside& z) {
                                                if (z.lo > g)
                                                    return true;
                                                if (z.hi <= g)
                                                    return false;
                                                return exact(z.job) < *limit;
                                            })
                           : m_aside.end();
    for (auto it = done; it != mid; ++it)
        holdingTake(useOf(it->job), bud, m_types);
    m_asideDone = size_t(mid - m_aside.begin());
}

} // namespace ss
