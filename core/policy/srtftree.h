#pragma once
// The tree under SrtfDrift (srtfdrift.h): running jobs ordered by a fixed estimate `u` of their work left (a
// double; the job breaks ties), with what each holds per GPU type summed over every subtree (a treap), and
// each job's work line kept beside it so the estimates can all be renewed in one pass (rebuild).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "policy/holding.h"

namespace ss {

/// A running job's work left as a line in time, as JobRuntime::remainingAt computes it: flat until `from`
/// (max(lastUpdate, resumeAt)), then falling at `rate`, floored at 0.
struct SrtfLine {
    double rem = 0, from = 0, rate = 0;
    double at(double t) const { return std::max(0.0, rem - std::max(0.0, t - from) * rate); } // as JobRuntime::remainingAt
};

class SrtfTree {
public:
    void reset(size_t jobs, size_t types);
    bool empty() const { return m_root < 0; }
    int size() const { return m_count; }
    bool contains(int job) const { return m_node[size_t(job)] >= 0; }
    void insert(int job, double u, const int64_t* use, const SrtfLine& line);
    void erase(int job);
    // Nodes: what the queries below return. A node stays with its job while the job is here.
    int nodeOf(int job) const { return m_node[size_t(job)]; }
    int jobAt(int n) const { return m_nodes[size_t(n)].job; }
    double uAt(int n) const { return m_nodes[size_t(n)].u; }
    const SrtfLine& lineAt(int n) const { return m_nodes[size_t(n)].line; }
    SrtfLine& lineAt(int n) { return m_nodes[size_t(n)].line; }
    const int64_t* useAt(int n) const { return &m_use[size_t(n) * m_types]; }
    /// The node with the largest (u, job); only when not empty.
    int maxNode() const;
    /// Adds to `out` what the jobs with lo <= u < hi hold.
    void sum(double lo, double hi, int64_t* out) const;
    /// Appends the nodes with lo <= u < hi, in order.
    void collect(double lo, double hi, std::vector<int>& out) const;
    /// Walks the jobs with lo <= u < hi in order, subtracting from `bud` each whose holding fits: returns the
    /// node of the first that does not fit (every job before it subtracted), or -1 when all fit.
    int greedy(double lo, double hi, int64_t* bud) const;
    /// One pass over the jobs with a <= u < d in order: those with b <= u < c (a <= b <= c <= d) are kept while
    /// they fit, as greedy() does, stretches of them at once; each other one is handed to `near(node, bud)`,
    /// which returns 0 (not counted), 1 (kept: it subtracted its holding) or 2 (does not fit). Returns the node
    /// of the first that does not fit, or -1.
    template <class Near> int walk(double a, double b, double c, double d, int64_t* bud, Near&& near) const
    {
        return walkIn(m_root, -kInf, kInf, a, b, c, d, bud, near);
    }
    /// Every node in order (replacing what `out` held).
    void nodes(std::vector<int>& out) const
    {
        out.clear();
        collect(-kInf, kInf, out);
    }
    /// Gives every job here a new estimate: `order` holds every node with its job and new u, sorted by
    /// (u, job). O(n).
    struct Entry {
        double u;
        int job, node;
        bool operator<(const Entry& o) const { return u < o.u || (u == o.u && job < o.job); }
    };
    void rebuild(const std::vector<Entry>& order);
    /// The number of nodes on the longest path from the root (tests: rebuild leaves at most log2(n + 1)).
    int height() const;

private:
    static constexpr double kInf = std::numeric_limits<double>::infinity();
    struct Node {
        double u = 0;
        SrtfLine line;
        int job = -1;
        uint32_t prio = 0;
        int left = -1, right = -1;
    };
    size_t m_types = 0;
    int m_root = -1;
    int m_count = 0;
    uint64_t m_rand = 0x9E3779B97F4A7C15ULL;
    std::vector<Node> m_nodes;
    std::vector<int64_t> m_use, m_sum; // per node and type
    std::vector<int> m_free;
    std::vector<int> m_node; // per job: its node, -1 = not here
    std::vector<int> m_stack;

    int64_t* sumOf(int n) { return &m_sum[size_t(n) * m_types]; }
    const int64_t* sumOf(int n) const { return &m_sum[size_t(n) * m_types]; }
    const int64_t* useOf(int n) const { return useAt(n); }
    bool less(int n, double u, int job) const
    {
        const Node& x = m_nodes[size_t(n)];
        return x.u < u || (x.u == u && x.job < job);
    }
    void pull(int n);
    int merge(int a, int b);
    bool fits(const int64_t* v, const int64_t* bud) const { return holdingFits(v, bud, m_types); }
    void take(const int64_t* v, int64_t* bud) const { holdingTake(v, bud, m_types); }
    int descend(int t, int64_t* bud) const;
    int greedyIn(int t, double lo, double hi, bool boundLo, bool boundHi, int64_t* bud) const;
    void sumIn(int t, double lo, double hi, bool boundLo, bool boundHi, int64_t* out) const;
    void collectIn(int t, double lo, double hi, std::vector<int>& out) const;
    template <class Near>
    int walkIn(int t, double lo, double hi, double a, double b, double c, double d, int64_t* bud, Near& near) const
    {
        // lo <= u <= hi for the whole subtree at t (from its ancestors)
        while (t >= 0) {
            const Node& n = m_nodes[size_t(t)];
            if (n.u < a) {
                t = n.right;
                lo = n.u;
                continue;
            }
            if (!(n.u < d)) {
                t = n.left;
                hi = n.u;
                continue;
            }
            if (lo >= b && hi < c) {
                // all of it kept while it fits
                if (fits(sumOf(t), bud)) {
                    take(sumOf(t), bud);
                    return -1;
                }
                return descend(t, bud);
            }
            const int found = walkIn(n.left, lo, n.u, a, b, c, d, bud, near);
            if (found >= 0)
                return found;
            if (b <= n.u && n.u < c) {
                if (!fits(useOf(t), bud))
                    return t;
                take(useOf(t), bud);
            } else if (near(t, bud) == 2) {
                return t;
            }
            t = n.right;
            lo = n.u;
        }
        return -1;
    }
};

} // namespace ss
