#include "metrics/metrics.h"

#include <algorithm>
#include <limits>
#include <cmath>
#include <numeric>

namespace ss {

double percentile(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    return percentileSorted(v, p);
}

double percentileSorted(const std::vector<double>& v, double p)
{
    if (v.empty())
        return 0;
    const double pos = std::clamp(p, 0.0, 100.0) / 100.0 * double(v.size() - 1);
    const size_t lo = size_t(std::floor(pos));
    const size_t hi = std::min(v.size() - 1, lo + 1);
    const double f = pos - double(lo);
    return v[lo] * (1 - f) + v[hi] * f;
}

double jainIndex(const std::vector<double>& x)
{
    if (x.empty())
        return 0;
    double s = 0, s2 = 0;
    for (double v : x) {
        s += v;
        s2 += v * v;
    }
    return s2 > 0 ? (s * s) / (double(x.size()) * s2) : 0;
}

void MetricsCollector::onRunStart(const SimSetup& setup)
{
    m_cluster = &setup.cluster;
    m_trace = &setup.trace;
    const size_t n = setup.trace.jobs.size();
    m_jobs.assign(n, JobRecord {});
    m_segStart.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
        const Job& j = setup.trace.jobs[i];
        JobRecord& r = m_jobs[i];
        r.index = int(i);
        r.id = j.id;
        r.submit = j.submit;
        r.gpus = j.gpus;
        r.duration = j.duration;
        r.deadlineMet = j.deadlines.empty() ? -1 : 0;
    }
    m_series.clear();
    m_heldMilli = 0;
    m_queue = m_running = 0;
    m_machineFree.resize(size_t(setup.cluster.machineCount()));
    m_gpuHeld.assign(size_t(setup.cluster.totalGpus()), 0);
    m_freeWhole = setup.cluster.totalGpus();
    m_fragFree = 0;
    for (int m = 0; m < setup.cluster.machineCount(); ++m)
        m_machineFree[size_t(m)] = setup.cluster.machines[size_t(m)].gpus;
    m_bin = 60.0;
    m_firstSubmit = n ? setup.trace.jobs.front().submit : 0;
    m_lastEnd = m_firstSubmit;
    m_utilArea = 0;
    m_lastT = m_firstSubmit;
}

void MetricsCollector::account(double t)
{
    if (t > m_lastT) {
        m_utilArea += double(m_heldMilli) / 1000.0 * (t - m_lastT);
        m_lastT = t;
    }
}

void MetricsCollector::sample(double t)
{
    TimePoint p;
    p.t = t;
    const int total = m_cluster->totalGpus();
    p.utilization = total ? float(double(m_heldMilli) / 1000.0 / total) : 0.f;
    p.fragmentation = m_freeWhole ? float(double(m_fragFree) / m_freeWhole) : 0.f;
    p.queue = m_queue;
    p.running = m_running;
    if (!m_series.empty() && t - m_series.back().t < m_bin && m_series.size() > 1) {
        const double t0 = m_series.back().t;
        m_series.back() = p;
        m_series.back().t = t0;
        return;
    }
    m_series.push_back(p);
    if (m_series.size() > 4096) {
        m_bin *= 2;
        size_t w = 0;
        for (size_t i = 0; i < m_series.size(); i += 2)
            m_series[w++] = m_series[i];
        m_series.resize(w);
    }
}

void MetricsCollector::changeMachines(const std::vector<GpuSlot>& slots, int sign)
{
    for (const GpuSlot& s : slots) {
        const int m = m_cluster->machineOfGpu(s.gpu);
        const int gpus = m_cluster->machines[size_t(m)].gpus;
        int& held = m_gpuHeld[size_t(s.gpu)];
        const int oldFree = m_machineFree[size_t(m)];
        const bool wasFree = held == 0;
        held += sign * s.milli;
        const bool isFree = held == 0;
        if (wasFree == isFree)
            continue;
        const int nf = oldFree + (isFree ? 1 : -1);
        m_machineFree[size_t(m)] = nf;
        m_freeWhole += isFree ? 1 : -1;
        auto frag = [&](int f) { return (f > 0 && f < gpus) ? f : 0; };
        m_fragFree += frag(nf) - frag(oldFree);
    }
}

void MetricsCollector::onJobArrived(double t, int job)
{
    account(t);
    ++m_queue;
    sample(t);
}

void MetricsCollector::onJobRejected(double t, int job, std::string_view)
{
    --m_queue;
    m_jobs[size_t(job)].status = JobStatus::Rejected;
}

