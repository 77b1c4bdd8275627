// Simulation commands: generate, run, compare (bench: cmd_bench.cpp).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli.h"
#include "io/decisionlogjson.h"
#include "io/runio.h"
#include "io/traceio.h"
#include "loaders.h"
#include "model/tracegen.h"
#include "run/aggregate.h"
#include "run/executor.h"
#include "forkcli.h"
#include "storehook.h"

namespace ss::cli {
namespace {

/// --param KEY=VALUE, repeated.
std::map<std::string, std::string> paramsFromArgs(Args& a)
{
    std::map<std::string, std::string> out;
    for (const std::string& kv : a.getAll("param")) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("--param expects KEY=VALUE, got '" + kv + "'");
        out[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    return out;
}

/// Options shared by run, compare and sweep-like commands: seed, perf, backfill, params, checkpoint.
RunSpec runSpecFromArgs(Args& a)
{
    RunSpec s;
    s.config.seed = uint64_t(a.getInt("seed", 1));
    s.config.perf = PerfConfig::parse(a.get("perf", "default"));
    if (a.flag("no-backfill"))
        s.options.backfill = false;
    if (a.flag("backfill"))
        s.options.backfill = true;
    s.options.params = paramsFromArgs(a);
    s.options.checkpoint = a.get("checkpoint", "");
    s.config.maxTime = a.getDouble("max-time", kInf);
    s.config.checkInvariants = a.flag("check-invariants");
    // queued jobs kept per decision record (highest priority first; the record keeps the full length too)
    const long logQueue = a.getInt("log-queue", s.config.logQueueLimit);
    if (logQueue < 0 || logQueue > 1000000)
        throw UsageError("--log-queue: expected 0 to 1000000 queued jobs per decision record, got " + std::to_string(logQueue));
    s.config.logQueueLimit = int(logQueue);
    return s;
}

std::string fmt(double v, int prec = 2)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", prec, v);
    return buf;
}

bool printProgressEnabled(Args& a) { return !a.flag("quiet") && isatty(2); }

std::function<bool(double)> stderrProgress(bool on, const std::string& label)
{
    if (!on)
        return {};
    return [label, last = -1](double f) mutable {
        const int pct = int(f * 100);
        if (pct != last) {
            last = pct;
            std::fprintf(stderr, "\r%s %3d%%", label.c_str(), pct);
            if (pct >= 100)
                std::fprintf(stderr, "\r%*s\r", int(label.size()) + 6, "");
        }
        return true;
    };
}

// ------------------------------------------------------------------------------------------------ generate
int cmdGenerate(Args& a)
{
    TraceGenConfig g;
    ClusterSpec cluster;
    g.jobs = int(a.getInt("jobs", 1000));
    g.seed = uint64_t(a.getInt("seed", 1));
    g.load = a.getDouble("load", 0.9);
    g.clusterGpus = int(a.getInt("cluster-gpus", 0));
    if (a.has("cluster")) {
        cluster = loadClusterFromArgs(a);
        g.clusterGpus = cluster.totalGpus();
        g.maxGpus = std::min(8, cluster.maxGpusPerMachine() * 2);
    }
    g.arrivalsPerHour = a.getDouble("arrivals-per-hour", g.arrivalsPerHour);
    g.fractionalShare = a.getDouble("fractional", 0);
    g.deadlineShare = a.getDouble("deadlines", 0);
    g.durationScale = a.getDouble("duration-scale", 1.0);
    if (!(g.durationScale > 0))
        throw UsageError("--duration-scale must be > 0");
    g.maxGpus = int(a.getInt("max-gpus", g.maxGpus));
    const std::string out = a.require("out");
    a.finish();
    if (g.jobs <= 0)
        throw UsageError("--jobs must be > 0");
    if (g.clusterGpus <= 0 && a.has("load"))
        throw UsageError("--load needs --cluster PRESET|FILE or --cluster-gpus N to set the arrival rate");
    Trace t = generateTrace(g);
    writeNativeTrace(t, out);
    std::fprintf(stderr, "wrote %zu jobs over %.1f h to %s\n", t.jobs.size(), t.span() / 3600.0, out.c_str());
    if (!cluster.machines.empty() && t.span() > 0) {
        // what the trace asks of the cluster: its work (GPUs x reference seconds) over its span, against the GPUs
        // and against what they do at their types' speeds (a load over 1 there cannot be carried)
        const double perSecond = t.gpuSeconds() / t.span();
        std::fprintf(stderr, "the trace asks %.2f of %s's %d GPUs, %.2f of their capacity at their types' speeds (%.1f "
                             "reference GPUs)\n",
                     perSecond / cluster.totalGpus(), cluster.name.c_str(), cluster.totalGpus(),
                     perSecond / std::max(1e-9, cluster.referenceGpus()), cluster.referenceGpus());
    }
    return 0;
}
CliCommand c2("generate", "--jobs N --seed S --out FILE [--load X --cluster C] : a synthetic trace", &cmdGenerate);

// ------------------------------------------------------------------------------------------------ run
void printSummary(const RunOutput& o)
{
    const Summary& s = o.summary;
    std::printf("policy        %s\n", o.policy.c_str());
    std::printf("cluster       %s (%s)\n", o.clusterName.c_str(), o.clusterFingerprint.c_str());
    std::printf("trace         %s (%s)\n", o.traceName.c_str(), o.traceFingerprint.c_str());
    std::printf("seed          %llu\nperf          %s\n", static_cast<unsigned long long>(o.seed), o.perf.c_str());
    std::printf("jobs          %d (finished %d, unfinished %d, rejected %d)\n", s.jobs, s.finished, s.unfinished,
                s.rejected);
    std::printf("JCT (min)     mean %s  median %s  p95 %s  p99 %s\n", fmt(s.meanJctMin).c_str(),
                fmt(s.medianJctMin).c_str(), fmt(s.p95JctMin).c_str(), fmt(s.p99JctMin).c_str());
    std::printf("queueing      mean %s min\n", fmt(s.meanQueueMin).c_str());
    std::printf("fee ($)       mean %s  total %s\n", fmt(s.meanFeeUsd, 3).c_str(), fmt(s.totalFeeUsd).c_str());
    std::printf("makespan      %s h\nutilization   %s\n", fmt(s.makespanH, 3).c_str(), fmt(s.utilization, 4).c_str());
    if (s.deadlineJobs)
        std::printf("deadlines     %d jobs, miss rate %s, weighted (Chronus) %s\n", s.deadlineJobs,
                    fmt(s.deadlineMissRate, 4).c_str(), fmt(s.weightedMissRate, 4).c_str());
    if (s.bestEffortJobs && s.deadlineJobs)
        std::printf("best-effort   %d jobs, mean JCT %s min\n", s.bestEffortJobs, fmt(s.bestEffortMeanJctMin).c_str());
    if (!s.policyStats.empty()) {
        std::printf("policy stats ");
        for (const auto& [k, v] : s.policyStats)
            std::printf(" %s=%s", k.c_str(), fmt(v, std::fabs(v - std::round(v)) < 1e-9 ? 0 : 2).c_str());
        std::printf("\n");
    }
    std::printf("fairness      Jain %s\npreemptions   %d\n", fmt(s.jainFairness, 4).c_str(), s.preemptions);
    std::printf("engine        %llu events, %llu decisions, %.3f s\n", static_cast<unsigned long long>(s.events),
                static_cast<unsigned long long>(s.decisions), o.wallSeconds);
}

// A plan from the command line: --scenario FILE (its trace, cluster, perf, policies, seeds, params and
// variants; options given beside it override), or --trace/--cluster with the reading and transform options.
// `single`: `run` (one policy: --policy, or the scenario's first; one seed), else `compare` (--policies, --seeds).
ExperimentPlan planFromArgs(Args& a, bool single, bool verbose, std::shared_ptr<const ThroughputTable> table)
{
    const std::string policyKey = single ? "policy" : "policies";
    if (a.has("scenario")) {
        Scenario s = readScenario(a.get("scenario"));
        if (a.has(policyKey))
            s.policies = splitList(a.get(policyKey));
        if (single && !s.policies.empty())
            s.policies.resize(1);
        if (a.has("seed"))
            s.seed = uint64_t(a.getInt("seed", 1));
        if (single)
            s.seeds = 1;
        if (a.has("perf"))
            s.perf = a.get("perf");
        if (a.flag("no-backfill"))
            s.backfill = false;
        if (a.flag("backfill"))
            s.backfill = true;
        for (const auto& [k, v] : paramsFromArgs(a))
            s.params[k] = v;
        if (a.has("checkpoint"))
            s.checkpoint = a.get("checkpoint");
        if (single || a.flag("no-variants")) // `run` is one run: the scenario itself, not its what-if variants
            s.variants.clear();
        ExperimentPlan plan = planScenario(s, std::move(table));
        if (!single && a.has("seeds")) { // an explicit seed list replaces seed..seed+seeds-1
            RunSpec base = plan.runs.at(0).spec;
            std::vector<RunInputs> inputs = plan.inputs;
            plan = expandPlan(std::move(inputs), s.policies, parseSeedList(a.get("seeds")), base);
        }
        const double maxTime = a.getDouble("max-time", kInf);
        const bool invariants = a.flag("check-invariants");
        for (PlannedRun& r : plan.runs) {
            r.spec.config.maxTime = maxTime;
            r.spec.config.checkInvariants = invariants;
        }
        if (verbose)
            std::fprintf(stderr, "scenario %s: %zu run(s)\n", s.name.c_str(), plan.runs.size());
        return plan;
    }
    auto cluster = std::make_shared<const ClusterSpec>(loadClusterFromArgs(a));
    RunSpec base = runSpecFromArgs(a);
    std::vector<std::string> policies = single ? std::vector<std::string>{a.require("policy")}
                                               : splitList(a.require("policies"));
    if (policies.empty())
        throw UsageError("--" + policyKey + " is empty");
    const std::vector<uint64_t> seeds =
        single ? std::vector<uint64_t>{base.config.seed} : parseSeedList(a.get("seeds", std::to_string(base.config.seed)));
    const std::string traceArg = a.get("trace");
    auto trace = std::make_shared<const Trace>(loadTraceFromArgs(a, verbose));
    RunInputs in{"", trace, cluster, std::move(table), traceArg, a.get("cluster")};
    return expandPlan({std::move(in)}, policies, seeds, base);
}

int cmdRun(Args& a)
{
    if (a.has("scenario") && isAccelScenario(a.get("scenario")))
        return runAccelScenario(a, true);
    const bool json = a.flag("json");
    const bool progress = printProgressEnabled(a);
    std::shared_ptr<const ThroughputTable> table;
    if (ThroughputTable t = loadThroughputsFromArgs(a); !t.empty())
        table = std::make_shared<const ThroughputTable>(std::move(t));
    ExperimentPlan plan = planFromArgs(a, true, !json, table);
    PlannedRun& run = plan.runs.at(0);
    // --log-out FILE: the binary log streamed as the run goes, or JSON lines (.jsonl) written from memory after it
    const std::string logOut = a.get("log-out", "");
    const bool jsonl = logOut.size() > 6 && logOut.compare(logOut.size() - 6, 6, ".jsonl") == 0;
    if (!jsonl)
        run.spec.decisionLogPath = logOut;
    if (!logOut.empty() && plan.inputs[0].trace->jobs.size() > kLogBigTrace) {
        applyLogLimitsFor(plan.inputs[0].trace->jobs.size(), run.spec.config, a.has("log-queue"));
        std::fprintf(stderr,
                     "decision log: a trace of more than %zu jobs: each record keeps the first %d queued jobs (--log-queue "
                     "N keeps N) and the queue's length, and %d placements with their machines' scores (every start "
                     "is recorded)\n",
                     kLogBigTrace, run.spec.config.logQueueLimit, run.spec.config.logPlacementLimit);
    }
    // runs saved to a database keep their decision log (for the studio to replay) unless they are huge
    run.spec.keepDecisionLog = jsonl || wantsDecisionLog(a) || (a.has("db") && plan.inputs[0].trace->jobs.size() <= 100000);
    peekStoreOptions(a);
    makeScheduler(run.spec.policy, run.spec.options); // an unknown policy or bad --param fails before the run
    const std::string startState = a.get("start-state"); // running and queued jobs at the start (cmd_fork.cpp)
    const std::string startAt = a.get("start-at");       // ... or those the trace itself records at a time
    double startTime = 0;
    if (!startAt.empty()) {
        if (!startState.empty())
            throw UsageError("--start-at and --start-state: give one start state");
        if (a.has("load-scale"))
            throw UsageError("--start-at takes the state the trace records; --load-scale moves its arrivals away "
                             "from its recorded start times");
        try {
            startTime = TraceTransform::parseDuration(startAt);
        } catch (const std::invalid_argument&) {
            throw UsageError("--start-at: expected a time on the trace's clock (seconds, or with s/m/h/d), got '"
                             + startAt + "'");
        }
    }
    a.finish();
    ExecOptions ex;
    auto bar = stderrProgress(progress, "simulating");
    if (bar)
        ex.progress = [&](size_t, size_t, double f) { return bar(f); };
    ex.onError = [](size_t, const std::string& e) { throw std::runtime_error(e); };
    ex.onResult = [&](size_t, RunOutput& out) {
        if (jsonl && out.log)
            writeDecisionLogJsonl(*out.log, logOut);
        saveRunIfAsked(a, out, a.get("experiment", "default"));
        exportIfAsked(a, out, plan.inputs[0].cluster.get());
        if (json)
            std::printf("%s\n", summaryJson(out, 2).c_str());
        else
            printSummary(out);
    };
    if (!startState.empty()) {
        RunOutput out = runPlannedFromStartState(startState, plan);
        ex.onResult(0, out);
        return 0;
    }
    if (!startAt.empty()) {
        RunOutput out = runPlannedFromTraceAt(startTime, plan);
        ex.onResult(0, out);
        return 0;
    }
    executePlan(plan, ex);
    return 0;
}
CliCommand c3("run",
              "--trace FILE --cluster PRESET|FILE --policy NAME --seed S [--json] [--perf SPEC] ... | --scenario FILE "
              "[--policy NAME] [--start-state FILE | --start-at T] : one run",
              &cmdRun);

// ------------------------------------------------------------------------------------------------ compare
int cmdCompare(Args& a)
{
    if (a.has("scenario") && isAccelScenario(a.get("scenario")))
        return runAccelScenario(a, false);
    const bool json = a.flag("json");
    const long threads = a.getInt("jobs", 1);
    if (threads < 1 || threads > 256)
        throw UsageError("--jobs: expected 1..256");
    std::shared_ptr<const ThroughputTable> table;
    if (ThroughputTable t = loadThroughputsFromArgs(a); !t.empty())
        table = std::make_shared<const ThroughputTable>(std::move(t));
    const ExperimentPlan plan = planFromArgs(a, false, !json, table);
    peekStoreOptions(a);
    a.finish();
    for (const PlannedRun& r : plan.runs)
        makeScheduler(r.spec.policy, r.spec.options); // fail fast on a typo, before any run

    // Rows: one per (variant, policy), in plan order; their runs are that row's seeds.
    struct Row {
        size_t inputs;
        std::string policy;
        std::vector<double> jct, p95, fee, makespan, util, miss;
        std::vector<uint64_t> seeds;
        std::vector<double> wmiss, beJct, accepted, solverMs; // deadline traces (Chronus's figures)
    };
    std::vector<Row> rows;
    std::vector<std::string> runJson;
    ExecOptions ex;
    ex.threads = int(threads);
    ex.onError = [&](size_t i, const std::string& e) { throw std::runtime_error(plan.runs[i].label + ": " + e); };
    ex.onResult = [&](size_t i, RunOutput& out) {
        const PlannedRun& pr = plan.runs[i];
        auto it = std::find_if(rows.begin(), rows.end(),
                               [&](const Row& r) { return r.inputs == pr.inputs && r.policy == pr.spec.policy; });
        if (it == rows.end())
            it = rows.insert(rows.end(), Row{pr.inputs, pr.spec.policy, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}});
        saveRunIfAsked(a, out, a.get("experiment", "compare"));
        const Summary& s = out.summary;
        it->jct.push_back(s.meanJctMin);
        it->p95.push_back(s.p95JctMin);
        it->fee.push_back(s.meanFeeUsd);
        it->makespan.push_back(s.makespanH);
        it->util.push_back(s.utilization);
        it->miss.push_back(s.deadlineMissRate);
        it->seeds.push_back(out.seed);
        it->wmiss.push_back(s.weightedMissRate);
        it->beJct.push_back(s.bestEffortJobs ? s.bestEffortMeanJctMin : std::nan(""));
        it->accepted.push_back(s.policyStat("slo_accepted"));
        it->solverMs.push_back(s.policyStat("lease_solver_mean_ms"));
        runJson.push_back(summaryJson(out));
    };
    executePlan(plan, ex);

