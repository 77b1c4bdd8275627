#pragma once
// Learned and search-based policies (DAS and its ablations, DL2, RIFLING, MALO, MOSA). Plain C++: the
// LibTorch parts live in a module loaded on first use (moduleapi.h), so Qt code may include this header and
// nothing that includes it maps LibTorch.
#include <string>
#include <vector>

namespace ss::learn {

/// Not needed any more: "dl2", "rifling", "malo" and "mosa" are registered with the rest of the core, and "das",
/// "da", "da+mc", "da+rwgp" are listed without loading LibTorch and registered when the LibTorch module
/// (libschedstudio-learn.so, core/policy/learnedmodule.h) loads on their first use. This loads the module now;
/// throws std::runtime_error with the one-line load error. Idempotent.
void registerLearnedPolicies();

/// What a checkpoint file says about itself.
struct CheckpointInfo {
    std::string policy, clusterName, clusterFingerprint, trainTrace, command;
    int formatVersion = 0, iterations = 0, dModel = 0, heads = 0, layers = 0, tau = 0;
    long long envSteps = 0;
    unsigned long long seed = 0;
};
/// Reads and fully validates a checkpoint (header, checksum, every tensor's shape; loads the LibTorch module). Throws
/// std::runtime_error with a one-line "FILE: reason" when it is corrupt, truncated or from another build.
CheckpointInfo readCheckpointInfo(const std::string& path);

/// Every learned and search policy name (the LibTorch module's and the plain ones).
std::vector<std::string> learnedPolicyNames();

/// Directory holding the shipped checkpoints: $SCHEDSTUDIO_CHECKPOINTS, else resources/checkpoints next to
/// or above the executable, else SS_SOURCE_DIR's. Empty when none is found.
std::string checkpointDirectory();
/// Shipped checkpoint for a DAS variant on a cluster (file "<variant>-<cluster>.sscp"), "" when none.
std::string shippedCheckpoint(const std::string& variant, const std::string& clusterName);

} // namespace ss::learn
