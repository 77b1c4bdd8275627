#include <stdexcept>

#include "learn/learn.h"
#include "learn/policies.h"
#include "policy/learnedmodule.h"

namespace ss::learn {

std::vector<std::string> learnedPolicyNames()
{
    return {"das", "da", "da+mc", "da+rwgp", "dl2", "rifling", "malo", "mosa"};
}

namespace {

// dl2, rifling, malo and mosa need no LibTorch: they are part of schedcore and register when it loads. The DAS
// variants (learnedModulePolicyNames) register when the LibTorch module loads, on their first use.
const bool g_registered = [] {
    registerSchedulers({"dl2", "rifling", "malo", "mosa"}, [](const std::string& name, const PolicyOptions& opts)
                                                              -> std::unique_ptr<Scheduler> {
        if (name == "dl2")
            return makeDl2Policy(opts);
        if (name == "rifling")
            return makeRiflingPolicy(opts);
        if (name == "malo" || name == "mosa")
            return makeMetaheuristicPolicy(name, opts);
        return nullptr;
    });
    return true;
}();

} // namespace

void registerLearnedPolicies()
{
    (void)g_registered;
    if (const std::string err = ensureLearnedModuleLoaded(); !err.empty())
        throw std::runtime_error(err);
}

} // namespace ss::learn
