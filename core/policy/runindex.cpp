#include "policy/runindex.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace ss {

void RunIndex::reset(size_t jobs, size_t types)
{
    m_types = types;
    m_root = -1;
    m_count = 0;
    m_rand = 0x9E3779B97F4A7C15ULL; // fixed: the shape of the tree never changes what a walk returns
    m_lines = (kNodeBytes + 2 * types * sizeof(Lane) + sizeof(Line) - 1) / sizeof(Line);
    m_total.assign(types, 0);
    m_records = 0;
    m_lastNode = -1;
    m_store.clear();
    m_free.clear();
    m_node.assign(jobs, -1);
}

void RunIndex::pull(int n)
{
    Lane* s = sum(n);
    const Lane* u = use(n);
    for (size_t t = 0; t < m_types; ++t)
        s[t] = u[t];
    for (int c : {node(n).left, node(n).right})
        if (c >= 0) {
            const Lane* cs = sum(c);
            for (size_t t = 0; t < m_types; ++t)
                s[t] += cs[t];
        }
}

void RunIndex::split(int t, const Pos& p, bool orEqual, int& l, int& r)
{
    if (t < 0) {
        l = r = -1;
        return;
    }
    Node& n = node(t);
    const bool goesLeft = orEqual ? !(p < n.pos) : n.pos < p;
    if (goesLeft) {
        split(n.right, p, orEqual, node(t).right, r);
        setParent(node(t).right, t);
        l = t;
    } else {
        split(n.left, p, orEqual, l, node(t).left);
        setParent(node(t).left, t);
        r = t;
    }
    pull(t);
}

int RunIndex::merge(int a, int b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    if (node(a).prio > node(b).prio) {
        node(a).right = merge(node(a).right, b);
        setParent(node(a).right, a);
        pull(a);
        return a;
    }
    node(b).left = merge(a, node(b).left);
    setParent(node(b).left, b);
    pull(b);
    return b;
}

void RunIndex::addToPath(int64_t sign, int n)
{
    // ancestors on m_path hold n in their subtree sums
    const Lane* u = use(n);
    for (size_t t = 0; t < m_types; ++t)
        m_total[t] += sign * u[t];
    // a job nearly always holds one GPU type: then only that lane changes
    size_t held = 0, only = 0;
    for (size_t t = 0; t < m_types; ++t)
        if (u[t] != 0) {
            ++held;
            only = t;
        }
    if (held == 1) {
        const Lane d = Lane(sign) * u[only];
        for (int p : m_path)
            sum(p)[only] += d;
        return;
    }
    for (int p : m_path) {
        Lane* s = sum(p);
        for (size_t t = 0; t < m_types; ++t)
            s[t] += Lane(sign) * u[t];
    }
}

void RunIndex::insert(int job, const Key& key, const int64_t* u)
{
    if (m_node[size_t(job)] >= 0)
        erase(job);
    for (size_t t = 0; t < m_types; ++t)
        if (u[t] < 0 || m_total[t] + u[t] > std::numeric_limits<Lane>::max())
            throw std::length_error("RunIndex: job " + std::to_string(job) + " would make the running jobs hold "
                                    + std::to_string(m_total[t] + u[t]) + " thousandths of a GPU of type "
                                    + std::to_string(t) + " (at most 2^31 - 1)");
    int n;
    if (!m_free.empty()) {
        n = m_free.back();
        m_free.pop_back();
    } else {
        n = m_records++;
        m_store.resize(m_store.size() + m_lines);
    }
    m_rand ^= m_rand << 13;
    m_rand ^= m_rand >> 7;
    m_rand ^= m_rand << 17;
    new (words(n)) Node {{key, job}, uint32_t(m_rand >> 32), -1, -1, -1};
    for (size_t t = 0; t < m_types; ++t)
        use(n)[t] = Lane(u[t]);
    // down to where the new node's priority places it, split what hangs there around it (a few nodes on
    // average), and add its holding to the ancestors' sums
    const Pos& p = node(n).pos;
    m_path.clear();
    int* link = &m_root;
    while (*link >= 0 && node(*link).prio > node(n).prio) {
        m_path.push_back(*link);
        Node& x = node(*link);
        prefetchRest(*link);
        prefetchChildren(x);
        link = p < x.pos ? &x.left : &x.right;
    }
    int l, r;
    split(*link, p, false, l, r);
    node(n).left = l;
    node(n).right = r;
    setParent(l, n);
    setParent(r, n);
    pull(n);
    *link = n;
    node(n).parent = m_path.empty() ? -1 : m_path.back(); // the owner of `link`
    addToPath(+1, n);
    if (m_lastNode >= 0 && node(m_lastNode).pos < p)
        m_lastNode = n;
    m_node[size_t(job)] = n;
    ++m_count;
}

