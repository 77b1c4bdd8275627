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

std::vector<int> addMachinesLike(ClusterSpec& c, int count, int like)
{
    std::vector<int> added;
    for (int n = 1, made = 0; made < count; ++n) {
        Machine m = c.machines[size_t(like)];
        m.name = "added-" + std::to_string(n);
        if (std::any_of(c.machines.begin(), c.machines.end(), [&](const Machine& x) { return x.name == m.name; }))
            continue;
        added.push_back(int(c.machines.size()));
        c.machines.push_back(std::move(m));
        ++made;
    }
    c.finalize();
    return added;
}

ForkChange parseForkChange(const std::string& text, const ClusterSpec& c, const Trace& t)
{
    ForkChange ch;
    if (text == "no change")
        return ch;
    auto fail = [&](const std::string& why) -> ForkError { return ForkError("fork change '" + text + "': " + why); };
    auto machine = [&](const std::string& name) {
        for (int m = 0; m < c.machineCount(); ++m)
            if (machineName(c, m) == name)
                return m;
        throw fail("no machine '" + name + "' in cluster " + c.name);
    };
    auto machines = [&](const std::string& list) {
        std::vector<int> out;
        size_t p = 0;
        while (p <= list.size()) {
            const size_t q = std::min(list.find(',', p), list.size());
            out.push_back(machine(list.substr(p, q - p)));
            p = q + 1;
        }
        return out;
    };
    auto job = [&](const std::string& id) {
        try {
            size_t pos = 0;
            const long long v = std::stoll(id, &pos);
            const int j = pos == id.size() ? jobIndexById(t, v) : -1;
            if (j >= 0)
                return j;
        } catch (const std::exception&) {
        }
        throw fail("no job '" + id + "' in the trace");
    };
    auto starts = [](const std::string& s, const char* p) { return s.rfind(p, 0) == 0; };
    size_t p = 0;
    while (p < text.size()) {
        size_t q = text.find("; ", p);
        if (q == std::string::npos)
            q = text.size();
        const std::string part = text.substr(p, q - p);
        p = q + 2;
        if (starts(part, "place job ")) {
            const size_t on = part.find(" on ");
            if (on == std::string::npos)
                throw fail("'" + part + "'");
            ch.placeJob = job(part.substr(10, on - 10));
            ch.placeMachines = machines(part.substr(on + 4));
        } else if (starts(part, "queue first")) {
            std::istringstream in(part.substr(11));
            std::string word, id;
            while (in >> word >> id) {
                if (word != "job")
                    throw fail("'" + part + "'");
                ch.queueFront.push_back(job(id));
            }
        } else if (starts(part, "policy ")) {
            std::istringstream in(part.substr(7));
            in >> ch.policy;
            std::string kv;
            while (in >> kv) {
                const size_t eq = kv.find('=');
                if (eq == std::string::npos || eq == 0)
                    throw fail("parameter '" + kv + "'");
                ch.policyOptions.params[kv.substr(0, eq)] = kv.substr(eq + 1);
            }
        } else if (starts(part, "fail ")) {
            ch.failMachines = machines(part.substr(5));
        } else if (starts(part, "drain ")) {
            ch.drainMachines = machines(part.substr(6));
        } else if (starts(part, "add ")) {
            const size_t like = part.find(" machine(s) like ");
            if (like == std::string::npos)
                throw fail("'" + part + "'");
            try {
                ch.addMachines = std::stoi(part.substr(4, like - 4));
            } catch (const std::exception&) {
                throw fail("'" + part + "'");
            }
            ch.addLike = machine(part.substr(like + 17));
        } else if (starts(part, "burst of ")) {
            throw fail("a burst of arrivals cannot be read back from the store (its jobs are not kept with the fork)");
        } else {
            throw fail("'" + part + "' is not a change");
        }
    }
    return ch;
}

std::vector<ForkStage> ForkRequest::stages() const
{
    std::vector<ForkStage> v = chain;
    v.push_back({atDecision, change});
    return v;
}

