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
                lowest = std::min(lowest, float((ctx.now() - q.staticKey) / 3600.0));
        std::vector<ScoredJob> out;
        out.reserve(served.size());
        for (const QueuedJob& q : served) {
            if (!std::isfinite(q.staticKey)) {
                out.push_back({q.job, lowest - 1.0f});
                continue;
            }
            ScoredJob s {q.job, float((ctx.now() - q.staticKey) / 3600.0)};
            s.clockFrom = q.staticKey; // (the log stores the clock, not each decision's hours)
            s.clockPer = 3600.0f;
            out.push_back(s);
        }
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

