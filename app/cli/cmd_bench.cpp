// bench: the engine and every policy on generated traces of growing size, one child process per run (so each
// run's peak memory is its own and a run over its time budget can be stopped), with a fitted growth exponent
// per policy: the slope of log(simulation seconds) against log(jobs).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli.h"
#include "io/traceio.h"
#include "model/tracegen.h"
#include "policy/registry.h"
#include "run/runner.h"

namespace ss::cli {
namespace {

long peakRssKb()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::atol(line.c_str() + 6);
    return -1;
}

// What the figures were measured on: the CPU model, logical CPUs, memory, the load average when the bench
// started and the build type (seconds differ between machines; ratios between policies of one run less).
std::string machineLine()
{
    std::string cpu = "unknown CPU";
    {
        std::ifstream f("/proc/cpuinfo");
        std::string line;
        while (std::getline(f, line))
            if (line.rfind("model name", 0) == 0) {
                const size_t c = line.find(':');
                if (c != std::string::npos && c + 2 <= line.size())
                    cpu = line.substr(c + 2);
                break;
            }
    }
    double memGiB = 0;
    {
        std::ifstream f("/proc/meminfo");
        std::string line;
        while (std::getline(f, line))
            if (line.rfind("MemTotal:", 0) == 0) {
                memGiB = double(std::atol(line.c_str() + 9)) / (1024.0 * 1024.0);
                break;
            }
    }
    double load1 = -1;
    {
        std::ifstream f("/proc/loadavg");
        f >> load1;
    }
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef SCHEDSTUDIO_BUILD_TYPE
    const std::string build = *SCHEDSTUDIO_BUILD_TYPE ? SCHEDSTUDIO_BUILD_TYPE : "unnamed";
#else
    const std::string build = "unknown";
#endif
    char buf[512];
    std::snprintf(buf, sizeof buf, "machine: %s, %ld logical CPUs, %.1f GiB, load average %.2f at the start; %s build",
                  cpu.c_str(), cpus, memGiB, load1, build.c_str());
    return buf;
}

struct BenchResult {
    long jobs = 0;
    unsigned long long events = 0, decisions = 0;
    double genSeconds = 0, simSeconds = 0;
    long peakKb = 0;
    int finished = 0;
    double meanJct = 0;
    double meanWaitMin = 0;    // mean minutes a job waited (queueing): whether the cluster carries the trace
    long long preemptions = 0; // what the policy stopped and restarted (the work of preemptive policies)
    long long logBytes = -1;   // the decision log's size (--log), -1 without one
};

/// --log: each run streams its decision log to a file of its own in `dir`, removed once its size is read.
struct BenchLog {
    bool on = false;
    std::string dir;
    int queueLimit = 0;
};

/// "all": every registered policy that is not learned (ordering x placement, joint); "learned": the learned
/// ones; anything else is a name. Order kept, duplicates dropped.
std::vector<std::string> expandPolicies(const std::vector<std::string>& items, std::vector<std::string>* learned)
{
    std::vector<std::string> out;
    auto add = [&](const std::string& n) {
        if (std::find(out.begin(), out.end(), n) == out.end())
            out.push_back(n);
    };
    for (const std::string& it : items) {
        if (it == "all" || it == "learned") {
            for (const PolicyInfo& p : policyCatalog())
                if ((p.group == "learned") == (it == "learned"))
                    add(p.name);
        } else {
            add(it);
        }
    }
    for (const PolicyInfo& p : policyCatalog())
        if (p.group == "learned")
            learned->push_back(p.name);
    return out;
}

/// Least-squares slope of log(seconds) over log(jobs); NaN with fewer than two usable points. Runs shorter
/// than `floor` seconds are left out (timer and start-up noise dominate them).
double growthExponent(const std::vector<std::pair<long, double>>& pts, double floor)
{
    std::vector<std::pair<double, double>> xy;
    for (const auto& p : pts)
        if (p.second >= floor)
            xy.push_back({std::log(double(p.first)), std::log(p.second)});
    if (xy.size() < 2)
        return std::nan("");
    double mx = 0, my = 0;
    for (const auto& p : xy)
        mx += p.first, my += p.second;
    mx /= double(xy.size());
    my /= double(xy.size());
    double sxy = 0, sxx = 0;
    for (const auto& p : xy)
        sxy += (p.first - mx) * (p.second - my), sxx += (p.first - mx) * (p.first - mx);
    return sxx > 0 ? sxy / sxx : std::nan("");
}

/// The least growth exponent a size is predicted with before it runs (runs predicted over the budget are skipped).
constexpr double kLeastGrowth = 0.9;

/// One run in a child process; false when it failed, `timedOut` when it ran past `budget` seconds.
bool benchOne(const ClusterSpec& cluster, const std::string& policy, long n, uint64_t seed, double load,
              const PerfConfig& perf, double budget, const BenchLog& log, BenchResult& r, bool& timedOut)
{
    int fd[2];
    if (pipe(fd) != 0)
        throw std::runtime_error("bench: pipe failed");
    const pid_t pid = fork();
    if (pid < 0)
        throw std::runtime_error("bench: fork failed");
    if (pid == 0) {
        close(fd[0]);
        BenchResult c;
        TraceGenConfig g;
        g.jobs = int(n);
        g.seed = seed;
        g.load = load;
        g.clusterGpus = cluster.totalGpus();
        const auto t0 = std::chrono::steady_clock::now();
        const Trace t = generateTrace(g);
        c.genSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        RunSpec spec;
        spec.policy = policy;
        spec.config.seed = seed;
        spec.config.perf = perf;
        std::string logPath;
        if (log.on) {
            logPath = log.dir + "/schedstudio-bench-" + std::to_string(getpid()) + ".sslog";
            spec.decisionLogPath = logPath;
            if (log.queueLimit >= 0)
                spec.config.logQueueLimit = log.queueLimit;
            applyLogLimitsFor(t.jobs.size(), spec.config, log.queueLimit >= 0); // as run --log-out
        }
        const RunOutput o = runSimulation(cluster, t, spec);
        if (log.on) {
            std::ifstream f(logPath, std::ios::binary | std::ios::ate);
            c.logBytes = f ? (long long)f.tellg() : -1;
            std::remove(logPath.c_str());
        }
        c.jobs = n;
        c.events = o.summary.events;
        c.decisions = o.summary.decisions;
        c.simSeconds = o.wallSeconds;
        c.finished = o.summary.finished;
        c.meanJct = o.summary.meanJctMin;
        c.meanWaitMin = o.summary.meanQueueMin;
        c.preemptions = o.summary.preemptions;
        c.peakKb = peakRssKb();
        (void)!write(fd[1], &c, sizeof c);
        _exit(0);
    }
    close(fd[1]);
    int status = 0;
    timedOut = false;
    const auto start = std::chrono::steady_clock::now();
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > budget) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            timedOut = true;
            break;
        }
        usleep(5000);
    }
    const ssize_t got = timedOut ? 0 : read(fd[0], &r, sizeof r);
    close(fd[0]);
    return !timedOut && got == ssize_t(sizeof r) && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string fmtSeconds(double s)
{
    char b[32];
    std::snprintf(b, sizeof b, s < 10 ? "%.2f" : "%.1f", s);
    return b;
}

