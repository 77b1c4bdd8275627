// FCFS, EDF, least laxity, round-robin and the heterogeneity-aware greedy (docs/ACCELERATOR.md §6).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "policy/relmas/accelpolicies.h"
#include "policy/relmas/heuristics.h"

namespace ss::accel {

void affinityScores(const CycleView& v, std::vector<float>& scores)
{
    const size_t S = v.subs.size();
    scores.assign(v.ready.size() * S, 0.0f);
    for (size_t i = 0; i < v.ready.size(); ++i) {
        const double best = v.cost->bestLatency(v.ready[i].network, v.ready[i].layer);
        for (size_t s = 0; s < S; ++s)
            if (!v.subs[s].busy)
                scores[i * S + s] = float(best / v.costOf(v.ready[i], int(s)).latency);
    }
}

namespace {

/// Assigns ready layers in `order` each to the idle sub-accelerator with the lowest isolated latency.
void assignInOrder(const CycleView& v, const std::vector<int>& order, std::vector<Assignment>& out)
{
    std::vector<char> idle(v.subs.size());
    int nIdle = 0;
    for (size_t s = 0; s < v.subs.size(); ++s)
        nIdle += (idle[s] = !v.subs[s].busy);
    for (int i : order) {
        if (nIdle == 0)
            break;
        int best = -1;
        for (size_t s = 0; s < v.subs.size(); ++s)
            if (idle[s] && (best < 0 || v.costOf(v.ready[size_t(i)], int(s)).latency <
                                            v.costOf(v.ready[size_t(i)], best).latency))
                best = int(s);
        out.push_back({i, best});
        idle[size_t(best)] = 0;
        --nIdle;
    }
}

class OrderScheduler : public AccelScheduler {
public:
    enum class Key { Arrival, Deadline, Slack };
    OrderScheduler(std::string name, Key key) : m_name(std::move(name)), m_key(key) {}
    std::string name() const override { return m_name; }
    void schedule(const CycleView& v, std::vector<Assignment>& out, std::vector<float>* scores) override
    {
        m_order.resize(v.ready.size());
        std::iota(m_order.begin(), m_order.end(), 0);
        auto key = [&](int i) {
            const ReadyLayer& r = v.ready[size_t(i)];
            return m_key == Key::Arrival ? r.arrival : m_key == Key::Deadline ? r.deadline : r.slack;
        };
        if (m_key != Key::Arrival) // ready is already in arrival order
            std::stable_sort(m_order.begin(), m_order.end(), [&](int a, int b) { return key(a) < key(b); });
        assignInOrder(v, m_order, out);
        if (scores)
            affinityScores(v, *scores);
    }

private:
    std::string m_name;
    Key m_key;
    std::vector<int> m_order;
};

/// Requests in arrival order; sub-accelerators taken in cyclic order, blind to their dataflow.
class RoundRobin : public AccelScheduler {
public:
    std::string name() const override { return "rr"; }
    void reset(uint64_t) override { m_next = 0; }
    void schedule(const CycleView& v, std::vector<Assignment>& out, std::vector<float>* scores) override
    {
        const int S = int(v.subs.size());
        size_t i = 0;
        const int first = m_next;
        for (int k = 0; k < S && i < v.ready.size(); ++k) {
            const int s = (first + k) % S;
            if (v.subs[size_t(s)].busy)
                continue;
            out.push_back({int(i++), s});
            m_next = (s + 1) % S;
        }
        if (scores)
            affinityScores(v, *scores);
    }

private:
    int m_next = 0;
};

} // namespace

void greedyAssign(const CycleView& v, const GreedyParams& p, std::vector<Assignment>& out)
{
    const size_t S = v.subs.size();
    std::vector<int> order(v.ready.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return v.ready[size_t(a)].slack < v.ready[size_t(b)].slack; });
    std::vector<char> idle(S);
    int nIdle = 0;
    for (size_t s = 0; s < S; ++s)
        nIdle += (idle[s] = !v.subs[s].busy);
    double demand = v.demand;
    for (int i : order) {
        if (nIdle == 0)
            break;
        const ReadyLayer& r = v.ready[size_t(i)];
        // effective latency on each idle sub: its latency stretched by the slowdown its start would cause
        int best = -1;
        double bestEff = 0;
        for (size_t s = 0; s < S; ++s) {
            if (!idle[s])
                continue;
            const LayerCost& c = v.costOf(r, int(s));
            const double eff = c.latency * std::max(1.0, (demand + c.bandwidth) / v.budget);
            if (best < 0 || eff < bestEff) {
                best = int(s);
                bestEff = eff;
            }
        }
        const double cBest = v.cost->bestLatency(r.network, r.layer);
        const LayerCost& c = v.costOf(r, best);
        // best dataflow first: a layer whose best sub-accelerator is busy waits for it while its slack allows
        if (bestEff > p.waitRatio * cBest && r.slack > p.slackCycles * bestEff)
            continue;
        // bandwidth-aware: a layer with slack to spare does not push the chip far past its bandwidth budget
        if (demand + c.bandwidth > p.oversubscribe * v.budget && demand > 0 && r.slack > p.slackCycles * bestEff)
            continue;
        out.push_back({i, best});
        idle[size_t(best)] = 0;
        --nIdle;
        demand += c.bandwidth;
    }
}

namespace {
class Greedy : public AccelScheduler {
public:
    explicit Greedy(GreedyParams p) : m_p(p) {}
    std::string name() const override { return "hetero"; }
    void schedule(const CycleView& v, std::vector<Assignment>& out, std::vector<float>* scores) override
    {
        greedyAssign(v, m_p, out);
        if (scores)
            affinityScores(v, *scores);
    }

private:
    GreedyParams m_p;
};
} // namespace

std::unique_ptr<AccelScheduler> makeHeuristic(const std::string& name, const GreedyParams& g)
{
    if (name == "fcfs")
        return std::make_unique<OrderScheduler>(name, OrderScheduler::Key::Arrival);
    if (name == "edf")
        return std::make_unique<OrderScheduler>(name, OrderScheduler::Key::Deadline);
    if (name == "llf")
        return std::make_unique<OrderScheduler>(name, OrderScheduler::Key::Slack);
    if (name == "rr")
        return std::make_unique<RoundRobin>();
    if (name == "hetero")
        return std::make_unique<Greedy>(g);
    return nullptr;
}

} // namespace ss::accel
