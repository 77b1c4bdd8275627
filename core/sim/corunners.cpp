// Co-location interference in the engine: a running job's rate is its placement's rate divided by
// 1 + interference x its co-runners (the other jobs on the busiest machine it spans), kept current as jobs
// start and stop on its machines (Simulator::refreshRatesOn), at each change or once a decision is over
// (Scheduler::reratesAfterDecision, Simulator::rerateDeferred).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/engine.h"

namespace ss {

Simulator::Busiest Simulator::coCountOf(int j) const
{
    const JobRuntime& r = m_rt[size_t(j)];
    Busiest b;
    if (r.machines > 1)
        b = busiestOn(m_jobMachines[size_t(j)].data(), m_jobMachines[size_t(j)].size());
    else if (!r.slots.empty())
        b.co = int(m_machineJobs[size_t(r.machine)].size()) - 1;
    if (r.machines <= 1 || r.partner >= 0)
        b.at = 0;
    // the partner shares every GPU: its co-location is in the pair's measured speed, not in the interference term
    if (r.partner >= 0 && m_rt[size_t(r.partner)].status == JobStatus::Running)
        b.co = std::max(0, b.co - 1);
    return b;
}

void Simulator::countCoRunners(int j)
{
    JobRuntime& r = m_rt[size_t(j)];
    const Busiest b = coCountOf(j);
    r.coRunners = b.co;
    r.busiest = uint16_t(b.at);
}

void Simulator::refreshRatesOn(int job, bool started)
{
    if (m_cfg.perf.ideal || m_cfg.perf.interference <= 0)
        return;
    // A job's co-runners are the other jobs on the busiest machine of its placement, kept current for every
    // running job (JobRuntime::coRunners) as the job counts of its machines change. Only the machines of `job`
    // changed, by one job each, all the same way (`started`: up), and each is met once here (its distinct
    // machines, however its slots are ordered). A job met on one machine (most) has that machine's count less
    // one as its co-runners at once. A job on several is met on some of them, one at a time, each a change of
    // one: a start on a machine whose count less one v passes coRunners makes it the only busiest machine, one
    // at coRunners adds a busiest machine; a stop on a busiest machine (v = coRunners - 1 now) takes one away,
    // and only when none is left are the job's machines read, for the new busiest; as that read sees every
    // machine's count after this change, the job's other machines met after it change nothing. A job with a
    // space-sharing partner reads its machines. Either way a job's co-runners change at most once here (by
    // one), so each is re-rated at most once.
    const JobRuntime& jr = m_rt[size_t(job)];
    const int* ms = jr.machines == 1 ? &jr.machine : m_jobMachines[size_t(job)].data();
    const size_t nm = jr.machines == 1 ? 1 : m_jobMachines[size_t(job)].size();
    if (jr.machines <= 0)
        return;
    const bool checkAll = m_cfg.checkInvariants;
    std::vector<int>& counted = m_touchedScratch; // jobs on several machines whose machines were read here
    counted.clear();
    auto setRate = [&](int o, int co) {
        JobRuntime& r = m_rt[size_t(o)];
        if (co == r.coRunners)
            return;
        bringUpToDate(o);
        r.coRunners = co;
        r.rate = r.baseRate / (1.0 + m_cfg.perf.interference * co);
        scheduleCompletion(o);
    };
    auto multi = [&](int o, int v) {
        JobRuntime& r = m_rt[size_t(o)];
        if (r.partner >= 0) { // space sharing: the partner is not a co-runner
            setRate(o, coRunnersOf(o));
            return;
        }
        if (started) {
            if (v > r.coRunners) {
                r.busiest = 1;
                setRate(o, v);
            } else if (v == r.coRunners) {
                ++r.busiest;
            }
            return;
        }
        if (v != r.coRunners - 1 || (!counted.empty() && std::find(counted.begin(), counted.end(), o) != counted.end()))
            return;
        if (--r.busiest == 0) { // the busiest now, from one pass over its machines
            counted.push_back(o);
            const Busiest b = busiestOn(m_jobMachines[size_t(o)].data(), m_jobMachines[size_t(o)].size());
            r.busiest = uint16_t(b.at);
            setRate(o, b.co);
        }
    };
    auto prefetch = [&](int o) { __builtin_prefetch(&m_rt[size_t(o)]); }; // the line a re-rating reads and writes
    // every job met is fetched first, so the misses on their runtimes overlap (a machine's list is short)
    const bool defer = m_deferRerates;
    for (size_t i = 0; i < nm; ++i)
        for (const int o : m_machineJobs[size_t(ms[i])])
            if (!defer || !(m_rerateMark[size_t(o)] & kRerateAlone))
                prefetch(o);
    for (size_t mi = 0; mi < nm; ++mi) {
        const std::vector<int>& jobs = m_machineJobs[size_t(ms[mi])];
        const int v = int(jobs.size()) - 1;
        for (size_t i = 0; i < jobs.size(); ++i) {
            const int o = jobs[i];
            if (o == job)
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
                setRate(o, m_rt[size_t(o)].partner >= 0 ? coRunnersOf(o) : v);
                continue;
            }
            multi(o, v);
        }
    }
    if (checkAll)
        for (size_t mi = 0; mi < nm; ++mi)
            for (const int o : m_machineJobs[size_t(ms[mi])])
                if (const Busiest b = coCountOf(o); o != job && !(defer && (m_rerateMark[size_t(o)] & kRerateAlone))
                    && (m_rt[size_t(o)].coRunners != b.co || m_rt[size_t(o)].busiest != b.at))
                    throw std::logic_error("co-runners of job " + std::to_string(o) + " out of date at t="
                                           + std::to_string(m_now));
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
