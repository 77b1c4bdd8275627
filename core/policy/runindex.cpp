#include "policy/runindex.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace ss {

void RunIndex::reset(size_t jobs, size_t types)
{
    m_types = types;
    m_stride = 1;
    while (m_stride < types + 1)
        m_stride *= 2;
    m_count = 0;
    m_groups.clear();
    m_order.clear();
    m_where.assign(jobs, Where {});
}

int RunIndex::cmpGroup(const Group& g, const Key& key)
{
    if (g.k0 != key[0])
        return g.k0 < key[0] ? -1 : 1;
    if (g.k1 != key[1])
        return g.k1 < key[1] ? -1 : 1;
    return 0;
}

int RunIndex::groupFor(const Key& key)
{
    auto at = std::lower_bound(m_order.begin(), m_order.end(), key,
                               [&](int g, const Key& k) { return cmpGroup(m_groups[size_t(g)], k) < 0; });
    if (at != m_order.end() && cmpGroup(m_groups[size_t(*at)], key) == 0)
        return *at;
    const int gi = int(m_groups.size());
    m_groups.emplace_back();
    m_groups.back().k0 = key[0];
    m_groups.back().k1 = key[1];
    m_order.insert(at, gi);
    return gi;
}

void RunIndex::addPath(Group& g, size_t place, const int64_t* use, int64_t sign)
{
    for (size_t k = g.cap + place; k >= 1; k >>= 1) {
        Lane* s = node(g, k);
        for (size_t t = 0; t < m_types; ++t)
            s[t] += Lane(sign * use[t]);
        s[m_types] += Lane(sign);
    }
}

void RunIndex::relayout(int gi, const Pos* extra, const int64_t* extraUse)
{
    Group& g = m_groups[size_t(gi)];
    const size_t T = m_types, L = T + 1;
    // the live jobs (and the extra one in its place), with what they hold
    m_tmpPos.clear();
    m_tmp.clear();
    bool placed = extra == nullptr;
    auto put = [&](const Pos& p, const auto* use) {
        m_tmpPos.push_back(p);
        m_tmp.insert(m_tmp.end(), use, use + T);
        m_tmp.push_back(1);
    };
    for (size_t i = 0; i < g.n; ++i) {
        if (!held(g, i))
            continue;
        if (!placed && *extra < g.pos[i]) {
            put(*extra, extraUse);
            placed = true;
        }
        put(g.pos[i], node(g, g.cap + i));
    }
    if (!placed)
        put(*extra, extraUse);
    const size_t live = m_tmpPos.size();
    size_t cap = 8;
    while (cap < 2 * (live + 1))
        cap *= 2;
    g.cap = cap;
    g.n = live;
    g.pos.assign(cap, Pos {});
    g.k2.assign(cap, 0);
    // (nodes of a power-of-two stride from a 64-byte boundary: two siblings share a line when they fit in one)
    g.sum.assign(2 * cap * m_stride + 16, 0);
    g.base = (64 - reinterpret_cast<uintptr_t>(g.sum.data()) % 64) % 64 / sizeof(Lane);
    for (size_t i = 0; i < live; ++i) {
        g.pos[i] = m_tmpPos[i];
        g.k2[i] = m_tmpPos[i].key[2];
        std::copy(&m_tmp[i * L], &m_tmp[i * L] + L, node(g, cap + i));
        m_where[size_t(m_tmpPos[i].job)] = {gi, int(i)};
    }
    for (size_t k = cap; k-- > 1;) {
        Lane* s = node(g, k);
        const Lane* a = node(g, 2 * k);
        const Lane* b = node(g, 2 * k + 1);
        for (size_t t = 0; t < L; ++t)
            s[t] = a[t] + b[t];
    }
}

