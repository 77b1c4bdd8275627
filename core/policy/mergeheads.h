#pragma once
// The first items of several sorted ranges in one order (the decision log's queue: a queue kept as buckets by
// job shape, each bucket sorted; QueuedScheduler and PreemptiveScheduler::recordRanking).
#include <algorithm>
#include <cstddef>
#include <vector>

namespace ss {

/// Calls emit(head) for the first `limit` items of the ranges given as heads (fields `it` and `end`), first served
/// first, moving each head on. later(x, y): x's current item is served after y's. A head's range is taken in runs
/// while it stays ahead of the best other head, so a heap step is paid per run, not per item.
template <class Head, class Later, class Emit>
void mergeFirst(std::vector<Head>& heads, Later later, size_t limit, Emit emit)
{
    std::make_heap(heads.begin(), heads.end(), later);
    size_t n = 0;
    while (n < limit && !heads.empty()) {
        std::pop_heap(heads.begin(), heads.end(), later);
        Head& h = heads.back();
        const bool alone = heads.size() == 1; // else the best other head is heads.front()
        do {
            emit(h);
            ++n;
            ++h.it;
        } while (n < limit && h.it != h.end && (alone || later(heads.front(), h)));
        if (h.it == h.end)
            heads.pop_back();
        else
            std::push_heap(heads.begin(), heads.end(), later);
    }
}

} // namespace ss
