// Loads the learned-policy module (libschedstudio-learn.so, core/learn) with dlopen on first use, so that a process
// that runs only heuristics never maps LibTorch (nor what Debian's LibTorch pulls in: OpenCV, Qt5, ...).
//
// Where: $SCHEDSTUDIO_LEARN_MODULE when set (and then only there), else next to the executable or in its
// ../lib[/schedstudio], else the path the build wrote it to (SS_LEARN_MODULE_PATH).
#include "policy/learnedmodule.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <system_error>

namespace ss {

namespace {

namespace fs = std::filesystem;

constexpr const char* kModuleFile = "libschedstudio-learn.so";

std::string findModule()
{
    if (const char* env = std::getenv("SCHEDSTUDIO_LEARN_MODULE"); env && *env)
        return env;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path dir = exe.parent_path();
        for (const fs::path& c : {dir / kModuleFile, dir.parent_path() / kModuleFile, dir.parent_path() / "lib" / kModuleFile,
                                  dir.parent_path() / "lib" / "schedstudio" / kModuleFile})
            if (fs::is_regular_file(c, ec))
                return c.string();
    }
#ifdef SS_LEARN_MODULE_PATH
    return SS_LEARN_MODULE_PATH;
#else
    return !ec ? (exe.parent_path() / kModuleFile).string() : std::string(kModuleFile);
#endif
}

std::string load()
{
#ifndef SS_LEARN_MODULE_PATH
    if (!std::getenv("SCHEDSTUDIO_LEARN_MODULE"))
        return "learned policies need the LibTorch module " + std::string(kModuleFile)
               + ", which this build has not (configured without LibTorch)";
#endif
    const std::string path = findModule();
    const std::string what = "the LibTorch module " + path + " cannot be loaded: ";
    // Kept loaded for the life of the process (policies and trainers it made may outlive any caller).
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* e = dlerror();
        return what + (e ? e : "unknown dlopen error");
    }
    using Init = const char* (*)(const char* hostVersion);
    auto init = reinterpret_cast<Init>(dlsym(handle, "schedstudio_learn_module_init"));
    if (!init) {
        const char* e = dlerror();
        const std::string err = what + (e ? e : "no entry point schedstudio_learn_module_init"); // before dlclose
        dlclose(handle);
        return err;
    }
    if (const char* err = init(SCHEDSTUDIO_VERSION))
        return what + err;
    return {};
}

} // namespace

const std::vector<std::string>& learnedModulePolicyNames()
{
#ifdef SS_LEARN_MODULE_PATH
    static const std::vector<std::string> names {"das", "da", "da+mc", "da+rwgp"};
#else
    static const std::vector<std::string> names; // built without LibTorch: no module to load
#endif
    return names;
}

std::string ensureLearnedModuleLoaded()
{
    static std::once_flag once;
    static std::string error;
    std::call_once(once, [] {
        error = load();
        for (char& c : error)
            if (c == '\n' || c == '\r')
                c = ' ';
    });
    return error;
}

} // namespace ss
