// Chronus (SoCC'21) as the joint policy `chronus` (ALGORITHMS.md §5, read from ChronusArtifact
// alg/scheduler/time_aware_with_lease.py and solver.py). What follows the artifact:
// - job classes: best-effort, accepted SLO, unaccepted SLO, lowest (no deadline reachable any more);
// - duration estimate est = duration x coef x 1.1, coef = 1 + (1 + log2 g)(0.4 + 0.1) / L (L in minutes); the
//   remaining estimate is progress-weighted: est x remaining work / duration;
// - leases of L minutes, R = ceil(remaining est / L); GPU demand rounded up to 1, 2, 4, 8 (> 8 unchanged) for
//   capacity accounting; admission: greedy latest-leases-first over the per-lease capacity table (accepted
//   jobs keep their cached plans), the tightest level first, then the binary search on the deadline up to the
//   loosest level; else unaccepted;
// - at every lease boundary the MILP (leaseplan.cpp) over the accepted jobs; jobs holding the current lease
//   run guaranteed; the greedy selector on solver failure, infeasibility or timeout without an incumbent;
//   more (job, level) entries than 1200 L / 60: jobs with cached plans keep them, out of the MILP;
// - inside a lease: unaccepted jobs that can finish within what is left of the lease are force-guaranteed
//   (L <= 30), then leftover GPUs go opportunistically by (overrun flag, min(class, unaccepted), emergence,
//   earlier submit); emergence = -remaining x g (SRTF on remaining GPU-time) for best-effort/unaccepted, and
//   -slack x g for accepted jobs, which take opportunistic GPUs only when L <= 30;
// - an accepted job that runs past its estimate is demoted to unaccepted with the overrun flag;
// - preemption overhead 0.5 (1 + log2 g) min per resume (charged as the resumed job's restore time).
// Our choices [I]:
// - admission runs as each job arrives (the artifact batches 5 minutes of arrivals and sorts them);
// - the engine is event driven, not a minute tick: decisions at arrivals, completions, lease boundaries and
//   the moment an accepted job would overrun its estimate;
// - at a boundary, running jobs that are selected again keep their GPUs (no checkpoint/restore); the others
//   are preempted; opportunistic jobs are reconsidered only at boundaries (inside a lease leftover GPUs are
//   handed out, nothing is preempted), so SRTF among opportunistic jobs is preemptive at lease granularity;
// - the artifact's odd-minute "filling" pass (ALGORITHMS.md: a likely bug) is not reproduced.
#include "policy/chronus/chronus.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ss::chronus {

const char* toString(JobClass c)
{
    switch (c) {
    case JobClass::BestEffort: return "best-effort";
    case JobClass::AcceptedSlo: return "accepted SLO";
    case JobClass::UnacceptedSlo: return "unaccepted SLO";
    case JobClass::Lowest: return "lowest";
    }
    return "?";
}

ChronusParams ChronusParams::from(const PolicyOptions& o)
{
    ChronusParams p;
    p.leaseMinutes = o.paramD("chronus.lease", 20);
    p.timeLimit = o.paramD("chronus.time_limit", 60); // a safety net: the node limit bounds the work, deterministically
    p.gap = o.paramD("chronus.gap", 1e-4);
    p.maxEntries = int(o.paramD("chronus.max_entries", -1));
    p.maxNodes = int(o.paramD("chronus.max_nodes", 10));
    p.overhead = o.param("chronus.overhead", "1") != "0";
    p.mode = o.param("chronus.mode", "adaptive");
    p.milp = o.param("chronus.solver", "cbc") != "greedy";
    if (!(p.leaseMinutes > 0))
        throw std::invalid_argument("chronus.lease must be > 0 minutes");
    return p;
}

namespace {
std::string fmt(double v, int prec = 0)
{
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(prec);
    s << v;
    return s.str();
}
} // namespace

ChronusScheduler::ChronusScheduler(ChronusParams p) : m_p(std::move(p)) {}

