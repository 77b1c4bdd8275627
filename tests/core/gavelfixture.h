// Shared by tst_gavel and tst_spaceshare: a two-type cluster, a table of two models measured on both types, a
// trace of those models, Gavel's own performance assumptions and a decision recorder.
#pragma once
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "perf/perfmodel.h"
#include "sim/engine.h"

namespace gavelfix {

/// Cluster: one machine of `a` GPUs of type A and one of `b` GPUs of type B.
inline ss::ClusterSpec twoTypes(int a, int b, double priceA = 1.0)
{
    ss::ClusterSpec c;
    c.name = "ab";
    c.types = {{"A", priceA, 16, 1.0}, {"B", 1.0, 16, 1.0}};
    c.switches = {{"s0", 100}};
    c.machines.push_back({"a0", 0, a, 0, 0, 0, 25});
    c.machines.push_back({"b0", 1, b, 0, 0, 0, 25});
    c.finalize();
    return c;
}

/// Table: model "fastA" 4 steps/s on A, 1 on B; "fastB" 1 on A, 2 on B; reference type A.
inline ss::ThroughputTable abTable()
{
    ss::ThroughputTable t;
    t.set("fastA", "a", 1.0);
    t.setReferenceType("a");
    t.setStepsPerSecond("fastA", 1, "a", 4);
    t.setStepsPerSecond("fastA", 1, "b", 1);
    t.setStepsPerSecond("fastB", 1, "a", 1);
    t.setStepsPerSecond("fastB", 1, "b", 2);
    return t;
}

inline ss::Trace abTrace(const std::vector<std::tuple<double, std::string, double>>& jobs) // submit, model, v100-seconds
{
    ss::Trace t;
    t.name = "ab";
    t.models = {"fastA", "fastB", "unknown-model"};
    int64_t id = 0;
    for (auto [s, m, d] : jobs) {
        ss::Job j;
        j.id = id++;
        j.submit = s;
        j.gpus = 1;
        j.duration = d;
        j.model = int32_t(std::find(t.models.begin(), t.models.end(), m) - t.models.begin());
        t.jobs.push_back(j);
    }
    t.sortBySubmit();
    return t;
}

inline ss::RunConfig gavelConfig()
{
    ss::RunConfig cfg;
    cfg.perf.crossMachine = cfg.perf.crossSwitch = cfg.perf.interference = 0; // Gavel's own assumptions
    cfg.checkInvariants = true;
    cfg.recordDecisions = true;
    return cfg;
}

struct Recorder : ss::SimObserver {
    std::vector<ss::DecisionRecord> records;
    void onDecision(const ss::DecisionRecord& r) override { records.push_back(r); }
};

} // namespace gavelfix
