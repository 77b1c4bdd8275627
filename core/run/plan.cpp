#include "run/plan.h"

#include <algorithm>

namespace ss {

PlannedRun& ExperimentPlan::add(size_t idx, RunSpec spec)
{
    const RunInputs& in = inputs.at(idx);
    // The inputs' fingerprints are computed once per inputs (a pass over the whole trace), not once per run.
    const auto same = std::find_if(runs.rbegin(), runs.rend(), [&](const PlannedRun& r) { return r.inputs == idx; });
    if (same == runs.rend()) {
        completeRunSpec(spec, *in.cluster, *in.trace, in.table.get());
    } else {
        spec.policy = canonicalPolicyName(spec.policy);
        spec.traceName = same->spec.traceName;
        spec.traceFingerprint = same->spec.traceFingerprint;
        spec.clusterName = same->spec.clusterName;
        spec.clusterFingerprint = same->spec.clusterFingerprint;
        spec.throughputsFingerprint = same->spec.throughputsFingerprint;
        completeRunSpecCheckpoint(spec);
    }
    spec.traceSource = in.traceSource;
    spec.clusterSource = in.clusterSource;
    PlannedRun r;
    r.inputs = idx;
    r.label = spec.policy + " seed " + std::to_string(spec.config.seed) + (in.label.empty() ? "" : " [" + in.label + "]");
    r.spec = std::move(spec);
    runs.push_back(std::move(r));
    return runs.back();
}

ExperimentPlan expandPlan(std::vector<RunInputs> inputs, const std::vector<std::string>& policies,
                          const std::vector<uint64_t>& seeds, const RunSpec& base)
{
    ExperimentPlan plan;
    plan.inputs = std::move(inputs);
    for (size_t i = 0; i < plan.inputs.size(); ++i)
        for (const std::string& p : policies)
            for (uint64_t seed : seeds) {
                RunSpec s = base;
                s.policy = p;
                s.config.seed = seed;
                plan.add(i, std::move(s));
            }
    return plan;
}

} // namespace ss