void ChronusScheduler::reset(const SimSetup& setup)
{
    m_leaseSec = m_p.leaseMinutes * 60.0;
    m_cluster = &setup.cluster;
    m_trace = &setup.trace;
    m_speed = SplitSpeed(setup.config.perf.crossMachine);
    const size_t n = setup.trace.jobs.size();
    m_js.assign(n, JobState {});
    m_gpus.resize(n);
    m_submit.resize(n);
    m_estFrom.assign(n, std::numeric_limits<double>::quiet_NaN()); // (equal to no work left: made at first use)
    m_estLeft.assign(n, 0);
    int maxGpus = 0;
    for (size_t i = 0; i < n; ++i) {
        m_gpus[i] = setup.trace.jobs[i].wholeGpus();
        m_submit[i] = setup.trace.jobs[i].submit;
        maxGpus = std::max(maxGpus, m_gpus[i]);
    }
    m_gpuCount.assign(size_t(maxGpus) + 1, 0);
    m_static.assign(size_t(maxGpus) + 1, {});
    m_maxRounded = 1;
    for (size_t i = 0; i < n; ++i) {
        const Job& j = setup.trace.jobs[i];
        const int g = j.wholeGpus();
        const double coef = 1.0 + (1.0 + std::log2(double(std::max(g, 1)))) * (0.4 + 0.1) / m_p.leaseMinutes;
        m_js[i].est = j.duration * coef * 1.1;
        m_js[i].cls = j.deadlines.empty() ? JobClass::BestEffort : JobClass::UnacceptedSlo;
        m_maxRounded = std::max(m_maxRounded, roundUpGpus(g));
    }
    m_total = setup.cluster.totalGpus();
    m_maxMachineGpus = 0;
    m_typeMaxGpus.assign(setup.cluster.types.size(), 0);
    for (const Machine& m : setup.cluster.machines) {
        m_maxMachineGpus = std::max(m_maxMachineGpus, m.gpus);
        m_typeMaxGpus[size_t(m.type)] = std::max(m_typeMaxGpus[size_t(m.type)], m.gpus);
    }
    m_cap.clear();
    m_active.clear();
    m_isActive.assign(n, 0);
    m_waiting.reset(n);
    m_acceptedJobs.clear();
    m_key.assign(n, Ranked {});
    m_rankedAs.assign(n, 0);
    m_dynamic.reset(n);
    m_rekey.clear();
    m_rekeyMark.assign(n, 0);
    m_boundaryLease = -1;
    m_wakeLease = -1;
    m_solves.clear();
    m_lastSolved.clear();
    m_lastSolveLease = -2;
    m_accepted = m_acceptedLater = m_unaccepted = m_demotions = 0;
}

int64_t ChronusScheduler::leaseOf(double t) const
{
    return int64_t(std::floor(t / m_leaseSec + 1e-9));
}

double ChronusScheduler::remainingEst(const SchedContext& ctx, int j) const
{
    const Job& jb = ctx.job(j);
    const double frac = jb.duration > 0 ? ctx.rt(j).remainingAt(ctx.now()) / jb.duration : 1.0;
    return m_js[size_t(j)].est * std::clamp(frac, 0.0, 1.0);
}

double ChronusScheduler::remainingEstNow(const SchedContext& ctx, int j) const
{
    const JobRuntime& r = ctx.rt(j);
    if (r.status == JobStatus::Running)
        return remainingEst(ctx, j);
    // (remainingAt is `remaining` for a job not running, so remainingEst depends on nothing else that moves)
    if (!(m_estFrom[size_t(j)] == r.remaining)) {
        m_estFrom[size_t(j)] = r.remaining;
        m_estLeft[size_t(j)] = remainingEst(ctx, j);
    }
    return m_estLeft[size_t(j)];
}

int ChronusScheduler::leasesNeeded(const SchedContext& ctx, int j) const
{
    return std::max(1, int(std::ceil(remainingEst(ctx, j) / m_leaseSec - 1e-9)));
}

double ChronusScheduler::overheadSec(int gpus) const
{
    return 0.5 * (1.0 + std::log2(double(std::max(gpus, 1)))) * 60.0;
}

void ChronusScheduler::charge(int j, int sign)
{
    JobState& s = m_js[size_t(j)];
    for (int64_t l : s.plan) {
        if (l < 0)
            continue;
        if (size_t(l) >= m_cap.size())
            m_cap.resize(size_t(l) + 1, 0);
        m_cap[size_t(l)] += sign * s.planGpus;
    }
}

CapacityTable ChronusScheduler::capacityFrom(int64_t first) const
{
    CapacityTable t(m_total);
    for (int64_t l = std::max<int64_t>(first, 0); l < int64_t(m_cap.size()); ++l)
        if (m_cap[size_t(l)] != 0)
            t.take(int(l - first), m_cap[size_t(l)]);
    return t;
}

