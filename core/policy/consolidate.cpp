// Consolidate: one machine when one holds the job (the tightest fit, so exact matches win, as Chronus's
// consolidation prefers); else the switch where the job needs the fewest machines (ties: least left over,
// then lowest id); else span switches. Fractional jobs: as best fit.
#include <algorithm>

#include "policy/placementutil.h"
#include "policy/registry.h"

namespace ss {
namespace {
using namespace placeutil;

class Consolidate final : public Placement {
public:
    std::unique_ptr<Placement> clone() const override { return std::make_unique<Consolidate>(*this); }
    bool place(SchedContext& ctx, int job, std::vector<GpuSlot>& out, std::vector<float>* scores) override
    {
        out.clear();
        const Frame f(ctx, job, scores);
        if (f.types.empty())
            return false;
        if (f.fractional)
            return placeTightestShare(f, out, scores);
        // scores: machines that hold the job 2 + 1 / (1 + slack); machines under a switch that holds it
        // 1 + free / (most + 1); the others free / (most + 1); a span scores its machines 2 + 1 / (1 + i) in
        // the order it takes them
        if (scores) {
            std::vector<int> swFree(f.c.switches.size(), 0);
            for (int m = 0; m < f.M; ++m)
                if (machineAllowed(f.c, m, f.mask))
                    swFree[size_t(f.c.machines[size_t(m)].sw)] += f.s.freeGpus(m);
            for (int m = 0; m < f.M; ++m) {
                const int fr = f.s.freeGpus(m);
                if (fr == 0 || !machineAllowed(f.c, m, f.mask))
                    continue;
                const bool swHolds = swFree[size_t(f.c.machines[size_t(m)].sw)] >= f.k;
                (*scores)[size_t(m)] = fr >= f.k ? 2.0f + 1.0f / float(1 + fr - f.k)
                                                 : (swHolds ? 1.0f : 0.0f) + float(fr) / (f.maxG + 1.0f);
            }
        }
        if (freeOfTypes(f.s, f.types) < f.k)
            return false;
        if (const int m = tightestMachine(f); m >= 0) {
            takeWhole(f.s, f.c, m, f.k, out);
            return true;
        }
        // per switch, from one pass over the machines: the free GPUs of its candidates (machines with a free
        // GPU of an allowed type) and how many of them have each free count, so the fewest machines that
        // cover the job (largest first) are counted without sorting
        const int L = f.c.maxGpusPerMachine() + 1;
        const size_t S = f.c.switches.size();
        m_cand.clear();
        m_swSum.assign(S, 0);
        m_swHist.assign(S * size_t(L), 0);
        for (int m = 0; m < f.M; ++m) {
            const int fr = f.s.freeGpus(m);
            if (fr <= 0 || !machineAllowed(f.c, m, f.mask))
                continue;
            m_cand.push_back(m);
            const size_t sw = size_t(f.c.machines[size_t(m)].sw);
            m_swSum[sw] += fr;
            ++m_swHist[sw * size_t(L) + size_t(fr)];
        }
        int bestSw = -1, bestCount = 0, bestLeft = 0;
        for (size_t sw = 0; sw < S; ++sw) {
            const int sum = m_swSum[sw];
            if (sum < f.k)
                continue;
            int need = f.k, count = 0;
            for (int fr = L - 1; fr >= 1 && need > 0; --fr) {
                const int n = std::min(m_swHist[sw * size_t(L) + size_t(fr)], (need + fr - 1) / fr);
                count += n;
                need -= n * fr;
            }
            const int left = sum - f.k;
            if (bestSw < 0 || count < bestCount || (count == bestCount && left < bestLeft)) {
                bestSw = int(sw);
                bestCount = count;
                bestLeft = left;
            }
        }
        std::vector<int> onSwitch;
        if (bestSw >= 0)
            for (int m : m_cand)
                if (f.c.machines[size_t(m)].sw == bestSw)
                    onSwitch.push_back(m);
        if (bestSw >= 0 && fillFewest(f.s, f.c, std::move(onSwitch), f.k, out, scores, 2.0f))
            return true;
        out.clear();
        return fillFewest(f.s, f.c, m_cand, f.k, out, scores, 2.0f); // no switch holds it: span switches
    }

private:
    // scratch of the spanning case (no allocation per placement)
    std::vector<int> m_cand, m_swSum, m_swHist;
};

const PolicyRegistrar reg({.name = "consolidate",
                           .family = PolicyFamily::Placement,
                           .description = "tightest single machine, else the fewest machines under one switch",
                           .placement = [](const PolicyOptions&) { return std::make_unique<Consolidate>(); }});

} // namespace
} // namespace ss

