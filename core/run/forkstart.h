#pragma once
// Starting a run from a cluster's state instead of an empty cluster: jobs already running on given machines
// with some work left, and jobs already queued (`run --start-state FILE`; the file format and its reader are
// io/startstateio.h, docs/FORMATS.md "Start state"), or the state a published trace records at a time
// (`run --start-at T`, startStateAt below): both are the one StartState and run through runFromStartState.
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
    std::vector<int> machines;      ///< running: the machines it holds GPUs on (GPUs taken in this order);
                                    ///< empty (only from a trace that names no machines): placed first-fit
    std::string model;
    long line = 0;                  ///< where the file gave it (for errors; 0 = taken from a trace)
    /// Taken from the run's own trace (startStateAt): the job's index there. It keeps that job's other fields
    /// (GPU-type constraint, QoS, user, CPU, memory, deadlines, model); -1 for a state file's job.
    int32_t traceIndex = -1;
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
/// count goes to `dropped`). Throws std::invalid_argument when a state job's id is also a later trace job's
/// (a job taken from `trace` itself, StartStateJob::traceIndex, is simply not added twice).
Trace traceWithStartState(const Trace& trace, const StartState& state, int* dropped = nullptr);

/// The state `trace` records at `time` (trace clock; `run --start-at T`): jobs that had started and not ended
/// (started <= time < started + duration) run on the machines the trace names (none named: placed first-fit at
/// `time`, in the order they started) with started + duration - time left; jobs submitted by `time` and not yet
/// started are queued; jobs ended by then are left out. Running jobs come first (by start), then queued ones
/// (by submit). Throws std::invalid_argument, one line naming `source`: a trace without start times (Philly:
/// submit times and durations only; use a state file or `fork`), a job submitted by `time` whose start is not
/// recorded (field 'start'), a machine not in `cluster` (field 'machines').
StartState startStateAt(const Trace& trace, const ClusterSpec& cluster, double time, const std::string& source);

/// Runs `spec` from `state`: at the first decision (time state.time) every running job of the state starts on
/// its machines before the policy decides; the queued ones wait for the policy. Under an ideal performance
/// model on reference-speed GPUs a running job finishes at time + work. The result's spec records the state's
/// fingerprint (RunSpec::fork = "start-state=..."). Throws std::invalid_argument naming the file and line of
/// a job whose machines have no room for it.
RunOutput runFromStartState(const ClusterSpec& cluster, const Trace& trace, const StartState& state, RunSpec spec,
                            const ThroughputTable* table = nullptr, const std::function<bool(double)>& progress = {});

} // namespace ss
