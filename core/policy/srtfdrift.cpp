#include "policy/srtfdrift.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ss {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

void SrtfDrift::reset(size_t jobs, size_t types)
{
    m_tree.reset(jobs, types);
    m_types = types;
    m_where.assign(jobs, kNone);
    m_late.clear();
    m_lateLine.clear();
    m_lateUse.clear();
    m_now = m_tref = m_rho = m_rmin = m_rmax = m_umax = 0;
    m_haveRates = false;
    m_work = m_rebuilds = m_evaluated = m_windows = 0;
    m_b1.assign(types, 0);
    m_tmp.assign(types, 0);
    m_ref.assign(types, 0);
}

void SrtfDrift::widen(double rate)
{
    if (!m_haveRates) {
        m_rmin = m_rmax = m_rho = rate;
        m_haveRates = true;
        return;
    }
    m_rmin = std::min(m_rmin, rate);
    m_rmax = std::max(m_rmax, rate);
}

double SrtfDrift::margin() const
{
    // far above the rounding of a work-left value here (the engine's, a cached line's, an estimate)
    return 1e-9 * (1.0 + m_umax + std::abs(m_now) * (std::abs(m_rmax) + std::abs(m_rho) + 1.0));
}

double SrtfDrift::delta() const
{
    // how far a job's exact work left now may be from its estimate e: the spread of the rates around rho over
    // the time since the estimates were made, and twice the margin
    const double dt = m_now - m_tref;
    const double spread = std::max(m_rho - m_rmin, m_rmax - m_rho);
    return spread * dt + 2 * margin();
}

SrtfDrift::Pos SrtfDrift::exact(int job)
{
    ++m_evaluated;
    ++m_work;
    return m_pos(job);
}

SrtfDrift::Pos SrtfDrift::fromLine(int job, const SrtfLine& line)
{
    ++m_evaluated;
    ++m_work;
    const Pos p {{line.at(m_now), 0, line.tie, 0, 0}, job};
    if (m_check)
        if (const Pos q = m_pos(job); p < q || q < p)
            throw std::logic_error("SRTF running order: job " + std::to_string(job) + "'s line says "
                                   + std::to_string(p.key[0]) + " left, the scheduler "
                                   + std::to_string(q.key[0]) + " at t=" + std::to_string(m_now));
    return p;
}

const int64_t* SrtfDrift::useOf(int job) const
{
    if (m_where[size_t(job)] == kTree)
        return m_tree.useAt(m_tree.nodeOf(job));
    const size_t i = size_t(std::find(m_late.begin(), m_late.end(), job) - m_late.begin());
    return &m_lateUse[i * m_types];
}

void SrtfDrift::insert(int job, const int64_t* use, const SrtfLine& line)
{
    if (contains(job))
        erase(job);
    if (line.from > m_now) {
        // no progress before `from`: outside the tree until then
        m_late.push_back(job);
        m_lateLine.push_back(line);
        m_lateUse.insert(m_lateUse.end(), use, use + m_types);
        m_where[size_t(job)] = kLate;
        return;
    }
    const double key = fromLine(job, line).key[0];
    if (m_tree.empty()) {
        // a fresh start: estimates from now
        m_tref = m_now;
        m_haveRates = false;
        m_umax = 0;
        m_work = 0;
    }
    widen(line.rate);
    const double u = key + m_rho * (m_now - m_tref);
    m_umax = std::max(m_umax, std::abs(u));
    m_tree.insert(job, u, use, line);
    m_where[size_t(job)] = kTree;
}

void SrtfDrift::erase(int job)
{
    if (m_where[size_t(job)] == kTree) {
        m_tree.erase(job);
    } else if (m_where[size_t(job)] == kLate) {
        const size_t i = size_t(std::find(m_late.begin(), m_late.end(), job) - m_late.begin());
        const size_t last = m_late.size() - 1;
        m_late[i] = m_late[last];
        m_lateLine[i] = m_lateLine[last];
        std::copy(&m_lateUse[last * m_types], &m_lateUse[last * m_types] + m_types, &m_lateUse[i * m_types]);
        m_late.pop_back();
        m_lateLine.pop_back();
        m_lateUse.resize(last * m_types);
    }
    m_where[size_t(job)] = kNone;
}

