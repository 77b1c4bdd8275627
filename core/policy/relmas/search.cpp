// MAGMA-style search baseline (docs/ACCELERATOR.md §6): a seeded local search over the cycle's assignment of
// idle sub-accelerators to ready layers, started from the heterogeneity-aware greedy, minimizing the
// estimated deadline misses and lateness (with a small energy term) of the candidates.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "model/rng.h"
#include "policy/relmas/accelpolicies.h"
#include "policy/relmas/heuristics.h"
#include "policy/relmas/search.h"

namespace ss::accel {

namespace {
class LocalSearch : public AccelScheduler {
public:
    LocalSearch(int iterations, int candidates, GreedyParams g) : m_iters(iterations), m_cands(candidates), m_g(g) {}
    std::string name() const override { return "search"; }
    void reset(uint64_t seed) override { m_rng.reseed(seed ^ 0x5eedULL); }

    void schedule(const CycleView& v, std::vector<Assignment>& out, std::vector<float>* scores) override
    {
        const int S = int(v.subs.size());
        // candidates: the least-slack ready layers
        std::vector<int> cand(v.ready.size());
        std::iota(cand.begin(), cand.end(), 0);
        std::stable_sort(cand.begin(), cand.end(),
                         [&](int a, int b) { return v.ready[size_t(a)].slack < v.ready[size_t(b)].slack; });
        if (int(cand.size()) > m_cands)
            cand.resize(size_t(m_cands));
        std::vector<int> idle;
        for (int s = 0; s < S; ++s)
            if (!v.subs[size_t(s)].busy)
                idle.push_back(s);
        // solution: per idle sub, the ready index it runs (-1 = none)
        std::vector<int> sol(idle.size(), -1);
        std::vector<Assignment> g;
        greedyAssign(v, m_g, g);
        for (const Assignment& a : g)
            for (size_t k = 0; k < idle.size(); ++k)
                if (idle[k] == a.sub)
                    sol[k] = a.ready;
        prepare(v, idle, cand);
        double cur = cost(v, idle, sol);
        std::vector<int> trial;
        for (int it = 0; it < m_iters && !idle.empty() && !cand.empty(); ++it) {
            trial = sol;
            const size_t k = size_t(m_rng.below(idle.size()));
            const uint64_t move = m_rng.below(3);
            if (move == 0 && idle.size() > 1) { // swap two subs' layers
                const size_t k2 = size_t(m_rng.below(idle.size()));
                std::swap(trial[k], trial[k2]);
            } else if (move == 1) { // put a candidate on this sub (taking it from another sub)
                const int c = cand[size_t(m_rng.below(cand.size()))];
                for (int& x : trial)
                    if (x == c)
                        x = trial[k];
                trial[k] = c;
            } else { // give this sub a candidate no sub runs (work-conserving: no sub is left idle on purpose)
                const int c = cand[size_t(m_rng.below(cand.size()))];
                if (std::find(trial.begin(), trial.end(), c) == trial.end())
                    trial[k] = c;
            }
            const double t = cost(v, idle, trial);
            if (t < cur) {
                cur = t;
                sol.swap(trial);
            }
        }
        for (size_t k = 0; k < idle.size(); ++k)
            if (sol[k] >= 0)
                out.push_back({sol[k], idle[k]});
        if (scores)
            affinityScores(v, *scores);
    }

private:
    /// Per cycle: each candidate's position, its cost when it waits, and its latency and bandwidth per idle sub.
    void prepare(const CycleView& v, const std::vector<int>& idle, const std::vector<int>& cand)
    {
        const double wait = waitEstimate(v);
        m_pos.assign(v.ready.size(), -1);
        m_waitCost.clear();
        m_base = 0;
        m_lat.assign(cand.size() * idle.size(), 0.0);
        m_bw.assign(cand.size() * idle.size(), 0.0);
        m_rest.clear();
        for (size_t j = 0; j < cand.size(); ++j) {
            const ReadyLayer& r = v.ready[size_t(cand[j])];
            m_pos[size_t(cand[j])] = int(j);
            m_rest.push_back(r.remainingBest - v.cost->bestLatency(r.network, r.layer));
            m_waitCost.push_back(lateness(r, v.now + wait + r.remainingBest));
            m_base += m_waitCost.back();
            for (size_t k = 0; k < idle.size(); ++k) {
                const LayerCost& lc = v.costOf(r, idle[k]);
                m_lat[j * idle.size() + k] = lc.latency;
                m_bw[j * idle.size() + k] = lc.bandwidth;
            }
        }
    }
    static double lateness(const ReadyLayer& r, double finish)
    {
        const double late = finish - r.deadline;
        const double scale = std::max(1e-9, r.deadline - r.arrival);
        return late > 0 ? 1.0 + late / scale : -0.01 * std::min(1.0, -late / scale); // a little for headroom
    }
    /// Estimated cost of a cycle's assignment: each candidate's estimated finish against its deadline; a started
    /// layer takes its latency stretched by the resulting slowdown, a waiting one the shortest running remainder
    /// first; then the best latencies of the layers left. O(idle subs) per call.
    double cost(const CycleView& v, const std::vector<int>& idle, const std::vector<int>& sol) const
    {
        const size_t I = idle.size();
        double demand = v.demand;
        for (size_t k = 0; k < I; ++k) {
            if (sol[k] < 0)
                continue;
            const int j = m_pos[size_t(sol[k])];
            demand += j >= 0 ? m_bw[size_t(j) * I + k] : v.costOf(v.ready[size_t(sol[k])], idle[k]).bandwidth;
        }
        const double stretch = std::max(1.0, demand / v.budget);
        double total = m_base;
        for (size_t k = 0; k < I; ++k) {
            const int j = sol[k] < 0 ? -1 : m_pos[size_t(sol[k])];
            if (j < 0)
                continue;
            const ReadyLayer& r = v.ready[size_t(sol[k])];
            total += lateness(r, v.now + m_lat[size_t(j) * I + k] * stretch + m_rest[size_t(j)]) - m_waitCost[size_t(j)];
        }
        return total;
    }
    static double waitEstimate(const CycleView& v)
    {
        // a waiting layer loses at least the shortest running remaining time
        double w = std::numeric_limits<double>::infinity();
        for (const SubState& s : v.subs)
            if (s.busy)
                w = std::min(w, s.remaining);
        if (std::isfinite(w))
            return w;
        double b = 0; // nothing runs: at least the shortest ready layer's best latency
        for (const ReadyLayer& r : v.ready)
            b = b == 0 ? v.cost->bestLatency(r.network, r.layer) : std::min(b, v.cost->bestLatency(r.network, r.layer));
        return b;
    }

    int m_iters, m_cands;
    std::vector<int> m_pos;                    // ready index -> candidate position (-1: not a candidate)
    std::vector<double> m_waitCost, m_rest, m_lat, m_bw;
    double m_base = 0;                         // sum of the candidates' waiting costs
    GreedyParams m_g;
    Rng m_rng {1};
};
} // namespace

std::unique_ptr<AccelScheduler> makeSearch(int iterations, int candidates, const GreedyParams& g)
{
    return std::make_unique<LocalSearch>(iterations, candidates, g);
}

} // namespace ss::accel
