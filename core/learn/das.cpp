// DAS networks, checkpoints and the DAS scheduler (ALGORITHMS §2.4-2.6).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>

#include "learn/critic.h"
#include "learn/learn.h"
#include "learn/nets.h"
#include "learn/policies.h"
#include "learn/rwgp.h"
#include "run/runspec.h"

namespace ss::learn {

// ---------------------------------------------------------------- networks

OrderNetImpl::OrderNetImpl(const AgentConfig& c) : mc(c.mc()), d(c.dModel)
{
    emb1 = register_module("emb1", torch::nn::Linear(kJobFeatures, d));
    emb2 = register_module("emb2", torch::nn::Linear(d, d));
    if (mc) {
        squeezeF = register_module("squeezeF", torch::nn::Linear(d, d));
        gateW = register_module("gateW", torch::nn::Linear(2 * d, d));
    }
    // Dropout 0: the policy must be a deterministic function of its input for PPO's ratios.
    auto layer = torch::nn::TransformerEncoderLayer(
        torch::nn::TransformerEncoderLayerOptions(d, c.heads).dim_feedforward(2 * d).dropout(0.0));
    encoder = register_module("encoder", torch::nn::TransformerEncoder(
                                             torch::nn::TransformerEncoderOptions(layer, c.layers)));
    head = register_module("head", torch::nn::Linear(d, 2));
    skip = register_module("skip", torch::nn::Linear(torch::nn::LinearOptions(kJobFeatures, 1).bias(false)));
    // Start at shortest-remaining-first with aging, with a moderate spread: the network's part of mu starts
    // small and the skip path carries -3 * log-remaining-work + 1 * log-waiting-time (features 4 and 2,
    // features.cpp), so the untrained mean order is SRPT, a job that has waited long moves up, and sampled
    // priorities (sd ~0.6) swap near neighbours only. Learning moves both parts.
    torch::NoGradGuard ng;
    head->weight.mul_(0.01);
    head->bias.zero_();
    head->bias[1].fill_(-0.5);
    skip->weight.zero_();
    skip->weight[0][4].fill_(-3.0);
    skip->weight[0][2].fill_(1.0);
}

static torch::Tensor positionalEncoding(int64_t n, int64_t d)
{
    auto pos = torch::arange(n, torch::kFloat).unsqueeze(1);
    auto i = torch::arange(0, d, 2, torch::kFloat);
    auto div = torch::exp(i * (-std::log(10000.0) / double(d)));
    auto pe = torch::zeros({n, d});
    pe.index_put_({torch::indexing::Slice(), torch::indexing::Slice(0, torch::indexing::None, 2)}, torch::sin(pos * div));
    pe.index_put_({torch::indexing::Slice(), torch::indexing::Slice(1, torch::indexing::None, 2)},
                  torch::cos(pos * div).index({torch::indexing::Slice(), torch::indexing::Slice(0, d / 2)}));
    return pe;
}

std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> OrderNetImpl::forward(const torch::Tensor& x,
                                                                             const torch::Tensor& pad)
{
    const int64_t B = x.size(0), N = x.size(1);
    auto S = emb2(torch::relu(emb1(x)));                  // [B,N,d]
    torch::Tensor gate;
    if (mc) {
        // Squeeze: masked average pool over the queue (permutation-invariant, any length).
        torch::Tensor w = pad.defined() ? (~pad).to(torch::kFloat).unsqueeze(-1) : torch::ones({B, N, 1});
        auto ctx = (S * w).sum(1) / w.sum(1).clamp_min(1.0);  // [B,d]
        auto f = torch::relu(squeezeF(ctx)).unsqueeze(1).expand({B, N, d});
        auto delta = torch::sigmoid(gateW(torch::cat({S, f}, -1)));
        S = delta * f + (1 - delta) * S;                  // communicate: gated fusion
        gate = delta.mean(-1);
    }
    S = S + positionalEncoding(N, d).unsqueeze(0);
    auto h = encoder->forward(S.transpose(0, 1), torch::Tensor(), pad).transpose(0, 1);
    auto out = head(h);
    auto mu = out.select(-1, 0) + skip(x).squeeze(-1);
    auto logstd = out.select(-1, 1).clamp(-4.0, 1.0);
    return std::make_tuple(mu, logstd, gate);
}

PlaceNetImpl::PlaceNetImpl(const AgentConfig& c)
{
    l1 = register_module("l1", torch::nn::Linear(kPlaceInput, c.dModel));
    l2 = register_module("l2", torch::nn::Linear(c.dModel, c.dModel));
    l3 = register_module("l3", torch::nn::Linear(c.dModel, 1));
    skip = register_module("skip", torch::nn::Linear(torch::nn::LinearOptions(kPlaceInput, 1).bias(false)));
    logScale = register_parameter("logScale", torch::full({1}, std::log(0.3)));
    torch::NoGradGuard ng;
    l3->weight.mul_(0.01);
    // Machine features (features.cpp): 0 free fraction, 1 holds the whole job, 2 GPU speed / fastest, 4 jobs
    // already running there / 4, 7 type allowed; then the job's features and the RWGP posterior (at
    // kMachineFeatures + kJobFeatures its mean deviation in speed units, GPU speed / fastest x mean x 5, zero for
    // the variants without RWGP; with the weight 0.2 the start's speed terms add up to the expected speed,
    // speed x (1 + mean)). A machine that holds the whole job comes first (one machine, no cross-machine
    // slowdown); then a faster machine, fewer co-runners (interference); among equals the fullest (best fit, keeps
    // whole machines free for big jobs). Before the speed, co-runner and GP terms the start was type-blind, and
    // ties between empty machines of different types fell to the random init of the MLP (one variant started on
    // T4s, another on V100s). The weights were chosen on seven Philly windows other than the reproduction's held-out slice
    // (docs/REPRODUCTION.md "Consolidate or wait"). Learning moves all of them.
    skip->weight.zero_();
    skip->weight[0][0].fill_(-0.5);
    skip->weight[0][1].fill_(1.5);
    skip->weight[0][2].fill_(1.0);
    skip->weight[0][4].fill_(-0.5);
    skip->weight[0][7].fill_(2.0);
    skip->weight[0][kMachineFeatures + kJobFeatures].fill_(0.2);
}

torch::Tensor PlaceNetImpl::forward(const torch::Tensor& x)
{
    return (l3(torch::relu(l2(torch::relu(l1(x))))) + skip(x)).squeeze(-1);
}

CriticImpl::CriticImpl(const AgentConfig& c)
{
    l1 = register_module("l1", torch::nn::Linear(c.qCritic() ? kQInput : kGlobalFeatures, 2 * c.dModel));
    l2 = register_module("l2", torch::nn::Linear(2 * c.dModel, 2 * c.dModel));
    l3 = register_module("l3", torch::nn::Linear(2 * c.dModel, 1));
}

torch::Tensor CriticImpl::forward(const torch::Tensor& g)
{
    return l3(torch::tanh(l2(torch::tanh(l1(g))))).squeeze(-1);
}

torch::Tensor qInput(const torch::Tensor& global, const torch::Tensor& jobs, const torch::Tensor& jobRows,
                     const torch::Tensor& machineRows)
{
    const int64_t K = jobRows.size(0);
    auto g = global.reshape({1, kGlobalFeatures}).expand({K, kGlobalFeatures});
    auto oj = jobs.mean(0).reshape({1, kJobFeatures}).expand({K, kJobFeatures});
    return torch::cat({g, oj, jobRows, machineRows}, -1);
}

torch::Tensor criticMachineRows(const torch::Tensor& placeInput)
{
    using torch::indexing::Slice;
    return torch::cat({placeInput.index({"...", Slice(0, kMachineFeatures)}),
                       placeInput.index({"...", Slice(kMachineFeatures + kJobFeatures, kPlaceInput)})},
                      -1);
}

DasAgent::DasAgent(AgentConfig c, uint64_t initSeed) : cfg(std::move(c))
{
    if (cfg.dModel < 4 || cfg.heads < 1 || cfg.dModel % cfg.heads != 0 || cfg.layers < 1 || cfg.maxQueue < 1)
        throw std::invalid_argument("DAS: d_model must be a multiple of heads, layers >= 1");
    if (cfg.variant != "das" && cfg.variant != "da" && cfg.variant != "da+mc" && cfg.variant != "da+rwgp")
        throw std::invalid_argument("DAS: unknown variant '" + cfg.variant + "' (das, da, da+mc, da+rwgp)");
    if (cfg.critic != "v" && cfg.critic != "q")
        throw std::invalid_argument("DAS: critic must be v or q, not '" + cfg.critic + "'");
    torch::manual_seed(initSeed);
    order = OrderNet(cfg);
    place = PlaceNet(cfg);
    critic = Critic(cfg);
}

std::vector<torch::Tensor> DasAgent::parameters() const
{
    std::vector<torch::Tensor> p = order->parameters();
    for (auto& t : place->parameters())
        p.push_back(t);
    for (auto& t : critic->parameters())
        p.push_back(t);
    return p;
}

torch::Tensor orderLogProb(const torch::Tensor& mu, const torch::Tensor& logstd, const torch::Tensor& rho,
                           const torch::Tensor& valid)
{
    auto z = (rho - mu) * torch::exp(-logstd);
    auto lp = -0.5 * z * z - logstd;
    // Mean over the queue instead of the sum: a sum over 100 jobs makes PPO ratios explode ([I] choice).
    return (lp * valid).sum(-1) / valid.sum(-1).clamp_min(1.0);
}

torch::Tensor placeLogProb(const torch::Tensor& mu, const torch::Tensor& logScale, const torch::Tensor& action,
                           const torch::Tensor& linv, const torch::Tensor& mask)
{
    auto diff = action - mu; // [B,M]
    if (linv.defined())
        diff = torch::matmul(linv, diff.unsqueeze(-1)).squeeze(-1);
    auto z = diff * torch::exp(-logScale);
    auto lp = -0.5 * z * z - logScale;
    return (lp * mask).sum(-1) / mask.sum(-1).clamp_min(1.0);
}

// ---------------------------------------------------------------- checkpoints

static std::string namedKey(const std::string& prefix, const std::string& name)
{
    std::string k = prefix + "." + name;
    std::replace(k.begin(), k.end(), '.', '/'); // archive keys must not contain '.'
    return k;
}

void saveCheckpoint(const std::string& path, const DasAgent& agent, const CheckpointMeta& meta,
                    const std::vector<std::pair<std::string, torch::Tensor>>& extra)
{
    torch::serialize::OutputArchive ar;
    auto put = [&](const std::string& prefix, const torch::nn::Module& m) {
        for (const auto& p : m.named_parameters(true))
            ar.write(namedKey(prefix, p.key()), p.value().detach().clone());
        for (const auto& p : m.named_buffers(true))
            ar.write(namedKey(prefix, p.key()), p.value().detach().clone(), true);
    };
    put("order", *agent.order);
    put("place", *agent.place);
    put("critic", *agent.critic);
    for (const auto& [k, t] : extra)
        ar.write(namedKey("extra", k), t.detach().clone(), true);
    std::ostringstream blob;
    ar.save_to(blob);
    const std::string tensors = blob.str();
    writeCheckpointFile(path, meta, tensors);
}

CheckpointMeta readCheckpointMeta(const std::string& path)
{
    return readCheckpointFile(path, false).meta;
}

std::shared_ptr<DasAgent> loadCheckpoint(const std::string& path, CheckpointMeta* metaOut,
                                         std::vector<std::pair<std::string, torch::Tensor>>* extra)
{
    CheckpointFile raw = readCheckpointFile(path, true);
    const CheckpointMeta& meta = raw.meta;
    std::shared_ptr<DasAgent> agent;
    try {
        agent = std::make_shared<DasAgent>(meta.agent);
    } catch (const std::exception& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
    torch::serialize::InputArchive ar;
    try {
        std::istringstream in(raw.tensors);
        ar.load_from(in);
    } catch (const std::exception&) {
        throw std::runtime_error(path + ": corrupt checkpoint (tensor archive unreadable)");
    }
    torch::NoGradGuard ng;
    auto get = [&](const std::string& prefix, torch::nn::Module& m) {
        auto fill = [&](const std::string& name, torch::Tensor& dst, bool buffer) {
            torch::Tensor t;
            const std::string key = namedKey(prefix, name);
            try {
                ar.read(key, t, buffer);
            } catch (const std::exception&) {
                throw std::runtime_error(path + ": checkpoint lacks tensor '" + prefix + "." + name + "'");
            }
            if (t.sizes() != dst.sizes())
                throw std::runtime_error(path + ": tensor '" + prefix + "." + name + "' has the wrong shape");
            dst.copy_(t);
        };
        for (auto& p : m.named_parameters(true))
            fill(p.key(), p.value(), false);
        for (auto& p : m.named_buffers(true))
            fill(p.key(), p.value(), true);
    };
    get("order", *agent->order);
    get("place", *agent->place);
    get("critic", *agent->critic);
    if (extra)
        for (auto& [k, t] : *extra) {
            try {
                ar.read(namedKey("extra", k), t, true);
            } catch (const std::exception&) {
                t = torch::Tensor();
            }
        }
    if (metaOut)
        *metaOut = meta;
    return agent;
}

// ---------------------------------------------------------------- the scheduler

namespace {

class DasScheduler : public Scheduler {
public:
    DasScheduler(std::shared_ptr<DasAgent> agent, Episode* collect, bool sampleOrder, bool samplePlace, bool backfill,
                 bool compact, WideJobs wide, const std::string& rwgpKernel, double rwgpLambda)
        : m_agent(std::move(agent)), m_collect(collect), m_sampleOrder(sampleOrder || collect),
          m_samplePlace(samplePlace || collect), m_backfill(backfill), m_compact(compact), m_wide(wide),
          m_kernel(rwgpKernelFromString(rwgpKernel.empty() ? m_agent->cfg.rwgpKernel : rwgpKernel)),
          m_lambda(rwgpLambda)
    {
        if (!(m_lambda > 0 && m_lambda < 1))
            throw std::invalid_argument("das.rwgp_lambda must be in (0, 1), not " + std::to_string(m_lambda));
    }
    std::string name() const override { return m_agent->cfg.variant; }
    /// The agent's weights are shared read-only (inference only); the RWGP state and scratch are copied. A
    /// scheduler collecting a training episode cannot be copied (the episode is the trainer's).
    std::unique_ptr<Scheduler> clone() const override
    {
        return m_collect ? nullptr : std::make_unique<DasScheduler>(*this);
    }

    void reset(const SimSetup& setup) override
    {
        m_M = setup.cluster.machineCount();
        if (m_agent->cfg.rwgp()) {
            RwgpState::Params p;
            p.tau = m_agent->cfg.tau;
            p.kernel = m_kernel;
            p.lambda = m_lambda;
            m_gp = RwgpState(setup.cluster, p);
        }
        m_lastT = -1;
        m_pendingWeight = 0;
        m_mc.reseed(0x51edc0deULL); // the Q-critic's Monte Carlo probabilities: their own stream, never ctx.rng()
        m_machineIn.assign(size_t(m_M) * kPlaceInput, 0.f);
        m_mfeat.assign(size_t(m_M) * kMachineFeatures, 0.f);
    }

    void schedule(SchedContext& ctx) override
    {
        torch::NoGradGuard ng;
        // Waiting penalty of the interval since the previous decision goes to the previous recorded step.
        if (m_collect && !m_collect->steps.empty() && m_lastT >= 0)
            m_collect->steps.back().reward -=
                m_collect->rewardAlpha * m_pendingWeight * (ctx.now() - m_lastT) / 3600.0 / kPenaltyNorm;
        m_lastT = ctx.now();

        std::vector<int> queue;
        const int cap = m_agent->cfg.maxQueue;
        ctx.forEachPending([&](int j) {
            queue.push_back(j);
            return int(queue.size()) < cap;
        });
        bool anyFits = false;
        for (int j : queue)
            if (canFitNow(ctx, j)) {
                anyFits = true;
                break;
            }
        if (queue.empty() || (!anyFits && !ctx.recording())) {
            // Nothing can start: no decision to take (and, when no log is kept, nothing to show either).
            updatePendingWeight(ctx);
            return;
        }

        // --- ordering agent
        const int N = int(queue.size());
        std::vector<float> jf(size_t(N) * kJobFeatures);
        for (int i = 0; i < N; ++i)
            jobFeatures(ctx, queue[size_t(i)], i, N, jf.data() + size_t(i) * kJobFeatures);
        auto x = torch::from_blob(jf.data(), {1, N, kJobFeatures}, torch::kFloat).clone();
        auto [mu, logstd, gate] = m_agent->order->forward(x, torch::Tensor());
        mu = mu.squeeze(0).contiguous();
        logstd = logstd.squeeze(0).contiguous();
        if (!anyFits) {
            // Logged for the heatmaps only: the agent's mean priorities, spread and gates of a queue that
            // cannot start (no sample drawn, so the seeded stream is the same with or without a log).
            const float* pm = mu.data_ptr<float>();
            const float* ps = logstd.data_ptr<float>();
            const float* pg = gate.defined() ? gate.squeeze(0).contiguous().data_ptr<float>() : nullptr;
            std::vector<int> order(static_cast<size_t>(N));
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return pm[a] > pm[b]; });
            std::vector<ScoredJob> ranked;
            for (int i : order)
                ranked.push_back(ScoredJob{queue[size_t(i)], pm[i], std::exp(ps[i]), pg ? pg[i] : kNoScore});
            ctx.recordQueue(std::move(ranked));
            updatePendingWeight(ctx);
            return;
        }
        std::vector<float> rho(static_cast<size_t>(N));
        const float* pm = mu.data_ptr<float>();
        const float* ps = logstd.data_ptr<float>();
        for (int i = 0; i < N; ++i)
            rho[size_t(i)] = m_sampleOrder ? float(pm[i] + std::exp(ps[i]) * ctx.rng().normal()) : pm[i];
        std::vector<int> idx(static_cast<size_t>(N));
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return rho[size_t(a)] > rho[size_t(b)]; });

