#include "policy/srtfindex.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ss {

void SrtfRunIndex::reset(const ClusterSpec& cluster, size_t jobs, size_t types, const std::vector<double>* seq,
                         const std::vector<int64_t>* use)
{
    m_cluster = &cluster;
    m_seq = seq;
    m_use = use;
    m_types = types;
    m_ctx = nullptr;
    m_version.assign(jobs, 0);
    m_idx.reset(jobs, types);
}

RunIndex::Key SrtfRunIndex::keyNow(int j) const
{
    // PreemptiveScheduler::keyFor for a running job
    return {m_ctx->rt(j).remainingAt(m_ctx->now()), 0.0, (*m_seq)[size_t(j)], 0, 0};
}

SrtfLine SrtfRunIndex::lineOf(int j)
{
    const JobRuntime& r = m_ctx->rt(j);
    m_version[size_t(j)] = r.version;
    return {r.remaining, std::max(r.lastUpdate, r.resumeAt), r.rate, (*m_seq)[size_t(j)]};
}

void SrtfRunIndex::sync(const SchedContext& ctx)
{
    m_ctx = &ctx;
    // the engine lists every job whose completion it set since the last decision: among them, each running job
    // here whose line changed since the index last read it
    for (const int j : ctx.retimedJobs())
        if (m_idx.contains(j) && ctx.rt(j).version != m_version[size_t(j)])
            m_idx.reline(j, lineOf(j));
    m_idx.setCheck(ctx.config().checkInvariants);
    m_idx.begin(ctx.now(), [this](int j) { return Pos {keyNow(j), j}; });
}

void SrtfRunIndex::insert(const SchedContext& ctx, int job)
{
    m_ctx = &ctx;
    m_idx.insert(job, &(*m_use)[size_t(job) * m_types], lineOf(job));
}

void SrtfRunIndex::erase(int job, const JobRuntime& rt)
{
    if (m_idx.contains(job))
        m_idx.erase(job);
}

} // namespace ss