std::string forkChangeKey(const ForkChange& c)
{
    auto list = [](const std::vector<int>& v) {
        std::string s;
        for (int x : v)
            s += std::to_string(x) + ",";
        return s;
    };
    std::string k = "place=" + std::to_string(c.placeJob) + ":" + list(c.placeMachines) + ";front=" + list(c.queueFront)
        + ";policy=" + (c.policy.empty() ? std::string() : canonicalPolicyName(c.policy));
    if (!c.policy.empty()) {
        k += c.policyOptions.backfill ? "/bf" : "/nobf";
        for (const auto& [key, v] : c.policyOptions.params)
            k += "/" + key + "=" + v;
        k += "/cp=" + c.policyOptions.checkpoint;
    }
    k += ";fail=" + list(c.failMachines) + ";drain=" + list(c.drainMachines) + ";add=" + std::to_string(c.addMachines) + "x"
        + std::to_string(c.addLike) + ";burst=" + (c.burst.jobs.empty() ? std::string("0") : traceFingerprint(c.burst));
    return k;
}

std::string forkPathKey(const RunSpec& root, const std::vector<ForkStage>& stages)
{
    RunSpec r = root;
    r.decisionLogPath.clear(); // output handling is not what the run is
    r.keepDecisionLog = false;
    r.config.recordDecisions = false;
    std::string k = r.canonical();
    for (const ForkStage& s : stages)
        k += "\n@" + std::to_string(s.atDecision) + " " + forkChangeKey(s.change);
    return k;
}

