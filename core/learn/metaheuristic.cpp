// MALO (multi-objective ant lion optimiser) and MOSA (multi-objective simulated annealing) over the joint
// order x placement of the waiting jobs (ALGORITHMS §2.10). Both minimise (predicted JCT, predicted fee)
// with a Pareto archive and pick the final plan by a weighted sum; the search budget per decision is fixed
// (iterations), so runs are interactive and deterministic for a seed.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "learn/features.h"
#include "learn/policies.h"

namespace ss::learn {

namespace {

struct Plan {
    std::vector<int> order;  ///< permutation of the window
    std::vector<int> anchor; ///< per window slot: machine the job's placement starts from
    double jct = 0, fee = 0;
};

bool dominates(const Plan& a, const Plan& b)
{
    return a.jct <= b.jct && a.fee <= b.fee && (a.jct < b.jct || a.fee < b.fee);
}

class MetaScheduler : public Scheduler {
public:
    MetaScheduler(std::string name, const PolicyOptions& o)
        : m_name(std::move(name)), m_backfill(o.backfill), m_window(int(o.paramD("meta.window", 24))),
          m_budget(int(o.paramD("meta.evals", 240))), m_wFee(o.paramD("meta.fee_weight", 0.5))
    {
    }
    std::string name() const override { return m_name; }
    /// Its learned tables and scratch are values: a copy goes on exactly as this one would.
    std::unique_ptr<Scheduler> clone() const override { return std::make_unique<MetaScheduler>(*this); }

    void reset(const SimSetup& setup) override
    {
        m_speed.clear();
        m_price.clear();
        for (const Machine& m : setup.cluster.machines) {
            m_speed.push_back(std::max(1e-6, setup.cluster.types[size_t(m.type)].speed));
            m_price.push_back(setup.cluster.types[size_t(m.type)].pricePerHour);
        }
    }

    void schedule(SchedContext& ctx) override
    {
        m_jobs.clear();
        ctx.forEachPending([&](int j) {
            m_jobs.push_back(j);
            return int(m_jobs.size()) < m_window;
        });
        bool any = false;
        for (int j : m_jobs)
            any = any || canFitNow(ctx, j);
        if (!any)
            return;
        prepare(ctx);
        Plan best = m_name == "malo" ? searchMalo(ctx) : searchMosa(ctx);
        if (ctx.recording()) {
            std::vector<ScoredJob> ranked;
            for (size_t k = 0; k < best.order.size(); ++k)
                ranked.push_back(ScoredJob{m_jobs[size_t(best.order[k])], float(best.order.size() - k)});
            ctx.recordQueue(std::move(ranked));
        }
        for (int slot : best.order) {
            const int j = m_jobs[size_t(slot)];
            if (!canFitNow(ctx, j)) {
                if (!m_backfill)
                    break;
                continue;
            }
            std::vector<GpuSlot> slots = collectSlots(ctx, j, machineOrder(ctx, j, best.anchor[size_t(slot)]));
            if (ctx.recording()) {
                std::vector<float> aff(size_t(ctx.cluster().machineCount()), 0.f);
                const auto mo = machineOrder(ctx, j, best.anchor[size_t(slot)]);
                for (size_t r = 0; r < mo.size(); ++r)
                    aff[size_t(mo[r])] = float(mo.size() - r) / float(mo.size());
                ctx.recordPlacement(j, slots, std::move(aff), slots.empty() ? "no fit" : m_name);
            }
            if (slots.empty()) {
                if (!m_backfill)
                    break;
                continue;
            }
            ctx.start(j, slots, m_name);
        }
    }

private:
    std::string m_name;
    bool m_backfill;
    int m_window, m_budget;
    double m_wFee;
    std::vector<double> m_speed, m_price;
    std::vector<int> m_jobs, m_free0, m_need;
    std::vector<double> m_wait, m_work;
    double m_delay = 0;
    double m_scaleJ = 1, m_scaleF = 1;
    std::vector<std::pair<int, int>> m_taken;

