#include "model/oasisjob.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <unordered_set>

namespace ss::oasis {

const char* resourceName(int r)
{
    static const char* names[kResources] = {"gpu", "cpu", "mem", "bw"};
    return r >= 0 && r < kResources ? names[r] : "?";
}

double Utility::operator()(double d) const
{
    switch (kind) {
    case Kind::Sigmoid:
        return g1 / (1.0 + std::exp(g2 * (d - g3)));
    case Kind::Linear:
        return std::max(0.0, g1 - g2 * d);
    case Kind::Constant:
        return g1;
    }
    return 0;
}

const char* toString(Utility::Kind k)
{
    switch (k) {
    case Utility::Kind::Sigmoid: return "sigmoid";
    case Utility::Kind::Linear: return "linear";
    case Utility::Kind::Constant: return "constant";
    }
    return "?";
}

Utility::Kind utilityKindFrom(const std::string& s)
{
    if (s == "sigmoid")
        return Utility::Kind::Sigmoid;
    if (s == "linear")
        return Utility::Kind::Linear;
    if (s == "constant")
        return Utility::Kind::Constant;
    throw std::invalid_argument("unknown utility kind '" + s + "' (sigmoid, linear, constant)");
}

int OasisJob::workerSlots(double slotSeconds) const
{
    const double work = double(epochs) * chunks * minibatches * secondsPerMinibatch();
    return std::max(1, int(std::ceil(work / slotSeconds - 1e-9)));
}

int OasisJob::psFor(int workers) const
{
    if (workers <= 0)
        return 0;
    return std::max(1, int(std::ceil(double(workers) * workerBw / psBw - 1e-9)));
}

OasisModelError::OasisModelError(int64_t job, std::string field, const std::string& reason)
    : std::invalid_argument("job " + std::to_string(job) + ": field '" + field + "': " + reason), m_job(job),
      m_field(std::move(field)), m_reason(reason)
{
}

namespace {

bool fits(const Amounts& demand, const Amounts& cap)
{
    for (int r = 0; r < kResources; ++r)
        if (demand[size_t(r)] > cap[size_t(r)] + 1e-9)
            return false;
    return true;
}

std::string amounts(const Amounts& a)
{
    std::ostringstream o;
    for (int r = 0; r < kResources; ++r)
        o << (r ? " " : "") << resourceName(r) << "=" << a[size_t(r)];
    return o.str();
}

} // namespace

void validateJob(const OasisJob& j, const OasisScenario& sc)
{
    auto fail = [&](const std::string& field, const std::string& why) { throw OasisModelError(j.id, field, why); };
    if (j.arrival < 0)
        fail("arrival", "negative arrival slot " + std::to_string(j.arrival));
    if (j.epochs < 1)
        fail("epochs", "must be >= 1");
    if (j.chunks < 1)
        fail("chunks", "must be >= 1");
    if (j.minibatches < 1)
        fail("minibatches", "must be >= 1");
    if (!(j.tau > 0) || !std::isfinite(j.tau))
        fail("tau", "compute time per mini-batch must be > 0");
    if (!(j.gradMb >= 0) || !std::isfinite(j.gradMb))
        fail("e", "gradient size must be >= 0");
    if (!(j.workerBw > 0) || !std::isfinite(j.workerBw))
        fail("b", "zero worker bandwidth (a worker could never exchange its gradients)");
    if (!(j.psBw > 0) || !std::isfinite(j.psBw))
        fail("B", "zero parameter-server bandwidth (no PS count meets the bandwidth guarantee)");
    if (j.workerBw > j.psBw)
        fail("b", "worker bandwidth " + std::to_string(j.workerBw) + " exceeds PS bandwidth " + std::to_string(j.psBw) +
                      ": the bandwidth guarantee would need more PSs than workers");
    for (int r = 0; r < kResources; ++r) {
        if (!(j.w[size_t(r)] >= 0) || !std::isfinite(j.w[size_t(r)]))
            fail(std::string("w.") + resourceName(r), "negative or non-finite demand");
        if (!(j.s[size_t(r)] >= 0) || !std::isfinite(j.s[size_t(r)]))
            fail(std::string("s.") + resourceName(r), "negative or non-finite demand");
    }
    const Utility& f = j.f;
    if (!std::isfinite(f.g1) || !std::isfinite(f.g2) || !std::isfinite(f.g3))
        fail("utility", "non-finite parameter");
    if (f.g1 < 0)
        fail("utility.g1", "negative utility");
    if (f.kind != Utility::Kind::Constant && f.g2 < 0)
        fail("utility.g2", std::string("utility increases with time (") + toString(f.kind) +
                               " with g2 = " + std::to_string(f.g2) + " < 0); OASiS needs a non-increasing f");
    if (std::none_of(sc.workers.begin(), sc.workers.end(), [&](const OasisServer& s) { return fits(j.w, s.cap); }))
        fail("w", "no worker server can hold one worker (" + amounts(j.w) + ")");
    if (std::none_of(sc.psServers.begin(), sc.psServers.end(), [&](const OasisServer& s) { return fits(j.s, s.cap); }))
        fail("s", "no parameter server can hold one PS (" + amounts(j.s) + ")");
}

void validateScenario(OasisScenario& sc)
{
    if (!(sc.slotSeconds > 0))
        throw OasisModelError(-1, "slot_seconds", "must be > 0");
    if (sc.horizon < 1)
        throw OasisModelError(-1, "horizon", "must be >= 1 slot");
    if (sc.workers.empty())
        throw OasisModelError(-1, "workers", "no worker servers");
    if (sc.psServers.empty())
        throw OasisModelError(-1, "ps_servers", "no parameter servers");
    for (const auto* set : {&sc.workers, &sc.psServers})
        for (const OasisServer& s : *set)
            for (int r = 0; r < kResources; ++r)
                if (!(s.cap[size_t(r)] >= 0) || !std::isfinite(s.cap[size_t(r)]))
                    throw OasisModelError(-1, "server " + s.name + " " + resourceName(r), "negative capacity");
    std::stable_sort(sc.jobs.begin(), sc.jobs.end(), [](const OasisJob& a, const OasisJob& b) {
        return a.arrival < b.arrival || (a.arrival == b.arrival && a.id < b.id);
    });
    std::unordered_set<int64_t> ids;
    for (const OasisJob& j : sc.jobs) {
        validateJob(j, sc);
        if (!ids.insert(j.id).second)
            throw OasisModelError(j.id, "id", "duplicate job id");
    }
}

OasisScenario fromTrace(const Trace& trace, const ClusterSpec& cluster, const TraceMapping& m)
{
    OasisScenario sc;
    sc.name = trace.name.empty() ? "trace" : trace.name;
    sc.slotSeconds = m.slotSeconds;
    for (const Machine& mc : cluster.machines) {
        OasisServer s;
        s.name = mc.name;
        s.cap = {double(mc.gpus), std::max(mc.cpus, mc.gpus * m.workerCpu), std::max(mc.memoryGb, mc.gpus * m.workerMemGb),
                 mc.nicGbps * 1000.0};
        sc.workers.push_back(s);
    }
    const int nps = m.psServers > 0 ? m.psServers : std::max(1, int(cluster.machines.size()) / 4);
    for (int k = 0; k < nps; ++k)
        sc.psServers.push_back({"ps" + std::to_string(k), {0, 32, 128, 10000}});
    int lastArrival = 0, longest = 1;
    for (const Job& tj : trace.jobs) {
        OasisJob j;
        j.id = tj.id;
        j.arrival = int(std::ceil(tj.submit / m.slotSeconds - 1e-9)); // the first slot boundary at or after submit
        j.chunks = tj.wholeGpus();
        j.tau = std::max(tj.duration, 1e-3);
        j.workerBw = m.workerBwMbps;
        j.psBw = m.psBwMbps;
        j.w = {1, m.workerCpu, m.workerMemGb, m.workerBwMbps};
        j.s = {0, m.psCpu, m.psMemGb, m.psBwMbps};
        const double slots = std::max(1.0, std::ceil(tj.duration / m.slotSeconds));
        j.f.kind = Utility::Kind::Sigmoid;
        j.f.g1 = 1;
        j.f.g3 = 2 * slots;
        j.f.g2 = 4 / j.f.g3;
        lastArrival = std::max(lastArrival, j.arrival);
        longest = std::max(longest, int(slots));
        sc.jobs.push_back(j);
    }
    sc.horizon = m.horizon > 0 ? m.horizon : lastArrival + 4 * longest + 1;
    std::ostringstream o;
    o << "mapped from trace '" << trace.name << "': slot " << m.slotSeconds << " s, arrival = first slot boundary at or after submit; N_i = whole GPUs, E = M = 1, "
      << "tau = duration, e = 0 (work = duration x GPUs); worker w = 1 GPU, " << m.workerCpu << " cores, "
      << m.workerMemGb << " GB, " << m.workerBwMbps << " Mbit/s; PS s = " << m.psCpu << " cores, " << m.psMemGb
      << " GB, " << m.psBwMbps << " Mbit/s on " << nps << " PS servers (32 cores, 128 GB, 10 Gbit/s); "
      << "utility sigmoid g1 = 1, g3 = 2 x run slots, g2 = 4 / g3";
    sc.notes.push_back(o.str());
    return sc;
}

} // namespace ss::oasis
