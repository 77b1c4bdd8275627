// The learned RELMAS scheduler of the accelerator mode (docs/ACCELERATOR.md §6.1), in the LibTorch module.
//
// Actor: an LSTM reads the ready layers (least slack first) and, for every (ready layer, idle sub-accelerator)
// pair, a head scores its hidden state with the pair's features (how fast the layer runs there, the bandwidth it
// would add) and the chip's state; a = tanh(score). The scheduler starts pairs with a > 0, highest first, each
// layer and sub-accelerator once. A linear skip path is initialised to a heterogeneity- and bandwidth-aware
// greedy rule [I], so the untrained actor schedules sensibly and training moves it from there.
// Critic: Q(s, a) from the mean over the pairs of an MLP of (layer, pair, chip features, a) [I].
// Training: DDPG (deterministic actor, Gaussian exploration noise, replay, target networks, TD(0)). Reward per
// cycle: the requests that finished since, +1 met / -1 missed, weighted 1 + fairness x (1 - the tenant's SLA
// rate in the episode), minus bandwidthPenalty x the oversubscription the cycle's starts cause.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

#include <torch/torch.h>

#include "io/json.h"
#include "learn/relmasapi.h"
#include "model/rng.h"
#include "policy/relmas/accelpolicies.h"
#include "run/runspec.h"
#include "sim/accel/accelmetrics.h"
#include "sim/accel/accelsim.h"

