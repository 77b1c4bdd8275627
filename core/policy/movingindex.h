#pragma once
// Running jobs ordered by a priority key that moves with time (SRTF: the work left falls at each job's own
// rate), with what they hold per GPU type summed over every subtree, as RunIndex does for fixed keys.
//
// A kinetic sorted list: positions are never stored, they are read through a callback at the current time,
// so the tree is searched with the very values a plain sort would compare. Each job carries a certificate
// for the pair it forms with its successor: the earliest time the two may come within a rounding margin of
// swapping (another callback, from their work lines). At a decision, `restore(now)` checks the certificates
// that are due with the exact positions and swaps the pairs that crossed (bubble steps), so the order is the
// exact sorted order again before anything reads it; a pair that stays within the margin without crossing
// (two jobs with the same line) is checked again at every decision. Between decisions nothing is compared:
// jobs leave by their node (parent links), never by a search.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "policy/runindex.h"

namespace ss {

class MovingIndex {
public:
    using Key = std::array<double, 5>;
    struct Pos {
        Key key;
        int job;
        bool operator<(const Pos& o) const { return keyJobLess(key, job, o.key, o.job); }
    };
    /// The position of a job in the index at the time of the current decision.
    using PosFn = std::function<Pos(int job)>;
    /// The earliest time >= now at which job a, now before b, may be found at or after b (+inf: never).
    using DueFn = std::function<double(int a, int b, double now)>;

    void reset(size_t jobs, size_t types, PosFn pos, DueFn due);
    /// Becomes a copy of `from` whose callbacks are `pos` and `due` (they describe the copy's owner: Scheduler::clone).
    void clone(const MovingIndex& from, PosFn pos, DueFn due)
    {
        *this = from;
        m_pos = std::move(pos);
        m_due = std::move(due);
    }
    bool empty() const { return m_root < 0; }
    int size() const { return m_count; }
    bool contains(int job) const { return m_node[size_t(job)] >= 0; }

    /// Brings the order up to date at `now` (only call when every job's callbacks describe it as of now).
    void restore(double now);
    /// Inserts at its position now (the order must be up to date).
    void insert(int job, const int64_t* use, double now);
    /// Removes at any time; the neighbours' certificate is recomputed at the next restore().
    void erase(int job);
    /// The largest position now; only when not empty.
    Pos last() const;
    /// As RunIndex::firstNotFitting, positions read now.
    int firstNotFitting(const Pos* from, const Pos* to, int64_t* bud) const;
    /// Every job in order (tests).
    std::vector<int> inOrder() const;
    /// Certificates checked and swaps made by restore() so far (tests, tuning).
    uint64_t checks() const { return m_checks; }
    uint64_t swaps() const { return m_swaps; }

private:
    struct Node {
        int job = -1;
        uint32_t prio = 0;
        int left = -1, right = -1, parent = -1;
    };
    size_t m_types = 0;
    int m_root = -1;
    int m_count = 0;
    uint64_t m_rand = 0x9E3779B97F4A7C15ULL;
    PosFn m_pos;
    DueFn m_due;
    std::vector<Node> m_nodes;
    std::vector<int64_t> m_use, m_sum;
    std::vector<int> m_free;
    std::vector<int> m_node;                  // per job: its node, -1 = not here
    std::vector<double> m_certAt; // per job: due time of its certificate, NaN = none
    std::vector<uint32_t> m_stamp; // per job: bumped when its certificate changes (older heap entries are stale)
    struct Cert {
        double at;
        int job;
        uint32_t stamp;
        bool operator>(const Cert& o) const { return at != o.at ? at > o.at : job > o.job; }
    };
    std::vector<Cert> m_certs; // min-heap on (at, job), stale entries skipped
    bool certTop(double now, int& job);
    std::vector<int> m_dirty;                 // jobs whose certificate is recomputed at the next restore()
    std::vector<int> m_hot;
    uint64_t m_checks = 0, m_swaps = 0;

    int64_t* sum(int n) { return &m_sum[size_t(n) * m_types]; }
    const int64_t* sum(int n) const { return &m_sum[size_t(n) * m_types]; }
    const int64_t* use(int n) const { return &m_use[size_t(n) * m_types]; }
    Pos posOf(int n) const { return m_pos(m_nodes[size_t(n)].job); }
    void pull(int n);
    void pullUp(int n);
    void setLeft(int p, int c);
    void setRight(int p, int c);
    int mergeNodes(int a, int b);
    int next(int n) const;
    int prev(int n) const;
    bool fits(const int64_t* v, const int64_t* bud) const;
    int descend(int t, int64_t* bud) const;
    int scan(int t, const Pos* from, const Pos* to, int64_t* bud) const;
    void certClear(int job);
    void certSet(int job, double now);
};

} // namespace ss