    // Machines that hold the whole job first, then the rest, both starting at `anchor` (wrapping).
    std::vector<int> machineOrder(const SchedContext& ctx, int j, int anchor) const
    {
        const int M = ctx.cluster().machineCount();
        const int need = ctx.job(j).fractional() ? 1 : ctx.job(j).wholeGpus();
        std::vector<int> a, b;
        for (int k = 0; k < M; ++k) {
            const int m = (anchor + k) % M;
            (ctx.state().freeGpus(m) >= need ? a : b).push_back(m);
        }
        a.insert(a.end(), b.begin(), b.end());
        return a;
    }

    void prepare(const SchedContext& ctx)
    {
        const int M = ctx.cluster().machineCount();
        m_free0.assign(size_t(M), 0);
        for (int m = 0; m < M; ++m)
            m_free0[size_t(m)] = ctx.state().freeGpus(m);
        m_need.clear();
        m_wait.clear();
        m_work.clear();
        for (int j : m_jobs) {
            const Job& job = ctx.job(j);
            m_need.push_back(job.fractional() ? 1 : job.wholeGpus());
            m_wait.push_back(std::max(0.0, ctx.now() - job.submit));
            m_work.push_back(std::max(1.0, ctx.rt(j).remainingAt(ctx.now())));
        }
        // Expected delay of a job left waiting: the mean remaining time of the running jobs ([I] estimate).
        double rem = 0;
        int n = 0;
        for (int r : ctx.runningJobs()) {
            rem += ctx.rt(r).remainingAt(ctx.now()) / std::max(1e-6, ctx.rt(r).rate);
            ++n;
        }
        m_delay = n ? rem / n : 600.0;
        m_scaleJ = 1;
        m_scaleF = 1;
        Plan fifo = initial(ctx);
        m_scaleJ = std::max(1.0, fifo.jct);
        m_scaleF = std::max(1e-6, fifo.fee);
    }

    Plan initial(const SchedContext& ctx)
    {
        Plan p;
        p.order.resize(m_jobs.size());
        std::iota(p.order.begin(), p.order.end(), 0);
        p.anchor.assign(m_jobs.size(), 0);
        evaluate(ctx, p);
        return p;
    }

    // Predicted objectives of a plan on a scratch copy of the free GPU counts.
    void evaluate(const SchedContext& ctx, Plan& p)
    {
        const int M = int(m_free0.size());
        std::vector<int> free = m_free0;
        double jct = 0, fee = 0;
        int waitingAhead = 0;
        const double running = std::max<size_t>(1, ctx.runningJobs().size());
        for (int slot : p.order) {
            const int need = m_need[size_t(slot)];
            int left = need, machines = 0;
            double minSpeed = 1e300, price = 0;
            m_taken.clear();
            for (int pass = 0; pass < 2 && left > 0; ++pass)
                for (int k = 0; k < M && left > 0; ++k) {
                    const int m = (p.anchor[size_t(slot)] + k) % M;
                    if (free[size_t(m)] == 0 || (pass == 0 && free[size_t(m)] < need))
                        continue;
                    const int take = std::min(left, free[size_t(m)]);
                    free[size_t(m)] -= take;
                    m_taken.emplace_back(m, take);
                    left -= take;
                    ++machines;
                    minSpeed = std::min(minSpeed, m_speed[size_t(m)]);
                    price += take * m_price[size_t(m)];
                }
            if (left > 0) {
                for (auto [m, take] : m_taken) // the job stays queued: give back a partial take
                    free[size_t(m)] += take;
                const double d = m_delay * (1.0 + waitingAhead / running);
                jct += m_wait[size_t(slot)] + d + m_work[size_t(slot)];
                fee += need * m_price[0] * m_work[size_t(slot)] / 3600.0;
                ++waitingAhead;
                continue;
            }
            const double dur = m_work[size_t(slot)] / minSpeed * (1.0 + 0.1 * (machines - 1));
            jct += m_wait[size_t(slot)] + dur;
            fee += price * dur / 3600.0;
        }
        p.jct = jct;
        p.fee = fee;
    }

