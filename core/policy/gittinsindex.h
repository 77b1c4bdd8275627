#pragma once
// 2D-Gittins's running jobs, for the Tiresias walk, without sorting them at every decision.
//
// A running job's key is (queue, -index(attained service now), -submit, zone, seq). The index is evaluated at
// the exact attained service, and over the trace's own job sizes it has a piece per sample (and per sample -
// delta), with a jump at each: the order of the running jobs by index changes at almost every decision, so no
// sorted order of all of them is kept. What the walk needs is narrower. Under load the waiting jobs of a queue sit
// just below a boundary level, the running jobs near it preempt and are preempted, and the walk's questions (the
// running jobs between two positions; whether any runs behind a position; the lowest jobs of a stretch that does
// not fit) are asked at levels near that boundary, now and then at a level far above it (a job that was preempted
// for lack of room on one GPU type while far from the boundary). So per queue the running jobs are in one of two
// sets around a level theta that follows the levels where the walk needed the running jobs in exact order:
// - the zone: jobs whose index may be at most about theta, evaluated exactly at every decision that asks about
//   the queue and kept sorted (tens of jobs);
// - above: jobs certified to have an index above theta until a given time, and to stay within a band of three
//   cells of a fixed geometric grid (8 cells per octave). They sit in their middle cell, with what the cells hold
//   summed per GPU type in a Fenwick tree; a question at a level above theta evaluates the three cells whose bands
//   hold it, and sums the cells certainly above or below it.
// A certificate is made from the index's bounds over each piece of attained service (GittinsTable::pieceStarts;
// within a piece the index rises, so a piece's minimum is at its start and its supremum at its end): it lasts
// until the attained service reaches the first piece whose bounds leave the band. Certificates that expire are
// renewed at the first question about their queue (a queue asked nothing, as the first queues are under load,
// renews none). theta follows the lowest jobs a stretch that did not fit needed and the positions asked whether
// anything runs behind; the bounds of a stretch that is only summed do not move it (the cells around such a bound
// answer it). It rises at once to just above a level the last decision needed, step by step after levels far
// above it in each of the last four decisions, and falls when the last two decisions' levels stay well below it;
// jobs cross between the sets with some hysteresis.
//
// The walk's answers are exactly those of a sort of all running jobs by their keys now (tests/core/tst_scale's
// oracle). Attained service is computed from the job's record here as PreemptiveScheduler::lasAttained computes it
// (same expression, same operands), so the keys are bit for bit the scheduler's.
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "policy/quadheap.h"
#include "policy/runindex.h"

namespace ss {

class GittinsTable;

/// First position of `v` (sorted) holding a value > x, searching from `from`: galloping forward, or a plain search
/// back when x went back (attained service reset by a promotion).
size_t gallopUpperBound(const std::vector<double>& v, double x, size_t from);

class GittinsRunIndex {
public:
    using Key = RunIndex::Key;
    using Pos = RunIndex::Pos;
    /// What a running job's attained service and key are made of, fixed while it runs: attained service at time
    /// t is gpus * ((executed + max(0, t - lastStart)) - exec0) (PreemptiveScheduler::lasAttained).
    struct Service {
        double gpus = 1;
        double executed = 0;
        double lastStart = 0;
        double exec0 = 0;
        double submit = 0;
    };