namespace ss::learn {

using namespace ss::accel;

namespace {

constexpr int kFr = 6, kFp = 6, kFg = 3, kHidden = 32;
constexpr float kResidual = 1.0f; // the learned correction of the prior's logit stays within +-kResidual [I]
constexpr int kMaxReady = 32; // the actor reads the least-slack 32 ready layers (the rest wait a cycle) [I]
constexpr double kScale = 1000; // us
constexpr char kMagic[8] = {'S', 'S', 'R', 'E', 'L', 'M', 'A', 'S'};
constexpr uint32_t kVersion = 1;

double clip(double x, double lo, double hi) { return std::min(hi, std::max(lo, x)); }

/// One cycle's features: ready layers [n, kFr] (least slack first), pairs [n, S, kFp], the idle mask [S] and
/// the chip's [kFg]; `order` maps a row back to CycleView::ready.
struct RawState {
    std::vector<float> r, p, idle, g;
    std::vector<int> order;
    int n = 0, S = 0;
};

/// The same as tensors (what the trainer replays).
struct State {
    torch::Tensor ready, pairs, idle, global;
    int n = 0, S = 0;
};

RawState encode(const CycleView& v)
{
    RawState st;
    st.S = int(v.subs.size());
    st.order.resize(v.ready.size());
    std::iota(st.order.begin(), st.order.end(), 0);
    std::stable_sort(st.order.begin(), st.order.end(),
                     [&](int a, int b) { return v.ready[size_t(a)].slack < v.ready[size_t(b)].slack; });
    if (st.order.size() > size_t(kMaxReady))
        st.order.resize(size_t(kMaxReady));
    st.n = int(st.order.size());
    const Chip& chip = v.workload->chip;
    double maxPes = 1;
    for (const SubAccel& s : chip.subs)
        maxPes = std::max(maxPes, double(s.pes()));
    std::vector<float>& r = st.r;
    std::vector<float>& p = st.p;
    std::vector<float>& idle = st.idle;
    r.assign(size_t(st.n) * kFr, 0.f);
    p.assign(size_t(st.n) * size_t(st.S) * kFp, 0.f);
    idle.assign(size_t(st.S), 0.f);
    int idleCount = 0;
    for (int s = 0; s < st.S; ++s)
        idleCount += (idle[size_t(s)] = v.subs[size_t(s)].busy ? 0.f : 1.f) > 0 ? 1 : 0;
    const double B = v.budget;
    for (int i = 0; i < st.n; ++i) {
        const ReadyLayer& x = v.ready[size_t(st.order[size_t(i)])];
        float* f = &r[size_t(i) * kFr];
        f[0] = float(clip(x.slack / kScale, -5, 5));
        f[1] = float(clip((x.deadline - v.now) / kScale, -5, 10));
        f[2] = float(clip(x.remainingBest / kScale, 0, 10));
        f[3] = float(x.layersLeft / 50.0);
        f[4] = float(clip((v.now - x.arrival) / kScale, 0, 10));
        f[5] = float(v.workload->tenants[size_t(x.tenant)].qos / 10.0);
        const double best = v.cost->bestLatency(x.network, x.layer);
        for (int s = 0; s < st.S; ++s) {
            const LayerCost& c = v.costOf(x, s);
            float* q = &p[(size_t(i) * size_t(st.S) + size_t(s)) * kFp];
            q[0] = float(best / std::max(1e-9, c.latency));
            q[1] = float(c.bandwidth / B);
            q[2] = float(std::max(0.0, (v.demand + c.bandwidth) / B - 1));
            q[3] = float(clip(c.latency / kScale, 0, 10));
            q[4] = chip.subs[size_t(s)].dataflow == Dataflow::WeightStationary ? 1.f : 0.f;
            q[5] = float(chip.subs[size_t(s)].pes() / maxPes);
        }
    }
    st.g = {float(v.demand / B), float(idleCount) / float(std::max(1, st.S)), float(st.n / 16.0)};
    return st;
}

State toTensors(RawState& raw)
{
    State st;
    st.n = raw.n;
    st.S = raw.S;
    st.ready = torch::from_blob(raw.r.data(), {st.n, kFr}, torch::kFloat32).clone();
    st.pairs = torch::from_blob(raw.p.data(), {st.n, st.S, kFp}, torch::kFloat32).clone();
    st.idle = torch::from_blob(raw.idle.data(), {st.S}, torch::kFloat32).clone();
    st.global = torch::from_blob(raw.g.data(), {kFg}, torch::kFloat32).clone();
    return st;
}

/// The pair inputs of the heads: [n, S, kFr + kFp + kFg].
torch::Tensor pairInputs(const State& s)
{
    auto r = s.ready.unsqueeze(1).expand({s.n, s.S, kFr});
    auto g = s.global.view({1, 1, kFg}).expand({s.n, s.S, kFg});
    return torch::cat({r, s.pairs, g}, 2);
}

struct ActorImpl : torch::nn::Module {
    ActorImpl()
    {
        lstm = register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(kFr, kHidden).batch_first(true)));
        h1 = register_module("h1", torch::nn::Linear(kHidden + kFr + kFp + kFg, 32));
        h2 = register_module("h2", torch::nn::Linear(32, 1));
        skip = register_module("skip", torch::nn::Linear(kFr + kFp + kFg, 1));
        torch::NoGradGuard ng;
        h2->weight.mul_(0.05);
        h2->bias.zero_();
        // The greedy prior [I]: start a layer where it runs close to its fastest (pair 0: best / latency), less
        // readily the more slack it has (ready 0) and the more it would oversubscribe the bandwidth (pair 2).
        skip->weight.zero_();
        skip->weight[0][kFr + 0] = 4.0f;
        skip->weight[0][0] = -0.2f;
        skip->weight[0][kFr + 2] = -1.5f;
        skip->bias.fill_(-1.5f);
        // the prior stays as it is: what training learns is a bounded correction of it (kResidual)
        skip->weight.set_requires_grad(false);
        skip->bias.set_requires_grad(false);
    }
    /// Scores a = tanh(...) for every pair: [n, S].
    torch::Tensor forward(const State& s)
    {
        auto out = std::get<0>(lstm->forward(s.ready.unsqueeze(0))).squeeze(0); // [n, H]
        auto x = pairInputs(s);
        auto h = out.unsqueeze(1).expand({s.n, s.S, kHidden});
        auto z = kResidual * torch::tanh(h2->forward(torch::relu(h1->forward(torch::cat({h, x}, 2)))).squeeze(2)) +
                 skip->forward(x).squeeze(2);
        return torch::tanh(z);
    }
    torch::nn::LSTM lstm{nullptr};
    torch::nn::Linear h1{nullptr}, h2{nullptr}, skip{nullptr};
};
TORCH_MODULE(Actor);

