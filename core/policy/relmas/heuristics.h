#pragma once
// Internal to policy/relmas: the heuristics' factory and the greedy the search starts from.
#include <memory>
#include <string>
#include <vector>

#include "sim/accel/accelsched.h"

namespace ss::accel {

struct GreedyParams {
    double waitRatio = 2.0;    ///< wait for the best sub-accelerator when the idle one is this much slower...
    double slackCycles = 4.0;  ///< ...and the slack exceeds this many times the effective latency
    double oversubscribe = 1.5;///< defer a layer with slack to spare past this multiple of B_sys
};

void greedyAssign(const CycleView& v, const GreedyParams& p, std::vector<Assignment>& out);
std::unique_ptr<AccelScheduler> makeHeuristic(const std::string& name, const GreedyParams& g);

} // namespace ss::accel
