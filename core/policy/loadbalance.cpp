// Load balance: the machine with the most free GPUs; a job no machine holds spans the fewest machines.
// Fractional jobs: the machine with the most free whole GPUs, then the fewest jobs, on its emptiest GPU.
#include "policy/placementutil.h"
#include "policy/registry.h"

namespace ss {
namespace {
using namespace placeutil;

class LoadBalance final : public Placement {
public:
    std::unique_ptr<Placement> clone() const override { return std::make_unique<LoadBalance>(*this); }
    bool place(SchedContext& ctx, int job, std::vector<GpuSlot>& out, std::vector<float>* scores) override
    {
        out.clear();
        const Frame f(ctx, job, scores);
        if (f.types.empty())
            return false;
        if (f.fractional) {
            // key: free whole GPUs, then fewer jobs (0.5 / (1 + jobs) < 1 keeps the order lexicographic)
            int bestM = -1;
            float bestKey = 0;
            for (int m : machinesWithMilli(f.s, f.types, f.milli)) {
                const float key = (float(f.s.freeGpus(m)) + 0.5f / float(1 + f.s.jobsOnMachine(m))) / (f.maxG + 1.0f);
                if (scores)
                    (*scores)[size_t(m)] = key;
                if (bestM < 0 || f.s.freeGpus(m) > f.s.freeGpus(bestM)
                    || (f.s.freeGpus(m) == f.s.freeGpus(bestM) && f.s.jobsOnMachine(m) < f.s.jobsOnMachine(bestM)))
                    bestM = m, bestKey = key;
            }
            (void)bestKey;
            if (bestM < 0)
                return false;
            out.push_back({bestGpuOn(f.s, f.c, bestM, f.milli, true), f.milli});
            return true;
        }
        // machines that hold the job score 1 + free / most (mostFreeMachine's order: most free, lowest id);
        // the others free / most, below 1; a span scores its machines in the order it takes them
        if (scores)
            forMachinesWithFree(f.s, f.types,
                                [&](int m, int fr) { (*scores)[size_t(m)] = (fr >= f.k ? 1.0f : 0.0f) + float(fr) / f.maxG; });
        if (freeOfTypes(f.s, f.types) < f.k)
            return false;
        int best = -1;
        for (int t : f.types) {
            const int m = f.s.mostFreeMachine(t);
            if (m >= 0 && (best < 0 || f.s.freeGpus(m) > f.s.freeGpus(best) || (f.s.freeGpus(m) == f.s.freeGpus(best) && m < best)))
                best = m;
        }
        if (best >= 0 && f.s.freeGpus(best) >= f.k) {
            takeWhole(f.s, f.c, best, f.k, out);
            return true;
        }
        return fillFewest(f.s, f.c, machinesWithFree(f.s, f.types), f.k, out, scores, 1.0f);
    }
};

const PolicyRegistrar reg({.name = "loadbalance",
                           .family = PolicyFamily::Placement,
                           .description = "machine with the most free GPUs (then the fewest jobs for shares)",
                           .placement = [](const PolicyOptions&) { return std::make_unique<LoadBalance>(); }});

} // namespace
} // namespace ss

