#pragma once
// What-if pieces other commands use (cmd_fork.cpp).
#include <string>

#include "run/plan.h"
#include "run/runner.h"

namespace ss::cli {

/// `run --start-state FILE`: the plan's first run, started from the cluster state in FILE (io/startstateio.h).
RunOutput runPlannedFromStartState(const std::string& file, const ExperimentPlan& plan);

} // namespace ss::cli
