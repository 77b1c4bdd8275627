// Gavel commands: `bench-gavel` (LP solve times at a given number of active jobs, and a whole trace with one
// Gavel policy) and `reproduce-gavel` (average JCT against the input job rate, ALGORITHMS.md §4.5).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "cli.h"
#include "io/traceio.h"
#include "model/clusterspec.h"
#include "model/gavelworkload.h"
#include "model/rng.h"
#include "policy/gavel/gavellp.h"
#include "policy/gavel/gavelsched.h"
#include "policy/registry.h"
#include "run/runner.h"
#include "sim/engine.h"

namespace ss::cli {
namespace {

const char* kDefaultTable = "../shared/traces/gavel/simulation_throughputs.json";

/// Gavel's own performance assumptions: the table's throughputs, no placement or co-location slowdown.
PerfConfig gavelPerf()
{
    PerfConfig p;
    p.crossMachine = p.crossSwitch = p.interference = 0;
    return p;
}

double seconds(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A random LP instance like a busy Gavel cluster: `n` jobs of Gavel's templates and scale mix on 36/36/36.
gavel::Problem randomProblem(const ThroughputTable& tab, int n, uint64_t seed, std::vector<std::string>& models)
{
    GavelWorkloadConfig g;
    g.jobs = n;
    g.seed = seed;
    g.multiGpu = true;
    g.jobsPerHour = 0;
    const Trace t = generateGavelWorkload(g);
    gavel::Problem p;
    p.workers = {36, 36, 36};
    p.price = {2.48, 1.46, 0.45}; // on-demand $/GPU-h (V100, P100, K80), for the cost policy's weights only
    Rng rng(seed + 17);
    models.clear();
    for (const Job& j : t.jobs) {
        const std::string& m = t.models[size_t(j.model)];
        const ThroughputRow row = throughputRow(tab, m, int(j.gpus), {"v100", "p100", "k80"});
        if (!row.error.empty())
            throw std::runtime_error(row.error);
        gavel::JobRow r;
        r.T = row.sps;
        r.scale = j.gpus;
        r.remaining = j.duration * row.sps[0] * rng.uniform(0.1, 1.0);
        r.done = j.duration * row.sps[0] - r.remaining;
        r.age = rng.uniform(0, 36000);
        r.arrival = double(j.id);
        r.entity = int(rng.below(8));
        if (rng.uniform() < 0.3)
            r.sloLeft = r.remaining / row.sps[0] * rng.uniform(1.2, 10.0);
        p.jobs.push_back(std::move(r));
        models.push_back(m);
    }
    return p;
}

int cmdBenchGavel(Args& a)
{
    const int n = int(a.getInt("jobs", 200));
    const int reps = int(std::max(1L, a.getInt("reps", 5)));
    const std::string tablePath = a.get("throughputs", kDefaultTable);
    const std::string tracePath = a.get("trace", "../shared/traces/gavel/seed0/6214e9.trace");
    const std::string clusterName = a.get("cluster", "gavel-108");
    const std::string simPolicy = a.get("policy", "gavel-las");
    const bool skipSim = a.flag("lp-only");
    a.finish();
    const ThroughputTable tab = readThroughputTable(tablePath);

    std::printf("LP solve time: %d active jobs x 3 types (36 V100 + 36 P100 + 36 K80, Gavel's templates and scale mix),\n"
                "median of %d instances (seeds 1..%d), CLP barrier unless noted\n",
                n, reps, reps);
    std::printf("%-28s %10s %10s %10s %8s\n", "policy", "median ms", "max ms", "LP solves", "pairs");
    struct Case {
        const char* name;
        gavel::Objective o;
        bool agnostic, pairs;
        gavel::LpMethod method;
    };
    using O = gavel::Objective;
    const Case cases[] = {
        {"gavel-las", O::MaxMinFairness, false, false, gavel::LpMethod::Barrier},
        {"gavel-las (simplex)", O::MaxMinFairness, false, false, gavel::LpMethod::Simplex},
        {"gavel-las-agnostic", O::MaxMinFairness, true, false, gavel::LpMethod::Barrier},
        {"gavel-fifo", O::Fifo, false, false, gavel::LpMethod::Barrier},
        {"gavel-sjf", O::Sjf, false, false, gavel::LpMethod::Barrier},
        {"gavel-ftf", O::FinishTimeFairness, false, false, gavel::LpMethod::Barrier},
        {"gavel-makespan", O::Makespan, false, false, gavel::LpMethod::Barrier},
        {"gavel-cost", O::CostThroughput, false, false, gavel::LpMethod::Barrier},
        {"gavel-hierarchical", O::Hierarchical, false, false, gavel::LpMethod::Barrier},
        {"gavel-las-ss", O::MaxMinFairness, false, true, gavel::LpMethod::Barrier},
        {"gavel-fifo-ss", O::Fifo, false, true, gavel::LpMethod::Barrier},
    };
    for (const Case& c : cases) {
        std::vector<double> ms;
        int solves = 0;
        size_t pairs = 0;
        for (int r = 1; r <= reps; ++r) {
            std::vector<std::string> models;
            gavel::Problem p = randomProblem(tab, n, uint64_t(r), models);
            const auto t0 = std::chrono::steady_clock::now();
            if (c.pairs)
                addGavelPairs(p, models, tab, {"v100", "p100", "k80"}, 4, c.o == O::Fifo ? 1.5 : 1.0);
            gavel::Options o;
            o.agnostic = c.agnostic;
            o.method = c.method;
            const gavel::Solution s = gavel::solve(p, c.o, o);
            ms.push_back(1000 * seconds(t0));
            solves = s.lpSolves;
            pairs = p.pairs.size();
            const std::string bad = gavel::checkConstraints(p, s, 1e-5);
            if (!bad.empty())
                throw std::runtime_error(std::string(c.name) + ": constraint violated: " + bad);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("%-28s %10.1f %10.1f %10d %8zu\n", c.name, ms[ms.size() / 2], ms.back(), solves, pairs);
        std::fflush(stdout);
    }
    if (skipSim)
        return 0;

    TraceReadOptions ro;
    ro.throughputs = tablePath;
    Trace trace = readTrace(tracePath, ro);
    ClusterSpec cluster = readCluster(clusterName);
    cluster.finalize();
    PolicyOptions opts;
    auto sched = makeScheduler(simPolicy, opts);
    auto* g = dynamic_cast<GavelScheduler*>(sched.get());
    RunConfig cfg;
    cfg.perf = gavelPerf();
    const auto t0 = std::chrono::steady_clock::now();
    Simulator sim(cluster, trace, *sched, cfg, &tab);
    sim.run();
    const double wall = seconds(t0);
    double jct = 0;
    int done = 0;
    for (int j = 0; j < int(trace.jobs.size()); ++j)
        if (sim.rt(j).status == JobStatus::Done) {
            jct += sim.rt(j).end - trace.jobs[size_t(j)].submit;
            ++done;
        }
    std::printf("\nsimulation: %s (%zu jobs) on %s with %s, Gavel's perf assumptions (table throughputs, no slowdowns)\n",
                tracePath.c_str(), trace.jobs.size(), cluster.name.c_str(), simPolicy.c_str());
    std::printf("  wall %.2f s; %llu decisions; %d jobs finished, mean JCT %.2f h\n", wall,
                static_cast<unsigned long long>(sim.decisions()), done, done ? jct / done / 3600 : 0.0);
    if (g)
        std::printf("  %d rounds, %d LP solves in %.2f s (%.2f ms per solve)\n", g->rounds(), g->lpSolves(), g->lpSeconds(),
                    g->lpSolves() ? 1000 * g->lpSeconds() / g->lpSolves() : 0.0);
    return 0;
}

CliCommand c1("bench-gavel",
              "[--jobs 200] [--reps 5] [--throughputs FILE] [--trace FILE] [--cluster gavel-108] [--policy gavel-las] [--lp-only] : "
              "Gavel LP solve times and one simulated trace",
              &cmdBenchGavel);

std::vector<double> parseDoubles(const std::string& s)
{
    std::vector<double> v;
    for (const std::string& x : splitList(s)) {
        char* end = nullptr;
        const double d = std::strtod(x.c_str(), &end);
        if (x.empty() || *end || !(d >= 0))
            throw UsageError("not a non-negative number: '" + x + "'");
        v.push_back(d);
    }
    return v;
}

/// The LP objective a Gavel policy name runs (for the ideal-mode rows).
bool gavelObjective(const std::string& policy, gavel::Objective& o, bool& agnostic)
{
    using O = gavel::Objective;
    static const std::map<std::string, std::pair<O, bool>> names = {
        {"gavel-las", {O::MaxMinFairness, false}}, {"gavel-las-agnostic", {O::MaxMinFairness, true}},
        {"gavel-fifo", {O::Fifo, false}},          {"gavel-sjf", {O::Sjf, false}},
        {"gavel-ftf", {O::FinishTimeFairness, false}}, {"gavel-makespan", {O::Makespan, false}},
        {"gavel-cost", {O::CostThroughput, false}}, {"gavel-hierarchical", {O::Hierarchical, false}}};
    const auto it = names.find(policy);
    if (it == names.end())
        return false;
    o = it->second.first;
    agnostic = it->second.second;
    return true;
}

int cmdReproduceGavel(Args& a)
{
    const std::vector<double> rates = parseDoubles(a.get("rates", "0.4,0.8,1.2,1.6,2.0"));
    const auto seeds = parseSeedList(a.get("seeds", "0,1,2"));
    const auto policies = splitList(a.get("policies", "gavel-las,gavel-las-agnostic,gavel-ftf,gavel-makespan"));
    const std::string window = a.get("window", "4000:5000");
    const std::string tablePath = a.get("throughputs", kDefaultTable);
    const std::string clusterName = a.get("cluster", "gavel-108");
    const bool multi = a.flag("multi-gpu");
    const std::string csvOut = a.get("csv", "");
    const std::string mdOut = a.get("out", "");
    const double extra = a.getDouble("tail", 0.25);
    const bool ideal = a.flag("ideal");
    a.finish();
    const size_t colon = window.find(':');
    if (colon == std::string::npos)
        throw UsageError("--window expects FIRST:END (job indices), e.g. 4000:5000");
    const int w0 = std::atoi(window.substr(0, colon).c_str()), w1 = std::atoi(window.substr(colon + 1).c_str());
    if (!(w0 >= 0 && w1 > w0))
        throw UsageError("--window: END must exceed FIRST");
    const int total = int(std::ceil(w1 * (1 + extra)));
    const ThroughputTable tab = readThroughputTable(tablePath);
    ClusterSpec cluster = readCluster(clusterName);
    cluster.finalize();
    for (const std::string& p : policies) {
        makeScheduler(p);
        gavel::Objective o;
        bool agn = false;
        if (ideal && !gavelObjective(p, o, agn))
            throw UsageError("--ideal: " + p + " has no ideal mode (Gavel LP policies without space sharing only)");
    }
    std::vector<std::string> rows = policies;
    if (ideal)
        for (const std::string& p : policies)
            rows.push_back(p + " (ideal)");

    std::ofstream csv;
    if (!csvOut.empty()) {
        csv.open(csvOut);
        if (!csv)
            throw std::runtime_error(csvOut + ": cannot write");
        csv << "policy,rate_jobs_per_hour,seed,avg_jct_hours,window_finished,window_jobs,makespan_hours,wall_seconds\n";
    }
    std::fprintf(stderr, "reproduce-gavel: %zu rates x %zu policies x %zu seeds, %d jobs each (window %d:%d), %s, %s\n",
                 rates.size(), policies.size(), seeds.size(), total, w0, w1, cluster.name.c_str(), multi ? "multi-GPU" : "single-GPU");
    // mean over seeds per (policy, rate)
    std::map<std::pair<std::string, double>, std::vector<double>> jct;
    std::map<std::pair<std::string, double>, int> unfinished;
    for (double rate : rates)
        for (uint64_t seed : seeds) {
            GavelWorkloadConfig g;
            g.jobs = total;
            g.seed = seed;
            g.jobsPerHour = rate;
            g.multiGpu = multi;
            const Trace t = generateGavelWorkload(g);
            for (const std::string& policy : policies) {
                RunSpec spec;
                spec.policy = policy;
                spec.config.seed = seed;
                spec.config.perf = gavelPerf();
                const RunOutput o = runSimulation(cluster, t, spec, {}, &tab);
                double sum = 0, makespan = 0;
                int n = 0;
                for (const JobRecord& r : o.jobs) {
                    makespan = std::max(makespan, r.end);
                    if (r.index >= w0 && r.index < w1 && r.end >= 0) {
                        sum += r.jct;
                        ++n;
                    }
                }
                const double avg = n ? sum / n / 3600 : 0;
                jct[{policy, rate}].push_back(avg);
                unfinished[{policy, rate}] += (w1 - w0) - n;
                std::fprintf(stderr, "  rate %.2f seed %llu %-20s avg JCT %8.2f h (%d/%d finished) %.1f s\n", rate,
                             static_cast<unsigned long long>(seed), policy.c_str(), avg, n, w1 - w0, o.wallSeconds);
                if (csv)
                    csv << policy << ',' << rate << ',' << seed << ',' << avg << ',' << n << ',' << (w1 - w0) << ','
                        << makespan / 3600 << ',' << o.wallSeconds << '\n';
                if (!ideal)
                    continue;
                gavel::Objective obj;
                bool agn = false;
                gavelObjective(policy, obj, agn);
                const auto t0 = std::chrono::steady_clock::now();
                const std::vector<double> end = simulateGavelIdeal(cluster, t, &tab, obj, agn, gavelPerf());
                sum = makespan = 0;
                n = 0;
                for (int j = 0; j < int(end.size()); ++j) {
                    makespan = std::max(makespan, end[size_t(j)]);
                    if (j >= w0 && j < w1 && end[size_t(j)] >= 0) {
                        sum += end[size_t(j)] - t.jobs[size_t(j)].submit;
                        ++n;
                    }
                }
                const std::string row = policy + " (ideal)";
                const double avgIdeal = n ? sum / n / 3600 : 0;
                jct[{row, rate}].push_back(avgIdeal);
                unfinished[{row, rate}] += (w1 - w0) - n;
                const double wall = seconds(t0);
                std::fprintf(stderr, "  rate %.2f seed %llu %-20s avg JCT %8.2f h (%d/%d finished) %.1f s\n", rate,
                             static_cast<unsigned long long>(seed), row.c_str(), avgIdeal, n, w1 - w0, wall);
                if (csv)
                    csv << row << ',' << rate << ',' << seed << ',' << avgIdeal << ',' << n << ',' << (w1 - w0) << ','
                        << makespan / 3600 << ',' << wall << '\n';
            }
        }
    std::ostringstream md;
    md << "| input rate (jobs/h) |";
    for (const std::string& p : rows)
        md << ' ' << p << " avg JCT (h) |";
    if (std::find(policies.begin(), policies.end(), "gavel-las") != policies.end()
        && std::find(policies.begin(), policies.end(), "gavel-las-agnostic") != policies.end())
        md << " agnostic / aware |";
    md << "\n|---|";
    for (size_t i = 0; i < rows.size(); ++i)
        md << "---|";
    if (md.str().find("agnostic / aware") != std::string::npos)
        md << "---|";
    md << '\n';
    for (double rate : rates) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "| %.2f |", rate);
        md << buf;
        std::map<std::string, double> mean;
        for (const std::string& p : rows) {
            const auto& v = jct[{p, rate}];
            double m = 0, sd = 0;
            for (double x : v)
                m += x;
            m /= double(std::max<size_t>(1, v.size()));
            for (double x : v)
                sd += (x - m) * (x - m);
            sd = v.size() > 1 ? std::sqrt(sd / double(v.size() - 1)) : 0;
            mean[p] = m;
            std::snprintf(buf, sizeof buf, " %.2f ± %.2f%s |", m, sd, unfinished[{p, rate}] ? "*" : "");
            md << buf;
        }
        if (md.str().find("agnostic / aware") != std::string::npos) {
            std::snprintf(buf, sizeof buf, " %.2fx |", mean["gavel-las"] > 0 ? mean["gavel-las-agnostic"] / mean["gavel-las"] : 0.0);
            md << buf;
        }
        md << '\n';
    }
    md << "\n(mean ± sd over seeds; * = some jobs of the window never finished: the mean is over those that did)\n";
    std::printf("%s", md.str().c_str());
    if (!mdOut.empty()) {
        std::ofstream f(mdOut);
        if (!f)
            throw std::runtime_error(mdOut + ": cannot write");
        f << md.str();
    }
    return 0;
}

CliCommand c2("reproduce-gavel",
              "[--rates 0.4,0.8,...] [--seeds 0,1,2] [--policies gavel-las,gavel-las-agnostic,...] [--window 4000:5000] "
              "[--multi-gpu] [--ideal] [--cluster gavel-108] [--throughputs FILE] [--csv OUT.csv] [--out TABLE.md] : Gavel's avg JCT vs input job rate "
              "(--ideal: also Gavel's ideal mode, jobs at exactly their effective throughput)",
              &cmdReproduceGavel);

int cmdGenerateGavel(Args& a)
{
    GavelWorkloadConfig g;
    g.jobs = int(a.getInt("jobs", 1000));
    g.seed = uint64_t(a.getInt("seed", 0));
    g.jobsPerHour = a.getDouble("rate", 3.0);
    g.multiGpu = a.flag("multi-gpu");
    g.priorities = a.flag("priorities");
    const double scale = a.getDouble("duration-scale", 1.0);
    const std::string out = a.require("out");
    a.finish();
    if (g.jobs <= 0 || !(scale > 0))
        throw UsageError("--jobs and --duration-scale must be > 0");
    Trace t = generateGavelWorkload(g);
    if (scale != 1) {
        for (Job& j : t.jobs)
            j.duration = std::max(1.0, std::round(j.duration * scale));
        t.notes.push_back("durations x " + std::to_string(scale));
    }
    std::ostringstream cmd;
    cmd << "generated by schedstudio-cli generate-gavel --jobs " << g.jobs << " --seed " << g.seed << " --rate " << g.jobsPerHour
        << (g.multiGpu ? " --multi-gpu" : "") << (g.priorities ? " --priorities" : "") << " --duration-scale " << scale;
    t.notes.insert(t.notes.begin(), cmd.str());
    writeNativeTrace(t, out);
    std::fprintf(stderr, "wrote %zu jobs over %.1f h to %s\n", t.jobs.size(), t.span() / 3600.0, out.c_str());
    return 0;
}

CliCommand c3("generate-gavel",
              "--jobs N --seed S --rate JOBS_PER_HOUR [--multi-gpu] [--priorities] [--duration-scale X] --out FILE : Gavel's "
              "workload generator (§4.5; --priorities: 20 % of jobs get priority weight 5, QoS class w5)",
              &cmdGenerateGavel);

} // namespace
} // namespace ss::cli