/// The actor's forward pass in plain C++ for acting (LibTorch's per-operation cost made a 64 x 16 decision take
/// ms): the LSTM, then the head's first layer split into a per-layer part (hidden state, layer and chip
/// features) computed once per ready layer and a per-pair part (the pair's 6 features).
struct FastActor {
    std::vector<float> wih, whh, bih, bhh; // [4H, kFr], [4H, H], [4H], [4H]; gates i, f, g, o
    std::vector<float> w1, b1, w2;         // [32, H + kFr + kFp + kFg], [32], [32]
    float b2 = 0;
    std::vector<float> ws;                 // skip [kFr + kFp + kFg]
    float bs = 0;

    static std::vector<float> flat(const torch::Tensor& t)
    {
        auto c = t.detach().contiguous().to(torch::kFloat32);
        return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    }
    void load(Actor& a)
    {
        torch::NoGradGuard ng;
        auto p = a->lstm->named_parameters();
        wih = flat(p["weight_ih_l0"]);
        whh = flat(p["weight_hh_l0"]);
        bih = flat(p["bias_ih_l0"]);
        bhh = flat(p["bias_hh_l0"]);
        w1 = flat(a->h1->weight);
        b1 = flat(a->h1->bias);
        w2 = flat(a->h2->weight);
        b2 = a->h2->bias.item<float>();
        ws = flat(a->skip->weight);
        bs = a->skip->bias.item<float>();
    }
    /// tanh scores [n, S] (rows in the state's least-slack order).
    std::vector<float> forward(const RawState& s) const
    {
        constexpr int H = kHidden, In = kHidden + kFr + kFp + kFg, X = kFr + kFp + kFg;
        std::vector<float> h(H, 0.f), c(H, 0.f), gates(4 * H), out(size_t(s.n) * size_t(s.S));
        std::vector<float> rowPart(32), rowSkip(1);
        for (int i = 0; i < s.n; ++i) {
            const float* x = &s.r[size_t(i) * kFr];
            for (int k = 0; k < 4 * H; ++k) {
                float z = bih[size_t(k)] + bhh[size_t(k)];
                for (int j = 0; j < kFr; ++j)
                    z += wih[size_t(k) * kFr + size_t(j)] * x[j];
                for (int j = 0; j < H; ++j)
                    z += whh[size_t(k) * H + size_t(j)] * h[size_t(j)];
                gates[size_t(k)] = z;
            }
            for (int j = 0; j < H; ++j) {
                const float ig = 1.f / (1.f + std::exp(-gates[size_t(j)]));
                const float fg = 1.f / (1.f + std::exp(-gates[size_t(H + j)]));
                const float gg = std::tanh(gates[size_t(2 * H + j)]);
                const float og = 1.f / (1.f + std::exp(-gates[size_t(3 * H + j)]));
                c[size_t(j)] = fg * c[size_t(j)] + ig * gg;
                h[size_t(j)] = og * std::tanh(c[size_t(j)]);
            }
            // per-layer part of the head: W[:, h] h + W[:, ready] r + W[:, global] g + b
            for (int k = 0; k < 32; ++k) {
                const float* w = &w1[size_t(k) * In];
                float z = b1[size_t(k)];
                for (int j = 0; j < H; ++j)
                    z += w[j] * h[size_t(j)];
                for (int j = 0; j < kFr; ++j)
                    z += w[H + j] * x[j];
                for (int j = 0; j < kFg; ++j)
                    z += w[H + kFr + kFp + j] * s.g[size_t(j)];
                rowPart[size_t(k)] = z;
            }
            float sk = bs;
            for (int j = 0; j < kFr; ++j)
                sk += ws[size_t(j)] * x[j];
            for (int j = 0; j < kFg; ++j)
                sk += ws[size_t(kFr + kFp + j)] * s.g[size_t(j)];
            for (int sub = 0; sub < s.S; ++sub) {
                const float* q = &s.p[(size_t(i) * size_t(s.S) + size_t(sub)) * kFp];
                float z = b2, zs = sk;
                for (int k = 0; k < 32; ++k) {
                    const float* w = &w1[size_t(k) * In + H + kFr];
                    float a = rowPart[size_t(k)];
                    for (int j = 0; j < kFp; ++j)
                        a += w[j] * q[j];
                    z += w2[size_t(k)] * std::max(0.f, a);
                }
                for (int j = 0; j < kFp; ++j)
                    zs += ws[size_t(kFr + j)] * q[j];
                out[size_t(i) * size_t(s.S) + size_t(sub)] = std::tanh(kResidual * std::tanh(z) + zs);
            }
        }
        (void)X;
        return out;
    }
};

