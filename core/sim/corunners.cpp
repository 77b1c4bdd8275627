// Co-location interference in the engine: a running job's rate is its placement's rate divided by
// 1 + interference x its co-runners (the other jobs on the busiest machine it spans), kept current as jobs
// start and stop on its machines (Simulator::refreshRatesOn), at each change or once a decision is over
// (Scheduler::reratesAfterDecision, Simulator::rerateDeferred).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/engine.h"
#include "sim/slotmachines.h"

namespace ss {

int Simulator::coRunnersOf(int j) const
{
    const JobRuntime& r = m_rt[size_t(j)];
    int co = 0;
    if (r.machines > 1) // (ClusterState's count of a machine's jobs: the length of its list here, in one array)
        for (const int m : m_jobMachines[size_t(j)])
            co = std::max(co, m_state.jobsOnMachine(m) - 1);
    else if (!r.slots.empty())
        co = int(m_machineJobs[size_t(r.machine)].size()) - 1;
    // the partner shares every GPU: its co-location is in the pair's measured speed, not in the interference term
    return r.partner >= 0 && m_rt[size_t(r.partner)].status == JobStatus::Running ? std::max(0, co - 1) : co;
}

void Simulator::refreshRatesOn(const std::vector<GpuSlot>& slots, int except, bool started)
{
    if (m_cfg.perf.ideal || m_cfg.perf.interference <= 0)
        return;
    // A job's co-runners are the other jobs on the busiest machine of its placement, kept current for every
    // running job (JobRuntime::coRunners) as the job counts of its machines change. Only the machines of
    // `slots` changed (by one job each, all the same way), so with v the largest count (less one) among them on
    // a job's placement: v >= coRunners makes v the new busiest; v < coRunners - 1 leaves the busiest machine
    // elsewhere and coRunners as it is; only in between are the job's slots read, and only when a job stopped
    // (`started`: the counts rose, so a machine below the busiest one stays below it). A job on one machine
    // (most) has v as its co-runners at once.
    const bool checkAll = m_cfg.checkInvariants;
    auto rerate = [&](int o, int v) {
        JobRuntime& r = m_rt[size_t(o)];
        int co;
        if (r.partner >= 0) // space sharing: the partner is not a co-runner
            co = coRunnersOf(o);
        else if (r.machines == 1 || v >= r.coRunners)
            co = v;
        else if (started || v < r.coRunners - 1)
            co = r.coRunners;
        else
            co = coRunnersOf(o);
        if (checkAll && co != coRunnersOf(o))
            throw std::logic_error("co-runners of job " + std::to_string(o) + " out of date at t=" + std::to_string(m_now));
        if (co == r.coRunners)
            return;
        bringUpToDate(o);
        r.coRunners = co;
        r.rate = r.baseRate / (1.0 + m_cfg.perf.interference * co);
        scheduleCompletion(o);
    };
    auto prefetch = [&](int o) { __builtin_prefetch(&m_rt[size_t(o)]); }; // the line a re-rating reads and writes
    // A job on one machine is met once, on that machine; a job on several (rarer) may be met on several of
    // the machines of `slots` and is re-rated once. The order does not matter: each job's update is its own,
    // and the completion heap orders by (time, job).
    std::vector<int>& multi = m_touchedScratch; // pairs (job, largest count less one of the machines met on)
    multi.clear();
    // every job met is fetched first, so the misses on their runtimes overlap (a machine's list is short)
    const bool defer = m_deferRerates;
    forEachMachine(m_cluster, slots, [&](int m) {
        for (const int o : m_machineJobs[size_t(m)])
            if (!defer || !(m_rerateMark[size_t(o)] & kRerateAlone))
                prefetch(o);
    });
    forEachMachine(m_cluster, slots, [&](int m) {
        const std::vector<int>& jobs = m_machineJobs[size_t(m)];
        const int v = int(jobs.size()) - 1;
        for (size_t i = 0; i < jobs.size(); ++i) {
            const int o = jobs[i];
            if (o == except)
                continue;
            if (uint8_t& mark = m_rerateMark[size_t(o)]; defer && (mark & kRerateAlone)) {
                // on one machine without a partner: its co-runners are the machine's other jobs, so it is
                // re-rated from the count it has when the decision is over, which is the count of its last
                // change (rerateDeferred)
                if (!(mark & kRerateMarked)) {
                    mark |= kRerateMarked;
                    m_rerateLater.push_back(o);
                }
                continue;
            }
            if (m_rt[size_t(o)].machines == 1) {
                rerate(o, v);
                continue;
            }
            int& at = m_multiAt[size_t(o)];
            if (at < 0) {
                at = int(multi.size());
                multi.push_back(o);
                multi.push_back(v);
            } else {
                multi[size_t(at) + 1] = std::max(multi[size_t(at) + 1], v);
            }
        }
    });
    for (size_t k = 0; k < multi.size(); k += 2)
        m_multiAt[size_t(multi[k])] = -1;
    for (size_t k = 0; k < multi.size(); k += 2)
        rerate(multi[k], multi[k + 1]);
}

void Simulator::rerateDeferred()
{
    // Each job met is re-rated as its last change would have: every change of its machine's job count changed
    // its co-runners (one machine, no partner), and its state is brought up to the same time `now` whether at
    // the change or here, so remaining work, rate and completion come out bit for bit as re-rating at each
    // change leaves them. A job stopped since is left (stopJob brought it up to date); one started again since
    // gets what its start computed (the same count).
    constexpr size_t kAhead = 8; // the runtimes ahead are fetched while this one is re-rated
    for (size_t i = 0; i < std::min(kAhead, m_rerateLater.size()); ++i)
        __builtin_prefetch(&m_rt[size_t(m_rerateLater[i])]);
    for (size_t i = 0; i < m_rerateLater.size(); ++i) {
        const int o = m_rerateLater[i];
        if (i + kAhead < m_rerateLater.size())
            __builtin_prefetch(&m_rt[size_t(m_rerateLater[i + kAhead])]);
        m_rerateMark[size_t(o)] &= uint8_t(~kRerateMarked);
        JobRuntime& r = m_rt[size_t(o)];
        if (r.status != JobStatus::Running || r.machines != 1 || r.partner >= 0)
            continue; // (a job stopped and started again as another kind was re-rated at each change since)
        bringUpToDate(o);
        r.coRunners = int(m_machineJobs[size_t(r.machine)].size()) - 1;
        r.rate = r.baseRate / (1.0 + m_cfg.perf.interference * r.coRunners);
        scheduleCompletion(o);
    }
    m_rerateLater.clear();
}

} // namespace ss
