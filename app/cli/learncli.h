#pragma once
// Shared by train (cmd_learn.cpp) and reproduce (cmd_reproduce.cpp).
#include <cstdint>
#include <string>
#include <utility>

#include "learn/trainer.h"
#include "model/job.h"

namespace ss::cli {

class Args;

/// Splits a trace at fraction f of its jobs: [0, f) for training, [f, 1) rebased to t = 0 for evaluation,
/// so that no evaluation job is ever seen in training.
std::pair<Trace, Trace> splitTrace(const Trace& t, double f);

/// The training settings `reproduce` and `reproduce --figure5` share: `policy` trained on `train` for `iterations`
/// iterations of `episodeJobs`-job episodes, held-out scored every `evalEvery`.
learn::TrainConfig reproduceTrainConfig(const std::string& policy, const ClusterSpec& cluster, const Trace& train,
                                        const PerfConfig& perf, uint64_t seed, int iterations, int episodeJobs,
                                        int evalEvery);
/// --workers N (0 or absent: one per hardware thread): episodes a training or evaluation runs at once.
int workersFromArgs(Args& a);
/// Trains `c` to its end and writes the policy to `path`.
void trainAndSave(const learn::TrainConfig& c, const std::string& path);

/// reproduce --figure5: the seed's Figure 5, DAS's JCT and fee over attention heads h x RWGP history tau, with
/// RIFLING as the reference line (cmd_figure5.cpp).
int cmdFigure5(Args& a);

} // namespace ss::cli
