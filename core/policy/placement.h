#pragma once
// Placement helpers shared by every driver. The placements themselves are Placement implementations, one
// file each (firstfit.cpp, bestfit.cpp, ...); all of them respect the job's allowed GPU types
// (JobRuntime::typeMask) and fractional demands (a share of one GPU), and span machines only when no single
// machine can hold the job. Helpers for writing one are in placementutil.h.
#include <string>
#include <vector>

#include "policy/stages.h"

namespace ss {

/// Whether the cluster has, right now, the capacity the job needs anywhere (count check: whole GPUs of an
/// allowed type, or one GPU with the share free). Every built-in placement succeeds exactly when this is true.
bool canPlaceNow(const SchedContext& ctx, int job);

/// Places `job` (recording the attempt and the placement's scores when recording) and starts it with
/// `reason`. Returns false when it does not fit.
bool placeAndStart(SchedContext& ctx, int job, Placement& placement, const char* reason);

/// Records why `job` waits: the placement's scores for it now, no GPUs. Only call when ctx.recording() and
/// the job does not fit (a placement that fails draws no random number, so the run is unchanged).
void explainPlacement(SchedContext& ctx, int job, Placement& placement, const std::string& reason);

} // namespace ss
