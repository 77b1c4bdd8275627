// Random placement from the policy's seeded stream: a machine drawn among those that hold the job, else the
// machines with free GPUs in a drawn order. Fractional jobs: a GPU drawn among those with the share free.
#include "policy/placementutil.h"
#include "policy/registry.h"

namespace ss {
namespace {
using namespace placeutil;

/// The n-th machine (id order) with >= k free GPUs of one of `types`.
int nthWithFree(const ClusterState& s, const TypeList& types, int k, int n)
{
    if (types.size() == 1)
        return s.nthMachineWithFree(k, n, types[0]);
    // several types: merge their id orders by stepping through the machines that hold the job
    int m = firstWithFree(s, types, k, 0);
    for (; m >= 0 && n > 0; --n)
        m = firstWithFree(s, types, k, m + 1);
    return m;
}

class RandomPlacement final : public Placement {
public:
    std::unique_ptr<Placement> clone() const override { return std::make_unique<RandomPlacement>(*this); }
    bool place(SchedContext& ctx, int job, std::vector<GpuSlot>& out, std::vector<float>* scores) override
    {
        out.clear();
        const Frame f(ctx, job, scores);
        if (f.types.empty())
            return false;
        // scores: every candidate 1 (machines that can take only a part of the job 0.5); the drawn machine 2,
        // or, for a span, 1 + 1 / (1 + i) in the drawn order
        if (f.fractional) {
            const std::vector<int> cand = machinesWithMilli(f.s, f.types, f.milli);
            if (cand.empty())
                return false;
            std::vector<int> gpus;
            for (int m : cand) {
                if (scores)
                    (*scores)[size_t(m)] = 1.0f;
                const int base = f.c.gpuBase(m);
                for (int g = base; g < base + f.c.machines[size_t(m)].gpus; ++g)
                    if (f.s.gpuFreeMilli(g) >= f.milli)
                        gpus.push_back(g);
            }
            const int gpu = gpus[size_t(ctx.rng().below(gpus.size()))];
            if (scores)
                (*scores)[size_t(f.c.machineOfGpu(gpu))] = 2.0f;
            out.push_back({gpu, f.milli});
            return true;
        }
        if (scores)
            forMachinesWithFree(f.s, f.types, [&](int m, int fr) { (*scores)[size_t(m)] = fr >= f.k ? 1.0f : 0.5f; });
        if (freeOfTypes(f.s, f.types) < f.k)
            return false;
        // the machines that hold the job, in id order, counted and indexed through the state's free-level
        // bitsets (no list of them is built)
        int one = 0;
        for (int t : f.types)
            one += f.s.countMachinesWithFree(f.k, t);
        if (one > 0) {
            const int m = nthWithFree(f.s, f.types, f.k, int(ctx.rng().below(uint64_t(one))));
            takeWhole(f.s, f.c, m, f.k, out);
            if (scores)
                (*scores)[size_t(m)] = 2.0f;
            return true;
        }
        std::vector<int> cand = machinesWithFree(f.s, f.types);
        for (size_t i = cand.size(); i > 1; --i)
            std::swap(cand[i - 1], cand[size_t(ctx.rng().below(i))]);
        int need = f.k, taken = 0;
        for (int m : cand) {
            if (need <= 0)
                break;
            const int take = std::min(need, f.s.freeGpus(m));
            takeWhole(f.s, f.c, m, take, out);
            need -= take;
            if (scores)
                (*scores)[size_t(m)] = 1.0f + 1.0f / float(1 + taken);
            ++taken;
        }
        if (need > 0)
            out.clear();
        return need == 0;
    }
};

const PolicyRegistrar reg({.name = "random",
                           .family = PolicyFamily::Placement,
                           .description = "a machine drawn from the run's seeded stream among those that hold the job",
                           .placement = [](const PolicyOptions&) { return std::make_unique<RandomPlacement>(); }});

} // namespace
} // namespace ss

