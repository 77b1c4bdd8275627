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
    std::string rwgpKernel = "similarity"; ///< the RWGP kernel it was trained with (similarity or seed)
    std::string critic = "v"; ///< its critic: v (state value, GAE) or q (the seed's Q-critic, TD with a target net)
    int formatVersion = 0, iterations = 0, dModel = 0, heads = 0, layers = 0, tau = 0;
    long long envSteps = 0;
    unsigned long long seed = 0;
};
/// Reads and fully validates a checkpoint (header, checksum, every tensor's shape; loads the LibTorch module). Throws
/// std::runtime_error with a one-line "FILE: reason" when it is corrupt, truncated or from another build.
CheckpointInfo readCheckpointInfo(const std::string& path);

/// Every learned and search policy name (the LibTorch module's and the plain ones).
std::vector<std::string> learnedPolicyNames();

/// The shipped checkpoints: ss::checkpointDirectory() and ss::shippedCheckpoint() in run/runspec.h (the run
/// identity hashes the file a learned policy will read).

} // namespace ss::learn
