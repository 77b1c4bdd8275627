#include "policy/queued.h"

#include <algorithm>
#include <cmath>

#include "policy/placement.h"

namespace ss {

QueuedScheduler::QueuedScheduler(std::string name, std::unique_ptr<Ordering> ordering, std::unique_ptr<Placement> placement,
                                 std::unique_ptr<Admission> admission, const PolicyOptions& opts)
    : m_name(std::move(name)), m_order(std::move(ordering)), m_place(std::move(placement)), m_admit(std::move(admission)),
      m_grouped(m_order->grouped()), m_backfill(opts.backfill)
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
    m_jobBucket.assign(setup.trace.jobs.size(), -1);
    m_order->reset(setup);
    m_place->reset(setup);
    m_admit->reset(setup);
}

AdmissionRecord QueuedScheduler::admit(const SchedContext& ctx, int job)
{
    AdmissionRecord r = m_admit->admit(ctx, job);
    r.job = job;
    return r;
}

void QueuedScheduler::enqueue(const SchedContext& ctx, int j)
{
    if (m_jobBucket[size_t(j)] >= 0)
        return;
    const Job& jb = ctx.job(j);
    const auto sigKey = std::make_tuple(ctx.rt(j).typeMask, jb.wholeGpus(), jb.milli());
    auto sit = m_sigIndex.find(sigKey);
    if (sit == m_sigIndex.end())
        sit = m_sigIndex.emplace(sigKey, int(m_sigIndex.size())).first;
    const int group = m_grouped ? m_order->group(jb) : 0;
    auto bit = m_bucketIndex.find({group, sit->second});
    if (bit == m_bucketIndex.end()) {
        bit = m_bucketIndex.emplace(std::make_pair(group, sit->second), int(m_buckets.size())).first;
        Bucket b;
        b.group = group;
        b.sig = sit->second;
        m_buckets.push_back(std::move(b));
    }
    m_buckets[size_t(bit->second)].items.insert(Item {m_order->staticKey(ctx, j), ++m_seq, j});
    m_jobBucket[size_t(j)] = bit->second;
}

void QueuedScheduler::onJobStopped(int job, double, bool finished, const JobRuntime&)
{
    m_order->onStopped(job, m_trace->jobs[size_t(job)]);
    if (!finished)
        m_reenter.push_back(job);
}

void QueuedScheduler::recordRanking(SchedContext& ctx)
{
    struct R {
        QueuedJob q;
        uint64_t seq;
    };
    std::vector<R> all;
    for (const Bucket& b : m_buckets) {
        const double p = groupKey(b.group);
        for (const Item& it : b.items)
            all.push_back({{it.job, p, it.key}, it.seq});
    }
    std::sort(all.begin(), all.end(), [](const R& x, const R& y) {
        if (x.q.groupKey != y.q.groupKey)
            return x.q.groupKey < y.q.groupKey;
        if (x.q.staticKey != y.q.staticKey)
            return x.q.staticKey < y.q.staticKey;
        return x.seq < y.seq;
    });
    std::vector<QueuedJob> served;
    served.reserve(all.size());
    for (const R& r : all)
        served.push_back(r.q);
    ctx.recordQueue(m_order->rank(ctx, served));
}

void QueuedScheduler::schedule(SchedContext& ctx)
{
    // absorb arrivals (the trace is in submit order, so arrivals come in index order), jobs admitted after a
    // deferral, and re-queued jobs
    while (m_scan < size_t(ctx.jobCount()) && ctx.rt(int(m_scan)).status != JobStatus::Future) {
        if (ctx.rt(int(m_scan)).status == JobStatus::Pending)
            enqueue(ctx, int(m_scan));
        ++m_scan;
    }
    for (int j : ctx.admittedLate())
        enqueue(ctx, j);
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
    const char* reason = m_order->name().c_str();
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
            const double a = groupKey(b.group);
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
                explainPlacement(ctx, j, *m_place, "blocks the queue: does not fit (no backfill)");
            break;
        }
        if (!placeAndStart(ctx, j, *m_place, reason)) {
            // cannot happen for the count-exact placements; stop trying this shape in this decision
            feasible[size_t(b.sig)] = 0;
            if (!m_backfill)
                break;
            continue;
        }
        b.items.erase(b.items.begin());
        m_jobBucket[size_t(j)] = -1;
        std::fill(feasible.begin(), feasible.end(), -1);
        m_order->onStarted(j, ctx.job(j));
    }
    if (ctx.recording() && m_backfill) {
        // show why the first waiting job of each shape waits
        for (const Bucket& b : m_buckets)
            if (!b.items.empty())
                explainPlacement(ctx, b.items.begin()->job, *m_place, "does not fit now");
    }
}

} // namespace ss
