// What-if machinery of the engine: machine events (fail, drain, restore), the decision hook that forks use
// to change one decision, switching policy mid-run, and reordering the pending queue.
#include "sim/engine.h"

#include <algorithm>
#include <stdexcept>

namespace ss {

const char* toString(MachineEventKind k)
{
    switch (k) {
    case MachineEventKind::Fail: return "fail";
    case MachineEventKind::Drain: return "drain";
    case MachineEventKind::Restore: return "restore";
    }
    return "?";
}

void Simulator::setDecisionHook(uint64_t decision, DecisionHook hook)
{
    auto it = std::lower_bound(m_hooks.begin(), m_hooks.end(), decision,
                               [](const std::pair<uint64_t, DecisionHook>& h, uint64_t d) { return h.first < d; });
    if (it != m_hooks.end() && it->first == decision)
        it->second = std::move(hook);
    else
        m_hooks.insert(it, {decision, std::move(hook)});
}

void Simulator::switchPolicy(Scheduler& policy)
{
    m_policy = &policy;
    m_policy->reset(m_setup);
    if (!m_policy->hasAdmission() && !m_awaiting.empty()) {
        for (int j : m_awaiting)
            enqueuePending(j);
        m_awaiting.clear();
    }
}

void Simulator::movePendingToFront(const std::vector<int>& jobs)
{
    for (int j : jobs)
        if (j < 0 || size_t(j) >= m_rt.size() || m_rt[size_t(j)].status != JobStatus::Pending)
            throw std::invalid_argument("job " + std::to_string(j) + " is not pending at t=" + std::to_string(m_now));
    std::vector<int> rest;
    m_ctx.forEachPending([&](int j) {
        if (std::find(jobs.begin(), jobs.end(), j) == jobs.end())
            rest.push_back(j);
        return true;
    });
    // rebuild the queue: fresh sequence numbers in the new order (the enqueue times stay)
    m_pending = PendingQueue {};
    auto push = [&](int j) {
        JobRuntime& r = m_rt[size_t(j)];
        r.queueSeq = ++m_queueSeq;
        m_pending.push(j, r.queueSeq);
    };
    std::vector<int> seen;
    for (int j : jobs)
        if (std::find(seen.begin(), seen.end(), j) == seen.end()) {
            seen.push_back(j);
            push(j);
        }
    for (int j : rest)
        push(j);
}

void Simulator::addMachineEvent(const MachineEvent& e)
{
    if (e.machine < 0 || e.machine >= m_cluster.machineCount())
        throw std::invalid_argument("machine event: no machine " + std::to_string(e.machine) + " (the cluster has "
                                    + std::to_string(m_cluster.machineCount()) + ")");
    if (m_offline.empty()) {
        m_offline.assign(size_t(m_cluster.machineCount()), 0);
        m_blocked.assign(size_t(m_cluster.machineCount()), {});
    }
    if (m_started && e.time <= m_now) {
        applyMachineEvent(e);
        return;
    }
    // keep the not-yet-applied events sorted by time, equal times in the order given
    auto it = std::upper_bound(m_machineEvents.begin() + long(m_nextMachineEvent), m_machineEvents.end(), e.time,
                               [](double t, const MachineEvent& x) { return t < x.time; });
    m_machineEvents.insert(it, e);
}

void Simulator::blockFreeGpus(int m)
{
    std::vector<GpuSlot> slots;
    const int base = m_cluster.gpuBase(m);
    for (int g = base; g < base + m_cluster.machines[size_t(m)].gpus; ++g)
        if (m_state.gpuFreeMilli(g) == 1000)
            slots.push_back({g, 1000});
    if (slots.empty())
        return;
    m_state.allocate(kOfflineHolder, slots);
    auto& b = m_blocked[size_t(m)];
    b.insert(b.end(), slots.begin(), slots.end());
}

void Simulator::applyMachineEvent(const MachineEvent& e)
{
    const int m = e.machine;
    switch (e.kind) {
    case MachineEventKind::Fail: {
        const std::vector<int> victims = m_machineJobs[size_t(m)];
        m_offline[size_t(m)] = 1; // before the stops: their released GPUs on m are blocked as they free up
        for (int j : victims) {
            if (m_rt[size_t(j)].status != JobStatus::Running)
                continue;
            ++m_rt[size_t(j)].failures;
            ++m_failureRequeues;
            if (m_cfg.recordDecisions)
                m_record.preempted.push_back(j);
            stopJob(j, false);
        }
        blockFreeGpus(m);
        break;
    }
    case MachineEventKind::Drain:
        if (m_offline[size_t(m)] == 0)
            m_offline[size_t(m)] = 2;
        blockFreeGpus(m);
        break;
    case MachineEventKind::Restore:
        if (!m_blocked[size_t(m)].empty())
            m_state.release(kOfflineHolder, m_blocked[size_t(m)]);
        m_blocked[size_t(m)].clear();
        m_offline[size_t(m)] = 0;
        break;
    }
}

} // namespace ss
