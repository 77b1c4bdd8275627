// DL2 as the DAS table uses it (ALGORITHMS §2.10, [I] reduction for fixed-demand jobs): a learned job
// selection over a window of the W oldest queued jobs, placement least-loaded machine first. The policy
// is a softmax over per-job scores; it starts with a supervised warm-up imitating DRF (smallest dominant
// share first), then improves by online actor-critic during the run (reward per interval: the sum of the
// running jobs' progress fractions, as DL2's per-slot reward). [I] Our actor and critic are linear in
// hand-made features rather than DL2's 2-layer networks, so this needs no LibTorch and learns within one
// run; documented in docs/REPRODUCTION.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "learn/features.h"
#include "learn/policies.h"

namespace ss::learn {

namespace {

constexpr int kF = 6; // job features
constexpr int kG = 4; // critic features

class Dl2Scheduler : public Scheduler {
public:
    explicit Dl2Scheduler(const PolicyOptions& o)
        : m_backfill(o.backfill), m_window(int(o.paramD("dl2.window", 20))), m_warmup(int(o.paramD("dl2.warmup", 200))),
          m_lr(o.paramD("dl2.lr", 0.01)), m_lrSl(o.paramD("dl2.lr_sl", 0.05)), m_gamma(o.paramD("dl2.gamma", 0.99))
    {
    }
    std::string name() const override { return "dl2"; }
    /// Its learned tables and scratch are values: a copy goes on exactly as this one would.
    std::unique_ptr<Scheduler> clone() const override { return std::make_unique<Dl2Scheduler>(*this); }
    void reset(const SimSetup& setup) override
    {
        m_theta.fill(0.0);
        m_w.fill(0.0);
        m_taken.clear();
        m_selections = 0;
        m_lastT = -1;
        m_total = std::max(1, setup.cluster.totalGpus());
    }

    void schedule(SchedContext& ctx) override
    {
        // Credit the previous decision with the progress made since (DL2's reward) and update actor/critic.
        std::array<double, kG> psi = global(ctx);
        if (m_lastT >= 0 && !m_taken.empty()) {
            double r = 0;
            for (int j : ctx.runningJobs())
                r += ctx.rt(j).rate * (ctx.now() - m_lastT) / std::max(1.0, ctx.job(j).duration);
            const double v = dot(m_w, m_lastPsi), v2 = dot(m_w, psi);
            const double delta = std::clamp(r + m_gamma * v2 - v, -5.0, 5.0);
            for (int k = 0; k < kG; ++k)
                m_w[size_t(k)] += m_lr * delta * m_lastPsi[size_t(k)];
            if (m_selections > m_warmup)
                for (const auto& g : m_taken)
                    for (int k = 0; k < kF; ++k)
                        m_theta[size_t(k)] += m_lr * delta * g[size_t(k)];
        }
        m_taken.clear();
        m_lastT = ctx.now();
        m_lastPsi = psi;

        std::vector<int> window;
        ctx.forEachPending([&](int j) {
            window.push_back(j);
            return int(window.size()) < m_window;
        });
        std::vector<std::array<double, kF>> phi(window.size());
        for (size_t i = 0; i < window.size(); ++i)
            phi[i] = features(ctx, window[i]);
        std::vector<char> done(window.size(), 0);
        std::vector<ScoredJob> ranked;
        for (;;) {
            std::vector<size_t> cand;
            for (size_t i = 0; i < window.size(); ++i)
                if (!done[i] && canFitNow(ctx, window[i]))
                    cand.push_back(i);
            if (cand.empty())
                break;
            std::vector<double> p(cand.size());
            double mx = -1e300;
            for (size_t k = 0; k < cand.size(); ++k)
                mx = std::max(mx, p[k] = dot(m_theta, phi[cand[k]]));
            double z = 0;
            for (double& x : p)
                z += (x = std::exp(x - mx));
            for (double& x : p)
                x /= z;
            size_t pick;
            if (m_selections < m_warmup) {
                // DRF teacher: smallest dominant share (GPU demand / cluster), oldest first on ties.
                pick = 0;
                for (size_t k = 1; k < cand.size(); ++k)
                    if (phi[cand[k]][1] < phi[cand[pick]][1])
                        pick = k;
                // Supervised step on the teacher's choice: grad log softmax = phi_a - E[phi].
                for (int f = 0; f < kF; ++f) {
                    double e = 0;
                    for (size_t k = 0; k < cand.size(); ++k)
                        e += p[k] * phi[cand[k]][size_t(f)];
                    m_theta[size_t(f)] += m_lrSl * (phi[cand[pick]][size_t(f)] - e);
                }
            } else {
                double u = ctx.rng().uniform();
                pick = cand.size() - 1;
                for (size_t k = 0; k < cand.size(); ++k) {
                    u -= p[k];
                    if (u <= 0) {
                        pick = k;
                        break;
                    }
                }
            }
            ++m_selections;
            const size_t i = cand[pick];
            done[i] = 1;
            std::array<double, kF> g {};
            for (int f = 0; f < kF; ++f) {
                double e = 0;
                for (size_t k = 0; k < cand.size(); ++k)
                    e += p[k] * phi[cand[k]][size_t(f)];
                g[size_t(f)] = phi[i][size_t(f)] - e;
            }
            const int j = window[i];
            std::vector<int> order(size_t(ctx.cluster().machineCount()));
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(),
                             [&](int a, int b) { return ctx.state().freeGpus(a) > ctx.state().freeGpus(b); });
            std::vector<GpuSlot> slots = collectSlots(ctx, j, order);
            if (ctx.recording())
                ranked.push_back(ScoredJob{j, float(p[pick])});
            if (slots.empty())
                continue;
            ctx.start(j, slots, "dl2");
            m_taken.push_back(g);
        }
        if (ctx.recording() && !ranked.empty())
            ctx.recordQueue(std::move(ranked));
    }

private:
    bool m_backfill;
    int m_window, m_warmup;
    double m_lr, m_lrSl, m_gamma;
    int m_total = 1;
    long m_selections = 0;
    double m_lastT = -1;
    std::array<double, kF> m_theta {};
    std::array<double, kG> m_w {}, m_lastPsi {};
    std::vector<std::array<double, kF>> m_taken;

    template <size_t N> static double dot(const std::array<double, N>& a, const std::array<double, N>& b)
    {
        double s = 0;
        for (size_t i = 0; i < N; ++i)
            s += a[i] * b[i];
        return s;
    }
    std::array<double, kF> features(const SchedContext& ctx, int j) const
    {
        const Job& job = ctx.job(j);
        const double g = job.fractional() ? job.gpus : double(job.wholeGpus());
        return {1.0, g / m_total, std::min(10.0, (ctx.now() - job.submit) / 1200.0) / 10.0,
                std::log1p(job.duration / 60.0) / 6.0,
                ctx.rt(j).remainingAt(ctx.now()) / std::max(1.0, job.duration), std::log2(g + 1.0) / 3.0};
    }
    std::array<double, kG> global(const SchedContext& ctx) const
    {
        return {1.0, double(ctx.state().totalFreeGpus()) / m_total, std::log1p(double(ctx.pendingCount())) / 5.0,
                std::log1p(double(ctx.runningJobs().size())) / 5.0};
    }
};

} // namespace

std::unique_ptr<Scheduler> makeDl2Policy(const PolicyOptions& opts)
{
    return std::make_unique<Dl2Scheduler>(opts);
}

} // namespace ss::learn
