#include "policy/gittinsindex.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "policy/holding.h"
#include "policy/tiresias.h"

namespace ss {

namespace {
constexpr double kInfIndex = std::numeric_limits<double>::infinity();
// A certificate's bounds: at most kNear below the index now (the search for a stretch's lowest jobs evaluates every
// job whose L is below what it looks for), at most kAlone times it above where no waiting job is above; and clear
// by kMargin of the waiting indices of the queue more than 2 kMargin away (nearer ones are straddled).
constexpr double kMargin = 0.05;
constexpr double kNear = 0.1;
constexpr double kAlone = 2.0;

struct MinOf {
    double operator()(double a, double b) const { return a < b ? a : b; }
};
struct MaxOf {
    double operator()(double a, double b) const { return a > b ? a : b; }
};

template <class Pick> void sparseTable(const std::vector<double>& v, size_t block, size_t blocks, double init, Pick pick, std::vector<double>& out)
{
    size_t levels = 1;
    while ((size_t(1) << levels) <= blocks)
        ++levels;
    out.assign(levels * blocks, init);
    for (size_t i = 0; i < v.size(); ++i)
        out[i / block] = pick(out[i / block], v[i]);
    for (size_t l = 1; l < levels; ++l)
        for (size_t b = 0; b + (size_t(1) << l) <= blocks; ++b)
            out[l * blocks + b] = pick(out[(l - 1) * blocks + b], out[(l - 1) * blocks + b + (size_t(1) << (l - 1))]);
}

/// pick() over v[i..j) with the sparse table `t` over blocks of `block` entries.
template <class Pick>
double rangePick(const std::vector<double>& v, const std::vector<double>& t, size_t block, size_t blocks, size_t i, size_t j,
                 double init, Pick pick)
{
    double m = init;
    if (i >= j)
        return m;
    const size_t bi = i / block, bj = (j - 1) / block;
    if (bi == bj) {
        for (size_t k = i; k < j; ++k)
            m = pick(m, v[k]);
        return m;
    }
    for (size_t k = i; k < (bi + 1) * block; ++k)
        m = pick(m, v[k]);
    for (size_t k = bj * block; k < j; ++k)
        m = pick(m, v[k]);
    if (bi + 1 < bj) {
        const size_t x = bi + 1, y = bj - 1, len = y - x + 1;
        size_t l = 0;
        while ((size_t(2) << l) <= len)
            ++l;
        m = pick(m, pick(t[l * blocks + x], t[l * blocks + y + 1 - (size_t(1) << l)]));
    }
    return m;
}

} // namespace

void GittinsRunIndex::reset(const GittinsTable& table, size_t jobs, size_t types, size_t queues,
                            const std::vector<int64_t>* use)
{
    m_table = &table;
    m_types = types;
    m_use = use;
    m_count = 0;
    m_evals = m_certs = 0;
    table.pieceStarts(m_at, m_low, m_high);
    m_blocks = (m_low.size() + kBlock - 1) / kBlock;
    sparseTable(m_low, kBlock, m_blocks, kInfIndex, MinOf {}, m_blockMin);
    sparseTable(m_high, kBlock, m_blocks, -kInfIndex, MaxOf {}, m_blockMax);
    m_waiting.assign(queues, {});
    m_queue.assign(jobs, -1);
    m_lo.assign(jobs, 0);
    m_hi.assign(jobs, 0);
    m_stamp.assign(jobs, 0);
    m_expiry.clear();
    m_root.assign(queues, -1);
    m_left.assign(jobs, -1);
    m_right.assign(jobs, -1);
    m_prio.assign(jobs, 0);
    m_minHi.assign(jobs, 0);
    m_maxHi.assign(jobs, 0);
    m_sum.assign(jobs * types, 0);
    m_rand = 0x2545F4914F6CDD1DULL; // fixed: the tree's shape never changes what a query returns
    m_decision = 1;
    m_evalAt.assign(jobs, 0);
    m_pos.assign(jobs, Pos {});
    m_mark.assign(jobs, 0);
    m_acc.assign(types, 0);
    m_need.assign(types, 0);
    m_held.assign(types, 0);
    m_zero.assign(types, 0);
    m_recert.assign(jobs, 0);
    m_renew.clear();
}

double GittinsRunIndex::rangeMin(size_t i, size_t j) const
{
    return rangePick(m_low, m_blockMin, kBlock, m_blocks, i, j, kInfIndex, MinOf {});
}

double GittinsRunIndex::rangeMax(size_t i, size_t j) const
{
    return rangePick(m_high, m_blockMax, kBlock, m_blocks, i, j, -kInfIndex, MaxOf {});
}

void GittinsRunIndex::removeWaiting(int queue, double index)
{
    auto& w = m_waiting[size_t(queue)];
    const auto it = w.find(index);
    if (it != w.end())
        w.erase(it);
}

// ---------------------------------------------------------------- certificates

void GittinsRunIndex::certify(int job, double now)
{
    ++m_certs;
    const auto [a, rate] = m_service(job);
    const size_t n = m_at.size();
    size_t covered = size_t(std::upper_bound(m_at.begin(), m_at.end(), a) - m_at.begin());
    // bounds over the rest of the piece the attained service is in
    auto [low, high] = m_table->boundsTo(a, covered < n ? m_at[covered] : a); // (past the last start: 0)
    // limits: a band around the index now, narrowed to stay clear of the waiting indices of the queue clearly
    // below it, and above it as far as the first waiting index clearly above (nearer ones are straddled: the
    // job is evaluated where the walk asks about them)
    const auto& w = m_waiting[size_t(m_queue[size_t(job)])];
    double floor = low * (1 - kNear), ceil = high * kAlone;
    const auto below = w.lower_bound(low / (1 + 2 * kMargin)); // first not clearly below
    if (below != w.begin())
        floor = std::max(floor, *std::prev(below) * (1 + kMargin));
    const auto above = w.upper_bound(high * (1 + 2 * kMargin)); // first clearly above
    if (above != w.end())
        ceil = *above / (1 + kMargin);
    // as far as the index stays within them: galloping over the pieces, then halving the step after a miss
    size_t step = 1;
    bool grow = true;
    while (covered < n && step > 0) {
        const size_t next = std::min(n, covered + step);
        const double mn = std::min(low, rangeMin(covered, next)), mx = std::max(high, rangeMax(covered, next));
        if (mn < floor || mx > ceil) {
            grow = false;
            step /= 2;
            continue;
        }
        low = mn;
        high = mx;
        covered = next;
        if (grow)
            step *= 2;
        else
            step /= 2;
    }
    m_lo[size_t(job)] = low;
    m_hi[size_t(job)] = high;
    ++m_stamp[size_t(job)];
    m_evalAt[size_t(job)] = 0;
    if (covered < n && rate > 0) {
        // valid while the attained service stays below the next piece start (margin for rounding)
        const double until = m_at[covered];
        const double margin = 1e-9 * (std::fabs(until) + rate * (1.0 + std::fabs(now)));
        m_expiry.push_back({now + (until - a - margin) / rate, job, m_stamp[size_t(job)]});
        std::push_heap(m_expiry.begin(), m_expiry.end(), std::greater<Expiry> {});
        if (m_expiry.size() > 2 * size_t(m_count) + 64) {
            // entries of renewed or stopped jobs are dropped now and then
            m_expiry.erase(std::remove_if(m_expiry.begin(), m_expiry.end(),
                                          [&](const Expiry& e) { return m_queue[size_t(e.job)] < 0 || e.stamp != m_stamp[size_t(e.job)]; }),
                           m_expiry.end());
            std::make_heap(m_expiry.begin(), m_expiry.end(), std::greater<Expiry> {});
        }
    }
}

void GittinsRunIndex::recheck(const std::vector<int>& jobs)
{
    // a job evaluated because its bounds hold a waiting job's index, far from its own index now, gets new bounds
    // at the next decision, made around the waiting jobs of now
    for (const int j : jobs) {
        if (m_recert[size_t(j)])
            continue;
        const auto& w = m_waiting[size_t(m_queue[size_t(j)])];
        const auto in = w.lower_bound(m_lo[size_t(j)]);
        if (in == w.end() || *in > m_hi[size_t(j)])
            continue;
        const double g = -m_pos[size_t(j)].key[1];
        const auto near = w.lower_bound(g / (1 + 2 * kMargin));
        if (near != w.end() && *near <= g * (1 + 2 * kMargin))
            continue;
        m_recert[size_t(j)] = 1;
        m_renew.push_back(j);
    }
}

void GittinsRunIndex::sync(double now)
{
    ++m_version;
    ++m_decision; // positions evaluated at the last decision are stale
    m_now = now;
    m_fresh = false;
    // (renewed once per decision: a job within rounding of a piece start gets a certificate due at once)
    while (!m_expiry.empty() && m_expiry.front().at <= now) {
        const Expiry e = m_expiry.front();
        std::pop_heap(m_expiry.begin(), m_expiry.end(), std::greater<Expiry> {});
        m_expiry.pop_back();
        if (m_queue[size_t(e.job)] >= 0 && e.stamp == m_stamp[size_t(e.job)])
            m_renew.push_back(e.job);
    }
}

void GittinsRunIndex::refresh()
{
    // Certificates are renewed when a decision first asks something: a run whose queues stay empty (no walk
    // asks) renews none.
    if (m_fresh)
        return;
    m_fresh = true;
    ++m_version;
    for (const int j : m_renew) {
        m_recert[size_t(j)] = 0;
        const int q = m_queue[size_t(j)];
        if (q < 0 || m_evalAt[size_t(j)] == m_decision)
            continue; // gone, or renewed already (on the list twice)
        treeErase(q, j);
        certify(j, m_now);
        m_evalAt[size_t(j)] = m_decision; // (marks it renewed; its position is evaluated afresh below)
        treeInsert(q, j);
    }
    for (const int j : m_renew)
        m_evalAt[size_t(j)] = 0;
    m_renew.clear();
}

void GittinsRunIndex::insert(int job, int queue, double now)
{
    ++m_version;
    if (m_queue[size_t(job)] >= 0)
        erase(job);
    m_queue[size_t(job)] = queue;
    ++m_count;
    certify(job, now);
    treeInsert(queue, job);
}

void GittinsRunIndex::erase(int job)
{
    ++m_version;
    const int q = m_queue[size_t(job)];
    if (q < 0)
        return;
    treeErase(q, job);
    --m_count;
    ++m_stamp[size_t(job)];
    m_queue[size_t(job)] = -1;
}

void GittinsRunIndex::setQueue(int job, int queue)
{
    ++m_version;
    const int q = m_queue[size_t(job)];
    if (q < 0 || q == queue)
        return;
    // the certificate bounds the index whatever the queue: it moves as it is
    treeErase(q, job);
    m_queue[size_t(job)] = queue;
    treeInsert(queue, job);
    m_evalAt[size_t(job)] = 0;
}

// ---------------------------------------------------------------- the treaps

void GittinsRunIndex::pull(int n)
{
    const size_t T = m_types;
    const int l = m_left[size_t(n)], r = m_right[size_t(n)];
    int64_t* s = &m_sum[size_t(n) * T];
    const int64_t* u = useOf(n);
    const int64_t* ls = l >= 0 ? &m_sum[size_t(l) * T] : m_zero.data();
    const int64_t* rs = r >= 0 ? &m_sum[size_t(r) * T] : m_zero.data();
    for (size_t t = 0; t < T; ++t)
        s[t] = u[t] + ls[t] + rs[t];
    double lo = m_hi[size_t(n)], hi = lo;
    if (l >= 0) {
        lo = std::min(lo, m_minHi[size_t(l)]);
        hi = std::max(hi, m_maxHi[size_t(l)]);
    }
    if (r >= 0) {
        lo = std::min(lo, m_minHi[size_t(r)]);
        hi = std::max(hi, m_maxHi[size_t(r)]);
    }
    m_minHi[size_t(n)] = lo;
    m_maxHi[size_t(n)] = hi;
}

int GittinsRunIndex::rotateUp(int t, bool leftChild)
{
    const int c = leftChild ? m_left[size_t(t)] : m_right[size_t(t)];
    if (leftChild) {
        m_left[size_t(t)] = m_right[size_t(c)];
        m_right[size_t(c)] = t;
    } else {
        m_right[size_t(t)] = m_left[size_t(c)];
        m_left[size_t(c)] = t;
    }
    pull(t);
    pull(c);
    return c;
}

int GittinsRunIndex::insertAt(int t, int job)
{
    if (t < 0) {
        m_left[size_t(job)] = m_right[size_t(job)] = -1;
        pull(job);
        return job;
    }
    // on the way down: the subtree gains the job
    const int64_t* u = useOf(job);
    int64_t* s = &m_sum[size_t(t) * m_types];
    for (size_t k = 0; k < m_types; ++k)
        s[k] += u[k];
    m_minHi[size_t(t)] = std::min(m_minHi[size_t(t)], m_hi[size_t(job)]);
    m_maxHi[size_t(t)] = std::max(m_maxHi[size_t(t)], m_hi[size_t(job)]);
    if (before(job, t)) {
        m_left[size_t(t)] = insertAt(m_left[size_t(t)], job);
        if (m_prio[size_t(m_left[size_t(t)])] > m_prio[size_t(t)])
            return rotateUp(t, true);
    } else {
        m_right[size_t(t)] = insertAt(m_right[size_t(t)], job);
        if (m_prio[size_t(m_right[size_t(t)])] > m_prio[size_t(t)])
            return rotateUp(t, false);
    }
    return t;
}

int GittinsRunIndex::eraseAt(int t, int job)
{
    if (t < 0)
        return t;
    if (t == job) {
        // rotated down below its higher-priority child until it has at most one
        const int l = m_left[size_t(t)], r = m_right[size_t(t)];
        if (l < 0)
            return r;
        if (r < 0)
            return l;
        const bool leftUp = m_prio[size_t(l)] > m_prio[size_t(r)];
        const int c = leftUp ? l : r;
        if (leftUp) {
            m_left[size_t(t)] = m_right[size_t(c)];
            m_right[size_t(c)] = eraseAt(t, job);
        } else {
            m_right[size_t(t)] = m_left[size_t(c)];
            m_left[size_t(c)] = eraseAt(t, job);
        }
        pull(c);
        return c;
    }
    if (before(job, t))
        m_left[size_t(t)] = eraseAt(m_left[size_t(t)], job);
    else
        m_right[size_t(t)] = eraseAt(m_right[size_t(t)], job);
    pull(t);
    return t;
}

void GittinsRunIndex::treeInsert(int q, int job)
{
    m_rand ^= m_rand << 13;
    m_rand ^= m_rand >> 7;
    m_rand ^= m_rand << 17;
    m_prio[size_t(job)] = uint32_t(m_rand >> 32);
    m_root[size_t(q)] = insertAt(m_root[size_t(q)], job);
}

void GittinsRunIndex::treeErase(int q, int job)
{
    m_root[size_t(q)] = eraseAt(m_root[size_t(q)], job);
}

void GittinsRunIndex::sumAbove(int q, double x, int64_t* out) const
{
    const size_t T = m_types;
    int t = m_root[size_t(q)];
    while (t >= 0) {
        if (m_lo[size_t(t)] > x) {
            const int64_t* u = useOf(t);
            for (size_t k = 0; k < T; ++k)
                out[k] += u[k];
            if (const int r = m_right[size_t(t)]; r >= 0)
                for (size_t k = 0; k < T; ++k)
                    out[k] += m_sum[size_t(r) * T + k];
            t = m_left[size_t(t)];
        } else {
            t = m_right[size_t(t)];
        }
    }
}

void GittinsRunIndex::straddleFrom(int t, double x, std::vector<int>& out) const
{
    while (t >= 0 && !(m_maxHi[size_t(t)] < x)) {
        straddleFrom(m_left[size_t(t)], x, out);
        if (m_lo[size_t(t)] > x)
            return; // so is every L to the right
        if (!(m_hi[size_t(t)] < x))
            out.push_back(t);
        t = m_right[size_t(t)];
    }
}

void GittinsRunIndex::straddling(int q, double x, std::vector<int>& out) const
{
    out.clear();
    straddleFrom(m_root[size_t(q)], x, out);
}

int GittinsRunIndex::nextByLo(int q, double lo, int after) const
{
    int t = m_root[size_t(q)], best = -1;
    while (t >= 0) {
        if (m_lo[size_t(t)] > lo || (m_lo[size_t(t)] == lo && t > after)) {
            best = t;
            t = m_left[size_t(t)];
        } else {
            t = m_right[size_t(t)];
        }
    }
    return best;
}

// ---------------------------------------------------------------- queries

const GittinsRunIndex::Pos& GittinsRunIndex::exact(int job)
{
    if (m_evalAt[size_t(job)] != m_decision) {
        m_pos[size_t(job)] = {m_key(job), job};
        m_evalAt[size_t(job)] = m_decision;
        ++m_evals;
    }
    return m_pos[size_t(job)];
}


GittinsRunIndex::Pos GittinsRunIndex::last()
{
    refresh();
    int q = int(m_root.size()) - 1;
    while (q > 0 && m_root[size_t(q)] < 0)
        --q;
    // the last job's index is at most the least U, so its L is too
    const double m = m_minHi[size_t(m_root[size_t(q)])];
    Pos best {};
    bool have = false;
    for (int j = nextByLo(q, -kInfIndex, -1); j >= 0 && m_lo[size_t(j)] <= m; j = nextByLo(q, m_lo[size_t(j)], j)) {
        const Pos& p = exact(j);
        if (!have || best < p)
            best = p;
        have = true;
    }
    return best;
}

bool GittinsRunIndex::anyAfter(const Pos& p)
{
    const int queues = int(m_root.size());
    const int q = int(p.key[0]);
    for (int r = std::max(0, q + 1); r < queues; ++r)
        if (m_root[size_t(r)] >= 0)
            return true; // (a later queue: no bounds needed, so none renewed)
    if (q < 0 || q >= queues || m_root[size_t(q)] < 0)
        return false;
    refresh();
    // L > x: ahead of p; U < x: after it; the others are evaluated
    const double x = -p.key[1];
    if (m_minHi[size_t(m_root[size_t(q)])] < x)
        return true;
    straddling(q, x, m_strA);
    bool after = false;
    for (const int j : m_strA)
        if (p < exact(j)) {
            after = true;
            break;
        }
    if (!after)
        recheck(m_strA);
    return after;
}

int GittinsRunIndex::firstNotFitting(const Pos* from, const Pos* to, int64_t* bud)
{
    refresh();
    const int queues = int(m_root.size());
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
                m_cont.job = m_bottom[i].job;
                m_cont.next = i + 1;
                return m_cont.job;
            }
            for (size_t t = 0; t < T; ++t)
                bud[t] -= u[t];
        }
        first = m_cont.queue + 1;
    }
    m_cont.valid = false;
    for (int q = first; q <= qb && q < queues; ++q) {
        if (m_root[size_t(q)] < 0)
            continue;
        const Pos* lo = from && q == qa ? from : nullptr;
        const Pos* hi = to && q == qb ? to : nullptr;
        if (lo && hi && !(*lo < *hi))
            continue; // nothing between
        const double xf = lo ? -lo->key[1] : kInfIndex, xt = hi ? -hi->key[1] : -kInfIndex;
        auto inside = [&](const Pos& p) { return (!lo || *lo < p) && (!hi || p < *hi); };
        // certainly inside: L > xt and U < xf, summed as (L > xt) - (L > xf) - (xt < L <= xf <= U); the jobs
        // whose bounds straddle xt or xf are then added by their exact positions
        std::fill(acc.begin(), acc.end(), 0);
        sumAbove(q, xt, acc.data());
        m_strA.clear();
        if (lo) {
            std::fill(m_need.begin(), m_need.end(), 0);
            sumAbove(q, xf, m_need.data());
            for (size_t t = 0; t < T; ++t)
                acc[t] -= m_need[t];
            straddling(q, xf, m_strA);
            for (const int j : m_strA)
                if (m_lo[size_t(j)] > xt)
                    for (size_t t = 0; t < T; ++t)
                        acc[t] -= useOf(j)[t];
        }
        std::vector<int>& lowStraddle = m_strB;
        lowStraddle.clear();
        if (hi) {
            straddling(q, xt, lowStraddle);
            for (const int j : lowStraddle)
                m_mark[size_t(j)] = 1;
        }
        for (const int j : m_strA)
            if (!m_mark[size_t(j)] && inside(exact(j)))
                for (size_t t = 0; t < T; ++t)
                    acc[t] += useOf(j)[t];
        for (const int j : lowStraddle) {
            m_mark[size_t(j)] = 0;
            if (inside(exact(j)))
                for (size_t t = 0; t < T; ++t)
                    acc[t] += useOf(j)[t];
        }
        recheck(m_strA);
        recheck(lowStraddle);
        if (holdingFits(acc.data(), bud, T)) {
            for (size_t t = 0; t < T; ++t)
                bud[t] -= acc[t];
            continue;
        }
        // Short of room: the stretch's lowest jobs, in exact order, until they hold the shortfall of every type
        // (each job above them then fits). Jobs with L <= xt are among lowStraddle; the others are taken by L.
        for (size_t t = 0; t < T; ++t)
            m_need[t] = std::max<int64_t>(0, acc[t] - bud[t]);
        std::vector<Pos>& bottom = m_bottom;
        bottom.clear();
        for (const int j : lowStraddle)
            if (inside(exact(j)))
                bottom.push_back(exact(j));
        int cur = hi ? nextByLo(q, xt, std::numeric_limits<int>::max()) : nextByLo(q, -kInfIndex, -1);
        size_t batch = 16;
        double y = -kInfIndex;
        std::vector<int64_t>& held = m_held;
        for (;;) {
            for (size_t k = 0; k < batch && cur >= 0 && m_lo[size_t(cur)] <= xf; ++k) {
                const Pos& p = exact(cur);
                if (inside(p))
                    bottom.push_back(p);
                cur = nextByLo(q, m_lo[size_t(cur)], cur);
            }
            // every job inside with an index below y is in `bottom` (the others have L >= y)
            y = cur >= 0 && m_lo[size_t(cur)] <= xf ? m_lo[size_t(cur)] : kInfIndex;
            std::fill(held.begin(), held.end(), 0);
            for (const Pos& p : bottom)
                if (-p.key[1] < y)
                    for (size_t t = 0; t < T; ++t)
                        held[t] += useOf(p.job)[t];
            bool covered = true;
            for (size_t t = 0; t < T; ++t)
                covered = covered && held[t] >= m_need[t];
            if (covered || y == kInfIndex)
                break;
            batch *= 2;
        }
        bottom.erase(std::remove_if(bottom.begin(), bottom.end(), [&](const Pos& p) { return !(-p.key[1] < y); }), bottom.end());
        std::sort(bottom.begin(), bottom.end());
        for (size_t t = 0; t < T; ++t)
            bud[t] -= acc[t] - held[t];
        for (size_t i = 0; i < bottom.size(); ++i) {
            const Pos& p = bottom[i];
            const int64_t* u = useOf(p.job);
            if (!holdingFits(u, bud, T)) {
                m_cont = {true, m_version, p.job, to ? *to : Pos {}, to != nullptr, q, i + 1};
                return p.job;
            }
            for (size_t t = 0; t < T; ++t)
                bud[t] -= u[t];
        }
        throw std::logic_error("GittinsRunIndex: a stretch that did not fit had no job that did not fit");
    }
    return -1;
}

} // namespace ss
