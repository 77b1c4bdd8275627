// RIFLING (ALGORITHMS §2.10): tabular Q-learning over job groups. Jobs are grouped by a computation /
// communication proxy (work per GPU vs GPUs spanned; quantile bins recomputed every 64 arrivals); the
// state adds the cluster's free-GPU level. Actions: consolidate (best fit), spread (least loaded),
// fastest GPU type, or wait. FCFS order, epsilon-greedy, Q learned online during the run. The reward is the
// processing rate the placement reached relative to the job alone on the fastest type ([I] reading of
// "change in processing rate"); waiting while the job fits costs a little.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "learn/features.h"
#include "learn/policies.h"

namespace ss::learn {

namespace {

class RiflingScheduler : public Scheduler {
public:
    static constexpr int kGroups = 4, kLoads = 4, kActions = 4;
    explicit RiflingScheduler(const PolicyOptions& o)
        : m_backfill(o.backfill), m_alpha(o.paramD("rifling.alpha", 0.2)), m_gamma(o.paramD("rifling.gamma", 0.5)),
          m_eps(o.paramD("rifling.epsilon", 0.1))
    {
    }
    std::string name() const override { return "rifling"; }
    /// Its learned tables and scratch are values: a copy goes on exactly as this one would.
    std::unique_ptr<Scheduler> clone() const override { return std::make_unique<RiflingScheduler>(*this); }
    void reset(const SimSetup& setup) override
    {
        for (auto& row : m_q)
            row.fill(0.0);
        // Optimistic start for "place" actions so that each gets tried before "wait".
        for (auto& row : m_q)
            for (int a = 0; a < 3; ++a)
                row[size_t(a)] = 0.5;
        m_seen.clear();
        m_bounds = {0, 0, 0};
        m_maxSpeed = 1e-6;
        for (const GpuType& t : setup.cluster.types)
            m_maxSpeed = std::max(m_maxSpeed, t.speed);
    }

    void schedule(SchedContext& ctx) override
    {
        std::vector<int> queue = ctx.pendingJobs();
        std::vector<ScoredJob> ranked;
        for (size_t i = 0; i < queue.size(); ++i) {
            const int j = queue[i];
            noteJob(ctx.job(j));
            if (!canFitNow(ctx, j)) {
                if (!m_backfill)
                    break;
                continue;
            }
            const int s = state(ctx, j);
            int a;
            if (ctx.rng().uniform() < m_eps)
                a = int(ctx.rng().below(kActions));
            else
                a = int(std::max_element(m_q[size_t(s)].begin(), m_q[size_t(s)].end()) - m_q[size_t(s)].begin());
            if (ctx.recording())
                ranked.push_back(ScoredJob{j, float(m_q[size_t(s)][size_t(a)])});
            double r;
            bool placed = false;
            if (a == 3) {
                r = -0.05;
            } else {
                std::vector<GpuSlot> slots = collectSlots(ctx, j, machineOrder(ctx, j, a));
                if (ctx.recording())
                    ctx.recordPlacement(j, slots, affinity(ctx, j, a), slots.empty() ? "no fit" : kNames[size_t(a)]);
                if (slots.empty()) {
                    r = -0.05;
                } else {
                    const double rate = ctx.start(j, slots, kNames[size_t(a)]);
                    r = std::min(1.0, rate / m_maxSpeed);
                    placed = true;
                }
            }
            const int s2 = state(ctx, j);
            const double target = r + m_gamma * *std::max_element(m_q[size_t(s2)].begin(), m_q[size_t(s2)].end());
            m_q[size_t(s)][size_t(a)] += m_alpha * (target - m_q[size_t(s)][size_t(a)]);
            if (!placed && !m_backfill)
                break;
        }
        if (ctx.recording() && !ranked.empty())
            ctx.recordQueue(std::move(ranked));
    }

    const std::array<std::array<double, kActions>, kGroups * kLoads>& table() const { return m_q; }

private:
    static constexpr std::array<const char*, 3> kNames = {"rifling:consolidate", "rifling:spread", "rifling:fastest"};
    bool m_backfill;
    double m_alpha, m_gamma, m_eps;
    double m_maxSpeed = 1;
    std::array<std::array<double, kActions>, kGroups * kLoads> m_q {};
    std::vector<double> m_seen;
    std::array<double, 3> m_bounds {};

    static double ratio(const Job& j)
    {
        // Computation per communication proxy: work per GPU over the GPUs that must synchronise.
        return std::log1p(j.duration) - std::log2(double(j.wholeGpus()) + 1.0);
    }
    void noteJob(const Job& j)
    {
        m_seen.push_back(ratio(j));
        if (m_seen.size() % 64 == 1) {
            std::vector<double> v = m_seen;
            std::sort(v.begin(), v.end());
            for (int q = 0; q < 3; ++q)
                m_bounds[size_t(q)] = v[std::min(v.size() - 1, v.size() * size_t(q + 1) / 4)];
        }
    }
    int state(const SchedContext& ctx, int j) const
    {
        const double x = ratio(ctx.job(j));
        int g = 0;
        while (g < 3 && x > m_bounds[size_t(g)])
            ++g;
        const double freeFrac = double(ctx.state().totalFreeGpus()) / std::max(1, ctx.cluster().totalGpus());
        const int l = std::min(kLoads - 1, int(freeFrac * kLoads));
        return g * kLoads + l;
    }
    std::vector<int> machineOrder(const SchedContext& ctx, int j, int a) const
    {
        const ClusterSpec& c = ctx.cluster();
        const ClusterState& s = ctx.state();
        const int need = ctx.job(j).fractional() ? 1 : ctx.job(j).wholeGpus();
        std::vector<int> order(size_t(c.machineCount()));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
            const int fx = s.freeGpus(x), fy = s.freeGpus(y);
            if (a == 0) { // best fit: smallest free count that holds the job, then the rest by most free
                const bool hx = fx >= need, hy = fy >= need;
                if (hx != hy)
                    return hx;
                return hx ? fx < fy : fx > fy;
            }
            if (a == 1)
                return fx > fy;
            const double vx = c.types[size_t(c.machines[size_t(x)].type)].speed;
            const double vy = c.types[size_t(c.machines[size_t(y)].type)].speed;
            if (vx != vy)
                return vx > vy;
            return fx > fy;
        });
        return order;
    }
    std::vector<float> affinity(const SchedContext& ctx, int j, int a) const
    {
        const auto order = machineOrder(ctx, j, a);
        std::vector<float> aff(order.size());
        for (size_t r = 0; r < order.size(); ++r)
            aff[size_t(order[r])] = float(order.size() - r) / float(order.size());
        return aff;
    }
};

} // namespace

std::unique_ptr<Scheduler> makeRiflingPolicy(const PolicyOptions& opts)
{
    return std::make_unique<RiflingScheduler>(opts);
}

} // namespace ss::learn
