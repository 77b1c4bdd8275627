#pragma once
// Chronus placement (ALGORITHMS.md §5.4 "Placement", ChronusArtifact alg/placement/): consolidation for
// jobs over 8 GPUs, and batch local search with split options for the rest. Works on free-GPU counts per
// machine; the scheduler turns the (machine, count) parts into GPU slots.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/clusterspec.h"

namespace ss::chronus {

/// Relative speed of a model when its GPUs are split over 1, 2 or 4 nodes (the profiler's model_info.json).
class SplitSpeed {
public:
    /// The artifact's measured table (five models), plus `crossMachine` for unknown models or sizes:
    /// speed = 1 / (1 + crossMachine * (nodes - 1)).
    explicit SplitSpeed(double crossMachine = 0.10);
    double speed(const std::string& model, int gpus, int nodes) const;

private:
    double m_cross;
};

struct PlaceRequest {
    int job = 0;
    int gpus = 1;
    std::string model;
    uint64_t typeMask = ~0ULL; ///< GPU types the job may use (bit = ClusterSpec type index)
};

/// Parts of one job's placement: (machine, GPUs on it). Empty = not placed.
using Parts = std::vector<std::pair<int, int>>;

struct BatchPlacement {
    std::vector<Parts> parts; ///< per request, same order
    double reward = 0;        ///< sum over placed jobs of relative speed x GPUs
    std::string pass;         ///< which greedy ordering won
};

/// Batch local search for jobs of at most one machine's GPUs: split options per job ([g], and the 2-node
/// splits [a, g - a]); 4 greedy passes (by max - min reward, GPUs ascending, GPUs descending, max reward),
/// each preferring a machine with exactly the GPUs needed, else the smallest machine that fits, else the best
/// 2-node split; the pass with the highest total reward wins (ties: the earlier pass). `freeGpus` per machine.
BatchPlacement localSearchPlace(const std::vector<PlaceRequest>& reqs, const std::vector<int>& freeGpus,
                                const ClusterSpec& cluster, const SplitSpeed& speed);

/// Consolidation for a large job: the fewest machines within one switch, preferring a machine whose free
/// count matches the remainder exactly; across switches only when no single switch holds it. Empty = no fit.
Parts consolidatePlace(const PlaceRequest& req, const std::vector<int>& freeGpus, const ClusterSpec& cluster);

} // namespace ss::chronus
