// Tiresias (NSDI'19) discretized 2D-LAS and 2D-Gittins, and SRTF, as preemptive orderings.
//
// Matched against SymbioticLab/Tiresias simulator/run_sim.py (dlas_sim_jobs, get_gittins_index,
// cal_r_gittins_index) and jobs.py:
// - attained service = GPUs x executed wall time ("dlas-gpu"); queues Q0..QK-1 with thresholds
//   (default 3250, 7200 GPU-s, K = 3, as JOBS.queue_limit / num_queue); new jobs enter Q0 at the back;
// - a running job whose attained service reaches its queue's limit moves to the back of the next queue;
//   the decision at which that happens is a wake-up at the earliest crossing among running jobs
//   (Tiresias: next_job_jump);
// - each decision walks the queues in order, admits every job whose GPU count fits in what is left
//   (skip-ahead allowed), preempts running jobs that do not fit, then moves pending jobs to the back of
//   their queue keeping their relative order, so running jobs stay in front (the "sort based on the job
//   start time" step). We keep that list order with (zone, sequence) keys instead of moving list items;
// - preemption keeps the job's queue and attained service; preemption is free (no overhead unless the
//   run's PerfConfig::preemptOverhead says so);
// - starvation knob (PROMOTEKNOB, solve_starvation): a pending job in Q>0 whose pending time since it last
//   ran from Q0 reaches knob x executed time is promoted to Q0 with its executed time reset; 0 = off;
// - 2D-Gittins ("dlas-gpu-gittins"): the same queues, each sorted by Gittins index, highest first, ties by
//   later submit first (Python sorts (rank, r_submit_time) with reverse=True), list order after that.
// Differences (documented choices):
// - times are exact doubles; Tiresias rounds to whole seconds (int(), ceil());
// - the Gittins index is evaluated at the exact attained service with E[min(S - a, delta) | S > a]
//   (ALGORITHMS.md §7.2); Tiresias evaluates it once per sample bin (at sample - 1) and sums the raw sizes S
//   instead of S - a in E;
// - admission counts GPUs per allowed GPU type (Tiresias has one type), and fractional jobs count their share;
// - placement is the composite's placement policy; a job admitted by count that the placement cannot fit
//   (only possible for fractional jobs) stays pending.
#include "policy/tiresias.h"
#include "policy/mergeheads.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ss {

// ---------------------------------------------------------------- scheduler

namespace {

std::vector<double> parseThresholds(const std::string& s)
{
    std::vector<double> v;
    std::stringstream ss(s);
    std::string tok;
    while (std::getline(ss, tok, ',')) {
        char* end = nullptr;
        const double x = std::strtod(tok.c_str(), &end);
        if (tok.empty() || *end != '\0' || !(x > 0) || (!v.empty() && x <= v.back()))
            throw std::invalid_argument("las.thresholds: expected increasing positive GPU-seconds like 3250,7200, got '" + s + "'");
        v.push_back(x);
    }
    return v;
}

} // namespace

PreemptiveScheduler::PreemptiveScheduler(std::string name, PreemptOrder order, std::unique_ptr<Placement> placement,
                                         std::unique_ptr<Admission> admission, const PolicyOptions& opts)
    : m_name(std::move(name)), m_order(order), m_place(std::move(placement)), m_admit(std::move(admission))
{
    if (order != PreemptOrder::Srtf) {
        m_thr = parseThresholds(opts.param("las.thresholds", "3250,7200"));
        m_knob = opts.paramD("las.knob", 0.0);
        if (m_knob < 0)
            throw std::invalid_argument("las.knob must be >= 0");
    }
    if (order == PreemptOrder::Gittins) {
        m_gittinsDelta = opts.paramD("gittins.delta", 3250.0);
        if (!(m_gittinsDelta > 0))
            throw std::invalid_argument("gittins.delta must be > 0");
        const std::string dist = opts.param("gittins.dist", "");
        if (!dist.empty()) {
            m_gittins = GittinsTable(readSizeDistribution(dist), m_gittinsDelta);
            m_gittinsFromTrace = false;
        }
    }
}

