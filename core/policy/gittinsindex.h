#pragma once
// 2D-Gittins's running jobs, for the Tiresias walk, without sorting them at every decision.
//
// A running job's key is (queue, -index(attained service now), -submit, zone, seq). The index is evaluated at
// the exact attained service, and over the trace's own job sizes it has a piece per sample (and per sample -
// delta), with a jump at each: the order of the running jobs by index changes at almost every decision (tens
// of thousands of pairs swap between two walks of a 20k-job run), so no sorted order is kept. Instead each
// running job carries a certificate: bounds L <= index <= U valid until a given time, the minimum and maximum
// of the index over the pieces its attained service goes through until then (within a piece the index rises,
// so a piece's minimum is at its start and its supremum at its end; GittinsTable::pieceStarts).
//
// The walk compares running jobs with waiting ones, whose index is fixed while they wait. So a certificate lasts
// while the index stays in a band around its value now that keeps clear of the waiting jobs' indices of its queue
// (those not within a few per cent of it): a job is then certainly ahead of or behind most waiting jobs. Per queue
// the jobs sit in a treap by L that sums what they hold per GPU type and keeps the least and greatest U of each
// subtree, so the walk's questions cost a logarithm plus the jobs whose certificate straddles the index asked
// about (evaluated exactly, once per decision):
// - the running jobs between two positions: those certainly between (by L and U) summed, the straddling ones
//   checked one by one;
// - when they do not all fit: the stretch's lowest jobs in exact order, evaluated from the lowest L up until
//   they hold the shortfall (every job above them then fits), and walked one by one; the walk's next question,
//   from the job that did not fit, goes on through them;
// - whether any running job is behind a position (the walk's shortcut): the least U, then the straddling ones.
// Expired certificates are renewed at the first question of a decision (a run whose queues stay empty asks none).
// A waiting job that appears later inside a certificate leaves it valid; a job found straddling a waiting index
// far from its own gets a new certificate at the next decision.
//
// Measured (bench, alibaba-scale, idle machine): 30k jobs 16.0 -> 6.2 s, 100k jobs 80.5 -> 47.6 s against the
// lower-bound-only certificates before, the same decisions. Per contended decision at 100k, still tens of
// certificates and a few hundred exact evaluations (most in the lowest-jobs search): the order of the ~4,000
// running indices churns where preemptions happen, so 2D-Gittins is far from 10 s at 1M jobs (issue 20).
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <utility>
#include <vector>

#include "policy/runindex.h"

namespace ss {

class GittinsTable;

class GittinsRunIndex {
public:
    using Key = RunIndex::Key;
    using Pos = RunIndex::Pos;
    /// The scheduler's key of a running job now.
    using KeyFn = std::function<Key(int job)>;
    /// Attained service now (GPU-seconds, as the index is evaluated) and its growth per second while running.
    using ServiceFn = std::function<std::pair<double, double>(int job)>;

    /// `use`: what each running job holds per type (job * types + type), read when a job is inserted.
    void reset(const GittinsTable& table, size_t jobs, size_t types, size_t queues, const std::vector<int64_t>* use);
    /// How keys, service and holdings are read: bound by the scheduler at each decision, before anything else
    /// here (so a copy of the scheduler reads its own state).
    void bind(KeyFn key, ServiceFn service, const GittinsTable& table, const std::vector<int64_t>* use)
    {
        m_key = std::move(key);
        m_service = std::move(service);
        m_table = &table;
        m_use = use;
    }
    /// The index of a waiting job of a queue, while it waits (certificates are made around these values).
    void addWaiting(int queue, double index) { m_waiting[size_t(queue)].insert(index); }
    void removeWaiting(int queue, double index);
    /// At the start of a decision (before any query): the certificates that expired by `now` are renewed before
    /// the first query.
    void sync(double now);
    void insert(int job, int queue, double now);
    void erase(int job);
    void setQueue(int job, int queue);
    bool contains(int job) const { return m_queue[size_t(job)] >= 0; }
    bool empty() const { return m_count == 0; }
    /// The largest position now; only when not empty (tests: the walk asks anyAfter).
    Pos last();
    /// Whether a running job is now at a position after `p` (the same as `p < last()`).
    bool anyAfter(const Pos& p);
    /// As RunIndex::firstNotFitting, positions read now.
    int firstNotFitting(const Pos* from, const Pos* to, int64_t* bud);
    Key keyNow(int job) { return exact(job).key; }
    /// Jobs evaluated exactly and certificates made so far (tests, tuning).
    uint64_t evaluations() const { return m_evals; }
    uint64_t certificates() const { return m_certs; }

private:
    const GittinsTable* m_table = nullptr;
    size_t m_types = 0;
    KeyFn m_key;
    ServiceFn m_service;
    const std::vector<int64_t>* m_use = nullptr;
    int m_count = 0;
    uint64_t m_evals = 0, m_certs = 0;

