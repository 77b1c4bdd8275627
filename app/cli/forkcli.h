#pragma once
// What-if pieces other commands use (cmd_fork.cpp).
#include <string>

#include "run/plan.h"
#include "run/runner.h"

namespace ss::cli {

/// `run --start-state FILE`: the plan's first run, started from the cluster state in FILE (io/startstateio.h).
RunOutput runPlannedFromStartState(const std::string& file, const ExperimentPlan& plan);
/// `run --start-at T`: the plan's first run, started from the state its own trace records at T (trace clock,
/// seconds: run/forkstart.h startStateAt), on the same path as a state file.
RunOutput runPlannedFromTraceAt(double time, const ExperimentPlan& plan);

} // namespace ss::cli