        StepSample* step = nullptr;
        const bool qCritic = m_agent->cfg.qCritic() && (m_collect || ctx.recording());
        torch::Tensor globalT;
        if (m_collect || ctx.recording()) {
            std::vector<float> g(kGlobalFeatures);
            globalFeatures(ctx, queue, g.data());
            globalT = torch::from_blob(g.data(), {kGlobalFeatures}, torch::kFloat).clone();
        }
        // The Q-critic's ordering action a^j: the first job of the order that can start now (the one the placement
        // agent places first), and its alternatives, every job that could start now.
        std::vector<char> fits;
        int topJob = -1;
        if (qCritic) {
            fits.resize(size_t(N));
            for (int i = 0; i < N; ++i)
                fits[size_t(i)] = canFitNow(ctx, queue[size_t(i)]) ? 1 : 0;
            for (int i : idx)
                if (fits[size_t(i)]) {
                    topJob = i;
                    break;
                }
        }
        m_firstPlacement = qCritic;
        m_firstRows = torch::Tensor();
        m_topMachine = -1;
        if (m_collect) {
            m_collect->steps.emplace_back();
            step = &m_collect->steps.back();
            step->global = globalT;
            step->jobs = x.squeeze(0);
            step->rho = torch::from_blob(rho.data(), {N}, torch::kFloat).clone();
            step->logpOrder =
                orderLogProb(mu, logstd, step->rho, torch::ones({N})).item<float>();
            if (qCritic) {
                step->topJob = topJob;
                std::vector<float> muV(pm, pm + N), sdV(static_cast<size_t>(N));
                for (int i = 0; i < N; ++i)
                    sdV[size_t(i)] = std::exp(ps[i]);
                step->orderTop = topChoiceProbabilities(muV, sdV, fits, kCriticSamples, m_mc);
            }
        }

