// Run-store commands: runs, show, export, sweep, merge (see docs/STORE.md).
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "cli.h"
#include "io/export.h"
#include "io/json.h"
#include "io/traceio.h"
#include "loaders.h"
#include "policy/registry.h"
#include "sim/runner.h"
#include "storehook.h"
#include "store/runstore.h"

namespace ss::cli {
namespace {

std::string jq(const std::string& s)
{
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\')
            o += '\\', o += char(c);
        else if (c < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else
            o += char(c);
    }
    return o + "\"";
}

int64_t parseId(const std::string& s, const char* what)
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

int64_t singleRunId(Args& args)
{
    if (args.positionals().size() != 1)
        throw UsageError("expected exactly one RUN_ID");
    return parseId(args.positionals()[0], "RUN_ID");
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
            store.deleteRun(parseId(del, "--delete"));
            std::fprintf(stderr, "deleted run %s\n", del.c_str());
        }
        if (!ren.empty()) {
            store.renameRun(parseId(ren, "--rename"), name);
            std::fprintf(stderr, "renamed run %s to '%s'\n", ren.c_str(), name.c_str());
        }
        if (!del.empty() || !ren.empty())
            return 0;
        const auto runs = store.listRuns(filter);
        if (json) {
            std::string o = "[";
            for (size_t i = 0; i < runs.size(); ++i) {
                const RunInfo& r = runs[i];
                o += (i ? ",\n " : "\n ");
                o += "{\"id\":" + std::to_string(r.id) + ",\"experiment\":" + jq(r.experiment) +
                     ",\"name\":" + jq(r.name) + ",\"policy\":" + jq(r.policy) + ",\"cluster\":" + jq(r.clusterName) +
                     ",\"cluster_fingerprint\":" + jq(r.clusterFingerprint) + ",\"trace\":" + jq(r.traceName) +
                     ",\"trace_fingerprint\":" + jq(r.traceFingerprint) + ",\"seed\":" + std::to_string(r.seed) +
                     ",\"perf\":" + jq(r.perf) + ",\"jobs\":" + std::to_string(r.jobs) +
                     ",\"mean_jct_min\":" + formatNumber(r.meanJctMin) + ",\"created\":" + jq(r.created) +
                     ",\"has_log\":" + (r.hasLog ? "true" : "false") + ",\"key\":" + jq(r.key) + "}";
            }
            o += runs.empty() ? "]\n" : "\n]\n";
            std::fputs(o.c_str(), stdout);
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
            std::ostringstream summary;
            writeSummaryJson(sr.out, summary);
            std::string config = jq(sr.config);
            if (!sr.config.empty()) {
                try {
                    (void)parseJson(sr.config, "config");
                    config = sr.config; // valid JSON: embed as is
                } catch (const std::exception&) {
                }
            }
            std::printf("{\"id\":%lld,\"experiment\":%s,\"name\":%s,\"created\":%s,\"software\":%s,\"key\":%s,"
                        "\"jobs_stored\":%zu,\"series_points\":%zu,\"log_records\":%zu,\"config\":%s,\"run\":%s}\n",
                        (long long)i.id, jq(i.experiment).c_str(), jq(i.name).c_str(), jq(i.created).c_str(),
                        jq(i.softwareVersion).c_str(), jq(i.key).c_str(), sr.out.jobs.size(), sr.out.series.size(),
                        logRecords, config.c_str(), summary.str().c_str());
            return 0;
        }
        std::printf("run %lld%s  experiment %s  created %s  software %s\n", (long long)i.id,
                    i.name.empty() ? "" : (" '" + i.name + "'").c_str(), i.experiment.c_str(), i.created.c_str(),
                    i.softwareVersion.c_str());
        std::printf("%s\n", provenanceLine(sr.out).c_str());
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

// "1,2,5-8" -> 1 2 5 6 7 8
std::vector<uint64_t> parseSeeds(const std::string& s)
{
    std::vector<uint64_t> out;
    for (const std::string& item : splitList(s)) {
        try {
            size_t dash = item.find('-', 1);
            size_t pos = 0;
            if (dash == std::string::npos) {
                out.push_back(std::stoull(item, &pos));
                if (pos != item.size())
                    throw std::invalid_argument(item);
            } else {
                const uint64_t a = std::stoull(item.substr(0, dash), &pos);
                const uint64_t b = std::stoull(item.substr(dash + 1));
                if (b < a || b - a > 100000)
                    throw std::invalid_argument(item);
                for (uint64_t x = a; x <= b; ++x)
                    out.push_back(x);
            }
        } catch (const std::exception&) {
            throw UsageError("--seeds: '" + item + "' is not a seed or a range A-B");
        }
    }
    if (out.empty())
        throw UsageError("--seeds: no seeds given");
    return out;
}

struct SweepItem {
    size_t trace, cluster, policy;
    uint64_t seed;
    std::string key;
};

struct SweepResult {
    size_t item;
    RunOutput out;
    std::string error;
};

int cmdSweep(Args& args)
{
    const std::vector<std::string> tracePaths = splitList(args.require("traces"));
    const std::vector<std::string> clusterArgs = splitList(args.require("clusters"));
    const std::vector<std::string> policyArgs = splitList(args.require("policies"));
    const std::vector<uint64_t> seeds = parseSeeds(args.get("seeds", "1"));
    const std::string db = args.require("db");
    const std::string experiment = args.get("experiment", "sweep");
    const std::string perfSpec = args.get("perf");
    const std::string shard = args.get("shard");
    const bool keepLog = args.flag("keep-log");
    const bool quiet = args.flag("quiet");
    TraceReadOptions readOpts;
    readOpts.format = args.get("format", "auto");
    long jobs = args.getInt("jobs", long(std::max(1u, std::thread::hardware_concurrency())));
    const ThroughputTable table = loadThroughputsFromArgs(args);
    args.finish();
    if (tracePaths.empty() || clusterArgs.empty() || policyArgs.empty())
        throw UsageError("sweep needs at least one trace, cluster and policy");
    if (jobs < 1 || jobs > 256)
        throw UsageError("--jobs: expected 1..256");

    size_t shardIndex = 0, shardCount = 1;
    if (!shard.empty()) {
        unsigned long a = 0, b = 0;
        char slash = 0;
        std::istringstream is(shard);
        if (!(is >> a >> slash >> b) || slash != '/' || b == 0 || a >= b || !is.eof())
            throw UsageError("--shard: expected i/N with 0 <= i < N, got '" + shard + "'");
        shardIndex = a;
        shardCount = b;
    }
    PerfConfig perf;
    if (!perfSpec.empty()) {
        try {
            perf = PerfConfig::parse(perfSpec);
        } catch (const std::exception& e) {
            throw UsageError(std::string("--perf: ") + e.what());
        }
    }
    // The runner records the scheduler's own name; resolve it now so that keys match stored runs.
    std::vector<std::string> policyNames;
    for (const std::string& p : policyArgs) {
        try {
            policyNames.push_back(makeScheduler(p)->name());
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--policies: ") + e.what());
        }
    }
    std::vector<Trace> traces;
    std::vector<std::string> traceFps;
    for (const std::string& path : tracePaths) {
        traces.push_back(readTrace(path, readOpts));
        traceFps.push_back(traceFingerprint(traces.back()));
    }
    std::vector<ClusterSpec> clusters;
    for (const std::string& c : clusterArgs) {
        clusters.push_back(readCluster(c));
        const std::string bad = clusters.back().validate();
        if (!bad.empty())
            throw IoError(c, 0, "", "invalid cluster: " + bad);
    }
    const std::string perfStr = perf.toString();

    // Deterministic item list (trace, cluster, policy, seed order); shard i/N takes items i, i+N, ...
    std::vector<SweepItem> all;
    for (size_t t = 0; t < traces.size(); ++t)
        for (size_t c = 0; c < clusters.size(); ++c)
            for (size_t p = 0; p < policyNames.size(); ++p)
                for (uint64_t s : seeds)
                    all.push_back({t, c, p, s, runKey(traceFps[t], clusters[c].fingerprint(), policyNames[p], s, perfStr)});
    std::vector<SweepItem> mine;
    for (size_t k = shardIndex; k < all.size(); k += shardCount)
        mine.push_back(all[k]);

    return withStore(db, [&] {
        RunStore store(db);
        std::vector<SweepItem> todo;
        for (const SweepItem& it : mine)
            if (!store.hasRun(it.key))
                todo.push_back(it);
        std::fprintf(stderr, "sweep: %zu runs in total, %zu in this shard, %zu already in %s, %zu to run on %ld threads\n",
                     all.size(), mine.size(), mine.size() - todo.size(), db.c_str(), todo.size(), jobs);

        std::mutex mu;
        std::condition_variable cvDone, cvRoom;
        // Results are written in item order (run ids follow the deterministic list, whatever thread ran them).
        std::map<size_t, SweepResult> done;
        size_t writeNext = 0;
        std::atomic<size_t> next{0};
        std::atomic<bool> stop{false};
        const size_t maxQueued = size_t(jobs) * 2; // bounds memory when the writer falls behind
        auto worker = [&] {
            for (;;) {
                if (stop)
                    return;
                const size_t k = next++;
                if (k >= todo.size())
                    return;
                const SweepItem& it = todo[k];
                SweepResult r{k, {}, {}};
                try {
                    RunSpec spec;
                    spec.policy = policyArgs[it.policy];
                    spec.config.seed = it.seed;
                    spec.config.perf = perf;
                    spec.keepDecisionLog = keepLog;
                    r.out = runSimulation(clusters[it.cluster], traces[it.trace], spec, {},
                                          table.empty() ? nullptr : &table);
                } catch (const std::exception& e) {
                    r.error = e.what();
                }
                std::unique_lock lock(mu);
                // The result the writer waits for always gets in, so a slow run cannot deadlock the pool.
                cvRoom.wait(lock, [&] { return done.size() < maxQueued || k == writeNext || stop; });
                done.emplace(k, std::move(r));
                cvDone.notify_one();
            }
        };
        std::vector<std::thread> pool;
        for (long i = 0; i < std::min<long>(jobs, long(todo.size())); ++i)
            pool.emplace_back(worker);

        int failures = 0;
        std::exception_ptr fatal;
        for (size_t written = 0; written < todo.size(); ++written) {
            SweepResult r;
            {
                std::unique_lock lock(mu);
                cvDone.wait(lock, [&] { return done.count(written) > 0; });
                auto node = done.extract(written);
                r = std::move(node.mapped());
                writeNext = written + 1;
                cvRoom.notify_all();
            }
            const SweepItem& it = todo[r.item];
            const std::string label = tracePaths[it.trace] + " " + clusterArgs[it.cluster] + " " +
                                      policyArgs[it.policy] + " seed=" + std::to_string(it.seed);
            if (!r.error.empty()) {
                ++failures;
                std::fprintf(stderr, "[%zu/%zu] %s: FAILED: %s\n", written + 1, todo.size(), label.c_str(),
                             r.error.c_str());
                continue;
            }
            if (runKey(r.out) != it.key)
                std::fprintf(stderr, "warning: %s: stored key differs from the planned one (resume may rerun it)\n",
                             label.c_str());
            const std::string config =
                "{\"source\":\"sweep\",\"trace_file\":" + jq(tracePaths[it.trace]) + ",\"cluster\":" +
                jq(clusterArgs[it.cluster]) + ",\"policy\":" + jq(policyArgs[it.policy]) + ",\"seed\":" +
                std::to_string(it.seed) + ",\"perf\":" + jq(perfStr) + ",\"shard\":" + jq(shard) + "}";
            try {
                const int64_t id = store.saveRun(experiment, r.out, config, true);
                if (!quiet)
                    std::fprintf(stderr, "[%zu/%zu] %s: mean JCT %.3f min, %.2f s -> run %lld\n", written + 1,
                                 todo.size(), label.c_str(), r.out.summary.meanJctMin, r.out.wallSeconds,
                                 (long long)id);
            } catch (...) {
                fatal = std::current_exception();
                break;
            }
        }
        if (fatal) {
            stop = true;
            cvRoom.notify_all();
        }
        for (std::thread& t : pool)
            t.join();
        if (fatal)
            std::rethrow_exception(fatal);
        std::fprintf(stderr, "sweep: done, %zu written, %d failed; %lld runs in %s\n", todo.size() - size_t(failures),
                     failures, (long long)store.runCount(), db.c_str());
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
                    "[--shard i/N] [--experiment NAME] [--perf SPEC] [--keep-log] [--quiet]  run the cross "
                    "product into a database (resumable)",
                    &cmdSweep);
CliCommand mergeCmd("merge", "--db OUT IN1 [IN2 ...]  copy runs of other databases (deduplicated by key)",
                    &cmdMerge);

} // namespace
} // namespace ss::cli
