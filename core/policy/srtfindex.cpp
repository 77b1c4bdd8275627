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
    m_onMachine.assign(size_t(cluster.machineCount()), {});
    m_touched.clear();
    m_touchedMark.assign(size_t(cluster.machineCount()), 0);
    m_flag.assign(jobs, 0);
    m_changed.clear();
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
    return {r.remaining, std::max(r.lastUpdate, r.resumeAt), r.rate};
}

void SrtfRunIndex::touch(const std::vector<GpuSlot>& slots, int job, bool add)
{
    int last = -1;
    for (const GpuSlot& s : slots) {
        const int m = m_cluster->machineOfGpu(s.gpu);
        if (m == last)
            continue;
        last = m;
        std::vector<int>& on = m_onMachine[size_t(m)];
        const auto it = std::find(on.begin(), on.end(), job);
        if (add && it == on.end())
            on.push_back(job);
        else if (!add && it != on.end()) {
            *it = on.back();
            on.pop_back();
        }
        if (!m_touchedMark[size_t(m)]) {
            m_touchedMark[size_t(m)] = 1;
            m_touched.push_back(m);
        }
    }
}

void SrtfRunIndex::sync(const SchedContext& ctx)
{
    m_ctx = &ctx;
    m_changed.clear();
    for (int m : m_touched) {
        m_touchedMark[size_t(m)] = 0;
        for (int j : m_onMachine[size_t(m)])
            if (!m_flag[size_t(j)] && m_idx.contains(j) && ctx.rt(j).version != m_version[size_t(j)]) {
                m_flag[size_t(j)] = 1;
                m_changed.push_back(j);
            }
    }
    m_touched.clear();
    for (int j : m_changed) {
        m_flag[size_t(j)] = 0;
        m_idx.reline(j, lineOf(j));
    }
    m_idx.setCheck(ctx.config().checkInvariants);
    m_idx.begin(ctx.now(), [this](int j) { return Pos {keyNow(j), j}; });
}

void SrtfRunIndex::insert(const SchedContext& ctx, int job)
{
    m_ctx = &ctx;
    touch(ctx.rt(job).slots, job, true);
    m_idx.insert(job, &(*m_use)[size_t(job) * m_types], lineOf(job));
}

void SrtfRunIndex::erase(int job, const JobRuntime& rt)
{
    if (!m_idx.contains(job))
        return;
    touch(rt.slots, job, false);
    m_idx.erase(job);
}

} // namespace ss
