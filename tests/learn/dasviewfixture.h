// Shared by tst_dasview and tst_dascriticview: a DAS-family run on das-case (60 generated jobs at load 3, decisions
// and the log kept) wrapped as the studio's RunEntry.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "model/tracegen.h"
#include "run/runner.h"
#include "runentry.h"

namespace dasviewfix {

/// `policy` with `params` (e.g. das.untrained=1), seed 1, machine bias sd 0.15, no checkpoint file.
inline std::shared_ptr<ss::ui::RunEntry> runOf(const std::string& policy, const std::map<std::string, std::string>& params)
{
    auto e = std::make_shared<ss::ui::RunEntry>();
    auto c = std::make_shared<ss::ClusterSpec>(ss::makeClusterPreset("das-case"));
    ss::TraceGenConfig g;
    g.jobs = 60;
    g.seed = 2;
    g.load = 3.0;
    g.clusterGpus = c->totalGpus();
    g.maxGpus = 4;
    auto t = std::make_shared<ss::Trace>(ss::generateTrace(g));
    t->sortBySubmit();
    ss::RunSpec spec;
    spec.policy = policy;
    spec.options.checkpoint = "";
    for (const auto& [k, v] : params)
        spec.options.params[k] = v;
    spec.config.seed = 1;
    spec.config.perf.machineBiasSd = 0.15;
    spec.config.recordDecisions = true;
    spec.keepDecisionLog = true;
    e->out = std::make_shared<ss::RunOutput>(ss::runSimulation(*c, *t, spec));
    e->cluster = c;
    e->trace = t;
    return e;
}

} // namespace dasviewfix