void SrtfDrift::reline(int job, const SrtfLine& line)
{
    if (m_where[size_t(job)] == kTree) {
        // the work left goes on from where it is, at the new rate: the estimate stays, the rates widen
        m_tree.lineAt(m_tree.nodeOf(job)) = line;
        widen(line.rate);
    } else if (m_where[size_t(job)] == kLate) {
        const size_t i = size_t(std::find(m_late.begin(), m_late.end(), job) - m_late.begin());
        m_lateLine[i] = line;
    }
}

void SrtfDrift::begin(double now, PosFn pos)
{
    m_now = now;
    m_pos = std::move(pos);
    for (size_t i = 0; i < m_late.size();) {
        if (m_lateLine[i].from > now) {
            ++i;
            continue;
        }
        // progress has started: into the tree
        const int job = m_late[i];
        const SrtfLine line = m_lateLine[i];
        std::vector<int64_t> use(&m_lateUse[i * m_types], &m_lateUse[i * m_types] + m_types);
        erase(job);
        insert(job, use.data(), line);
    }
    if (!m_tree.empty() && double(m_work) > m_factor * double(m_tree.size() + 16))
        rebuild();
}

void SrtfDrift::rebuild()
{
    // every estimate renewed to the work left now (from the cached lines, within rounding of the exact values)
    ++m_rebuilds;
    m_tree.nodes(m_ids);
    m_order.clear();
    m_haveRates = false;
    m_umax = 0;
    for (int n : m_ids) {
        const SrtfLine& l = m_tree.lineAt(n);
        const double est = l.at(m_now);
        m_order.push_back({est, m_tree.jobAt(n), n});
        widen(l.rate);
        m_umax = std::max(m_umax, std::abs(est));
    }
    m_rho = 0.5 * (m_rmin + m_rmax);
    m_tref = m_now;
    m_work = 0;
    // (the old estimates' order is far from sorted by the new ones: about half the renewals moved over eight jobs
    // per job in an insertion sort)
    SrtfTree::sortEntries(m_order, m_sortTmp, m_sortCounts);
    m_tree.rebuild(m_order);
}

double SrtfDrift::valueAt(int n) const
{
    return m_tree.lineAt(n).at(m_now);
}

__attribute__((always_inline)) inline bool SrtfDrift::inRange(int n, double v, double eps, const Pos* from, const Pos* to)
{
    // the line's value now is within eps of the exact work left: the exact position only where that decides
    if (from) {
        if (v + eps < from->key[0])
            return false;
        if (!(v - eps > from->key[0]) && !(*from < exactAt(n)))
            return false;
    }
    if (to) {
        if (v - eps > to->key[0])
            return false;
        if (!(v + eps < to->key[0]) && !(exactAt(n) < *to))
            return false;
    }
    return true;
}

SrtfDrift::Pos SrtfDrift::fastLast()
{
    // the job with the largest estimate is at least L = max(0, e - D) now; only jobs with e + D >= L can be above
    const double s = shift(), d = delta(), eps = margin();
    const int m = m_tree.maxNode();
    const double low = std::max(0.0, m_tree.uAt(m) - s - d);
    m_ids.clear();
    m_tree.collect(low > 0 ? low - d + s : -kInf, kInf, m_ids);
    m_cand.clear();
    double top = -kInf;
    for (int n : m_ids) {
        const double v = valueAt(n);
        ++m_work;
        m_cand.push_back({v, n});
        top = std::max(top, v);
    }
    Pos best {};
    bool have = false;
    for (const Cand& c : m_cand)
        if (c.v >= top - 2 * eps)
            if (const Pos p = exactAt(c.node); !have || best < p) {
                best = p;
                have = true;
            }
    return best;
}

