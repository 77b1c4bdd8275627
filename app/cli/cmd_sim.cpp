// Simulation commands: generate, run, compare, bench.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli.h"
#include "io/traceio.h"
#include "loaders.h"
#include "model/tracegen.h"
#include "sim/runner.h"
#if __has_include("storehook.h")
#include "storehook.h"
#define SS_HAVE_STOREHOOK 1
#endif

namespace ss::cli {
namespace {

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
    for (const std::string& kv : a.getAll("param")) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("--param expects KEY=VALUE, got '" + kv + "'");
        s.options.params[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    s.options.checkpoint = a.get("checkpoint", "");
    s.config.maxTime = a.getDouble("max-time", kInf);
    s.config.checkInvariants = a.flag("check-invariants");
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
    g.jobs = int(a.getInt("jobs", 1000));
    g.seed = uint64_t(a.getInt("seed", 1));
    g.load = a.getDouble("load", 0.9);
    g.clusterGpus = int(a.getInt("cluster-gpus", 0));
    if (a.has("cluster")) {
        const ClusterSpec c = loadClusterFromArgs(a);
        g.clusterGpus = c.totalGpus();
        g.maxGpus = std::min(8, c.maxGpusPerMachine() * 2);
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
        std::printf("deadlines     %d jobs, miss rate %s\n", s.deadlineJobs, fmt(s.deadlineMissRate, 4).c_str());
    std::printf("fairness      Jain %s\npreemptions   %d\n", fmt(s.jainFairness, 4).c_str(), s.preemptions);
    std::printf("engine        %llu events, %llu decisions, %.3f s\n", static_cast<unsigned long long>(s.events),
                static_cast<unsigned long long>(s.decisions), o.wallSeconds);
}

int cmdRun(Args& a)
{
    const ClusterSpec cluster = loadClusterFromArgs(a);
    RunSpec spec = runSpecFromArgs(a);
    spec.policy = a.require("policy");
    spec.decisionLogPath = a.get("log-out", "");
    const bool json = a.flag("json");
    const ThroughputTable table = loadThroughputsFromArgs(a);
    const bool progress = printProgressEnabled(a);
    const Trace trace = loadTraceFromArgs(a, !json);
#ifdef SS_HAVE_STOREHOOK
    // runs saved to a database keep their decision log (for the studio to replay) unless they are huge
    spec.keepDecisionLog = spec.keepDecisionLog || wantsDecisionLog(a) || (a.has("db") && trace.jobs.size() <= 100000);
#endif
    const RunOutput out =
        runSimulation(cluster, trace, spec, stderrProgress(progress, "simulating"), table.empty() ? nullptr : &table);
#ifdef SS_HAVE_STOREHOOK
    saveRunIfAsked(a, out, a.get("experiment", "default"));
    exportIfAsked(a, out, &cluster);
#else
    const std::string jobsOut = a.get("jobs-out", "");
    if (!jobsOut.empty()) {
        std::ofstream f(jobsOut);
        if (!f)
            throw std::runtime_error(jobsOut + ": cannot open for writing");
        f << "# policy=" << out.policy << " seed=" << out.seed << "\n";
        f << "id,submit,start,end,jct,queueing,gpus,machines,fee,preemptions,deadline_met,status\n";
        for (const JobRecord& r : out.jobs)
            f << r.id << ',' << r.submit << ',' << r.start << ',' << r.end << ',' << r.jct << ',' << r.queueing << ','
              << r.gpus << ',' << r.machines << ',' << r.fee << ',' << r.preemptions << ',' << r.deadlineMet << ','
              << toString(r.status) << '\n';
    }
#endif
    a.finish();
    if (json)
        std::printf("%s\n", summaryJson(out, 2).c_str());
    else
        printSummary(out);
    return 0;
}
CliCommand c3("run", "--trace FILE --cluster PRESET|FILE --policy NAME --seed S [--json] [--perf SPEC] ...", &cmdRun);

// ------------------------------------------------------------------------------------------------ compare
struct Agg {
    std::vector<double> jct, p95, fee, makespan, util, miss;
};
double mean(const std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
        s += x;
    return v.empty() ? 0 : s / double(v.size());
}
double sd(const std::vector<double>& v)
{
    if (v.size() < 2)
        return 0;
    const double m = mean(v);
    double s = 0;
    for (double x : v)
        s += (x - m) * (x - m);
    return std::sqrt(s / double(v.size() - 1));
}

int cmdCompare(Args& a)
{
    const ClusterSpec cluster = loadClusterFromArgs(a);
    RunSpec base = runSpecFromArgs(a);
    const auto policies = splitList(a.require("policies"));
    std::vector<uint64_t> seeds;
    for (const std::string& s : splitList(a.get("seeds", std::to_string(base.config.seed)))) {
        char* end = nullptr;
        const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
        if (*end)
            throw UsageError("--seeds: '" + s + "' is not an integer");
        seeds.push_back(v);
    }
    const bool json = a.flag("json");
    const ThroughputTable table = loadThroughputsFromArgs(a);
    const Trace trace = loadTraceFromArgs(a, !json);
    if (policies.empty())
        throw UsageError("--policies is empty");
    for (const std::string& p : policies)
        makeScheduler(p, base.options); // fail fast on a typo, before any run
    std::vector<Agg> aggs(policies.size());
    std::vector<std::string> runJson;
    for (size_t i = 0; i < policies.size(); ++i) {
        for (uint64_t seed : seeds) {
            RunSpec spec = base;
            spec.policy = policies[i];
            spec.config.seed = seed;
            RunOutput out = runSimulation(cluster, trace, spec, {}, table.empty() ? nullptr : &table);
#ifdef SS_HAVE_STOREHOOK
            saveRunIfAsked(a, out, a.get("experiment", "compare"));
#endif
            const Summary& s = out.summary;
            aggs[i].jct.push_back(s.meanJctMin);
            aggs[i].p95.push_back(s.p95JctMin);
            aggs[i].fee.push_back(s.meanFeeUsd);
            aggs[i].makespan.push_back(s.makespanH);
            aggs[i].util.push_back(s.utilization);
            aggs[i].miss.push_back(s.deadlineMissRate);
            runJson.push_back(summaryJson(out));
        }
    }
    a.finish();
    if (json) {
        std::printf("{\"cluster\":\"%s\",\"trace\":\"%s\",\"seeds\":[", cluster.name.c_str(), trace.name.c_str());
        for (size_t i = 0; i < seeds.size(); ++i)
            std::printf("%s%llu", i ? "," : "", static_cast<unsigned long long>(seeds[i]));
        std::printf("],\"policies\":[");
        for (size_t i = 0; i < policies.size(); ++i) {
            const Agg& g = aggs[i];
            std::printf("%s{\"policy\":\"%s\",\"mean_jct_min\":%.10g,\"mean_jct_min_sd\":%.10g,\"p95_jct_min\":%.10g,"
                        "\"mean_fee_usd\":%.10g,\"mean_fee_usd_sd\":%.10g,\"makespan_h\":%.10g,\"utilization\":%.10g,"
                        "\"deadline_miss_rate\":%.10g}",
                        i ? "," : "", policies[i].c_str(), mean(g.jct), sd(g.jct), mean(g.p95), mean(g.fee), sd(g.fee),
                        mean(g.makespan), mean(g.util), mean(g.miss));
        }
        std::printf("],\"runs\":[");
        for (size_t i = 0; i < runJson.size(); ++i)
            std::printf("%s%s", i ? "," : "", runJson[i].c_str());
        std::printf("]}\n");
        return 0;
    }
    std::printf("cluster %s, trace %s (%zu jobs), %zu seed(s)\n", cluster.name.c_str(), trace.name.c_str(),
                trace.jobs.size(), seeds.size());
    std::printf("%-22s %18s %12s %16s %12s %8s %8s\n", "policy", "mean JCT (min)", "p95 (min)", "mean fee ($)",
                "makespan h", "util", "DL miss");
    for (size_t i = 0; i < policies.size(); ++i) {
        const Agg& g = aggs[i];
        std::string jct = fmt(mean(g.jct)), fee = fmt(mean(g.fee), 3);
        if (seeds.size() > 1) {
            jct += " ±" + fmt(sd(g.jct), 1);
            fee += " ±" + fmt(sd(g.fee), 2);
        }
        std::printf("%-22s %18s %12s %16s %12s %8s %8s\n", policies[i].c_str(), jct.c_str(), fmt(mean(g.p95)).c_str(),
                    fee.c_str(), fmt(mean(g.makespan), 2).c_str(), fmt(mean(g.util), 3).c_str(),
                    fmt(mean(g.miss), 3).c_str());
    }
    return 0;
}
CliCommand c4("compare", "--trace FILE --cluster C --policies A,B,C [--seeds 1,2,3] [--json] : side-by-side table",
              &cmdCompare);

// ------------------------------------------------------------------------------------------------ bench
long peakRssKb()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::atol(line.c_str() + 6);
    return -1;
}

struct BenchResult {
    long jobs = 0;
    unsigned long long events = 0, decisions = 0;
    double genSeconds = 0, simSeconds = 0;
    long peakKb = 0;
    int finished = 0;
    double meanJct = 0;
};

int cmdBench(Args& a)
{
    std::vector<long> sizes;
    for (const std::string& s : splitList(a.get("sizes", "10000,100000,1000000")))
        sizes.push_back(std::atol(s.c_str()));
    const auto policies = splitList(a.get("policies", "fifo+firstfit,las+consolidate"));
    const std::string clusterName = a.get("cluster", "alibaba-scale");
    const double load = a.getDouble("load", 0.8);
    const uint64_t seed = uint64_t(a.getInt("seed", 1));
    const double budget = a.getDouble("max-seconds", 300);
    a.finish();
    const ClusterSpec cluster = readCluster(clusterName);
    std::printf("bench: cluster %s (%d machines, %d GPUs), load %.2f, seed %llu, one process per run\n",
                cluster.name.c_str(), cluster.machineCount(), cluster.totalGpus(), load,
                static_cast<unsigned long long>(seed));
    std::printf("%-18s %9s %10s %10s %9s %9s %12s %10s\n", "policy", "jobs", "events", "decisions", "gen s", "sim s",
                "jobs/s", "peak MiB");
    std::fflush(stdout);
    for (const std::string& policy : policies) {
        makeScheduler(policy);
        for (long n : sizes) {
            int fd[2];
            if (pipe(fd) != 0)
                throw std::runtime_error("pipe failed");
            const pid_t pid = fork();
            if (pid == 0) {
                close(fd[0]);
                BenchResult r;
                TraceGenConfig g;
                g.jobs = int(n);
                g.seed = seed;
                g.load = load;
                g.clusterGpus = cluster.totalGpus();
                const auto t0 = std::chrono::steady_clock::now();
                const Trace t = generateTrace(g);
                r.genSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                RunSpec spec;
                spec.policy = policy;
                spec.config.seed = seed;
                const RunOutput o = runSimulation(cluster, t, spec);
                r.jobs = n;
                r.events = o.summary.events;
                r.decisions = o.summary.decisions;
                r.simSeconds = o.wallSeconds;
                r.finished = o.summary.finished;
                r.meanJct = o.summary.meanJctMin;
                r.peakKb = peakRssKb();
                (void)!write(fd[1], &r, sizeof r);
                _exit(0);
            }
            close(fd[1]);
            // a run over its time budget is stopped and reported as such (slow policies on huge traces)
            int status = 0;
            bool timedOut = false;
            const auto start = std::chrono::steady_clock::now();
            while (waitpid(pid, &status, WNOHANG) == 0) {
                if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > budget) {
                    kill(pid, SIGKILL);
                    waitpid(pid, &status, 0);
                    timedOut = true;
                    break;
                }
                usleep(20000);
            }
            BenchResult r;
            const ssize_t got = timedOut ? 0 : read(fd[0], &r, sizeof r);
            close(fd[0]);
            if (timedOut) {
                std::printf("%-18s %9ld   stopped after the %.0f s budget (--max-seconds)\n", policy.c_str(), n, budget);
                std::fflush(stdout);
                continue;
            }
            if (got != ssize_t(sizeof r) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                std::printf("%-18s %9ld   failed\n", policy.c_str(), n);
                continue;
            }
            std::printf("%-18s %9ld %10llu %10llu %9.2f %9.2f %12.0f %10.1f\n", policy.c_str(), r.jobs, r.events,
                        r.decisions, r.genSeconds, r.simSeconds, double(r.jobs) / r.simSeconds, r.peakKb / 1024.0);
            std::fflush(stdout);
        }
    }
    return 0;
}
CliCommand c5("bench", "[--sizes 10000,100000,1000000] [--policies ...] [--cluster alibaba-scale] [--max-seconds 300] : engine benchmark",
              &cmdBench);

} // namespace
} // namespace ss::cli
