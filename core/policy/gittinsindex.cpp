#include "policy/gittinsindex.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "policy/tiresias.h"

namespace ss {

namespace {
constexpr double kInfIndex = std::numeric_limits<double>::infinity();
}

void GittinsRunIndex::reset(const GittinsTable& table, size_t jobs, size_t types, size_t queues,
                            const std::vector<int64_t>* use)
{
    m_table = &table;
    m_types = types;
    m_use = use;
    m_count = 0;
    m_now = 0;
    m_evals = m_certs = 0;
    table.pieceStarts(m_at, m_low);
    // range minimum: blocks of kBlock entries, a sparse table over the blocks' minima
    m_blocks = (m_low.size() + kBlock - 1) / kBlock;
    size_t levels = 1;
    while ((size_t(1) << levels) <= m_blocks)
        ++levels;
    m_blockMin.assign(levels * m_blocks, kInfIndex);
    for (size_t i = 0; i < m_low.size(); ++i)
        m_blockMin[i / kBlock] = std::min(m_blockMin[i / kBlock], m_low[i]);
    for (size_t l = 1; l < levels; ++l)
        for (size_t b = 0; b + (size_t(1) << l) <= m_blocks; ++b)
            m_blockMin[l * m_blocks + b] = std::min(m_blockMin[(l - 1) * m_blocks + b],
                                                    m_blockMin[(l - 1) * m_blocks + b + (size_t(1) << (l - 1))]);
    m_queue.assign(jobs, -1);
    m_lower.assign(jobs, 0);
    m_stamp.assign(jobs, 0);
    m_expiry.clear();
    m_level.assign(queues, 0);
    m_byLower.assign(queues, {});
    m_total.assign(queues * types, 0);
    m_inQueue.assign(queues, 0);
    m_eval.assign(queues, Evaluated {});
}

double GittinsRunIndex::rangeMin(size_t i, size_t j) const
{
    double m = kInfIndex;
    if (i >= j)
        return m;
    const size_t bi = i / kBlock, bj = (j - 1) / kBlock;
    if (bi == bj) {
        for (size_t k = i; k < j; ++k)
            m = std::min(m, m_low[k]);
        return m;
    }
    for (size_t k = i; k < (bi + 1) * kBlock; ++k)
        m = std::min(m, m_low[k]);
    for (size_t k = bj * kBlock; k < j; ++k)
        m = std::min(m, m_low[k]);
    if (bi + 1 < bj) {
        const size_t x = bi + 1, y = bj - 1, len = y - x + 1;
        size_t l = 0;
        while ((size_t(2) << l) <= len)
            ++l;
        m = std::min({m, m_blockMin[l * m_blocks + x], m_blockMin[l * m_blocks + y + 1 - (size_t(1) << l)]});
    }
    return m;
}

void GittinsRunIndex::certify(int job, double now)
{
    const int q = m_queue[size_t(job)];
    auto& set = m_byLower[size_t(q)];
    set.erase({m_lower[size_t(job)], job});
    ++m_certs;
    const auto [a, rate] = m_service(job);
    const double g0 = m_table->lowerAt(a);
    const size_t n = m_at.size();
    size_t covered = size_t(std::upper_bound(m_at.begin(), m_at.end(), a) - m_at.begin());
    double low = g0;
    size_t step = 1;
    const double stay = m_level[size_t(q)] * 1.05;
    if (g0 > stay) {
        // above the waiting jobs of its queue: as far as its index stays above them
        while (covered < n) {
            const size_t next = std::min(n, covered + step);
            const double m = std::min(low, rangeMin(covered, next));
            if (m <= stay)
                break;
            low = m;
            covered = next;
            step *= 2;
        }
    } else if (g0 > 0) {
        // evaluated at every walk that reaches it anyway: a bound not below half its index now, up to about
        // twice its service (a job whose index is 0 is certified piece by piece, so that it leaves 0 soon)
        const double upTo = 2 * a + m_table->delta();
        while (covered < n && m_at[covered] <= upTo) {
            const size_t next = std::min(n, covered + step);
            const double m = std::min(low, rangeMin(covered, next));
            if (m < 0.5 * g0)
                break;
            low = m;
            covered = next;
            step *= 2;
        }
    }
    m_lower[size_t(job)] = low;
    set.insert({low, job});
    ++m_stamp[size_t(job)];
    if (covered < n && rate > 0) {
        // valid while the attained service stays below the next piece start (margin for rounding)
        const double until = m_at[covered];
        const double margin = 1e-9 * (std::fabs(until) + rate * (1.0 + std::fabs(now)));
        m_expiry.push_back({now + (until - a - margin) / rate, job, m_stamp[size_t(job)]});
        std::push_heap(m_expiry.begin(), m_expiry.end(), std::greater<Expiry> {});
    }
}

void GittinsRunIndex::sync(double now, const std::vector<double>& level)
{
    m_now = now;
    for (size_t q = 0; q < m_level.size() && q < level.size(); ++q)
        m_level[q] = level[q];
    for (size_t q = 0; q < m_eval.size(); ++q)
        invalidate(int(q));
    // (renewed once per decision: a job within rounding of a piece start gets a certificate due at once)
    m_renew.clear();
    while (!m_expiry.empty() && m_expiry.front().at <= now) {
        const Expiry e = m_expiry.front();
        std::pop_heap(m_expiry.begin(), m_expiry.end(), std::greater<Expiry> {});
        m_expiry.pop_back();
        if (m_queue[size_t(e.job)] >= 0 && e.stamp == m_stamp[size_t(e.job)])
            m_renew.push_back(e.job);
    }
    for (const int j : m_renew)
        certify(j, now);
}

void GittinsRunIndex::insert(int job, int queue, double now)
{
    if (m_queue[size_t(job)] >= 0)
        erase(job);
    m_queue[size_t(job)] = queue;
    ++m_inQueue[size_t(queue)];
    ++m_count;
    const int64_t* u = &(*m_use)[size_t(job) * m_types];
    for (size_t t = 0; t < m_types; ++t)
        m_total[size_t(queue) * m_types + t] += u[t];
    m_lower[size_t(job)] = -1; // not in the set yet
    certify(job, now);
    invalidate(queue);
}

void GittinsRunIndex::erase(int job)
{
    const int q = m_queue[size_t(job)];
    if (q < 0)
        return;
    m_byLower[size_t(q)].erase({m_lower[size_t(job)], job});
    const int64_t* u = &(*m_use)[size_t(job) * m_types];
    for (size_t t = 0; t < m_types; ++t)
        m_total[size_t(q) * m_types + t] -= u[t];
    --m_inQueue[size_t(q)];
    --m_count;
    ++m_stamp[size_t(job)];
    m_queue[size_t(job)] = -1;
    invalidate(q);
}

void GittinsRunIndex::setQueue(int job, int queue)
{
    const int q = m_queue[size_t(job)];
    if (q < 0 || q == queue)
        return;
    m_byLower[size_t(q)].erase({m_lower[size_t(job)], job});
    m_byLower[size_t(queue)].insert({m_lower[size_t(job)], job});
    const int64_t* u = &(*m_use)[size_t(job) * m_types];
    for (size_t t = 0; t < m_types; ++t) {
        m_total[size_t(q) * m_types + t] -= u[t];
        m_total[size_t(queue) * m_types + t] += u[t];
    }
    --m_inQueue[size_t(q)];
    ++m_inQueue[size_t(queue)];
    m_queue[size_t(job)] = queue;
    invalidate(q);
    invalidate(queue);
}

void GittinsRunIndex::invalidate(int queue)
{
    m_eval[size_t(queue)].valid = false;
}

GittinsRunIndex::Evaluated& GittinsRunIndex::ensure(int queue, double index, size_t more)
{
    // every job of the queue whose certified bound is at or below `index` (so every job whose index may be at
    // or below it) evaluated and sorted
    Evaluated& e = m_eval[size_t(queue)];
    const auto& set = m_byLower[size_t(queue)];
    if (!e.valid) {
        e.pos.clear();
        e.upTo = -kInfIndex;
        e.next = set.begin();
        e.valid = true;
    }
    if (index <= e.upTo && more == 0)
        return e;
    const size_t old = e.pos.size();
    for (; e.next != set.end() && (e.next->first <= index || more > 0); ++e.next, more -= more > 0 ? 1 : 0) {
        const int j = e.next->second;
        e.pos.push_back({m_key(j), j});
        ++m_evals;
    }
    // every job whose bound is below the first one left out is in (each job's index is at least its bound)
    e.upTo = e.next == set.end() ? kInfIndex : std::nextafter(e.next->first, -kInfIndex);
    if (e.pos.size() > old) {
        std::sort(e.pos.begin() + long(old), e.pos.end());
        std::inplace_merge(e.pos.begin(), e.pos.begin() + long(old), e.pos.end());
    }
    return e;
}

bool GittinsRunIndex::fits(const int64_t* v, const int64_t* bud) const
{
    for (size_t t = 0; t < m_types; ++t)
        if (v[t] > bud[t])
            return false;
    return true;
}

int GittinsRunIndex::walk(const Evaluated& e, const Pos* from, const Pos* to, int64_t* bud, size_t start) const
{
    auto it = from ? std::upper_bound(e.pos.begin(), e.pos.end(), *from) : e.pos.begin() + long(start);
    for (; it != e.pos.end() && (!to || *it < *to); ++it) {
        const int64_t* u = &(*m_use)[size_t(it->job) * m_types];
        if (!fits(u, bud))
            return it->job;
        for (size_t t = 0; t < m_types; ++t)
            bud[t] -= u[t];
    }
    return -1;
}

GittinsRunIndex::Pos GittinsRunIndex::last()
{
    int q = int(m_inQueue.size()) - 1;
    while (q > 0 && m_inQueue[size_t(q)] == 0)
        --q;
    // the lowest index of the queue: evaluate upwards from the lowest bound until the lowest value found is
    // at or below every bound not evaluated
    Evaluated* e = &ensure(q, m_byLower[size_t(q)].begin()->first);
    for (;;) {
        const double g = -e->pos.back().key[1];
        if (g <= e->upTo)
            return e->pos.back();
        e = &ensure(q, g);
    }
}

int GittinsRunIndex::firstNotFitting(const Pos* from, const Pos* to, int64_t* bud)
{
    const int queues = int(m_inQueue.size());
    const int qa = from ? int(from->key[0]) : 0;
    const int qb = to ? int(to->key[0]) : queues - 1;
    std::vector<int64_t> sum(m_types);
    for (int q = std::max(0, qa); q <= qb && q < queues; ++q) {
        if (m_inQueue[size_t(q)] == 0)
            continue;
        const Pos* lo = from && q == qa ? from : nullptr;
        const Pos* hi = to && q == qb ? to : nullptr;
        int found = -1;
        if (lo) {
            // every job after `lo` has an index at or below lo's, so it is evaluated
            found = walk(ensure(q, -lo->key[1]), lo, hi, bud);
        } else {
            // The jobs at or after `hi` are evaluated. The evaluated ones with an index at or below e.upTo come
            // after every job not evaluated (whose index is above e.upTo): the stretch is a group in an unknown
            // order, then those in their exact order. When the group does not fit, more of the lowest bounds
            // are evaluated (the ones that do not fit are near the end), down to the whole queue.
            Evaluated* e = &ensure(q, hi ? -hi->key[1] : -kInfIndex);
            for (;;) {
                const auto end = hi ? std::lower_bound(e->pos.begin(), e->pos.end(), *hi) : e->pos.end();
                const double upTo = e->upTo;
                const auto tail = std::partition_point(e->pos.begin(), end, [&](const Pos& p) { return -p.key[1] > upTo; });
                std::copy(m_total.begin() + long(size_t(q) * m_types), m_total.begin() + long(size_t(q + 1) * m_types), sum.begin());
                for (auto it = tail; it != e->pos.end(); ++it)
                    for (size_t t = 0; t < m_types; ++t)
                        sum[t] -= (*m_use)[size_t(it->job) * m_types + t];
                if (fits(sum.data(), bud)) {
                    for (size_t t = 0; t < m_types; ++t)
                        bud[t] -= sum[t];
                    if (tail != end)
                        found = walk(*e, nullptr, hi, bud, size_t(tail - e->pos.begin()));
                    break;
                }
                if (e->next == m_byLower[size_t(q)].end()) {
                    found = walk(*e, nullptr, hi, bud);
                    break;
                }
                e = &ensure(q, e->upTo, std::max<size_t>(16, e->pos.size()));
            }
        }
        if (found >= 0)
            return found;
    }
    return -1;
}

} // namespace ss