    double scalar(const Plan& p) const { return (1 - m_wFee) * p.jct / m_scaleJ + m_wFee * p.fee / m_scaleF; }

    void mutate(Plan& p, Rng& rng, int moves)
    {
        const int n = int(p.order.size());
        const int M = int(m_free0.size());
        for (int k = 0; k < moves; ++k) {
            if (n > 1 && rng.uniform() < 0.6)
                std::swap(p.order[size_t(rng.below(uint64_t(n)))], p.order[size_t(rng.below(uint64_t(n)))]);
            else
                p.anchor[size_t(rng.below(uint64_t(n)))] = int(rng.below(uint64_t(M)));
        }
    }

    static void archiveAdd(std::vector<Plan>& archive, const Plan& p, size_t cap = 32)
    {
        for (const Plan& a : archive)
            if (dominates(a, p) || (a.jct == p.jct && a.fee == p.fee))
                return;
        archive.erase(std::remove_if(archive.begin(), archive.end(), [&](const Plan& a) { return dominates(p, a); }),
                      archive.end());
        if (archive.size() < cap)
            archive.push_back(p);
    }

    Plan pick(const std::vector<Plan>& archive) const
    {
        return *std::min_element(archive.begin(), archive.end(),
                                 [&](const Plan& a, const Plan& b) { return scalar(a) < scalar(b); });
    }

    Plan searchMosa(SchedContext& ctx)
    {
        Rng& rng = ctx.rng();
        Plan cur = initial(ctx);
        std::vector<Plan> archive{cur};
        double T = 0.2;
        const double cool = std::pow(0.01, 1.0 / std::max(1, m_budget));
        for (int it = 0; it < m_budget; ++it) {
            Plan nb = cur;
            mutate(nb, rng, 1);
            evaluate(ctx, nb);
            const double delta = scalar(nb) - scalar(cur);
            if (dominates(nb, cur) || delta < 0 || rng.uniform() < std::exp(-delta / T))
                cur = nb;
            archiveAdd(archive, nb);
            T *= cool;
        }
        return pick(archive);
    }

    Plan searchMalo(SchedContext& ctx)
    {
        Rng& rng = ctx.rng();
        const int pop = 8;
        const int iters = std::max(1, m_budget / pop);
        std::vector<Plan> lions;
        lions.push_back(initial(ctx));
        while (int(lions.size()) < pop) {
            Plan p = lions.front();
            mutate(p, rng, 3);
            evaluate(ctx, p);
            lions.push_back(p);
        }
        std::vector<Plan> archive;
        for (const Plan& p : lions)
            archiveAdd(archive, p);
        for (int it = 0; it < iters; ++it) {
            // The walk's radius shrinks as iterations go (the ant lion's sliding trap).
            const int radius = std::max(1, int(std::lround(4.0 * (1.0 - double(it) / iters))));
            const Plan elite = archive[size_t(rng.below(archive.size()))];
            for (int a = 0; a < pop; ++a) {
                // Roulette on the weighted sum: better lions trap more ants.
                double tot = 0;
                for (const Plan& l : lions)
                    tot += 1.0 / (1e-9 + scalar(l));
                double u = rng.uniform() * tot;
                int li = 0;
                for (; li < pop - 1; ++li) {
                    u -= 1.0 / (1e-9 + scalar(lions[size_t(li)]));
                    if (u <= 0)
                        break;
                }
                Plan ant = rng.uniform() < 0.5 ? lions[size_t(li)] : elite;
                mutate(ant, rng, radius);
                evaluate(ctx, ant);
                archiveAdd(archive, ant);
                if (dominates(ant, lions[size_t(li)]) || scalar(ant) < scalar(lions[size_t(li)]))
                    lions[size_t(li)] = ant;
            }
        }
        return pick(archive);
    }
};

} // namespace

std::unique_ptr<Scheduler> makeMetaheuristicPolicy(const std::string& name, const PolicyOptions& opts)
{
    return std::make_unique<MetaScheduler>(name, opts);
}

} // namespace ss::learn
