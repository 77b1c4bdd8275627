// FIFO: jobs in the order they joined the queue. Priority shown: minutes waited (jobs that waited alike keep
// their arrival order).
#include "policy/registry.h"

namespace ss {
namespace {

class Fifo final : public Ordering {
public:
    std::unique_ptr<Ordering> clone() const override { return std::make_unique<Fifo>(*this); }
    std::vector<ScoredJob> rank(const SchedContext& ctx, const std::vector<QueuedJob>& served) const override
    {
        std::vector<ScoredJob> out;
        out.reserve(served.size());
        for (const QueuedJob& q : served) // (the log stores the clock, not each decision's minutes)
            out.push_back(ScoredJob::clocked(q.job, ctx.now(), ctx.rt(q.job).enqueuedAt, 60.0f));
        return out;
    }
};

const PolicyRegistrar reg({.name = "fifo",
                           .family = PolicyFamily::Ordering,
                           .description = "first in, first out (queue order)",
                           .score = "minutes waited (ties: arrival order)",
                           .ordering = [](const PolicyOptions&) { return std::make_unique<Fifo>(); }});

} // namespace
} // namespace ss