AdmissionRecord PreemptiveScheduler::admit(const SchedContext& ctx, int job)
{
    AdmissionRecord r = m_admit->admit(ctx, job);
    r.job = job;
    return r;
}

void PreemptiveScheduler::reset(const SimSetup& setup)
{
    m_place->reset(setup);
    m_admit->reset(setup);
    m_trace = &setup.trace;
    m_cluster = &setup.cluster;
    m_types = setup.cluster.types.size();
    m_usedByType.assign(m_types, 0);
    m_cap.assign(m_types, 0);
    for (const Machine& m : setup.cluster.machines)
        m_cap[size_t(m.type)] += int64_t(m.gpus) * 1000;
    m_bud.assign(m_types, 0);
    m_budSave.assign(m_types, 0);
    const size_t n = setup.trace.jobs.size();
    m_use.assign(n * m_types, 0);
    m_runIdx.reset(n, m_types);
    if (m_order == PreemptOrder::Srtf)
        m_srtf.reset(setup.cluster, n, m_types, &m_seq, &m_use);
    m_runKey.assign(n, Key {});
    m_inRun.assign(n, 0);
    m_cross.clear();
    m_crossVer.assign(n, 0);
    m_crossLive = 0;
    m_crossAt.assign(n, std::numeric_limits<double>::quiet_NaN());
    m_starve.clear();
    m_starveVer.assign(n, 0);
    m_starveIn.assign(n, 0);
    m_starveLive = 0;
    m_minGpus = 1;
    for (const Job& j : setup.trace.jobs)
        if (j.gpus > 0)
            m_minGpus = std::min(m_minGpus, j.gpus);
    m_scan = 0;
    m_reenter.clear();
    m_adopt.clear();
    m_bucketIndex.clear();
    m_buckets.clear();
    m_top.clear();
    m_topAll = true;
    m_topOn = false;
    m_topCap = 0;
    m_jobBucket.assign(n, -1);
    m_jobItem.assign(n, PItem {});
    m_gHint.assign(m_order == PreemptOrder::Gittins ? n : 0, GittinsTable::Hint {});
    m_q.assign(n, 0);
    m_zone.assign(n, 1);
    m_seq.assign(n, 0);
    m_t0.assign(n, -1);
    m_exec0.assign(n, 0);
    m_back = m_front = m_run = m_arrivalSeq = 0;
    m_lastWake = -1;
    if (m_order == PreemptOrder::Gittins && m_gittinsFromTrace) {
        // by default the GPU-time distribution of the trace's own jobs
        std::vector<double> sizes;
        sizes.reserve(n);
        for (const Job& j : setup.trace.jobs)
            sizes.push_back(j.gpus * j.duration);
        m_gittins = GittinsTable(std::move(sizes), m_gittinsDelta);
    }
    if (m_order == PreemptOrder::Gittins) {
        m_gidx.reset(m_gittins, n, m_types, m_thr.size() + 1, &m_use);
        m_gidx.deferSetAside(true); // the walk's loop below asks on from each job returned
    }
}

double PreemptiveScheduler::lasAttained(const SchedContext& ctx, int j) const
{
    return ctx.job(j).gpus * (ctx.rt(j).executedAt(ctx.now()) - m_exec0[size_t(j)]);
}

GittinsRunIndex::Service PreemptiveScheduler::gittinsService(const SchedContext& ctx, int j) const
{
    // what lasAttained reads, fixed while the job runs
    const JobRuntime& r = ctx.rt(j);
    return {ctx.job(j).gpus, r.executed, r.lastStart, m_exec0[size_t(j)], ctx.job(j).submit};
}

PreemptiveScheduler::Key PreemptiveScheduler::keyFor(const SchedContext& ctx, int j) const
{
    const bool running = ctx.rt(j).status == JobStatus::Running;
    switch (m_order) {
    case PreemptOrder::Srtf:
        // running first on equal remaining work, so equal jobs do not swap back and forth
        return {ctx.rt(j).remainingAt(ctx.now()), running ? 0.0 : 1.0, m_seq[size_t(j)], 0, 0};
    case PreemptOrder::Las:
        return {double(m_q[size_t(j)]), double(m_zone[size_t(j)]), m_seq[size_t(j)], 0, 0};
    case PreemptOrder::Gittins:
        return {double(m_q[size_t(j)]), -m_gittins.index(lasAttained(ctx, j), m_gHint[size_t(j)]), -ctx.job(j).submit,
                double(m_zone[size_t(j)]), m_seq[size_t(j)]};
    }
    return {};
}

