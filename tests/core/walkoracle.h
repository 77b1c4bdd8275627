// Shared by tst_scale and tst_srtfdrift: the Tiresias walk's question to a running-job index, answered by brute
// force over the jobs sorted by position.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace walkoracle {

/// Over `order` (positions, sorted), the jobs after *from (all when null) and before *to (to the end when null),
/// each taken from `left` while what it holds (`use(job)`, N types) fits: the first that does not fit, or -1.
template <class Pos, size_t N, class Use>
int firstNotFitting(const std::vector<Pos>& order, const Pos* from, const Pos* to, std::array<int64_t, N>& left, Use use)
{
    for (const Pos& p : order) {
        if (from && !(*from < p))
            continue;
        if (to && !(p < *to))
            break;
        const int64_t* u = use(p.job);
        for (size_t i = 0; i < N; ++i)
            if (u[i] > left[i])
                return p.job;
        for (size_t i = 0; i < N; ++i)
            left[i] -= u[i];
    }
    return -1;
}

} // namespace walkoracle
