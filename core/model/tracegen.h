#pragma once
// Synthetic traces: Poisson arrivals, a Philly-like duration mixture, a GPU-demand mix, model names.
#include <cstdint>
#include <string>

#include "model/job.h"

namespace ss {

struct TraceGenConfig {
    int jobs = 1000;
    uint64_t seed = 1;
    /// Offered load: expected GPU demand / cluster GPUs. With clusterGpus > 0, the arrival rate is set so that
    /// rate x mean(gpus x duration) = load x clusterGpus. Otherwise `arrivalsPerHour` is used.
    double load = 0.9;
    int clusterGpus = 0;
    double arrivalsPerHour = 60;
    /// Demand mix (Gavel's): 1 GPU 70%, 2 GPUs 10%, 4 GPUs 15%, 8 GPUs 5%; fractionalShare of jobs take part of one GPU.
    double fractionalShare = 0.0;
    int maxGpus = 8;  ///< demands above this are clipped (use the cluster's largest machine for consolidated runs)
    double durationScale = 1.0; ///< multiplies every duration (short demo traces); the load is kept
    double deadlineShare = 0.0; ///< share of jobs given deadline levels (1.5x/2x/3x duration, values 10/6/2)
};

/// Deterministic for a config: same config => identical trace.
Trace generateTrace(const TraceGenConfig& cfg);
/// The generator's arguments as a provenance note.
std::string describe(const TraceGenConfig& cfg);

} // namespace ss