    // piece starts of the index, bounds of it from each to the next, with range minimum / maximum
    std::vector<double> m_at, m_low, m_high;
    std::vector<double> m_blockMin, m_blockMax; // sparse tables over blocks of kBlock entries: level * blocks + block
    size_t m_blocks = 0;
    static constexpr size_t kBlock = 32;
    double rangeMin(size_t i, size_t j) const; // min of m_low[i..j), +inf when empty
    double rangeMax(size_t i, size_t j) const; // max of m_high[i..j), -inf when empty

    std::vector<std::multiset<double>> m_waiting; // per queue: the indices of its waiting jobs
    std::vector<int> m_queue;                     // per job: its queue, -1 = not running here
    std::vector<double> m_lo, m_hi;               // per job: its certificate's bounds
    std::vector<uint32_t> m_stamp;                // per job: bumped when its certificate changes (stale heap entries)
    struct Expiry {
        double at;
        int job;
        uint32_t stamp;
        bool operator>(const Expiry& o) const { return at != o.at ? at > o.at : job > o.job; }
    };
    std::vector<Expiry> m_expiry; // min-heap
    std::vector<int> m_renew;      // to renew at the next decision (besides the expired ones)
    std::vector<char> m_recert;    // per job: on m_renew
    void recheck(const std::vector<int>& jobs);
    void certify(int job, double now);
    double m_now = 0;
    bool m_fresh = true; // the certificates due at this decision are renewed
    void refresh();

    // per queue a treap of its jobs by (L, job); node = job
    std::vector<int> m_root;
    std::vector<int> m_left, m_right;
    std::vector<uint32_t> m_prio;
    std::vector<double> m_minHi, m_maxHi; // per subtree: least and greatest U
    std::vector<int64_t> m_sum;           // per subtree and type: what its jobs hold
    std::vector<int64_t> m_zero;          // (an empty subtree's)
    uint64_t m_rand = 0x2545F4914F6CDD1DULL;
    bool before(int a, int b) const { return m_lo[size_t(a)] < m_lo[size_t(b)] || (m_lo[size_t(a)] == m_lo[size_t(b)] && a < b); }
    void pull(int n);
    int rotateUp(int t, bool leftChild); // the child becomes the subtree's root
    int insertAt(int t, int job);
    int eraseAt(int t, int job);
    void treeInsert(int q, int job);
    void treeErase(int q, int job);
    /// Adds to `out` what the jobs with L > x hold.
    void sumAbove(int q, double x, int64_t* out) const;
    /// The jobs with L <= x <= U.
    void straddling(int q, double x, std::vector<int>& out) const;
    void straddleFrom(int t, double x, std::vector<int>& out) const;
    /// The first job after (L, after) by (L, job), -1 = none.
    int nextByLo(int q, double lo, int after) const;

    // exact positions, evaluated once per decision
    uint32_t m_decision = 0;
    std::vector<uint32_t> m_evalAt;
    std::vector<Pos> m_pos;
    const Pos& exact(int job);
    std::vector<int> m_strA, m_strB, m_mark;
    std::vector<Pos> m_bottom;
    // where the last firstNotFitting stopped inside m_bottom, to go on from there at the next call (the walk asks
    // again from the job it returned, up to the same position)
    uint64_t m_version = 0; // bumped by every change of the jobs or of the decision
    struct Continuation {
        bool valid = false;
        uint64_t version = 0;
        int job = -1;
        Pos to {};
        bool hasTo = false;
        int queue = 0;
        size_t next = 0;
    } m_cont;
    std::vector<int64_t> m_acc, m_need, m_held;
    const int64_t* useOf(int job) const { return &(*m_use)[size_t(job) * m_types]; }
};

} // namespace ss
