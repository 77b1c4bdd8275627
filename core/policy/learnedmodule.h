#pragma once
// The learned-policy module, loaded on first use of a learned policy (core/learn).
#include <string>
#include <vector>

namespace ss {
/// Policy names the learned module provides, known without loading it.
const std::vector<std::string>& learnedModulePolicyNames();
/// Loads the learned-policy module once (thread-safe). Returns "" on success, else a one-line error naming the module file.
std::string ensureLearnedModuleLoaded();
}
