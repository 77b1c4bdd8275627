// MAPPO for the DAS dual agent (ALGORITHMS §2.8): two Gaussian actors (ordering, placement) updated with
// clipped PPO against one shared advantage from a centralised state-value critic V(s) with GAE (critic "v", the
// default), or against the seed's Q-critic Q_phi(O^j, O^c, a^j, A^c) (critic "q", §2.1b): TD targets
// y_t = r_t + gamma Q_phi_old(s_{t+1}, a_{t+1}) from a target network phi_old copied from the online critic at the start
// of every PPO epoch, the targets recomputed then ([I]: periodic, "old" as theta_old; once per iteration propagated the
// return one step per iteration, too slow for gamma 0.99; a_{t+1} is the action the acting policy took there), and
// per-agent counterfactual advantages Q(s, a) - E_{a' ~ pi_old}[Q(s, a')] over the agent's own alternatives, the other
// agent's action held fixed ([I], COMA-style; critic.h).
#include "learn/trainer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>

#include "learn/critic.h"
#include "learn/moduleapi.h"
#include "learn/nets.h"
#include "learn/rwgp.h"
#include "metrics/metrics.h"
#include "run/runner.h"

namespace ss::learn {

// The module's Trainer (learn/trainer.h's Trainer, in the executables, forwards to it through moduleapi.h).
class TorchTrainer final : public TrainerBackend {
public:
    explicit TorchTrainer(TrainConfig cfg);
    ~TorchTrainer() override;
    bool step() override;
    int iteration() const override;
    TrainStats lastStats() const override;
    std::pair<double, double> evaluate(const Trace& trace) const override;
    std::pair<double, double> evaluateBaseline(const std::string& policy, const Trace& trace) const override;
    int bestIteration() const override;
    void save(const std::string& path) const override;
    const TrainConfig& config() const override;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

std::unique_ptr<TrainerBackend> makeTorchTrainer(TrainConfig cfg) { return std::make_unique<TorchTrainer>(std::move(cfg)); }

namespace {

/// Runs task(0..n-1) on min(workers, n) threads (the calling thread is one of them); each task writes only its
/// own slot of the caller's result vector, so the caller merges in task order whatever thread ran what. Grad
/// mode is per thread in LibTorch: every worker runs under its own NoGradGuard. at::set_num_threads is
/// process-wide for the pthreadpool but per thread for OpenMP (a new thread starts at the OpenMP default, the
/// core count): each worker sets 1 itself, under a lock, so that k workers use k cores and not k x cores. The
/// first exception (in task order) is rethrown after every thread has joined.
template <class Task>
void parallelTasks(int n, int workers, Task task)
{
    const int threads = std::max(1, std::min(workers, n));
    if (threads == 1) {
        torch::NoGradGuard ng;
        for (int i = 0; i < n; ++i)
            task(i);
        return;
    }
    static std::mutex threadsMu;
    std::atomic<int> next{0};
    std::vector<std::exception_ptr> errors(static_cast<size_t>(n));
    auto work = [&] {
        {
            std::lock_guard<std::mutex> lock(threadsMu);
            torch::set_num_threads(1);
        }
        torch::NoGradGuard ng;
        for (int i; (i = next.fetch_add(1)) < n;) {
            try {
                task(i);
            } catch (...) {
                errors[size_t(i)] = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread& t : pool)
        t.join();
    for (const std::exception_ptr& e : errors)
        if (e)
            std::rethrow_exception(e);
}

} // namespace

struct TorchTrainer::Impl {
    TrainConfig cfg;
    std::shared_ptr<DasAgent> agent;
    /// The Q-critic's target network phi_old (critic "q" only).
    Critic target{nullptr};
    std::unique_ptr<torch::optim::Adam> opt;
    Rng rng;
    int iteration = 0;
    int64_t envSteps = 0;
    TrainStats last;
    // Early stopping on the validation trace: a copy of the best parameters and their score.
    std::vector<torch::Tensor> best;
    double bestScore = 0;
    int bestIteration = -1;

    /// The Q-critic's episodes in this iteration's flattened steps (first step, length) and the rewards of those steps.
    std::vector<std::pair<int, int>> qSpans;
    std::vector<double> qRewards;

    /// phi_old <- phi and the TD targets of this iteration's steps (flattened, `qin` their inputs) from it.
    void refreshTargets(const std::vector<torch::Tensor>& qin, std::vector<float>& y)
    {
        torch::NoGradGuard ng;
        syncTarget();
        auto qt = target->forward(torch::stack(qin)).contiguous();
        const float* p = qt.data_ptr<float>();
        for (const auto& [b, T] : qSpans) {
            std::vector<double> r(qRewards.begin() + b, qRewards.begin() + b + T), next(size_t(T), 0.0);
            for (int t = 0; t + 1 < T; ++t)
                next[size_t(t)] = p[b + t + 1];
            const std::vector<double> yt = qTdTargets(r, next, cfg.gamma);
            for (int t = 0; t < T; ++t)
                y[size_t(b + t)] = float(yt[size_t(t)]);
        }
    }

    /// phi_old <- phi (the Q-critic's target network).
    void syncTarget()
    {
        torch::NoGradGuard ng;
        auto src = agent->critic->parameters();
        auto dst = target->parameters();
        for (size_t i = 0; i < src.size(); ++i)
            dst[i].copy_(src[i]);
    }

    /// The Q-critic's part of one episode: appends its steps, the ordering and placement advantages
    /// Q(s, a) - E_pi_old[Q] (critic.h expectedQ over each agent's alternatives), the TD targets (critic.h qTdTargets,
    /// from the target network) and the critic input of each action taken.
    void qEpisode(const Episode& ep, std::vector<const StepSample*>& steps, std::vector<float>& advO,
                  std::vector<float>& advP, std::vector<float>& target_, std::vector<torch::Tensor>& qin,
                  double& rewardSum, double& criticErr)
    {
        torch::NoGradGuard ng;
        const int T = int(ep.steps.size());
        std::vector<torch::Tensor> xs, alts;
        std::vector<std::vector<float>> po(static_cast<size_t>(T)), pp(static_cast<size_t>(T));
        std::vector<int64_t> nO(static_cast<size_t>(T), 0), nP(static_cast<size_t>(T), 0);
        for (int t = 0; t < T; ++t) {
            const StepSample& s = ep.steps[size_t(t)];
            const bool hasJob = s.topJob >= 0 && s.topJob < s.jobs.size(0);
            const bool hasMachine = s.machines.defined() && s.topMachine >= 0 && s.topMachine < s.machines.size(0);
            auto jrow = hasJob ? s.jobs[s.topJob].unsqueeze(0) : torch::zeros({1, kJobFeatures});
            auto mrow = hasMachine ? s.machines[s.topMachine].unsqueeze(0) : torch::zeros({1, kCriticMachine});
            xs.push_back(qInput(s.global, s.jobs, jrow, mrow));
            // Alternatives the acting policy could have taken (probability > 0 in its Monte Carlo estimate).
            std::vector<int64_t> io, ip;
            for (size_t i = 0; i < s.orderTop.size() && hasJob; ++i)
                if (s.orderTop[i] > 0) {
                    io.push_back(int64_t(i));
                    po[size_t(t)].push_back(s.orderTop[i]);
                }
            for (size_t m = 0; m < s.placeTop.size() && hasMachine; ++m)
                if (s.placeTop[m] > 0) {
                    ip.push_back(int64_t(m));
                    pp[size_t(t)].push_back(s.placeTop[m]);
                }
            nO[size_t(t)] = int64_t(io.size());
            nP[size_t(t)] = int64_t(ip.size());
            if (!io.empty()) {
                auto rows = s.jobs.index_select(0, torch::tensor(io, torch::kLong));
                alts.push_back(qInput(s.global, s.jobs, rows, mrow.expand({int64_t(io.size()), kCriticMachine})));
            }
            if (!ip.empty()) {
                auto rows = s.machines.index_select(0, torch::tensor(ip, torch::kLong));
                alts.push_back(qInput(s.global, s.jobs, jrow.expand({int64_t(ip.size()), kJobFeatures}), rows));
            }
        }
        auto X = torch::cat(xs);
        auto q = agent->critic->forward(X).contiguous();
        auto qt = target->forward(X).contiguous();
        torch::Tensor qa = alts.empty() ? torch::zeros({0}) : agent->critic->forward(torch::cat(alts)).contiguous();
        const float* pq = q.data_ptr<float>();
        const float* pqt = qt.data_ptr<float>();
        const float* pa = qa.data_ptr<float>();
        std::vector<double> r(static_cast<size_t>(T)), next(static_cast<size_t>(T), 0.0);
        for (int t = 0; t < T; ++t) {
            r[size_t(t)] = ep.steps[size_t(t)].reward;
            if (t + 1 < T)
                next[size_t(t)] = pqt[t + 1];
        }
        const std::vector<double> y = qTdTargets(r, next, cfg.gamma);
        double mc = 0;
        std::vector<double> ret(static_cast<size_t>(T));
        for (int t = T - 1; t >= 0; --t)
            ret[size_t(t)] = mc = r[size_t(t)] + cfg.gamma * mc;
        qSpans.emplace_back(int(steps.size()), T);
        int64_t off = 0;
        for (int t = 0; t < T; ++t) {
            const size_t ts = size_t(t);
            std::vector<float> qo(pa + off, pa + off + nO[ts]);
            off += nO[ts];
            std::vector<float> qp(pa + off, pa + off + nP[ts]);
            off += nP[ts];
            rewardSum += r[ts];
            qRewards.push_back(r[ts]);
            // As the V-critic's: the value before this update against the discounted return the episode paid.
            criticErr += (pq[t] - ret[ts]) * (pq[t] - ret[ts]);
            steps.push_back(&ep.steps[ts]);
            advO.push_back(float(pq[t] - expectedQ(qo, po[ts])));
            advP.push_back(float(pq[t] - expectedQ(qp, pp[ts])));
            target_.push_back(float(y[ts]));
            qin.push_back(X[t]);
        }
    }

    /// Scores the current policy on the validation trace; keeps a copy if it is the best so far.
    std::pair<double, double> validate()
    {
        torch::NoGradGuard ng;
        auto [jct, fee] = evalMean(cfg.validTrace);
        const double score = jct * fee;
        if (bestIteration < 0 || score < bestScore) {
            bestScore = score;
            bestIteration = iteration;
            best.clear();
            for (const torch::Tensor& p : agent->parameters())
                best.push_back(p.detach().clone());
        }
        return {jct, fee};
    }

    Trace window(int64_t salt)
    {
        const Trace& t = cfg.trace;
        const int n = int(t.jobs.size());
        if (cfg.episodeJobs <= 0 || cfg.episodeJobs >= n)
            return t;
        const int start = int(rng.below(uint64_t(n - cfg.episodeJobs + 1)));
        Trace w;
        w.name = t.name;
        w.models = t.models;
        w.users = t.users;
        w.vcs = t.vcs;
        w.qosClasses = t.qosClasses;
        w.gpuSpecs = t.gpuSpecs;
        w.machineSets = t.machineSets;
        const double t0 = t.jobs[size_t(start)].submit;
        for (int i = start; i < start + cfg.episodeJobs; ++i) {
            Job j = t.jobs[size_t(i)];
            j.submit -= t0;
            j.started -= t0;
            w.jobs.push_back(std::move(j));
        }
        (void)salt;
        return w;
    }

    /// Mean (JCT, fee) of run(seed) over the cfg.evalReplicas evaluation perf-model seeds.
    template <class Run>
    std::pair<double, double> overReplicas(Run run) const
    {
        const int R = std::max(1, cfg.evalReplicas);
        std::vector<std::pair<double, double>> out(static_cast<size_t>(R));
        parallelTasks(R, cfg.workers, [&](int k) { out[size_t(k)] = run(cfg.evalSeed(k)); });
        double jct = 0, fee = 0;
        for (const auto& [j, f] : out) { // replica order, whatever thread ran each
            jct += j;
            fee += f;
        }
        return {jct / R, fee / R};
    }

    /// Mean JCT and fee of the deterministic policy over cfg.evalReplicas perf-model seeds.
    std::pair<double, double> evalMean(const Trace& trace) const
    {
        return overReplicas([&](uint64_t seed) { return runEval(trace, nullptr, seed, false); });
    }

    std::pair<double, double> runEval(const Trace& trace, Episode* collect, uint64_t seed, bool sample) const
    {
        auto sched = makeDasScheduler(agent, collect, false, sample, true);
        RunConfig rc;
        rc.seed = seed;
        rc.perf = cfg.perf;
        Simulator sim(cfg.cluster, trace, *sched, rc);
        MetricsCollector metrics;
        sim.addObserver(&metrics);
        sim.run();
        const Summary s = metrics.summary();
        return {s.meanJctMin, s.meanFeeUsd};
    }
};

TorchTrainer::TorchTrainer(TrainConfig cfg) : d(std::make_unique<Impl>())
{
    d->cfg = std::move(cfg);
    TrainConfig& c = d->cfg;
    if (c.trace.jobs.empty())
        throw std::invalid_argument("train: the training trace has no jobs");
    if (c.cluster.machineCount() == 0)
        throw std::invalid_argument("train: the cluster has no machines");
    if (c.iterations < 0 || c.episodesPerIteration < 1 || c.ppoEpochs < 1 || c.minibatch < 1)
        throw std::invalid_argument("train: iterations, episodes, epochs and minibatch must be positive");
    torch::set_num_threads(1);
    d->rng.reseed(c.seed);
    AgentConfig ac;
    ac.variant = c.policy;
    ac.dModel = c.dModel;
    ac.heads = c.heads;
    ac.layers = c.layers;
    ac.tau = c.tau;
    ac.rwgpKernel = c.rwgpKernel;
    rwgpKernelFromString(c.rwgpKernel); // throws std::invalid_argument for an unknown name
    if (!c.critic.empty() && c.critic != "v" && c.critic != "q")
        throw std::invalid_argument("train: critic must be v or q, not '" + c.critic + "'");
    ac.critic = c.critic.empty() ? "v" : c.critic;
    ac.maxQueue = c.maxQueue;
    if (!c.resume.empty()) {
        CheckpointMeta meta;
        d->agent = loadCheckpoint(c.resume, &meta);
        if (meta.agent.variant != c.policy)
            throw std::runtime_error(c.resume + ": checkpoint is for policy '" + meta.agent.variant + "', not '"
                                     + c.policy + "'");
        if (!c.critic.empty() && meta.agent.critic != c.critic)
            throw std::runtime_error(c.resume + ": checkpoint has a " + meta.agent.critic
                                     + "-critic, the run demands critic " + c.critic);
        if (meta.clusterFingerprint != c.cluster.fingerprint())
            throw std::runtime_error(c.resume + ": checkpoint was trained for cluster '" + meta.clusterName
                                     + "', not '" + c.cluster.name + "' (fingerprints differ)");
        c.dModel = meta.agent.dModel;
        c.heads = meta.agent.heads;
        c.layers = meta.agent.layers;
        c.tau = meta.agent.tau;
        c.rwgpKernel = meta.agent.rwgpKernel;
        c.critic = meta.agent.critic;
        c.maxQueue = meta.agent.maxQueue;
        d->iteration = meta.iterations;
        d->envSteps = meta.envSteps;
        // Resumed runs continue the seeded stream deterministically (the optimizer moments restart).
        d->rng.reseed(c.seed ^ (uint64_t(d->iteration) * 0x9e3779b97f4a7c15ULL));
        torch::manual_seed(c.seed + uint64_t(d->iteration));
    } else {
        d->agent = std::make_shared<DasAgent>(ac, c.seed);
        c.critic = ac.critic;
    }
    if (d->agent->cfg.qCritic()) {
        d->target = Critic(d->agent->cfg);
        d->target->eval();
    }
    d->opt = std::make_unique<torch::optim::Adam>(d->agent->parameters(), torch::optim::AdamOptions(c.lr));
    if (!c.validTrace.jobs.empty())
        d->validate(); // the starting policy is a candidate too
}

TorchTrainer::~TorchTrainer() = default;

int TorchTrainer::iteration() const { return d->iteration; }
int TorchTrainer::bestIteration() const { return d->bestIteration; }
TrainStats TorchTrainer::lastStats() const { return d->last; }
const TrainConfig& TorchTrainer::config() const { return d->cfg; }

std::pair<double, double> TorchTrainer::evaluate(const Trace& trace) const
{
    torch::NoGradGuard ng;
    // Held-out evaluation acts on the means (no exploration noise), as `run --policy das` does by default.
    return d->evalMean(trace);
}

std::pair<double, double> TorchTrainer::evaluateBaseline(const std::string& policy, const Trace& trace) const
{
    return d->overReplicas([&](uint64_t seed) {
        RunSpec spec;
        spec.policy = policy;
        spec.config.seed = seed;
        spec.config.perf = d->cfg.perf;
        const RunOutput o = runSimulation(d->cfg.cluster, trace, spec);
        return std::make_pair(o.summary.meanJctMin, o.summary.meanFeeUsd);
    });
}

bool TorchTrainer::step()
{
    TrainConfig& c = d->cfg;
    if (d->iteration >= c.iterations)
        return false;
    torch::set_num_threads(1);
    const auto t0 = std::chrono::steady_clock::now();
    TrainStats st;

    // ---- collect: windows and seeds drawn first, in the order one thread drew them; each episode has its own
    // scheduler, perf-model and action streams (seeded), so episodes can run on cfg.workers threads; merged in
    // episode order.
    const int E = c.episodesPerIteration;
    std::vector<Episode> eps(static_cast<size_t>(E));
    std::vector<Trace> windows;
    std::vector<uint64_t> seeds;
    for (Episode& ep : eps) {
        ep.rewardAlpha = c.rewardAlpha;
        ep.waitPerGpu = c.waitPerGpu;
        windows.push_back(d->window(0));
        seeds.push_back(d->rng.next());
    }
    std::vector<double> epJct(static_cast<size_t>(E));
    const auto tc = std::chrono::steady_clock::now();
    parallelTasks(E, c.workers, [&](int e) {
        epJct[size_t(e)] = d->runEval(windows[size_t(e)], &eps[size_t(e)], seeds[size_t(e)], true).first;
    });
    st.collectSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - tc).count();
    double jctSum = 0;
    for (double j : epJct)
        jctSum += j;
    st.trainMeanJctMin = jctSum / double(eps.size());

    // ---- flatten, values, GAE (V-critic) or TD targets and counterfactual advantages (Q-critic)
    std::vector<const StepSample*> steps;
    std::vector<float> adv, ret; // V: GAE advantage (both agents) and return; Q: ordering advantage and TD target
    std::vector<float> advP;     // Q: the placement agent's advantage
    std::vector<torch::Tensor> qin; // Q: the critic input of each step's action
    double rewardSum = 0, criticErr = 0;
    const bool qc = d->agent->cfg.qCritic();
    d->qSpans.clear();
    d->qRewards.clear();
    if (qc)
        d->syncTarget(); // phi_old = phi: the first epoch's TD targets come from the critic the iteration starts with
    for (const Episode& ep : eps) {
        const int T = int(ep.steps.size());
        if (T == 0)
            continue;
        if (qc) {
            d->qEpisode(ep, steps, adv, advP, ret, qin, rewardSum, criticErr);
            continue;
        }
        std::vector<torch::Tensor> gs;
        for (const auto& s : ep.steps)
            gs.push_back(s.global);
        torch::Tensor v;
        {
            torch::NoGradGuard ng;
            v = d->agent->critic->forward(torch::stack(gs)).contiguous();
        }
        const float* pv = v.data_ptr<float>();
        std::vector<float> a(static_cast<size_t>(T));
        double gae = 0, mc = 0;
        for (int t = T - 1; t >= 0; --t) {
            const double next = t + 1 < T ? pv[t + 1] : 0.0;
            const double r = ep.steps[size_t(t)].reward;
            rewardSum += r;
            // The critic's error on data it has not been trained on: its value before this update against
            // the discounted return the episode actually paid (the loss that learning should lower).
            mc = r + c.gamma * mc;
            criticErr += (pv[t] - mc) * (pv[t] - mc);
            const double delta = r + c.gamma * next - pv[t];
            gae = delta + c.gamma * c.gaeLambda * gae;
            a[size_t(t)] = float(gae);
        }
        for (int t = 0; t < T; ++t) {
            steps.push_back(&ep.steps[size_t(t)]);
            adv.push_back(a[size_t(t)]);
            ret.push_back(a[size_t(t)] + pv[t]);
        }
    }
    const int S = int(steps.size());
    d->envSteps += S;
    st.meanReward = S ? rewardSum / S : 0;
    st.criticError = S ? criticErr / S : 0;
    if (S > 1) {
        double m = std::accumulate(adv.begin(), adv.end(), 0.0) / S, v2 = 0;
        for (float x : adv)
            v2 += (x - m) * (x - m);
        const double sd = std::sqrt(v2 / S) + 1e-8;
        for (float& x : adv)
            x = float((x - m) / sd);
    }
    if (S > 1 && qc) {
        double m = std::accumulate(advP.begin(), advP.end(), 0.0) / S, v2 = 0;
        for (float x : advP)
            v2 += (x - m) * (x - m);
        const double sd = std::sqrt(v2 / S) + 1e-8;
        for (float& x : advP)
            x = float((x - m) / sd);
    }

    // ---- PPO epochs
    double lo = 0, lp = 0, lv = 0, eo = 0, ep_ = 0;
    int updates = 0;
    const bool rw = d->agent->cfg.rwgp();
    std::vector<int> perm(static_cast<size_t>(S));
    std::iota(perm.begin(), perm.end(), 0);
    for (int epoch = 0; epoch < c.ppoEpochs && S > 0; ++epoch) {
        if (qc && epoch > 0)
            d->refreshTargets(qin, ret); // periodic target update: phi_old <- phi, new TD targets
        for (int i = S - 1; i > 0; --i)
            std::swap(perm[size_t(i)], perm[size_t(d->rng.below(uint64_t(i + 1)))]);
        for (int b0 = 0; b0 < S; b0 += c.minibatch) {
            const int B = std::min(c.minibatch, S - b0);
            int64_t nmax = 1;
            for (int k = 0; k < B; ++k)
                nmax = std::max<int64_t>(nmax, steps[size_t(perm[size_t(b0 + k)])]->jobs.size(0));
            auto X = torch::zeros({B, nmax, kJobFeatures});
            auto R = torch::zeros({B, nmax});
            auto valid = torch::zeros({B, nmax});
            auto G = torch::zeros({B, qc ? kQInput : kGlobalFeatures});
            std::vector<float> oldO(static_cast<size_t>(B)), advB(static_cast<size_t>(B)), retB(static_cast<size_t>(B));
            std::vector<torch::Tensor> pin, pact, plinv, pmask;
            std::vector<float> pold, padv;
            for (int k = 0; k < B; ++k) {
                const int idx = perm[size_t(b0 + k)];
                const StepSample& s = *steps[size_t(idx)];
                const int64_t n = s.jobs.size(0);
                X[k].narrow(0, 0, n).copy_(s.jobs);
                R[k].narrow(0, 0, n).copy_(s.rho);
                valid[k].narrow(0, 0, n).fill_(1.0);
                G[k].copy_(qc ? qin[size_t(idx)] : s.global);
                oldO[size_t(k)] = s.logpOrder;
                advB[size_t(k)] = adv[size_t(idx)];
                retB[size_t(k)] = ret[size_t(idx)];
                for (const PlaceSample& p : s.place) {
                    pin.push_back(p.input);
                    pact.push_back(p.action);
                    pmask.push_back(p.mask);
                    if (rw)
                        plinv.push_back(p.linv);
                    pold.push_back(p.logp);
                    padv.push_back(qc ? advP[size_t(idx)] : adv[size_t(idx)]);
                }
            }
            auto A = torch::from_blob(advB.data(), {B}, torch::kFloat).clone();
            auto Ret = torch::from_blob(retB.data(), {B}, torch::kFloat).clone();
            auto Old = torch::from_blob(oldO.data(), {B}, torch::kFloat).clone();

            auto [mu, logstd, gate] = d->agent->order->forward(X, valid.eq(0));
            auto newO = orderLogProb(mu, logstd, R, valid);
            auto ratio = torch::exp(newO - Old);
            auto lossO = -torch::min(ratio * A, torch::clamp(ratio, 1 - c.clip, 1 + c.clip) * A).mean();
            auto entO = ((logstd * valid).sum(-1) / valid.sum(-1)).mean() + 0.5 * std::log(2 * M_PI * M_E);

            torch::Tensor lossP = torch::zeros({}), entP = torch::zeros({});
            if (!pin.empty()) {
                auto In = torch::stack(pin);
                auto Act = torch::stack(pact);
                auto Mask = torch::stack(pmask);
                auto Linv = rw ? torch::stack(plinv) : torch::Tensor();
                auto muP = d->agent->place->forward(In);
                auto newP = placeLogProb(muP, d->agent->place->logScale, Act, Linv, Mask);
                auto OldP = torch::from_blob(pold.data(), {int64_t(pold.size())}, torch::kFloat).clone();
                auto AP = torch::from_blob(padv.data(), {int64_t(padv.size())}, torch::kFloat).clone();
                auto rp = torch::exp(newP - OldP);
                lossP = -torch::min(rp * AP, torch::clamp(rp, 1 - c.clip, 1 + c.clip) * AP).mean();
                entP = d->agent->place->logScale.sum() + 0.5 * std::log(2 * M_PI * M_E);
            }
            auto V = d->agent->critic->forward(G);
            auto lossV = (V - Ret).pow(2).mean();
            auto loss = lossO + lossP + c.valueCoef * lossV - c.entropyCoef * (entO + entP);
            d->opt->zero_grad();
            loss.backward();
            torch::nn::utils::clip_grad_norm_(d->agent->parameters(), 0.5);
            d->opt->step();
            lo += lossO.item<double>();
            lp += lossP.item<double>();
            lv += lossV.item<double>();
            eo += entO.item<double>();
            ep_ += entP.item<double>();
            ++updates;
        }
    }
    if (qc && S > 0) {
        torch::NoGradGuard ng;
        auto X = torch::stack(qin);
        st.targetLag = (d->agent->critic->forward(X) - d->target->forward(X)).abs().mean().item<double>();
    }
    if (updates) {
        st.policyLossOrder = lo / updates;
        st.policyLossPlace = lp / updates;
        st.valueLoss = lv / updates;
        st.entropyOrder = eo / updates;
        st.entropyPlace = ep_ / updates;
    }
    ++d->iteration;
    st.iteration = d->iteration;
    st.envSteps = d->envSteps;
    if (!c.evalTrace.jobs.empty() && c.evalEvery > 0 && (d->iteration % c.evalEvery == 0 || d->iteration == c.iterations)) {
        auto [jct, fee] = evaluate(c.evalTrace);
        st.evalMeanJctMin = jct;
        st.evalMeanFeeUsd = fee;
    }
    if (!c.validTrace.jobs.empty() && c.evalEvery > 0 && (d->iteration % c.evalEvery == 0 || d->iteration == c.iterations)) {
        auto [jct, fee] = d->validate();
        st.validMeanJctMin = jct;
        st.validMeanFeeUsd = fee;
    }
    st.bestIteration = d->bestIteration;
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    st.stepsPerSecond = st.seconds > 0 ? S / st.seconds : 0;
    d->last = st;
    return true;
}

void TorchTrainer::save(const std::string& path) const
{
    CheckpointMeta m;
    m.agent = d->agent->cfg;
    m.clusterName = d->cfg.cluster.name;
    m.clusterFingerprint = d->cfg.cluster.fingerprint();
    m.machines = d->cfg.cluster.machineCount();
    m.seed = d->cfg.seed;
    m.iterations = d->iteration;
    m.envSteps = d->envSteps;
    m.trainTrace = d->cfg.trace.name;
    m.command = d->cfg.command;
    if (d->best.empty() || d->bestIteration == d->iteration) {
        saveCheckpoint(path, *d->agent, m);
        return;
    }
    // Write the best validated parameters, then put the current ones back (training may go on).
    torch::NoGradGuard ng;
    std::vector<torch::Tensor> params = d->agent->parameters(), current;
    for (size_t i = 0; i < params.size(); ++i) {
        current.push_back(params[i].detach().clone());
        params[i].copy_(d->best[i]);
    }
    m.command += " [kept iteration " + std::to_string(d->bestIteration) + " of " + std::to_string(d->iteration)
        + " by validation]";
    try {
        saveCheckpoint(path, *d->agent, m);
    } catch (...) {
        for (size_t i = 0; i < params.size(); ++i)
            params[i].copy_(current[i]);
        throw;
    }
    for (size_t i = 0; i < params.size(); ++i)
        params[i].copy_(current[i]);
}

} // namespace ss::learn