AdmissionRecord ChronusScheduler::admit(const SchedContext& ctx, int j)
{
    if (!m_isActive[size_t(j)]) {
        m_isActive[size_t(j)] = 1;
        m_active.push_back(j);
        waitAdd(j); // (a job running from a start state leaves the list at the next decision: rekey)
    }
    JobState& s = m_js[size_t(j)];
    const Job& jb = ctx.job(j);
    if (jb.deadlines.empty())
        return {j, Admit::Accept, kNoScore, "best-effort job (no deadline)"};
    // guarantees start at the next lease boundary, or at this one when it has not been planned yet
    const int64_t k = leaseOf(ctx.now());
    const bool onBoundary = k != m_boundaryLease && ctx.now() - double(k) * m_leaseSec < 1e-6;
    const int64_t first = onBoundary ? k : k + 1;
    const int need = leasesNeeded(ctx, j);
    const int g = roundUpGpus(jb.wholeGpus());
    std::vector<int> maxLeases;
    for (const DeadlineLevel& d : jb.deadlines)
        maxLeases.push_back(int(leaseOf(jb.submit + d.offset) - first));
    const CapacityTable cap = capacityFrom(first);
    const AdmissionResult r = admitGreedy(cap, g, need, maxLeases);
    const std::string shape = std::to_string(need) + " lease" + (need == 1 ? "" : "s") + " of " + std::to_string(g) + " GPU" + (g == 1 ? "" : "s");
    if (r.kind == AdmissionResult::Unaccepted) {
        s.cls = JobClass::UnacceptedSlo;
        ++m_unaccepted;
        std::string why;
        if (maxLeases.back() < need)
            why = "unaccepted SLO: needs " + shape + ", only " + std::to_string(std::max(maxLeases.back(), 0))
                + (maxLeases.back() == 1 ? " lease" : " leases") + " before its loosest deadline (" + fmt(jb.deadlines.back().offset / 60) + " min)";
        else
            why = "unaccepted SLO: needs " + shape + " by lease " + std::to_string(first + maxLeases.back())
                + " (loosest deadline " + fmt(jb.deadlines.back().offset / 60) + " min), only "
                + std::to_string(r.bestAvailable) + (r.bestAvailable == 1 ? " lease there has" : " leases there have")
                + " the GPUs free";
        return {j, Admit::Accept, -1.0f, why};
    }
    s.cls = JobClass::AcceptedSlo;
    m_acceptedJobs.push_back(j);
    s.plan.clear();
    for (int l : r.leases)
        s.plan.push_back(first + l);
    s.planGpus = g;
    s.level = r.level;
    charge(j, +1);
    ++m_accepted;
    const double dlMin = (double(first + r.maxLease) * m_leaseSec - jb.submit) / 60.0;
    std::string why;
    if (r.kind == AdmissionResult::Accepted && r.level == 0) {
        why = "accepted SLO: " + shape + " by lease " + std::to_string(first + r.maxLease) + " (deadline "
            + fmt(jb.deadlines.front().offset / 60) + " min, lease-aligned " + fmt(dlMin) + " min)";
    } else {
        s.acceptedLater = true;
        ++m_acceptedLater;
        why = "accepted with a later deadline: " + shape + (need == 1 ? " does" : " do") + " not fit by the first deadline ("
            + fmt(jb.deadlines.front().offset / 60) + " min); fit by lease " + std::to_string(first + r.maxLease) + " ("
            + fmt(dlMin) + " min, level " + std::to_string(r.level + 1) + ", value "
            + fmt(jb.deadlines[size_t(r.level)].value, 1) + ")";
    }
    return {j, Admit::Accept, float(dlMin), why};
}

void ChronusScheduler::waitAdd(int j)
{
    if (m_waiting.has(j))
        return;
    m_waiting.add(j);
    ++m_gpuCount[size_t(m_gpus[size_t(j)])];
    markRekey(j);
}

void ChronusScheduler::markRekey(int j)
{
    if (!m_rekeyMark[size_t(j)]) {
        m_rekeyMark[size_t(j)] = 1;
        m_rekey.push_back(j);
    }
}