    /// `use`: what each running job holds per type (job * types + type), read when a job is inserted.
    void reset(const GittinsTable& table, size_t jobs, size_t types, size_t queues, const std::vector<int64_t>* use);
    /// Where the index reads the table, holdings and the keys' last two parts (the scheduler's zone and sequence
    /// per job): bound by the scheduler at each decision before anything else (a copy of the scheduler binds its
    /// own state).
    void bind(const GittinsTable& table, const std::vector<int64_t>* use, const std::vector<char>* zone, const std::vector<double>* seq)
    {
        m_table = &table;
        m_use = use;
        m_zoneOf = zone;
        m_seqOf = seq;
    }
    /// At the start of a decision, before any question: certificates due by `now` are renewed at the first
    /// question about their queue.
    void sync(double now);
    void insert(int job, int queue, double now, const Service& s);
    void erase(int job);
    void setQueue(int job, int queue);
    bool contains(int job) const { return m_jobs[size_t(job)].state != kNone; }
    bool empty() const { return m_count == 0; }
    /// The largest position now; only when not empty (tests: the walk asks anyAfter).
    Pos last();
    /// Whether a running job is now at a position after `p` (the same as `p < last()`).
    bool anyAfter(const Pos& p);
    /// The running jobs after *from (all when null) and before *to (to the end when null) in order, each kept while
    /// what it holds fits in `bud` (subtracted): the first that does not fit, with every job before it subtracted,
    /// or -1 when all fit (all subtracted). As RunIndex::firstNotFitting, positions read now.
    int firstNotFitting(const Pos* from, const Pos* to, int64_t* bud);
    /// With `on`, firstNotFitting returning a job leaves some jobs before it in `bud`: those of its stretch that
    /// hold none of the types the stretch is short of (they always fit, so no answer depends on when they are
    /// subtracted). The walk's next call (on from the job returned, up to the same position, nothing changed in
    /// between: PreemptiveScheduler's loop) goes on with them, and the call that ends the stretch (-1, or going
    /// past it) subtracts them all without evaluating them. A caller that leaves the stretch before its end calls
    /// settleSetAside first; any other call drops them. Off by default (each answer with its budget exact).
    void deferSetAside(bool on) { m_deferAside = on; }
    /// Subtracts from `bud` the jobs left before the job firstNotFitting returned last (deferSetAside), as the
    /// call would have without deferral; the walk may still go on from that job.
    void settleSetAside(int64_t* bud);
    Key keyNow(int job) { return exact(job).key; }
    /// Jobs evaluated exactly, certificates made, and the zone level of a queue (tests, tuning).
    uint64_t evaluations() const { return m_evals; }
    uint64_t certificates() const { return m_certs; }
    double zoneLevel(int queue) const { return m_queues[size_t(queue)].theta; }
    /// Whether every current certificate's bounds hold the job's index now and lie above its queue's zone level
    /// (tests): after sync, before a change.
    bool certificatesHold() const;

private:
    enum State : uint8_t { kNone, kNew, kAbove, kZone };
    static constexpr size_t kAsked = 4; // the levels remembered per queue
    static constexpr size_t kFall = 2;  // theta falls once the last kFall decisions' levels stay well below it
    struct JobRec {
        double gpus = 1, executed = 0, lastStart = 0, exec0 = 0, submit = 0;
        double certLow = 0, certHigh = 0; // above: the index stays in [certLow, certHigh] until the expiry (within the band)
        double retryAt = 0;   // zone: no certificate is tried before this time (the current piece is too wide)
        size_t lo = 0, hi = 0; // the table's search hints (GittinsTable::Hint), as the last evaluation left them
        double window = 0;     // GittinsTable::windowSum(lo, hi) (certify's bounds)
        size_t piece = 0;      // first piece start after the attained service, as last found
        int queue = -1;
        int cell = -1;   // above: middle cell of the band
        int slot = -1;   // place in its cell's list or in the zone list
        uint32_t stamp = 0; // bumped when its certificate changes (stale heap entries)
        uint32_t evalAt = 0; // decision of m_pos
        State state = kNone;
        bool due = false; // above: certificate expired (or theta rose past it), on the queue's due list
    };
    struct Queue {
        double theta = -1; // < 0: no zone (an index is never negative)
        std::vector<int> zone;
        std::vector<int64_t> total; // what all its running jobs hold
        std::vector<std::vector<int>> cells;
        std::vector<int64_t> fen; // Fenwick over cells: per cell (types + 1) values, holdings then the count
        std::vector<int> due;     // new jobs and expired certificates, classified at the first question
        std::vector<Pos> sorted;  // the zone's positions, sorted, at decision `ready`
        std::vector<int64_t> prefix; // what sorted[0, i) holds per type, at (i * types + type): a stretch's zone part in O(types)
        uint32_t ready = 0;
        int count = 0;
        // the levels asked about: the highest of each recent decision that asked about this queue
        std::array<double, kAsked> asked {};
        size_t askedNext = 0, askedFill = 0;
        double askedNow = -1;
        uint32_t askedAt = 0;
    };

    const GittinsTable* m_table = nullptr;
    const std::vector<int64_t>* m_use = nullptr;
    const std::vector<char>* m_zoneOf = nullptr;
    const std::vector<double>* m_seqOf = nullptr;
    size_t m_types = 0;
    int m_count = 0;
    uint64_t m_evals = 0, m_certs = 0;
    double m_now = 0;
    uint32_t m_decision = 1;
    uint64_t m_version = 0; // bumped by every change of the jobs or of the decision

    std::vector<JobRec> m_jobs;
    std::vector<Pos> m_pos; // exact positions, per job, valid while JobRec::evalAt is the decision
    std::vector<Queue> m_queues;