void MetricsCollector::onJobStarted(double t, int job, const JobRuntime& rt)
{
    account(t);
    JobRecord& r = m_jobs[size_t(job)];
    if (r.start < 0)
        r.start = t;
    r.machines = rt.machines;
    r.status = JobStatus::Running;
    m_segStart[size_t(job)] = t;
    for (const GpuSlot& s : rt.slots)
        m_heldMilli += s.milli;
    changeMachines(rt.slots, +1);
    --m_queue;
    ++m_running;
    sample(t);
}

void MetricsCollector::onJobStopped(double t, int job, const JobRuntime& rt, bool finished)
{
    account(t);
    JobRecord& r = m_jobs[size_t(job)];
    const double held = std::max(0.0, t - m_segStart[size_t(job)]);
    for (const GpuSlot& s : rt.slots) {
        const double share = s.milli / 1000.0;
        m_heldMilli -= s.milli;
        const int m = m_cluster->machineOfGpu(s.gpu);
        r.fee += share * m_cluster->pricePerHourOfMachine(m) * held / 3600.0;
        r.gpuSeconds += share * held;
    }
    changeMachines(rt.slots, -1);
    --m_running;
    r.preemptions = rt.preemptions;
    if (finished) {
        r.end = t;
        r.jct = t - r.submit;
        r.queueing = std::max(0.0, r.jct - rt.executed);
        r.status = JobStatus::Done;
        m_lastEnd = std::max(m_lastEnd, t);
        const Job& j = m_trace->jobs[size_t(job)];
        for (const DeadlineLevel& d : j.deadlines)
            if (r.jct <= d.offset + 1e-9) {
                r.deadlineMet = 1;
                r.deadlineValue = d.value;
                break;
            }
    } else if (rt.status == JobStatus::Pending) {
        ++m_queue;
        r.status = JobStatus::Pending;
    } else {
        r.status = rt.status;
    }
    sample(t);
}

void MetricsCollector::onRunEnd(double t)
{
    account(t);
    for (JobRecord& r : m_jobs)
        if (r.status != JobStatus::Done && r.status != JobStatus::Rejected)
            r.status = JobStatus::Unfinished;
    sample(t);
}

Summary MetricsCollector::summary() const
{
    Summary s;
    s.jobs = int(m_jobs.size());
    std::vector<double> jct, speed;
    jct.reserve(m_jobs.size());
    double queue = 0, fee = 0, total = 0;
    int deadlineMiss = 0;
    double weightedMiss = 0, beJct = 0;
    for (const JobRecord& r : m_jobs) {
        total += r.fee;
        s.preemptions += r.preemptions;
        if (r.deadlineMet >= 0) {
            ++s.deadlineJobs;
            if (r.deadlineMet == 0)
                ++deadlineMiss;
            weightedMiss += r.deadlineMet == 1 ? std::clamp(1.0 - r.deadlineValue / 10.0, 0.0, 1.0) : 1.0;
        } else if (r.status == JobStatus::Done) {
            ++s.bestEffortJobs;
            beJct += r.jct / 60.0;
        }
        if (r.status == JobStatus::Rejected) {
            ++s.rejected;
            continue;
        }
        if (r.status != JobStatus::Done) {
            ++s.unfinished;
            continue;
        }
        ++s.finished;
        jct.push_back(r.jct / 60.0);
        queue += r.queueing / 60.0;
        fee += r.fee;
        speed.push_back(r.duration / r.jct);
    }
    if (!jct.empty()) {
        s.meanJctMin = std::accumulate(jct.begin(), jct.end(), 0.0) / double(jct.size());
        std::sort(jct.begin(), jct.end());
        s.medianJctMin = percentileSorted(jct, 50);
        s.p95JctMin = percentileSorted(jct, 95);
        s.p99JctMin = percentileSorted(jct, 99);
        s.meanQueueMin = queue / double(jct.size());
        s.meanFeeUsd = fee / double(jct.size());
    }
    s.totalFeeUsd = total;
    const double span = std::max(0.0, m_lastEnd - m_firstSubmit);
    s.makespanH = span / 3600.0;
    const int gpus = m_cluster ? m_cluster->totalGpus() : 0;
    s.utilization = (span > 0 && gpus > 0) ? std::min(1.0, m_utilArea / (span * gpus)) : 0.0;
    s.deadlineMissRate = s.deadlineJobs ? double(deadlineMiss) / s.deadlineJobs : 0.0;
    s.weightedMissRate = s.deadlineJobs ? weightedMiss / s.deadlineJobs : 0.0;
    s.bestEffortMeanJctMin = s.bestEffortJobs ? beJct / s.bestEffortJobs : 0.0;
    s.jainFairness = jainIndex(speed);
    return s;
}

double Summary::policyStat(const std::string& key) const
{
    for (const auto& [k, v] : policyStats)
        if (k == key)
            return v;
    return std::numeric_limits<double>::quiet_NaN();
}

} // namespace ss
