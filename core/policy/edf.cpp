// EDF: the earliest (first) deadline first; jobs without one after all others. Priority shown: hours past
// the deadline (negative = hours left); jobs without a deadline an hour below the lowest.
#include <cmath>
#include <limits>

#include "policy/registry.h"

namespace ss {
namespace {

class Edf final : public Ordering {
public:
    std::unique_ptr<Ordering> clone() const override { return std::make_unique<Edf>(*this); }
    double staticKey(const SchedContext& ctx, int job) const override
    {
        const Job& jb = ctx.job(job);
        return jb.deadlines.empty() ? std::numeric_limits<double>::infinity() : jb.submit + jb.deadlines.front().offset;
    }
    std::vector<ScoredJob> rank(const SchedContext& ctx, const std::vector<QueuedJob>& served) const override
    {
        float lowest = 0.0f;
        for (const QueuedJob& q : served)
            if (std::isfinite(q.staticKey))
                lowest = std::min(lowest, ScoredJob::clockedPriority(ctx.now(), q.staticKey, 3600.0f));
        std::vector<ScoredJob> out;
        out.reserve(served.size());
        for (const QueuedJob& q : served) // (the log stores the clock, not each decision's hours)
            out.push_back(std::isfinite(q.staticKey) ? ScoredJob::clocked(q.job, ctx.now(), q.staticKey, 3600.0f)
                                                     : ScoredJob {q.job, lowest - 1.0f});
        return out;
    }
};

const PolicyRegistrar reg({.name = "edf",
                           .family = PolicyFamily::Ordering,
                           .description = "earliest deadline first (jobs without a deadline last)",
                           .score = "hours past the deadline (negative: hours left)",
                           .ordering = [](const PolicyOptions&) { return std::make_unique<Edf>(); }});

} // namespace
} // namespace ss