void ChronusScheduler::unrank(int j)
{
    if (m_rankedAs[size_t(j)] == 1) {
        m_static[size_t(m_gpus[size_t(j)])].erase(m_key[size_t(j)]);
    } else if (m_rankedAs[size_t(j)] == 2) {
        m_dynamic.remove(j);
    }
    m_rankedAs[size_t(j)] = 0;
}

void ChronusScheduler::rekey(const SchedContext& ctx)
{
    for (const int j : m_rekey) {
        m_rekeyMark[size_t(j)] = 0;
        unrank(j);
        if (!m_waiting.has(j))
            continue;
        if (ctx.rt(j).status != JobStatus::Pending) { // admitted while running from a start state
            waitRemove(j);
            continue;
        }
        if (rankMoves(j)) {
            m_rankedAs[size_t(j)] = 2;
            m_dynamic.add(j);
        } else if (rankOf(ctx, j, 0.0, m_key[size_t(j)])) { // (no tier hangs on what is left of the lease here)
            m_rankedAs[size_t(j)] = 1;
            m_static[size_t(m_gpus[size_t(j)])].insert(m_key[size_t(j)]);
        }
    }
    m_rekey.clear();
    if (ctx.config().checkInvariants)
        checkRanks(ctx);
}

void ChronusScheduler::waitRemove(int j)
{
    if (!m_waiting.has(j))
        return;
    m_waiting.remove(j);
    --m_gpuCount[size_t(m_gpus[size_t(j)])];
    unrank(j);
}

template <class F> void ChronusScheduler::forRunningAccepted(const SchedContext& ctx, F f)
{
    size_t w = 0;
    for (const int j : m_acceptedJobs) {
        if (m_js[size_t(j)].cls != JobClass::AcceptedSlo || !m_isActive[size_t(j)])
            continue; // demoted or finished: never accepted again
        m_acceptedJobs[w++] = j;
        if (ctx.rt(j).status == JobStatus::Running)
            f(j);
    }
    m_acceptedJobs.resize(w);
}

void ChronusScheduler::onJobStarted(int j, double, const JobRuntime&) { waitRemove(j); }

void ChronusScheduler::onJobStopped(int j, double, bool finished, const JobRuntime&)
{
    JobState& s = m_js[size_t(j)];
    s.guaranteed = false;
    if (!finished) {
        if (m_isActive[size_t(j)])
            waitAdd(j);
        return;
    }
    waitRemove(j);
    charge(j, -1);
    s.plan.clear();
    if (m_isActive[size_t(j)]) {
        m_isActive[size_t(j)] = 0;
        m_active.erase(std::find(m_active.begin(), m_active.end(), j));
    }
}

void ChronusScheduler::demoteOverruns(SchedContext& ctx)
{
    // (the order does not matter: each demotion is the job's own, and the capacity table adds integers)
    forRunningAccepted(ctx, [&](int j) {
        JobState& s = m_js[size_t(j)];
        if (ctx.rt(j).executedAt(ctx.now()) < s.est - 1e-6)
            return;
        s.cls = JobClass::UnacceptedSlo;
        s.fakeForce = true;
        markRekey(j);
        s.guaranteed = false;
        charge(j, -1);
        s.plan.clear();
        ++m_demotions;
    });
}

void ChronusScheduler::refreshClasses(SchedContext& ctx, int64_t k)
{
    demoteOverruns(ctx);
    const double now = ctx.now();
    for (int j : m_active) {
        JobState& s = m_js[size_t(j)];
        const Job& jb = ctx.job(j);
        if (s.cls == JobClass::AcceptedSlo) {
            const int need = leasesNeeded(ctx, j);
            bool any = false;
            for (const DeadlineLevel& d : jb.deadlines)
                any = any || leaseOf(jb.submit + d.offset) - k >= need;
            if (!any) {
                s.cls = JobClass::Lowest;
                markRekey(j);
                charge(j, -1);
                s.plan.clear();
            }
        } else if (s.cls == JobClass::UnacceptedSlo) {
            if (jb.submit + jb.deadlines.back().offset < now + remainingEst(ctx, j)) {
                s.cls = JobClass::Lowest;
                markRekey(j);
            }
        }
    }
}

double ChronusScheduler::emergence(const SchedContext& ctx, int j) const
{
    const JobState& s = m_js[size_t(j)];
    const double rem = remainingEstNow(ctx, j);
    const double g = double(m_gpus[size_t(j)]);
    if (s.cls == JobClass::AcceptedSlo) {
        const Job& jb = ctx.job(j);
        double dl = jb.submit + jb.deadlines.back().offset;
        for (const DeadlineLevel& d : jb.deadlines)
            if (jb.submit + d.offset >= ctx.now() + rem) {
                dl = jb.submit + d.offset;
                break;
            }
        return -(dl - ctx.now() - rem) * g;
    }
    return -rem * g;
}