void RunIndex::insert(int job, const Key& key, const int64_t* use)
{
    for (double v : key)
        if (std::isnan(v))
            throw std::invalid_argument("RunIndex: a key holds NaN (job " + std::to_string(job) + ")");
    if (contains(job))
        erase(job);
    const int gi = groupFor(key);
    Group& g = m_groups[size_t(gi)];
    for (size_t t = 0; t < m_types; ++t)
        if (use[t] < 0 || use[t] > std::numeric_limits<Lane>::max() - (g.cap > 0 ? int64_t(node(g, 1)[t]) : 0))
            throw std::invalid_argument("RunIndex: job " + std::to_string(job) + " holds " + std::to_string(use[t])
                                        + " thousandths of a GPU of type " + std::to_string(t)
                                        + ": negative, or more than 2,147,483 GPUs of one type would run in one queue");
    const Pos p {key, job};
    ++m_count;
    if (g.n > 0 && !(g.pos[g.n - 1] < p)) {
        relayout(gi, &p, use); // not after every job there: laid out anew with it in its place
        return;
    }
    if (g.n == g.cap)
        relayout(gi, nullptr, nullptr);
    const size_t i = g.n++;
    g.pos[i] = p;
    g.k2[i] = key[2];
    addPath(g, i, use, +1);
    m_where[size_t(job)] = {gi, int(i)};
}

void RunIndex::erase(int job)
{
    const Where w = m_where[size_t(job)];
    if (w.g < 0)
        return;
    Group& g = m_groups[size_t(w.g)];
    const size_t i = size_t(w.i);
    const Lane* leaf = node(g, g.cap + i);
    m_tmp.assign(leaf, leaf + m_types);
    addPath(g, i, m_tmp.data(), -1);
    while (g.n > 0 && !held(g, g.n - 1))
        --g.n;
    m_where[size_t(job)] = {};
    --m_count;
}

void RunIndex::replaceKey(int job, const Key& key)
{
    const Where w = m_where[size_t(job)];
    Group& g = m_groups[size_t(w.g)];
    if (cmpGroup(g, key) == 0) {
        g.pos[size_t(w.i)].key = key;
        g.k2[size_t(w.i)] = key[2];
        return;
    }
    const Lane* leaf = node(g, g.cap + size_t(w.i));
    m_moving.assign(leaf, leaf + m_types); // (insert may lay a group out anew, through m_tmp)
    erase(job);
    insert(job, key, m_moving.data());
}

const RunIndex::Pos& RunIndex::last() const
{
    for (size_t k = m_order.size(); k-- > 0;) {
        const Group& g = m_groups[size_t(m_order[k])];
        if (g.n > 0)
            return g.pos[g.n - 1];
    }
    return m_groups[size_t(m_order.back())].pos[0]; // (only when not empty)
}

int RunIndex::descend(const Group& g, size_t lo, size_t hi, int64_t* bud) const
{
    // the nodes covering [lo, hi) in order: those met from the left as they come, those from the right after,
    // in reverse. Each is taken by its sum when it fits (or holds no job: holes never stop the walk), else the
    // first job that does not fit is inside it, after the part of it that fits
    const size_t T = m_types;
    auto passes = [&](size_t k) {
        const Lane* s = node(g, k);
        if (s[T] != 0)
            for (size_t t = 0; t < T; ++t)
                if (s[t] > bud[t])
                    return false;
        for (size_t t = 0; t < T; ++t)
            bud[t] -= s[t];
        return true;
    };
    auto visit = [&](size_t k) {
        if (passes(k))
            return -1;
        while (k < g.cap) {
            k *= 2;
            if (passes(k))
                ++k;
        }
        return g.pos[k - g.cap].job;
    };
    size_t right[64];
    size_t nr = 0;
    size_t l = lo + g.cap, r = hi + g.cap;
    while (l < r) {
        if (l & 1) {
            const int found = visit(l++);
            if (found >= 0)
                return found;
        }
        if (r & 1)
            right[nr++] = --r;
        l >>= 1;
        r >>= 1;
    }
    while (nr > 0) {
        const int found = visit(right[--nr]);
        if (found >= 0)
            return found;
    }
    return -1;
}

