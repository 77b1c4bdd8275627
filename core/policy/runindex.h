#pragma once
// Running jobs ordered by a fixed priority key, with what they hold per GPU type summed over every subtree
// (a treap). The Tiresias walk keeps a running job when what it holds still fits in what is left of the
// cluster; over a stretch of running jobs that all fit, that is one subtraction of the stretch's sum, so a
// decision costs O((admissions + preemptions + 1) log running) instead of a step per running job.
#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace ss {

/// (a, ja) < (b, jb) with a and b compared as std::array's operator< does (lexicographic by <, also where a
/// value is NaN) and the jobs breaking ties between equal keys, in one pass over the keys.
template <size_t N> inline bool keyJobLess(const std::array<double, N>& a, int ja, const std::array<double, N>& b, int jb)
{
    for (size_t i = 0; i < N; ++i) {
        if (a[i] < b[i])
            return true;
        if (b[i] < a[i])
            return false;
    }
    for (size_t i = 0; i < N; ++i)
        if (!(a[i] == b[i]))
            return false; // equivalent but not equal (a NaN): the keys decide, as false
    return ja < jb;
}

class RunIndex {
public:
    using Key = std::array<double, 5>;
    /// A position in the order: (key, job); jobs break ties.
    struct Pos {
        Key key;
        int job;
        bool operator<(const Pos& o) const { return keyJobLess(key, job, o.key, o.job); }
    };

    void reset(size_t jobs, size_t types);
    bool empty() const { return m_root < 0; }
    int size() const { return m_count; }
    void insert(int job, const Key& key, const int64_t* use);
    void erase(int job);
    /// Gives a job a new key that keeps its place in the order (between the same neighbours): O(1), the
    /// tree is untouched. The caller vouches for the place (the LAS re-keying of the jobs demoted at a
    /// decision, which keep their order; tst_scale checks it against the order of the new keys).
    void replaceKey(int job, const Key& key) { node(m_node[size_t(job)]).pos.key = key; }
    bool contains(int job) const { return m_node[size_t(job)] >= 0; }
    const Key& keyOf(int job) const { return node(m_node[size_t(job)]).pos.key; }
    /// The largest position; only when not empty.
    const Pos& last() const;
    /// Walks the jobs after `from` (all when `from` is null) and before `to` (to the end when null) in order,
    /// keeping each whose holding fits in `bud` (subtracting it): returns the first that does not fit, with
    /// every job before it subtracted, or -1 when all fit (all subtracted).
    int firstNotFitting(const Pos* from, const Pos* to, int64_t* bud) const;
    /// Every job in order (tests).
    std::vector<int> inOrder() const;
    /// Whether the positions are strictly increasing in tree order (invariant checks: replaceKey misused).
    bool ordered() const;

private:
    struct Node {
        Pos pos;
        uint32_t prio;
        int left = -1, right = -1;
        int parent = -1; // -1 at the root
    };
    // One record per node, on whole cache lines: the node, then what its subtree holds (sum), then what its job
    // holds (use), per type; a walk down the tree reads the node and its sums from neighbouring lines. Holdings
    // are stored as 32-bit thousandths of a GPU (what runs of one type is at most the cluster's GPUs of the
    // type: insert refuses more than 2,147,483 GPUs), so a record of five types takes two lines, not three.
    using Lane = int32_t;
    struct alignas(64) Line {
        unsigned char b[64];
    };
    static constexpr size_t kNodeBytes = (sizeof(Node) + alignof(Lane) - 1) / alignof(Lane) * alignof(Lane);
    size_t m_types = 0;
    std::vector<int64_t> m_total; // per type: what all running jobs here hold (the bound of every sum)
    size_t m_lines = 1;  // lines per record
    int m_root = -1;
    int m_count = 0;
    int m_records = 0;
    mutable int m_lastNode = -1; // the largest position's node; -1 = not known (found again by last())
    uint64_t m_rand = 0x9E3779B97F4A7C15ULL;
    std::vector<Line> m_store;
    std::vector<int> m_free;     // unused nodes
    std::vector<int> m_node;     // per job: its node, -1 = not running here
    std::vector<int> m_path;     // scratch: ancestors of the node inserted or erased
    void addToPath(int64_t sign, int n);

    unsigned char* words(int n) { return m_store[size_t(n) * m_lines].b; }
    const unsigned char* words(int n) const { return m_store[size_t(n) * m_lines].b; }
    Node& node(int n) { return *std::launder(reinterpret_cast<Node*>(words(n))); }
    const Node& node(int n) const { return *std::launder(reinterpret_cast<const Node*>(words(n))); }
    Lane* sum(int n) { return reinterpret_cast<Lane*>(words(n) + kNodeBytes); }
    const Lane* sum(int n) const { return reinterpret_cast<const Lane*>(words(n) + kNodeBytes); }
    Lane* use(int n) { return sum(n) + m_types; }
    const Lane* use(int n) const { return sum(n) + m_types; }
    void pull(int n);
    void setParent(int child, int parent)
    {
        if (child >= 0)
            node(child).parent = parent;
    }
    // A descent reads a node's first line (its position and links) and then goes on to one child; the sums
    // are updated on the way back. Fetching the record's other lines and both children's first lines ahead
    // overlaps those misses with the descent's chain of dependent loads.
    void prefetchRest(int n) const
    {
        for (size_t l = 1; l < m_lines; ++l)
            __builtin_prefetch(&m_store[size_t(n) * m_lines + l]);
    }
    void prefetchChildren(const Node& x) const
    {
        if (x.left >= 0)
            __builtin_prefetch(words(x.left));
        if (x.right >= 0)
            __builtin_prefetch(words(x.right));
    }
    /// (< p | >= p) when `orEqual` is false, (<= p | > p) when true.
    void split(int t, const Pos& p, bool orEqual, int& l, int& r);
    int merge(int a, int b);
    bool fits(const Lane* v, const int64_t* bud) const;
    int descend(int t, int64_t* bud) const;
    int scan(int t, const Pos* from, const Pos* to, int64_t* bud) const;
};

} // namespace ss
