// bench-fork: what a what-if fork costs next to simulating the rest of the run alone, made both ways (run/fork.h):
// replaying its parent deterministically up to decision K, and restoring the nearest checkpoint of the parent
// (run/checkpoint.h: engine snapshots kept while the parent ran) and stepping on to K.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cli.h"
#include "io/traceio.h"
#include "loaders.h"
#include "metrics/metrics.h"
#include "model/tracegen.h"
#include "policy/registry.h"
#include "run/checkpoint.h"
#include "run/fork.h"

namespace ss::cli {
namespace {

double since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int cmdBenchFork(Args& a)
{
    TraceGenConfig g;
    g.jobs = int(a.getInt("jobs", 100000));
    g.seed = uint64_t(a.getInt("trace-seed", 1));
    g.load = a.getDouble("load", 0.8);
    const std::string clusterArg = a.get("cluster", "alibaba-scale");
    const long k = a.getInt("at", 50000);
    RunSpec spec;
    spec.policy = a.get("policy", "fifo+firstfit");
    spec.config.seed = uint64_t(a.getInt("seed", 1));
    spec.config.perf = PerfConfig::parse(a.get("perf", "default"));
    const std::string change = a.get("change", "none");
    const long every = a.getInt("every", 0);
    a.finish();
    if (g.jobs <= 0 || k < 1)
        throw UsageError("--jobs and --at must be positive");
    ClusterSpec cluster = readCluster(clusterArg);
    cluster.finalize();
    g.clusterGpus = cluster.totalGpus();
    g.maxGpus = std::min(8, cluster.maxGpusPerMachine());
    const Trace trace = generateTrace(g);
    std::printf("bench-fork: %d jobs on %s (%d machines, %d GPUs), load %.2f, policy %s, perf %s, fork at decision %ld\n",
                g.jobs, cluster.name.c_str(), cluster.machineCount(), cluster.totalGpus(), g.load, spec.policy.c_str(),
                spec.config.perf.toString().c_str(), k);

    // the parent alone, timed to decision K and to the end (metrics collected, as a fork does)
    auto policy = makeScheduler(spec.policy, spec.options);
    Simulator sim(cluster, trace, *policy, spec.config);
    MetricsCollector metrics;
    sim.addObserver(&metrics);
    const auto t0 = std::chrono::steady_clock::now();
    double toK = -1;
    while (sim.step())
        if (toK < 0 && sim.decisions() == uint64_t(k))
            toK = since(t0);
    const double whole = since(t0);
    if (toK < 0)
        throw UsageError("the run has only " + std::to_string(sim.decisions()) + " decisions; lower --at");
    const double rest = whole - toK;

    ForkRequest req;
    req.atDecision = uint64_t(k);
    if (change == "policy")
        req.change.policy = "sjf+bestfit";
    else if (change == "fail")
        req.change.failMachines = {0};
    else if (change != "none")
        throw UsageError("--change: none, policy or fail");
    const auto t1 = std::chrono::steady_clock::now();
    ForkHow replayHow;
    const RunOutput fork = runFork(cluster, trace, spec, req, nullptr, false, {}, nullptr, &replayHow);
    const double forkTime = since(t1);
    const double overhead = forkTime - rest;
    std::printf("  parent: %llu decisions, %.3f s in all, %.3f s to decision %ld, %.3f s for the rest\n",
                (unsigned long long)sim.decisions(), whole, toK, k, rest);
    std::printf("  fork by replay (%s): %.3f s from request to finished rerun, mean JCT %.2f min (parent %.2f min)\n",
                fork.forkChange.c_str(), forkTime, fork.summary.meanJctMin, metrics.summary().meanJctMin);
    std::printf("    overhead over simulating the rest alone: %.3f s (target < 1 s): %s\n", overhead,
                overhead < 1.0 ? "met" : "NOT met");

    // the parent again, keeping checkpoints as the studio does for the run it shows
    CheckpointSet set("", std::make_shared<const ClusterSpec>(cluster), std::make_shared<const Trace>(engineTrace(trace)));
    if (every > 0)
        set.setInterval(uint64_t(every));
    const auto t2 = std::chrono::steady_clock::now();
    const RunOutput parent = runWithCheckpoints(spec, set);
    const double withCp = since(t2);
    std::printf("  parent with checkpoints: %.3f s (%+.3f s over the plain run), %zu checkpoint(s) every %llu decisions, "
                "~%.0f MB held\n", withCp, withCp - whole, set.size(), (unsigned long long)set.interval(),
                double(set.approxBytes()) / 1e6);
    auto restoreOnce = [&](const char* label) {
        ForkHow how;
        const auto t3 = std::chrono::steady_clock::now();
        const RunOutput f = runFork(cluster, trace, spec, req, nullptr, false, {}, &set, &how);
        const double t = since(t3);
        const bool same = f.jobs.size() == fork.jobs.size()
            && std::equal(f.jobs.begin(), f.jobs.end(), fork.jobs.begin(), [](const JobRecord& x, const JobRecord& y) {
                   return x.id == y.id && x.start == y.start && x.end == y.end && x.fee == y.fee;
               });
        if (how.restored)
            std::printf("  fork by restore, %s: from the checkpoint after decision %llu, %.3f s, overhead %.3f s "
                        "(target < 1 s): %s; job for job %s the replayed fork\n", label,
                        (unsigned long long)how.fromDecision, t, t - rest, t - rest < 1.0 ? "met" : "NOT met",
                        same ? "equal to" : "DIFFERENT from");
        else
            std::printf("  fork by restore, %s: replayed instead (%s), %.3f s\n", label, how.why.c_str(), t);
    };
    restoreOnce("nearest periodic checkpoint");
    restoreOnce("again at the same decision (the first fork left a checkpoint at K-1)");
    (void)parent;
    return 0;
}

CliCommand benchForkCmd("bench-fork",
                        "[--jobs 100000] [--at 50000] [--policy P] [--cluster C] [--load X] [--change none|policy|fail] [--every N] : "
                        "fork cost (replay and checkpoint restore) vs simulating the rest alone",
                        &cmdBenchFork);

} // namespace
} // namespace ss::cli
