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
            m_swFree.assign(f.c.switches.size(), 0);
            forMachinesWithFree(f.s, f.types, [&](int m, int fr) { m_swFree[size_t(f.c.machines[size_t(m)].sw)] += fr; });
            forMachinesWithFree(f.s, f.types, [&](int m, int fr) {
                const bool swHolds = m_swFree[size_t(f.c.machines[size_t(m)].sw)] >= f.k;
                (*scores)[size_t(m)] = fr >= f.k ? 2.0f + 1.0f / float(1 + fr - f.k)
                                                 : (swHolds ? 1.0f : 0.0f) + float(fr) / (f.maxG + 1.0f);
            });
        }
        if (freeOfTypes(f.s, f.types) < f.k)
            return false;
        if (const int m = tightestMachine(f); m >= 0) {
            takeWhole(f.s, f.c, m, f.k, out);
            return true;
        }
        // the candidates (machines with a free GPU of an allowed type; few when no one machine holds the job)
        // grouped by switch, each group largest free count first: per switch, the fewest machines that cover
        // the job and what is left over, without a list per switch
        m_cand.clear();
        for (int m = firstWithFree(f.s, f.types, 1, 0); m >= 0; m = firstWithFree(f.s, f.types, 1, m + 1))
            m_cand.push_back(m);
        m_bySw.clear();
        for (int m : m_cand)
            m_bySw.push_back({f.c.machines[size_t(m)].sw, f.s.freeGpus(m)});
        std::sort(m_bySw.begin(), m_bySw.end(),
                  [](const std::pair<int, int>& x, const std::pair<int, int>& y) { return x.first != y.first ? x.first < y.first : x.second > y.second; });
        int bestSw = -1, bestCount = 0, bestLeft = 0;
        for (size_t i = 0; i < m_bySw.size();) {
            const int sw = m_bySw[i].first;
            size_t e = i;
            int sum = 0;
            for (; e < m_bySw.size() && m_bySw[e].first == sw; ++e)
                sum += m_bySw[e].second;
            const size_t from = i;
            i = e;
            if (sum < f.k)
                continue;
            int need = f.k, count = 0;
            for (size_t x = from; x < e && need > 0; ++x) {
                need -= m_bySw[x].second;
                ++count;
            }
            const int left = sum - f.k;
            if (bestSw < 0 || count < bestCount || (count == bestCount && left < bestLeft)) {
                bestSw = sw;
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
    // scratch of the spanning case, kept between placements
    std::vector<int> m_cand;
    std::vector<std::pair<int, int>> m_bySw; // (switch, free GPUs) per candidate
    std::vector<int> m_swFree;               // the log's scores: free GPUs of an allowed type per switch
};

const PolicyRegistrar reg({.name = "consolidate",
                           .family = PolicyFamily::Placement,
                           .description = "tightest single machine, else the fewest machines under one switch",
                           .placement = [](const PolicyOptions&) { return std::make_unique<Consolidate>(); }});

} // namespace
} // namespace ss