SrtfDrift::Pos SrtfDrift::bruteLast()
{
    m_tree.nodes(m_ids);
    Pos best {};
    bool have = false;
    for (int n : m_ids)
        if (const Pos p = m_pos(m_tree.jobAt(n)); !have || best < p) {
            best = p;
            have = true;
        }
    for (int j : m_late)
        if (const Pos p = m_pos(j); !have || best < p) {
            best = p;
            have = true;
        }
    return best;
}

SrtfDrift::Pos SrtfDrift::last()
{
    Pos best {};
    bool have = false;
    if (!m_tree.empty()) {
        best = fastLast();
        have = true;
    }
    for (int j : m_late)
        if (const Pos p = exact(j); !have || best < p) {
            best = p;
            have = true;
        }
    if (m_check) {
        const Pos ref = bruteLast();
        if (ref.job != best.job || ref < best || best < ref)
            throw std::logic_error("SRTF running order: the last job is " + std::to_string(best.job) + ", a sort gives "
                                   + std::to_string(ref.job) + " at t=" + std::to_string(m_now));
    }
    return best;
}

int SrtfDrift::bruteFirstNotFitting(const Pos* from, const Pos* to, int64_t* bud)
{
    m_tree.nodes(m_ids);
    m_pts.clear();
    auto consider = [&](int j) {
        const Pos p = m_pos(j);
        if ((!from || *from < p) && (!to || p < *to))
            m_pts.push_back(p);
    };
    for (int n : m_ids)
        consider(m_tree.jobAt(n));
    for (int j : m_late)
        consider(j);
    std::sort(m_pts.begin(), m_pts.end());
    for (const Pos& p : m_pts)
        if (!holdingTakeIfFits(useOf(p.job), bud, m_types))
            return p.job;
    return -1;
}

