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
    const std::atomic<bool>* cancel = nullptr; ///< set from any thread to cancel
    bool stopOnError = false;  ///< stop at the first failed run (its error still reaches onError)
};

struct ExecReport {
    size_t planned = 0, skipped = 0, ran = 0, failed = 0;
    bool cancelled = false;    ///< stopped by cancel or progress; the run in progress is not delivered
};

ExecReport executePlan(const ExperimentPlan& plan, const ExecOptions& opts = {});

} // namespace ss
