#include "sim/engine.h"
#include "sim/invariants.h"
#include "sim/slotmachines.h"
#include "sim/workleft.h"

#include <algorithm>
#include <cmath>

namespace ss {


const char* toString(JobStatus s)
{
    switch (s) {
    case JobStatus::Future: return "future";
    case JobStatus::Pending: return "pending";
    case JobStatus::Running: return "running";
    case JobStatus::Done: return "done";
    case JobStatus::Rejected: return "rejected";
    case JobStatus::Unfinished: return "unfinished";
    case JobStatus::Deferred: return "deferred";
    }
    return "?";
}

// ----------------------------------------------------------------------------------------------- JobRuntime
double JobRuntime::executedAt(double now) const
{
    return executed + (status == JobStatus::Running ? std::max(0.0, now - lastStart) : 0.0);
}

double JobRuntime::attainedAt(double now, double gpus) const
{
    return attained + (status == JobStatus::Running ? gpus * std::max(0.0, now - lastStart) : 0.0);
}

double JobRuntime::remainingAt(double now) const
{
    if (status != JobStatus::Running)
        return remaining;
    return workLeftAt(remaining, std::max(lastUpdate, resumeAt), rate, now);
}

// --------------------------------------------------------------------------------------------- SchedContext
bool SchedContext::machineOffline(int m) const { return m_sim.machineOffline(m); }
int SchedContext::pendingCount() const { return m_sim.m_pending.size(); }
Rng& SchedContext::rng() { return m_sim.m_policyRng; }

const std::vector<int>& SchedContext::admittedLate() const { return m_sim.m_admittedLate; }

std::vector<int> SchedContext::pendingJobs() const
{
    std::vector<int> out;
    out.reserve(size_t(m_sim.m_pending.size()));
    forEachPending([&](int j) {
        out.push_back(j);
        return true;
    });
    return out;
}

double SchedContext::start(int job, const std::vector<GpuSlot>& slots, std::string_view reason, double restoreDelay)
{
    const std::string err = m_sim.validateStart(job, slots);
    if (!err.empty())
        throw PolicyError(m_sim.m_policy->name() + ": cannot start job " + std::to_string(job) + " at t="
                          + std::to_string(m_sim.m_now) + ": " + err);
    return startChecked(job, slots, reason, restoreDelay, -1, 1.0);
}

void SchedContext::startShared(int a, int b, const std::vector<int>& gpus, std::string_view reason)
{
    double fa = 1, fb = 1;
    const std::string err = m_sim.validateShared(a, b, gpus, fa, fb);
    if (!err.empty())
        throw PolicyError(m_sim.m_policy->name() + ": cannot start jobs " + std::to_string(a) + " and "
                          + std::to_string(b) + " sharing GPUs at t=" + std::to_string(m_sim.m_now) + ": " + err);
    std::vector<GpuSlot> half;
    for (int g : gpus)
        half.push_back({g, 500});
    startChecked(a, half, reason, -1, b, fa);
    startChecked(b, half, reason, -1, a, fb);
}

double SchedContext::startChecked(int job, const std::vector<GpuSlot>& slots, std::string_view reason, double restoreDelay,
                                  int partner, double pairFactor)
{
    Simulator& s = m_sim;
    JobRuntime& r = s.m_rt[size_t(job)];
    const Job& jb = s.m_trace.jobs[size_t(job)];
    s.m_state.allocate(job, slots);
    r.slots.assign(slots.begin(), slots.end()); // (into the buffer the job kept when it stopped)
    r.status = JobStatus::Running;
    if (r.firstStart < 0)
        r.firstStart = s.m_now;
    r.lastStart = s.m_now;
    r.lastUpdate = s.m_now;
    r.resumeAt = s.m_now + (r.preemptions > 0 ? (restoreDelay >= 0 ? restoreDelay : s.m_cfg.perf.preemptOverhead) : 0.0);
    s.m_pending.markRemoved();
    s.m_runningPos[size_t(job)] = int(s.m_running.size());
    s.m_running.push_back(job);

    // machines and switches spanned
    s.m_machineScratch.clear();
    s.m_switchScratch.clear();
    for (const GpuSlot& g : r.slots) {
        const int m = s.m_cluster.machineOfGpu(g.gpu);
        if (!s.m_machineMark[size_t(m)]) {
            s.m_machineMark[size_t(m)] = 1;
            s.m_machineScratch.push_back(m);
            const int sw = s.m_cluster.machines[size_t(m)].sw;
            if (!s.m_switchMark[size_t(sw)]) {
                s.m_switchMark[size_t(sw)] = 1;
                s.m_switchScratch.push_back(sw);
            }
        }
    }
    for (int m : s.m_machineScratch) {
        s.m_machineMark[size_t(m)] = 0;
        s.m_machineJobs[size_t(m)].push_back(job);
    }
    if (s.m_machineScratch.size() > 1)
        s.m_jobMachines[size_t(job)].assign(s.m_machineScratch.begin(), s.m_machineScratch.end());
    for (int sw : s.m_switchScratch)
        s.m_switchMark[size_t(sw)] = 0;
    r.machines = int(s.m_machineScratch.size());
    r.machine = s.m_machineScratch.empty() ? -1 : s.m_machineScratch.front();
    r.partner = partner;
    s.setAlone(job, r.machines == 1 && partner < 0);
    r.pairFactor = pairFactor;
    s.countCoRunners(job); // from the machines just listed
    const int co = r.coRunners;
    r.baseRate = s.m_perf.placementRate(jb, s.m_machineScratch, s.m_switchScratch, 0) * pairFactor;
    r.rate = r.baseRate / (1.0 + (s.m_perf.config().ideal ? 0.0 : s.m_cfg.perf.interference) * co);
    s.scheduleCompletion(job);

    if (m_record && !loggedPlacement(job)) {
        // every start is in the log (the stepper, cluster map and Gantt replay it), with the reason of a policy
        // that does not record placements itself
        PlacementRecord pr;
        pr.job = job;
        pr.slots = r.slots;
        pr.reason = std::string(reason);
        noteLogged(job, m_record->placements.size());
        m_record->placements.push_back(std::move(pr));
    }
    for (SimObserver* o : s.m_obs)
        o->onJobStarted(s.m_now, job, r);
    s.m_policy->onJobStarted(job, s.m_now, r);
    if (co > 0)
        s.refreshRatesOn(job, true);
    return r.rate;
}

void SchedContext::preempt(int job)
{
    if (job < 0 || job >= jobCount() || m_sim.m_rt[size_t(job)].status != JobStatus::Running)
        throw PolicyError(m_sim.m_policy->name() + ": cannot preempt job " + std::to_string(job) + ": not running");
    if (m_record)
        m_record->preempted.push_back(job);
    m_sim.stopJob(job, false);
}

void SchedContext::wakeAt(double t)
{
    if (!(t > m_sim.m_now) || !std::isfinite(t))
        return;
    m_sim.m_wakes.push(t);
}

// ------------------------------------------------------------------------------------------------ Simulator
Simulator::Simulator(const ClusterSpec& cluster, const Trace& trace, Scheduler& policy, RunConfig cfg,
                     const ThroughputTable* table)
    : m_cluster(cluster), m_trace(trace), m_policy(&policy), m_cfg(cfg),
      m_perf(cluster, trace, cfg.perf, cfg.seed, table), m_state(cluster), m_policyRng(cfg.seed * 0x2545F4914F6CDD1DULL + 7),
      m_setup{cluster, trace, m_perf, m_cfg}, m_ctx(*this)
{
    // The ledger costs O(1) per event, so the environment switch turns it on for every run of a test suite,
    // however big; the per-decision O(GPUs) ClusterState check stays with RunConfig::checkInvariants.
    if (m_cfg.checkInvariants || InvariantChecker::enabledByEnvironment()) {
        m_checker = std::make_unique<InvariantChecker>();
        m_obs.push_back(m_checker.get()); // first, so it sees every event before anyone acts on it
    }
}

Simulator::~Simulator() = default;

void Simulator::addObserver(SimObserver* obs) { m_obs.push_back(obs); }

std::string Simulator::validateShared(int a, int b, const std::vector<int>& gpus, double& fa, double& fb) const
{
    if (a == b)
        return "a job cannot share GPUs with itself";
    std::vector<GpuSlot> whole;
    for (int g : gpus)
        whole.push_back({g, 1000});
    for (int j : {a, b}) {
        if (j < 0 || size_t(j) >= m_rt.size())
            return "no such job " + std::to_string(j);
        const Job& jb = m_trace.jobs[size_t(j)];
        if (jb.fractional())
            return "job " + std::to_string(j) + " asks for a share of a GPU; only whole-GPU jobs are paired";
        if (const std::string e = validateStart(j, whole); !e.empty())
            return "job " + std::to_string(j) + ": " + e;
    }
    if (gpus.empty())
        return "no GPUs";
    const int type = m_cluster.machines[size_t(m_cluster.machineOfGpu(gpus.front()))].type;
    for (int g : gpus)
        if (m_cluster.machines[size_t(m_cluster.machineOfGpu(g))].type != type)
            return "the GPUs are of more than one type";
    return m_perf.pairFactors(m_trace.jobs[size_t(a)], m_trace.jobs[size_t(b)], type, fa, fb);
}

std::string Simulator::validateStart(int j, const std::vector<GpuSlot>& slots) const
{
    if (j < 0 || size_t(j) >= m_rt.size())
        return "no such job";
    const JobRuntime& r = m_rt[size_t(j)];
    if (r.status != JobStatus::Pending)
        return std::string("job is ") + toString(r.status) + ", not pending";
    const Job& jb = m_trace.jobs[size_t(j)];
    if (int(slots.size()) != jb.wholeGpus())
        return "needs " + std::to_string(jb.wholeGpus()) + " GPU(s), got " + std::to_string(slots.size());
    for (const GpuSlot& s : slots) {
        if (s.gpu < 0 || s.gpu >= m_cluster.totalGpus())
            return "GPU " + std::to_string(s.gpu) + " does not exist";
        if (s.milli != jb.milli())
            return "share " + std::to_string(s.milli) + " on GPU " + std::to_string(s.gpu) + " != demand "
                + std::to_string(jb.milli());
        const int type = m_cluster.machines[size_t(m_cluster.machineOfGpu(s.gpu))].type;
        if (!((r.typeMask >> type) & 1ULL))
            return "GPU " + std::to_string(s.gpu) + " is of a type the job may not use";
    }
    if (!m_state.canAllocate(slots))
        return "GPUs are busy or listed twice (double booking)";
    return {};
}

// A 4-ary heap: half the levels of a binary one, so fewer moves (each also writes the moved job's position)
// per update; the top is the same, as (time, job) orders every pair of entries.
void Simulator::CompletionHeap::up(size_t i)
{
    const Node n = m_h[i];
    while (i > 0) {
        const size_t p = (i - 1) / 4;
        if (!less(n, m_h[p]))
            break;
        place(i, m_h[p]);
        i = p;
    }
    place(i, n);
}

void Simulator::CompletionHeap::down(size_t i)
{
    const Node n = m_h[i];
    const size_t sz = m_h.size();
    for (;;) {
        const size_t first = 4 * i + 1;
        if (first >= sz)
            break;
        size_t c = first;
        const size_t end = std::min(first + 4, sz);
        for (size_t k = first + 1; k < end; ++k)
            if (less(m_h[k], m_h[c]))
                c = k;
        if (!less(m_h[c], n))
            break;
        place(i, m_h[c]);
        i = c;
    }
    place(i, n);
}

void Simulator::CompletionHeap::update(int job, double t)
{
    const int p = m_pos[size_t(job)];
    if (p < 0) {
        m_h.push_back({t, job});
        m_pos[size_t(job)] = int(m_h.size() - 1);
        up(m_h.size() - 1);
        return;
    }
    const double old = m_h[size_t(p)].t;
    m_h[size_t(p)].t = t;
    if (t < old)
        up(size_t(p));
    else
        down(size_t(p));
}

void Simulator::CompletionHeap::remove(int job)
{
    const int p = m_pos[size_t(job)];
    if (p < 0)
        return;
    m_pos[size_t(job)] = -1;
    const Node last = m_h.back();
    m_h.pop_back();
    if (size_t(p) == m_h.size())
        return;
    place(size_t(p), last);
    up(size_t(p));
    down(size_t(m_pos[size_t(last.job)]));
}

void Simulator::begin()
{
    m_started = true;
    const size_t n = m_trace.jobs.size();
    m_completions.reset(n);
    m_rt.assign(n, JobRuntime {});
    m_runningPos.assign(n, -1);
    m_machineJobs.assign(size_t(m_cluster.machineCount()), {});
    m_jobMachines.assign(n, {});
    m_rerateMark.assign(m_rt.size(), 0);
    m_retimedMark.assign(m_rt.size(), 0);
    m_retimed.clear();
    m_retimedShown.clear();
    m_rerateLater.clear();
    m_machineMark.assign(size_t(m_cluster.machineCount()), 0);
    m_switchMark.assign(m_cluster.switches.size(), 0);
    // resolve GPU-type constraints ('|'-separated type names) to bit masks over the cluster's types
    m_specMask.assign(m_trace.gpuSpecs.size(), 0);
    for (size_t s = 0; s < m_trace.gpuSpecs.size(); ++s) {
        const std::string& spec = m_trace.gpuSpecs[s];
        size_t p = 0;
        while (p <= spec.size()) {
            size_t q = spec.find('|', p);
            if (q == std::string::npos)
                q = spec.size();
            const int t = m_cluster.typeIndex(std::string_view(spec).substr(p, q - p));
            if (t >= 0)
                m_specMask[s] |= 1ULL << t;
            p = q + 1;
        }
    }
    for (size_t j = 0; j < n; ++j) {
        JobRuntime& r = m_rt[j];
        r.remaining = m_trace.jobs[j].duration;
        const int spec = m_trace.jobs[j].gpuSpec;
        r.typeMask = spec >= 0 ? m_specMask[size_t(spec)] : ~0ULL;
    }
    m_policy->reset(m_setup);
    for (SimObserver* o : m_obs)
        o->onRunStart(m_setup);
    // machine events timed before the clock starts (time < 0): the machine is down from the start, without a
    // decision point of its own (forks that add machines keep them down until the fork point)
    while (m_nextMachineEvent < m_machineEvents.size() && m_machineEvents[m_nextMachineEvent].time < 0)
        applyMachineEvent(m_machineEvents[m_nextMachineEvent++]);
}

void Simulator::arrive(int j)
{
    JobRuntime& r = m_rt[size_t(j)];
    const Job& jb = m_trace.jobs[size_t(j)];
    for (SimObserver* o : m_obs)
        o->onJobArrived(m_now, j);
    // Jobs that no placement could ever satisfy are rejected at once (else the run would never end).
    int capacity = 0;
    for (size_t t = 0; t < m_cluster.types.size(); ++t)
        if ((r.typeMask >> t) & 1ULL)
            capacity += m_typeGpus[t];
    const int largest = capacity;
    std::string why;
    if (r.typeMask == 0 || capacity == 0)
        why = "no GPU of an allowed type in the cluster";
    else if (jb.wholeGpus() > largest)
        why = "demands " + std::to_string(jb.wholeGpus()) + " GPUs, the cluster has " + std::to_string(largest)
            + " of the allowed types";
    if (!why.empty()) {
        r.status = JobStatus::Rejected;
        for (SimObserver* o : m_obs)
            o->onJobRejected(m_now, j, why);
        return;
    }
    if (m_cfg.recordDecisions)
        m_arrivedNow.push_back(j);
    if (m_policy->hasAdmission()) {
        r.status = JobStatus::Deferred; // until the admission stage accepts it, before this decision
        m_awaiting.push_back(j);
        return;
    }
    enqueuePending(j);
}

void Simulator::enqueuePending(int j)
{
    JobRuntime& r = m_rt[size_t(j)];
    r.status = JobStatus::Pending;
    r.enqueuedAt = m_now;
    r.queueSeq = ++m_queueSeq;
    m_pending.push(j, r.queueSeq);
}

void Simulator::admitAwaiting()
{
    // jobs deferred at earlier decisions come first (they arrived first), then this time point's arrivals
    m_admittedLate.clear();
    size_t keep = 0;
    for (size_t i = 0; i < m_awaiting.size(); ++i) {
        const int j = m_awaiting[i];
        const bool late = m_rt[size_t(j)].enqueuedAt < 0;
        AdmissionRecord a = m_policy->admit(m_ctx, j);
        a.job = j;
        switch (a.verdict) {
        case Admit::Accept:
            enqueuePending(j);
            if (late)
                m_admittedLate.push_back(j);
            break;
        case Admit::Reject:
            m_rt[size_t(j)].status = JobStatus::Rejected;
            for (SimObserver* o : m_obs)
                o->onJobRejected(m_now, j, a.reason.empty() ? std::string_view("rejected by admission") : std::string_view(a.reason));
            break;
        case Admit::Defer:
            m_rt[size_t(j)].enqueuedAt = -1; // marks a deferral: accepted later, it is not in index order
            m_awaiting[keep++] = j;
            break;
        }
        if (m_ctx.m_record)
            m_record.admissions.push_back(std::move(a));
    }
    m_awaiting.resize(keep);
}

void Simulator::bringUpToDate(int j)
{
    JobRuntime& r = m_rt[size_t(j)];
    if (r.status != JobStatus::Running)
        return;
    const double from = std::max(r.lastUpdate, r.resumeAt);
    if (m_now > from)
        r.remaining = workLeftAt(r.remaining, from, r.rate, m_now);
    r.lastUpdate = std::max(m_now, r.lastUpdate);
}

void Simulator::scheduleCompletion(int j)
{
    JobRuntime& r = m_rt[size_t(j)];
    ++r.version;
    if (!m_retimedMark[size_t(j)]) {
        m_retimedMark[size_t(j)] = 1;
        m_retimed.push_back(j);
    }
    const double t = std::max(m_now, r.resumeAt) + r.remaining / std::max(r.rate, 1e-12);
    m_completions.update(j, t);
}

void Simulator::stopJob(int j, bool finished)
{
    JobRuntime& r = m_rt[size_t(j)];
    const Job& jb = m_trace.jobs[size_t(j)];
    bringUpToDate(j);
    const double ran = std::max(0.0, m_now - r.lastStart);
    r.executed += ran;
    r.attained += jb.gpus * ran;
    m_state.release(j, r.slots);
    // remove from the running list (swap-remove) and from the machines' job lists
    const int pos = m_runningPos[size_t(j)];
    const int last = m_running.back();
    m_running[size_t(pos)] = last;
    m_runningPos[size_t(last)] = pos;
    m_running.pop_back();
    m_runningPos[size_t(j)] = -1;
    forEachMachine(m_cluster, r.slots, [&](int m) {
        auto& v = m_machineJobs[size_t(m)];
        auto it = std::find(v.begin(), v.end(), j);
        if (it != v.end())
            v.erase(it);
    });
    ++r.version;
    m_completions.remove(j);
    if (finished) {
        r.status = JobStatus::Done;
        r.end = m_now;
        r.remaining = 0;
        ++m_completed;
        if (m_cfg.recordDecisions)
            m_finishedNow.push_back(j);
    } else {
        r.status = JobStatus::Pending;
        ++r.preemptions;
        r.enqueuedAt = m_now;
        r.queueSeq = ++m_queueSeq;
        m_pending.push(j, r.queueSeq);
    }
    if (r.partner >= 0) { // the partner runs on alone, at its own speed
        JobRuntime& p = m_rt[size_t(r.partner)];
        if (p.status == JobStatus::Running && p.partner == j) {
            bringUpToDate(r.partner);
            p.baseRate /= p.pairFactor;
            p.pairFactor = 1;
            p.partner = -1;
            setAlone(r.partner, p.machines == 1);
            countCoRunners(r.partner);
            p.rate = p.baseRate / (1.0 + (m_perf.config().ideal ? 0.0 : m_cfg.perf.interference) * p.coRunners);
            scheduleCompletion(r.partner);
        }
        r.partner = -1;
        r.pairFactor = 1;
    }
    setAlone(j, false);
    for (SimObserver* o : m_obs)
        o->onJobStopped(m_now, j, r, finished);
    m_policy->onJobStopped(j, m_now, finished, r);
    std::vector<GpuSlot>& released = m_releasedScratch; // (nothing from here on stops a job)
    released.clear();
    released.swap(r.slots);
    if (finished)
        std::vector<GpuSlot>().swap(r.slots); // a finished job holds no buffer
    if (!released.empty())
        refreshRatesOn(j, false);
    if (!m_offline.empty()) // a failed or draining machine keeps the GPUs it gets back
        for (const GpuSlot& g : released)
            if (const int m = m_cluster.machineOfGpu(g.gpu); m_offline[size_t(m)] != 0)
                blockFreeGpus(m);
}

void Simulator::complete(int j) { stopJob(j, true); }

void Simulator::finishRun()
{
    for (int j : std::vector<int>(m_running)) {
        JobRuntime& r = m_rt[size_t(j)];
        bringUpToDate(j);
        const double ran = std::max(0.0, m_now - r.lastStart);
        r.executed += ran;
        r.attained += m_trace.jobs[size_t(j)].gpus * ran;
        m_state.release(j, r.slots);
        r.status = JobStatus::Unfinished;
        for (SimObserver* o : m_obs)
            o->onJobStopped(m_now, j, r, false);
        r.slots.clear();
    }
    m_running.clear();
    for (JobRuntime& r : m_rt)
        if (r.status == JobStatus::Pending || r.status == JobStatus::Future || r.status == JobStatus::Deferred)
            r.status = JobStatus::Unfinished;
    m_finished = true;
    for (SimObserver* o : m_obs)
        o->onRunEnd(m_now);
}

bool Simulator::step()
{
    if (m_finished)
        return false;
    if (!m_started) {
        m_typeGpus.assign(m_cluster.types.size(), 0);
        for (const Machine& mc : m_cluster.machines)
            m_typeGpus[size_t(mc.type)] += mc.gpus;
        begin();
    }
    double t = kInf;
    if (!m_completions.empty())
        t = m_completions.topTime();
    if (m_nextArrival < m_trace.jobs.size())
        t = std::min(t, m_trace.jobs[m_nextArrival].submit);
    while (!m_wakes.empty() && m_wakes.top() <= m_now && m_decisions > 0)
        m_wakes.pop();
    if (!m_wakes.empty())
        t = std::min(t, m_wakes.top());
    if (m_nextMachineEvent < m_machineEvents.size())
        t = std::min(t, std::max(m_now, m_machineEvents[m_nextMachineEvent].time));
    if (!std::isfinite(t) || t > m_cfg.maxTime) {
        if (std::isfinite(m_cfg.maxTime) && t > m_cfg.maxTime)
            m_now = std::max(m_now, m_cfg.maxTime);
        finishRun();
        return false;
    }
    m_now = std::max(m_now, t);

    const bool rec = m_cfg.recordDecisions;
    if (rec) {
        m_record = DecisionRecord {};
        m_record.index = uint32_t(m_decisions);
        m_record.time = m_now;
        m_arrivedNow.clear();
        m_finishedNow.clear();
    }
    // completions first, then arrivals, then wake-ups, all at this time point
    while (!m_completions.empty() && m_completions.topTime() <= m_now) {
        ++m_events;
        complete(m_completions.topJob());
    }
    while (m_nextMachineEvent < m_machineEvents.size() && m_machineEvents[m_nextMachineEvent].time <= m_now) {
        ++m_events;
        applyMachineEvent(m_machineEvents[m_nextMachineEvent++]);
    }
    while (m_nextArrival < m_trace.jobs.size() && m_trace.jobs[m_nextArrival].submit <= m_now) {
        ++m_events;
        arrive(int(m_nextArrival++));
    }
    while (!m_wakes.empty() && m_wakes.top() <= m_now) {
        ++m_events;
        m_wakes.pop();
    }

    // decide: admission first, then the policy
    m_ctx.m_record = rec ? &m_record : nullptr;
    ++m_ctx.m_logEpoch;
    if (!m_awaiting.empty())
        admitAwaiting();
    else
        m_admittedLate.clear();
    while (!m_hooks.empty() && m_hooks.front().first < m_decisions)
        m_hooks.erase(m_hooks.begin()); // set for a decision already past
    if (!m_hooks.empty() && m_hooks.front().first == m_decisions) {
        DecisionHook hook = std::move(m_hooks.front().second); // it may set hooks for later decisions
        m_hooks.erase(m_hooks.begin());
        hook(*this, m_ctx);
    }
    if (m_pending.size() > 0 || !m_running.empty()) {
        m_deferRerates = m_policy->reratesAfterDecision();
        m_retimedShown.clear();
        m_retimedShown.swap(m_retimed);
        for (const int j : m_retimedShown)
            m_retimedMark[size_t(j)] = 0;
        m_policy->schedule(m_ctx);
        m_deferRerates = false;
        rerateDeferred();
    }
    m_ctx.m_record = nullptr;
    m_pending.compactIfSparse([this](const PendingQueue::Entry& e) {
        const JobRuntime& r = m_rt[size_t(e.job)];
        return r.status == JobStatus::Pending && r.queueSeq == e.seq;
    });
    if (rec) {
        m_record.arrived = m_arrivedNow;
        m_record.finished = m_finishedNow;
        if (m_record.queue.empty() && m_record.queueLength == 0) {
            // the policy recorded no ranking: log the queue as it stands (after this decision)
            m_ctx.forEachPending([&](int j) {
                if (int(m_record.queue.size()) < m_cfg.logQueueLimit)
                    m_record.queue.push_back({j, kNoScore, kNoScore, kNoScore});
                ++m_record.queueLength;
                return true;
            });
        }
        for (SimObserver* o : m_obs)
            o->onDecision(m_record);
    }
    ++m_decisions;
    if (m_cfg.checkInvariants) {
        const std::string err = m_state.checkConsistency();
        if (!err.empty())
            throw std::logic_error("invariant violated at t=" + std::to_string(m_now) + ": " + err);
        // every running job's co-runners current, and its re-rating flags (corunners.cpp) with them
        const bool interfering = !m_cfg.perf.ideal && m_cfg.perf.interference > 0;
        for (const int j : m_running) {
            const JobRuntime& r = m_rt[size_t(j)];
            const uint8_t mark = m_rerateMark[size_t(j)];
            if (bool(mark & kRerateAlone) != (r.machines == 1 && r.partner < 0) || (mark & kRerateMarked) != 0)
                throw std::logic_error("invariant violated at t=" + std::to_string(m_now) + ": job "
                                       + std::to_string(j) + "'s re-rating flags are out of date");
            if (const Busiest b = coCountOf(j); interfering && (r.coRunners != b.co || r.busiest != b.at))
                throw std::logic_error("invariant violated at t=" + std::to_string(m_now) + ": job "
                                       + std::to_string(j) + " has " + std::to_string(r.coRunners)
                                       + " co-runners recorded, " + std::to_string(b.co) + " on its machines");
        }
    }
    // Deadlock: nothing running, nothing will arrive or wake us, yet jobs wait: they can never run.
    if (m_running.empty() && m_nextArrival >= m_trace.jobs.size() && m_pending.size() > 0
        && m_nextMachineEvent >= m_machineEvents.size()) {
        if (m_wakes.empty()) {
            finishRun();
            return false;
        }
    }
    return true;
}

bool Simulator::run(const std::function<bool(double)>& progress)
{
    const double n = std::max<size_t>(1, m_trace.jobs.size());
    uint64_t k = 0;
    while (step()) {
        if (progress && (++k & 1023) == 0) {
            const double frac = double(m_completed) / n;
            if (!progress(std::min(1.0, frac)))
                return false;
        }
    }
    if (progress)
        progress(1.0);
    return true;
}

} // namespace ss
