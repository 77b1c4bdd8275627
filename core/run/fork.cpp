#include "run/fork.h"

#include <algorithm>
#include <memory>
#include <sstream>

#include "policy/registry.h"

namespace ss {

namespace {
std::string machineName(const ClusterSpec& c, int m)
{
    if (m >= 0 && m < c.machineCount() && !c.machines[size_t(m)].name.empty())
        return c.machines[size_t(m)].name;
    return "machine " + std::to_string(m);
}

std::string machineList(const ClusterSpec& c, const std::vector<int>& ms)
{
    std::string s;
    for (int m : ms)
        s += (s.empty() ? "" : ",") + machineName(c, m);
    return s;
}

std::string jobName(const Trace& t, int j)
{
    if (j >= 0 && size_t(j) < t.jobs.size())
        return "job " + std::to_string(t.jobs[size_t(j)].id);
    return "job index " + std::to_string(j);
}

void checkMachines(const ClusterSpec& c, const std::vector<int>& ms, const char* what)
{
    for (int m : ms)
        if (m < 0 || m >= c.machineCount())
            throw ForkError(std::string(what) + ": no machine " + std::to_string(m) + " (the cluster has "
                            + std::to_string(c.machineCount()) + ")");
}
} // namespace

bool ForkChange::empty() const
{
    return placeJob < 0 && queueFront.empty() && policy.empty() && failMachines.empty() && drainMachines.empty()
        && addMachines <= 0 && burst.jobs.empty();
}

std::string ForkChange::describe(const ClusterSpec& cluster, const Trace& trace) const
{
    std::vector<std::string> parts;
    if (placeJob >= 0)
        parts.push_back("place " + jobName(trace, placeJob) + " on " + machineList(cluster, placeMachines));
    if (!queueFront.empty()) {
        std::string s = "queue first";
        for (int j : queueFront)
            s += " " + jobName(trace, j);
        parts.push_back(s);
    }
    if (!policy.empty()) {
        std::string s = "policy " + canonicalPolicyName(policy);
        for (const auto& [k, v] : policyOptions.params)
            s += " " + k + "=" + v;
        parts.push_back(s);
    }
    if (!failMachines.empty())
        parts.push_back("fail " + machineList(cluster, failMachines));
    if (!drainMachines.empty())
        parts.push_back("drain " + machineList(cluster, drainMachines));
    if (addMachines > 0)
        parts.push_back("add " + std::to_string(addMachines) + " machine(s) like " + machineName(cluster, addLike));
    if (!burst.jobs.empty())
        parts.push_back("burst of " + std::to_string(burst.jobs.size()) + " job(s)"
                        + (burst.name.empty() ? std::string() : " from " + burst.name));
    if (parts.empty())
        return "no change";
    std::string s;
    for (const std::string& p : parts)
        s += (s.empty() ? "" : "; ") + p;
    return s;
}

Trace engineTrace(const Trace& trace)
{
    Trace t = trace;
    for (size_t i = 1; i < t.jobs.size(); ++i)
        if (t.jobs[i].submit < t.jobs[i - 1].submit) {
            t.sortBySubmit();
            break;
        }
    return t;
}

int jobIndexById(const Trace& t, int64_t id)
{
    for (size_t i = 0; i < t.jobs.size(); ++i)
        if (t.jobs[i].id == id)
            return int(i);
    return -1;
}

double decisionTime(const ClusterSpec& cluster, const Trace& trace, const RunSpec& spec, uint64_t k,
                    const ThroughputTable* table)
{
    if (k == 0)
        throw ForkError("decisions are counted from 1");
    auto policy = makeScheduler(spec.policy, spec.options);
    RunConfig cfg = spec.config;
    cfg.recordDecisions = false;
    Simulator sim(cluster, trace, *policy, cfg, table);
    while (sim.decisions() < k)
        if (!sim.step())
            throw ForkError("the run has only " + std::to_string(sim.decisions()) + " decisions, not "
                            + std::to_string(k));
    return sim.now();
}

Trace withBurst(const Trace& trace, const Trace& burst, double t0)
{
    Trace out = engineTrace(trace);
    std::vector<Job> parentJobs = std::move(out.jobs);
    out.jobs.clear();
    int64_t nextId = 0;
    for (const Job& j : parentJobs)
        nextId = std::max(nextId, j.id + 1);
    StringInterner models(out.models), users(out.users), vcs(out.vcs), qos(out.qosClasses), specs(out.gpuSpecs);
    auto remap = [](StringInterner& in, const std::vector<std::string>& table, int32_t i) {
        return i >= 0 && size_t(i) < table.size() ? in(table[size_t(i)]) : int32_t(-1);
    };
    double first = kInf;
    for (const Job& b : burst.jobs)
        first = std::min(first, b.submit);
    std::vector<Job> added;
    for (const Job& b : burst.jobs) {
        Job j = b;
        j.id = nextId++;
        j.submit = t0 + (b.submit - first); // the burst's first job arrives at t0
        j.model = remap(models, burst.models, b.model);
        j.user = remap(users, burst.users, b.user);
        j.vc = remap(vcs, burst.vcs, b.vc);
        j.qos = remap(qos, burst.qosClasses, b.qos);
        j.gpuSpec = remap(specs, burst.gpuSpecs, b.gpuSpec);
        j.machines = -1; // where the burst's own trace ran it says nothing about this run
        j.started = std::numeric_limits<double>::quiet_NaN();
        added.push_back(std::move(j));
    }
    std::stable_sort(added.begin(), added.end(), [](const Job& a, const Job& b) { return a.submit < b.submit; });
    // merge, the parent's jobs first on equal times: the parent's job indices before t0 do not move
    out.jobs.reserve(parentJobs.size() + added.size());
    size_t p = 0;
    for (Job& j : added) {
        while (p < parentJobs.size() && parentJobs[p].submit <= j.submit)
            out.jobs.push_back(std::move(parentJobs[p++]));
        out.jobs.push_back(std::move(j));
    }
    while (p < parentJobs.size())
        out.jobs.push_back(std::move(parentJobs[p++]));
    out.notes.push_back("what-if burst: " + std::to_string(burst.jobs.size()) + " job(s) from t=" + std::to_string(t0));
    return out;
}

std::vector<GpuSlot> slotsOnMachines(const Simulator& sim, const ClusterSpec& cluster, const Job& job,
                                     const std::vector<int>& machines, std::string& why)
{
    std::vector<GpuSlot> slots;
    const ClusterState& st = sim.state();
    const int need = job.wholeGpus();
    const int milli = job.milli();
    int free = 0;
    for (int m : machines) {
        const int base = cluster.gpuBase(m);
        for (int g = base; g < base + cluster.machines[size_t(m)].gpus && int(slots.size()) < need; ++g) {
            const bool ok = milli == 1000 ? st.gpuFreeMilli(g) == 1000 : st.gpuFreeMilli(g) >= milli;
            if (ok && std::none_of(slots.begin(), slots.end(), [&](const GpuSlot& s) { return s.gpu == g; })) {
                slots.push_back({g, milli});
                ++free;
            }
        }
    }
    if (int(slots.size()) < need) {
        why = "needs " + std::to_string(need) + " GPU(s)" + (milli < 1000 ? " (share " + std::to_string(milli) + "/1000)" : "")
            + ", " + machineList(cluster, machines) + " " + (machines.size() == 1 ? "has" : "have") + " only " + std::to_string(free) + " free";
        slots.clear();
    }
    return slots;
}

RunOutput runFork(const ClusterSpec& cluster, const Trace& traceIn, const RunSpec& parent, const ForkRequest& req,
                  const ThroughputTable* table, bool keepLog, const std::function<bool(double)>& progress)
{
    const ForkChange& ch = req.change;
    const uint64_t k = req.atDecision;
    if (k == 0)
        throw ForkError("--at-decision: decisions are counted from 1");
    checkMachines(cluster, ch.placeMachines, "--place");
    checkMachines(cluster, ch.failMachines, "--fail-machine");
    checkMachines(cluster, ch.drainMachines, "--drain-machine");
    if (ch.addMachines > 0)
        checkMachines(cluster, {ch.addLike}, "--add-machines");
    if (ch.addMachines < 0 || ch.addMachines > 100000)
        throw ForkError("--add-machines: expected 1 to 100000 machines");
    // (c) added machines: the parent's cluster plus copies, down from the start until decision K
    ClusterSpec grown;
    const ClusterSpec* runCluster = &cluster;
    std::vector<int> added;
    if (ch.addMachines > 0) {
        grown = cluster;
        for (int i = 1, n = 0; n < ch.addMachines; ++i) {
            Machine m = cluster.machines[size_t(ch.addLike)];
            m.name = "added-" + std::to_string(i);
            if (std::any_of(grown.machines.begin(), grown.machines.end(), [&](const Machine& x) { return x.name == m.name; }))
                continue;
            added.push_back(int(grown.machines.size()));
            grown.machines.push_back(std::move(m));
            ++n;
        }
        grown.finalize();
        const std::string bad = grown.validate();
        if (!bad.empty())
            throw ForkError("--add-machines: the grown cluster is invalid: " + bad);
        runCluster = &grown;
    }
    if (ch.placeJob >= 0 && ch.placeMachines.empty())
        throw ForkError("--place: no machines given for " + jobName(traceIn, ch.placeJob));
    std::unique_ptr<Scheduler> next;
    if (!ch.policy.empty())
        next = makeScheduler(ch.policy, ch.policyOptions); // std::invalid_argument for an unknown policy

    // the trace the fork runs on: sorted as the engine needs it, plus the burst from the time of decision K
    Trace burstTrace;
    const Trace* trace = &traceIn;
    if (!ch.burst.jobs.empty()) {
        const Trace sorted = engineTrace(traceIn);
        burstTrace = withBurst(sorted, ch.burst, decisionTime(cluster, sorted, parent, k, table));
        trace = &burstTrace;
    }

    RunSpec spec = parent;
    spec.traceFingerprint.clear(); // recomputed from the fork's trace by runSimulation
    spec.keepDecisionLog = keepLog;
    spec.decisionLogPath.clear();
    bool sorted = true;
    for (size_t i = 1; i < traceIn.jobs.size() && sorted; ++i)
        sorted = traceIn.jobs[i].submit >= traceIn.jobs[i - 1].submit;
    const std::string what = ch.describe(cluster, sorted ? traceIn : engineTrace(traceIn)); // indices: engine order
    spec.fork = "parent=" + parent.id() + ";decision=" + std::to_string(k) + ";" + what;

    bool applied = false;
    // a job's trace id for messages (error paths only: the engine's order may be a sorted copy of traceIn)
    auto nameOf = [&](int j) { return trace == &traceIn ? jobName(engineTrace(traceIn), j) : jobName(*trace, j); };
    auto hook = [&](Simulator& sim, SchedContext& ctx) {
        applied = true;
        try {
            for (int m : ch.failMachines)
                sim.addMachineEvent({sim.now(), m, MachineEventKind::Fail});
            for (int m : ch.drainMachines)
                sim.addMachineEvent({sim.now(), m, MachineEventKind::Drain});
            for (int m : added)
                sim.addMachineEvent({sim.now(), m, MachineEventKind::Restore});
            if (next)
                sim.switchPolicy(*next);
            for (int j : ch.queueFront)
                if (j < 0 || j >= ctx.jobCount() || ctx.rt(j).status != JobStatus::Pending)
                    throw ForkError("--queue-first: " + nameOf(j) + " is "
                                    + (j >= 0 && j < ctx.jobCount() ? toString(ctx.rt(j).status) : "unknown") + " at decision "
                                    + std::to_string(k) + " (t=" + std::to_string(sim.now()) + "), not pending");
            if (!ch.queueFront.empty())
                sim.movePendingToFront(ch.queueFront);
            if (ch.placeJob >= 0) {
                const int j = ch.placeJob;
                if (j >= ctx.jobCount())
                    throw ForkError("no job index " + std::to_string(j));
                if (ctx.rt(j).status != JobStatus::Pending)
                    throw ForkError(nameOf(j) + " is " + toString(ctx.rt(j).status) + " at decision "
                                    + std::to_string(k) + " (t=" + std::to_string(sim.now()) + "), not pending");
                std::string why;
                std::vector<GpuSlot> slots = slotsOnMachines(sim, *runCluster, ctx.job(j), ch.placeMachines, why);
                if (slots.empty())
                    throw ForkError("forced placement of " + nameOf(j) + " at decision " + std::to_string(k)
                                    + " does not fit: " + why);
                why = sim.checkStart(j, slots);
                if (!why.empty())
                    throw ForkError("forced placement of " + nameOf(j) + " at decision " + std::to_string(k)
                                    + " is not allowed: " + why);
                ctx.start(j, std::move(slots), "forced by what-if fork");
            }
        } catch (const std::invalid_argument& e) {
            throw ForkError(std::string("at decision ") + std::to_string(k) + ": " + e.what());
        }
    };
    auto prepare = [&](Simulator& sim) {
        for (int m : added) // time < 0: down before the clock starts, no decision point of their own
            sim.addMachineEvent({-1.0, m, MachineEventKind::Fail});
        sim.setDecisionHook(k - 1, hook);
    };
    RunOutput out = runSimulation(*runCluster, *trace, spec, progress, table, {}, prepare);
    if (!applied && !out.cancelled)
        throw ForkError("the parent run has only " + std::to_string(out.summary.decisions) + " decisions, not "
                        + std::to_string(k));
    out.parentRunId = req.parentRunId;
    out.forkDecision = k;
    out.forkChange = what;
    return out;
}

} // namespace ss
