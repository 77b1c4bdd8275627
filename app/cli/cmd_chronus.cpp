// bench-chronus: the speed targets of Chronus (ALGORITHMS.md §5.5): the lease MILP on CBC with 100 SLO jobs
// (< 200 ms per lease boundary, with the time limit as the bound and how often it is hit) and a whole trace
// simulated (MIX2, 30,940 jobs: < 60 s). Prints its figures; never part of ctest.
#include <algorithm>
#include <numeric>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>

#include "cli.h"
#include "io/traceio.h"
#include "loaders.h"
#include "metrics/metrics.h"
#include "model/rng.h"
#include "policy/chronus/chronus.h"

namespace ss::cli {
namespace {

double pct(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const double idx = p / 100.0 * double(v.size() - 1);
    const size_t lo = size_t(std::floor(idx)), hi = std::min(v.size() - 1, lo + 1);
    return v[lo] + (v[hi] - v[lo]) * (idx - double(lo));
}

// One synthetic lease boundary: `n` accepted SLO jobs on `gpus` GPUs, Philly-like demands (1, 2, 4, 8, 16),
// 1-6 leases of work, strict (one level, value 10) or soft (four levels 10-8-5-2) deadlines a few leases
// past the work, and free GPUs per lease around the jobs' demand (contended: not every job gets its first level).
void syntheticBoundary(Rng& rng, int n, int gpus, std::vector<chronus::PlanJob>& jobs, std::vector<int>& cap)
{
    jobs.clear();
    int horizon = 0;
    for (int i = 0; i < n; ++i) {
        chronus::PlanJob j;
        j.job = i;
        const double u = rng.uniform();
        j.gpus = u < 0.55 ? 1 : u < 0.75 ? 2 : u < 0.88 ? 4 : u < 0.97 ? 8 : 16;
        j.need = 1 + int(rng.uniform() * 6);
        const int first = j.need + int(rng.uniform() * 6);
        if (rng.uniform() < 0.35) {
            j.levels.push_back({0, first, 10});
        } else {
            const double vals[4] = {10, 8, 5, 2};
            int ml = first;
            for (int v = 0; v < 4; ++v) {
                j.levels.push_back({v, ml, vals[v]});
                ml += 1 + int(rng.uniform() * 3);
            }
        }
        horizon = std::max(horizon, j.levels.back().maxLease);
        jobs.push_back(std::move(j));
    }
    // contended: each lease's free GPUs around the jobs' mean demand per lease of their tightest window
    double demand = 0;
    for (const chronus::PlanJob& j : jobs)
        demand += double(j.gpus) * double(j.need) / double(j.levels.front().maxLease);
    cap.assign(size_t(horizon), gpus);
    for (int l = 0; l < horizon; ++l)
        cap[size_t(l)] = std::min(gpus, int(demand * (0.8 + 0.4 * rng.uniform())));
}

int cmdBenchChronus(Args& a)
{
    const int rounds = int(a.getInt("rounds", 30));
    const int nJobs = int(a.getInt("slo-jobs", 100));
    const int gpus = int(a.getInt("gpus", 960));
    const double limit = a.getDouble("time-limit", 0.2);
    const bool haveTrace = a.has("trace");
    std::string clusterArg = a.get("cluster", "chronus-120x8");
    const double lease = a.getDouble("lease", 20);
    const std::string perfSpec = a.get("perf", "ideal");
    const std::string csv = a.get("solves-out", "");
    const int maxNodes = int(a.getInt("max-nodes", 10)); // read before finish(), which rejects unread options
    Trace trace;
    if (haveTrace)
        trace = loadTraceFromArgs(a, true);
    a.finish();

    // --- 1. the MILP alone
    std::printf("MILP per lease boundary: %d accepted SLO jobs, %d GPUs, %d boundaries, time limit %.3f s (CBC)\n",
                nJobs, gpus, rounds, limit);
    Rng rng(20211101);
    std::vector<double> ms, bins;
    int hits = 0, nodeHits = 0, optimal = 0, agree = 0;
    for (int r = 0; r < rounds; ++r) {
        std::vector<chronus::PlanJob> jobs;
        std::vector<int> cap;
        syntheticBoundary(rng, nJobs, gpus, jobs, cap);
        chronus::MilpOptions mo;
        mo.timeLimit = limit;
        mo.minusCurrent = (r % 2) == 0;
        mo.gMax = 16;
        mo.maxNodes = maxNodes;
        const chronus::MilpResult res = chronus::solveLeaseMilp(jobs, cap, mo, true);
        ms.push_back(1000.0 * res.seconds);
        bins.push_back(res.binaries);
        hits += res.hitTimeLimit ? 1 : 0;
        nodeHits += res.hitNodeLimit ? 1 : 0;
        optimal += res.optimal ? 1 : 0;
        const chronus::LeasePlan g = chronus::greedyPlan(jobs, cap, !mo.minusCurrent);
        if (res.solved && std::fabs(chronus::planObjective(jobs, g, mo) - res.plan.objective) < 1e-6)
            ++agree;
    }
    std::printf("  binaries mean %.0f max %.0f\n", bins.empty() ? 0.0 : std::accumulate(bins.begin(), bins.end(), 0.0) / double(bins.size()),
                pct(bins, 100));
    std::printf("  solve ms: mean %.1f  p50 %.1f  p95 %.1f  max %.1f\n",
                ms.empty() ? 0.0 : std::accumulate(ms.begin(), ms.end(), 0.0) / double(ms.size()), pct(ms, 50), pct(ms, 95),
                pct(ms, 100));
    std::printf("  proven optimal %d/%d, time limit hit %d/%d, node limit (%d) hit %d/%d, greedy selector as good in %d/%d\n",
                optimal, rounds, hits, rounds, maxNodes, nodeHits, rounds, agree, rounds);

    if (!haveTrace)
        return 0;
    // --- 2. a whole trace
    const ClusterSpec cluster = readCluster(clusterArg);
    RunConfig cfg;
    cfg.perf = PerfConfig::parse(perfSpec);
    chronus::ChronusParams p;
    p.leaseMinutes = lease;
    p.maxNodes = maxNodes;
    chronus::ChronusScheduler pol(p);
    Simulator sim(cluster, trace, pol, cfg);
    MetricsCollector metrics;
    sim.addObserver(&metrics);
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    sim.run();
    const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC; // one thread: wall on an idle machine
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const Summary s = metrics.summary();
    std::vector<double> sm, sb;
    int thits = 0, nhits = 0, fallbacks = 0, byCbc = 0;
    std::ofstream out;
    if (!csv.empty()) {
        out.open(csv);
        out << "time_min,lease,jobs,binaries,ms,status,guaranteed\n";
    }
    for (const chronus::LeaseSolve& ls : pol.solves()) {
        if (out)
            out << ls.time / 60 << ',' << ls.lease << ',' << ls.jobs << ',' << ls.binaries << ',' << 1000 * ls.seconds << ','
                << '"' << ls.status << '"' << ',' << ls.guaranteed << '\n'; // statuses hold commas, never quotes
        if (ls.jobs == 0)
            continue;
        sm.push_back(1000.0 * ls.seconds);
        if (ls.binaries > 0) {
            ++byCbc;
            sb.push_back(ls.binaries);
        }
        thits += ls.hitTimeLimit ? 1 : 0;
        nhits += ls.hitNodeLimit ? 1 : 0;
        fallbacks += ls.fallback ? 1 : 0;
    }
    std::printf("\nwhole trace: %s, %zu jobs on %s (%d GPUs), lease %.0f min, perf %s\n", trace.name.c_str(),
                trace.jobs.size(), cluster.name.c_str(), cluster.totalGpus(), lease, cfg.perf.toString().c_str());
    std::printf("  simulated in %.2f s wall, %.2f s CPU (%llu decisions, %zu lease boundaries)\n", wall, cpu,
                static_cast<unsigned long long>(sim.decisions()), pol.solves().size());
    std::printf("  lease plans: %zu with jobs, %d needed CBC (binaries mean %.0f, max %.0f), %zu certified by the bound\n",
                sm.size(), byCbc, sb.empty() ? 0.0 : std::accumulate(sb.begin(), sb.end(), 0.0) / double(sb.size()),
                pct(sb, 100), sm.size() - size_t(byCbc));
    std::printf("  plan ms: mean %.2f  p95 %.2f  max %.1f; time limit hit %d, node limit hit %d, greedy fallback %d\n",
                sm.empty() ? 0.0 : std::accumulate(sm.begin(), sm.end(), 0.0) / double(sm.size()), pct(sm, 95), pct(sm, 100),
                thits, nhits, fallbacks);
    std::printf("  deadline miss rate %.4f (weighted %.4f) over %d SLO jobs; accepted %d (%d with a later deadline), "
                "unaccepted %d; best-effort mean JCT %.2f min over %d jobs\n",
                s.deadlineMissRate, s.weightedMissRate, s.deadlineJobs, pol.sloAccepted(), pol.sloAcceptedLater(),
                pol.sloUnaccepted(), s.bestEffortMeanJctMin, s.bestEffortJobs);
    return 0;
}

CliCommand benchChronus("bench-chronus",
                        "[--slo-jobs 100] [--rounds 30] [--time-limit 0.2] [--max-nodes 10] [--trace FILE [--cluster chronus-120x8] "
                        "[--lease 20] [--perf ideal] [--solves-out F.csv]] : Chronus MILP and whole-trace timings",
                        &cmdBenchChronus);

} // namespace
} // namespace ss::cli
