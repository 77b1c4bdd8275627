#pragma once
// The DAS checkpoint file format (no LibTorch here: the module fills and reads the tensor bytes).
#include <cstdint>
#include <string>

namespace ss::learn {

/// Architecture and variant; stored in the checkpoint and checked on load.
struct AgentConfig {
    std::string variant = "das"; ///< das | da | da+mc | da+rwgp
    int dModel = 32;
    int heads = 4;
    int layers = 1;
    int tau = 64;
    int maxQueue = 128;
    /// RWGP kernel the agent was trained with: "similarity" or "seed" (rwgp.h RwgpKernel). Written only when it is
    /// "seed", so checkpoints trained with the default read and write as before; a run uses it unless
    /// `--param das.rwgp` says otherwise.
    std::string rwgpKernel = "similarity";
    /// Centralised critic: "v" (state value V(s) with GAE, the default) or "q" (the seed's Q_phi(O^j, O^c, a^j, A^c)
    /// trained by TD against a target network; trainer.cpp). Written only when it is "q", so older checkpoints
    /// read as "v"; a run that demands a kind (`--param das.critic`) refuses a checkpoint of the other.
    std::string critic = "v";
    bool qCritic() const { return critic == "q"; }
    bool mc() const { return variant == "das" || variant == "da+mc"; }
    bool rwgp() const { return variant == "das" || variant == "da+rwgp"; }
};

/// Metadata written into a checkpoint's JSON header.
struct CheckpointMeta {
    AgentConfig agent;
    std::string clusterName, clusterFingerprint;
    int machines = 0;
    uint64_t seed = 0;
    int iterations = 0;
    int64_t envSteps = 0;
    std::string trainTrace;
    std::string command;
};

constexpr uint32_t kCheckpointVersion = 1;

/// Writes magic + version + JSON header + tensor bytes + checksum to a temporary file and renames it over
/// `path`, so an interrupted save never leaves half a checkpoint. Throws std::runtime_error on I/O failure.
void writeCheckpointFile(const std::string& path, const CheckpointMeta& meta, const std::string& tensors);

struct CheckpointFile {
    CheckpointMeta meta;
    std::string tensors; ///< the tensor archive's bytes (empty unless asked for)
};
/// Reads and checks a checkpoint (magic, version, checksum, header fields, feature sizes). Throws
/// std::runtime_error with one line "FILE: reason" on any problem.
CheckpointFile readCheckpointFile(const std::string& path, bool withTensors);

} // namespace ss::learn
