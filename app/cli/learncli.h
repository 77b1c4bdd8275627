#pragma once
// Shared by train (cmd_learn.cpp) and reproduce (cmd_reproduce.cpp).
#include <utility>

#include "model/job.h"

namespace ss::cli {

/// Splits a trace at fraction f of its jobs: [0, f) for training, [f, 1) rebased to t = 0 for evaluation,
/// so that no evaluation job is ever seen in training.
std::pair<Trace, Trace> splitTrace(const Trace& t, double f);

} // namespace ss::cli
