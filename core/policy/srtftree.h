#pragma once
// The tree under SrtfDrift (srtfdrift.h): running jobs ordered by a fixed estimate `u` of their work left (a
// double; the job breaks ties), with what each holds per GPU type summed over every stretch the walk can take at
// once, and each job's work line kept beside it so the estimates can all be renewed in one pass (rebuild).
//
// A tree of two levels and flat arrays rather than a binary tree: the walk's questions descend to two boundaries
// and take what lies between by sums, and a binary tree of a few thousand jobs spent its time on a dozen
// unpredictable branches and scattered nodes per descent. Here the jobs are in leaves of up to kLeaf entries,
// sorted, each with prefix sums of what its entries hold (a stretch inside a leaf is one difference); the
// leaves are in order with their last keys in one array (a descent is one search there and one in a leaf), and
// groups of kGroup consecutive leaves carry their sums (a walk across many leaves takes a group at a time).
// A full leaf splits; an empty one leaves the order; rebuild lays every leaf out anew, three quarters full.
//
// A job's node is its slot: the place of its estimate, line, job and holding, fixed while the job is here.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "policy/holding.h"
#include "sim/workleft.h"

namespace ss {

/// A running job's work left as a line in time, as JobRuntime::remainingAt computes it: flat until `from`
/// (max(lastUpdate, resumeAt)), then falling at `rate`, floored at 0.
struct SrtfLine {
    double rem = 0, from = 0, rate = 0;
    double tie = 0; ///< the position's tie-break after the work left (the scheduler's; fixed while the job runs)
    double at(double t) const { return workLeftAt(rem, from, rate, t); } // as JobRuntime::remainingAt
};

class SrtfTree {
public:
    void reset(size_t jobs, size_t types);
    bool empty() const { return m_count == 0; }
    int size() const { return m_count; }
    bool contains(int job) const { return m_node[size_t(job)] >= 0; }
    void insert(int job, double u, const int64_t* use, const SrtfLine& line);
    void erase(int job);
    // Nodes: what the queries below return. A node stays with its job while the job is here.
    int nodeOf(int job) const { return m_node[size_t(job)]; }
    int jobAt(int n) const { return m_slotJob[size_t(n)]; }
    double uAt(int n) const { return m_slotU[size_t(n)]; }
    const SrtfLine& lineAt(int n) const { return m_slotLine[size_t(n)]; }
    SrtfLine& lineAt(int n) { return m_slotLine[size_t(n)]; }
    const int64_t* useAt(int n) const { return &m_slotUse[size_t(n) * m_types]; }
    /// Whether every budget is >= 0 (then a holding in one type fits when that type's budget holds it).
    bool noneNegative(const int64_t* bud) const { return holdingNoneNegative(bud, m_types); }
    /// Takes what node n's job holds from `bud` when it fits, type by type; `sole`: noneNegative(bud), when a
    /// holding in one type (most: a job's GPUs are of one type) is read from its one entry.
    bool takeIfFits(int n, int64_t* bud, bool sole) const
    {
        const Sole& o = m_slotSole[size_t(n)];
        if (sole && o.type >= 0) {
            if (o.amount > bud[o.type])
                return false;
            bud[o.type] -= o.amount;
            return true;
        }
        return holdingTakeIfFits(useAt(n), bud, m_types);
    }
    /// The node with the largest (u, job); only when not empty.
    int maxNode() const;
    /// Adds to `out` what the jobs with lo <= u < hi hold.
    void sum(double lo, double hi, int64_t* out) const;
    /// Appends the nodes with lo <= u < hi, in order.
    void collect(double lo, double hi, std::vector<int>& out) const;
    /// Walks the jobs with lo <= u < hi in order, subtracting from `bud` each whose holding fits: returns the
    /// node of the first that does not fit (every job before it subtracted), or -1 when all fit.
    int greedy(double lo, double hi, int64_t* bud) const
    {
        if (!(lo < hi))
            return -1;
        return walk(lo, lo, hi, hi, bud, noneNegative(bud), [](int, int64_t*) { return 0; });
    }
    /// One pass over the jobs with a <= u < d in order: those with b <= u < c (a <= b <= c <= d) are kept while
    /// they fit, as greedy() does, stretches of them at once; each other one is handed to `near(node, bud)`,
    /// which returns 0 (not counted), 1 (kept: it subtracted its holding) or 2 (does not fit). Returns the node
    /// of the first that does not fit, or -1. `sole`: noneNegative(bud) (takeIfFits).
    template <class Near> int walk(double a, double b, double c, double d, int64_t* bud, bool sole, Near&& near) const;
    /// Every node in order (replacing what `out` held).
    void nodes(std::vector<int>& out) const;
    /// Gives every job here a new estimate: `order` holds every node with its job and new u, sorted by
    /// (u, job). O(n).
    struct Entry {
        double u;
        int job, node;
        bool operator<(const Entry& o) const { return u < o.u || (u == o.u && job < o.job); }
    };
    void rebuild(const std::vector<Entry>& order);
    /// Sorts by (u, job): one counting pass into at most the least power of two >= n buckets (256 to 65,536) by the
    /// bits of u, each bucket then sorted, where every u is a number >= 0 (a renewal's estimates), else a
    /// comparison sort. `tmp`, `counts`: scratch (`v`
    /// and `tmp` may trade storage).
    static void sortEntries(std::vector<Entry>& v, std::vector<Entry>& tmp, std::vector<size_t>& counts);
    /// Leaves in the order now (tests: rebuild lays out ceil(n / kFill)).
    int leaves() const { return int(m_order.size()); }
    /// Empty when every leaf, prefix sum, group sum and last key agrees with the entries; else what does not (tests).
    std::string checkLayout() const;