        // --- placement agent, job by job in priority order
        double rewardSum = 0;
        for (int i : idx) {
            const int j = queue[size_t(i)];
            std::vector<GpuSlot> slots;
            if (canFitNow(ctx, j))
                slots = placeJob(ctx, j, jf.data() + size_t(i) * kJobFeatures, step);
            if (slots.empty()) {
                if (!m_backfill)
                    break;
                continue;
            }
            int coRunners = 0;
            for (const GpuSlot& g : slots)
                coRunners = std::max(coRunners, ctx.state().jobsOnMachine(ctx.cluster().machineOfGpu(g.gpu)));
            const double rate = ctx.start(j, slots, m_agent->cfg.variant);
            if (m_collect)
                rewardSum += placedReward(ctx, j, slots, rate);
            if (m_gp.machineCount() > 0) {
                const double perf = normalisedPerformance(ctx, j, slots, rate, coRunners);
                int last = -1;
                for (const GpuSlot& g : slots) {
                    const int m = ctx.cluster().machineOfGpu(g.gpu);
                    if (m != last)
                        m_gp.observe(m, perf);
                    last = m;
                }
            }
        }
        if (step)
            step->reward += rewardSum / kPenaltyNorm;
        if (ctx.recording()) {
            // The critic inside this decision: Q of every job that could start as the ordering action (the
            // placement action as taken) and of every machine as the placement action (the ordering action as
            // taken); with a V-critic only V(s), which cannot rank alternatives.
            std::vector<float> qJob(static_cast<size_t>(N), kNoScore), qMachine;
            if (qCritic && topJob >= 0 && m_firstRows.defined()) {
                auto jobs = x.squeeze(0);
                std::vector<int64_t> alt;
                for (int i = 0; i < N; ++i)
                    if (fits[size_t(i)])
                        alt.push_back(i);
                const int64_t A = int64_t(alt.size());
                auto altIdx = torch::tensor(alt, torch::kLong);
                auto top = m_firstRows[m_topMachine].unsqueeze(0);
                auto qj = m_agent->critic->forward(
                                         qInput(globalT, jobs, jobs.index_select(0, altIdx), top.expand({A, kCriticMachine})))
                              .contiguous();
                const int64_t Mm = m_firstRows.size(0);
                auto qm = m_agent->critic->forward(qInput(globalT, jobs, jobs[topJob].unsqueeze(0).expand({Mm, kJobFeatures}),
                                                          m_firstRows))
                              .contiguous();
                for (int64_t a = 0; a < A; ++a)
                    qJob[size_t(alt[size_t(a)])] = qj.data_ptr<float>()[a];
                qMachine.assign(qm.data_ptr<float>(), qm.data_ptr<float>() + Mm);
                const float taken = qMachine[size_t(m_topMachine)];
                ctx.recordCritic('q', taken, queue[size_t(topJob)], std::move(qMachine));
            } else if (!m_agent->cfg.qCritic()) {
                ctx.recordCritic('v', m_agent->critic->forward(globalT.unsqueeze(0)).item<float>());
            }
            std::vector<ScoredJob> ranked;
            const float* pg = gate.defined() ? gate.squeeze(0).contiguous().data_ptr<float>() : nullptr;
            for (int i : idx) {
                ScoredJob sj{queue[size_t(i)], rho[size_t(i)], std::exp(ps[i]), pg ? pg[i] : kNoScore};
                sj.critic = qJob[size_t(i)];
                ranked.push_back(sj);
            }
            ctx.recordQueue(std::move(ranked));
        }
        updatePendingWeight(ctx);
    }