void PreemptiveScheduler::enqueue(const SchedContext& ctx, int j)
{
    const int known = m_jobBucket[size_t(j)];
    if (known >= 0)
        return;
    int bucket;
    if (known <= -2) {
        bucket = -2 - known; // waited before: its shape (allowed types, demand) never changes
    } else {
        const Job& jb = ctx.job(j);
        const uint64_t mask = ctx.rt(j).typeMask;
        const int milli = jb.fractional() ? jb.milli() : 1000 * jb.wholeGpus();
        auto it = m_bucketIndex.find({mask, milli});
        if (it == m_bucketIndex.end()) {
            it = m_bucketIndex.emplace(std::make_pair(mask, milli), int(m_buckets.size())).first;
            Bucket b;
            b.mask = mask;
            b.milli = milli;
            m_buckets.push_back(std::move(b));
        }
        bucket = it->second;
    }
    const PItem item {keyFor(ctx, j), j};
    m_buckets[size_t(bucket)].items.insert(item);
    if (m_topOn)
        topInsert(item);
    m_jobBucket[size_t(j)] = bucket;
    m_jobItem[size_t(j)] = item;
    if (m_knob > 0)
        starvePush(ctx, j);
}

void PreemptiveScheduler::removePending(int j)
{
    const int b = m_jobBucket[size_t(j)];
    if (b < 0)
        return;
    m_buckets[size_t(b)].items.erase(m_jobItem[size_t(j)]);
    if (m_topOn)
        topErase(m_jobItem[size_t(j)]);
    m_jobBucket[size_t(j)] = -2 - b; // not waiting; its bucket kept for the next time it waits
    if (m_knob > 0)
        starveDrop(j);
}

void PreemptiveScheduler::account(int job, const std::vector<GpuSlot>& slots, int sign)
{
    if (sign > 0) {
        // what a running job holds per type, so the walk checks it in O(types) without its slots
        int64_t* u = &m_use[size_t(job) * m_types];
        std::fill(u, u + m_types, 0);
        for (const GpuSlot& s : slots)
            u[size_t(m_cluster->machines[size_t(m_cluster->machineOfGpu(s.gpu))].type)] += s.milli;
        for (size_t t = 0; t < m_types; ++t)
            m_usedByType[t] += u[t];
        return;
    }
    for (const GpuSlot& s : slots)
        m_usedByType[size_t(m_cluster->machines[size_t(m_cluster->machineOfGpu(s.gpu))].type)] -= s.milli;
}

void PreemptiveScheduler::runInsert(int j, const Key& k)
{
    m_runKey[size_t(j)] = k;
    m_inRun[size_t(j)] = 1;
    m_runIdx.insert(j, k, &m_use[size_t(j) * m_types]);
}

void PreemptiveScheduler::runErase(int j)
{
    if (!m_inRun[size_t(j)])
        return;
    m_runIdx.erase(j);
    m_inRun[size_t(j)] = 0;
}

void PreemptiveScheduler::onJobStopped(int job, double, bool finished, const JobRuntime& rt)
{
    account(job, rt.slots, -1);
    // each order's own running index (the LAS order and the threshold crossings are 2D-LAS's and 2D-Gittins's;
    // SRTF never fills them, so a stop reads nothing of theirs)
    if (m_order == PreemptOrder::Las)
        runErase(job);
    if (m_order == PreemptOrder::Srtf)
        m_srtf.erase(job, rt);
    if (m_order == PreemptOrder::Gittins)
        m_gidx.erase(job);
    if (m_order != PreemptOrder::Srtf)
        crossErase(job);
    if (!finished)
        m_reenter.push_back(job);
}

float PreemptiveScheduler::scoreOf(const Key& k) const
{
    switch (m_order) {
    case PreemptOrder::Srtf: return float(-k[0] / 3600.0); // -hours of work left
    case PreemptOrder::Las: return float(-k[0]);           // -queue index
    case PreemptOrder::Gittins: {
        const double g = -k[1];
        return float(-k[0] + 0.999 * g / (1.0 + g)); // queue first, then the index (mapped into [0,1))
    }
    }
    return 0;
}

