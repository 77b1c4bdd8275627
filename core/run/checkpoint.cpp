#include "run/checkpoint.h"

#include <algorithm>

namespace ss {

CheckpointSet::CheckpointSet(std::string path, std::shared_ptr<const ClusterSpec> cluster, std::shared_ptr<const Trace> trace)
{
    reset(std::move(path), std::move(cluster), std::move(trace));
}

void CheckpointSet::reset(std::string path, std::shared_ptr<const ClusterSpec> cluster, std::shared_ptr<const Trace> trace)
{
    std::lock_guard<std::mutex> lock(m_mu);
    m_cps.clear(); // before the cluster and trace they refer to (requested decisions stay requested)
    m_log.reset();
    m_refused = false;
    m_path = std::move(path);
    m_cluster = std::move(cluster);
    m_trace = std::move(trace);
    m_interval = m_userInterval ? m_userInterval : autoInterval();
}

uint64_t CheckpointSet::autoInterval() const
{
    return std::max<uint64_t>(500, m_trace ? uint64_t(m_trace->jobs.size()) / 8 : 0);
}

void CheckpointSet::setInterval(uint64_t every)
{
    std::lock_guard<std::mutex> lock(m_mu);
    m_userInterval = every;
    m_interval = every ? every : autoInterval();
}

uint64_t CheckpointSet::interval() const
{
    std::lock_guard<std::mutex> lock(m_mu);
    return m_interval;
}

void CheckpointSet::setMaxCheckpoints(size_t n)
{
    std::lock_guard<std::mutex> lock(m_mu);
    m_max = std::max<size_t>(2, n);
    while (m_cps.size() > m_max)
        thin();
}

size_t CheckpointSet::maxCheckpoints() const
{
    std::lock_guard<std::mutex> lock(m_mu);
    return m_max;
}

void CheckpointSet::requestAt(uint64_t decisions)
{
    std::lock_guard<std::mutex> lock(m_mu);
    m_requested.insert(decisions);
}

void CheckpointSet::thin()
{
    // take them half as often from now on, and keep those that fall on the doubled interval (and the requested
    // ones while there is room): still evenly spread over the run so far
    m_interval *= 2;
    for (auto it = m_cps.begin(); it != m_cps.end();) {
        if ((it->first + 1) % m_interval != 0 && !m_requested.count(it->first))
            it = m_cps.erase(it);
        else
            ++it;
    }
    while (m_cps.size() >= m_max) // requested ones crowd the set: the oldest go
        m_cps.erase(m_cps.begin());
}

void CheckpointSet::offer(const Simulator& sim, const MetricsCollector& metrics)
{
    const uint64_t d = sim.decisions();
    std::lock_guard<std::mutex> lock(m_mu); // uncontended: a few ns per step
    // periodic ones just before decisions K = interval, 2 x interval, ...: a fork at a round K restores with no step
    auto due = [&] { return (d + 1) % m_interval == 0 || m_requested.count(d); };
    if (m_refused || sim.finished() || !due() || m_cps.count(d))
        return;
    if (&sim.state().spec() != m_cluster.get())
        return; // not a run of this set's cluster
    auto cp = std::make_shared<RunCheckpoint>();
    cp->sim = sim.snapshot();
    if (!cp->sim) {
        m_refused = true;
        return;
    }
    cp->metrics = metrics;
    cp->bytes = cp->sim->approxBytes() + metrics.jobs().capacity() * sizeof(JobRecord)
        + metrics.series().capacity() * sizeof(TimePoint);
    if (m_cps.size() + 1 > m_max) {
        thin();
        if (!due())
            return; // no longer due at the doubled interval
    }
    m_cps.emplace(d, std::move(cp));
}

std::shared_ptr<const RunCheckpoint> CheckpointSet::atOrBefore(uint64_t decisions) const
{
    std::lock_guard<std::mutex> lock(m_mu);
    auto it = m_cps.upper_bound(decisions);
    if (it == m_cps.begin())
        return nullptr;
    return std::prev(it)->second;
}

bool CheckpointSet::cloneRefused() const
{
    std::lock_guard<std::mutex> lock(m_mu);
    return m_refused;
}

size_t CheckpointSet::size() const
{
    std::lock_guard<std::mutex> lock(m_mu);
    return m_cps.size();
}

size_t CheckpointSet::approxBytes() const
{
    std::lock_guard<std::mutex> lock(m_mu);
    size_t b = 0;
    for (const auto& [d, cp] : m_cps)
        b += cp->bytes;
    return b;
}

void CheckpointSet::setLog(std::shared_ptr<const DecisionLog> log)
{
    std::lock_guard<std::mutex> lock(m_mu);
    m_log = std::move(log);
}

std::shared_ptr<const DecisionLog> CheckpointSet::log() const
{
    std::lock_guard<std::mutex> lock(m_mu);
    return m_log;
}

} // namespace ss