namespace {

// One stage of a fork as it runs: its change, the machines it brings up and the policy it switches to.
struct StagePlan {
    uint64_t k = 1;
    const ForkChange* change = nullptr;
    std::vector<int> added;
    std::unique_ptr<Scheduler> next;
};

// The world a fork runs in: the root's cluster grown by the stages' added machines, and the root's trace with
// their bursts; `stages` hold what each applies.
struct ForkWorld {
    ClusterSpec grown;
    const ClusterSpec* cluster = nullptr;
    Trace withBursts;
    const Trace* trace = nullptr;
    std::vector<StagePlan> stages;
    bool grew = false; ///< the last stage added machines or jobs (its world is not its parent's)
};

// A job's trace id for messages (error paths only: the engine's order may be a sorted copy of the trace).
std::string nameIn(const Trace& trace, int j)
{
    bool sorted = true;
    for (size_t i = 1; i < trace.jobs.size() && sorted; ++i)
        sorted = trace.jobs[i].submit >= trace.jobs[i - 1].submit;
    return sorted ? jobName(trace, j) : jobName(engineTrace(trace), j);
}

void applyStage(Simulator& sim, SchedContext& ctx, StagePlan& st, const ClusterSpec& cluster, const Trace& trace)
{
    const ForkChange& ch = *st.change;
    const uint64_t k = st.k;
    try {
        for (int m : ch.failMachines)
            sim.addMachineEvent({sim.now(), m, MachineEventKind::Fail});
        for (int m : ch.drainMachines)
            sim.addMachineEvent({sim.now(), m, MachineEventKind::Drain});
        for (int m : st.added)
            sim.addMachineEvent({sim.now(), m, MachineEventKind::Restore});
        if (st.next)
            sim.switchPolicy(*st.next);
        for (int j : ch.queueFront)
            if (j < 0 || j >= ctx.jobCount() || ctx.rt(j).status != JobStatus::Pending)
                throw ForkError("--queue-first: " + nameIn(trace, j) + " is "
                                + (j >= 0 && j < ctx.jobCount() ? toString(ctx.rt(j).status) : "unknown") + " at decision "
                                + std::to_string(k) + " (t=" + std::to_string(sim.now()) + "), not pending");
        if (!ch.queueFront.empty())
            sim.movePendingToFront(ch.queueFront);
        if (ch.placeJob >= 0) {
            const int j = ch.placeJob;
            if (j >= ctx.jobCount())
                throw ForkError("no job index " + std::to_string(j));
            if (ctx.rt(j).status != JobStatus::Pending)
                throw ForkError(nameIn(trace, j) + " is " + toString(ctx.rt(j).status) + " at decision "
                                + std::to_string(k) + " (t=" + std::to_string(sim.now()) + "), not pending");
            std::string why;
            std::vector<GpuSlot> slots = slotsOnMachines(sim, cluster, ctx.job(j), ch.placeMachines, why);
            if (slots.empty())
                throw ForkError("forced placement of " + nameIn(trace, j) + " at decision " + std::to_string(k)
                                + " does not fit: " + why);
            why = sim.checkStart(j, slots);
            if (!why.empty())
                throw ForkError("forced placement of " + nameIn(trace, j) + " at decision " + std::to_string(k)
                                + " is not allowed: " + why);
            ctx.start(j, std::move(slots), "forced by what-if fork");
        }
    } catch (const std::invalid_argument& e) {
        throw ForkError(std::string("at decision ") + std::to_string(k) + ": " + e.what());
    }
}

// Installs the stages of `w` that are still ahead of `sim` (decision index k-1 >= sim.decisions()), the stages
// at one decision in their order; `applied` counts the last stage's application. A fresh simulator also gets the
// added machines down from before the clock starts (no decision point of their own).
void installStages(Simulator& sim, ForkWorld& w, size_t count, bool* applied, bool fresh)
{
    if (fresh)
        for (const StagePlan& st : w.stages)
            for (int m : st.added)
                sim.addMachineEvent({-1.0, m, MachineEventKind::Fail});
    for (size_t i = 0; i < count;) {
        size_t e = i;
        while (e < count && w.stages[e].k == w.stages[i].k)
            ++e;
        if (w.stages[i].k - 1 >= sim.decisions()) {
            const bool last = e == w.stages.size();
            sim.setDecisionHook(w.stages[i].k - 1, [&w, i, e, last, applied](Simulator& s, SchedContext& ctx) {
                if (last && applied)
                    *applied = true;
                for (size_t x = i; x < e; ++x)
                    applyStage(s, ctx, w.stages[x], *w.cluster, *w.trace);
            });
        }
        i = e;
    }
}

// The time of decision k on the world as built so far (stages before `count`), replaying it.
double decisionTimeIn(ForkWorld& w, size_t count, const RunSpec& spec, uint64_t k, const ThroughputTable* table)
{
    auto policy = makeScheduler(spec.policy, spec.options);
    RunConfig cfg = spec.config;
    cfg.recordDecisions = false;
    const Trace sorted = engineTrace(*w.trace);
    Simulator sim(*w.cluster, sorted, *policy, cfg, table);
    for (const MachineEventSpec& e : spec.machineEvents)
        if (const int m = resolveEventMachine(*w.cluster, e.machine); m >= 0)
            sim.addMachineEvent({e.time, m, e.kind});
    installStages(sim, w, count, nullptr, true);
    while (sim.decisions() < k)
        if (!sim.step())
            throw ForkError("the run has only " + std::to_string(sim.decisions()) + " decisions, not " + std::to_string(k));
    return sim.now();
}

// Builds the world of every stage of `req` on the root's cluster and trace.
void buildWorld(ForkWorld& w, const ClusterSpec& cluster, const Trace& traceIn, const RunSpec& root,
                const ThroughputTable* table, std::vector<ForkStage>& stages)
{
    w.cluster = &cluster;
    w.trace = &traceIn;
    for (size_t i = 0; i < stages.size(); ++i) {
        const ForkChange& ch = stages[i].change;
        const ClusterSpec& c = *w.cluster;
        if (stages[i].atDecision == 0)
            throw ForkError("--at-decision: decisions are counted from 1");
        if (i > 0 && stages[i].atDecision < stages[i - 1].atDecision)
            throw ForkError("decision " + std::to_string(stages[i].atDecision) + " is before the fork point of the run forked ("
                            + std::to_string(stages[i - 1].atDecision) + "): its decisions before it are its parent's, fork that run instead");
        checkMachines(c, ch.placeMachines, "--place");
        checkMachines(c, ch.failMachines, "--fail-machine");
        checkMachines(c, ch.drainMachines, "--drain-machine");
        if (ch.addMachines > 0)
            checkMachines(c, {ch.addLike}, "--add-machines");
        if (ch.addMachines < 0 || ch.addMachines > 100000)
            throw ForkError("--add-machines: expected 1 to 100000 machines");
        if (ch.placeJob >= 0 && ch.placeMachines.empty())
            throw ForkError("--place: no machines given for " + nameIn(*w.trace, ch.placeJob));
        StagePlan st;
        st.k = stages[i].atDecision;
        st.change = &stages[i].change;
        if (!ch.policy.empty()) {
            PolicyOptions o = ch.policyOptions;
            st.next = makeScheduler(ch.policy, o); // std::invalid_argument for an unknown policy
        }
        if (ch.addMachines > 0) { // copies of addLike, down from the start until decision K
            if (w.cluster != &w.grown)
                w.grown = c;
            st.added = addMachinesLike(w.grown, ch.addMachines, ch.addLike);
            const std::string bad = w.grown.validate();
            if (!bad.empty())
                throw ForkError("--add-machines: the grown cluster is invalid: " + bad);
            w.cluster = &w.grown;
        }
        if (!ch.burst.jobs.empty()) {
            // the burst's first job arrives at the time of decision K of the run as built so far
            const double t0 = decisionTimeIn(w, w.stages.size(), root, st.k, table);
            Trace t = withBurst(*w.trace, ch.burst, t0);
            w.withBursts = std::move(t);
            w.trace = &w.withBursts;
        }
        if (i + 1 == stages.size())
            w.grew = ch.addMachines > 0 || !ch.burst.jobs.empty();
        w.stages.push_back(std::move(st));
    }
}

// A fork run on a sorted copy of its trace records the identity of the trace as given (a sorted trace is its
// own copy: nothing to do).
void keepIdentityOf(RunOutput& out, const Trace& given, const Trace& ran)
{
    if (&given == &ran)
        return;
    for (size_t i = 1; i < given.jobs.size(); ++i)
        if (given.jobs[i].submit < given.jobs[i - 1].submit) {
            out.spec.traceFingerprint = out.traceFingerprint = traceFingerprint(given);
            return;
        }
}

} // namespace

