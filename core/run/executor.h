#pragma once
// The one executor: runs an ExperimentPlan (on one or more threads) with progress, resume and
// cancellation, handing each result back in plan order. The GUI, `run`, `compare`, `sweep` and
// `reproduce` all run through it.
#include <atomic>
#include <functional>
#include <string>

#include "run/plan.h"
#include "run/runner.h"

namespace ss {

/// How far the run in progress has come (single-threaded execution), for a progress line that moves even while
/// no job finishes: "gavel-las seed 1 · simulated 3.2 d · 1,204 / 82,247 jobs done · 40,118 arrived".
struct LiveRun {
    size_t index = 0;          ///< position in the plan
    std::string policy;
    uint64_t seed = 0;
    double simTime = 0;        ///< seconds, the last arrival or end seen
    int arrived = 0, ended = 0, jobs = 0; ///< ended: finished or rejected
    /// (arrived + ended) / (2 jobs): it moves as the arrivals are read, unlike ended / jobs alone, which
    /// stays at 0 while an overloaded cluster works through its first jobs.
    double fraction() const { return jobs > 0 ? 0.5 * double(arrived + ended) / double(jobs) : 0.0; }
};

struct ExecOptions {
    int threads = 1;  ///< runs simulated at once (each run is single-threaded and deterministic)
    /// Resume: return true for a run that is already done (e.g. its id is in the store); it is skipped.
    std::function<bool(const PlannedRun&)> skip;
    /// Each finished run, in plan order, on the calling thread. May take the output (move from it).
    std::function<void(size_t index, RunOutput& out)> onResult;
    /// A run that threw (unknown policy, policy error, ...), in plan order, on the calling thread.
    std::function<void(size_t index, const std::string& error)> onError;
    /// Progress on the calling thread: runs done (skipped included), runs in the plan, and the fraction of
    /// the run in progress (single-threaded only; 0 otherwise). Return false to cancel.
    std::function<bool(size_t done, size_t total, double current)> progress;
    /// With `progress`, single-threaded: the run in progress as it goes (then `current` is LiveRun::fraction()).
    std::function<void(const LiveRun&)> live;
    const std::atomic<bool>* cancel = nullptr; ///< set from any thread to cancel
    bool stopOnError = false;  ///< stop at the first failed run (its error still reaches onError)
};

struct ExecReport {
    size_t planned = 0, skipped = 0, ran = 0, failed = 0;
    bool cancelled = false;    ///< stopped by cancel or progress; the run in progress is not delivered
};

ExecReport executePlan(const ExperimentPlan& plan, const ExecOptions& opts = {});

} // namespace ss