void PreemptiveScheduler::topInsert(const PItem& item)
{
    // a job that joins ahead of the last kept is among the first; one behind it is only when every job is kept
    if (!m_topAll && (m_top.empty() || !(item < m_top.back())))
        return;
    m_top.insert(std::upper_bound(m_top.begin(), m_top.end(), item), item);
    if (m_top.size() > m_topCap) {
        m_top.pop_back(); // (still waiting, behind the kept ones)
        m_topAll = false;
    }
}

void PreemptiveScheduler::topErase(const PItem& item)
{
    if (m_top.empty() || m_top.back() < item)
        return;
    const auto it = std::lower_bound(m_top.begin(), m_top.end(), item);
    if (it != m_top.end() && it->job == item.job)
        m_top.erase(it);
}

void PreemptiveScheduler::recordRanking(SchedContext& ctx)
{
    // The record keeps the first logQueueLimit() waiting jobs in priority order. They are kept between decisions
    // (m_top, updated as jobs join and leave the buckets); what is missing after the last kept, when fewer are
    // kept than the limit, is a merge of the buckets' sorted sets from there (each bucket is in priority order,
    // and one order holds across them), not a sort of the whole queue.
    using It = SortedChunks<PItem>::const_iterator;
    struct Head {
        It it, end;
    };
    auto later = [](const Head& x, const Head& y) { return *y.it < *x.it; }; // heap order: the first served on top
    size_t total = 0;
    for (const Bucket& b : m_buckets)
        total += b.items.size();
    const size_t limit = std::min(total, size_t(std::max(0, ctx.logQueueLimit())));
    const size_t cap = size_t(std::max(0, ctx.logQueueLimit()));
    // appends to `out` the first `want` waiting jobs after `after` (from the first when null)
    auto merge = [&](const PItem* after, size_t want, std::vector<PItem>& out) {
        std::vector<Head> heads;
        for (const Bucket& b : m_buckets) {
            It it = after ? b.items.lower_bound(*after) : b.items.begin();
            if (after && it != b.items.end() && it->job == after->job)
                ++it;
            if (it != b.items.end())
                heads.push_back({it, b.items.end()});
        }
        mergeFirst(heads, later, want, [&](const Head& h) { out.push_back(*h.it); });
    };
    if (!m_topOn || cap != m_topCap) { // the first record, or a restored run recording another limit
        m_topOn = true;
        m_topCap = cap;
        m_top.clear();
        merge(nullptr, cap + 1, m_top);
        m_topAll = m_top.size() <= cap;
        if (!m_topAll)
            m_top.pop_back();
    } else if (m_top.size() < limit && !m_topAll) {
        const PItem last = m_top.empty() ? PItem {} : m_top.back();
        merge(m_top.empty() ? nullptr : &last, limit - m_top.size(), m_top);
        m_topAll = m_top.size() == total;
    }
    std::vector<ScoredJob> ranked;
    ranked.reserve(limit);
    for (size_t i = 0; i < limit && i < m_top.size(); ++i)
        ranked.push_back({m_top[i].job, scoreOf(m_top[i].key)});
    if (ctx.config().checkInvariants) {
        std::vector<PItem> want;
        merge(nullptr, limit, want);
        bool same = want.size() == ranked.size();
        for (size_t i = 0; same && i < want.size(); ++i)
            same = want[i].job == ranked[i].job;
        if (!same)
            throw std::logic_error(m_name + ": the logged ranking kept between decisions differs from a merge of the queue at t="
                                   + std::to_string(ctx.now()));
    }
    ctx.recordQueue(std::move(ranked), int(total));
}

