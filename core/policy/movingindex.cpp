#include "policy/movingindex.h"

#include <algorithm>
#include <cmath>

namespace ss {

namespace {
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
}

void MovingIndex::reset(size_t jobs, size_t types, PosFn pos, DueFn due)
{
    m_types = types;
    m_root = -1;
    m_count = 0;
    m_rand = 0x9E3779B97F4A7C15ULL; // fixed: the shape of the tree never changes what a query returns
    m_pos = std::move(pos);
    m_due = std::move(due);
    m_nodes.clear();
    m_use.clear();
    m_sum.clear();
    m_free.clear();
    m_node.assign(jobs, -1);
    m_certAt.assign(jobs, kNone);
    m_stamp.assign(jobs, 0);
    m_certs.clear();
    m_dirty.clear();
    m_hot.clear();
    m_checks = m_swaps = 0;
}

void MovingIndex::pull(int n)
{
    int64_t* s = sum(n);
    const int64_t* u = use(n);
    for (size_t t = 0; t < m_types; ++t)
        s[t] = u[t];
    for (int c : {m_nodes[size_t(n)].left, m_nodes[size_t(n)].right})
        if (c >= 0) {
            const int64_t* cs = sum(c);
            for (size_t t = 0; t < m_types; ++t)
                s[t] += cs[t];
        }
}

void MovingIndex::pullUp(int n)
{
    for (; n >= 0; n = m_nodes[size_t(n)].parent)
        pull(n);
}

void MovingIndex::setLeft(int p, int c)
{
    m_nodes[size_t(p)].left = c;
    if (c >= 0)
        m_nodes[size_t(c)].parent = p;
}

void MovingIndex::setRight(int p, int c)
{
    m_nodes[size_t(p)].right = c;
    if (c >= 0)
        m_nodes[size_t(c)].parent = p;
}

int MovingIndex::mergeNodes(int a, int b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    if (m_nodes[size_t(a)].prio > m_nodes[size_t(b)].prio) {
        setRight(a, mergeNodes(m_nodes[size_t(a)].right, b));
        pull(a);
        return a;
    }
    setLeft(b, mergeNodes(a, m_nodes[size_t(b)].left));
    pull(b);
    return b;
}

int MovingIndex::next(int n) const
{
    if (m_nodes[size_t(n)].right >= 0) {
        n = m_nodes[size_t(n)].right;
        while (m_nodes[size_t(n)].left >= 0)
            n = m_nodes[size_t(n)].left;
        return n;
    }
    int p = m_nodes[size_t(n)].parent;
    while (p >= 0 && m_nodes[size_t(p)].right == n) {
        n = p;
        p = m_nodes[size_t(p)].parent;
    }
    return p;
}

int MovingIndex::prev(int n) const
{
    if (m_nodes[size_t(n)].left >= 0) {
        n = m_nodes[size_t(n)].left;
        while (m_nodes[size_t(n)].right >= 0)
            n = m_nodes[size_t(n)].right;
        return n;
    }
    int p = m_nodes[size_t(n)].parent;
    while (p >= 0 && m_nodes[size_t(p)].left == n) {
        n = p;
        p = m_nodes[size_t(p)].parent;
    }
    return p;
}

void MovingIndex::certClear(int job)
{
    if (std::isnan(m_certAt[size_t(job)]))
        return;
    ++m_stamp[size_t(job)];
    m_certAt[size_t(job)] = kNone;
}

bool MovingIndex::certTop(double now, int& job)
{
    // the earliest live certificate due by now, popped; stale entries are dropped on the way
    const auto later = [](const Cert& a, const Cert& b) { return a > b; };
    while (!m_certs.empty()) {
        const Cert c = m_certs.front();
        const bool live = c.stamp == m_stamp[size_t(c.job)] && !std::isnan(m_certAt[size_t(c.job)]);
        if (live && c.at > now)
            return false;
        std::pop_heap(m_certs.begin(), m_certs.end(), later);
        m_certs.pop_back();
        if (live) {
            job = c.job;
            certClear(job);
            return true;
        }
    }
    return false;
}

void MovingIndex::certSet(int job, double now)
{
    certClear(job);
    const int nx = next(m_node[size_t(job)]);
    if (nx < 0)
        return;
    const double t = m_due(job, m_nodes[size_t(nx)].job, now);
    if (!(t < std::numeric_limits<double>::infinity()))
        return; // the pair never swaps while both keep their lines (a line change re-inserts the job)
    m_certAt[size_t(job)] = t;
    const auto later = [](const Cert& a, const Cert& b) { return a > b; };
    if (m_certs.size() > 4 * size_t(m_count) + 1024) {
        // mostly stale: rebuild from the live certificates
        std::vector<Cert> live;
        for (const Cert& c : m_certs)
            if (c.stamp == m_stamp[size_t(c.job)] && !std::isnan(m_certAt[size_t(c.job)]))
                live.push_back(c);
        m_certs.swap(live);
        std::make_heap(m_certs.begin(), m_certs.end(), later);
    }
    m_certs.push_back({t, job, ++m_stamp[size_t(job)]});
    std::push_heap(m_certs.begin(), m_certs.end(), later);
}

void MovingIndex::insert(int job, const int64_t* u, double now)
{
    if (m_node[size_t(job)] >= 0)
        erase(job);
    int n;
    if (!m_free.empty()) {
        n = m_free.back();
        m_free.pop_back();
    } else {
        n = int(m_nodes.size());
        m_nodes.push_back({});
        m_use.resize(m_use.size() + m_types);
        m_sum.resize(m_sum.size() + m_types);
    }
    m_rand ^= m_rand << 13;
    m_rand ^= m_rand >> 7;
    m_rand ^= m_rand << 17;
    m_nodes[size_t(n)] = Node {job, uint32_t(m_rand >> 32), -1, -1, -1};
    std::copy(u, u + m_types, &m_use[size_t(n) * m_types]);
    std::copy(u, u + m_types, &m_sum[size_t(n) * m_types]);
    m_node[size_t(job)] = n;
    ++m_count;
    if (m_root < 0) {
        m_root = n;
    } else {
        // a leaf at its place in the order, its holding added along the path, then rotated up by priority
        const Pos p = m_pos(job);
        int t = m_root;
        for (;;) {
            Node& x = m_nodes[size_t(t)];
            const bool left = p < posOf(t);
            const int c = left ? x.left : x.right;
            if (c < 0) {
                if (left)
                    setLeft(t, n);
                else
                    setRight(t, n);
                break;
            }
            t = c;
        }
        for (int a = m_nodes[size_t(n)].parent; a >= 0; a = m_nodes[size_t(a)].parent) {
            int64_t* s = sum(a);
            for (size_t i = 0; i < m_types; ++i)
                s[i] += u[i];
        }
        while (m_nodes[size_t(n)].parent >= 0 && m_nodes[size_t(m_nodes[size_t(n)].parent)].prio < m_nodes[size_t(n)].prio) {
            const int p2 = m_nodes[size_t(n)].parent;
            const int g = m_nodes[size_t(p2)].parent;
            const bool gLeft = g >= 0 && m_nodes[size_t(g)].left == p2;
            if (m_nodes[size_t(p2)].left == n) {
                setLeft(p2, m_nodes[size_t(n)].right);
                setRight(n, p2);
            } else {
                setRight(p2, m_nodes[size_t(n)].left);
                setLeft(n, p2);
            }
            m_nodes[size_t(n)].parent = g;
            if (g < 0)
                m_root = n;
            else if (gLeft)
                m_nodes[size_t(g)].left = n;
            else
                m_nodes[size_t(g)].right = n;
            pull(p2);
            pull(n);
        }
    }
    if (const int pr = prev(n); pr >= 0)
        certSet(m_nodes[size_t(pr)].job, now);
    certSet(job, now);
}

void MovingIndex::erase(int job)
{
    const int n = m_node[size_t(job)];
    if (n < 0)
        return;
    certClear(job);
    if (const int pr = prev(n); pr >= 0)
        m_dirty.push_back(m_nodes[size_t(pr)].job); // it has a new successor
    const int g = m_nodes[size_t(n)].parent;
    const int m = mergeNodes(m_nodes[size_t(n)].left, m_nodes[size_t(n)].right);
    if (m >= 0)
        m_nodes[size_t(m)].parent = g;
    if (g < 0)
        m_root = m;
    else if (m_nodes[size_t(g)].left == n)
        m_nodes[size_t(g)].left = m;
    else
        m_nodes[size_t(g)].right = m;
    pullUp(g);
    m_nodes[size_t(n)] = Node {};
    m_free.push_back(n);
    m_node[size_t(job)] = -1;
    --m_count;
}

void MovingIndex::restore(double now)
{
    for (int j : m_dirty)
        if (m_node[size_t(j)] >= 0)
            certSet(j, now);
    m_dirty.clear();
    m_hot.clear();
    int a = -1;
    while (certTop(now, a)) {
        const int na = m_node[size_t(a)];
        const int nb = next(na);
        if (nb < 0)
            continue;
        const int b = m_nodes[size_t(nb)].job;
        ++m_checks;
        if (!(m_pos(b) < m_pos(a))) {
            m_hot.push_back(a); // close but not crossed: checked again at the next decision
            continue;
        }
        // adjacent and crossed: exchange the two jobs between their nodes (one is the other's ancestor)
        ++m_swaps;
        const int np = prev(na);
        std::swap(m_nodes[size_t(na)].job, m_nodes[size_t(nb)].job);
        std::swap_ranges(&m_use[size_t(na) * m_types], &m_use[size_t(na) * m_types] + m_types, &m_use[size_t(nb) * m_types]);
        m_node[size_t(a)] = nb;
        m_node[size_t(b)] = na;
        // only the nodes from the lower of the two up to (not including) the upper one hold one of them
        const int lower = m_nodes[size_t(na)].right >= 0 ? nb : na, upper = lower == nb ? na : nb;
        for (int x = lower; x != upper; x = m_nodes[size_t(x)].parent)
            pull(x);
        certClear(b);
        if (np >= 0)
            certSet(m_nodes[size_t(np)].job, now);
        certSet(b, now);
        certSet(a, now);
    }
    for (int a : m_hot)
        if (m_node[size_t(a)] >= 0 && std::isnan(m_certAt[size_t(a)]))
            certSet(a, now);
}

MovingIndex::Pos MovingIndex::last() const
{
    int t = m_root;
    while (m_nodes[size_t(t)].right >= 0)
        t = m_nodes[size_t(t)].right;
    return posOf(t);
}

bool MovingIndex::fits(const int64_t* v, const int64_t* bud) const
{
    for (size_t t = 0; t < m_types; ++t)
        if (v[t] > bud[t])
            return false;
    return true;
}

int MovingIndex::descend(int t, int64_t* bud) const
{
    for (;;) {
        const Node& n = m_nodes[size_t(t)];
        if (n.left >= 0) {
            if (!fits(sum(n.left), bud)) {
                t = n.left;
                continue;
            }
            const int64_t* s = sum(n.left);
            for (size_t i = 0; i < m_types; ++i)
                bud[i] -= s[i];
        }
        if (!fits(use(t), bud))
            return n.job;
        const int64_t* u = use(t);
        for (size_t i = 0; i < m_types; ++i)
            bud[i] -= u[i];
        t = n.right;
    }
}

int MovingIndex::scan(int t, const Pos* from, const Pos* to, int64_t* bud) const
{
    while (t >= 0) {
        const Node& n = m_nodes[size_t(t)];
        if (!from && !to) {
            if (fits(sum(t), bud)) {
                const int64_t* s = sum(t);
                for (size_t i = 0; i < m_types; ++i)
                    bud[i] -= s[i];
                return -1;
            }
            return descend(t, bud);
        }
        const Pos p = posOf(t);
        if (from && !(*from < p)) {
            t = n.right;
            continue;
        }
        if (to && !(p < *to)) {
            t = n.left;
            continue;
        }
        const int found = scan(n.left, from, nullptr, bud);
        if (found >= 0)
            return found;
        if (!fits(use(t), bud))
            return n.job;
        const int64_t* u = use(t);
        for (size_t i = 0; i < m_types; ++i)
            bud[i] -= u[i];
        from = nullptr;
        t = n.right;
    }
    return -1;
}

int MovingIndex::firstNotFitting(const Pos* from, const Pos* to, int64_t* bud) const
{
    return scan(m_root, from, to, bud);
}

std::vector<int> MovingIndex::inOrder() const
{
    std::vector<int> out, stack;
    int t = m_root;
    while (t >= 0 || !stack.empty()) {
        while (t >= 0) {
            stack.push_back(t);
            t = m_nodes[size_t(t)].left;
        }
        t = stack.back();
        stack.pop_back();
        out.push_back(m_nodes[size_t(t)].job);
        t = m_nodes[size_t(t)].right;
    }
    return out;
}

} // namespace ss
