#pragma once
// 2D-LAS's running jobs ordered by their fixed priority key, with what they hold per GPU type summed over
// stretches. The Tiresias walk keeps a running job when what it holds still fits in what is left of the
// cluster; over a stretch of running jobs that all fit, that is one subtraction of the stretch's sum, so a
// decision costs O((admissions + preemptions + 1) log running) instead of a step per running job.
#include <array>
#include <cstddef>
#include <cstdint>
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
    bool empty() const { return m_count == 0; }
    int size() const { return m_count; }
    /// Keys hold no NaN (std::invalid_argument).
    void insert(int job, const Key& key, const int64_t* use);
    void erase(int job);
    /// Gives a job a new key that keeps its place in the order (between the same neighbours): the order is not
    /// searched again. The caller vouches for the place (the LAS re-keying of the jobs demoted at a decision,
    /// which keep their order; tst_scale checks it against the order of the new keys). A key of another
    /// (queue, zone) moves the job to that group, searched.
    void replaceKey(int job, const Key& key);
    bool contains(int job) const { return m_where[size_t(job)].g >= 0; }
    const Key& keyOf(int job) const
    {
        const Where& w = m_where[size_t(job)];
        return m_groups[size_t(w.g)].pos[size_t(w.i)].key;
    }
    /// The largest position; only when not empty.
    const Pos& last() const;
    /// Walks the jobs after `from` (all when `from` is null) and before `to` (to the end when null) in order,
    /// keeping each whose holding fits in `bud` (subtracting it): returns the first that does not fit, with
    /// every job before it subtracted, or -1 when all fit (all subtracted).
    int firstNotFitting(const Pos* from, const Pos* to, int64_t* bud) const;
    /// Every job in order (tests).
    std::vector<int> inOrder() const;
    /// Whether the positions are strictly increasing, each job where its entry says and each group's total what
    /// its jobs hold (invariant checks after every decision: replaceKey misused); `deep`: every node's sum too.
    bool ordered(bool deep = false) const;

private:
    // Holdings in thousandths of a GPU, summed in 32 bits (insert refuses more than 2,147,483 GPUs of a type in a
    // group), so a node of five types and its count takes 32 bytes.
    using Lane = int32_t;
    // The jobs of one (queue, zone), the key's first two parts, in order: a job that starts is put after
    // every job there (2D-LAS's sequence numbers only grow), one that leaves leaves a hole (its leaf all zero,
    // count included), and what the
    // places hold is summed in a segment tree over them (node k covers 2k and 2k + 1; the places are the
    // leaves, from `cap`), so a stretch is taken by O(log) sums. Holes at the end are given back at once; the
    // group is laid out anew, without holes, when its places run out (or for a job put elsewhere than the end).
    struct Group {
        double k0 = 0, k1 = 0;
        std::vector<Pos> pos;      // per place: its position (a hole keeps the one it had)
        std::vector<double> k2;    // per place: its key's third part (the searches' first step)
        std::vector<Lane> sum;     // per node of the segment tree (1 .. 2 cap - 1), from `base`: what its jobs hold per type, then how many
        size_t base = 0;
        size_t cap = 0;            // places (a power of two)
        size_t n = 0;              // places in use: [0, n), the last one held
    };
    struct Where {
        int g = -1; // group (index into m_groups), -1 = not here
        int i = -1; // place
    };
    size_t m_types = 0;
    size_t m_stride = 1; // lanes per node: types + 1, to a power of two
    int m_count = 0;
    std::vector<Group> m_groups; // by creation
    std::vector<int> m_order;    // the groups by (k0, k1)
    std::vector<Where> m_where;  // per job
    std::vector<int64_t> m_tmp;
    std::vector<Pos> m_tmpPos;
    std::vector<int64_t> m_moving;

    int groupFor(const Key& key); // found or made
    static int cmpGroup(const Group& g, const Key& key); // <0, 0, >0: g's (k0, k1) against the key's
    Lane* node(Group& g, size_t k) { return &g.sum[g.base + k * m_stride]; }
    const Lane* node(const Group& g, size_t k) const { return &g.sum[g.base + k * m_stride]; }
    /// Whether a place holds a job (its leaf's count; a hole's leaf is all zero).
    bool held(const Group& g, size_t place) const { return node(g, g.cap + place)[m_types] != 0; }
    /// Adds what a place holds (`types` values) and the place's count, times `sign`, up its path.
    void addPath(Group& g, size_t place, const int64_t* use, int64_t sign);
    /// Lays the group out anew with its live jobs and, when `extra` is given, that job in its place.
    void relayout(int gi, const Pos* extra, const int64_t* extraUse);
    int descend(const Group& g, size_t lo, size_t hi, int64_t* bud) const;
    /// The first place of the group whose position is after `p` (orEqual) or not before it (!orEqual); p is of
    /// the group's (queue, zone).
    static size_t placeAfter(const Group& g, const Pos& p, bool orEqual);
};

} // namespace ss
