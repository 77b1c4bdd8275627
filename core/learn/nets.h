#pragma once
// INTERNAL to core/learn (includes LibTorch): the DAS networks, the checkpoint format and the hooks the
// trainer uses to collect experience from the DAS scheduler. Only das.cpp, daspolicy.cpp and trainer.cpp include this.
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "learn/checkpointfile.h"
#include "learn/features.h"
#include "model/clusterspec.h"
#include "sim/engine.h"

namespace ss::learn {


/// Ordering agent: job MLP embedding, optional squeeze-and-communicate gate, position-aware Transformer
/// encoder, Gaussian priority head (mu, log sigma) per job.
struct OrderNetImpl : torch::nn::Module {
    OrderNetImpl(const AgentConfig& c);
    /// x: [B,N,kJobFeatures]; pad: [B,N] bool (true = padding) or undefined. Returns mu, logstd, gate [B,N].
    std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> forward(const torch::Tensor& x, const torch::Tensor& pad);
    bool mc;
    int d;
    torch::nn::Linear emb1{nullptr}, emb2{nullptr}, squeezeF{nullptr}, gateW{nullptr}, head{nullptr};
    /// Linear skip from the raw job features to mu, initialised to "shortest remaining work first, with aging"
    /// ([I]): the untrained agent orders as SRPT and learning moves it from there (every weight, the prior's
    /// included, is trained).
    torch::nn::Linear skip{nullptr};
    torch::nn::TransformerEncoder encoder{nullptr};
};
TORCH_MODULE(OrderNet);

/// Placement agent: per-machine score mean from machine + job features (+ RWGP posterior mean/sd);
/// a learned scale s of the sampling covariance s^2 * Sigma_GP (or s^2 * I without RWGP).
struct PlaceNetImpl : torch::nn::Module {
    PlaceNetImpl(const AgentConfig& c);
    torch::Tensor forward(const torch::Tensor& x); ///< [..., kPlaceInput] -> [...]
    torch::nn::Linear l1{nullptr}, l2{nullptr}, l3{nullptr};
    /// Linear skip from the inputs to the score, initialised to "fill one machine that holds the whole job,
    /// fullest first" ([I]): the untrained agent consolidates instead of scattering jobs at random.
    torch::nn::Linear skip{nullptr};
    torch::Tensor logScale;
};
TORCH_MODULE(PlaceNet);

/// The Q-critic's view of a machine as the placement action A^c: the placement input's machine features and RWGP
/// posterior mean and sd (not the job's features: the ordering action carries those).
constexpr int kCriticMachine = kMachineFeatures + 2;
/// The Q-critic's input Q_phi(O^j, O^c, a^j, A^c) ([I] encoding): the global state (O^c, with the queue summary),
/// the mean of the queued jobs' features (O^j), the features of the job the ordering action put first among those
/// that could start (a^j), and the machine the first placement scored highest (A^c).
constexpr int kQInput = kGlobalFeatures + 2 * kJobFeatures + kCriticMachine;

/// Centralised critic: V(s) over the global state (AgentConfig::critic "v") or the seed's Q(s, a) over kQInput
/// ("q"): the same MLP, another input width.
struct CriticImpl : torch::nn::Module {
    CriticImpl(const AgentConfig& c);
    torch::Tensor forward(const torch::Tensor& g); ///< [B,kGlobalFeatures] or [B,kQInput] -> [B]
    torch::nn::Linear l1{nullptr}, l2{nullptr}, l3{nullptr};
};
TORCH_MODULE(Critic);

/// Q-critic inputs of K state-action pairs of one decision: global [kGlobalFeatures], jobs [N,kJobFeatures] (the
/// queue, averaged into O^j), jobRows [K,kJobFeatures] (a^j), machineRows [K,kCriticMachine] (A^c) -> [K,kQInput].
torch::Tensor qInput(const torch::Tensor& global, const torch::Tensor& jobs, const torch::Tensor& jobRows,
                     const torch::Tensor& machineRows);
/// The machine part of placement inputs: [..., kPlaceInput] -> [..., kCriticMachine].
torch::Tensor criticMachineRows(const torch::Tensor& placeInput);

/// The dual agent plus critic, shared by the scheduler (acting) and the trainer (learning).
struct DasAgent {
    explicit DasAgent(AgentConfig c, uint64_t initSeed = 1);
    AgentConfig cfg;
    OrderNet order{nullptr};
    PlaceNet place{nullptr};
    Critic critic{nullptr};
    std::vector<torch::Tensor> parameters() const;
};

/// Writes magic + version + JSON meta + tensors + checksum. Throws std::runtime_error on I/O failure.
void saveCheckpoint(const std::string& path, const DasAgent& agent, const CheckpointMeta& meta,
                    const std::vector<std::pair<std::string, torch::Tensor>>& extra = {});
/// Reads a checkpoint; throws std::runtime_error with a one-line "FILE: reason" on any problem
/// (not a checkpoint, newer version, checksum mismatch, feature sizes differ, missing tensor).
std::shared_ptr<DasAgent> loadCheckpoint(const std::string& path, CheckpointMeta* meta = nullptr,
                                         std::vector<std::pair<std::string, torch::Tensor>>* extra = nullptr);
/// Only the JSON meta (cheap validation without building networks).
CheckpointMeta readCheckpointMeta(const std::string& path);

// --- experience collected by the scheduler in training mode ---
struct PlaceSample {
    torch::Tensor input; ///< [M, kPlaceInput]
    torch::Tensor linv;  ///< [M, M] inverse Cholesky factor of Sigma_GP, undefined = identity (no RWGP)
    torch::Tensor action; ///< [M] sampled scores
    torch::Tensor mask;   ///< [M] 1 for machines the job may use (log-prob counts only those)
    float logp = 0;
};
struct StepSample {
    torch::Tensor global;  ///< [kGlobalFeatures]
    torch::Tensor jobs;    ///< [N, kJobFeatures]
    torch::Tensor rho;     ///< [N]
    float logpOrder = 0;
    std::vector<PlaceSample> place;
    double reward = 0;
    // The Q-critic's (AgentConfig::critic "q"; empty otherwise): the actions taken and their alternatives.
    int topJob = -1;          ///< a^j: index in `jobs` of the first job of the sampled order that could start
    std::vector<float> orderTop; ///< [N] P(job i first among those that could start) under the acting policy
    torch::Tensor machines;   ///< [M, kCriticMachine] the first placement's machines (A^c's alternatives)
    int topMachine = -1;      ///< A^c: the machine the first placement scored highest
    std::vector<float> placeTop; ///< [M] P(machine m scores highest) under the acting placement policy
};
struct Episode {
    std::vector<StepSample> steps;
    double rewardAlpha = 0.05;
    bool waitPerGpu = false; ///< waiting penalty per GPU asked (§2.7's n_gpu) or per job
};

/// Log-density of the ordering action per job (mean over jobs; constants dropped).
torch::Tensor orderLogProb(const torch::Tensor& mu, const torch::Tensor& logstd, const torch::Tensor& rho,
                           const torch::Tensor& valid);
/// Log-density of placement scores under N(mu, s^2 L L^T), per machine of the mask (mean; constants dropped).
torch::Tensor placeLogProb(const torch::Tensor& mu, const torch::Tensor& logScale, const torch::Tensor& action,
                           const torch::Tensor& linv, const torch::Tensor& mask);

/// The DAS scheduler over a shared agent. With `collect`, it samples both agents and records experience;
/// otherwise `sampleOrder`/`samplePlace` choose sampled vs mean actions. With `compact` (the default, [I]), a
/// whole-GPU job whose walk down the placement agent's machine order would spread it over more machines than
/// its GPU count needs stays queued instead; a job wider than one machine first tries a compact walk over
/// machines as fast as the agent's first choice, then a compact start on slower machines when that is predicted
/// to end no later than waiting (see minMachinesFor, consolidatingOrder and wholeMachinesFreeAt in features.h).
/// `wide` picks the rule for a job wider than one machine (`--param das.wide=wait|fast|degrade`): just wait, also
/// try the compact walk over machines as fast as the agent's first choice, or also delay or degrade (default).
enum class WideJobs { Wait, Fast, DelayOrDegrade };
/// `rwgpKernel` picks the RWGP kernel ("similarity" or "seed", rwgp.h; "" = the one the agent was trained with) and
/// `rwgpLambda` its walk decay (`--param das.rwgp`, `das.rwgp_lambda`).
std::unique_ptr<Scheduler> makeDasScheduler(std::shared_ptr<DasAgent> agent, Episode* collect,
                                            bool sampleOrder, bool samplePlace, bool backfill, bool compact = true,
                                            WideJobs wide = WideJobs::DelayOrDegrade,
                                            const std::string& rwgpKernel = "", double rwgpLambda = 0.5);

} // namespace ss::learn
