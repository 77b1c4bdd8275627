// DRF: the tenant with the smallest dominant share first (DL2 drf_env), queue order inside a tenant. A job's
// tenant is its user; a job without one (Philly has only virtual clusters) is charged to its virtual cluster,
// so DRF still shares between tenants instead of falling back to FIFO. Priority shown: -dominant share.
#include <algorithm>

#include "policy/registry.h"

namespace ss {
namespace {

class Drf final : public Ordering {
public:
    std::unique_ptr<Ordering> clone() const override { return std::make_unique<Drf>(*this); }
    void reset(const SimSetup& setup) override
    {
        m_trace = &setup.trace;
        m_charged.assign(setup.trace.jobs.size(), 0);
        m_users = int(setup.trace.users.size());
        const size_t tenants = setup.trace.users.size() + setup.trace.vcs.size();
        m_gpu.assign(tenants, 0.0);
        m_cpu.assign(tenants, 0.0);
        m_mem.assign(tenants, 0.0);
        m_capGpu = std::max(1, setup.cluster.totalGpus());
        m_capCpu = m_capMem = 0;
        for (const Machine& m : setup.cluster.machines) {
            m_capCpu += m.cpus;
            m_capMem += m.memoryGb;
        }
    }
    bool grouped() const override { return true; }
    int group(const Job& j) const override { return j.user >= 0 ? j.user : j.vc >= 0 ? m_users + j.vc : -1; }
    // dominant share: the largest of the tenant's GPU, CPU and memory shares of the cluster
    double groupKey(int t) const override
    {
        if (t < 0)
            return 0.0;
        double s = m_gpu[size_t(t)] / m_capGpu;
        if (m_capCpu > 0)
            s = std::max(s, m_cpu[size_t(t)] / m_capCpu);
        if (m_capMem > 0)
            s = std::max(s, m_mem[size_t(t)] / m_capMem);
        return s;
    }
    void onStarted(int job, const Job& j) override
    {
        if (const int t = group(j); t >= 0) {
            charge(t, j, +1);
            m_charged[size_t(job)] = 1;
        }
    }
    void onStopped(int job, const Job& j) override
    {
        if (m_charged[size_t(job)]) {
            m_charged[size_t(job)] = 0;
            charge(group(j), j, -1);
        }
    }
    std::vector<ScoredJob> rank(const SchedContext&, const std::vector<QueuedJob>& served) const override
    {
        std::vector<ScoredJob> out;
        out.reserve(served.size());
        for (const QueuedJob& q : served)
            out.push_back({q.job, float(-q.groupKey)});
        return out;
    }

private:
    const Trace* m_trace = nullptr;
    std::vector<double> m_gpu, m_cpu, m_mem; ///< per tenant: users, then virtual clusters
    std::vector<char> m_charged;
    int m_users = 0;
    double m_capGpu = 1, m_capCpu = 0, m_capMem = 0;
    void charge(int t, const Job& j, int sign)
    {
        m_gpu[size_t(t)] += sign * j.gpus;
        m_cpu[size_t(t)] += sign * j.cpu;
        m_mem[size_t(t)] += sign * j.memGb;
    }
};

const PolicyRegistrar reg({.name = "drf",
                           .family = PolicyFamily::Ordering,
                           .description = "dominant resource fairness between users (or virtual clusters)",
                           .score = "-dominant share of the job's tenant",
                           .ordering = [](const PolicyOptions&) { return std::make_unique<Drf>(); }});

} // namespace
} // namespace ss

