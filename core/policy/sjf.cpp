// SJF: the shortest job (reference duration) first. Priority shown: -hours of work.
#include "policy/registry.h"

namespace ss {
namespace {

class Sjf final : public Ordering {
public:
    std::unique_ptr<Ordering> clone() const override { return std::make_unique<Sjf>(*this); }
    double staticKey(const SchedContext& ctx, int job) const override { return ctx.job(job).duration; }
    std::vector<ScoredJob> rank(const SchedContext&, const std::vector<QueuedJob>& served) const override
    {
        std::vector<ScoredJob> out;
        out.reserve(served.size());
        for (const QueuedJob& q : served)
            out.push_back({q.job, float(-q.staticKey / 3600.0)});
        return out;
    }
};

const PolicyRegistrar reg({.name = "sjf",
                           .family = PolicyFamily::Ordering,
                           .description = "shortest job first (by its duration)",
                           .score = "-hours of work (reference GPU)",
                           .ordering = [](const PolicyOptions&) { return std::make_unique<Sjf>(); }});

} // namespace
} // namespace ss