bool ChronusScheduler::rankOf(const SchedContext& ctx, int j, double leaseLeft, Ranked& out) const
{
    const JobState& s = m_js[size_t(j)];
    int tier = 0;
    if (s.cls == JobClass::AcceptedSlo) {
        if (!shortLease())
            return false; // L > 30: accepted jobs take no opportunistic GPUs
        tier = 2;
    } else if (s.cls == JobClass::Lowest) {
        tier = s.fakeForce ? 4 : 1;
    } else {
        tier = s.fakeForce ? 4 : 3;
        if (shortLease() && s.cls == JobClass::UnacceptedSlo && remainingEstNow(ctx, j) <= leaseLeft + 1e-6)
            tier = 5; // force-guaranteed: it finishes within what is left of this lease
    }
    out = {j, tier, emergence(ctx, j), m_submit[size_t(j)], m_gpus[size_t(j)]};
    return true;
}

std::vector<ChronusScheduler::Ranked> ChronusScheduler::rankWaiting(const SchedContext& ctx, const std::vector<int>& jobs,
                                                                    double leaseLeft, bool sorted) const
{
    std::vector<Ranked> out;
    out.reserve(jobs.size());
    Ranked r;
    for (int j : jobs)
        if (rankOf(ctx, j, leaseLeft, r))
            out.push_back(r);
    if (sorted)
        std::sort(out.begin(), out.end(), rankedBefore);
    return out;
}

bool ChronusScheduler::rankedBefore(const Ranked& a, const Ranked& b)
{
    if (a.tier != b.tier)
        return a.tier > b.tier;
    if (a.emergence != b.emergence)
        return a.emergence > b.emergence;
    if (a.submit != b.submit)
        return a.submit < b.submit;
    return a.job < b.job;
}

std::vector<int> ChronusScheduler::freeGpusPerMachine(const SchedContext& ctx) const
{
    std::vector<int> f(size_t(m_cluster->machineCount()));
    for (int m = 0; m < int(f.size()); ++m)
        f[size_t(m)] = ctx.state().freeGpus(m);
    return f;
}

bool ChronusScheduler::startOn(SchedContext& ctx, int j, const Parts& parts, const std::string& reason,
                               const std::vector<int>& freeBefore)
{
    const Job& jb = ctx.job(j);
    std::vector<GpuSlot> slots;
    for (const auto& [m, c] : parts) {
        const int base = m_cluster->gpuBase(m);
        int got = 0;
        for (int g = base; g < base + m_cluster->machines[size_t(m)].gpus && got < c; ++g)
            if (ctx.state().gpuFreeMilli(g) >= 1000 && ctx.state().gpuHolderCount(g) == 0) {
                slots.push_back({g, jb.fractional() ? jb.milli() : 1000});
                ++got;
            }
        if (got < c)
            return false;
    }
    if (ctx.recording()) {
        std::vector<float> aff(freeBefore.size(), -1.0f);
        const int g = jb.wholeGpus();
        for (size_t m = 0; m < freeBefore.size(); ++m)
            if (freeBefore[m] >= g)
                aff[m] = 0.5f - 0.01f * float(freeBefore[m] - g); // tighter fits score higher
            else if (freeBefore[m] > 0)
                aff[m] = 0.1f * float(freeBefore[m]) / float(std::max(g, 1));
        for (const auto& [m, c] : parts)
            aff[size_t(m)] = 1.0f;
        ctx.recordPlacement(j, slots, std::move(aff), reason);
    }
    ctx.start(j, std::move(slots), reason, m_p.overhead ? overheadSec(jb.wholeGpus()) : -1.0);
    return true;
}

