#pragma once
// What the studio shows of an accelerator-mode run (docs/ACCELERATOR.md §8): besides the simulator's result,
// every scheduling cycle as the scheduler saw it (ready layers, sub-accelerator states, bandwidth demand) with
// its full score matrix (ready x sub-accelerator) and its answer. The decision log keeps only the scores of
// the layers that started; the studio's heatmap shows every pair, so a wrapper records them.
#include <cstddef>
#include <string>
#include <vector>

#include "sim/accel/accelmetrics.h"
#include "sim/accel/accelsched.h"
#include "sim/accel/accelsim.h"

namespace ss::accel {

struct CycleRecord {
    double now = 0;
    std::vector<ReadyLayer> ready;
    std::vector<SubState> subs;
    double demand = 0, budget = 0;  ///< bytes/us, before this cycle's assignments
    std::vector<float> scores;      ///< ready.size() x subs.size(), row-major; empty when the scheduler gives none
    std::vector<Assignment> assignments;
};

/// Wraps a scheduler and records each cycle it decides (the first `maxCycles`; the rest are counted).
class RecordingScheduler : public AccelScheduler {
public:
    RecordingScheduler(AccelScheduler& inner, size_t maxCycles) : m_inner(inner), m_max(maxCycles) {}
    std::string name() const override { return m_inner.name(); }
    void reset(uint64_t seed) override;
    void schedule(const CycleView& view, std::vector<Assignment>& out, std::vector<float>* scores) override;

    std::vector<CycleRecord> cycles;
    size_t total = 0; ///< cycles decided, recorded or not

private:
    AccelScheduler& m_inner;
    size_t m_max;
    std::vector<float> m_scores;
};

struct StudioRun {
    std::string policy;
    SimResult result;          ///< with the timeline
    AccelMetrics metrics;
    std::vector<CycleRecord> cycles;
    size_t cyclesTotal = 0;    ///< > cycles.size() when the record was capped
};

/// Runs `sched` on `w` keeping the timeline and up to `maxCycles` cycles (policy/relmas/accelpolicies.h has
/// the by-name form).
StudioRun runForStudio(const Workload& w, const CostTable& cost, AccelScheduler& sched, SimConfig cfg,
                       size_t maxCycles = 200000);

/// Bandwidth the layers running at time t ask for (bytes/us), from a run's timeline.
double demandAt(const Workload& w, const CostTable& cost, const std::vector<LayerRun>& timeline, double t);

/// Index of the last cycle at or before t (-1 when none).
int cycleAt(const std::vector<CycleRecord>& cycles, double t);

/// One paragraph that walks a cycle for teaching mode: what was ready, what the scheduler chose and why
/// (score, dataflow, slack), and what the shared bandwidth does to the running layers.
std::string explainCycle(const Workload& w, const CostTable& cost, const CycleRecord& c, const std::string& policy,
                         int cycleNumber);

} // namespace ss::accel
