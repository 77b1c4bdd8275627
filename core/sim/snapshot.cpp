// Engine snapshots (what-if forks restore one instead of replaying the run from decision 1). A snapshot is a
// frozen Simulator: the copy constructor below copies every value member and re-binds what points into the
// simulator itself (its SimSetup, its SchedContext). Keep it in step with engine.h: a member added there and
// not copied here makes a restored run drift from its parent, which tst_snapshot catches for every policy.
#include "sim/engine.h"
#include "sim/invariants.h"

namespace ss {

Simulator::Simulator(const Simulator& o, std::unique_ptr<Scheduler> policy)
    : m_cluster(o.m_cluster), m_trace(o.m_trace), m_policy(policy.get()), m_cfg(o.m_cfg), m_perf(o.m_perf),
      m_state(o.m_state), m_policyRng(o.m_policyRng), m_setup{o.m_cluster, o.m_trace, m_perf, m_cfg}, m_ctx(*this),
      m_rt(o.m_rt), m_completions(o.m_completions), m_wakes(o.m_wakes), m_pending(o.m_pending),
      m_running(o.m_running), m_runningPos(o.m_runningPos), m_specMask(o.m_specMask), m_typeGpus(o.m_typeGpus),
      m_machineJobs(o.m_machineJobs), m_machineMark(o.m_machineMark), m_switchMark(o.m_switchMark),
      m_nextArrival(o.m_nextArrival), m_now(o.m_now), m_events(o.m_events), m_decisions(o.m_decisions),
      m_completed(o.m_completed), m_queueSeq(o.m_queueSeq), m_started(o.m_started), m_finished(o.m_finished),
      m_awaiting(o.m_awaiting), m_admittedLate(o.m_admittedLate), m_ownedPolicy(std::move(policy)),
      m_machineEvents(o.m_machineEvents), m_nextMachineEvent(o.m_nextMachineEvent), m_offline(o.m_offline),
      m_blocked(o.m_blocked), m_failureRequeues(o.m_failureRequeues)
{
    // the placement-log stamps: the epoch keeps counting, so stamps copied from `o` never match a new decision
    m_ctx.m_logStamp = o.m_ctx.m_logStamp;
    m_ctx.m_logIdx = o.m_ctx.m_logIdx;
    m_ctx.m_logEpoch = o.m_ctx.m_logEpoch;
    m_rerateMark = o.m_rerateMark; // (which running jobs are alone on a machine; no marks between decisions)
    m_retimed = o.m_retimed;
    m_retimedShown = o.m_retimedShown;
    m_retimedMark = o.m_retimedMark;
    m_jobMachines = o.m_jobMachines;
    if (o.m_checker) { // the ledger goes on from where it was (it saw every event so far)
        m_checker = std::make_unique<InvariantChecker>(*o.m_checker);
        m_obs.push_back(m_checker.get());
    }
    if (m_policy)
        m_policy->rebind(m_setup);
}

std::shared_ptr<const SimSnapshot> Simulator::snapshot() const
{
    std::unique_ptr<Scheduler> p = m_policy->clone();
    if (!p)
        return nullptr;
    std::shared_ptr<SimSnapshot> s(new SimSnapshot);
    s->m_sim.reset(new Simulator(*this, std::move(p)));
    return s;
}

std::unique_ptr<Simulator> Simulator::restore(const SimSnapshot& snap, const RunConfig& recording)
{
    const Simulator& f = *snap.m_sim;
    std::unique_ptr<Scheduler> p = f.m_policy->clone();
    if (!p) // cannot happen for a policy that cloned once; say so rather than crash
        throw std::logic_error("policy " + f.m_policy->name() + " cloned for a snapshot but not for its restore");
    std::unique_ptr<Simulator> s(new Simulator(f, std::move(p)));
    s->m_cfg.recordDecisions = recording.recordDecisions;
    s->m_cfg.logQueueLimit = recording.logQueueLimit;
    s->m_cfg.logPlacementLimit = recording.logPlacementLimit;
    s->m_cfg.denseAffinityMaxMachines = recording.denseAffinityMaxMachines;
    s->m_cfg.sparseAffinityTopK = recording.sparseAffinityTopK;
    return s;
}

SimSnapshot::~SimSnapshot() = default;
uint64_t SimSnapshot::decisions() const { return m_sim->decisions(); }
double SimSnapshot::time() const { return m_sim->now(); }
bool SimSnapshot::finished() const { return m_sim->finished(); }

size_t SimSnapshot::approxBytes() const
{
    const Simulator& s = *m_sim;
    size_t b = sizeof(Simulator) + s.m_rt.capacity() * sizeof(JobRuntime) + s.m_runningPos.capacity() * sizeof(int)
        + s.m_pending.raw().capacity() * sizeof(PendingQueue::Entry) + s.m_running.capacity() * sizeof(int);
    for (const JobRuntime& r : s.m_rt)
        b += r.slots.capacity() * sizeof(GpuSlot);
    b += size_t(s.m_cluster.totalGpus()) * 6 * sizeof(int) + size_t(s.m_cluster.machineCount()) * 64;
    b += s.m_rt.size() * 2 * sizeof(int); // completion heap positions, log stamps
    return b;
}

} // namespace ss