int ChronusScheduler::placeBatch(SchedContext& ctx, const std::vector<int>& jobs, const char* why, std::vector<int>* failed)
{
    int started = 0;
    std::vector<int> fr = freeGpusPerMachine(ctx);
    std::vector<PlaceRequest> small;
    for (int j : jobs) {
        const Job& jb = ctx.job(j);
        PlaceRequest r {j, jb.wholeGpus(), ctx.trace().modelName(jb), ctx.rt(j).typeMask};
        // Local search places a job on one machine or splits it over two; a job that two machines of its GPU
        // types cannot hold (8 GPUs of T4 on 2-GPU machines) is consolidated as the large ones are, else it
        // would wait for ever (and the run with it: Chronus wakes at every lease while a job waits).
        int ownMax = 0;
        for (size_t t = 0; t < m_typeMaxGpus.size(); ++t)
            if (t >= 64 || ((r.typeMask >> t) & 1ULL))
                ownMax = std::max(ownMax, m_typeMaxGpus[t]);
        if (r.gpus <= std::min(8, m_maxMachineGpus) && r.gpus <= 2 * ownMax) {
            small.push_back(std::move(r));
            continue;
        }
        const Parts p = consolidatePlace(r, fr, *m_cluster);
        const std::vector<int> before = fr;
        if (!p.empty() && startOn(ctx, j, p, std::string(why) + ": consolidated on " + std::to_string(p.size()) + " machines", before)) {
            for (const auto& [m, c] : p)
                fr[size_t(m)] -= c;
            ++started;
        } else if (failed) {
            failed->push_back(j);
        }
    }
    if (small.empty())
        return started;
    const BatchPlacement bp = localSearchPlace(small, fr, *m_cluster, m_speed);
    const std::vector<int> before = fr;
    for (size_t i = 0; i < small.size(); ++i) {
        const Parts& p = bp.parts[i];
        const std::string reason = std::string(why) + ": local search (" + bp.pass + "), "
            + (p.size() == 1 ? "one machine" : std::to_string(p.size()) + "-machine split");
        if (!p.empty() && startOn(ctx, small[i].job, p, reason, before))
            ++started;
        else if (failed)
            failed->push_back(small[i].job);
    }
    return started;
}

void ChronusScheduler::recordQueue(SchedContext& ctx, const std::vector<Ranked>& ranked)
{
    if (!ctx.recording())
        return;
    std::vector<ScoredJob> q;
    q.reserve(ranked.size());
    for (const Ranked& r : ranked)
        q.push_back({r.job, float(r.tier * 1000 + std::clamp(r.emergence / 3600.0, -999.0, 0.0))});
    ctx.recordQueue(std::move(q));
}

void ChronusScheduler::checkKept(const SchedContext& ctx) const
{
    // what a decision reads instead of every active and running job: every waiting one, every running accepted one
    for (int j : m_active) {
        const JobStatus st = ctx.rt(j).status;
        if (st == JobStatus::Pending && !m_waiting.has(j))
            throw std::logic_error("chronus: waiting job " + std::to_string(j) + " missing from the waiting list at t="
                                   + std::to_string(ctx.now()));
        if (st == JobStatus::Running && m_js[size_t(j)].cls == JobClass::AcceptedSlo
            && std::find(m_acceptedJobs.begin(), m_acceptedJobs.end(), j) == m_acceptedJobs.end())
            throw std::logic_error("chronus: accepted job " + std::to_string(j) + " missing from the accepted list at t="
                                   + std::to_string(ctx.now()));
    }
}

void ChronusScheduler::checkRanks(const SchedContext& ctx) const
{
    size_t statics = 0;
    std::vector<int> count(m_gpuCount.size(), 0);
    for (int j : m_waiting.jobs) {
        if (ctx.rt(j).status != JobStatus::Pending)
            throw std::logic_error("chronus: job " + std::to_string(j) + " on the waiting list is not waiting");
        ++count[size_t(m_gpus[size_t(j)])];
        const bool dynamic = rankMoves(j);
        Ranked r;
        const bool ranked = !dynamic && rankOf(ctx, j, 0.0, r);
        const int as = dynamic ? 2 : ranked ? 1 : 0;
        bool ok = m_rankedAs[size_t(j)] == as;
        if (ok && as == 1) {
            const Ranked& kept = m_key[size_t(j)];
            ok = kept.job == j && kept.tier == r.tier && kept.emergence == r.emergence && kept.submit == r.submit
                && kept.gpus == r.gpus;
            ++statics;
        }
        if (!ok)
            throw std::logic_error("chronus: the kept rank of waiting job " + std::to_string(j)
                                   + " is not its rank now at t=" + std::to_string(ctx.now()));
    }
    size_t kept = 0;
    for (const auto& set : m_static)
        kept += set.size();
    if (statics != kept || count != m_gpuCount)
        throw std::logic_error("chronus: the kept ranks hold jobs that are not waiting at t=" + std::to_string(ctx.now()));
}

