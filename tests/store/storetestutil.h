#pragma once
// Synthetic run outputs for store and exporter tests: every field set, deterministic for a seed.
#include <cmath>

#include "model/rng.h"
#include "run/runner.h"

namespace sstest {

/// A run with `jobs` job records, `points` series samples and, when `logRecords` > 0, a decision log with
/// starts, a preemption + restart, shared GPUs (milli < 1000), NaN scores and repeated reasons.
inline ss::RunOutput fakeRun(int jobs, int points, int logRecords, uint64_t seed = 7, const std::string& policy = "fifo+firstfit")
{
    ss::Rng rng(seed);
    ss::RunOutput o;
    o.policy = policy;
    o.seed = seed;
    o.perf = "cross_machine=0.1,cross_switch=0.25";
    o.clusterName = "das-case";
    o.clusterFingerprint = "c0ffee" + std::to_string(seed % 3);
    o.traceName = "fake-trace";
    o.traceFingerprint = "0123456789abcdef";
    o.wallSeconds = 0.25 + rng.uniform();
    ss::Summary& s = o.summary;
    s.jobs = jobs;
    s.finished = jobs - 2;
    s.unfinished = 1;
    s.rejected = 1;
    s.meanJctMin = 10 * rng.uniform();
    s.medianJctMin = 3.5;
    s.p95JctMin = 99.125;
    s.p99JctMin = std::nan("");
    s.meanQueueMin = 1.0 / 3.0;
    s.meanFeeUsd = 2.5;
    s.totalFeeUsd = 1e9 + 0.1;
    s.makespanH = 17.25;
    s.utilization = 0.8125;
    s.deadlineJobs = 5;
    s.deadlineMissRate = 0.2;
    s.jainFairness = 0.7;
    s.preemptions = 3;
    s.events = 1234567890123ULL;
    s.decisions = 42;
    for (int i = 0; i < jobs; ++i) {
        ss::JobRecord r;
        r.index = i;
        r.id = 1000000000000LL + i * 7;
        r.submit = i * 1.5 + rng.uniform();
        r.start = i % 50 == 0 ? -1 : r.submit + rng.uniform() * 100;
        r.end = r.start < 0 ? -1 : r.start + 1 + rng.uniform() * 1000;
        r.jct = r.end < 0 ? -1 : r.end - r.submit;
        r.queueing = r.start < 0 ? -1 : r.start - r.submit;
        r.gpus = i % 9 == 0 ? 0.25 : double(1 << (i % 4));
        r.machines = 1 + i % 3;
        r.fee = rng.uniform() * 3;
        r.gpuSeconds = rng.uniform() * 1e5;
        r.preemptions = i % 5;
        r.deadlineMet = i % 3 - 1;
        r.deadlineValue = r.deadlineMet == 1 ? 6.0 : 0.0;
        r.duration = 1 + rng.uniform() * 1e4;
        r.status = r.start < 0 ? ss::JobStatus::Rejected : ss::JobStatus::Done;
        o.jobs.push_back(r);
    }
    for (int i = 0; i < points; ++i)
        o.series.push_back({i * 60.0 + 0.5, float(rng.uniform()), float(rng.uniform()), int(rng.below(100)),
                            int(rng.below(32))});
    if (logRecords > 0) {
        auto log = std::make_shared<ss::DecisionLog>();
        log->machineCount = 8;
        log->gpuCount = 32;
        for (int k = 0; k < logRecords; ++k) {
            ss::DecisionRecord r;
            r.index = uint32_t(k);
            r.time = k * 10.0 + 0.125;
            r.arrived = {k, k + 1000};
            if (k > 0)
                r.finished = {k - 1};
            r.queueLength = 3 + k;
            r.queue.push_back({k, float(k) * 0.5f, ss::kNoScore, ss::kNoScore});
            r.queue.push_back({k + 2, -1.0f, 0.25f, ss::kNoScore});
            r.queue.push_back({k - 7, 3.0f, ss::kNoScore, 0.75f});
            if (k % 4 == 3)
                r.preempted = {k - 3};
            ss::PlacementRecord p;
            p.job = k;
            p.slots = {{k % 32, 1000}, {(k + 1) % 32, 500}};
            p.affinity.resize(8);
            for (int m = 0; m < 8; ++m)
                p.affinity[size_t(m)] = float(rng.uniform());
            if (k % 2)
                p.affinityVar = {0.5f, ss::kNoScore};
            p.reason = k % 3 ? "first fit" : "best fit on machine " + std::to_string(k % 8);
            r.placements.push_back(p);
            ss::PlacementRecord failed;
            failed.job = k + 2;
            failed.machines = {1, 5, 7};
            failed.affinity = {0.1f, 0.2f, 0.3f};
            failed.reason = "no machine with 8 free GPUs";
            r.placements.push_back(failed);
            log->records.push_back(std::move(r));
        }
        o.log = log;
    }
    return o;
}

inline bool sameFloat(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

} // namespace sstest
