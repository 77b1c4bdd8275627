#include "policy/queued.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ss {

QueuedScheduler::QueuedScheduler(std::string name, QueueOrder order, PlacementKind placement, const PolicyOptions& opts)
    : m_name(std::move(name)), m_order(order), m_place(placement), m_backfill(opts.backfill)
{
}

void QueuedScheduler::reset(const SimSetup& setup)
{
    m_trace = &setup.trace;
    m_scan = 0;
    m_seq = 0;
    m_reenter.clear();
    m_sigIndex.clear();
    m_bucketIndex.clear();
    m_buckets.clear();
    const size_t n = setup.trace.jobs.size();
    m_jobBucket.assign(n, -1);
    m_jobItem.assign(n, Item {});
    m_charged.assign(n, 0);
    m_tenantUsers = int(setup.trace.users.size());
    const size_t tenants = setup.trace.users.size() + setup.trace.vcs.size();
    m_userGpu.assign(tenants, 0.0);
    m_userCpu.assign(tenants, 0.0);
    m_userMem.assign(tenants, 0.0);
    m_capGpu = std::max(1, setup.cluster.totalGpus());
    m_capCpu = m_capMem = 0;
    for (const Machine& m : setup.cluster.machines) {
        m_capCpu += m.cpus;
        m_capMem += m.memoryGb;
    }
}

double QueuedScheduler::staticKey(const SchedContext& ctx, int j) const
{
    const Job& jb = ctx.job(j);
    switch (m_order) {
    case QueueOrder::Sjf: return jb.duration;
    case QueueOrder::Edf: return jb.deadlines.empty() ? std::numeric_limits<double>::infinity() : jb.submit + jb.deadlines.front().offset;
    case QueueOrder::Fifo:
    case QueueOrder::Drf: return 0.0;
    }
    return 0.0;
}

// DRF tenant of a job: its user; a job without one (Philly has only virtual clusters) is charged to its
// virtual cluster, so DRF still shares between tenants instead of falling back to FIFO. -1 = no tenant.
int QueuedScheduler::tenant(const Job& j) const
{
    if (j.user >= 0)
        return j.user;
    return j.vc >= 0 ? m_tenantUsers + j.vc : -1;
}

// Dominant share (DL2 drf_env): the largest of the user's GPU, CPU and memory shares of the cluster.
double QueuedScheduler::share(int user) const
{
    if (user < 0)
        return 0.0;
    double s = m_userGpu[size_t(user)] / m_capGpu;
    if (m_capCpu > 0)
        s = std::max(s, m_userCpu[size_t(user)] / m_capCpu);
    if (m_capMem > 0)
        s = std::max(s, m_userMem[size_t(user)] / m_capMem);
    return s;
}

double QueuedScheduler::groupPrimary(int group) const { return m_order == QueueOrder::Drf ? share(group) : 0.0; }

void QueuedScheduler::enqueue(const SchedContext& ctx, int j)
{
    if (m_jobBucket[size_t(j)] >= 0)
        return;
    const Job& jb = ctx.job(j);
    const auto sigKey = std::make_tuple(ctx.rt(j).typeMask, jb.wholeGpus(), jb.milli());
    auto sit = m_sigIndex.find(sigKey);
    if (sit == m_sigIndex.end())
        sit = m_sigIndex.emplace(sigKey, int(m_sigIndex.size())).first;
    const int group = m_order == QueueOrder::Drf ? tenant(jb) : 0;
    auto bit = m_bucketIndex.find({group, sit->second});
    if (bit == m_bucketIndex.end()) {
        bit = m_bucketIndex.emplace(std::make_pair(group, sit->second), int(m_buckets.size())).first;
        Bucket b;
        b.group = group;
        b.sig = sit->second;
        m_buckets.push_back(std::move(b));
    }
    const Item it {staticKey(ctx, j), ++m_seq, j};
    m_buckets[size_t(bit->second)].items.insert(it);
    m_jobBucket[size_t(j)] = bit->second;
    m_jobItem[size_t(j)] = it;
}

void QueuedScheduler::onJobStopped(int job, double, bool finished, const JobRuntime&)
{
    if (m_charged[size_t(job)]) {
        m_charged[size_t(job)] = 0;
        const Job& jb = m_trace->jobs[size_t(job)];
        const size_t t = size_t(tenant(jb));
        m_userGpu[t] -= jb.gpus;
        m_userCpu[t] -= jb.cpu;
        m_userMem[t] -= jb.memGb;
    }
    if (!finished)
        m_reenter.push_back(job);
}

