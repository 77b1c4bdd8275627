#pragma once
// Gavel's workload generator (ALGORITHMS.md §4.5; stanford-futuredata/gavel scheduler/utils.py generate_job):
// 26 job templates, Philly-like durations, scale factors for the distributed templates, Poisson arrivals.
#include <cstdint>

#include "model/job.h"

namespace ss {

struct GavelWorkloadConfig {
    int jobs = 6000;
    uint64_t seed = 0;
    double jobsPerHour = 3.0;     ///< Poisson arrival rate (lambda); 0 = all at t = 0 (a static trace)
    bool multiGpu = false;        ///< distributed templates get scale 1 (70 %), 2 (10 %), 4 (15 %), 8 (5 %)
    bool priorities = false;      ///< 20 % of jobs get priority weight 5 (kept in the job's QoS class "w5")
    double fixedDuration = 0;     ///< > 0: every job runs this many seconds on a V100
};

/// Durations are seconds on a V100 at the job's scale factor (with p = 0.8, 60 x 10^U(1.5, 3); else
/// 60 x 10^U(3, 4)), the unit io's Gavel reader and the Gavel throughput table use. Models are named as in
/// Gavel's simulation_throughputs.json. Same config => same trace (the project's Rng, not numpy's: the
/// traces have Gavel's distributions, not its exact jobs).
Trace generateGavelWorkload(const GavelWorkloadConfig& cfg);

} // namespace ss
