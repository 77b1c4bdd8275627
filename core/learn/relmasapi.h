#pragma once
// The learned RELMAS scheduler of the accelerator mode (docs/ACCELERATOR.md §6.1) as the executables see it:
// plain C++, no LibTorch. The LibTorch module (relmas.cpp) implements it; these forward to the module, which is
// loaded on first use (moduleapi.h).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "model/accel/accelmodel.h"
#include "sim/accel/accelgen.h"
#include "sim/accel/accelsched.h"

namespace ss::learn {

/// Everything a RELMAS training run depends on. Same config => the same checkpoint.
struct RelmasTrainConfig {
    accel::Workload base;          ///< chip and networks; tenants and requests are generated per episode
    accel::GenParams train;        ///< the training distribution (episode e uses seed train.seed + e)
    accel::GenParams eval;         ///< the held-out scenario (its own seed, never trained on)
    double period = 20;            ///< T_s, us
    int iterations = 20;           ///< one episode (a generated scenario) + `updates` gradient steps each
    int updates = 60;
    int batch = 16;
    double gamma = 0.5;            ///< discount per scheduling cycle (outcomes are credited to the starts already)
    double actorLr = 1e-4, criticLr = 1e-3;
    double noise = 0.4;            ///< exploration: sd of the Gaussian added to the actor's scores (decays to 0.1x)
    double targetTau = 0.02;       ///< soft update of the target networks
    double bandwidthPenalty = 0.5; ///< reward per unit of oversubscription (demand / B_sys - 1) an action causes
    double fairness = 0.5;         ///< a tenant's request outcome weighs 1 + fairness x (1 - its SLA rate)
    double lateWaitPenalty = 0.02; ///< per ready layer past its slack left waiting while a sub-accelerator is idle
    uint64_t seed = 1;
    std::string out;               ///< checkpoint written at every new best held-out score (atomically)
    std::string command;           ///< recorded in the checkpoint
};

struct RelmasIterStats {
    int iteration = 0;
    double trainSla = 0, evalSla = 0, evalEnergyUj = 0;
    double criticLoss = 0, actorQ = 0;
    size_t transitions = 0;
    bool best = false;
    double seconds = 0;
};

struct RelmasTrainResult {
    double untrainedEvalSla = 0, heteroEvalSla = 0, bestEvalSla = 0;
    int bestIteration = 0; ///< 0 = the untrained start stayed best (then it is what was written)
};

/// Trains (loads the module). Throws std::runtime_error on a module or I/O problem.
RelmasTrainResult trainRelmas(const RelmasTrainConfig& cfg, const std::function<void(const RelmasIterStats&)>& onIteration);
/// The learned scheduler `relmas`: loads `checkpoint`, else the shipped "relmas-<chip>.sscp" for the chip it is
/// first asked to schedule (a checkpoint made for another chip is refused, naming both), else, with
/// `untrained`, the heuristic-initialised untrained actor. Errors surface as std::runtime_error.
std::unique_ptr<accel::AccelScheduler> makeRelmasScheduler(const std::string& checkpoint, bool untrained);

} // namespace ss::learn
