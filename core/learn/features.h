#pragma once
// Observations and rewards of the DAS agents (ALGORITHMS §2.5-2.7), plain C++ over the engine's
// SchedContext. Feature sizes are part of the checkpoint format: change them and bump kFeatureVersion.
#include <cstdint>
#include <vector>

#include "sim/engine.h"

namespace ss::learn {

constexpr int kJobFeatures = 10;     ///< per queued job (ordering agent)
constexpr int kMachineFeatures = 8;  ///< per machine for the job being placed (placement agent)
constexpr int kGlobalFeatures = 12;  ///< cluster + queue summary (centralised critic)
constexpr int kPlaceInput = kMachineFeatures + kJobFeatures + 2; ///< + GP posterior mean and sd
constexpr int kFeatureVersion = 3; ///< 2: linear skip paths in both actors; 3: the RWGP mean input in speed units

/// GPU types a job may use, as a bit mask over ClusterSpec::types.
uint64_t allowedTypes(const SchedContext& ctx, int job);
/// Whether GPU type index `type` is in `mask` (types past the mask's 64 bits are always allowed).
bool typeAllowed(uint64_t mask, int type);
/// Whole GPUs of allowed types free now (fractional jobs: 1 when some GPU has the share free, else 0).
int freeForJob(const SchedContext& ctx, int job);
/// Whether the job could be placed right now on some set of free GPUs.
bool canFitNow(const SchedContext& ctx, int job);

/// Appends kJobFeatures floats for `job` at queue position pos of n.
void jobFeatures(const SchedContext& ctx, int job, int pos, int n, float* out);
/// Fills kMachineFeatures floats for every machine (row-major M x kMachineFeatures) for placing `job`.
void machineFeatures(const SchedContext& ctx, int job, float* out);
/// kGlobalFeatures floats describing the queue and the cluster.
void globalFeatures(const SchedContext& ctx, const std::vector<int>& queue, float* out);

/// Greedy walk of `order` (best machine first) collecting GPUs for `job`; empty when it does not fit.
/// Whole-GPU jobs take free GPUs machine by machine; fractional jobs take the first GPU with the share free.
std::vector<GpuSlot> collectSlots(const SchedContext& ctx, int job, const std::vector<int>& machineOrder);

/// Fewest machines a whole-GPU job's demand can fit on: ceil(GPUs / GPUs of the biggest machine of an allowed
/// type). 1 for fractional jobs.
int minMachinesFor(const SchedContext& ctx, int job);
/// Distinct machines a placement spans.
int machinesSpanned(const ClusterSpec& cluster, const std::vector<GpuSlot>& slots);
/// The fallback walk for a compact placement of whole-GPU `job`: the machines of `order` (with `minSpeed`, only
/// those whose type is at least that fast), those whose free GPUs cover the demand (or all of the machine)
/// first, then the rest by free GPUs, most first; `order` breaks ties.
std::vector<int> consolidatingOrder(const SchedContext& ctx, int job, const std::vector<int>& order,
                                    double minSpeed = 0);
/// Relative speed of machine m's GPU type (1 when the perf model ignores types).
double machineSpeed(const SchedContext& ctx, int m);
/// Predicted wall seconds `job` would run on `slots`: its remaining work over the slowest GPU's speed, slowed by
/// the perf model's documented cross-machine, cross-switch and co-runner overheads (no hidden noise).
double predictedRunSeconds(const SchedContext& ctx, int job, const std::vector<GpuSlot>& slots);
/// The same for a placement of the given shape: slowest GPU speed, machines, switches, co-runners.
double predictedRunSeconds(const SchedContext& ctx, int job, double speed, int machines, int switches = 1,
                           int coRunners = 0);
/// Earliest time at which machines of speed >= minSpeed, emptied of their running jobs at those jobs' predicted
/// ends (no new arrivals), would hold whole-GPU `job` on the fewest machines; infinity when they never could.
double wholeMachinesFreeAt(const SchedContext& ctx, int job, double minSpeed);

/// Normalised observed performance of a started job: realised rate over the rate predicted from the
/// cluster spec (type speed) and the perf model's documented overhead knobs, without the hidden noise.
double normalisedPerformance(const SchedContext& ctx, int job, const std::vector<GpuSlot>& slots, double rate,
                             int coRunners);

/// Positive reward term of a placed job (§2.7): 1 / (r_fee * r_jct), both ratios >= 1 against the job alone
/// on the fastest (JCT) and cheapest (fee) feasible GPU type; JCT predicted as waited + work / rate.
double placedReward(const SchedContext& ctx, int job, const std::vector<GpuSlot>& slots, double rate);

} // namespace ss::learn
