#pragma once
// Starting a run from a cluster's state instead of an empty cluster: jobs already running on given machines
// with some work left, and jobs already queued (`run --start-state FILE`; the file format and its reader are
// io/startstateio.h, docs/FORMATS.md "Start state").
#include <cstdint>
#include <string>
#include <vector>

#include "run/runner.h"

namespace ss {

struct StartStateJob {
    int64_t id = 0;
    bool running = false;
    double gpus = 1;                ///< demand, as a trace's (whole >= 1, or a fraction of one GPU)
    double work = 0;                ///< reference-GPU seconds left (running) or in all (queued)
    std::vector<int> machines;      ///< running: the machines it holds GPUs on (GPUs taken in this order)
    std::string model;
    long line = 0;                  ///< where the file gave it (for errors)
};

struct StartState {
    double time = 0;                ///< the state's clock (seconds, the trace's clock)
    std::vector<StartStateJob> jobs;
    std::string source;             ///< the file it was read from
    /// Hex fingerprint of everything that decides a run (part of the run's identity).
    std::string fingerprint() const;
};

/// The trace a run from `state` uses: the state's jobs first (all submitted at state.time, in file order),
/// then `trace`'s jobs submitted at or after state.time (earlier ones are what the state describes; their
/// count goes to `dropped`). Throws std::invalid_argument when a state job's id is also a later trace job's.
Trace traceWithStartState(const Trace& trace, const StartState& state, int* dropped = nullptr);

/// Runs `spec` from `state`: at the first decision (time state.time) every running job of the state starts on
/// its machines before the policy decides; the queued ones wait for the policy. Under an ideal performance
/// model on reference-speed GPUs a running job finishes at time + work. The result's spec records the state's
/// fingerprint (RunSpec::fork = "start-state=..."). Throws std::invalid_argument naming the file and line of
/// a job whose machines have no room for it.
RunOutput runFromStartState(const ClusterSpec& cluster, const Trace& trace, const StartState& state, RunSpec spec,
                            const ThroughputTable* table = nullptr, const std::function<bool(double)>& progress = {});

} // namespace ss