void RunIndex::erase(int job)
{
    const int n = m_node[size_t(job)];
    if (n < 0)
        return;
    // up from the node: its ancestors, whose sums hold it (no key is compared)
    const int par = node(n).parent;
    m_path.clear();
    for (int a = par; a >= 0; a = node(a).parent) {
        prefetchRest(a);
        m_path.push_back(a);
    }
    addToPath(-1, n);
    const int m = merge(node(n).left, node(n).right);
    if (par < 0)
        m_root = m;
    else if (node(par).left == n)
        node(par).left = m;
    else
        node(par).right = m;
    setParent(m, par);
    m_free.push_back(n);
    if (n == m_lastNode)
        m_lastNode = -1;
    m_node[size_t(job)] = -1;
    --m_count;
}

const RunIndex::Pos& RunIndex::last() const
{
    if (m_lastNode < 0) {
        int t = m_root;
        while (node(t).right >= 0)
            t = node(t).right;
        m_lastNode = t;
    }
    return node(m_lastNode).pos;
}

bool RunIndex::fits(const Lane* v, const int64_t* bud) const
{
    for (size_t t = 0; t < m_types; ++t)
        if (v[t] > bud[t])
            return false;
    return true;
}

int RunIndex::descend(int t, int64_t* bud) const
{
    // the subtree does not fit as a whole: the first job in it that does not fit follows the part that does
    for (;;) {
        const Node& n = node(t);
        prefetchRest(t);
        prefetchChildren(n);
        if (n.left >= 0) {
            if (!fits(sum(n.left), bud)) {
                t = n.left;
                continue;
            }
            const Lane* s = sum(n.left);
            for (size_t i = 0; i < m_types; ++i)
                bud[i] -= s[i];
        }
        if (!fits(use(t), bud))
            return n.pos.job;
        const Lane* u = use(t);
        for (size_t i = 0; i < m_types; ++i)
            bud[i] -= u[i];
        t = n.right; // the rest of this subtree must hold the job that does not fit
    }
}

int RunIndex::scan(int t, const Pos* from, const Pos* to, int64_t* bud) const
{
    // in-order over the part of the subtree after `from` and before `to`: a subtree wholly inside is taken
    // by its sum when it fits, so only the two boundary paths and the path to the job found are walked
    while (t >= 0) {
        const Node& n = node(t);
        prefetchRest(t);
        prefetchChildren(n);
        if (!from && !to) {
            if (fits(sum(t), bud)) {
                const Lane* s = sum(t);
                for (size_t i = 0; i < m_types; ++i)
                    bud[i] -= s[i];
                return -1;
            }
            return descend(t, bud);
        }
        if (from && !(*from < n.pos)) { // node <= from: only the right side can be in range
            t = n.right;
            continue;
        }
        if (to && !(n.pos < *to)) { // node >= to: only the left side
            t = n.left;
            continue;
        }
        // the node is inside: its left side is bounded by `from` only, its right side by `to` only
        const int found = scan(n.left, from, nullptr, bud);
        if (found >= 0)
            return found;
        if (!fits(use(t), bud))
            return n.pos.job;
        const Lane* u = use(t);
        for (size_t i = 0; i < m_types; ++i)
            bud[i] -= u[i];
        from = nullptr;
        t = n.right;
    }
    return -1;
}

int RunIndex::firstNotFitting(const Pos* from, const Pos* to, int64_t* bud) const
{
    // nothing after `from` (the walk's admissions past the last running job): no descent down the right spine
    if (m_root < 0 || (from && !(*from < last())))
        return -1;
    return scan(m_root, from, to, bud);
}

std::vector<int> RunIndex::inOrder() const
{
    std::vector<int> out, stack;
    int t = m_root;
    while (t >= 0 || !stack.empty()) {
        while (t >= 0) {
            stack.push_back(t);
            t = node(t).left;
        }
        t = stack.back();
        stack.pop_back();
        out.push_back(node(t).pos.job);
        t = node(t).right;
    }
    return out;
}

bool RunIndex::ordered() const
{
    std::vector<int> stack;
    const Pos* prev = nullptr;
    int t = m_root;
    while (t >= 0 || !stack.empty()) {
        while (t >= 0) {
            stack.push_back(t);
            t = node(t).left;
        }
        t = stack.back();
        stack.pop_back();
        const Pos& p = node(t).pos;
        if (prev && !(*prev < p))
            return false;
        prev = &p;
        t = node(t).right;
    }
    return true;
}

} // namespace ss
