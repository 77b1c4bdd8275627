// Run-store commands: runs, show, export, sweep, merge (see docs/STORE.md).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "cli.h"
#include "io/export.h"
#include "io/json.h"
#include "io/traceio.h"
#include "loaders.h"
#include "policy/registry.h"
#include "run/executor.h"
#include "slurm.h"
#include "storehook.h"
#include "store/runstore.h"

namespace ss::cli {

int64_t parseRunId(const std::string& s, const char* what)
{
    try {
        size_t pos = 0;
        const long long v = std::stoll(s, &pos);
        if (pos == s.size() && v > 0)
            return v;
    } catch (const std::exception&) {
    }
    throw UsageError(std::string(what) + ": expected a run id (a positive integer), got '" + s + "'");
}

namespace {

int64_t singleRunId(Args& args)
{
    if (args.positionals().size() != 1)
        throw UsageError("expected exactly one RUN_ID");
    return parseRunId(args.positionals()[0], "RUN_ID");
}

// StoreError messages already start with the file they are about; main prints them as one line, exit 1.
template <class F> auto withStore(const std::string& /*db*/, F f)
{
    return f();
}

int cmdRuns(Args& args)
{
    const std::string db = args.require("db");
    const bool json = args.flag("json");
    RunFilter filter;
    filter.experiment = args.get("experiment");
    filter.policy = args.get("policy");
    filter.limit = int(args.getInt("limit", -1));
    const std::string del = args.get("delete");
    const std::string ren = args.get("rename");
    const std::string name = args.get("name");
    args.finish();
    if (!ren.empty() && !args.has("name"))
        throw UsageError("--rename ID needs --name NAME");
    return withStore(db, [&] {
        RunStore store(db, RunStore::Mode::Existing);
        if (!del.empty()) {
            store.deleteRun(parseRunId(del, "--delete"));
            std::fprintf(stderr, "deleted run %s\n", del.c_str());
        }
        if (!ren.empty()) {
            store.renameRun(parseRunId(ren, "--rename"), name);
            std::fprintf(stderr, "renamed run %s to '%s'\n", ren.c_str(), name.c_str());
        }
        if (!del.empty() || !ren.empty())
            return 0;
        const auto runs = store.listRuns(filter);
        if (json) {
            JsonValue arr = JsonValue::makeArray();
            for (const RunInfo& r : runs) {
                JsonValue o = JsonValue::makeObject();
                auto t = [](const std::string& v) { return JsonValue::makeString(v); };
                o["id"] = JsonValue::makeNumber(double(r.id));
                o["experiment"] = t(r.experiment);
                o["name"] = t(r.name);
                o["policy"] = t(r.policy);
                o["cluster"] = t(r.clusterName);
                o["cluster_fingerprint"] = t(r.clusterFingerprint);
                o["trace"] = t(r.traceName);
                o["trace_fingerprint"] = t(r.traceFingerprint);
                o["seed"] = JsonValue::makeNumber(double(r.seed));
                o["perf"] = t(r.perf);
                o["jobs"] = JsonValue::makeNumber(r.jobs);
                o["mean_jct_min"] = JsonValue::makeNumber(r.meanJctMin);
                o["created"] = t(r.created);
                o["has_log"] = JsonValue::makeBool(r.hasLog);
                o["key"] = t(r.key);
                arr.push(std::move(o));
            }
            std::fputs(writeJson(arr).c_str(), stdout);
            return 0;
        }
        std::printf("%6s  %-12s  %-24s  %-14s  %-20s  %6s  %8s  %12s  %-20s\n", "id", "experiment", "policy",
                    "cluster", "trace", "seed", "jobs", "mean JCT min", "created");
        for (const RunInfo& r : runs)
            std::printf("%6lld  %-12s  %-24s  %-14s  %-20s  %6llu  %8d  %12.3f  %-20s%s\n", (long long)r.id,
                        r.experiment.c_str(), r.policy.c_str(), r.clusterName.c_str(), r.traceName.c_str(),
                        (unsigned long long)r.seed, r.jobs, r.meanJctMin, r.created.c_str(),
                        r.name.empty() ? "" : ("  " + r.name).c_str());
        std::printf("%zu runs\n", runs.size());
        return 0;
    });
}

int cmdShow(Args& args)
{
    const std::string db = args.require("db");
    const bool json = args.flag("json");
    args.finish();
    const int64_t id = singleRunId(args);
    return withStore(db, [&] {
        RunStore store(db, RunStore::Mode::Existing);
        const StoredRun sr = store.loadRun(id);
        const RunInfo& i = sr.info;
        const size_t logRecords = sr.out.log ? sr.out.log->records.size() : 0;
        if (json) {
            JsonValue o = JsonValue::makeObject();
            o["id"] = JsonValue::makeNumber(double(i.id));
            o["experiment"] = JsonValue::makeString(i.experiment);
            o["name"] = JsonValue::makeString(i.name);
            o["created"] = JsonValue::makeString(i.created);
            o["software"] = JsonValue::makeString(i.softwareVersion);
            o["key"] = JsonValue::makeString(i.key);
            o["jobs_stored"] = JsonValue::makeNumber(double(sr.out.jobs.size()));
            o["series_points"] = JsonValue::makeNumber(double(sr.out.series.size()));
            o["log_records"] = JsonValue::makeNumber(double(logRecords));
            o["config"] = JsonValue::makeString(sr.config); // as stored, when it is not JSON
            if (!sr.config.empty()) {
                try {
                    o["config"] = parseJson(sr.config, "config"); // valid JSON: embedded as an object
                } catch (const std::exception&) {
                }
            }
            o["run"] = summaryToJson(sr.out);
            std::fputs(writeJson(o, -1).c_str(), stdout);
            std::fputs("\n", stdout);
            return 0;
        }
        std::printf("run %lld%s  experiment %s  created %s  software %s\n", (long long)i.id,
                    i.name.empty() ? "" : (" '" + i.name + "'").c_str(), i.experiment.c_str(), i.created.c_str(),
                    i.softwareVersion.c_str());
        std::printf("%s\n", provenanceLine(sr.out).c_str());
        if (sr.info.forkDecision > 0) // a what-if fork (cmd_fork.cpp)
            std::printf("fork of run %s at decision %llu: %s\n",
                        sr.info.parentRunId > 0 ? std::to_string(sr.info.parentRunId).c_str() : "(another database)",
                        (unsigned long long)sr.info.forkDecision, sr.info.forkChange.c_str());
        std::printf("stored: %zu jobs, %zu series points, %s\n", sr.out.jobs.size(), sr.out.series.size(),
                    sr.out.log ? (std::to_string(logRecords) + " decision records").c_str() : "no decision log");
        std::ostringstream summary;
        writeSummaryJson(sr.out, summary);
        std::printf("%s", summary.str().c_str());
        std::printf("config: %s\n", sr.config.empty() ? "(none)" : sr.config.c_str());
        return 0;
    });
}

int cmdExport(Args& args)
{
    const std::string db = args.require("db");
    const std::string clusterArg = args.get("cluster");
    bool any = false;
    for (const char* k : {"jobs-out", "summary-out", "series-out", "chrome-trace"})
        any = !args.get(k).empty() || any;
    args.finish();
    const int64_t id = singleRunId(args);
    if (!any)
        throw UsageError("nothing to export: give --jobs-out, --summary-out, --series-out or --chrome-trace");
    StoredRun sr = withStore(db, [&] {
        RunStore store(db, RunStore::Mode::Existing);
        return store.loadRun(id, !args.get("chrome-trace").empty());
    });
    ClusterSpec cluster;
    const bool haveCluster = resolveRunCluster(sr.out, clusterArg, cluster);
    if (haveCluster && !clusterArg.empty() && cluster.fingerprint() != sr.out.clusterFingerprint)
        std::fprintf(stderr, "warning: --cluster %s differs from the run's cluster (%s)\n", clusterArg.c_str(),
                     sr.out.clusterName.c_str());
    exportIfAsked(args, sr.out, haveCluster ? &cluster : nullptr);
    return 0;
}

int cmdSweep(Args& args)
{
    const std::vector<std::string> tracePaths = splitList(args.require("traces"));
    const std::vector<std::string> clusterArgs = splitList(args.require("clusters"));
    const std::vector<std::string> policyArgs = splitList(args.require("policies"));
    const std::vector<uint64_t> seeds = parseSeedList(args.get("seeds", "1"));
    const std::string db = args.require("db");
    const std::string experiment = args.get("experiment", "sweep");
    const std::string perfSpec = args.get("perf");
    const std::string shard = args.get("shard");
    const bool keepLog = args.flag("keep-log");
    const bool quiet = args.flag("quiet");
    TraceReadOptions readOpts;
    readOpts.format = args.get("format", "auto");
    long jobs = args.getInt("jobs", long(std::max(1u, std::thread::hardware_concurrency())));
    std::shared_ptr<const ThroughputTable> table;
    if (ThroughputTable t = loadThroughputsFromArgs(args); !t.empty())
        table = std::make_shared<const ThroughputTable>(std::move(t));
    // --slurm: a job array of --slurm-tasks shards, each into its own database, merged by a dependent task
    const bool slurm = args.flag("slurm");
    if (slurm && !shard.empty())
        throw UsageError("--slurm makes the shards itself: leave out --shard");
    const SlurmArray slurmArray = slurm ? slurmArrayFromArgs(args, "sweep", db) : SlurmArray {};
    args.finish();
    if (tracePaths.empty() || clusterArgs.empty() || policyArgs.empty())
        throw UsageError("sweep needs at least one trace, cluster and policy");
    if (jobs < 1 || jobs > 256)
        throw UsageError("--jobs: expected 1..256");

    const auto [shardIndex, shardCount] = parseShard(shard);
    RunSpec base;
    if (!perfSpec.empty()) {
        try {
            base.config.perf = PerfConfig::parse(perfSpec);
        } catch (const std::exception& e) {
            throw UsageError(std::string("--perf: ") + e.what());
        }
    }
    base.keepDecisionLog = keepLog;
    for (const std::string& p : policyArgs) {
        try {
            makeScheduler(p);
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--policies: ") + e.what());
        }
    }
    if (slurm) {
        for (const std::string& path : tracePaths)
            if (!std::ifstream(path))
                throw IoError(path, 0, "", "cannot open the trace");
        return submitSlurmArray(slurmArray);
    }
    std::vector<std::shared_ptr<const Trace>> traces;
    for (const std::string& path : tracePaths)
        traces.push_back(std::make_shared<const Trace>(readTrace(path, readOpts)));
    std::vector<std::shared_ptr<const ClusterSpec>> clusters;
    for (const std::string& c : clusterArgs) {
        ClusterSpec spec = readCluster(c);
        const std::string bad = spec.validate();
        if (!bad.empty())
            throw IoError(c, 0, "", "invalid cluster: " + bad);
        clusters.push_back(std::make_shared<const ClusterSpec>(std::move(spec)));
    }
    // Deterministic run list (trace, cluster, policy, seed order); shard i/N takes runs i, i+N, ...
    std::vector<RunInputs> inputs;
    for (size_t t = 0; t < traces.size(); ++t)
        for (size_t c = 0; c < clusters.size(); ++c)
            inputs.push_back({"", traces[t], clusters[c], table, tracePaths[t], clusterArgs[c]});
    ExperimentPlan all = expandPlan(std::move(inputs), policyArgs, seeds, base);
    ExperimentPlan plan;
    plan.inputs = all.inputs;
    for (size_t k = shardIndex; k < all.runs.size(); k += shardCount)
        plan.runs.push_back(all.runs[k]);

    return withStore(db, [&] {
        RunStore store(db);
        ExecOptions ex;
        ex.threads = int(jobs);
        // Runs already in the file, looked up once (the count below and the executor's skip use the same set).
        std::set<std::string> present;
        for (const PlannedRun& r : plan.runs)
            if (const std::string id = r.spec.id(); store.hasRun(id))
                present.insert(id);
        ex.skip = [&](const PlannedRun& r) { return present.count(r.spec.id()) > 0; };
        size_t written = 0;
        int failures = 0;
        ex.onError = [&](size_t i, const std::string& e) {
            ++failures;
            std::fprintf(stderr, "[%s] %s %s: FAILED: %s\n", plan.runs[i].label.c_str(),
                         plan.runs[i].spec.traceSource.c_str(), plan.runs[i].spec.clusterSource.c_str(), e.c_str());
        };
        ex.onResult = [&](size_t i, RunOutput& out) {
            const PlannedRun& r = plan.runs[i];
            if (out.spec.id() != r.spec.id())
                std::fprintf(stderr, "warning: %s: the run's identity differs from the planned one (resume may rerun it)\n",
                             r.label.c_str());
            const int64_t id = store.saveRun(experiment, out, {}, true);
            ++written;
            if (!quiet)
                std::fprintf(stderr, "[%zu] %s %s %s: mean JCT %.3f min, %.2f s -> run %lld\n", written,
                             r.spec.traceSource.c_str(), r.spec.clusterSource.c_str(), r.label.c_str(),
                             out.summary.meanJctMin, out.wallSeconds, (long long)id);
        };
        const size_t already = present.size();
        std::fprintf(stderr, "sweep: %zu runs in total, %zu in this shard, %zu already in %s, %zu to run on %ld threads\n",
                     all.runs.size(), plan.runs.size(), already, db.c_str(), plan.runs.size() - already, jobs);
        executePlan(plan, ex);
        std::fprintf(stderr, "sweep: done, %zu written, %d failed; %lld runs in %s\n", written, failures,
                     (long long)store.runCount(), db.c_str());
        return failures ? 1 : 0;
    });
}

int cmdMerge(Args& args)
{
    const std::string db = args.require("db");
    args.finish();
    if (args.positionals().empty())
        throw UsageError("merge needs at least one input database: merge --db OUT IN1 [IN2 ...]");
    return withStore(db, [&] {
        RunStore store(db);
        for (const std::string& in : args.positionals()) {
            const int copied = store.merge(in);
            std::fprintf(stderr, "merged %s: %d runs copied\n", in.c_str(), copied);
        }
        std::printf("%lld runs in %s\n", (long long)store.runCount(), db.c_str());
        return 0;
    });
}

CliCommand runsCmd("runs", "--db FILE [--json] [--experiment E] [--policy P] [--limit N] [--delete ID] "
                           "[--rename ID --name NAME]  list stored runs",
                   &cmdRuns);
CliCommand showCmd("show", "RUN_ID --db FILE [--json]  one stored run's summary and config", &cmdShow);
CliCommand exportCmd("export",
                     "RUN_ID --db FILE [--jobs-out F.csv] [--summary-out F.json|.csv] [--series-out F.csv] "
                     "[--chrome-trace F.json] [--cluster PRESET|FILE]  export a stored run",
                     &cmdExport);
CliCommand sweepCmd("sweep",
                    "--traces A,B --clusters X,Y --policies P,Q [--seeds 1,2,5-8] --db FILE [--jobs N] "
                    "[--shard i/N] [--experiment NAME] [--perf SPEC] [--keep-log] [--quiet] [--slurm [--slurm-tasks N] "
                    "[--slurm-dir DIR] [--slurm-opt OPT]... [--slurm-no-submit]]  run the cross product into a database "
                    "(resumable); --slurm: as a Slurm job array of N shards merged by a dependent task",
                    &cmdSweep);
CliCommand mergeCmd("merge", "--db OUT IN1 [IN2 ...]  copy runs of other databases (deduplicated by key)",
                    &cmdMerge);

} // namespace
} // namespace ss::cli
