#pragma once
// What one run is: everything that decides its results, so that a hash of it identifies the run in the
// store, in merges and in sweep resume. Two runs with the same identity give bit-identical results.
#include <cstdint>
#include <string>
#include <vector>

#include "policy/registry.h"
#include "sim/engine.h"

namespace ss {

/// The software version recorded with every run (CMake's project version).
const char* softwareVersion();

/// A machine event a run applies (scenario files' "events"): at `time` seconds, machine `machine` (by name,
/// or its index when the cluster's machines have no names) fails, is drained or is restored.
struct MachineEventSpec {
    double time = 0;
    std::string machine;
    MachineEventKind kind = MachineEventKind::Fail;
    bool operator==(const MachineEventSpec&) const = default;
};
/// "fail" / "drain" / "restore" -> kind; false for anything else.
bool parseMachineEventKind(const std::string& s, MachineEventKind& kind);
/// The machine an event names in `cluster` (by name, else a decimal index), -1 when none.
int resolveEventMachine(const ClusterSpec& cluster, const std::string& machine);

struct RunSpec {
    // --- what to run (set by the caller) ---
    std::string policy = "fifo+firstfit";
    PolicyOptions options;             ///< backfill, every --param, explicit checkpoint file
    RunConfig config;                  ///< seed, perf model, time limit, logging

    // --- the inputs' identity (filled by runSimulation / completeRunSpec from the inputs it is given) ---
    std::string traceName, traceFingerprint;
    std::string traceSource;           ///< where the trace came from (file, or "generated ..."); informational
    std::string clusterName, clusterFingerprint;
    std::string clusterSource;         ///< preset name or file; informational
    std::string throughputsFingerprint; ///< per-model speed table, "" when none
    std::string checkpointFile;        ///< the checkpoint a learned policy reads ("" = none), informational
    std::string checkpointHash;        ///< SHA-256 of that file's bytes ("" = none)
    std::string version = softwareVersion();
    /// A what-if fork: "parent=<parent run id hash>;decision=K;<change>" ("" = not a fork). Part of the
    /// identity only when set, so that a fork never shares its parent's key.
    std::string fork;
    std::vector<MachineEventSpec> machineEvents; ///< failures and drains during the run (identity when set)

    // --- where output goes (not part of the identity) ---
    std::string decisionLogPath;       ///< stream the decision log here (binary; JSON lines: io/decisionlogjson.h)
    bool keepDecisionLog = false;      ///< keep the log in memory (RunOutput::log)

    /// Canonical text of every field that decides results (one "key=value" line each, params sorted).
    std::string canonical() const;
    /// The run's identity: hex SHA-256 of canonical().
    std::string id() const;
};

/// Lower-case policy name as the registry resolves it (the identity uses it: "FIFO+FirstFit" = "fifo+firstfit").
std::string canonicalPolicyName(const std::string& name);

/// Fingerprint (hex) of a trace's jobs: every field any policy or the performance model reads.
std::string traceFingerprint(const Trace& trace);

/// Shipped checkpoint directory: $SCHEDSTUDIO_CHECKPOINTS, else resources/checkpoints next to or above the
/// executable, else the source tree's. "" when none is found.
std::string checkpointDirectory();
/// The shipped checkpoint file a learned policy `policy` would load on a cluster named `clusterName`
/// ("<policy>-<cluster>.sscp"), "" when there is none.
std::string shippedCheckpoint(const std::string& policy, const std::string& clusterName);

/// Fills the identity fields of `spec` from the inputs (fingerprints, checkpoint file and hash) and
/// canonicalises the policy name. Idempotent.
void completeRunSpec(RunSpec& spec, const ClusterSpec& cluster, const Trace& trace, const ThroughputTable* table);
/// The checkpoint part alone (file and hash), for a spec whose policy and clusterName are set.
void completeRunSpecCheckpoint(RunSpec& spec);

} // namespace ss
