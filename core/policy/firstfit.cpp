// First fit: the lowest-id machine that holds the job; a job no machine holds takes the lowest-id machines'
// free GPUs. Fractional jobs: the first GPU (lowest id) with the share free. O(log M) per machine used.
#include "policy/placementutil.h"
#include "policy/registry.h"

namespace ss {
namespace {
using namespace placeutil;

class FirstFit final : public Placement {
public:
    std::unique_ptr<Placement> clone() const override { return std::make_unique<FirstFit>(*this); }
    bool place(SchedContext& ctx, int job, std::vector<GpuSlot>& out, std::vector<float>* scores) override
    {
        out.clear();
        const Frame f(ctx, job, scores);
        if (f.types.empty())
            return false;
        // the key: lower id first, machines that hold the whole job (score above 1) before the others
        if (scores) {
            auto idKey = [&](int m) { return 1.0f - float(m) / float(f.M); };
            if (f.fractional) {
                for (const int m : machinesWithMilli(f.s, f.types, f.milli))
                    if (bestGpuOn(f.s, f.c, m, f.milli, false) >= 0)
                        (*scores)[size_t(m)] = idKey(m);
            } else {
                forMachinesWithFree(f.s, f.types, [&](int m, int fr) { (*scores)[size_t(m)] = (fr >= f.k ? 1.0f : 0.0f) + idKey(m); });
            }
        }
        if (f.fractional) {
            const int m = firstWithMilli(f.s, f.types, f.milli, 0);
            if (m < 0)
                return false;
            const int base = f.c.gpuBase(m);
            for (int g = base; g < base + f.c.machines[size_t(m)].gpus; ++g)
                if (f.s.gpuFreeMilli(g) >= f.milli) {
                    out.push_back({g, f.milli});
                    return true;
                }
            return false;
        }
        if (freeOfTypes(f.s, f.types) < f.k)
            return false;
        if (const int m = firstWithFree(f.s, f.types, f.k, 0); m >= 0) {
            takeWhole(f.s, f.c, m, f.k, out);
            return true;
        }
        // lowest-id machines first
        int need = f.k;
        for (int m = firstWithFree(f.s, f.types, 1, 0); m >= 0 && need > 0; m = firstWithFree(f.s, f.types, 1, m + 1)) {
            const int take = std::min(need, f.s.freeGpus(m));
            takeWhole(f.s, f.c, m, take, out);
            need -= take;
        }
        if (need > 0)
            out.clear();
        return need == 0;
    }
};

const PolicyRegistrar reg({.name = "firstfit",
                           .family = PolicyFamily::Placement,
                           .description = "lowest-id machine that holds the job (spans the lowest ids when none does)",
                           .placement = [](const PolicyOptions&) { return std::make_unique<FirstFit>(); }});

} // namespace
} // namespace ss