RunOutput runFork(const ClusterSpec& cluster, const Trace& traceIn, const RunSpec& parent, const ForkRequest& req,
                  const ThroughputTable* table, bool keepLog, const std::function<bool(double)>& progress,
                  CheckpointSet* checkpoints, ForkHow* how)
{
    std::vector<ForkStage> stages = req.stages();
    const uint64_t k = req.atDecision;
    ForkWorld w;
    buildWorld(w, cluster, traceIn, parent, table, stages);
    const Trace* given = w.trace; // the trace the fork's identity is of (as a replay without checkpoints records it)

    RunSpec spec = parent;
    spec.traceFingerprint.clear(); // recomputed from the fork's trace by runSimulation
    if (w.cluster != &cluster) {
        // a learned policy checks its checkpoint against the cluster's fingerprint: the grown cluster is the parent's
        // plus machines down until their stage, so the parent's trained model keeps deciding (not an untrained one)
        const std::string allow = "das.allow_other_cluster";
        for (const ParamSpec& ps : policyInfo(parent.policy).params)
            if (ps.key == allow)
                spec.options.params[allow] = "1";
    }
    spec.keepDecisionLog = keepLog;
    spec.decisionLogPath.clear();
    // indices in the description: the engine's order of the trace the change applies to
    const Trace& namesTrace = w.stages.size() > 1 || w.trace != &traceIn ? *w.trace : traceIn;
    std::string what;
    {
        const ClusterSpec& named = *w.cluster;
        bool sorted = true;
        for (size_t i = 1; i < namesTrace.jobs.size() && sorted; ++i)
            sorted = namesTrace.jobs[i].submit >= namesTrace.jobs[i - 1].submit;
        what = req.change.describe(named, sorted ? namesTrace : engineTrace(namesTrace));
    }
    spec.fork = "parent=" + (req.parentId.empty() ? parent.id() : req.parentId) + ";decision=" + std::to_string(k) + ";" + what;

    const std::string parentPath = forkPathKey(parent, req.chain);
    ForkHow h;
    bool applied = false;
    RunOutput out;
    auto finish = [&](RunOutput& o) {
        if (!applied && !o.cancelled)
            throw ForkError("the parent run has only " + std::to_string(o.summary.decisions) + " decisions, not "
                            + std::to_string(k));
        o.parentRunId = req.parentRunId;
        o.forkDecision = k;
        o.forkChange = what;
        if (how)
            *how = h;
        return std::move(o);
    };
    // while the run is still its parent's (before decision K), its states are checkpoints of the parent
    auto feed = [&](CheckpointSet* set) -> AfterStep {
        if (!set)
            return {};
        return [set, k](const Simulator& sim, const MetricsCollector& m) {
            if (sim.decisions() <= k - 1)
                set->offer(sim, m);
        };
    };

    // restore: the set holds checkpoints of the run forked, and the fork runs in that run's world
    std::shared_ptr<const RunCheckpoint> cp;
    if (!checkpoints)
        h.why = "no checkpoints kept";
    else if (w.grew)
        h.why = "the change adds machines or jobs (the state of a bigger world is not the parent's)";
    else if (checkpoints->path() != parentPath)
        h.why = "the checkpoints kept are of another run";
    else if (!(cp = checkpoints->atOrBefore(k - 1)))
        h.why = checkpoints->cloneRefused() ? "policy " + canonicalPolicyName(parent.policy) + " cannot be snapshotted"
                                            : "no checkpoint at or before decision " + std::to_string(k);
    else if (keepLog && (!checkpoints->log() || checkpoints->log()->records.size() < cp->decisions())) {
        h.why = "the run's decision log is not at hand";
        cp.reset();
    }
    if (cp) {
        h.restored = true;
        h.fromDecision = cp->decisions();
        RunConfig rec = spec.config;
        rec.recordDecisions = rec.recordDecisions || keepLog;
        RunResume resume;
        resume.sim = Simulator::restore(*cp->sim, rec);
        resume.metrics = cp->metrics;
        if (keepLog) {
            const auto& recs = checkpoints->log()->records;
            resume.logPrefix.assign(recs.begin(), recs.begin() + long(cp->decisions()));
        }
        // the stages still ahead of the checkpoint run in the checkpointed world (the set's cluster and trace)
        ForkWorld& rw = w;
        rw.cluster = &checkpoints->cluster();
        rw.trace = &checkpoints->trace();
        if (k > 1)
            checkpoints->requestAt(k - 1); // stepping on to K passes it: the next fork here restores without a step
        auto prepare = [&](Simulator& sim) { installStages(sim, rw, rw.stages.size(), &applied, false); };
        out = runSimulation(checkpoints->cluster(), checkpoints->trace(), spec, progress, table, {}, prepare,
                            feed(checkpoints), &resume);
        keepIdentityOf(out, *given, checkpoints->trace());
        return finish(out);
    }

    // replay from decision 1; when the fork runs in its parent's world, its first K-1 steps refill the checkpoints
    CheckpointSet* fill = checkpoints && !w.grew ? checkpoints : nullptr;
    if (fill && fill->path() != parentPath)
        fill->reset(parentPath, std::make_shared<const ClusterSpec>(*w.cluster), std::make_shared<const Trace>(engineTrace(*w.trace)));
    if (fill && k > 1)
        fill->requestAt(k - 1); // the next fork at this decision (another change) restores without a step
    const ClusterSpec& runCluster = fill ? fill->cluster() : *w.cluster;
    const Trace& runTrace = fill ? fill->trace() : *w.trace;
    ForkWorld& rw = w;
    rw.cluster = &runCluster;
    rw.trace = &runTrace;
    auto prepare = [&](Simulator& sim) { installStages(sim, rw, rw.stages.size(), &applied, true); };
    out = runSimulation(runCluster, runTrace, spec, progress, table, {}, prepare, feed(fill));
    keepIdentityOf(out, *given, runTrace);
    return finish(out);
}

RunOutput runWithCheckpoints(const RunSpec& spec, CheckpointSet& set, const ThroughputTable* table,
                             const std::function<bool(double)>& progress)
{
    set.reset(forkPathKey(spec, {}), set.clusterPtr(), set.tracePtr());
    RunOutput out = runSimulation(set.cluster(), set.trace(), spec, progress, table, {}, {},
                                  [&set](const Simulator& sim, const MetricsCollector& m) { set.offer(sim, m); });
    if (out.log)
        set.setLog(out.log);
    return out;
}

} // namespace ss