void PreemptiveScheduler::schedule(SchedContext& ctx)
{
    const double now = ctx.now();
    const bool las = m_order != PreemptOrder::Srtf;
    auto arrive = [&](int j) {
        m_q[size_t(j)] = 0;
        m_zone[size_t(j)] = 1;
        m_seq[size_t(j)] = ++m_back;
        enqueue(ctx, j);
    };
    while (m_scan < size_t(ctx.jobCount()) && ctx.rt(int(m_scan)).status != JobStatus::Future) {
        const int j = int(m_scan++);
        if (ctx.rt(j).status == JobStatus::Pending)
            arrive(j);
    }
    for (int j : ctx.admittedLate()) // admitted after a deferral: new arrivals now
        arrive(j);
    for (int j : m_reenter)
        if (ctx.rt(j).status == JobStatus::Pending && m_jobBucket[size_t(j)] < 0) {
            m_zone[size_t(j)] = 1;
            if (las)
                m_seq[size_t(j)] = ++m_back;
            enqueue(ctx, j);
        }
    m_reenter.clear();
    if (m_order == PreemptOrder::Srtf)
        m_srtf.sync(ctx);
    if (m_order == PreemptOrder::Gittins) {
        m_gidx.bind(m_gittins, &m_use, &m_zone, &m_seq);
        m_gidx.sync(now);
    }
    for (int j : m_adopt) // running from the start state: held, and in the running order, from now on
        if (ctx.rt(j).status == JobStatus::Running) {
            account(j, ctx.rt(j).slots, +1);
            m_t0[size_t(j)] = now;
            m_zone[size_t(j)] = 0;
            m_seq[size_t(j)] = las ? ++m_run : ++m_back;
            if (las)
                crossSet(ctx, j);
            if (m_order == PreemptOrder::Srtf)
                m_srtf.insert(ctx, j);
            else if (m_order == PreemptOrder::Las)
                runInsert(j, keyFor(ctx, j));
            else
                m_gidx.insert(j, m_q[size_t(j)], now, gittinsService(ctx, j));
        }
    m_adopt.clear();
    if (las) {
        demoteRunning(ctx);
        if (m_knob > 0)
            promoteStarved(ctx);
    }

    if (ctx.recording())
        recordRanking(ctx);

    // --- the walk: admission by GPU count per type (thousandths of a GPU) ---
    const size_t T = m_types;
    std::vector<int64_t>& bud = m_bud;
    std::copy(m_cap.begin(), m_cap.end(), bud.begin());
    const uint64_t typeBits = T >= 64 ? ~0ULL : (1ULL << T) - 1;
    auto fits = [&](uint64_t mask, int64_t milli) {
        // what is left of the types the mask allows (its set bits, of the first 64 types), summed
        int64_t s = 0;
        for (uint64_t m = mask & typeBits; m != 0; m &= m - 1)
            s += bud[size_t(__builtin_ctzll(m))];
        return s >= milli;
    };
    auto deduct = [&](uint64_t mask, int64_t milli) {
        while (milli > 0) {
            size_t best = T;
            for (size_t t = 0; t < T; ++t)
                if (t < 64 && ((mask >> t) & 1ULL) && bud[t] > 0 && (best == T || bud[t] > bud[best]))
                    best = t;
            if (best == T)
                return;
            const int64_t take = std::min(milli, bud[best]);
            bud[best] -= take;
            milli -= take;
        }
    };

    // Running jobs in priority order: LAS keeps them ordered (m_runIdx), SRTF in the order of their work left
    // now (m_srtf), Gittins by certified bounds of their index, evaluated where the walk needs it (m_gidx).
    const bool srtf = m_order == PreemptOrder::Srtf;
    const bool gittins = m_order == PreemptOrder::Gittins;
    auto firstNotFitting = [&](const RunIndex::Pos* from, const RunIndex::Pos* to) {
        if (gittins)
            return m_gidx.firstNotFitting(from, to, bud.data());
        if (!srtf)
            return m_runIdx.firstNotFitting(from, to, bud.data());
        return m_srtf.firstNotFitting(from, to, bud.data());
    };
    std::vector<std::pair<Key, int>>& walk = m_walkScratch; // pending jobs admitted, in priority order, with keys
    walk.clear();
    std::vector<int>& toPreempt = m_toPreempt;
    toPreempt.clear();

    // Fast path: when the waiting jobs that outrank some running job all fit in the free capacity, no
    // running job can lose its place, and the walk reduces to admitting waiting jobs into free capacity.
    // This avoids walking thousands of running jobs at every decision of a big run.
    bool fullWalk = false;
    bool anyPending = false;
    RunIndex::Pos lastRun {}; // LAS and SRTF: the last running job's position (fixed during the walk: the
                              // preemptions it decides are made after it), set whenever the walk is full
    for (const Bucket& b : m_buckets)
        anyPending = anyPending || !b.items.empty();
    if (!ctx.runningJobs().empty() && anyPending) {
        // is a running job after k? LAS and SRTF compare with the last running key; Gittins asks its index
        // (which knows without finding the last one)
        Key kmax {};
        if (!gittins) {
            lastRun = srtf ? m_srtf.last() : m_runIdx.last();
            kmax = lastRun.key;
        }
        auto belowKmax = [&](const Key& k) { return gittins ? m_gidx.anyAfter({k, std::numeric_limits<int>::max()}) : k < kmax; };
        std::copy(bud.begin(), bud.end(), m_budSave.begin());
        for (size_t t = 0; t < T; ++t)
            bud[t] -= m_usedByType[t];
        // do all the waiting jobs that outrank a running job fit, per GPU type, in what is free?
        for (const Bucket& b : m_buckets) {
            for (const PItem& it : b.items) {
                if (!belowKmax(it.key))
                    break;
                if (!fits(b.mask, b.milli)) {
                    fullWalk = true;
                    break;
                }
                deduct(b.mask, b.milli);
            }
            if (fullWalk)
                break;
        }
        std::copy(m_budSave.begin(), m_budSave.end(), bud.begin());
    }
    if (!fullWalk) {
        // running jobs all stay; only the jobs demoted at this decision change zone after the pass, and
        // they are picked up from m_demoted below
        for (size_t t = 0; t < T; ++t)
            bud[t] -= m_usedByType[t];
    }

    std::vector<SortedChunks<PItem>::const_iterator>& cur = m_cur;
    cur.resize(m_buckets.size());
    for (size_t b = 0; b < m_buckets.size(); ++b)
        cur[b] = m_buckets[b].items.begin();
    int pb = -1;
    bool stale = true;
    // LAS: the running jobs between two waiting jobs of the walk are a stretch of the index, kept in one step
    // while they fit (m_runIdx sums what they hold); only a job that does not fit is visited (preempted)
    RunIndex::Pos runFrom {};
    bool haveRunFrom = false;
    for (;;) {
        // the best waiting job that fits what is left; budget only shrinks, so the cached best stays best
        // while it still fits, and whether it still fits matters only once it is ahead of the next running job
        if (stale) {
            pb = -1;
            for (size_t b = 0; b < m_buckets.size(); ++b) {
                if (cur[b] == m_buckets[b].items.end() || !fits(m_buckets[b].mask, m_buckets[b].milli))
                    continue;
                if (pb < 0 || *cur[b] < *cur[size_t(pb)])
                    pb = int(b);
            }
            stale = false;
        }
        if (fullWalk) {
            // running jobs ahead of the waiting one (a running job goes first on an equal key, as below)
            RunIndex::Pos to {};
            if (pb >= 0)
                to = {cur[size_t(pb)]->key, std::numeric_limits<int>::max()};
            for (;;) {
                // past the last running job no stretch holds one, so none can fail to fit (under load about a
                // quarter of the questions of SRTF's walks: the waiting jobs behind every running one)
                if (!gittins && haveRunFrom && !(runFrom < lastRun)) {
                    if (ctx.config().checkInvariants) {
                        std::copy(bud.begin(), bud.end(), m_budSave.begin());
                        if (firstNotFitting(&runFrom, pb >= 0 ? &to : nullptr) >= 0 || bud != m_budSave)
                            throw std::logic_error(m_name + ": a stretch after the last running job holds one at t="
                                                   + std::to_string(now));
                    }
                    break;
                }
                const int j = firstNotFitting(haveRunFrom ? &runFrom : nullptr, pb >= 0 ? &to : nullptr);
                if (j < 0)
                    break;
                toPreempt.push_back(j);
                runFrom = {srtf ? m_srtf.keyNow(j) : gittins ? m_gidx.keyNow(j) : m_runKey[size_t(j)], j};
                haveRunFrom = true;
            }
            if (pb < 0)
                break;
            runFrom = to;
            haveRunFrom = true;
        }
        if (pb < 0)
            break;
        stale = true;
        if (!fits(m_buckets[size_t(pb)].mask, m_buckets[size_t(pb)].milli))
            continue;
        deduct(m_buckets[size_t(pb)].mask, m_buckets[size_t(pb)].milli);
        walk.push_back({cur[size_t(pb)]->key, cur[size_t(pb)]->job});
        ++cur[size_t(pb)];
    }

    // preempted jobs go to the pending zone of their queue, ahead of the jobs that were already pending
    // there and in their previous order (Tiresias moves all pending jobs to the back, order kept)
    // (a job demoted since the last pass was appended at the back and keeps that place)
    double n = 0;
    for (int j : toPreempt)
        n += m_zone[size_t(j)] == 0 ? 1 : 0;
    double i = 0;
    for (int j : toPreempt) {
        ctx.preempt(j);
        if (las && m_zone[size_t(j)] == 0)
            m_seq[size_t(j)] = m_front - n + i++;
        m_zone[size_t(j)] = 1;
        enqueue(ctx, j);
    }
    m_front -= n;
    m_reenter.clear();
    // jobs running after this pass that were in the pending zone join the running zone in walk order:
    // those demoted at this decision and kept, and the admitted ones that started (keys as in the walk)
    std::vector<std::pair<Key, int>>& joined = m_joinScratch;
    joined.clear();
    if (las)
        for (int j : m_demoted)
            if (ctx.rt(j).status == JobStatus::Running && m_zone[size_t(j)] == 1)
                joined.push_back({gittins ? keyFor(ctx, j) : m_runKey[size_t(j)], j});

    const char* reason = m_order == PreemptOrder::Srtf ? "srtf" : m_order == PreemptOrder::Las ? "las" : "gittins";
    for (const auto& w : walk) {
        const int j = w.second;
        m_ownStart = true;
        const bool started = placeAndStart(ctx, j, *m_place, reason);
        m_ownStart = false;
        if (!started)
            continue; // admitted by count but fragmented (fractional): stays pending
        account(j, ctx.rt(j).slots, +1);
        removePending(j);
        if (m_t0[size_t(j)] < 0)
            m_t0[size_t(j)] = now;
        if (las) {
            crossSet(ctx, j);
            if (m_zone[size_t(j)] == 1)
                joined.push_back(w);
        }
        if (srtf)
            m_srtf.insert(ctx, j);
        else if (gittins)
            m_gidx.insert(j, m_q[size_t(j)], now, gittinsService(ctx, j));
        else if (m_zone[size_t(j)] != 1)
            runInsert(j, w.first); // (a job joining the running zone goes in once, with its key after joining)
    }
    if (las) {
        std::sort(joined.begin(), joined.end());
        for (const auto& w : joined) {
            const int j = w.second;
            m_zone[size_t(j)] = 0;
            m_seq[size_t(j)] = ++m_run;
            if (!gittins) {
                // a job demoted at this decision is in the running order at the back of its new queue's
                // running jobs (zone 1, where no other running job is); joining the running zone moves it to
                // zone 0 after every running job there, in this sorted order: the same place in the order
                const Key k = keyFor(ctx, j);
                if (m_inRun[size_t(j)]) {
                    m_runKey[size_t(j)] = k;
                    m_runIdx.replaceKey(j, k);
                } else {
                    runInsert(j, k);
                }
            }
        }
    }
    if (ctx.config().checkInvariants && m_order == PreemptOrder::Las && !m_runIdx.ordered())
        throw std::logic_error(m_name + ": the running order is out of order at t=" + std::to_string(now));
    requestWake(ctx);
}

std::unique_ptr<Scheduler> PreemptiveScheduler::clone() const
{
    auto c = std::make_unique<PreemptiveScheduler>(*this);
    c->m_cur.clear(); // scratch iterators into this object's buckets
    c->m_srtf.clone(m_srtf, &c->m_seq, &c->m_use); // its callbacks and pointers: the copy's own
    return c->m_place && c->m_admit ? std::move(c) : nullptr;
}

} // namespace ss
