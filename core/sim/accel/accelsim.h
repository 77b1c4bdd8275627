#pragma once
// The accelerator mode's simulator (docs/ACCELERATOR.md §3). A focused event loop, not the GPU engine: a layer's
// progress rate changes whenever any layer starts or finishes (proportional bandwidth slowdown), which the GPU
// engine's fixed-duration completions cannot express. It reuses the decision-log records (sim/decisionlog.h):
// a decision per cycle, the ready requests as the queue and one placement per started layer with the
// scheduler's per-sub-accelerator scores as the affinity.
#include <cstdint>
#include <memory>
#include <vector>

#include "model/accel/accelmodel.h"
#include "perf/accel/layercost.h"
#include "sim/accel/accelsched.h"
#include "sim/decisionlog.h"

namespace ss::accel {

struct SimConfig {
    double period = 20;        ///< T_s, us
    bool onIdle = false;       ///< also decide as soon as a sub-accelerator goes idle [I]
    bool keepTimeline = true;  ///< keep one LayerRun per executed layer
    bool keepLog = false;      ///< keep a DecisionLog
    uint64_t seed = 1;
};

struct LayerRun {
    int request = 0, layer = 0, sub = 0;
    double start = 0, end = 0;
    double energyPj = 0;       ///< dynamic + static over the actual duration
};

struct RequestOutcome {
    double finish = -1;        ///< us; -1 when never finished
    bool met = false;          ///< finish <= deadline
};

struct SimResult {
    std::vector<RequestOutcome> requests;
    std::vector<LayerRun> timeline;       ///< empty unless keepTimeline
    std::vector<double> subBusy;          ///< busy us per sub-accelerator
    double makespan = 0;                  ///< last finish, us
    double energyPj = 0;                  ///< sum of every layer's energy
    double saturatedUs = 0;               ///< time with demand > B_sys
    uint64_t decisions = 0, layersRun = 0;
    double decideWallUs = 0, decideWallMaxUs = 0; ///< scheduler wall time (overhead), total and worst
    std::shared_ptr<DecisionLog> log;     ///< when keepLog
};

/// Runs `w` (requests sorted by arrival, deadlines set) under `sched`. Throws std::logic_error if the
/// scheduler assigns a busy sub-accelerator, a layer twice, or an index out of range.
SimResult simulate(const Workload& w, const CostTable& cost, AccelScheduler& sched, const SimConfig& cfg);

/// Sets every request's deadline = arrival + qos(tenant) x isolated latency of its network (when <= 0) and
/// sorts by arrival, renumbering ids 0..n-1.
void finalizeRequests(Workload& w, const CostTable& cost);

} // namespace ss::accel