struct CriticImpl : torch::nn::Module {
    CriticImpl()
    {
        l1 = register_module("l1", torch::nn::Linear(kFr + kFp + kFg + 1, 64));
        l2 = register_module("l2", torch::nn::Linear(64, 64));
        l3 = register_module("l3", torch::nn::Linear(64, 1));
    }
    /// Q(s, a) with a: [n, S]; the mean over the idle pairs (all pairs when none is idle).
    torch::Tensor forward(const State& s, const torch::Tensor& a)
    {
        auto x = torch::cat({pairInputs(s), a.unsqueeze(2)}, 2);
        auto h = torch::relu(l2->forward(torch::relu(l1->forward(x)))); // [n, S, 64]
        auto w = s.idle.view({1, s.S}).expand({s.n, s.S});
        const auto denom = w.sum().clamp_min(1.0);
        auto pooled = (h * w.unsqueeze(2)).sum(std::vector<int64_t>{0, 1}) / denom;
        return l3->forward(pooled).squeeze(0);
    }
    torch::nn::Linear l1{nullptr}, l2{nullptr}, l3{nullptr};
};
TORCH_MODULE(Critic);

/// Greedy decoding of the scores: pairs with a > 0 on idle sub-accelerators, highest first.
void decode(const CycleView& v, const RawState& st, const std::vector<float>& a, std::vector<Assignment>& out)
{
    std::vector<std::tuple<float, int, int>> cand;
    for (int i = 0; i < st.n; ++i)
        for (int s = 0; s < st.S; ++s)
            if (!v.subs[size_t(s)].busy && a[size_t(i) * size_t(st.S) + size_t(s)] > 0)
                cand.emplace_back(a[size_t(i) * size_t(st.S) + size_t(s)], i, s);
    std::sort(cand.begin(), cand.end(), [](const auto& x, const auto& y) {
        if (std::get<0>(x) != std::get<0>(y))
            return std::get<0>(x) > std::get<0>(y);
        return std::make_pair(std::get<1>(x), std::get<2>(x)) < std::make_pair(std::get<1>(y), std::get<2>(y));
    });
    std::vector<char> rowUsed(size_t(st.n), 0), subUsed(size_t(st.S), 0);
    for (const auto& [score, i, s] : cand) {
        if (rowUsed[size_t(i)] || subUsed[size_t(s)])
            continue;
        rowUsed[size_t(i)] = subUsed[size_t(s)] = 1;
        out.push_back({st.order[size_t(i)], s});
    }
}

struct Step {
    State s;
    torch::Tensor a;
    double now = 0;
    double penalty = 0; ///< oversubscription the starts cause
    std::vector<int> started; ///< requests whose next layer started at this cycle
    int lateWaiting = 0;      ///< ready layers past their slack left waiting while a sub-accelerator stayed idle
};

class RelmasScheduler : public AccelScheduler {
public:
    RelmasScheduler(Actor actor, std::string chipName, std::string file)
        : m_actor(std::move(actor)), m_chip(std::move(chipName)), m_file(std::move(file))
    {
        m_fast.load(m_actor);
    }
    /// Loads lazily: the chip is known at the first cycle.
    RelmasScheduler(std::string checkpoint, bool untrained) : m_file(std::move(checkpoint)), m_untrained(untrained) {}
    std::string name() const override { return "relmas"; }
    void reset(uint64_t seed) override { m_rng.seed(seed * 7919 + 17); }
    void schedule(const CycleView& v, std::vector<Assignment>& out, std::vector<float>* scores) override;

    double noise = 0;           ///< exploration sd (training)
    std::vector<Step>* record = nullptr;

private:
    Actor m_actor{nullptr};
    FastActor m_fast;
    std::string m_chip, m_file;
    bool m_untrained = false;
    std::mt19937_64 m_rng{1};
    void ensureLoaded(const Chip& chip);
};

