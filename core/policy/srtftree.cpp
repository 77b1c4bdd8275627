#include "policy/srtftree.h"

#include <algorithm>

namespace ss {

void SrtfTree::reset(size_t jobs, size_t types)
{
    m_types = types;
    m_root = -1;
    m_count = 0;
    m_rand = 0x9E3779B97F4A7C15ULL; // fixed: the shape of the tree never changes what a query returns
    m_nodes.clear();
    m_use.clear();
    m_sum.clear();
    m_free.clear();
    m_node.assign(jobs, -1);
}

void SrtfTree::pull(int n)
{
    int64_t* s = sumOf(n);
    const int64_t* u = useOf(n);
    for (size_t t = 0; t < m_types; ++t)
        s[t] = u[t];
    for (int c : {m_nodes[size_t(n)].left, m_nodes[size_t(n)].right})
        if (c >= 0) {
            const int64_t* cs = sumOf(c);
            for (size_t t = 0; t < m_types; ++t)
                s[t] += cs[t];
        }
}

int SrtfTree::merge(int a, int b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    if (m_nodes[size_t(a)].prio > m_nodes[size_t(b)].prio) {
        const int m = merge(m_nodes[size_t(a)].right, b);
        m_nodes[size_t(a)].right = m;
        pull(a);
        return a;
    }
    const int m = merge(a, m_nodes[size_t(b)].left);
    m_nodes[size_t(b)].left = m;
    pull(b);
    return b;
}

void SrtfTree::insert(int job, double u, const int64_t* use, const SrtfLine& line)
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
    m_nodes[size_t(n)] = Node {u, line, job, uint32_t(m_rand >> 32), -1, -1};
    std::copy(use, use + m_types, &m_use[size_t(n) * m_types]);
    std::copy(use, use + m_types, &m_sum[size_t(n) * m_types]);
    m_node[size_t(job)] = n;
    ++m_count;
    // a leaf at its place, its holding added along the path, then rotated up by priority
    m_stack.clear();
    for (int t = m_root; t >= 0;) {
        m_stack.push_back(t);
        int64_t* s = sumOf(t);
        for (size_t i = 0; i < m_types; ++i)
            s[i] += use[i];
        t = less(t, u, job) ? m_nodes[size_t(t)].right : m_nodes[size_t(t)].left;
    }
    if (m_stack.empty()) {
        m_root = n;
        return;
    }
    {
        Node& p = m_nodes[size_t(m_stack.back())];
        (less(m_stack.back(), u, job) ? p.right : p.left) = n;
    }
    while (!m_stack.empty() && m_nodes[size_t(m_stack.back())].prio < m_nodes[size_t(n)].prio) {
        const int p = m_stack.back();
        m_stack.pop_back();
        Node& pn = m_nodes[size_t(p)];
        Node& nn = m_nodes[size_t(n)];
        if (pn.left == n) {
            pn.left = nn.right;
            nn.right = p;
        } else {
            pn.right = nn.left;
            nn.left = p;
        }
        pull(p);
        pull(n);
        if (m_stack.empty())
            m_root = n;
        else {
            Node& g = m_nodes[size_t(m_stack.back())];
            (g.left == p ? g.left : g.right) = n;
        }
    }
}

void SrtfTree::erase(int job)
{
    const int n = m_node[size_t(job)];
    if (n < 0)
        return;
    const double u = m_nodes[size_t(n)].u;
    const int64_t* use = useOf(n);
    // its holding taken off along the path, then its children merged in its place
    int parent = -1;
    for (int t = m_root; t != n;) {
        parent = t;
        int64_t* s = sumOf(t);
        for (size_t i = 0; i < m_types; ++i)
            s[i] -= use[i];
        t = less(t, u, job) ? m_nodes[size_t(t)].right : m_nodes[size_t(t)].left;
    }
    const int m = merge(m_nodes[size_t(n)].left, m_nodes[size_t(n)].right);
    if (parent < 0)
        m_root = m;
    else {
        Node& g = m_nodes[size_t(parent)];
        (g.left == n ? g.left : g.right) = m;
    }
    m_nodes[size_t(n)] = Node {};
    m_free.push_back(n);
    m_node[size_t(job)] = -1;
    --m_count;
}

int SrtfTree::maxNode() const
{
    int t = m_root;
    while (m_nodes[size_t(t)].right >= 0)
        t = m_nodes[size_t(t)].right;
    return t;
}

int SrtfTree::descend(int t, int64_t* bud) const
{
    // the whole subtree is in range and does not fit: the first job that does not
    for (;;) {
        const Node& n = m_nodes[size_t(t)];
        if (n.left >= 0) {
            if (!fits(sumOf(n.left), bud)) {
                t = n.left;
                continue;
            }
            take(sumOf(n.left), bud);
        }
        if (!fits(useOf(t), bud))
            return t;
        take(useOf(t), bud);
        t = n.right;
    }
}

