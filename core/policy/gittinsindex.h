#pragma once
// 2D-Gittins's running jobs, for the Tiresias walk, without sorting them at every decision.
//
// A running job's key is (queue, -index(attained service now), -submit, zone, seq). The index is evaluated at
// the exact attained service, and over the trace's own job sizes it has a piece per sample (and per sample -
// delta), with a jump at each: the order of the running jobs by index changes at almost every decision (tens
// of thousands of pairs swap between two walks of a 20k-job run), so no sorted order is kept. Instead each
// running job carries a certificate: a lower bound L of its index valid until a given time, the minimum of
// the index over the pieces its attained service goes through until then (within a piece the index rises, so
// a piece's minimum is at its start; GittinsTable::pieceStarts). A job whose L is above a threshold is ahead
// of every waiting job of its queue with an index at or below that threshold, whatever its exact index.
//
// The walk asks for stretches of running jobs between two positions (RunIndex::firstNotFitting). Per queue,
// the jobs whose L is at or below the index of the position asked about are evaluated exactly (keys as the
// scheduler computes them) and sorted, once per decision and only as far as asked; every other job of the
// queue is ahead of the position, and is taken by the queue's summed holding when that fits. A stretch that
// does not fit evaluates more, lowest bounds first (the jobs that do not fit are near its end), down to the
// whole queue. Waiting jobs of the last queue mostly have a low index (former victims), so the jobs evaluated
// are those whose index is near theirs: a few hundred per contended decision at 100k jobs, which is what is left
// (bounds from above would spare the ones certainly behind). Certificates are renewed when they expire, at the
// next decision.
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
    /// At the start of a decision (before any query): renews the certificates that expired by `now`.
    /// `level[q]`: the highest index among the waiting jobs of queue q (or a recent one): certificates are made
    /// to stay above it.
    void sync(double now, const std::vector<double>& level);
    void insert(int job, int queue, double now);
    void erase(int job);
    void setQueue(int job, int queue);
    bool contains(int job) const { return m_queue[size_t(job)] >= 0; }
    bool empty() const { return m_count == 0; }
    /// The largest position now; only when not empty.
    Pos last();
    /// As RunIndex::firstNotFitting, positions read now.
    int firstNotFitting(const Pos* from, const Pos* to, int64_t* bud);
    Key keyNow(int job) const { return m_key(job); }
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
    double m_now = 0;
    uint64_t m_evals = 0, m_certs = 0;

    // piece starts of the index and a lower bound of it from each to the next, with a range minimum
    std::vector<double> m_at, m_low;
    std::vector<double> m_blockMin; // sparse table over blocks of kBlock entries: level * blocks + block
    size_t m_blocks = 0;
    static constexpr size_t kBlock = 32;
    double rangeMin(size_t i, size_t j) const; // min of m_low[i..j), +inf when empty

    std::vector<int> m_queue;      // per job: its queue, -1 = not running here
    std::vector<double> m_lower;   // per job: certified lower bound of its index
    std::vector<uint32_t> m_stamp; // per job: bumped when its certificate changes (stale heap entries)
    struct Expiry {
        double at;
        int job;
        uint32_t stamp;
        bool operator>(const Expiry& o) const { return at != o.at ? at > o.at : job > o.job; }
    };
    std::vector<Expiry> m_expiry; // min-heap
    std::vector<int> m_renew;
    std::vector<double> m_level;
    std::vector<std::set<std::pair<double, int>>> m_byLower; // per queue: (lower bound, job)
    std::vector<int64_t> m_total;                            // per queue and type: summed holding
    std::vector<int> m_inQueue;                              // per queue: running jobs
    void certify(int job, double now);

    // per decision: the jobs of each queue evaluated exactly, sorted, and the bound up to which they are
    struct Evaluated {
        std::vector<Pos> pos;
        double upTo = -1;
        std::set<std::pair<double, int>>::const_iterator next;
        bool valid = false;
    };
    std::vector<Evaluated> m_eval;
    std::vector<Pos> m_scratch;
    void invalidate(int queue);
    /// Evaluates every job of the queue whose bound is at or below `index`, and `more` beyond.
    Evaluated& ensure(int queue, double index, size_t more = 0);
    bool fits(const int64_t* v, const int64_t* bud) const;
    int walk(const Evaluated& e, const Pos* from, const Pos* to, int64_t* bud, size_t start = 0) const;
};

} // namespace ss
