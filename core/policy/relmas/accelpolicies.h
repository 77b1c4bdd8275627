#pragma once
// The accelerator mode's schedulers (docs/ACCELERATOR.md §6): FCFS, EDF, least laxity, round-robin,
// a heterogeneity- and bandwidth-aware greedy and a MAGMA-style local search over each cycle's assignment.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/accel/accelrecord.h"
#include "sim/accel/accelsched.h"

namespace ss::accel {

/// Names accepted by makeAccelScheduler, in display order.
std::vector<std::string> accelPolicyNames();
bool isAccelPolicy(const std::string& name);
/// The scheduler's rule in one or two sentences (docs/ACCELERATOR.md §6), for teaching mode.
std::string accelPolicyRule(const std::string& name);
/// Throws std::invalid_argument naming an unknown policy or parameter.
std::unique_ptr<AccelScheduler> makeAccelScheduler(const std::string& name,
                                                   const std::map<std::string, std::string>& params = {});

/// Affinity scores of every (ready, sub) pair: best latency of the layer / its latency on the sub (1 = best
/// dataflow), 0 for busy sub-accelerators. Shared by the heuristics for the decision log.
void affinityScores(const CycleView& v, std::vector<float>& scores);

/// runForStudio (sim/accel/accelrecord.h) of the policy named `policy`; throws std::invalid_argument as
/// makeAccelScheduler does.
StudioRun runPolicyForStudio(const Workload& w, const CostTable& cost, const std::string& policy,
                             const std::map<std::string, std::string>& params, const SimConfig& cfg,
                             size_t maxCycles = 200000);

} // namespace ss::accel
