#pragma once
// Placement policies: which GPUs a job gets once the ordering has picked it. All of them respect the job's
// allowed GPU types (JobRuntime::typeMask) and fractional demands (a share of one GPU), and span machines
// only when no single machine can hold the job.
#include <string>
#include <vector>

#include "sim/engine.h"

namespace ss {

enum class PlacementKind { FirstFit, BestFit, LoadBalance, Consolidate, Random };

const char* toString(PlacementKind k);
/// Names as used in "ORDERING+PLACEMENT" (firstfit, bestfit, ...).
std::vector<std::string> placementKindNames();
/// Throws std::invalid_argument for an unknown name.
PlacementKind placementKindFromName(const std::string& name);

/// Whether the cluster has, right now, the capacity the job needs anywhere (count check: whole GPUs of an
/// allowed type, or one GPU with the share free). Every placement succeeds exactly when this is true.
bool canPlaceNow(const SchedContext& ctx, int job);

/// Chooses GPUs for `job` on the current occupancy; false (and `out` empty) when it does not fit.
/// O(log M) per machine used for FirstFit; the others may look at every machine with free capacity.
bool choosePlacement(SchedContext& ctx, int job, PlacementKind kind, std::vector<GpuSlot>& out);

/// One affinity score per machine (machine id order) explaining the choice: higher = preferred; machines
/// that cannot take any part of the job get -1. Only computed when the decision is being recorded.
std::vector<float> placementAffinity(const SchedContext& ctx, int job, PlacementKind kind);

/// Places `job` (recording the attempt when recording) and starts it. Returns false when it does not fit.
bool placeAndStart(SchedContext& ctx, int job, PlacementKind kind, const char* reason);

} // namespace ss