int SrtfTree::greedyIn(int t, double lo, double hi, bool boundLo, bool boundHi, int64_t* bud) const
{
    while (t >= 0) {
        const Node& n = m_nodes[size_t(t)];
        if (!boundLo && !boundHi) {
            if (fits(sumOf(t), bud)) {
                take(sumOf(t), bud);
                return -1;
            }
            return descend(t, bud);
        }
        if (boundLo && n.u < lo) {
            t = n.right;
            continue;
        }
        if (boundHi && !(n.u < hi)) {
            t = n.left;
            continue;
        }
        // this node is in range: its left subtree is below hi, its right subtree above lo
        const int found = greedyIn(n.left, lo, hi, boundLo, false, bud);
        if (found >= 0)
            return found;
        if (!fits(useOf(t), bud))
            return t;
        take(useOf(t), bud);
        boundLo = false;
        t = n.right;
    }
    return -1;
}

int SrtfTree::greedy(double lo, double hi, int64_t* bud) const
{
    if (!(lo < hi))
        return -1;
    return greedyIn(m_root, lo, hi, lo > -kInf, hi < kInf, bud);
}

void SrtfTree::sumIn(int t, double lo, double hi, bool boundLo, bool boundHi, int64_t* out) const
{
    while (t >= 0) {
        const Node& n = m_nodes[size_t(t)];
        if (!boundLo && !boundHi) {
            const int64_t* s = sumOf(t);
            for (size_t i = 0; i < m_types; ++i)
                out[i] += s[i];
            return;
        }
        if (boundLo && n.u < lo) {
            t = n.right;
            continue;
        }
        if (boundHi && !(n.u < hi)) {
            t = n.left;
            continue;
        }
        sumIn(n.left, lo, hi, boundLo, false, out);
        const int64_t* u = useOf(t);
        for (size_t i = 0; i < m_types; ++i)
            out[i] += u[i];
        boundLo = false;
        t = n.right;
    }
}

void SrtfTree::sum(double lo, double hi, int64_t* out) const
{
    if (lo < hi)
        sumIn(m_root, lo, hi, lo > -kInf, hi < kInf, out);
}

void SrtfTree::collectIn(int t, double lo, double hi, std::vector<int>& out) const
{
    while (t >= 0) {
        const Node& n = m_nodes[size_t(t)];
        if (n.u < lo) {
            t = n.right;
            continue;
        }
        if (!(n.u < hi)) {
            t = n.left;
            continue;
        }
        collectIn(n.left, lo, hi, out);
        out.push_back(t);
        t = n.right;
    }
}

void SrtfTree::collect(double lo, double hi, std::vector<int>& out) const
{
    if (lo < hi)
        collectIn(m_root, lo, hi, out);
}

void SrtfTree::rebuild(const std::vector<Entry>& order)
{
    // a Cartesian tree over the nodes in their new order, the right spine on a stack; a node leaving the spine
    // has its whole subtree, so its sums are made then. The priorities are made anew so that the tree is as
    // shallow as it can be (depth at most log2(n + 1)): the node at (1-based) place i gets kTop + the trailing
    // zeros of i, above every random priority but a few in 2^32, so jobs inserted later sit under this frame as
    // a treap's nodes do (the shape never changes what a query returns)
    constexpr uint32_t kTop = 0xFFFFFFFFu - 64;
    m_stack.clear();
    uint32_t place = 0;
    for (const Entry& e : order) {
        const int n = e.node;
        Node& x = m_nodes[size_t(n)];
        x.u = e.u;
        x.prio = kTop + uint32_t(__builtin_ctz(++place));
        x.left = x.right = -1;
        int last = -1;
        while (!m_stack.empty() && m_nodes[size_t(m_stack.back())].prio < x.prio) {
            last = m_stack.back();
            m_stack.pop_back();
            pull(last);
        }
        x.left = last;
        if (!m_stack.empty())
            m_nodes[size_t(m_stack.back())].right = n;
        m_stack.push_back(n);
    }
    for (auto it = m_stack.rbegin(); it != m_stack.rend(); ++it)
        pull(*it);
    m_root = m_stack.empty() ? -1 : m_stack.front();
}

int SrtfTree::height() const
{
    int best = 0;
    std::vector<std::pair<int, int>> stack; // node, depth
    if (m_root >= 0)
        stack.push_back({m_root, 1});
    while (!stack.empty()) {
        const auto [n, d] = stack.back();
        stack.pop_back();
        best = std::max(best, d);
        for (int c : {m_nodes[size_t(n)].left, m_nodes[size_t(n)].right})
            if (c >= 0)
                stack.push_back({c, d + 1});
    }
    return best;
}

} // namespace ss