    static constexpr int kLeaf = 32;  // entries a leaf holds at most
    static constexpr int kFill = 24;  // entries per leaf after a rebuild
    static constexpr int kGroup = 8;  // leaves per group sum

private:
    struct Leaf {
        int n = 0;
        double u[kLeaf];
        int job[kLeaf];
        int slot[kLeaf];
    };
    size_t m_types = 0;
    int m_count = 0;
    // per slot
    std::vector<double> m_slotU;
    std::vector<int> m_slotJob;
    std::vector<SrtfLine> m_slotLine;
    std::vector<int64_t> m_slotUse; // slot * types
    struct Sole {
        int64_t amount = 0;
        int type = -1; // the one type the holding is in (0 when it is in none), -1 when in several
    };
    std::vector<Sole> m_slotSole;
    std::vector<int> m_freeSlots;
    std::vector<int> m_node; // per job: its slot, -1 = not here
    // leaves: storage by id, prefix sums by id ((kLeaf + 1) rows of `types`: row k = what entries [0, k) hold)
    std::vector<Leaf> m_leaf;
    std::vector<int64_t> m_pre;
    std::vector<int> m_freeLeaves;
    // the order: leaf ids, and at the same places each leaf's last key; group sums by place / kGroup
    std::vector<int> m_order;
    std::vector<double> m_lastU;
    std::vector<int> m_lastJob;
    std::vector<int64_t> m_group;

    int64_t* preOf(int leaf, int row) { return &m_pre[(size_t(leaf) * (kLeaf + 1) + size_t(row)) * m_types]; }
    const int64_t* preOf(int leaf, int row) const { return &m_pre[(size_t(leaf) * (kLeaf + 1) + size_t(row)) * m_types]; }
    const int64_t* groupOf(size_t g) const { return &m_group[g * m_types]; }
    bool fits(const int64_t* v, const int64_t* bud) const { return holdingFits(v, bud, m_types); }
    void take(const int64_t* v, int64_t* bud) const { holdingTake(v, bud, m_types); }
    /// Whether pre[hi] - pre[lo] of a leaf fits in `bud`; taken when it does.
    bool takeSpan(int leaf, int lo, int hi, int64_t* bud) const;
    /// The first place whose leaf's last u is >= x (leaves() when none), searching [from, leaves()).
    size_t placeAtLeast(double x, size_t from = 0) const;
    /// The first entry with u >= x: its place (leaves() when none) and index in the leaf. A decision's walks ask
    /// for rising x, so the search goes on from the last answer while nothing changed (m_version).
    void seek(double x, size_t& place, int& index) const;
    uint64_t m_version = 0; // bumped by every change of the entries
    struct Cursor {
        uint64_t version = ~uint64_t(0);
        double x = 0;
        size_t place = 0;
        int index = 0;
    };
    mutable Cursor m_cursor;
    /// The first place whose leaf's last (u, job) is >= (u, job), or the last place.
    size_t placeOf(double u, int job) const;
    static int indexAtLeast(const Leaf& f, int from, double x);
    /// How many entries of a leaf are below (u, job).
    static int indexBefore(const Leaf& f, double u, int job);
    int newLeaf();
    void remakePrefix(int leaf, int from);
    /// Adds sign x a holding to rows [from, to) of a leaf's prefix sums (its one type's column when in one).
    void addToRows(int64_t* rows, int from, int to, const Sole& sole, const int64_t* use, int64_t sign) const;
    void remakeGroups();
    void splitAt(size_t place);
    void dropAt(size_t place);
};

template <class Near> int SrtfTree::walk(double a, double b, double c, double d, int64_t* bud, bool sole, Near&& near) const
{
    size_t p;
    int i;
    seek(a, p, i);
    const size_t places = m_order.size();
    if (p >= places)
        return -1;
    while (p < places) {
        const int id = m_order[p];
        const Leaf& f = m_leaf[size_t(id)];
        if (i == 0 && f.u[0] >= b) {
            // whole groups, then whole leaves, inside [b, c): by their sums
            if (p % kGroup == 0) {
                const size_t e = std::min(p + kGroup, places);
                if (m_lastU[e - 1] < c && fits(groupOf(p / kGroup), bud)) {
                    take(groupOf(p / kGroup), bud);
                    p = e;
                    continue;
                }
            }
            if (m_lastU[p] < c && takeSpan(id, 0, f.n, bud)) {
                ++p;
                continue;
            }
        }
        for (; i < f.n; ++i) {
            const double u = f.u[i];
            if (!(u < d))
                return -1;
            if (b <= u && u < c) {
                // the run of this leaf inside [b, c) at once when it fits, else job by job to the one that does not
                const int k = indexAtLeast(f, i + 1, c);
                if (takeSpan(id, i, k, bud)) {
                    i = k - 1;
                    continue;
                }
                for (;; ++i)
                    if (!takeIfFits(f.slot[i], bud, sole))
                        return f.slot[i];
            }
            if (near(f.slot[i], bud) == 2)
                return f.slot[i];
        }
        ++p;
        i = 0;
    }
    return -1;
}

} // namespace ss