private:
    // Reward normaliser: a constant instead of N' so the waiting penalty grows with the queue ([I], §2.7).
    static constexpr double kPenaltyNorm = 16.0;
    // Monte Carlo draws for the acting policies' top-choice probabilities (the Q-critic's baselines, [I]).
    static constexpr int kCriticSamples = 64;
    std::shared_ptr<DasAgent> m_agent;
    Episode* m_collect;
    bool m_sampleOrder, m_samplePlace, m_backfill, m_compact;
    WideJobs m_wide;
    RwgpKernel m_kernel;
    double m_lambda;
    int m_M = 0;
    RwgpState m_gp;
    double m_lastT = -1;
    double m_pendingWeight = 0;
    std::vector<float> m_machineIn, m_mfeat;
    // The Q-critic's view of this decision's first placement (placeJob fills it): its machines and the top one.
    Rng m_mc{1};
    bool m_firstPlacement = false;
    torch::Tensor m_firstRows;
    int m_topMachine = -1;

    // A compact placement for a job wider than one machine whose walk down the agent's order spread, or none.
    static std::vector<GpuSlot> compactWideJob(const SchedContext& ctx, int j, const std::vector<int>& order,
                                               int fewest, bool delayOrDegrade)
    {
        auto compact = [&](const std::vector<GpuSlot>& sl) {
            return !sl.empty() && machinesSpanned(ctx.cluster(), sl) <= fewest;
        };
        const uint64_t mask = allowedTypes(ctx, j);
        auto allowed = std::find_if(order.begin(), order.end(),
                                    [&](int m) { return typeAllowed(mask, ctx.cluster().machines[size_t(m)].type); });
        if (allowed == order.end())
            return {};
        const double first = machineSpeed(ctx, *allowed); // the agent's first choice among allowed machines
        std::vector<GpuSlot> fast = collectSlots(ctx, j, consolidatingOrder(ctx, j, order, first));
        if (compact(fast))
            return fast;
        if (!delayOrDegrade)
            return {};
        std::vector<GpuSlot> any = collectSlots(ctx, j, consolidatingOrder(ctx, j, order));
        if (!compact(any))
            return {};
        // Delay or degrade: both ends predicted from the spec and the perf model's documented overheads (the fast
        // machines once drained: `fewest` of them, one switch, no co-runners).
        const double waitEnds = wholeMachinesFreeAt(ctx, j, first) + predictedRunSeconds(ctx, j, first, fewest);
        const double startNowEnds = ctx.now() + predictedRunSeconds(ctx, j, any);
        return startNowEnds <= waitEnds ? any : std::vector<GpuSlot>{};
    }

    /// P(machine m scores highest) under the placement policy N(mu, s^2 Sigma) (Sigma = Sigma_GP with RWGP, else I),
    /// by Monte Carlo on the Q-critic's own stream.
    std::vector<float> placeTopProbabilities(const float* mu, double s, bool rw)
    {
        const int M = m_M;
        std::vector<float> p(static_cast<size_t>(M), 0.f);
        Eigen::VectorXd z(M);
        for (int k = 0; k < kCriticSamples; ++k) {
            for (int m = 0; m < M; ++m)
                z(m) = m_mc.normal();
            Eigen::VectorXd e;
            if (rw) {
                e = m_gp.choleskyL().triangularView<Eigen::Lower>() * z;
                e *= s / std::sqrt(std::max(1e-12, m_gp.params().priorVar));
            } else
                e = s * z;
            int best = 0;
            for (int m = 1; m < M; ++m)
                if (mu[m] + e(m) > mu[best] + e(best))
                    best = m;
            p[size_t(best)] += 1.f / float(kCriticSamples);
        }
        return p;
    }

    void updatePendingWeight(const SchedContext& ctx)
    {
        double w = 0;
        ctx.forEachPending([&](int j) {
            w += !m_collect || !m_collect->waitPerGpu ? 1.0
                 : ctx.job(j).fractional()             ? ctx.job(j).gpus
                                                       : ctx.job(j).wholeGpus();
            return true;
        });
        m_pendingWeight = w;
    }

    std::vector<GpuSlot> placeJob(SchedContext& ctx, int j, const float* jobFeat, StepSample* step)
    {
        const int M = m_M;
        machineFeatures(ctx, j, m_mfeat.data());
        const bool rw = m_gp.machineCount() > 0;
        if (rw)
            m_gp.selectJob(ctx.job(j).gpus); // the seed's kernel: this job's P(i)
        const GpPosterior* post = rw ? &m_gp.posterior() : nullptr;
        for (int m = 0; m < M; ++m) {
            float* o = m_machineIn.data() + size_t(m) * kPlaceInput;
            std::copy_n(m_mfeat.data() + size_t(m) * kMachineFeatures, kMachineFeatures, o);
            std::copy_n(jobFeat, kJobFeatures, o + kMachineFeatures);
            // The GP's mean is a relative deviation of the machine's speed (observed / predicted - 1): what it
            // changes is the machine's expected speed, speed x (1 + mean), so it enters in speed units. Added on its
            // own, a +0.1 deviation on a P100 (speed 0.55) outweighed a -0.1 deviation on a V100 (speed 1.0).
            o[kMachineFeatures + kJobFeatures] = rw ? float(o[2] * post->mean(m) * 5.0) : 0.f;
            o[kMachineFeatures + kJobFeatures + 1] = rw ? float(std::sqrt(std::max(0.0, post->cov(m, m))) * 5.0) : 0.f;
        }
        auto in = torch::from_blob(m_machineIn.data(), {M, kPlaceInput}, torch::kFloat);
        auto mu = m_agent->place->forward(in).contiguous();
        const double s = std::exp(m_agent->place->logScale.item<double>());
        const float* pm = mu.data_ptr<float>();
        Eigen::VectorXd score(M);
        for (int m = 0; m < M; ++m)
            score(m) = pm[m];
        if (m_samplePlace) {
            Eigen::VectorXd z(M);
            for (int m = 0; m < M; ++m)
                z(m) = ctx.rng().normal();
            if (rw) {
                // Correlated exploration: similar machines move together (Thompson-like, §2.6).
                const Eigen::MatrixXd& L = m_gp.choleskyL();
                const double norm = std::sqrt(std::max(1e-12, m_gp.params().priorVar));
                Eigen::VectorXd lz = L.triangularView<Eigen::Lower>() * z;
                score += (s / norm) * lz;
            } else
                score += s * z;
        }
        std::vector<int> order(static_cast<size_t>(M));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return score(a) > score(b); });
        if (m_firstPlacement) {
            // The Q-critic's placement action A^c: this decision's first placement, by the machine scored highest.
            m_firstPlacement = false;
            m_firstRows = criticMachineRows(in).clone();
            m_topMachine = order.front();
            if (step) {
                step->machines = m_firstRows;
                step->topMachine = m_topMachine;
                step->placeTop = placeTopProbabilities(pm, s, rw);
            }
        }
        std::vector<GpuSlot> slots = collectSlots(ctx, j, order);
        // [I] Consolidate or wait: a placement spread over more machines than the job needs pays the cross-machine
        // (and often cross-switch) slowdown for its whole run, in time and in fee, so such a job waits for room,
        // as Tetris's jobs do. A job wider than one machine, whose walk down the agent's order spreads because the
        // start packs (the walk begins on busy machines), first walks again over the machines at least as fast as
        // the agent's first choice, those with the most room first; failing that, it starts compactly on slower
        // machines when that is predicted to end no later than waiting for fast ones to drain (delay or degrade).
        // Measured on seven Philly windows other than the reproduction's held-out slice (docs/REPRODUCTION.md
        // "Consolidate or wait"). Off with das.compact=0.
        bool held = false;
        const int fewest = minMachinesFor(ctx, j);
        auto spread = [&](const std::vector<GpuSlot>& sl) { return machinesSpanned(ctx.cluster(), sl) > fewest; };
        if (m_compact && !slots.empty() && spread(slots)) {
            slots.clear();
            if (fewest > 1 && m_wide != WideJobs::Wait)
                slots = compactWideJob(ctx, j, order, fewest, m_wide == WideJobs::DelayOrDegrade);
            held = slots.empty();
        }

        if (step) {
            PlaceSample ps;
            ps.input = in.clone();
            std::vector<float> a(static_cast<size_t>(M));
            for (int m = 0; m < M; ++m)
                a[size_t(m)] = float(score(m));
            ps.action = torch::from_blob(a.data(), {M}, torch::kFloat).clone();
            ps.mask = torch::ones({M});
            if (rw) {
                // Sigma = L L^T / priorVar, so Sigma^-1/2 = sqrt(priorVar) * L^-1.
                const Eigen::MatrixXd& L = m_gp.choleskyL();
                Eigen::MatrixXf Linv = (L.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(M, M))
                                        * std::sqrt(m_gp.params().priorVar))
                                           .cast<float>();
                // Eigen is column-major; torch wants row-major.
                Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> R = Linv;
                ps.linv = torch::from_blob(R.data(), {M, M}, torch::kFloat).clone();
            }
            ps.logp = placeLogProb(mu, m_agent->place->logScale, ps.action, ps.linv, ps.mask).item<float>();
            step->place.push_back(std::move(ps));
        }
        if (ctx.recording()) {
            std::vector<float> aff(static_cast<size_t>(M)), var, gpMean, gpVar;
            for (int m = 0; m < M; ++m)
                aff[size_t(m)] = pm[m]; // the posterior mean score; the sample decided, the mean explains
            if (rw) {
                var.resize(size_t(M));
                gpMean.resize(size_t(M));
                gpVar.resize(size_t(M));
                for (int m = 0; m < M; ++m) {
                    var[size_t(m)] = float(s * s * post->cov(m, m) / m_gp.params().priorVar);
                    // The GP itself (eqs. 13/14): the machine's expected performance deviation and its variance
                    // ("potential contention" in the seed's case study).
                    gpMean[size_t(m)] = float(post->mean(m));
                    gpVar[size_t(m)] = float(post->cov(m, m));
                }
            } else
                var.assign(size_t(M), float(s * s));
            ctx.recordPlacement(j, slots, std::move(aff),
                                slots.empty() ? (held ? "waits: would spread" : "no fit") : m_agent->cfg.variant,
                                std::move(var), std::move(gpMean), std::move(gpVar));
        }
        return slots;
    }
};

} // namespace

std::unique_ptr<Scheduler> makeDasScheduler(std::shared_ptr<DasAgent> agent, Episode* collect, bool sampleOrder,
                                            bool samplePlace, bool backfill, bool compact, WideJobs wide,
                                            const std::string& rwgpKernel, double rwgpLambda)
{
    return std::make_unique<DasScheduler>(std::move(agent), collect, sampleOrder, samplePlace, backfill, compact,
                                          wide, rwgpKernel, rwgpLambda);
}

} // namespace ss::learn