std::string chipKey(const Chip& c) { return c.name + " (" + std::to_string(c.subs.size()) + " sub-accelerators)"; }

void saveCheckpoint(const std::string& path, Actor& actor, const Chip& chip, const RelmasTrainConfig& cfg, int iteration,
                    double evalSla)
{
    std::ostringstream tensors;
    torch::serialize::OutputArchive ar;
    actor->save(ar);
    ar.save_to(tensors);
    JsonValue h = JsonValue::makeObject();
    h["policy"] = JsonValue::makeString("relmas");
    h["chip"] = JsonValue::makeString(chipKey(chip));
    h["features"] = JsonValue::makeString(std::to_string(kFr) + "/" + std::to_string(kFp) + "/" + std::to_string(kFg) +
                                          "/" + std::to_string(kHidden));
    h["iteration"] = JsonValue::makeNumber(iteration);
    h["held_out_sla"] = JsonValue::makeNumber(evalSla);
    h["seed"] = JsonValue::makeNumber(double(cfg.seed));
    h["command"] = JsonValue::makeString(cfg.command);
    const std::string header = writeJson(h, 0);
    const std::string body = tensors.str();
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f)
            throw std::runtime_error(path + ": cannot write the checkpoint");
        const uint32_t hl = uint32_t(header.size());
        const uint64_t bl = body.size();
        f.write(kMagic, 8);
        f.write(reinterpret_cast<const char*>(&kVersion), 4);
        f.write(reinterpret_cast<const char*>(&hl), 4);
        f.write(header.data(), std::streamsize(header.size()));
        f.write(reinterpret_cast<const char*>(&bl), 8);
        f.write(body.data(), std::streamsize(body.size()));
        if (!f)
            throw std::runtime_error(path + ": cannot write the checkpoint");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        throw std::runtime_error(path + ": cannot replace the checkpoint");
}

void loadCheckpoint(const std::string& path, Actor& actor, const Chip& chip)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw std::runtime_error(path + ": cannot open the relmas checkpoint");
    char magic[8];
    uint32_t version = 0, hl = 0;
    f.read(magic, 8);
    f.read(reinterpret_cast<char*>(&version), 4);
    f.read(reinterpret_cast<char*>(&hl), 4);
    if (!f || std::memcmp(magic, kMagic, 8) != 0)
        throw std::runtime_error(path + ": not a relmas checkpoint (bad magic)");
    if (version != kVersion)
        throw std::runtime_error(path + ": relmas checkpoint version " + std::to_string(version) + ", this build reads " +
                                 std::to_string(kVersion));
    if (hl > (1u << 20))
        throw std::runtime_error(path + ": relmas checkpoint header too long");
    std::string header(hl, '\0');
    f.read(header.data(), hl);
    uint64_t bl = 0;
    f.read(reinterpret_cast<char*>(&bl), 8);
    if (!f || bl > (uint64_t(1) << 32))
        throw std::runtime_error(path + ": truncated relmas checkpoint");
    std::string body(size_t(bl), '\0');
    f.read(body.data(), std::streamsize(bl));
    if (!f)
        throw std::runtime_error(path + ": truncated relmas checkpoint");
    JsonValue h;
    try {
        h = parseJson(header, path);
    } catch (const std::exception& e) {
        throw std::runtime_error(path + ": bad relmas checkpoint header (" + e.what() + ")");
    }
    const std::string want = chipKey(chip);
    const JsonValue* c = h.find("chip");
    if (!c || !c->isString() || c->string() != want)
        throw std::runtime_error(path + ": trained for chip " + (c && c->isString() ? c->string() : "?") + ", not for " + want);
    const std::string feats = std::to_string(kFr) + "/" + std::to_string(kFp) + "/" + std::to_string(kFg) + "/" +
                              std::to_string(kHidden);
    const JsonValue* fe = h.find("features");
    if (!fe || !fe->isString() || fe->string() != feats)
        throw std::runtime_error(path + ": relmas checkpoint of other feature sizes; retrain it");
    std::istringstream in(body);
    torch::serialize::InputArchive ar;
    try {
        ar.load_from(in);
        actor->load(ar);
    } catch (const std::exception& e) {
        throw std::runtime_error(path + ": bad relmas tensors (" + std::string(e.what()).substr(0, 120) + ")");
    }
}