void QueuedScheduler::recordRanking(SchedContext& ctx)
{
    struct R {
        double a, b;
        uint64_t seq;
        int job;
    };
    std::vector<R> all;
    for (const Bucket& b : m_buckets) {
        const double p = groupPrimary(b.group);
        for (const Item& it : b.items)
            all.push_back({p, it.key, it.seq, it.job});
    }
    std::sort(all.begin(), all.end(), [](const R& x, const R& y) {
        if (x.a != y.a)
            return x.a < y.a;
        if (x.b != y.b)
            return x.b < y.b;
        return x.seq < y.seq;
    });
    // scores: higher = served first, in units a person can read
    float lowestDeadline = 0.0f;
    for (const R& r : all)
        if (std::isfinite(r.b))
            lowestDeadline = std::min(lowestDeadline, float((ctx.now() - r.b) / 3600.0));
    std::vector<ScoredJob> ranked;
    ranked.reserve(all.size());
    for (const R& r : all) {
        float p = 0;
        switch (m_order) {
        case QueueOrder::Fifo: p = float((ctx.now() - ctx.rt(r.job).enqueuedAt) / 3600.0); break; // hours waited
        case QueueOrder::Sjf: p = float(-r.b / 3600.0); break;                                      // -hours of work
        case QueueOrder::Edf: p = std::isfinite(r.b) ? float((ctx.now() - r.b) / 3600.0) : lowestDeadline - 1.0f; break;
        case QueueOrder::Drf: p = float(-r.a); break;                                               // -dominant share
        }
        ranked.push_back({r.job, p});
    }
    ctx.recordQueue(std::move(ranked));
}

void QueuedScheduler::schedule(SchedContext& ctx)
{
    // absorb arrivals (the trace is in submit order, so arrivals come in index order) and re-queued jobs
    while (m_scan < size_t(ctx.jobCount()) && ctx.rt(int(m_scan)).status != JobStatus::Future) {
        if (ctx.rt(int(m_scan)).status == JobStatus::Pending)
            enqueue(ctx, int(m_scan));
        ++m_scan;
    }
    for (int j : m_reenter)
        if (ctx.rt(j).status == JobStatus::Pending)
            enqueue(ctx, j);
    m_reenter.clear();

    if (ctx.recording())
        recordRanking(ctx);

    // feasibility per shape, recomputed after each start (capacity only shrinks inside a decision)
    std::vector<signed char> feasible(m_sigIndex.size(), -1);
    auto sigFeasible = [&](const Bucket& b) {
        signed char& f = feasible[size_t(b.sig)];
        if (f < 0)
            f = canPlaceNow(ctx, b.items.begin()->job) ? 1 : 0;
        return f == 1;
    };
    const char* reason = m_order == QueueOrder::Fifo ? "fifo" : m_order == QueueOrder::Sjf ? "sjf" : m_order == QueueOrder::Edf ? "edf" : "drf";
    for (;;) {
        int pick = -1;
        double pa = 0;
        const Item* pi = nullptr;
        for (size_t bi = 0; bi < m_buckets.size(); ++bi) {
            const Bucket& b = m_buckets[bi];
            if (b.items.empty())
                continue;
            if (m_backfill && !sigFeasible(b))
                continue;
            const double a = groupPrimary(b.group);
            const Item& h = *b.items.begin();
            if (!pi || a < pa || (a == pa && (h < *pi)))
                pick = int(bi), pa = a, pi = &h;
        }
        if (pick < 0)
            break;
        Bucket& b = m_buckets[size_t(pick)];
        const int j = b.items.begin()->job;
        if (!m_backfill && !sigFeasible(b)) {
            if (ctx.recording())
                ctx.recordPlacement(j, {}, placementAffinity(ctx, j, m_place), "blocks the queue: does not fit (no backfill)");
            break;
        }
        if (!placeAndStart(ctx, j, m_place, reason)) {
            // cannot happen for the count-exact placements; stop trying this shape in this decision
            feasible[size_t(b.sig)] = 0;
            if (!m_backfill)
                break;
            continue;
        }
        b.items.erase(b.items.begin());
        m_jobBucket[size_t(j)] = -1;
        std::fill(feasible.begin(), feasible.end(), -1);
        const Job& jb = ctx.job(j);
        if (const int t = tenant(jb); m_order == QueueOrder::Drf && t >= 0) {
            m_userGpu[size_t(t)] += jb.gpus;
            m_userCpu[size_t(t)] += jb.cpu;
            m_userMem[size_t(t)] += jb.memGb;
            m_charged[size_t(j)] = 1;
        }
    }
    if (ctx.recording() && m_backfill) {
        // show why the first waiting job of each shape waits
        for (const Bucket& b : m_buckets)
            if (!b.items.empty())
                ctx.recordPlacement(b.items.begin()->job, {}, placementAffinity(ctx, b.items.begin()->job, m_place),
                                    "does not fit now");
    }
}

} // namespace ss
