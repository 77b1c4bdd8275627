// Gavel's "ideal" mode (ALGORITHMS.md §4.4, the mechanism-vs-ideal comparison of Fig 13): jobs progress at
// exactly their effective throughput under X, with X recomputed at every arrival and completion. This is the
// upper bound the round mechanism approximates; it needs no engine (no GPUs are assigned).
#include <algorithm>
#include <cmath>
#include <limits>

#include "policy/gavel/gavelsched.h"

namespace ss {

std::vector<double> simulateGavelIdeal(const ClusterSpec& cluster, const Trace& trace, const ThroughputTable* table,
                                       gavel::Objective objective, bool agnostic, const PerfConfig& perf)
{
    RunConfig cfg;
    cfg.perf = perf;
    PerfModel pm(cluster, trace, perf, cfg.seed, table);
    const SimSetup setup {cluster, trace, pm, cfg};
    gavel::Options opts;
    opts.agnostic = agnostic;
    return simulateGavelIdeal(setup, objective, opts, false);
}

std::vector<double> simulateGavelIdeal(const SimSetup& setup, gavel::Objective objective, const gavel::Options& opts,
                                       bool entityVc, int pairsPerJob)
{
    const ThroughputTable* table = setup.perf.table();
    const bool pairs = pairsPerJob > 0 && table && table->hasPairs();
    std::vector<std::string> typeNames;
    for (const GpuType& t : setup.cluster.types)
        typeNames.push_back(t.name);
    const ClusterSpec& cluster = setup.cluster;
    const Trace& trace = setup.trace;
    const size_t n = trace.jobs.size();
    std::vector<double> end(n, -1.0), left(n, 0.0), rate(n, 0.0);
    std::vector<GavelJobThroughput> tp(n);
    std::vector<double> workers(cluster.types.size(), 0.0), price(cluster.types.size(), 1.0);
    for (const Machine& m : cluster.machines)
        workers[size_t(m.type)] += m.gpus;
    for (size_t t = 0; t < cluster.types.size(); ++t)
        price[t] = cluster.types[t].pricePerHour;
    std::vector<int> active;
    size_t next = 0;
    double now = trace.jobs.empty() ? 0.0 : trace.jobs.front().submit;
    while (next < n || !active.empty()) {
        while (next < n && trace.jobs[next].submit <= now) {
            tp[next] = gavelThroughput(setup, int(next), true);
            left[next] = trace.jobs[next].duration * tp[next].unitsPerRef;
            active.push_back(int(next++));
        }
        // the allocation of the jobs present now
        gavel::Problem p;
        p.workers = workers;
        p.price = price;
        for (int j : active) {
            const Job& jb = trace.jobs[size_t(j)];
            gavel::JobRow r;
            r.T = tp[size_t(j)].T;
            r.scale = std::max(1, jb.wholeGpus());
            r.weight = trace.priorityWeight(jb);
            r.remaining = left[size_t(j)];
            r.done = jb.duration * tp[size_t(j)].unitsPerRef - left[size_t(j)];
            r.age = now - jb.submit;
            r.arrival = jb.submit + 1e-9 * j;
            if (!jb.deadlines.empty())
                r.sloLeft = jb.submit + jb.deadlines.front().offset - now;
            r.entity = entityVc ? jb.vc : jb.user; // the LP only compares entities for equality
            p.jobs.push_back(std::move(r));
        }
        if (pairs) { // space sharing: a pair row's co-located throughput counts in both members' rates
            std::vector<std::string> models;
            for (int j : active)
                models.push_back(trace.jobs[size_t(j)].model >= 0 ? trace.models[size_t(trace.jobs[size_t(j)].model)] : std::string());
            addGavelPairs(p, models, *table, typeNames, pairsPerJob, opts.packThreshold);
        }
        const gavel::Solution s = gavel::solve(p, objective, opts);
        double step = next < n ? trace.jobs[next].submit - now : std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < active.size(); ++i) {
            rate[size_t(active[i])] = gavel::effectiveThroughput(p, s, int(i));
            if (rate[size_t(active[i])] > 0)
                step = std::min(step, left[size_t(active[i])] / rate[size_t(active[i])]);
        }
        if (!std::isfinite(step))
            break; // nothing can progress and nothing arrives: the rest never finish
        now += step;
        std::vector<int> still;
        for (int j : active) {
            left[size_t(j)] -= rate[size_t(j)] * step;
            if (left[size_t(j)] <= 1e-9 * std::max(1.0, trace.jobs[size_t(j)].duration * tp[size_t(j)].unitsPerRef))
                end[size_t(j)] = now;
            else
                still.push_back(j);
        }
        active.swap(still);
        if (active.empty() && next < n)
            now = std::max(now, trace.jobs[next].submit);
    }
    return end;
}

} // namespace ss