    const RunInputs& base = plan.inputs.at(0);
    auto rowName = [&](const Row& r) {
        const std::string& v = plan.inputs[r.inputs].label;
        return v.empty() ? r.policy : r.policy + " [" + v + "]";
    };
    auto n = [](double v) { return std::isfinite(v) ? JsonValue::makeNumber(v) : JsonValue(); };
    if (json) {
        JsonValue o = JsonValue::makeObject();
        o["cluster"] = JsonValue::makeString(base.cluster->name);
        o["trace"] = JsonValue::makeString(base.trace->name);
        JsonValue seeds = JsonValue::makeArray();
        for (uint64_t s : rows.empty() ? std::vector<uint64_t>{} : rows[0].seeds)
            seeds.push(JsonValue::makeNumber(double(s)));
        o["seeds"] = std::move(seeds);
        JsonValue pol = JsonValue::makeArray();
        for (const Row& r : rows) {
            JsonValue e = JsonValue::makeObject();
            const SeedStat jct = seedStat(r.jct), fee = seedStat(r.fee);
            e["policy"] = JsonValue::makeString(r.policy);
            if (!plan.inputs[r.inputs].label.empty())
                e["variant"] = JsonValue::makeString(plan.inputs[r.inputs].label);
            e["runs"] = n(double(r.jct.size()));
            e["mean_jct_min"] = n(jct.mean);
            e["mean_jct_min_sd"] = n(jct.sd);
            e["mean_jct_min_ci95"] = n(jct.ci95);
            e["p95_jct_min"] = n(seedStat(r.p95).mean);
            e["mean_fee_usd"] = n(fee.mean);
            e["mean_fee_usd_sd"] = n(fee.sd);
            e["mean_fee_usd_ci95"] = n(fee.ci95);
            e["makespan_h"] = n(seedStat(r.makespan).mean);
            e["utilization"] = n(seedStat(r.util).mean);
            e["deadline_miss_rate"] = n(seedStat(r.miss).mean);
            e["weighted_miss_rate"] = n(seedStat(r.wmiss).mean);
            e["best_effort_mean_jct_min"] = n(seedStat(r.beJct).mean);
            if (seedStat(r.accepted).n)
                e["slo_accepted"] = n(seedStat(r.accepted).mean);
            if (seedStat(r.solverMs).n)
                e["lease_solver_mean_ms"] = n(seedStat(r.solverMs).mean);
            pol.push(std::move(e));
        }
        o["policies"] = std::move(pol);
        std::string out = writeJson(o, -1);
        // the runs are already JSON objects: splice them in rather than parse them again
        out.pop_back();
        out += ",\"runs\":[";
        for (size_t i = 0; i < runJson.size(); ++i)
            out += (i ? "," : "") + runJson[i];
        out += "]}";
        std::printf("%s\n", out.c_str());
        return 0;
    }
    const size_t seedCount = rows.empty() ? 0 : rows[0].seeds.size();
    std::printf("cluster %s, trace %s (%zu jobs), %zu seed(s)\n", base.cluster->name.c_str(), base.trace->name.c_str(),
                base.trace->jobs.size(), seedCount);
    int width = 22;
    for (const Row& r : rows)
        width = std::max(width, int(rowName(r).size()));
    // deadline traces: Chronus's weighted miss rate, best-effort JCT and the SLO jobs a policy accepted
    bool deadlines = false;
    for (const RunInputs& in : plan.inputs)
        for (const Job& j : in.trace->jobs)
            if (!j.deadlines.empty()) {
                deadlines = true;
                break;
            }
    std::printf("%-*s %18s %12s %16s %12s %8s %8s", width, "policy", "mean JCT (min)", "p95 (min)", "mean fee ($)",
                "makespan h", "util", "DL miss");
    if (deadlines)
        std::printf(" %9s %12s %10s", "wDL miss", "BE JCT min", "SLO acc");
    std::printf("\n");
    for (const Row& r : rows) {
        const SeedStat jct = seedStat(r.jct), fee = seedStat(r.fee);
        std::string jctS = fmt(jct.mean), feeS = fmt(fee.mean, 3);
        if (r.jct.size() > 1) {
            jctS += " ±" + fmt(jct.sd, 1);
            feeS += " ±" + fmt(fee.sd, 2);
        }
        const SeedStat miss = seedStat(r.miss);
        std::printf("%-*s %18s %12s %16s %12s %8s %8s", width, rowName(r).c_str(), jctS.c_str(),
                    fmt(seedStat(r.p95).mean).c_str(), feeS.c_str(), fmt(seedStat(r.makespan).mean, 2).c_str(),
                    fmt(seedStat(r.util).mean, 3).c_str(), miss.n ? fmt(miss.mean, 3).c_str() : "nan");
        if (deadlines) {
            const SeedStat acc = seedStat(r.accepted);
            std::printf(" %9s %12s %10s", fmt(seedStat(r.wmiss).mean, 3).c_str(), fmt(seedStat(r.beJct).mean).c_str(),
                        acc.n ? fmt(acc.mean, 0).c_str() : "-");
        }
        std::printf("\n");
    }
    return 0;
}
CliCommand c4("compare",
              "--trace FILE --cluster C --policies A,B,C [--seeds 1,2,3] [--jobs N] [--json] | --scenario FILE "
              "[--policies ...] [--seeds ...] [--no-variants] : side-by-side table (± sd over seeds)",
              &cmdCompare);

} // namespace
} // namespace ss::cli
