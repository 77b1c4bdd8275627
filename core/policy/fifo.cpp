// FIFO: jobs in the order they joined the queue. Priority shown: hours waited.
#include "policy/registry.h"

namespace ss {
namespace {

class Fifo final : public Ordering {
public:
    std::vector<ScoredJob> rank(const SchedContext& ctx, const std::vector<QueuedJob>& served) const override
    {
        std::vector<ScoredJob> out;
        out.reserve(served.size());
        for (const QueuedJob& q : served)
            out.push_back({q.job, float((ctx.now() - ctx.rt(q.job).enqueuedAt) / 3600.0)});
        return out;
    }
};

const PolicyRegistrar reg({.name = "fifo",
                           .family = PolicyFamily::Ordering,
                           .description = "first in, first out (queue order)",
                           .ordering = [](const PolicyOptions&) { return std::make_unique<Fifo>(); }});

} // namespace
} // namespace ss