    // piece starts of the index with bounds over each piece, and per block of kBlock pieces the least lower and
    // greatest upper bound, in a segment tree over blocks (a certificate's end: the first piece leaving a band)
    std::vector<double> m_at, m_low, m_high;
    // per piece, what an evaluation inside it reads, in 16 bytes (a table of twice the trace's jobs is read at
    // random: four pieces to a cache line, none across two): the table's search positions there and the sum of the
    // samples between them. The piece's bounds are m_at's, next to where the search for it ended.
    struct alignas(16) Piece {
        double window = 0;
        uint32_t lo = 0;
        uint32_t hi = 0; // with kSearch set: the positions do not hold all over the piece (rounding; searched)
    };
    static constexpr uint32_t kSearch = 0x80000000u;
    std::vector<Piece> m_pieces;
    double m_largest = 0, m_delta = 0; // the table's, read at every evaluation
    static constexpr size_t kBlock = 32;
    size_t m_blocks = 0, m_treeSize = 1;
    std::vector<double> m_treeMin, m_treeMax;
    /// The first piece from `from` whose bounds leave [lowLimit, highLimit), widening [lo, hi] by the bounds of
    /// the pieces before it.
    size_t firstLeaving(size_t from, double lowLimit, double highLimit, double& lo, double& hi) const;

    // the grid: cell(x) from x's bits (8 cells per octave from 2^-30, kSub in the .cpp), cells 0 and kCells - 1 open-ended
    static constexpr int kCells = 1120;
    static int cellOf(double x);
    static double edge(int c); // least level of cell c (c <= 0: -inf ... as needed; c >= kCells: +inf)

    struct Expiry {
        double at;
        int job;
        uint32_t stamp;
        struct Less {
            bool operator()(const Expiry& x, const Expiry& y) const { return x.at != y.at ? x.at < y.at : x.job < y.job; }
        };
    };
    QuadHeap<Expiry, Expiry::Less> m_expiry;

    const int64_t* useOf(int job) const { return &(*m_use)[size_t(job) * m_types]; }
    double attained(int job) const;
    const Pos& exact(int job);
    double levelOf(int job) { return -exact(job).key[1]; }

    void fenAdd(Queue& q, int cell, const int64_t* use, int64_t sign);
    void fenRange(const Queue& q, int c0, int c1, int64_t* out) const; // adds cells [c0, c1]
    int64_t fenCount(const Queue& q, int c0, int c1) const;
    void cellPut(Queue& q, int job, int cell);
    void cellTake(Queue& q, int job);
    void zonePut(Queue& q, int job);
    void zoneTake(Queue& q, int job);
    void detach(int job); // out of its set (holdings and lists), state kept for the caller
    /// Above with a certificate against `thetaCert` (< the index now); false when the current piece alone leaves
    /// any band (then the job stays in the zone).
    bool certify(int job, double level, double thetaCert);
    void classify(Queue& q, int job);
    void ready(int qi);
    void raise(Queue& q, double theta);
    void noteAsked(Queue& q, double level);
    template <class F> void forCells(const Queue& q, int c0, int c1, F f) const;

    std::vector<Pos> m_bottom, m_merged;
    // The jobs of a stretch that does not fit holding none of the types it is short of: they always fit, so they
    // are not put in order; each is taken when the walk passes it (restUpTo), [0, m_asideDone) taken already. A
    // cell's job not evaluated is placed by its band [lo, hi) where that decides; an evaluated one has an open band
    // and is placed by its exact position.
    struct Aside {
        int job;
        double lo, hi;
    };
    std::vector<Aside> m_aside;
    size_t m_asideDone = 0;
    std::vector<int64_t> m_asideHeld; // what the cells' jobs set aside hold (not in the lowest jobs' sum)
    std::vector<uint32_t> m_pending; // scratch of firstNotFitting: places in m_bottom not yet below the level
    void restUpTo(const Pos* limit, int64_t* bud);
    std::vector<int64_t> m_acc, m_need, m_held, m_tmp;
    std::vector<int> m_seen;
    // where the last firstNotFitting stopped inside m_bottom, to go on from there at the next call (the walk asks
    // again from the job it returned, up to the same position)
    struct Continuation {
        bool valid = false;
        uint64_t version = 0;
        int job = -1;
        Pos to {};
        bool hasTo = false;
        int queue = 0;
        size_t next = 0;
        bool deferred = false; // jobs set aside before `job` not subtracted yet (deferSetAside, settleSetAside)
    } m_cont;
    bool m_deferAside = false;
};

} // namespace ss