void RelmasScheduler::ensureLoaded(const Chip& chip)
{
    if (m_actor)
        return;
    torch::manual_seed(1);
    m_actor = Actor();
    m_chip = chipKey(chip);
    if (m_untrained) {
        m_fast.load(m_actor);
        return;
    }
    std::string file = m_file;
    if (file.empty())
        file = shippedCheckpoint("relmas", chip.name);
    if (file.empty())
        throw std::runtime_error("relmas: no checkpoint for chip " + chip.name +
                                 " (pass relmas.checkpoint=FILE, train one with accel-train, or relmas.untrained=1)");
    loadCheckpoint(file, m_actor, chip);
    m_fast.load(m_actor);
    m_file = file;
}

void RelmasScheduler::schedule(const CycleView& v, std::vector<Assignment>& out, std::vector<float>* scores)
{
    ensureLoaded(v.workload->chip);
    RawState st = encode(v);
    std::vector<float> a = m_fast.forward(st);
    if (noise > 0) {
        std::normal_distribution<float> nd(0.f, float(noise));
        for (float& x : a)
            x = std::clamp(x + nd(m_rng), -1.f, 1.f);
    }
    const size_t first = out.size();
    decode(v, st, a, out);
    if (scores) {
        // the actor's scores in ready order, mapped to [0, 1] (0 on busy sub-accelerators, as the heuristics report)
        scores->assign(v.ready.size() * v.subs.size(), 0.f);
        for (int i = 0; i < st.n; ++i)
            for (int s = 0; s < st.S; ++s)
                if (!v.subs[size_t(s)].busy)
                    (*scores)[size_t(st.order[size_t(i)]) * v.subs.size() + size_t(s)] =
                        (a[size_t(i) * size_t(st.S) + size_t(s)] + 1.f) / 2.f;
    }
    if (record) {
        double add = 0;
        for (size_t k = first; k < out.size(); ++k)
            add += v.costOf(v.ready[size_t(out[k].ready)], out[k].sub).bandwidth;
        const double over = std::max(0.0, (v.demand + add) / v.budget - 1) - std::max(0.0, v.demand / v.budget - 1);
        torch::Tensor at = torch::from_blob(a.data(), {st.n, st.S}, torch::kFloat32).clone();
        std::vector<int> started;
        for (size_t k = first; k < out.size(); ++k)
            started.push_back(v.ready[size_t(out[k].ready)].request);
        int idleLeft = 0;
        for (const SubState& sub : v.subs)
            idleLeft += sub.busy ? 0 : 1;
        idleLeft -= int(out.size() - first);
        int late = 0;
        if (idleLeft > 0) {
            std::vector<char> began(v.ready.size(), 0);
            for (size_t k = first; k < out.size(); ++k)
                began[size_t(out[k].ready)] = 1;
            for (size_t i = 0; i < v.ready.size(); ++i)
                late += !began[i] && v.ready[i].slack < 0 ? 1 : 0;
        }
        record->push_back({toTensors(st), at, v.now, std::max(0.0, over), std::move(started), late});
    }
}

} // namespace


namespace {

struct Transition {
    State s, next;
    torch::Tensor a;
    double r = 0;
    bool done = false;
};

/// dst = (1 - tau) dst + tau src, parameter by parameter (tau = 1 copies).
void blend(torch::nn::Module& dst, const torch::nn::Module& src, double tau)
{
    torch::NoGradGuard ng;
    auto d = dst.named_parameters(true);
    const auto sp = src.named_parameters(true);
    for (const auto& it : sp) {
        torch::Tensor t = d[it.key()];
        t.mul_(1 - tau).add_(it.value(), tau);
    }
}

double slaOf(const Workload& w, const CostTable& cost, AccelScheduler& sch, double period, uint64_t seed)
{
    SimConfig sc;
    sc.period = period;
    sc.keepTimeline = false;
    sc.seed = seed;
    return computeMetrics(w, simulate(w, cost, sch, sc)).slaRate;
}

} // namespace

