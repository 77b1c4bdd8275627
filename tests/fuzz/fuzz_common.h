#pragma once
// libFuzzer helpers: the readers take paths, so each input is written to a per-process scratch file.
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

namespace ssfuzz {

inline std::string scratchPath(const char* suffix)
{
    static const std::string dir = [] {
        const char* shm = "/dev/shm";
        return std::string(access(shm, W_OK) == 0 ? shm : "/tmp");
    }();
    return dir + "/ssfuzz-" + std::to_string(getpid()) + suffix;
}

inline std::string writeScratch(const uint8_t* data, size_t size, const char* suffix)
{
    const std::string p = scratchPath(suffix);
    std::FILE* f = std::fopen(p.c_str(), "wb");
    if (f) {
        std::fwrite(data, 1, size, f);
        std::fclose(f);
    }
    return p;
}

} // namespace ssfuzz
