// Placeholder until the learned module is dlopen'ed: core/learn is linked in and registers itself.
#include "policy/learnedmodule.h"

namespace ss {

const std::vector<std::string>& learnedModulePolicyNames()
{
    static const std::vector<std::string> names {"das", "da", "da+mc", "da+rwgp"};
    return names;
}

std::string ensureLearnedModuleLoaded() { return {}; }

} // namespace ss
