#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "learn/learn.h"
#include "learn/policies.h"
#include "policy/learnedmodule.h"

namespace ss::learn {

namespace fs = std::filesystem;

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

std::string checkpointDirectory()
{
    std::error_code ec;
    if (const char* env = std::getenv("SCHEDSTUDIO_CHECKPOINTS"); env && *env && fs::is_directory(env, ec))
        return env;
    // Next to or above the executable (build tree: build/app/cli/schedstudio-cli; install: share/...).
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
            for (const char* sub : {"resources/checkpoints", "share/schedstudio/checkpoints", "checkpoints"}) {
                fs::path c = p / sub;
                if (fs::is_directory(c, ec))
                    return c.string();
            }
        }
    }
#ifdef SS_SOURCE_DIR
    {
        fs::path c = fs::path(SS_SOURCE_DIR) / "resources" / "checkpoints";
        if (fs::is_directory(c, ec))
            return c.string();
    }
#endif
    return {};
}

std::string shippedCheckpoint(const std::string& variant, const std::string& clusterName)
{
    const std::string dir = checkpointDirectory();
    if (dir.empty())
        return {};
    std::error_code ec;
    fs::path p = fs::path(dir) / (variant + "-" + clusterName + ".sscp");
    return fs::is_regular_file(p, ec) ? p.string() : std::string();
}

} // namespace ss::learn