size_t RunIndex::placeAfter(const Group& g, const Pos& p, bool orEqual)
{
    // the places are in order, so their third key parts are too: a search there, then the few places with the
    // same third part compared whole
    const double* k2 = g.k2.data();
    size_t i = size_t(std::lower_bound(k2, k2 + g.n, p.key[2]) - k2);
    while (i < g.n && k2[i] == p.key[2] && (orEqual ? !(p < g.pos[i]) : g.pos[i] < p))
        ++i;
    return i;
}

int RunIndex::firstNotFitting(const Pos* from, const Pos* to, int64_t* bud) const
{
    for (int gi : m_order) {
        const Group& g = m_groups[size_t(gi)];
        size_t lo = 0, hi = g.n;
        if (from) {
            const int c = cmpGroup(g, from->key);
            if (c < 0)
                continue;
            if (c == 0) {
                // (the walk goes on from a job it preempted: its own place, when it is here with that position)
                const Where w = from->job >= 0 && size_t(from->job) < m_where.size() ? m_where[size_t(from->job)] : Where {};
                if (w.g == gi && g.pos[size_t(w.i)].key == from->key)
                    lo = size_t(w.i) + 1;
                else
                    lo = placeAfter(g, *from, true);
            }
        }
        if (to) {
            const int c = cmpGroup(g, to->key);
            if (c > 0)
                break;
            if (c == 0)
                hi = placeAfter(g, *to, false);
        }
        if (lo < hi) {
            const int found = descend(g, lo, hi, bud);
            if (found >= 0)
                return found;
        }
    }
    return -1;
}

std::vector<int> RunIndex::inOrder() const
{
    std::vector<int> out;
    for (int gi : m_order) {
        const Group& g = m_groups[size_t(gi)];
        for (size_t i = 0; i < g.n; ++i)
            if (held(g, i))
                out.push_back(g.pos[i].job);
    }
    return out;
}

bool RunIndex::ordered(bool deep) const
{
    // the groups are in (queue, zone) order and each place holds a position of its group, so the places in order
    // within each group make the whole order
    int count = 0;
    std::vector<int64_t> live(m_types + 1);
    for (int gi : m_order) {
        const Group& g = m_groups[size_t(gi)];
        std::fill(live.begin(), live.end(), 0);
        for (size_t i = 0; i < g.n; ++i) {
            const Pos& p = g.pos[i];
            if (cmpGroup(g, p.key) != 0 || g.k2[i] != p.key[2] || (i > 0 && !(g.pos[i - 1] < p)))
                return false;
            if (!held(g, i))
                continue;
            const Where& w = m_where[size_t(p.job)];
            const Lane* leaf = node(g, g.cap + i);
            if (leaf[m_types] != 1 || w.g != gi || w.i != int(i))
                return false;
            for (size_t t = 0; t <= m_types; ++t)
                live[t] += leaf[t];
        }
        if (g.n > 0 && !held(g, g.n - 1))
            return false;
        if (g.cap > 0)
            for (size_t t = 0; t <= m_types; ++t)
                if (node(g, 1)[t] != live[t]) // what the root sums is what the live jobs hold
                    return false;
        if (deep) {
            for (size_t i = 0; i < g.cap; ++i)
                if (i >= g.n || !held(g, i))
                    for (size_t t = 0; t <= m_types; ++t)
                        if (node(g, g.cap + i)[t] != 0)
                            return false;
            for (size_t k = 1; k < g.cap; ++k)
                for (size_t t = 0; t <= m_types; ++t)
                    if (node(g, k)[t] != node(g, 2 * k)[t] + node(g, 2 * k + 1)[t])
                        return false;
        }
        count += int(live[m_types]);
    }
    return count == m_count;
}

} // namespace ss
