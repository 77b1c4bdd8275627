// What-if commands: fork (rerun a stored run from one decision with one thing changed), diff (two stored
// runs, job by job) and bench-fork (what a fork costs next to simulating the rest of the run).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "cli.h"
#include "io/json.h"
#include "forkcli.h"
#include "io/runio.h"
#include "io/startstateio.h"
#include "io/traceio.h"
#include "loaders.h"
#include "model/tracegen.h"
#include "policy/registry.h"
#include "run/fork.h"
#include "run/forkstart.h"
#include "run/forkdiff.h"
#include "store/runstore.h"

namespace ss::cli {
namespace {

int machineByNameOrIndex(const ClusterSpec& c, const std::string& s, const char* opt)
{
    for (int m = 0; m < c.machineCount(); ++m)
        if (c.machines[size_t(m)].name == s)
            return m;
    try {
        size_t pos = 0;
        const int v = std::stoi(s, &pos);
        if (pos == s.size() && v >= 0 && v < c.machineCount())
            return v;
    } catch (const std::exception&) {
    }
    throw UsageError(std::string("--") + opt + ": no machine '" + s + "' in cluster " + c.name + " ("
                     + std::to_string(c.machineCount()) + " machines; give a name or an index 0.."
                     + std::to_string(c.machineCount() - 1) + ")");
}

std::vector<int> machinesArg(const ClusterSpec& c, const std::vector<std::string>& values, const char* opt)
{
    std::vector<int> out;
    for (const std::string& v : values)
        for (const std::string& item : splitList(v))
            out.push_back(machineByNameOrIndex(c, item, opt));
    return out;
}

int jobArg(const Trace& engineOrdered, const std::string& s, const char* opt)
{
    try {
        size_t pos = 0;
        const long long id = std::stoll(s, &pos);
        if (pos == s.size()) {
            const int j = jobIndexById(engineOrdered, id);
            if (j >= 0)
                return j;
        }
    } catch (const std::exception&) {
    }
    throw UsageError(std::string("--") + opt + ": no job with trace id '" + s + "' in the run's trace");
}

// The parent run's cluster, trace and speed table: as given, else from the sources its config names;
// each checked against the fingerprint the run recorded.
struct ParentInputs {
    ClusterSpec cluster;
    Trace trace;
    ThroughputTable table;
};

ParentInputs parentInputs(Args& a, const StoredRun& p, int64_t id)
{
    const RunSpec& s = p.out.spec;
    ParentInputs in;
    const std::string clusterRef = a.has("cluster") ? a.get("cluster") : (s.clusterSource.empty() ? s.clusterName : s.clusterSource);
    in.cluster = readCluster(clusterRef);
    if (in.cluster.fingerprint() != s.clusterFingerprint)
        throw UsageError("run " + std::to_string(id) + " ran on cluster " + s.clusterName + " (fingerprint "
                         + s.clusterFingerprint + "), '" + clusterRef + "' is another (" + in.cluster.fingerprint()
                         + "): pass --cluster with the cluster the run used");
    if (a.has("trace")) {
        in.trace = loadTraceFromArgs(a);
    } else {
        if (s.traceSource.empty())
            throw UsageError("run " + std::to_string(id) + " does not record its trace file: pass --trace FILE (with the options the run used)");
        try {
            in.trace = readTrace(s.traceSource);
        } catch (const std::exception& e) {
            throw UsageError("cannot read run " + std::to_string(id) + "'s trace '" + s.traceSource + "' (" + e.what()
                             + "): pass --trace FILE");
        }
    }
    if (traceFingerprint(in.trace) != s.traceFingerprint)
        throw UsageError("run " + std::to_string(id) + " ran on trace " + s.traceName + " (fingerprint " + s.traceFingerprint
                         + "), the trace read now differs: pass --trace FILE with the options the run used (--first, --window, ...)");
    in.table = loadThroughputsFromArgs(a);
    const std::string tfp = in.table.empty() ? std::string() : in.table.fingerprint();
    if (tfp != s.throughputsFingerprint)
        throw UsageError("run " + std::to_string(id) + " used " + (s.throughputsFingerprint.empty() ? std::string("no speed table")
                         : "speed table " + s.throughputsFingerprint) + ": pass --throughputs FILE to match");
    return in;
}

JsonValue num(double v) { return std::isfinite(v) ? JsonValue::makeNumber(v) : JsonValue(); }

void printDiff(const RunDiff& d, int top, DeltaSort by)
{
    std::printf("A: %s (seed %llu)   B: %s (seed %llu)\n", d.policyA.c_str(), (unsigned long long)d.seedA,
                d.policyB.c_str(), (unsigned long long)d.seedB);
    if (d.logsCompared) {
        if (d.firstDivergence > 0)
            std::printf("first divergence: decision %llu (t=%.3f s): %s\n", (unsigned long long)d.firstDivergence,
                        d.divergenceTime, d.divergenceWhat.c_str());
        else
            std::printf("first divergence: none (every decision agrees)\n");
    } else {
        std::printf("first divergence: unknown (a run has no decision log)%s\n",
                    d.firstMoveTime >= 0 ? (", first job moves at t=" + std::to_string(d.firstMoveTime) + " s").c_str() : "");
    }
    std::printf("jobs moved: %d   only in A: %d   only in B: %d\n\n", d.moved, d.onlyA, d.onlyB);
    std::printf("%-20s %14s %14s %14s\n", "metric", "A", "B", "B - A");
    for (const MetricDelta& m : d.metrics)
        std::printf("%-20s %14.4f %14.4f %+14.4f\n", m.name.c_str(), m.a, m.b, m.delta());
    const std::vector<size_t> ranked = sortedDeltas(d, by == DeltaSort::Id ? DeltaSort::Jct : by);
    const bool jct = by != DeltaSort::Fee;
    auto val = [&](size_t i) { return jct ? d.jobs[i].jctDelta() : d.jobs[i].feeDelta(); };
    auto row = [&](size_t i) {
        const JobDelta& j = d.jobs[i];
        std::printf("  job %-10lld jct %10.1f -> %10.1f s (%+10.1f)   fee %8.3f -> %8.3f USD (%+8.3f)\n", (long long)j.id,
                    j.jctA, j.jctB, j.jctDelta(), j.feeA, j.feeB, j.feeDelta());
    };
    std::printf("\nbiggest winners in B (%s):\n", jct ? "JCT" : "fee");
    int n = 0;
    for (size_t i = 0; i < ranked.size() && n < top; ++i)
        if (val(ranked[i]) < 0) {
            row(ranked[i]);
            ++n;
        }
    if (n == 0)
        std::printf("  (none)\n");
    std::printf("biggest losers in B (%s):\n", jct ? "JCT" : "fee");
    n = 0;
    for (size_t i = ranked.size(); i-- > 0 && n < top;)
        if (val(ranked[i]) > 0) {
            row(ranked[i]);
            ++n;
        }
    if (n == 0)
        std::printf("  (none)\n");
}

JsonValue jobJson(const JobDelta& j)
{
    JsonValue o = JsonValue::makeObject();
    o["id"] = JsonValue::makeNumber(double(j.id));
    o["submit"] = num(j.submit);
    o["start_a"] = j.indexA >= 0 && j.startA >= 0 ? num(j.startA) : JsonValue();
    o["start_b"] = j.indexB >= 0 && j.startB >= 0 ? num(j.startB) : JsonValue();
    o["jct_a"] = j.jctA >= 0 ? num(j.jctA) : JsonValue();
    o["jct_b"] = j.jctB >= 0 ? num(j.jctB) : JsonValue();
    o["jct_delta"] = num(j.jctDelta());
    o["fee_a"] = num(j.feeA);
    o["fee_b"] = num(j.feeB);
    o["fee_delta"] = num(j.feeDelta());
    o["status_a"] = JsonValue::makeString(j.indexA >= 0 ? toString(j.statusA) : "absent");
    o["status_b"] = JsonValue::makeString(j.indexB >= 0 ? toString(j.statusB) : "absent");
    o["moved"] = JsonValue::makeBool(j.moved);
    return o;
}

JsonValue diffJson(const RunDiff& d, int top, bool allJobs, DeltaSort by)
{
    JsonValue o = JsonValue::makeObject();
    o["policy_a"] = JsonValue::makeString(d.policyA);
    o["policy_b"] = JsonValue::makeString(d.policyB);
    o["seed_a"] = JsonValue::makeNumber(double(d.seedA));
    o["seed_b"] = JsonValue::makeNumber(double(d.seedB));
    o["moved"] = JsonValue::makeNumber(d.moved);
    o["only_a"] = JsonValue::makeNumber(d.onlyA);
    o["only_b"] = JsonValue::makeNumber(d.onlyB);
    o["logs_compared"] = JsonValue::makeBool(d.logsCompared);
    o["first_divergence"] = d.logsCompared ? JsonValue::makeNumber(double(d.firstDivergence)) : JsonValue();
    o["divergence_time"] = d.firstDivergence > 0 ? num(d.divergenceTime) : JsonValue();
    o["divergence"] = JsonValue::makeString(d.divergenceWhat);
    o["first_move_time"] = d.firstMoveTime >= 0 ? num(d.firstMoveTime) : JsonValue();
    JsonValue m = JsonValue::makeArray();
    for (const MetricDelta& x : d.metrics) {
        JsonValue e = JsonValue::makeObject();
        e["name"] = JsonValue::makeString(x.name);
        e["a"] = num(x.a);
        e["b"] = num(x.b);
        e["delta"] = num(x.delta());
        m.push(std::move(e));
    }
    o["metrics"] = std::move(m);
    const DeltaSort rank = by == DeltaSort::Id ? DeltaSort::Jct : by;
    const std::vector<size_t> ranked = sortedDeltas(d, rank);
    auto val = [&](size_t i) { return rank == DeltaSort::Jct ? d.jobs[i].jctDelta() : d.jobs[i].feeDelta(); };
    JsonValue winners = JsonValue::makeArray(), losers = JsonValue::makeArray();
    int n = 0;
    for (size_t i = 0; i < ranked.size() && n < top; ++i)
        if (val(ranked[i]) < 0) {
            winners.push(jobJson(d.jobs[ranked[i]]));
            ++n;
        }
    n = 0;
    for (size_t i = ranked.size(); i-- > 0 && n < top;)
        if (val(ranked[i]) > 0) {
            losers.push(jobJson(d.jobs[ranked[i]]));
            ++n;
        }
    o["winners"] = std::move(winners);
    o["losers"] = std::move(losers);
    if (allJobs) {
        JsonValue js = JsonValue::makeArray();
        for (size_t i : sortedDeltas(d, by))
            js.push(jobJson(d.jobs[i]));
        o["jobs"] = std::move(js);
    }
    return o;
}

DeltaSort sortArg(Args& a)
{
    const std::string s = a.get("sort", "jct");
    if (s == "jct")
        return DeltaSort::Jct;
    if (s == "fee")
        return DeltaSort::Fee;
    if (s == "id")
        return DeltaSort::Id;
    throw UsageError("--sort: expected jct, fee or id, got '" + s + "'");
}

// ---------------------------------------------------------------------------------------------------- fork
int cmdFork(Args& a)
{
    const std::string db = a.require("db");
    const int64_t id = parseRunId(a.require("run"), "--run");
    const long k = a.getInt("at-decision", 0);
    if (k < 1)
        throw UsageError("--at-decision K: a decision counted from 1 (as in the stepper), got " + std::to_string(k));
    const bool json = a.flag("json");
    const bool noSave = a.flag("no-save");
    const int top = int(a.getInt("top", 5));
    StoredRun parent;
    {
        RunStore store(db, RunStore::Mode::Existing);
        parent = store.loadRun(id, true);
    }
    if (parent.out.spec.traceFingerprint.empty())
        throw UsageError("run " + std::to_string(id) + " has no complete config to rerun (stored by an older SchedStudio)");
    if (parent.out.spec.fork.rfind("start-state=", 0) == 0)
        throw UsageError("run " + std::to_string(id) + " started from a start state (--start-state); forking such a run "
                         "is not supported yet");
    // a fork of a fork: its ancestors back to the root run, their changes read back from the store (run/fork.h)
    std::vector<StoredRun> lineage; // the forks, newest first
    StoredRun root = parent;
    int64_t rootId = id;
    while (!root.out.spec.fork.empty()) {
        if (root.out.spec.fork.rfind("start-state=", 0) == 0)
            throw UsageError("run " + std::to_string(rootId) + " started from a start state; forking its forks is not supported yet");
        const int64_t up = root.info.parentRunId;
        if (up <= 0)
            throw UsageError("run " + std::to_string(rootId) + " is a fork whose parent is not in " + db);
        lineage.push_back(std::move(root));
        RunStore store(db, RunStore::Mode::Existing);
        root = store.loadRun(up, false);
        rootId = up;
    }
    ParentInputs in = parentInputs(a, root, rootId);
    const Trace ordered = engineTrace(in.trace);
    // the world the new change applies in: the root's cluster grown by the ancestors' added machines
    ClusterSpec world = in.cluster;
    std::vector<ForkStage> chain;
    for (size_t i = lineage.size(); i-- > 0;) {
        ForkStage st;
        st.atDecision = lineage[i].info.forkDecision;
        try {
            st.change = parseForkChange(lineage[i].info.forkChange, world, ordered);
        } catch (const ForkError& e) {
            throw UsageError("cannot fork run " + std::to_string(id) + ": its ancestor run " + std::to_string(lineage[i].info.id)
                             + " cannot be rebuilt: " + e.what());
        }
        st.change.policyOptions.backfill = root.out.spec.options.backfill;
        if (st.change.addMachines > 0)
            addMachinesLike(world, st.change.addMachines, st.change.addLike);
        chain.push_back(std::move(st));
    }

    ForkRequest req;
    req.atDecision = uint64_t(k);
    req.parentRunId = id;
    req.chain = chain;
    if (!chain.empty())
        req.parentId = parent.out.spec.id();
    ForkChange& ch = req.change;
    if (a.has("place")) {
        const std::string p = a.get("place");
        const size_t colon = p.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 >= p.size())
            throw UsageError("--place JOB:M0,M1,...: a trace job id, a colon and machines (names or indices), got '" + p + "'");
        ch.placeJob = jobArg(ordered, p.substr(0, colon), "place");
        ch.placeMachines = machinesArg(world, {p.substr(colon + 1)}, "place");
    }
    for (const std::string& v : a.getAll("queue-first"))
        for (const std::string& item : splitList(v))
            ch.queueFront.push_back(jobArg(ordered, item, "queue-first"));
    ch.policy = a.get("policy");
    for (const std::string& kv : a.getAll("param")) {
        const size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("--param: expected KEY=VALUE, got '" + kv + "'");
        ch.policyOptions.params[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    if (!ch.policyOptions.params.empty() && ch.policy.empty())
        throw UsageError("--param goes with --policy (the policy deciding from the fork point on)");
    ch.policyOptions.backfill = root.out.spec.options.backfill;
    ch.failMachines = machinesArg(world, a.getAll("fail-machine"), "fail-machine");
    ch.drainMachines = machinesArg(world, a.getAll("drain-machine"), "drain-machine");
    if (a.has("add-machines")) { // N[:LIKE]: N copies of machine LIKE (default: the first), up from decision K
        const std::string v = a.get("add-machines");
        const size_t colon = v.find(':');
        try {
            size_t pos = 0;
            ch.addMachines = std::stoi(v.substr(0, colon), &pos);
            if (pos != v.substr(0, colon).size() || ch.addMachines < 1)
                throw std::invalid_argument("count");
        } catch (const std::exception&) {
            throw UsageError("--add-machines N[:LIKE]: N machines (a positive integer), like machine LIKE, got '" + v + "'");
        }
        if (colon != std::string::npos)
            ch.addLike = machineByNameOrIndex(world, v.substr(colon + 1), "add-machines");
    }
    if (a.has("burst")) {
        ch.burst = readTrace(a.get("burst"));
        if (ch.burst.name.empty())
            ch.burst.name = a.get("burst");
    }
    const std::string experiment = a.get("experiment", parent.info.experiment);
    const bool keepLog = !a.flag("no-log") && ordered.jobs.size() + ch.burst.jobs.size() <= 100000;
    a.finish();
    if (!ch.policy.empty())
        makeScheduler(ch.policy, ch.policyOptions); // an unknown policy or a bad --param fails before the rerun

    RunOutput out = runFork(in.cluster, in.trace, root.out.spec, req, in.table.empty() ? nullptr : &in.table, keepLog);
    int64_t forkId = -1;
    if (!noSave) {
        RunStore store(db, RunStore::Mode::Existing);
        forkId = store.saveRun(experiment, out);
    }
    const RunDiff d = diffRuns(parent.out, out);
    if (json) {
        JsonValue o = JsonValue::makeObject();
        o["parent_run_id"] = JsonValue::makeNumber(double(id));
        o["run_id"] = forkId > 0 ? JsonValue::makeNumber(double(forkId)) : JsonValue();
        o["at_decision"] = JsonValue::makeNumber(double(k));
        o["change"] = JsonValue::makeString(out.forkChange);
        o["summary"] = parseJson(summaryJson(out), "summary");
        o["diff"] = diffJson(d, top, false, DeltaSort::Jct);
        std::printf("%s\n", writeJson(o, 2).c_str());
    } else {
        std::printf("fork of run %lld at decision %ld: %s\n", (long long)id, k, out.forkChange.c_str());
        if (forkId > 0)
            std::printf("saved as run %lld in %s\n", (long long)forkId, db.c_str());
        std::printf("\n(A = parent run %lld, B = the fork)\n", (long long)id);
        printDiff(d, top, DeltaSort::Jct);
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------------- diff
int cmdDiff(Args& a)
{
    const std::string db = a.require("db");
    const std::vector<std::string> ids = a.getAll("run");
    if (ids.size() != 2)
        throw UsageError("diff needs two runs: --run A --run B");
    const int64_t ia = parseRunId(ids[0], "--run"), ib = parseRunId(ids[1], "--run");
    const bool json = a.flag("json");
    const bool all = a.flag("all");
    const int top = int(a.getInt("top", 10));
    const DeltaSort by = sortArg(a);
    a.finish();
    RunStore store(db, RunStore::Mode::ReadOnly);
    const StoredRun ra = store.loadRun(ia, true);
    const StoredRun rb = store.loadRun(ib, true);
    if (ra.out.traceFingerprint != rb.out.traceFingerprint && rb.info.forkDecision == 0 && ra.info.forkDecision == 0)
        std::fprintf(stderr, "note: runs %lld and %lld ran on different traces; jobs are matched by trace id\n",
                     (long long)ia, (long long)ib);
    const RunDiff d = diffRuns(ra.out, rb.out);
    if (json) {
        JsonValue o = diffJson(d, top, all, by);
        o["run_a"] = JsonValue::makeNumber(double(ia));
        o["run_b"] = JsonValue::makeNumber(double(ib));
        std::printf("%s\n", writeJson(o, 2).c_str());
        return 0;
    }
    std::printf("diff of run %lld (A) and run %lld (B)", (long long)ia, (long long)ib);
    if (rb.info.forkDecision > 0)
        std::printf("; B is a fork of run %lld at decision %llu: %s", (long long)rb.info.parentRunId,
                    (unsigned long long)rb.info.forkDecision, rb.info.forkChange.c_str());
    std::printf("\n");
    printDiff(d, top, by);
    if (all) {
        std::printf("\n%-12s %12s %12s %12s %10s %10s %10s %s\n", "job", "jct_a", "jct_b", "jct_delta", "fee_a", "fee_b",
                    "fee_delta", "moved");
        for (size_t i : sortedDeltas(d, by)) {
            const JobDelta& j = d.jobs[i];
            std::printf("%-12lld %12.1f %12.1f %+12.1f %10.3f %10.3f %+10.3f %s\n", (long long)j.id, j.jctA, j.jctB,
                        j.jctDelta(), j.feeA, j.feeB, j.feeDelta(), j.moved ? "yes" : "");
        }
    }
    return 0;
}

CliCommand forkCmd("fork",
                   "--db F --run ID --at-decision K [--place JOB:M0,M1] [--queue-first J1,J2] [--policy P [--param k=v]] "
                   "[--fail-machine M] [--drain-machine M] [--add-machines N[:LIKE]] [--burst FILE] [--trace FILE --cluster C] [--json] [--no-save] : "
                   "rerun a stored run (or a stored fork: its changes chain, K >= its fork point) from decision K with one thing changed, store it with its parent",
                   &cmdFork);
CliCommand diffCmd("diff",
                   "--db F --run A --run B [--json] [--sort jct|fee|id] [--top N] [--all] : two runs job by job, "
                   "first diverging decision, metric deltas",
                   &cmdDiff);

} // namespace

RunOutput runPlannedFromStartState(const std::string& file, const ExperimentPlan& plan)
{
    const PlannedRun& run = plan.runs.at(0);
    const RunInputs& in = plan.inputs.at(run.inputs);
    const StartState state = readStartState(file, *in.cluster); // IoError names file, line and field
    int dropped = 0;
    (void)traceWithStartState(*in.trace, state, &dropped);
    std::fprintf(stderr, "start state %s at t=%g s: %zu job(s); %d trace job(s) submitted before it dropped\n",
                 file.c_str(), state.time, state.jobs.size(), dropped);
    return runFromStartState(*in.cluster, *in.trace, state, run.spec, in.table.get());
}

RunOutput runPlannedFromTraceAt(double time, const ExperimentPlan& plan)
{
    const PlannedRun& run = plan.runs.at(0);
    const RunInputs& in = plan.inputs.at(run.inputs);
    const std::string source = in.traceSource.empty() ? in.trace->name : in.traceSource;
    const StartState state = startStateAt(*in.trace, *in.cluster, time, source); // one line naming the trace
    size_t running = 0, unplaced = 0;
    for (const StartStateJob& j : state.jobs) {
        running += j.running ? 1 : 0;
        unplaced += j.running && j.machines.empty() ? 1 : 0;
    }
    std::fprintf(stderr, "start state from %s at t=%.10g s: %zu running%s, %zu queued; jobs ended by then left out\n",
                 source.c_str(), time, running,
                 unplaced ? (" (" + std::to_string(unplaced) + " placed first-fit: the trace names no machines)").c_str() : "",
                 state.jobs.size() - running);
    return runFromStartState(*in.cluster, *in.trace, state, run.spec, in.table.get());
}

} // namespace ss::cli
