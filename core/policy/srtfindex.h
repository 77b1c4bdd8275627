#pragma once
// SRTF's running jobs in the order of their work left now (SrtfDrift, srtfdrift.h). A running job's work left
// is a line in time (JobRuntime::remainingAt: flat until max(lastUpdate, resumeAt), then falling at `rate`,
// floored at 0) that changes only when the engine re-rates the job, which it does only when a job starts or
// stops on one of its machines (co-location interference) and always with a new `version`. The engine lists
// the jobs it retimed since the last decision (SchedContext::retimedJobs): their new lines (rates) are handed
// to the index at the next decision. A line read at a change gives JobRuntime::remainingAt bit for bit (the same
// expression of the same fields) until the next change; one the engine changes during a decision, at the
// decision's time, still gives the value at that time (the engine brings the work left up to that time with the
// same expression first), so the index reads every running job's exact position from its line (the scheduler's
// tie-break `seq` is fixed while a job runs and travels with the line), not from the engine's runtime.
#include <cstdint>
#include <vector>

#include "policy/srtfdrift.h"
#include "sim/engine.h"

namespace ss {

class SrtfRunIndex {
public:
    using Pos = RunIndex::Pos;
    /// `seq`: the scheduler's per-job tie-break; `use`: what each job holds per type (job * types + type).
    void reset(const ClusterSpec& cluster, size_t jobs, size_t types, const std::vector<double>* seq,
               const std::vector<int64_t>* use);
    /// Becomes a copy of `from` serving a copy of its scheduler, whose `seq` and `use` these are (Scheduler::clone).
    void clone(const SrtfRunIndex& from, const std::vector<double>* seq, const std::vector<int64_t>* use)
    {
        *this = from;
        m_seq = seq;
        m_use = use;
        m_ctx = nullptr; // set again at the next decision (sync) before any key is read
        m_idx.setPos([this](int j) { return Pos {keyNow(j), j}; });
    }
    /// At the start of a decision: hands the changed lines to the index.
    void sync(const SchedContext& ctx);
    /// A job that has just started (after sync in the same decision).
    void insert(const SchedContext& ctx, int job);
    /// A job that stopped (its slots still in `rt`).
    void erase(int job, const JobRuntime& rt);
    bool empty() const { return m_idx.empty(); }
    Pos last() { return m_idx.last(); }
    int firstNotFitting(const Pos* from, const Pos* to, int64_t* bud) { return m_idx.firstNotFitting(from, to, bud); }
    /// The key of a running job now (the scheduler's SRTF key).
    RunIndex::Key keyNow(int job) const;
    const SrtfDrift& index() const { return m_idx; }

private:
    SrtfDrift m_idx;
    const ClusterSpec* m_cluster = nullptr;
    const std::vector<double>* m_seq = nullptr;
    const std::vector<int64_t>* m_use = nullptr;
    size_t m_types = 0;
    const SchedContext* m_ctx = nullptr;
    std::vector<uint32_t> m_version; // per job: JobRuntime::version when its line was last read
    SrtfLine lineOf(int job);
};

} // namespace ss
