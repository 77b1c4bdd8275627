// OASiS in the slotted model (ALGORITHMS.md §3): generate-oasis writes a scenario, simulate-oasis runs it under
// OASiS and the baselines, sweep-oasis compares them as the load grows (docs/REPRODUCTION-OASIS.md), bench-oasis
// times the subroutine and a 10,000-job run.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include "cli.h"
#include "io/json.h"
#include "io/oasisio.h"
#include "model/oasisgen.h"
#include "policy/oasis/oasissim.h"

namespace ss::cli {
namespace {

using namespace ss::oasis;

GenParams genParams(Args& a)
{
    GenParams p;
    p.jobs = int(a.getInt("jobs", p.jobs));
    p.seed = uint64_t(a.getInt("seed", long(p.seed)));
    p.workerServers = int(a.getInt("workers", p.workerServers));
    p.psServers = int(a.getInt("ps", p.psServers));
    p.slotSeconds = a.getDouble("slot", p.slotSeconds);
    p.horizon = int(a.getInt("horizon", p.horizon));
    p.load = a.getDouble("load", p.load);
    p.arrivalsPerSlot = a.getDouble("rate", 0);
    p.sigmoidShare = a.getDouble("sigmoid", p.sigmoidShare);
    p.linearShare = a.getDouble("linear", p.linearShare);
    if (p.jobs < 1 || p.workerServers < 1 || p.psServers < 1 || p.horizon < 1 || !(p.slotSeconds > 0) ||
        !(p.load > 0) || p.sigmoidShare < 0 || p.linearShare < 0 || p.sigmoidShare + p.linearShare > 1)
        throw UsageError("generate-oasis: --jobs, --workers, --ps, --horizon >= 1, --slot, --load > 0, "
                         "--sigmoid + --linear <= 1");
    return p;
}

RunOptions runOptions(Args& a)
{
    RunOptions o;
    o.fixedWorkers = int(a.getInt("fixed-workers", o.fixedWorkers));
    o.oasis.uScale = a.getDouble("u-scale", 1);
    o.oasis.lScale = a.getDouble("l-scale", 1);
    try {
        o.oasis.bounds = boundsFrom(a.get("bounds", "unit"));
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--bounds: ") + e.what());
    }
    if (o.fixedWorkers < 1 || !(o.oasis.uScale > 0) || !(o.oasis.lScale > 0))
        throw UsageError("--fixed-workers >= 1, --u-scale and --l-scale > 0");
    return o;
}

std::vector<std::string> policiesFrom(const std::string& s)
{
    if (s == "all")
        return oasisPolicyNames();
    std::vector<std::string> out = splitList(s);
    for (const auto& p : out)
        if (std::find(oasisPolicyNames().begin(), oasisPolicyNames().end(), p) == oasisPolicyNames().end())
            throw UsageError("unknown policy '" + p + "' (oasis, fifo, drf, dorm, greedy, riskreward, all)");
    return out;
}

int cmdGenerate(Args& a)
{
    const std::string out = a.require("out");
    const GenParams p = genParams(a);
    a.finish();
    OasisScenario sc = generateScenario(p);
    validateScenario(sc);
    writeScenario(sc, out);
    std::printf("wrote %zu jobs, %zu worker servers, %zu PS servers, %d slots of %g s to %s\n", sc.jobs.size(),
                sc.workers.size(), sc.psServers.size(), sc.horizon, sc.slotSeconds, out.c_str());
    return 0;
}

int cmdSimulate(Args& a)
{
    const std::string path = a.require("scenario");
    const std::vector<std::string> pols = policiesFrom(a.get("policy", "all"));
    const RunOptions o = runOptions(a);
    const bool json = a.flag("json");
    const bool decisions = a.flag("decisions");
    a.finish();
    const OasisScenario sc = readScenario(path);
    JsonValue arr = JsonValue::makeArray();
    if (!json)
        std::printf("%s: %zu jobs, H %zu worker servers, K %zu PS servers, T %d slots of %g s\n", path.c_str(),
                    sc.jobs.size(), sc.workers.size(), sc.psServers.size(), sc.horizon, sc.slotSeconds);
    if (!json)
        std::printf("%-10s %14s %9s %10s %16s\n", "policy", "total utility", "admitted", "completed",
                    "mean JCT (slots)");
    for (const std::string& name : pols) {
        const OasisRun run = runOasisPolicy(sc, name, o);
        if (json) {
            arr.push(runToJson(sc, run, decisions));
            continue;
        }
        std::printf("%-10s %14.2f %9d %10d %16.2f\n", name.c_str(), run.totalUtility, run.admitted, run.completed,
                    run.meanJctSlots);
        if (name == "oasis")
            std::printf("           alpha %.3f (competitive-ratio bound; timings: bench-oasis or --json)\n", run.alpha);
        if (decisions)
            for (const AdmissionDecision& d : run.decisions)
                std::printf("  job %lld (slot %d): %s\n", (long long)sc.jobs[size_t(d.job)].id,
                            sc.jobs[size_t(d.job)].arrival, d.reason().c_str());
    }
    if (json)
        std::cout << writeJson(arr);
    return 0;
}

// Total utility of every policy at each load, mean over seeds: a markdown table (and CSV rows with --csv).
int cmdSweep(Args& a)
{
    std::vector<double> loads;
    for (const std::string& s : splitList(a.get("loads", "0.5,1,2,4")))
        loads.push_back(std::stod(s));
    const std::vector<uint64_t> seeds = parseSeedList(a.get("seeds", "1-3"));
    const std::vector<std::string> pols = policiesFrom(a.get("policy", "all"));
    const std::string csv = a.get("csv", "");
    GenParams base = genParams(a);
    const RunOptions o = runOptions(a);
    a.finish();
    std::FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
    if (!csv.empty() && !out)
        throw UsageError("cannot write " + csv);
    if (out)
        std::fprintf(out, "load,seed,jobs,policy,total_utility,admitted,completed,mean_jct_slots\n");
    std::printf("| load | jobs |");
    for (const auto& p : pols)
        std::printf(" %s utility |", p.c_str());
    std::printf(" OASiS admitted | OASiS / best other |\n|---|---|");
    for (size_t i = 0; i < pols.size() + 2; ++i)
        std::printf("---|");
    std::printf("\n");
    for (double load : loads) {
        std::map<std::string, double> util;
        double jobs = 0, admitted = 0;
        for (uint64_t seed : seeds) {
            GenParams p = base;
            p.load = load;
            p.seed = seed;
            OasisScenario sc = generateScenario(p);
            validateScenario(sc);
            jobs += double(sc.jobs.size()) / double(seeds.size());
            for (const auto& name : pols) {
                const OasisRun r = runOasisPolicy(sc, name, o);
                util[name] += r.totalUtility / double(seeds.size());
                if (name == "oasis")
                    admitted += double(r.admitted) / double(seeds.size());
                if (out)
                    std::fprintf(out, "%g,%llu,%zu,%s,%.6f,%d,%d,%.4f\n", load, (unsigned long long)seed, sc.jobs.size(),
                                 name.c_str(), r.totalUtility, r.admitted, r.completed, r.meanJctSlots);
            }
        }
        std::printf("| %g | %.0f |", load, jobs);
        double bestOther = 0;
        for (const auto& p : pols) {
            std::printf(" %.1f |", util[p]);
            if (p != "oasis")
                bestOther = std::max(bestOther, util[p]);
        }
        if (util.count("oasis"))
            std::printf(" %.1f | %.3f |\n", admitted, bestOther > 0 ? util["oasis"] / bestOther : 0.0);
        else
            std::printf(" - | - |\n");
    }
    if (out)
        std::fclose(out);
    return 0;
}

int cmdBench(Args& a)
{
    GenParams p;
    p.jobs = int(a.getInt("jobs", 10000));
    p.workerServers = int(a.getInt("servers", 100));
    p.psServers = int(a.getInt("ps", 50));
    p.horizon = int(a.getInt("slots", 500));
    p.seed = uint64_t(a.getInt("seed", 1));
    p.load = a.getDouble("load", 0);
    a.finish();
    // jobs arrive in the first 60 % of the horizon: the rate that brings all of them
    if (p.load <= 0)
        p.arrivalsPerSlot = double(p.jobs) / (0.6 * p.horizon) * 1.05;
    auto t0 = std::chrono::steady_clock::now();
    OasisScenario sc = generateScenario(p);
    validateScenario(sc);
    const double gen = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("bench-oasis: %zu jobs, %zu worker servers, %zu PS servers, T = %d slots (generated in %.2f s)\n",
                sc.jobs.size(), sc.workers.size(), sc.psServers.size(), sc.horizon, gen);
    const OasisRun run = runOasisPolicy(sc, "oasis");
    std::vector<double> ms;
    for (const AdmissionDecision& d : run.decisions)
        ms.push_back(d.micros / 1000);
    std::sort(ms.begin(), ms.end());
    auto pct = [&](double q) { return ms.empty() ? 0.0 : ms[std::min(ms.size() - 1, size_t(q * double(ms.size())))]; };
    std::printf("subroutine per arrival: mean %.3f ms, p50 %.3f, p99 %.3f, max %.3f ms (target < 10 ms)\n",
                run.subroutineMeanMs, pct(0.5), pct(0.99), ms.empty() ? 0.0 : ms.back());
    std::printf("OASiS run: %zu jobs simulated in %.2f s (target < 60 s); admitted %d, total utility %.1f, alpha %.2f\n",
                sc.jobs.size(), run.wallSeconds, run.admitted, run.totalUtility, run.alpha);
    for (const char* name : {"greedy", "dorm", "riskreward"}) {
        const OasisRun b = runOasisPolicy(sc, name);
        std::printf("%s run: %.2f s; total utility %.1f\n", name, b.wallSeconds, b.totalUtility);
    }
    return 0;
}

CliCommand generateOasis("generate-oasis",
                         "--out FILE [--jobs 200] [--seed 1] [--workers 20] [--ps 10] [--slot 600] [--horizon 500] "
                         "[--load 1 | --rate JOBS/SLOT] [--sigmoid 0.5] [--linear 0.3] : an OASiS scenario (EC2-like "
                         "servers, Dorm-like demands, Google-trace-shaped arrivals)",
                         &cmdGenerate);
CliCommand simulateOasis("simulate-oasis",
                         "--scenario FILE [--policy all|oasis,fifo,drf,dorm,greedy,riskreward] [--fixed-workers 4] [--u-scale 1] "
                         "[--l-scale 1] [--bounds unit|unit-slot|density] [--json] [--decisions] : slotted OASiS run vs the baselines",
                         &cmdSimulate);
CliCommand sweepOasis("sweep-oasis",
                      "[--loads 0.5,1,2,4] [--seeds 1-3] [--policy all] [--csv F] [--bounds unit] + generate-oasis options : total "
                      "utility of OASiS and the baselines as the load grows",
                      &cmdSweep);
CliCommand benchOasis("bench-oasis", "[--jobs 10000] [--servers 100] [--ps 50] [--slots 500] [--seed 1] : subroutine ms "
                                     "per arrival and a whole run",
                      &cmdBench);

} // namespace
} // namespace ss::cli
