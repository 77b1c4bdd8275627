#pragma once
// SRTF's running jobs in the order of their work left now, without following the jobs as they overtake each
// other. A running job's work left falls at its own rate (0.06 to 1 reference-seconds per second under the
// default performance model), so with thousands of running jobs the order changes about a hundred times
// between two decisions; keeping it exact costs that much per decision (the kinetic list this replaced).
//
// Here each job sits in a fixed-key tree (srtftree.h) under an estimate u of its work left: its exact value
// when it entered (or at the last rebuild, t_ref), shifted as if it fell at one common rate rho from t_ref. As
// every rate since t_ref lies in [rmin, rmax] (rates change only at a re-rate, which the caller reports), a
// job's exact work left now lies within D = max(rho - rmin, rmax - rho) * (now - t_ref) (plus a rounding
// margin) of e = u - rho * (now - t_ref), floored at 0. So a query compares exact positions (the caller's
// callback: work left now, then the tie-break) only for the few jobs whose e is within D of a boundary: what
// lies further in is taken by the tree's subtree sums, what lies further out is left out. Over time D grows;
// when the exact evaluations since the last rebuild outnumber the jobs, all estimates are renewed (one pass
// over the jobs and a nearly sorted sort). A job whose progress starts later than now (restoring a checkpoint)
// stays outside the tree with its exact position read at every query until its progress starts.
//
// A job's exact position is read from its line, (line.at(now), 0, line.tie, 0, 0) then the job, without the
// caller: the line is the caller's own expression of the work left (JobRuntime::remainingAt), read when the
// engine last changed it, and a re-rate at the decision's time leaves the value at that time as it was, so the
// two agree bit for bit at every decision (SrtfRunIndex). The callback gives the positions of the jobs whose
// progress starts later and, with `check` on, every position read from a line is compared with it.
//
// firstNotFitting finds, in the estimate's order, the first job whose holding does not fit; the exact first
// job that does not fit then lies among the jobs whose exact position is within 2D of that job's estimate, and
// only those are sorted exactly (see srtfdrift.cpp). With `check` on, every answer is compared with a sort of
// all jobs by their exact positions, and a difference throws std::logic_error (RunConfig::checkInvariants).
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "policy/holding.h"
#include "policy/runindex.h"
#include "policy/srtftree.h"

namespace ss {

class SrtfDrift {
public:
    using Pos = RunIndex::Pos;
    /// A running job's exact position now (work left now, then the tie-break): for a job in the tree, the one its
    /// line gives (see above).
    using PosFn = std::function<Pos(int job)>;

    void reset(size_t jobs, size_t types);
    /// At the start of a decision at `now` (after the re-rates are reported): jobs whose progress has started
    /// enter the tree, and the estimates are renewed when queries have been evaluating too many jobs exactly.
    void begin(double now, PosFn pos);
    /// The callback only (a copy serving another owner, Scheduler::clone).
    void setPos(PosFn pos) { m_pos = std::move(pos); }
    /// A job that started running (at the time of the current decision), its holding and work line.
    void insert(int job, const int64_t* use, const SrtfLine& line);
    /// A job that stopped.
    void erase(int job);
    /// A running job's new work line after the engine changed its rate.
    void reline(int job, const SrtfLine& line);
    bool contains(int job) const { return m_where[size_t(job)] != kNone; }
    bool empty() const { return m_tree.empty() && m_late.empty(); }
    int size() const { return m_tree.size() + int(m_late.size()); }
    /// The largest position now; only when not empty.
    Pos last();
    /// Walks the jobs after `from` (all when null) and before `to` (to the end when null) in their exact order
    /// now, keeping each whose holding fits in `bud` (subtracting it): the first that does not fit, with every
    /// job before it subtracted, or -1 when all fit (all subtracted). As RunIndex::firstNotFitting.
    int firstNotFitting(const Pos* from, const Pos* to, int64_t* bud);

    void setCheck(bool on) { m_check = on; }
    /// Renew the estimates once the exact evaluations since the last renewal pass `factor` x the jobs (tests).
    void setRebuildFactor(double factor) { m_factor = factor; }
    uint64_t rebuilds() const { return m_rebuilds; }
    uint64_t evaluated() const { return m_evaluated; }
    uint64_t windows() const { return m_windows; }

private:
    static constexpr char kNone = 0, kTree = 1, kLate = 2;
    SrtfTree m_tree;
    PosFn m_pos;
    size_t m_types = 0;
    std::vector<char> m_where; // per job: kNone, kTree or kLate
    // jobs whose progress starts after now, outside the tree: job, line, holding
    std::vector<int> m_late;
    std::vector<SrtfLine> m_lateLine;
    std::vector<int64_t> m_lateUse;
    double m_now = 0, m_tref = 0, m_rho = 0, m_rmin = 0, m_rmax = 0, m_umax = 0;
    bool m_haveRates = false;
    bool m_check = false;
    double m_factor = 3.0;
    uint64_t m_work = 0, m_rebuilds = 0, m_evaluated = 0, m_windows = 0;
    // scratch
    std::vector<int> m_ids;
    std::vector<Pos> m_pts;
    std::vector<SrtfTree::Entry> m_order, m_sortTmp;
    std::vector<size_t> m_sortCounts;
    struct Cand {
        double v; // the line's value now (within margin() of the exact work left)
        int node;
    };
    std::vector<Cand> m_cand;
    struct Late {
        Pos pos;
        int index; // in m_late
    };
    std::vector<Late> m_late2;
    std::vector<int64_t> m_b1, m_tmp, m_ref;

    void widen(double rate);
    void rebuild();
    double shift() const { return m_rho * (m_now - m_tref); }
    double delta() const;
    double margin() const;
    double valueAt(int node) const;
    bool inRange(int node, double v, double eps, const Pos* from, const Pos* to);
    bool fits(const int64_t* v, const int64_t* bud) const { return holdingFits(v, bud, m_types); }
    void take(const int64_t* v, int64_t* bud) const { holdingTake(v, bud, m_types); }
    const int64_t* useOf(int job) const;
    Pos exact(int job);
    /// A tree job's exact position, from its line (node n).
    Pos exactAt(int n) { return fromLine(m_tree.jobAt(n), m_tree.lineAt(n)); }
    Pos fromLine(int job, const SrtfLine& line);
    Pos bruteLast();
    int bruteFirstNotFitting(const Pos* from, const Pos* to, int64_t* bud);
    Pos fastLast();
    int fastFirstNotFitting(const Pos* from, const Pos* to, int64_t* bud);
};

} // namespace ss
