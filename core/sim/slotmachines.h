#pragma once
// The machines of a placement, for the engine's own files (not part of the core's interface).
#include <vector>

#include "model/clusterspec.h"
#include "sim/clusterstate.h"

namespace ss {

/// Calls f(m) for each machine of a placement's slots, once per run of slots on one machine (slots are grouped
/// by machine).
template <class F> void forEachMachine(const ClusterSpec& cluster, const std::vector<GpuSlot>& slots, F f)
{
    int last = -1;
    for (const GpuSlot& g : slots) {
        const int m = cluster.machineOfGpu(g.gpu);
        if (m == last)
            continue;
        last = m;
        f(m);
    }
}

} // namespace ss
