#pragma once
// FNV-1a 64-bit: the fingerprints of clusters, traces and throughput tables (fast, stable across builds; not
// a cryptographic hash: run identities hash these with SHA-256, run/hash.h).
#include <cstdint>
#include <cstdio>
#include <string>

namespace ss {

struct Fnv {
    uint64_t h = 1469598103934665603ULL;
    void bytes(const void* p, size_t n)
    {
        auto c = static_cast<const unsigned char*>(p);
        for (size_t i = 0; i < n; ++i) {
            h ^= c[i];
            h *= 1099511628211ULL;
        }
    }
    /// The string and a NUL separator, so that ("ab","c") and ("a","bc") differ.
    void str(const std::string& s) { bytes(s.data(), s.size() + 1); }
    template <class T> void num(T v) { bytes(&v, sizeof v); }
    /// 16 lower-case hex digits.
    std::string hex() const
    {
        char buf[20];
        std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
        return buf;
    }
};

} // namespace ss
