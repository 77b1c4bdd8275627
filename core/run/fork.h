#pragma once
// What-if forks: rerun a run from one of its decisions with one thing changed — the job placed at that
// decision, the queue order, the policy from there on, machines failed or drained at that time, or a burst
// of arrivals from then on — and compare the result with the parent (run/rundiff.h).
//
// A fork restores the parent's state just before decision K and applies the change just before the policy
// decides at K, then runs on. The state comes from the nearest checkpoint at or before K (run/checkpoint.h:
// engine snapshots kept while the parent ran or while an earlier fork of it replayed) and a few steps on; without
// one, or when the policy cannot clone itself (Scheduler::clone) or the change grows the cluster or the trace,
// the fork replays its parent deterministically from decision 1 (same inputs and seed give the same decisions).
// Either way decisions 1..K-1 of a fork equal the parent's, and a fork with no change equals its parent.
//
// A fork of a fork chains: its stages are its parent's (each change at its decision) and then its own at K,
// where K counts the parent fork's decisions from 1 as its stepper does. Those equal the grandparent's up to the
// parent's fork point, so K must be at or after that point (an earlier K is a fork of the grandparent).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "run/checkpoint.h"
#include "run/runner.h"

namespace ss {

/// A fork that cannot be made (a forced placement that does not fit, a job that is not pending at K, a
/// decision past the end of the run, an unknown machine): the message is one line; nothing is stored.
class ForkError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ForkChange {
    int placeJob = -1;                 ///< (a) job index (trace order) started at decision K ...
    std::vector<int> placeMachines;    ///< ... on these machines (GPUs taken in this order, free ones first)
    std::vector<int> queueFront;       ///< (a') job indices moved to the head of the queue at K, in this order
    std::string policy;                ///< (b) policy deciding from K on ("" = the parent's)
    PolicyOptions policyOptions;       ///<     its options
    std::vector<int> failMachines;     ///< (c) machines that fail at K (their jobs are requeued)
    std::vector<int> drainMachines;    ///< (c) machines drained at K (their jobs finish, nothing new starts)
    int addMachines = 0;               ///< (c) machines added at K, each a copy of machine `addLike` (named
    int addLike = 0;                   ///<     added-1, added-2, ...; down until K, so decisions before K see them busy)
    Trace burst;                       ///< (d) jobs arriving from K on: the first at the time of decision K,
                                       ///<     the others as far after it as in the burst file

    bool empty() const;
    /// One line naming every change, e.g. "place job 12 on m3,m4; policy sjf+bestfit; fail m7".
    std::string describe(const ClusterSpec& cluster, const Trace& trace) const;
};

/// One change at its decision. A fork of a fork has several: its ancestors', then its own.
struct ForkStage {
    uint64_t atDecision = 1;
    ForkChange change;
};

struct ForkRequest {
    uint64_t atDecision = 1;           ///< K, counted from 1 as in the stepper of the run forked
    ForkChange change;
    int64_t parentRunId = 0;           ///< the parent's store id (0 = not stored)
    /// The run forked is itself a fork: its stages, oldest first (runFork's `parent` is then the root run's
    /// spec, and its cluster and trace are the root's). K must be >= the last of their decisions.
    std::vector<ForkStage> chain;
    std::string parentId;              ///< identity of the parent fork (its RunSpec::id()); "" = the root's
    /// Every stage: the chain, then this change at K.
    std::vector<ForkStage> stages() const;
};

/// How runFork made the fork (bench-fork, the studio's status line).
struct ForkHow {
    bool restored = false;             ///< from a checkpoint; else replayed from decision 1
    uint64_t fromDecision = 0;         ///< the checkpoint's decision count (restored)
    std::string why;                   ///< why it replayed, one line
};

/// Parses ForkChange::describe()'s text back (a stored fork's change, to fork that fork): job ids in
/// `engineOrdered`, machine names (or "machine N") in `cluster`. A burst cannot be read back (its jobs are not in
/// the text): ForkError, as for any text it does not understand.
ForkChange parseForkChange(const std::string& text, const ClusterSpec& cluster, const Trace& engineOrdered);
/// Appends `count` copies of machine `like` named added-1, added-2, ... (skipping names in use) and finalizes;
/// returns their indices. The world of a fork that adds machines (runFork) is grown this way.
std::vector<int> addMachinesLike(ClusterSpec& cluster, int count, int like);

/// Identity of a run path, the root spec and the stages applied on it (CheckpointSet::path).
std::string forkPathKey(const RunSpec& root, const std::vector<ForkStage>& stages);
/// A compact, exact text of a change (indices, not names): part of forkPathKey.
std::string forkChangeKey(const ForkChange& change);

/// The trace in the order the engine indexes it (runSimulation sorts a copy only when submit times are out
/// of order): job indices in a ForkChange and in decision logs refer to this order.
Trace engineTrace(const Trace& trace);
/// Index (engine order) of the job with trace id `id`, -1 when none.
int jobIndexById(const Trace& engineOrdered, int64_t id);

/// The time of decision K (counted from 1) of `spec` on these inputs, by replaying up to it. Throws
/// ForkError when the run has fewer decisions.
double decisionTime(const ClusterSpec& cluster, const Trace& trace, const RunSpec& spec, uint64_t k,
                    const ThroughputTable* table = nullptr);

/// `trace` (engine order) plus `burst` shifted so its first job arrives at t0, merged by submit time with the
/// trace's jobs first on equal times; burst jobs get ids after the trace's largest.
Trace withBurst(const Trace& trace, const Trace& burst, double t0);

/// Runs the fork of the run `parent` (its complete spec, as stored) on the parent's cluster and trace.
/// The result's spec carries the fork (RunSpec::fork), parentRunId, forkDecision and forkChange are set.
/// `checkpoints`: kept by the caller across forks of one run. A fork restores from it when it holds checkpoints of
/// the run forked (its path is forkPathKey(parent, req.chain)); a fork that replays refills it with checkpoints of
/// that run up to K (resetting it when it was another run's). Throws ForkError (see above),
/// std::invalid_argument for an unknown policy.
RunOutput runFork(const ClusterSpec& cluster, const Trace& trace, const RunSpec& parent, const ForkRequest& req,
                  const ThroughputTable* table = nullptr, bool keepLog = false,
                  const std::function<bool(double)>& progress = {}, CheckpointSet* checkpoints = nullptr,
                  ForkHow* how = nullptr);

/// Runs `spec` to the end on the set's cluster and trace, taking checkpoints into `set` (made its path:
/// forkPathKey(spec, {})), so that forks of it restore (bench-fork, tests). The log, when kept, goes to the set.
RunOutput runWithCheckpoints(const RunSpec& spec, CheckpointSet& set, const ThroughputTable* table = nullptr,
                             const std::function<bool(double)>& progress = {});

/// The GPUs `job` would get on `machines` now (free whole GPUs in machine order; a fractional job takes
/// the first GPU with room). Empty with `why` set when they do not fit.
std::vector<GpuSlot> slotsOnMachines(const Simulator& sim, const ClusterSpec& cluster, const Job& job,
                                     const std::vector<int>& machines, std::string& why);

} // namespace ss
