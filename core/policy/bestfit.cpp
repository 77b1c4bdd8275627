// Best fit: the machine whose free GPUs exceed the demand least (exact fits first); a job no machine holds
// spans the fewest machines. Fractional jobs: the GPU whose free share exceeds the demand least.
#include "policy/placementutil.h"
#include "policy/registry.h"

namespace ss {
namespace {
using namespace placeutil;

class BestFit final : public Placement {
public:
    std::unique_ptr<Placement> clone() const override { return std::make_unique<BestFit>(*this); }
    bool place(SchedContext& ctx, int job, std::vector<GpuSlot>& out, std::vector<float>* scores) override
    {
        out.clear();
        const Frame f(ctx, job, scores);
        if (f.types.empty())
            return false;
        if (f.fractional)
            return placeTightestShare(f, out, scores);
        // machines that hold the job score 1 + 1 / (1 + slack) (bestFitMachine's order: least slack, then
        // lowest id); the others by free GPUs, below 1; a span scores its machines in the order it takes them
        if (scores)
            forMachinesWithFree(f.s, f.types, [&](int m, int fr) {
                (*scores)[size_t(m)] = fr >= f.k ? 1.0f + 1.0f / float(1 + fr - f.k) : float(fr) / (f.maxG + 1.0f);
            });
        if (freeOfTypes(f.s, f.types) < f.k)
            return false;
        if (const int m = tightestMachine(f); m >= 0) {
            takeWhole(f.s, f.c, m, f.k, out);
            return true;
        }
        return fillFewest(f.s, f.c, machinesWithFree(f.s, f.types), f.k, out, scores, 1.0f);
    }
};

const PolicyRegistrar reg({.name = "bestfit",
                           .family = PolicyFamily::Placement,
                           .description = "machine with the fewest free GPUs that still holds the job (spans the fewest machines)",
                           .placement = [](const PolicyOptions&) { return std::make_unique<BestFit>(); }});

} // namespace
} // namespace ss