RelmasTrainResult torchTrainRelmas(const RelmasTrainConfig& cfg, const std::function<void(const RelmasIterStats&)>& cb)
{
    torch::set_num_threads(1);
    torch::manual_seed(int64_t(cfg.seed));
    const CostTable cost(cfg.base.chip, cfg.base.networks);
    Actor actor, targetActor;
    Critic critic, targetCritic;
    blend(*targetActor, *actor, 1.0);
    blend(*targetCritic, *critic, 1.0);
    std::vector<torch::Tensor> trainable;
    for (const auto& t : actor->parameters())
        if (t.requires_grad())
            trainable.push_back(t);
    torch::optim::Adam aopt(trainable, torch::optim::AdamOptions(cfg.actorLr));
    torch::optim::Adam copt(critic->parameters(), torch::optim::AdamOptions(cfg.criticLr));
    std::mt19937_64 rng(cfg.seed * 104729 + 3);

    Workload evalW = cfg.base;
    generateRequests(evalW, cost, cfg.eval);
    RelmasTrainResult res;
    {
        auto het = makeAccelScheduler("hetero");
        res.heteroEvalSla = slaOf(evalW, cost, *het, cfg.period, cfg.seed);
        RelmasScheduler greedy(actor, chipKey(cfg.base.chip), "");
        res.untrainedEvalSla = slaOf(evalW, cost, greedy, cfg.period, cfg.seed);
    }
    res.bestEvalSla = res.untrainedEvalSla;
    if (!cfg.out.empty())
        saveCheckpoint(cfg.out, actor, cfg.base.chip, cfg, 0, res.bestEvalSla);

    std::vector<Transition> buffer;
    const size_t capacity = 60000;
    size_t writePos = 0;
    for (int it = 1; it <= cfg.iterations; ++it) {
        const auto t0 = std::chrono::steady_clock::now();
        RelmasIterStats st;
        st.iteration = it;
        // --- one episode on a fresh generated scenario, with exploration noise ---
        Workload w = cfg.base;
        GenParams g = cfg.train;
        g.seed = cfg.train.seed + uint64_t(it);
        generateRequests(w, cost, g);
        std::vector<Step> steps;
        RelmasScheduler explore(actor, chipKey(cfg.base.chip), "");
        explore.noise = cfg.noise * (1.0 - 0.9 * double(it - 1) / std::max(1, cfg.iterations - 1));
        explore.record = &steps;
        SimConfig sc;
        sc.period = cfg.period;
        sc.keepTimeline = false;
        sc.seed = cfg.seed + uint64_t(it);
        const SimResult r = simulate(w, cost, explore, sc);
        const AccelMetrics m = computeMetrics(w, r);
        st.trainSla = m.slaRate;
        // rewards [I]: a request's outcome (+1 met, -1 missed, weighted by its tenant's SLA rate) is shared out over
        // the cycles that started its layers, 1/L per layer of an L-layer network, so a start is credited with what
        // became of its request (credit that a discount over the hundreds of cycles a request lasts would lose);
        // minus the oversubscription the cycle's starts cause and, per late layer it leaves waiting beside an idle
        // sub-accelerator, lateWaitPenalty (holding everything back must not look free)
        std::vector<double> reward(steps.size(), 0.0);
        for (size_t k = 0; k < steps.size(); ++k) {
            reward[k] -= cfg.bandwidthPenalty * steps[k].penalty + cfg.lateWaitPenalty * steps[k].lateWaiting;
            for (int q : steps[k].started) {
                const Request& rq = w.requests[size_t(q)];
                const double rate = size_t(rq.tenant) < m.tenantRate.size() ? m.tenantRate[size_t(rq.tenant)] : 1.0;
                reward[k] += (1 + cfg.fairness * (1 - rate)) * (r.requests[size_t(q)].met ? 1.0 : -1.0) /
                             double(std::max(1, cost.layerCount(rq.network)));
            }
        }
        for (size_t k = 0; k < steps.size(); ++k) {
            Transition tr;
            tr.s = steps[k].s;
            tr.a = steps[k].a;
            tr.r = reward[k];
            tr.done = k + 1 == steps.size();
            if (!tr.done)
                tr.next = steps[k + 1].s;
            if (buffer.size() < capacity)
                buffer.push_back(std::move(tr));
            else
                buffer[writePos++ % capacity] = std::move(tr);
        }
        st.transitions = buffer.size();
        // --- DDPG updates ---
        double closs = 0, aq = 0;
        std::uniform_int_distribution<size_t> pick(0, buffer.size() - 1);
        for (int u = 0; u < cfg.updates && !buffer.empty(); ++u) {
            std::vector<size_t> idx(size_t(cfg.batch));
            for (size_t& x : idx)
                x = pick(rng);
            copt.zero_grad();
            torch::Tensor lc = torch::zeros({});
            for (size_t x : idx) {
                const Transition& tr = buffer[x];
                double y = tr.r;
                if (!tr.done) {
                    torch::NoGradGuard ng;
                    y += cfg.gamma * targetCritic->forward(tr.next, targetActor->forward(tr.next)).item<double>();
                }
                lc = lc + (critic->forward(tr.s, tr.a) - y).pow(2);
            }
            lc = lc / double(cfg.batch);
            lc.backward();
            torch::nn::utils::clip_grad_norm_(critic->parameters(), 5.0);
            copt.step();
            if (it == 1) { // the first episode warms the critic up before the actor follows it
                blend(*targetCritic, *critic, cfg.targetTau);
                closs += lc.item<double>();
                continue;
            }
            aopt.zero_grad();
            torch::Tensor la = torch::zeros({});
            for (size_t x : idx) {
                const Transition& tr = buffer[x];
                la = la - critic->forward(tr.s, actor->forward(tr.s));
            }
            la = la / double(cfg.batch);
            la.backward();
            torch::nn::utils::clip_grad_norm_(trainable, 5.0);
            aopt.step(); // (the critic's gradients from this pass are cleared before its next step)
            blend(*targetActor, *actor, cfg.targetTau);
            blend(*targetCritic, *critic, cfg.targetTau);
            closs += lc.item<double>();
            aq += -la.item<double>();
        }
        st.criticLoss = closs / std::max(1, cfg.updates);
        st.actorQ = aq / std::max(1, cfg.updates);
        // the acting path (FastActor) must compute what the trained module computes: checked on a replayed state
        if (!buffer.empty()) {
            torch::NoGradGuard ng;
            const Transition& tr = buffer[buffer.size() / 2];
            RawState raw;
            raw.n = tr.s.n;
            raw.S = tr.s.S;
            raw.r = FastActor::flat(tr.s.ready);
            raw.p = FastActor::flat(tr.s.pairs);
            raw.idle = FastActor::flat(tr.s.idle);
            raw.g = FastActor::flat(tr.s.global);
            FastActor fast;
            fast.load(actor);
            const std::vector<float> a = fast.forward(raw);
            const std::vector<float> b = FastActor::flat(actor->forward(tr.s));
            for (size_t k = 0; k < a.size(); ++k)
                if (std::fabs(a[k] - b[k]) > 1e-4f)
                    throw std::logic_error("relmas: the plain C++ actor differs from the LibTorch one (" +
                                           std::to_string(a[k]) + " vs " + std::to_string(b[k]) + ")");
        }
        // --- held-out score, greedy ---
        RelmasScheduler greedy(actor, chipKey(cfg.base.chip), "");
        st.evalSla = slaOf(evalW, cost, greedy, cfg.period, cfg.seed);
        if (st.evalSla > res.bestEvalSla) {
            res.bestEvalSla = st.evalSla;
            res.bestIteration = it;
            st.best = true;
            if (!cfg.out.empty())
                saveCheckpoint(cfg.out, actor, cfg.base.chip, cfg, it, st.evalSla);
        }
        st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (cb)
            cb(st);
    }
    return res;
}

std::unique_ptr<AccelScheduler> torchMakeRelmas(const std::string& checkpoint, bool untrained)
{
    torch::set_num_threads(1);
    return std::make_unique<RelmasScheduler>(checkpoint, untrained);
}

} // namespace ss::learn