int SrtfDrift::fastFirstNotFitting(const Pos* from, const Pos* to, int64_t* bud)
{
    const double f = from ? from->key[0] : 0, t = to ? to->key[0] : 0;
    const double s = shift(), eps = margin();
    const double d = delta() + 1e-9 * ((from ? std::abs(f) : 0) + (to ? std::abs(t) : 0));
    // u < a: before `from` for sure; [a, b): either side; u >= b: after it. u < c: before `to` for sure;
    // [c, dd): either side; u >= dd: at or after it. A job's exact value lies in [max(0, e - d), max(0, e + d)].
    double a = -kInf, b = -kInf, c = kInf, dd = kInf;
    if (from) {
        a = f > 0 ? f + s - d : -kInf;
        b = f + s + d;
    }
    if (to) {
        c = t > 0 ? t + s - d : -kInf;
        dd = t + s + d;
    }
    const bool middle = b < c && !m_tree.empty();
    std::copy(bud, bud + m_types, m_tmp.begin());
    // a holding in one type read from its one entry (SrtfTree::takeIfFits); the budgets stay >= 0 (only what fits
    // is taken)
    const bool sole = m_tree.noneNegative(bud);
    int y = -1, yLate = -1;
    m_cand.clear();
    m_late2.clear();
    auto lateUse = [&](const Late& x) { return &m_lateUse[size_t(x.index) * m_types]; };
    if (m_late.empty()) {
        // one pass: the jobs near a boundary looked at one by one (kept when in range), the others by sums
        const double mb = middle ? b : dd, mc = middle ? c : dd;
        y = m_tree.walk(a, mb, mc, dd, m_tmp.data(), sole, [&](int n, int64_t* left) {
            const double v = valueAt(n);
            ++m_work;
            if (!inRange(n, v, eps, from, to))
                return 0;
            m_cand.push_back({v, n});
            return m_tree.takeIfFits(n, left, sole) ? 1 : 2;
        });
    } else {
        // the jobs near a boundary, in the tree's order, kept when in range (m_cand: those near `from`, then `to`)
        m_ids.clear();
        if (!m_tree.empty()) {
            m_tree.collect(a, middle ? b : dd, m_ids);
            if (middle)
                m_tree.collect(c, dd, m_ids);
        }
        const size_t nLeftIds = middle ? size_t(std::lower_bound(m_ids.begin(), m_ids.end(), b,
                                                               [&](int n, double x) { return m_tree.uAt(n) < x; })
                                                - m_ids.begin())
                                       : m_ids.size();
        size_t nLeft = 0;
        for (size_t i = 0; i < m_ids.size(); ++i) {
            const int n = m_ids[i];
            const double v = valueAt(n);
            ++m_work;
            if (inRange(n, v, eps, from, to)) {
                m_cand.push_back({v, n});
                if (i < nLeftIds)
                    ++nLeft;
            }
        }
        // the jobs whose progress starts later, at their exact positions (their estimate is exact: d = 0)
        for (size_t i = 0; i < m_late.size(); ++i)
            if (const Pos p = exact(m_late[i]); (!from || *from < p) && (!to || p < *to))
                m_late2.push_back({p, int(i)});
        std::sort(m_late2.begin(), m_late2.end(), [](const Late& x, const Late& y2) { return x.pos < y2.pos; });
        // the first job that does not fit in the order of the estimates (u - s for the tree's jobs, the exact
        // work left for the others): the tree's in-range jobs with lo <= u < hi in order, then each later job
        auto single = [&](int n) { return m_tree.takeIfFits(n, m_tmp.data(), sole) ? -1 : n; };
        auto treePart = [&](double lo, double hi) {
            int r = -1;
            for (size_t i = 0; i < nLeft && r < 0; ++i)
                if (const double u = m_tree.uAt(m_cand[i].node); lo <= u && u < hi)
                    r = single(m_cand[i].node);
            if (r < 0 && middle)
                r = m_tree.greedy(std::max(lo, b), std::min(hi, c), m_tmp.data());
            for (size_t i = nLeft; i < m_cand.size() && r < 0; ++i)
                if (const double u = m_tree.uAt(m_cand[i].node); lo <= u && u < hi)
                    r = single(m_cand[i].node);
            return r;
        };
        double lo = -kInf;
        for (size_t i = 0; i < m_late2.size() && y < 0 && yLate < 0; ++i) {
            const double hi = m_late2[i].pos.key[0] + s;
            y = treePart(lo, hi);
            if (y >= 0)
                break;
            if (!holdingTakeIfFits(lateUse(m_late2[i]), m_tmp.data(), m_types))
                yLate = int(i);
            lo = hi;
        }
        if (y < 0 && yLate < 0)
            y = treePart(lo, kInf);
    }
    if (y < 0 && yLate < 0) {
        std::copy(m_tmp.begin(), m_tmp.end(), bud);
        return -1;
    }
    // Every job exactly below c1 = e(y) - 2d comes before y in the estimates' order, so together they fit;
    // every job up to y in that order is exactly below c2 = max(0, e(y) + d) + d, so those do not. The first
    // job that does not fit is thus exactly in [c1, c2): its estimate is within d of that range.
    ++m_windows;
    const double ey = y >= 0 ? m_tree.uAt(y) - s : m_late2[size_t(yLate)].pos.key[0];
    const double c1 = ey - 2 * d, c2 = std::max(0.0, ey + d) + d;
    const double lowW = c1 > 0 ? c1 - d + s : -kInf, highW = c2 + d + s;
    std::fill(m_b1.begin(), m_b1.end(), 0);
    auto addB1 = [&](const int64_t* uu) {
        for (size_t k = 0; k < m_types; ++k)
            m_b1[k] += uu[k];
    };
    // the in-range jobs near a boundary below lowW were all looked at (they come before y); those in the window
    // are looked at again (the single pass stopped at y)
    size_t w = 0;
    for (size_t i = 0; i < m_cand.size(); ++i)
        if (m_tree.uAt(m_cand[i].node) < lowW)
            addB1(m_tree.useAt(m_cand[i].node));
    m_cand.clear();
    m_ids.clear();
    if (middle) {
        m_tree.collect(std::max(a, lowW), std::min(b, highW), m_ids);
        m_tree.collect(std::max(c, lowW), std::min(dd, highW), m_ids);
    } else {
        m_tree.collect(std::max(a, lowW), std::min(dd, highW), m_ids);
    }
    for (int n : m_ids) {
        const double v = valueAt(n);
        ++m_work;
        if (inRange(n, v, eps, from, to))
            m_cand.push_back({v, n});
    }
    if (middle) {
        m_tree.sum(b, std::min(c, lowW), m_b1.data());
        m_ids.clear();
        m_tree.collect(std::max(b, lowW), std::min(c, highW), m_ids);
        for (int n : m_ids) {
            m_cand.push_back({valueAt(n), n});
            ++m_work;
        }
    }
    // exactly below c1: with the jobs before; the others in their exact order
    w = 0;
    for (size_t i = 0; i < m_cand.size(); ++i) {
        const Cand& x = m_cand[i];
        const bool below = x.v + eps < c1 ? true : x.v - eps >= c1 ? false : exactAt(x.node).key[0] < c1;
        if (below)
            addB1(m_tree.useAt(x.node));
        else
            m_cand[w++] = x;
    }
    m_cand.resize(w);
    size_t lateFrom = 0;
    while (lateFrom < m_late2.size() && m_late2[lateFrom].pos.key[0] < c1)
        addB1(lateUse(m_late2[lateFrom++]));
    if (!fits(m_b1.data(), bud))
        return -2; // cannot happen (see above): the caller sorts every job instead
    std::copy(bud, bud + m_types, m_tmp.begin());
    take(m_b1.data(), m_tmp.data());
    // (m_tmp is now >= 0 in every type, as m_b1 fitted: a holding in one type is read from its one entry)
    std::sort(m_cand.begin(), m_cand.end(), [](const Cand& x, const Cand& y2) { return x.v < y2.v || (x.v == y2.v && x.node < y2.node); });
    // the values' order is the exact one unless two are within the rounding margin (or later jobs join in)
    bool close = lateFrom < m_late2.size();
    for (size_t i = 1; i < m_cand.size() && !close; ++i)
        close = m_cand[i].v - m_cand[i - 1].v <= 2 * eps;
    // (Pos::job: the tree's node while the order is the values', an index among the later jobs + nodes after)
    m_pts.clear();
    for (const Cand& x : m_cand)
        m_pts.push_back(close ? exactAt(x.node) : Pos {{x.v, 0, 0, 0, 0}, x.node});
    if (close) {
        for (size_t i = lateFrom; i < m_late2.size(); ++i)
            m_pts.push_back(m_late2[i].pos);
        std::sort(m_pts.begin(), m_pts.end());
    }
    for (const Pos& p : m_pts) {
        const bool fit = close ? holdingTakeIfFits(useOf(p.job), m_tmp.data(), m_types)
                               : m_tree.takeIfFits(p.job, m_tmp.data(), true);
        if (!fit) {
            std::copy(m_tmp.begin(), m_tmp.end(), bud);
            return close ? p.job : m_tree.jobAt(p.job);
        }
    }
    return -2;
}

int SrtfDrift::firstNotFitting(const Pos* from, const Pos* to, int64_t* bud)
{
    std::vector<int64_t> ref;
    int want = 0;
    if (m_check) {
        ref.assign(bud, bud + m_types);
        want = bruteFirstNotFitting(from, to, ref.data());
    }
    std::copy(bud, bud + m_types, m_ref.begin());
    int got = fastFirstNotFitting(from, to, bud);
    if (got == -2) {
        // a bound did not hold: never expected; the exact answer from a sort of every job
        if (m_check)
            throw std::logic_error("SRTF running order: an estimate left its bounds at t=" + std::to_string(m_now));
        std::copy(m_ref.begin(), m_ref.end(), bud);
        got = bruteFirstNotFitting(from, to, bud);
    }
    if (m_check && (got != want || !std::equal(ref.begin(), ref.end(), bud)))
        throw std::logic_error("SRTF running order: the first job that does not fit is " + std::to_string(got)
                               + ", a sort gives " + std::to_string(want) + " at t=" + std::to_string(m_now));
    return got;
}

} // namespace ss
