#include "run/forkstart.h"

#include <stdexcept>
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
    out.models = trace.models;
    out.notes = trace.notes;
    StringInterner models(out.models);
    std::unordered_set<int64_t> ids;
    for (const StartStateJob& s : state.jobs) {
        Job j;
        j.id = s.id;
        j.submit = state.time;
        j.gpus = s.gpus;
        j.duration = s.work;
        if (!s.model.empty())
            j.model = models(s.model);
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

RunOutput runFromStartState(const ClusterSpec& cluster, const Trace& trace, const StartState& state, RunSpec spec,
                            const ThroughputTable* table, const std::function<bool(double)>& progress)
{
    const Trace merged = traceWithStartState(trace, state);
    spec.fork = "start-state=" + state.fingerprint() + (spec.fork.empty() ? "" : ";" + spec.fork);
    auto hook = [&](Simulator& sim, SchedContext& ctx) {
        for (size_t i = 0; i < state.jobs.size(); ++i) {
            const StartStateJob& s = state.jobs[i];
            if (!s.running)
                continue;
            const int j = int(i); // the state's jobs come first in the merged trace
            auto where = [&] {
                std::string w;
                for (int m : s.machines)
                    w += (w.empty() ? "" : ";") + cluster.machines[size_t(m)].name;
                return state.source + ":" + std::to_string(s.line) + ": machines: job " + std::to_string(s.id) + " on " + w;
            };
            if (ctx.rt(j).status != JobStatus::Pending)
                throw std::invalid_argument(where() + ": not accepted by the policy's admission stage ("
                                            + toString(ctx.rt(j).status) + ")");
            std::string why;
            std::vector<GpuSlot> slots = slotsOnMachines(sim, cluster, ctx.job(j), s.machines, why);
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
