#pragma once
// A synthetic OASiS scenario following the seed's evaluation (ALGORITHMS.md §3.1b): a cluster of Amazon
// EC2-like instance types, Dorm-like job demands and arrivals shaped like the Google cluster trace. The exact
// parameters of the paper were not recovered: every value here is our choice [I], and every one is written into
// the scenario's notes so that a file says how it was made.
#include <cstdint>

#include "model/oasisjob.h"

namespace ss::oasis {

struct GenParams {
    int jobs = 200;
    uint64_t seed = 1;
    int workerServers = 20;   ///< H, drawn from the GPU instance mix
    int psServers = 10;       ///< K, drawn from the CPU instance mix
    double slotSeconds = 600; ///< 10-minute slots
    int horizon = 500;        ///< T
    /// Mean arrivals per slot. 0 = chosen from `load`: offered worker-slot demand / worker GPU capacity.
    double arrivalsPerSlot = 0;
    double load = 1.0;
    /// Utility mix: fractions of time-critical (sigmoid) and time-sensitive (linear); the rest constant.
    double sigmoidShare = 0.5, linearShare = 0.3;
};

/// Deterministic for a given GenParams. Jobs arrive in the first 60 % of the horizon so that admitted jobs can
/// finish. The result passes validateScenario.
OasisScenario generateScenario(const GenParams& p);

} // namespace ss::oasis
