#pragma once
// What a running job (or a set of them) holds per GPU type against what is left of the cluster, in thousandths of
// a GPU: the test and the subtraction every running-job index of the Tiresias walk makes.
#include <cstddef>
#include <cstdint>

namespace ss {

/// Whether `v` fits in `bud`, type by type.
inline bool holdingFits(const int64_t* v, const int64_t* bud, size_t types)
{
    for (size_t t = 0; t < types; ++t)
        if (v[t] > bud[t])
            return false;
    return true;
}

/// Takes `v` from `bud`.
inline void holdingTake(const int64_t* v, int64_t* bud, size_t types)
{
    for (size_t t = 0; t < types; ++t)
        bud[t] -= v[t];
}

} // namespace ss
