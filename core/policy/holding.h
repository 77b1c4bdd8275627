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

/// Takes `v` from `bud` when it fits; whether it did.
inline bool holdingTakeIfFits(const int64_t* v, int64_t* bud, size_t types)
{
    if (!holdingFits(v, bud, types))
        return false;
    holdingTake(v, bud, types);
    return true;
}

/// Whether no budget is below 0.
inline bool holdingNoneNegative(const int64_t* bud, size_t types)
{
    bool ok = true;
    for (size_t t = 0; t < types; ++t)
        ok &= bud[t] >= 0;
    return ok;
}

} // namespace ss