void ChronusScheduler::schedule(SchedContext& ctx)
{
    if (ctx.config().checkInvariants)
        checkKept(ctx);
    const int64_t k = leaseOf(ctx.now());
    if (k != m_boundaryLease) {
        m_boundaryLease = k;
        leaseBoundary(ctx, k);
    } else {
        demoteOverruns(ctx);
        rekey(ctx);
        int least = std::numeric_limits<int>::max(); // the fewest GPUs any waiting job needs
        for (size_t g = 0; g < m_gpuCount.size(); ++g)
            if (m_gpuCount[g] > 0) {
                least = int(g);
                break;
            }
        const double leaseLeft = double(k + 1) * m_leaseSec - ctx.now();
        // the waiting jobs in rank order, each taken when its GPUs fit in what is free: the kept order merged with
        // the jobs ranked now, read only until nothing left can fit (all of it when the decision is recorded: the
        // log has the whole ranking); nothing is ranked when no waiting job fits at all
        const bool whole = ctx.recording();
        int free = ctx.state().totalFreeGpus();
        std::vector<Ranked> ranked; // whole: every waiting job's rank, in order
        std::vector<int> pick;
        auto consider = [&](const Ranked& r) {
            const int g = r.gpus;
            if (g <= free) {
                pick.push_back(r.job);
                free -= g;
                if (r.tier == 5)
                    m_js[size_t(r.job)].guaranteed = true;
            }
        };
        if (whole) {
            ranked = rankWaiting(ctx, m_dynamic.jobs, leaseLeft, false);
            for (const auto& set : m_static)
                ranked.insert(ranked.end(), set.begin(), set.end());
            std::sort(ranked.begin(), ranked.end(), rankedBefore);
            for (const Ranked& r : ranked)
                consider(r);
        } else if (free >= least) {
            takeInOrder(rankWaiting(ctx, m_dynamic.jobs, leaseLeft, true), free, consider);
        }
        if (!pick.empty())
            placeBatch(ctx, pick, "opportunistic", nullptr);
        for (int j : pick)
            if (ctx.rt(j).status != JobStatus::Running)
                m_js[size_t(j)].guaranteed = false;
        recordQueue(ctx, ranked);
    }
    requestWakes(ctx);
}

void ChronusScheduler::takeInOrder(const std::vector<Ranked>& now, const int& free,
                                   const std::function<void(const Ranked&)>& take) const
{
    // Walking the whole order and taking each job that fits in what is left, a job skipped never fits later (what is
    // free only shrinks): so the next job taken is the first in rank order among those asking for at most what is
    // free, the first of `now` that fits or the first of a GPU count's kept set. `take` subtracts from `free`.
    std::vector<std::set<Ranked, RankOrder>::const_iterator> at;
    for (const auto& set : m_static)
        at.push_back(set.begin());
    size_t d = 0;
    for (;;) {
        while (d < now.size() && now[d].gpus > free)
            ++d;
        const Ranked* best = d < now.size() ? &now[d] : nullptr;
        int from = -1; // the set it comes from (-1: now)
        for (int g = 0; g <= std::min(free, int(m_static.size()) - 1); ++g)
            if (at[size_t(g)] != m_static[size_t(g)].end() && (!best || rankedBefore(*at[size_t(g)], *best))) {
                best = &*at[size_t(g)];
                from = g;
            }
        if (!best)
            return;
        const Ranked r = *best;
        if (from < 0)
            ++d;
        else
            ++at[size_t(from)];
        take(r);
    }
}

void ChronusScheduler::requestWakes(SchedContext& ctx)
{
    if (m_active.empty())
        return;
    const int64_t k = leaseOf(ctx.now());
    const double next = double(k + 1) * m_leaseSec;
    if (m_wakeLease != k + 1) {
        m_wakeLease = k + 1;
        ctx.wakeAt(next);
    }
    double over = kInf;
    forRunningAccepted(ctx, [&](int j) {
        over = std::min(over, ctx.now() + std::max(m_js[size_t(j)].est - ctx.rt(j).executedAt(ctx.now()), 1.0));
    });
    if (over < next)
        ctx.wakeAt(over);
}

} // namespace ss::chronus
