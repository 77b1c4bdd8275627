#pragma once
// INTERNAL to core/learn: factories of the learned and search policies (plain C++, no LibTorch).
#include <memory>
#include <string>

#include "policy/registry.h"

namespace ss::learn {

/// das | da | da+mc | da+rwgp. Loads opts.checkpoint, else the shipped checkpoint for the run's cluster,
/// else warns and uses a deterministic untrained initialisation. Params: das.sample_order (0),
/// das.sample_place (0: act on the mean scores), das.allow_other_cluster (0), das.untrained (0: 1 ignores
/// the shipped checkpoint and runs the heuristic-initialised untrained agent).
std::unique_ptr<Scheduler> makeDasPolicy(const std::string& variant, const PolicyOptions& opts);
std::unique_ptr<Scheduler> makeDl2Policy(const PolicyOptions& opts);
std::unique_ptr<Scheduler> makeRiflingPolicy(const PolicyOptions& opts);
/// "malo" or "mosa".
std::unique_ptr<Scheduler> makeMetaheuristicPolicy(const std::string& name, const PolicyOptions& opts);

} // namespace ss::learn