int cmdBench(Args& a)
{
    std::vector<long> sizes;
    for (const std::string& s : splitList(a.get("sizes", "10000,100000,1000000"))) {
        const long n = std::atol(s.c_str());
        if (n <= 0)
            throw UsageError("--sizes: expected positive job counts like 10000,100000, got '" + s + "'");
        sizes.push_back(n);
    }
    std::vector<std::string> learnedNames;
    const auto policies = expandPolicies(splitList(a.get("policies", "fifo+firstfit,las+consolidate")), &learnedNames);
    const std::string clusterName = a.get("cluster", "alibaba-scale");
    const double load = a.getDouble("load", 0.8);
    const PerfConfig perf = PerfConfig::parse(a.get("perf", "default"));
    const uint64_t seed = uint64_t(a.getInt("seed", 1));
    const double budget = a.getDouble("max-seconds", 300);
    const long learnedMax = a.getInt("learned-max-jobs", 10000);
    const double floor = a.getDouble("fit-floor", 0.05);
    BenchLog log;
    log.on = a.flag("log");
    log.queueLimit = int(a.getInt("log-queue", -1)); // -1: as run --log-out keeps by default (defaultLogQueueLimit)
    if (log.queueLimit < -1)
        throw UsageError("--log-queue: expected 0 or more queued jobs per decision record");
    log.dir = a.get("log-dir", std::getenv("TMPDIR") && *std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
    a.finish();
    const ClusterSpec cluster = readCluster(clusterName);
    std::printf("bench: cluster %s (%d machines, %d GPUs, %.1f at their types' speeds), load %.2f of the GPUs (%.2f "
                "at their speeds), seed %llu, one process per run\n",
                cluster.name.c_str(), cluster.machineCount(), cluster.totalGpus(), cluster.referenceGpus(), load,
                load * cluster.totalGpus() / std::max(1e-9, cluster.referenceGpus()),
                static_cast<unsigned long long>(seed));
    std::printf("perf: %s\n", perf.toString().c_str());
    std::printf("%s\n", machineLine().c_str());
    if (log.on)
        std::printf("each run streams its decision log to %s, with run --log-out's limits (per record: %s queued jobs, "
                    "%d placements with scores; above %zu jobs %d and %d); sim s includes writing it\n",
                    log.dir.c_str(), log.queueLimit >= 0 ? std::to_string(log.queueLimit).c_str() : "1000",
                    RunConfig {}.logPlacementLimit, kLogBigTrace, log.queueLimit >= 0 ? log.queueLimit : kLogQueueBig,
                    kLogPlacementsBig);
    std::printf("%-20s %9s %10s %10s %9s %9s %12s %10s %10s %10s%s\n", "policy", "jobs", "events", "decisions", "gen s",
                "sim s", "jobs/s", "peak MiB", "wait min", "preempts", log.on ? "    log MiB" : "");
    std::fflush(stdout);
    struct Row {
        std::string policy;
        std::map<long, std::string> cells;
        std::vector<std::pair<long, double>> pts;
        std::map<long, BenchResult> done; // the runs that finished, per size
        bool stopped = false;
    };
    std::vector<Row> rows;
    for (const std::string& policy : policies) {
        makeScheduler(policy); // an unknown name fails before any run
        const bool learned = std::find(learnedNames.begin(), learnedNames.end(), policy) != learnedNames.end();
        Row row;
        row.policy = policy;
        for (long n : sizes) {
            if (learned && n > learnedMax) {
                row.cells[n] = "-";
                continue;
            }
            if (row.stopped) { // a smaller size already ran past the budget
                row.cells[n] = "-";
                continue;
            }
            if (!row.pts.empty()) {
                // a size that would surely run past the budget is not started: its time from the last size's at
                // growth 0.9 is already over it (every policy measured here grows faster from 100k to 1M, 0.94 the
                // least; only a fixed start-up cost near the budget could mislead it, and none comes close)
                const auto [m, secs] = row.pts.back();
                const double atLeast = secs * std::pow(double(n) / double(m), kLeastGrowth);
                if (atLeast > budget) {
                    std::printf("%-20s %9ld   not run: at least %.0f s predicted from %ld jobs (growth %.1f), over the %g s "
                                "budget (--max-seconds)\n",
                                policy.c_str(), n, atLeast, m, kLeastGrowth, budget);
                    row.cells[n] = "(> " + fmtSeconds(budget) + ")";
                    row.stopped = true;
                    std::fflush(stdout);
                    continue;
                }
            }
            BenchResult r;
            bool timedOut = false;
            const bool ok = benchOne(cluster, policy, n, seed, load, perf, budget, log, r, timedOut);
            if (timedOut) {
                std::printf("%-20s %9ld   stopped after the %.0f s budget (--max-seconds)\n", policy.c_str(), n, budget);
                row.cells[n] = "> " + fmtSeconds(budget);
                row.stopped = true;
            } else if (!ok) {
                std::printf("%-20s %9ld   failed\n", policy.c_str(), n);
                row.cells[n] = "failed";
            } else {
                std::printf("%-20s %9ld %10llu %10llu %9.2f %9.2f %12.0f %10.1f %10.1f %10lld", policy.c_str(), r.jobs,
                            r.events, r.decisions, r.genSeconds, r.simSeconds,
                            double(r.jobs) / std::max(r.simSeconds, 1e-9), r.peakKb / 1024.0, r.meanWaitMin,
                            r.preemptions);
                if (log.on)
                    std::printf(" %10.1f", double(r.logBytes) / (1024.0 * 1024.0));
                std::printf("\n");
                row.cells[n] = fmtSeconds(r.simSeconds);
                row.pts.push_back({n, r.simSeconds});
                row.done[n] = r;
            }
            std::fflush(stdout);
        }
        rows.push_back(std::move(row));
    }
    // summary: seconds per size and the growth exponent (1 = linear; runs under --fit-floor seconds left out)
    std::printf("\nsummary (simulation seconds; > budget: stopped by --max-seconds, (> budget): not run, predicted over it; "
                "growth = slope of log time over log jobs, runs >= %.2f s)\n",
                floor);
    std::printf("%-20s", "policy");
    for (long n : sizes)
        std::printf(" %10ld", n);
    std::printf(" %8s\n", "growth");
    for (const Row& row : rows) {
        std::printf("%-20s", row.policy.c_str());
        for (long n : sizes)
            std::printf(" %10s", row.cells.count(n) ? row.cells.at(n).c_str() : "-");
        const double g = growthExponent(row.pts, floor);
        if (std::isnan(g))
            std::printf(" %8s\n", "n/a");
        else
            std::printf(" %8.2f%s\n", g, row.stopped ? " (stopped at a larger size)" : "");
    }
    // What the traces asked of the cluster: the mean wait and the preemptions per job at each size. A mean wait
    // that grows with the size means the trace offers more work than the cluster carries under this performance
    // model (its backlog grows with the run), and preemptive policies then stop and restart jobs in proportion:
    // their seconds measure that backlog as much as their data structures.
    std::printf("\nwaiting (mean minutes a job waited / preemptions per job)\n");
    std::printf("%-20s", "policy");
    for (long n : sizes)
        std::printf(" %16ld", n);
    std::printf("\n");
    bool anyGrows = false;
    for (const Row& row : rows) {
        std::printf("%-20s", row.policy.c_str());
        for (long n : sizes) {
            const auto d = row.done.find(n);
            if (d == row.done.end()) {
                std::printf(" %16s", "-");
                continue;
            }
            char cell[64];
            std::snprintf(cell, sizeof cell, "%.0f / %.2f", d->second.meanWaitMin,
                          double(d->second.preemptions) / double(std::max(1L, d->second.jobs)));
            std::printf(" %16s", cell);
        }
        // the backlog grows with the run: the mean wait at the largest size run is over an hour and grew faster
        // than the square root of the sizes from the size before (a carried load's mean wait levels off with size)
        bool grows = false;
        if (row.done.size() >= 2) {
            const auto last = std::prev(row.done.end()), before = std::prev(last);
            const double ratio = double(last->first) / double(before->first);
            grows = last->second.meanWaitMin > 60
                && last->second.meanWaitMin > std::max(before->second.meanWaitMin, 1.0) * std::sqrt(ratio);
        }
        std::printf("%s\n", grows ? "  backlog grows with the trace's size" : "");
        anyGrows = anyGrows || grows;
    }
    if (anyGrows)
        std::printf("(a backlog that grows with the size: the trace offers more work than the cluster carries with "
                    "that policy under this performance model; a lower --load or another --perf shows a carried one)\n");
    // each policy against fifo+firstfit at the largest size both ran: measured in one run on one machine, these
    // carry across machines better than the seconds do
    const auto fifo = std::find_if(rows.begin(), rows.end(), [](const Row& r) { return r.policy == "fifo+firstfit"; });
    if (fifo != rows.end() && !fifo->pts.empty() && rows.size() > 1) {
        std::printf("\nagainst fifo+firstfit (simulation seconds over fifo+firstfit's at the largest size both ran)\n");
        for (const Row& row : rows) {
            if (&row == &*fifo)
                continue;
            double ratio = -1;
            long at = 0;
            for (const auto& [n, secs] : row.pts)
                for (const auto& [fn, fsecs] : fifo->pts)
                    if (fn == n && n > at && fsecs > 0) {
                        at = n;
                        ratio = secs / fsecs;
                    }
            if (ratio < 0)
                std::printf("%-20s %10s\n", row.policy.c_str(), "n/a");
            else
                std::printf("%-20s %9.1fx at %ld jobs\n", row.policy.c_str(), ratio, at);
        }
    }
    return 0;
}
CliCommand c5("bench",
              "[--sizes 10000,100000,1000000] [--policies all|learned|A,B,...] [--cluster alibaba-scale] [--load 0.8] "
              "[--seed 1] [--perf SPEC] [--max-seconds 300] [--learned-max-jobs 10000] [--fit-floor 0.05] "
              "[--log [--log-queue N] [--log-dir DIR]] : engine and policy benchmark with a growth exponent per policy, "
              "and the mean wait and preemptions per job that show whether the cluster carries each trace (--log: "
              "with the decision log written)",
              &cmdBench);

} // namespace
} // namespace ss::cli
