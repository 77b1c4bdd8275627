#pragma once
// Learned and search-based policies (DAS and its ablations, DL2, RIFLING, MALO, MOSA). Plain C++: the
// LibTorch parts live behind this header, so Qt code may include it.
#include <string>
#include <vector>

namespace ss::learn {

/// Adds "das", "da", "da+mc", "da+rwgp", "dl2", "rifling", "malo", "mosa" to the scheduler registry
/// (ss::registerSchedulers). Idempotent; call once at start-up before listing or creating policies.
void registerLearnedPolicies();

/// What a checkpoint file says about itself.
struct CheckpointInfo {
    std::string policy, clusterName, clusterFingerprint, trainTrace, command;
    int formatVersion = 0, iterations = 0, dModel = 0, heads = 0, layers = 0, tau = 0;
    long long envSteps = 0;
    unsigned long long seed = 0;
};
/// Reads and fully validates a checkpoint (header, checksum, every tensor's shape). Throws
/// std::runtime_error with a one-line "FILE: reason" when it is corrupt, truncated or from another build.
CheckpointInfo readCheckpointInfo(const std::string& path);

/// The policy names registerLearnedPolicies() adds.
std::vector<std::string> learnedPolicyNames();

/// Directory holding the shipped checkpoints: $SCHEDSTUDIO_CHECKPOINTS, else resources/checkpoints next to
/// or above the executable, else SS_SOURCE_DIR's. Empty when none is found.
std::string checkpointDirectory();
/// Shipped checkpoint for a DAS variant on a cluster (file "<variant>-<cluster>.sscp"), "" when none.
std::string shippedCheckpoint(const std::string& variant, const std::string& clusterName);

} // namespace ss::learn
