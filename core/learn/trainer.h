#pragma once
// MAPPO training of the DAS dual agent (ordering + placement actors, one centralised critic V(s)).
// Plain C++ interface (pimpl) so that the GUI's training panel and the CLI share it without seeing LibTorch.
#include <cstdint>
#include <memory>
#include <string>

#include "model/clusterspec.h"
#include "model/job.h"
#include "perf/perfmodel.h"

namespace ss::learn {

/// Everything a training run depends on. Same config => identical training statistics.
struct TrainConfig {
    std::string policy = "das";   ///< das | da | da+mc | da+rwgp
    ClusterSpec cluster;          ///< finalized cluster to train on
    Trace trace;                  ///< training trace (sorted by submit)
    Trace evalTrace;              ///< held-out trace; empty = no evaluation
    /// Validation trace (carve it from the training side, never from the held-out one). When set, the policy
    /// is scored on it before training and every evalEvery iterations (mean JCT x mean fee, lower is better)
    /// and save() writes the best-scoring policy seen, the untrained one included (early stopping).
    Trace validTrace;
    PerfConfig perf = defaultPerf(); ///< performance model used in training episodes and evaluation
    uint64_t seed = 1;
    int iterations = 50;          ///< PPO iterations (one iteration = episodesPerIteration episodes)
    int episodesPerIteration = 2;
    int episodeJobs = 0;          ///< jobs per training episode: a random window of the trace; 0 = whole trace
    int evalEvery = 5;            ///< evaluate on evalTrace every N iterations (0 = never)
    /// Held-out and validation scores are means over this many runs of the trace, each with its own perf-model
    /// seed (machine biases, per-placement fluctuation): one run of a few hundred jobs swings by +-15 % on
    /// near-tie choices, which would make both the curve and early stopping a lottery.
    int evalReplicas = 3;
    /// Perf-model seed of evaluation replica k (the same for the policy, the baselines it is compared with,
    /// and a `run` that checks it).
    uint64_t evalSeed(int k) const { return seed + uint64_t(k) * 7919u; }
    /// Threads that run episodes at once: the training episodes of an iteration and the evaluation replicas
    /// (each episode has its own scheduler and seeded streams, the windows and seeds are drawn first in one
    /// order and results merged in episode order, so training statistics and checkpoints are identical for
    /// every value). 1 here (the GUI's panel and tests run beside other work); `train --workers` defaults to
    /// the hardware threads.
    int workers = 1;
    int ppoEpochs = 4;
    int minibatch = 256;          ///< decisions per PPO minibatch
    double lr = 5e-4;
    double gamma = 0.99;
    double gaeLambda = 0.95;
    double clip = 0.2;
    /// Entropy bonus weight. 0 by default ([I], measured in docs/REPRODUCTION.md "Training defaults"; weak
    /// evidence): the final policy's held-out JCT beat its start on 4 of 5 runs, against 3 of 5 with 0.01.
    double entropyCoef = 0.0;
    double valueCoef = 0.5;
    double rewardAlpha = 0.05;    ///< α of the reward (§2.7): weight of the waiting penalty
    /// Waiting penalty unit: true = per GPU a waiting job asks for (§2.7's n_gpu), false = per waiting job
    /// (default, [I]: weighting by n_gpu pays the agents to start big jobs first, against mean JCT; measured in
    /// docs/REPRODUCTION.md).
    bool waitPerGpu = false;
    // network / agent hyper-parameters (stored in the checkpoint)
    int dModel = 32;
    int heads = 4;
    int layers = 1;
    int tau = 64;                 ///< RWGP history window
    /// RWGP kernel: "similarity" (default) or "seed" (the seed's per-job P(i) and product-graph kernel, rwgp.h);
    /// stored in the checkpoint, which runs with it unless `--param das.rwgp` says otherwise.
    std::string rwgpKernel = "similarity";
    /// Centralised critic: "v" (default: state value V(s), advantages by GAE) or "q" (the seed's Q_phi(O^j, O^c, a^j,
    /// A^c), trained by TD against a target network refreshed every PPO epoch, advantages Q(s, a) minus the acting
    /// policy's expectation of Q over the agent's own alternatives; trainer.cpp). Stored in the checkpoint
    /// (`train --critic v|q`); a resumed run keeps the checkpoint's and refuses a different demand.
    std::string critic = "v";
    int maxQueue = 128;           ///< jobs the ordering agent looks at (oldest first)
    std::string resume;           ///< checkpoint to continue from ("" = fresh init)
    std::string command;          ///< the command line, recorded in the checkpoint
    /// The perf model used by default when training: machines with persistent bias and per-placement noise
    /// (without fluctuation RWGP has nothing to learn, ALGORITHMS §2.3).
    static PerfConfig defaultPerf();
};

/// One iteration's figures (for progress lines, the learning-curve CSV and the GUI panel).
struct TrainStats {
    int iteration = 0;
    int64_t envSteps = 0;          ///< decisions taken so far (cumulative)
    double meanReward = 0;         ///< mean per-decision reward in this iteration
    double policyLossOrder = 0, policyLossPlace = 0, valueLoss = 0;
    /// Mean squared error of the critic, before this iteration's update, against the discounted returns of
    /// this iteration's fresh episodes (unseen data; falls as the critic learns, unlike the PPO losses).
    double criticError = 0;
    double entropyOrder = 0, entropyPlace = 0;
    /// Q-critic only (-1 otherwise): mean |Q_online - Q_target| over this iteration's state-action pairs after the
    /// update: how far the online network moved, in the last PPO epoch, from the target network its TD targets came from.
    double targetLag = -1;
    double trainMeanJctMin = 0;    ///< mean JCT over this iteration's episodes
    double evalMeanJctMin = -1;    ///< held-out mean JCT (minutes); -1 when not evaluated this iteration
    double evalMeanFeeUsd = -1;
    double validMeanJctMin = -1;   ///< validation mean JCT; -1 when not validated this iteration
    double validMeanFeeUsd = -1;
    int bestIteration = -1;        ///< iteration whose policy save() writes (-1 = the current one)
    double seconds = 0;            ///< wall time of this iteration
    double stepsPerSecond = 0;
    double collectSeconds = 0;     ///< wall time of this iteration's episode collection (cfg.workers threads)
};

class Trainer {
public:
    /// Throws std::invalid_argument for a bad config and std::runtime_error for an unusable resume file.
    explicit Trainer(TrainConfig cfg);
    ~Trainer();
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    /// One PPO iteration (collect episodes, update). Returns false once cfg.iterations are done.
    bool step();
    int iteration() const;
    TrainStats lastStats() const;
    /// Held-out mean JCT (minutes) and fee of the current policy (deterministic: mean actions).
    std::pair<double, double> evaluate(const Trace& trace) const;
    /// The same figures for a registered policy (e.g. "fifo+firstfit") on the same perf seeds: the bar to beat.
    std::pair<double, double> evaluateBaseline(const std::string& policy, const Trace& trace) const;
    /// Iteration of the policy save() writes: the best on validTrace, or the current one (-1 = no selection).
    int bestIteration() const;
    /// Writes a versioned checkpoint (throws std::runtime_error on I/O failure).
    void save(const std::string& path) const;
    const TrainConfig& config() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace ss::learn
