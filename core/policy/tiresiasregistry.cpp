// The Tiresias family (srtf, las, gittins) as registered orderings, with their parameters; the scheduler is in
// tiresias.cpp.
#include "policy/tiresias.h"

namespace ss {

namespace {

/// The Tiresias family as orderings: each drives its composite with PreemptiveScheduler.
class PreemptiveOrdering final : public Ordering {
public:
    explicit PreemptiveOrdering(PreemptOrder o) : m_order(o) {}
    std::unique_ptr<Ordering> clone() const override { return std::make_unique<PreemptiveOrdering>(*this); }
    std::vector<ScoredJob> rank(const SchedContext&, const std::vector<QueuedJob>&) const override { return {}; }
    std::unique_ptr<Scheduler> drive(const std::string& name, std::unique_ptr<Placement>& placement,
                                     std::unique_ptr<Admission>& admission, const PolicyOptions& opts) override
    {
        return std::make_unique<PreemptiveScheduler>(name, m_order, std::move(placement), std::move(admission), opts);
    }

private:
    PreemptOrder m_order;
};

ParamSpec num(const char* key, const char* dflt, double min, const char* help)
{
    ParamSpec p;
    p.key = key;
    p.dflt = dflt;
    p.min = min;
    p.help = help;
    return p;
}

std::vector<ParamSpec> lasParams()
{
    ParamSpec thr;
    thr.key = "las.thresholds";
    thr.type = ParamSpec::Type::Text;
    thr.dflt = "3250,7200";
    thr.help = "queue limits in GPU-seconds, increasing, comma-separated";
    return {thr, num("las.knob", "0", 0, "starvation knob: promote to Q0 after knob x executed time pending (0 = off)")};
}

const PolicyRegistrar srtf({.name = "srtf",
                            .family = PolicyFamily::Ordering,
                            .description = "preemptive shortest remaining time first",
                            .score = "-hours of work left",
                            .ordering = [](const PolicyOptions&) { return std::make_unique<PreemptiveOrdering>(PreemptOrder::Srtf); }});

const PolicyRegistrar las({.name = "las",
                           .family = PolicyFamily::Ordering,
                           .description = "Tiresias discretized 2D-LAS (least attained GPU service, preemptive)",
                           .params = lasParams(),
                           .score = "-queue index (Q0 highest)",
                           .ordering = [](const PolicyOptions&) { return std::make_unique<PreemptiveOrdering>(PreemptOrder::Las); }});

std::vector<ParamSpec> gittinsParams()
{
    std::vector<ParamSpec> v = lasParams();
    v.push_back(num("gittins.delta", "3250", -1e300, "Gittins quantum in GPU-seconds"));
    ParamSpec dist;
    dist.key = "gittins.dist";
    dist.type = ParamSpec::Type::Text;
    dist.help = "job-size distribution file (CSV with a duration column); empty = the trace's own sizes";
    v.push_back(dist);
    return v;
}

const PolicyRegistrar gittins({.name = "gittins",
                               .family = PolicyFamily::Ordering,
                               .description = "Tiresias discretized 2D-Gittins index (preemptive)",
                               .params = gittinsParams(),
                               .score = "-queue index + Gittins index mapped into [0, 1)",
                               .ordering = [](const PolicyOptions&) { return std::make_unique<PreemptiveOrdering>(PreemptOrder::Gittins); }});

} // namespace
} // namespace ss

