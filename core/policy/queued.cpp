#include "policy/queued.h"
#include "policy/mergeheads.h"

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

std::unique_ptr<Scheduler> QueuedScheduler::clone() const
{
    // the buckets are value sets (no iterators kept between decisions); the stages copy themselves
    auto c = std::make_unique<QueuedScheduler>(*this);
    if (!c->m_order || !c->m_place || !c->m_admit)
        return nullptr;
    return c;
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
    // The record keeps the first logQueueLimit() jobs in served order (group key, static key, queue order):
    // a merge of the buckets' sorted sets up to that many, not a sort of the whole queue at every decision.
    struct Head {
        double group;
        std::set<Item>::const_iterator it, end;
    };
    auto later = [](const Head& x, const Head& y) { // heap order: the head served first on top
        if (x.group != y.group)
            return x.group > y.group;
        if (x.it->key != y.it->key)
            return x.it->key > y.it->key;
        return x.it->seq > y.it->seq;
    };
    std::vector<Head> heads;
    size_t total = 0;
    for (const Bucket& b : m_buckets) {
        total += b.items.size();
        if (!b.items.empty())
            heads.push_back({groupKey(b.group), b.items.begin(), b.items.end()});
    }
    const size_t limit = std::min(total, size_t(std::max(0, ctx.logQueueLimit())));
    std::vector<QueuedJob> served;
    served.reserve(limit);
    mergeFirst(heads, later, limit, [&](const Head& h) { served.push_back({h.it->job, h.group, h.it->key}); });
    ctx.recordQueue(m_order->rank(ctx, served), int(total));
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
