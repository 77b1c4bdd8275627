#pragma once
// What an accelerator-mode scheduler sees at a scheduling cycle and what it answers (docs/ACCELERATOR.md §3).
// Every T_s the simulator lists the ready layers (the next layer of each arrived, unfinished request that is
// not running) and the sub-accelerators; the scheduler assigns ready layers to idle sub-accelerators.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/accel/accelmodel.h"
#include "perf/accel/layercost.h"

namespace ss::accel {

struct ReadyLayer {
    int request = 0, tenant = 0, network = 0, layer = 0;
    int layersLeft = 0;        ///< this layer included
    double arrival = 0, deadline = 0;
    double remainingBest = 0;  ///< sum of min_s c over the layers left (this one included), us
    double slack = 0;          ///< deadline - now - remainingBest
};

struct SubState {
    bool busy = false;
    int request = -1, layer = -1;
    double remaining = 0;      ///< isolated-latency microseconds left of the running layer
    double bandwidth = 0;      ///< b of the running layer
};

struct CycleView {
    double now = 0;
    const Workload* workload = nullptr;
    const CostTable* cost = nullptr;
    std::vector<ReadyLayer> ready;  ///< in arrival order of their requests
    std::vector<SubState> subs;
    double demand = 0;              ///< sum of b of the running layers
    double budget = 0;              ///< B_sys
    const LayerCost& costOf(const ReadyLayer& r, int sub) const { return cost->at(r.network, r.layer, sub); }
};

struct Assignment {
    int ready = 0; ///< index into CycleView::ready
    int sub = 0;
};

class AccelScheduler {
public:
    virtual ~AccelScheduler() = default;
    virtual std::string name() const = 0;
    /// Called once before a run.
    virtual void reset(uint64_t seed) { (void)seed; }
    /// Appends assignments of ready layers to idle sub-accelerators (each used once). `scores`, when not null,
    /// receives one score per (ready, sub) pair, row-major, for the decision log's affinity (optional).
    virtual void schedule(const CycleView& view, std::vector<Assignment>& out, std::vector<float>* scores) = 0;
};

} // namespace ss::accel
