#include "run/forkstart.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "model/fnv.h"
#include "run/fork.h"

namespace ss {

std::string StartState::fingerprint() const
{
    Fnv f;
    f.num(time);
    for (const StartStateJob& j : jobs) {
        f.num(j.id);
        f.num(j.running ? 1 : 0);
        f.num(j.gpus);
        f.num(j.work);
        for (int m : j.machines)
            f.num(m);
        f.str(j.model);
        if (j.traceIndex >= 0) // only then, so state files keep their fingerprints
            f.num(j.traceIndex);
    }
    return f.hex();
}

Trace traceWithStartState(const Trace& trace, const StartState& state, int* dropped)
{
    Trace out;
    out.name = trace.name.empty() ? std::string("start-state") : trace.name;
    out.users = trace.users;
    out.vcs = trace.vcs;
    out.qosClasses = trace.qosClasses;
    out.gpuSpecs = trace.gpuSpecs;
    out.machineSets = trace.machineSets;
    out.models = trace.models;
    out.notes = trace.notes;
    StringInterner models(out.models);
    std::unordered_set<int64_t> ids, taken;
    for (const StartStateJob& s : state.jobs) {
        Job j;
        if (s.traceIndex >= 0) {
            if (size_t(s.traceIndex) >= trace.jobs.size() || trace.jobs[size_t(s.traceIndex)].id != s.id)
                throw std::invalid_argument(state.source + ": job " + std::to_string(s.id)
                                            + ": the start state was taken from another trace");
            j = trace.jobs[size_t(s.traceIndex)];
            taken.insert(s.id);
        }
        j.id = s.id;
        j.submit = state.time;
        j.gpus = s.gpus;
        j.duration = s.work;
        if (!s.model.empty())
            j.model = models(s.model);
        j.started = std::numeric_limits<double>::quiet_NaN(); // this run starts it (or not) itself
        ids.insert(s.id);
        out.jobs.push_back(std::move(j));
    }
    const Trace ordered = engineTrace(trace);
    int drop = 0;
    for (const Job& j : ordered.jobs) {
        if (j.submit < state.time) {
            ++drop;
            continue;
        }
        if (taken.count(j.id))
            continue; // submitted exactly at state.time: the state holds it already
        if (ids.count(j.id))
            throw std::invalid_argument(state.source + ": job id " + std::to_string(j.id)
                                        + " is both in the start state and a later job of the trace");
        out.jobs.push_back(j);
    }
    if (dropped)
        *dropped = drop;
    out.notes.push_back("start state " + state.source + " at t=" + std::to_string(state.time) + ": "
                        + std::to_string(state.jobs.size()) + " job(s); " + std::to_string(drop)
                        + " trace job(s) submitted before it dropped");
    return out;
}

StartState startStateAt(const Trace& trace, const ClusterSpec& cluster, double time, const std::string& source)
{
    if (!std::isfinite(time) || time < 0)
        throw std::invalid_argument(source + ": --start-at: expected a time in seconds >= 0 on the trace's clock");
    if (!trace.hasStartTimes())
        throw std::invalid_argument(source + ": the trace has no start times (only submit times and durations), so "
                                             "which jobs ran at a time is not known: start from a state file "
                                             "(--start-state FILE) or fork a stored run (fork --at-decision K)");
    std::unordered_map<std::string, int> machineIndex;
    for (int m = 0; m < cluster.machineCount(); ++m)
        machineIndex.emplace(cluster.machines[size_t(m)].name, m);
    auto fail = [&](const Job& j, const char* field, const std::string& why) {
        throw std::invalid_argument(source + ": job " + std::to_string(j.id) + ": field '" + field + "': " + why);
    };
    StartState s;
    s.time = time;
    s.source = source;
    std::vector<StartStateJob> queued;
    for (size_t i = 0; i < trace.jobs.size(); ++i) {
        const Job& j = trace.jobs[i];
        if (j.submit > time)
            continue;
        if (!j.hasStarted())
            fail(j, "start", "submitted by t=" + std::to_string(time) + " but the trace does not say when it started");
        if (j.started + j.duration <= time)
            continue; // ended by then
        StartStateJob sj;
        sj.id = j.id;
        sj.gpus = j.gpus;
        sj.traceIndex = int32_t(i);
        if (j.started > time) {
            sj.work = j.duration;
            queued.push_back(std::move(sj));
            continue;
        }
        sj.running = true;
        sj.work = j.started + j.duration - time;
        for (const std::string& name : trace.machinesOf(j)) {
            auto it = machineIndex.find(name);
            if (it == machineIndex.end())
                fail(j, "machines", "ran on '" + name + "', which is not a machine of cluster " + cluster.name);
            sj.machines.push_back(it->second);
        }
        s.jobs.push_back(std::move(sj));
    }
    // running jobs take their GPUs in the order they started (first-fit placement follows it)
    std::stable_sort(s.jobs.begin(), s.jobs.end(), [&](const StartStateJob& a, const StartStateJob& b) {
        const double sa = trace.jobs[size_t(a.traceIndex)].started, sb = trace.jobs[size_t(b.traceIndex)].started;
        return sa < sb || (sa == sb && a.id < b.id);
    });
    s.jobs.insert(s.jobs.end(), std::make_move_iterator(queued.begin()), std::make_move_iterator(queued.end()));
    return s;
}

namespace {

// A running job whose trace names no machines: the first machine (in cluster order) with room for it, else
// machines in cluster order until their free GPUs of an allowed type add up to its demand.
std::vector<GpuSlot> firstFit(const Simulator& sim, SchedContext& ctx, const ClusterSpec& cluster, int j,
                              std::string& why)
{
    const Job& job = ctx.job(j);
    const uint64_t mask = ctx.rt(j).typeMask;
    const ClusterState& st = sim.state();
    const int need = job.wholeGpus(), milli = job.milli();
    std::vector<int> one(1), span;
    int spanFree = 0;
    for (int m = 0; m < cluster.machineCount(); ++m) {
        if (!((mask >> cluster.machines[size_t(m)].type) & 1ULL))
            continue;
        // cheap checks first: most machines of a busy cluster have no room
        const int base = cluster.gpuBase(m), gpus = cluster.machines[size_t(m)].gpus;
        int freeWhole = 0, roomy = 0;
        for (int g = base; g < base + gpus; ++g) {
            freeWhole += st.gpuFreeMilli(g) == 1000 ? 1 : 0;
            roomy += st.gpuFreeMilli(g) >= milli ? 1 : 0;
        }
        if ((milli < 1000 ? roomy : freeWhole) >= need) {
            one[0] = m;
            std::string ignored;
            std::vector<GpuSlot> slots = slotsOnMachines(sim, cluster, job, one, ignored);
            if (!slots.empty() && sim.checkStart(j, slots).empty())
                return slots;
        }
        if (milli == 1000 && freeWhole > 0 && spanFree < need) {
            span.push_back(m);
            spanFree += freeWhole;
        }
    }
    if (milli == 1000 && spanFree >= need) {
        std::vector<GpuSlot> slots = slotsOnMachines(sim, cluster, job, span, why);
        if (!slots.empty() && sim.checkStart(j, slots).empty())
            return slots;
    }
    why = "the trace names no machines for it and no machines of an allowed type have room for its "
        + std::to_string(need) + " GPU(s)" + (milli < 1000 ? " (share " + std::to_string(milli) + "/1000)" : std::string())
        + " beside the jobs that started before it (first-fit in start order)";
    return {};
}

} // namespace

RunOutput runFromStartState(const ClusterSpec& cluster, const Trace& trace, const StartState& state, RunSpec spec,
                            const ThroughputTable* table, const std::function<bool(double)>& progress)
{
    const Trace merged = traceWithStartState(trace, state);
    spec.fork = "start-state=" + state.fingerprint() + (spec.fork.empty() ? "" : ";" + spec.fork);
    auto hook = [&](Simulator& sim, SchedContext& ctx) {
        // jobs on named machines first, then those placed first-fit around them
        for (int pass = 0; pass < 2; ++pass)
        for (size_t i = 0; i < state.jobs.size(); ++i) {
            const StartStateJob& s = state.jobs[i];
            if (!s.running || s.machines.empty() != (pass == 1))
                continue;
            const int j = int(i); // the state's jobs come first in the merged trace
            auto where = [&] {
                std::string w;
                for (int m : s.machines)
                    w += (w.empty() ? "" : ";") + cluster.machines[size_t(m)].name;
                if (s.line <= 0) // taken from the trace (startStateAt): no line to name
                    return state.source + ": job " + std::to_string(s.id) + ": field 'machines'"
                           + (w.empty() ? std::string() : " (" + w + ")");
                return state.source + ":" + std::to_string(s.line) + ": machines: job " + std::to_string(s.id) + " on " + w;
            };
            if (ctx.rt(j).status != JobStatus::Pending)
                throw std::invalid_argument(where() + ": not accepted by the policy's admission stage ("
                                            + toString(ctx.rt(j).status) + ")");
            std::string why;
            std::vector<GpuSlot> slots = s.machines.empty() ? firstFit(sim, ctx, cluster, j, why)
                                                            : slotsOnMachines(sim, cluster, ctx.job(j), s.machines, why);
            if (slots.empty())
                throw std::invalid_argument(where() + ": " + why);
            why = sim.checkStart(j, slots);
            if (!why.empty())
                throw std::invalid_argument(where() + ": " + why);
            ctx.start(j, std::move(slots), "start state");
        }
    };
    auto prepare = [&](Simulator& sim) { sim.setDecisionHook(0, hook); };
    return runSimulation(cluster, merged, spec, progress, table, {}, prepare);
}

} // namespace ss
