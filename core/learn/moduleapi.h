#pragma once
// INTERNAL to core/learn: the plain C++ interface between the LibTorch module (libschedstudio-learn.so: das.cpp,
// trainer.cpp, module.cpp) and the processes that load it. No LibTorch type appears here.
//
// Loading (core/policy/learnedmodule.cpp): dlopen the module, then call its one exported symbol
//     extern "C" const char* schedstudio_learn_module_init(const char* hostVersion);
// which checks the version, installs its function table with ss::learn::installLearnModule (the DAS variants
// are in the policy table already, learnregistry.cpp; their factory calls the table), and returns nullptr (or a
// one-line error).
// The forwarding learn API in the executables (learnhost.cpp: Trainer, readCheckpointInfo) calls through that
// table, loading the module on first use.
#include <memory>
#include <string>
#include <utility>

#include "learn/learn.h"
#include "learn/relmasapi.h"
#include "learn/trainer.h"
#include "policy/registry.h"

namespace ss::learn {

/// What a Trainer does; the module implements it with LibTorch (trainer.cpp), Trainer forwards to it.
class TrainerBackend {
public:
    virtual ~TrainerBackend() = default;
    virtual bool step() = 0;
    virtual int iteration() const = 0;
    virtual TrainStats lastStats() const = 0;
    virtual std::pair<double, double> evaluate(const Trace& trace) const = 0;
    virtual std::pair<double, double> evaluateBaseline(const std::string& policy, const Trace& trace) const = 0;
    virtual int bestIteration() const = 0;
    virtual void save(const std::string& path) const = 0;
    virtual const TrainConfig& config() const = 0;
};

/// The module's function table (C++ functions: host and module are built together, same compiler and flags).
struct LearnModuleApi {
    std::unique_ptr<TrainerBackend> (*makeTrainer)(TrainConfig cfg);
    CheckpointInfo (*readCheckpointInfo)(const std::string& path);
    /// das | da | da+mc | da+rwgp (learnregistry.cpp lists them in the policy table; their factory calls this).
    std::unique_ptr<Scheduler> (*makeDasPolicy)(const std::string& variant, const PolicyOptions& opts);
    /// The accelerator mode's learned scheduler (relmas.cpp; relmasapi.h forwards to these).
    RelmasTrainResult (*trainRelmas)(const RelmasTrainConfig& cfg, const std::function<void(const RelmasIterStats&)>& cb);
    std::unique_ptr<accel::AccelScheduler> (*makeRelmasScheduler)(const std::string& checkpoint, bool untrained);
};

/// Called by the module's entry point (exported by libschedcore).
void installLearnModule(const LearnModuleApi* api);
/// Loads the module if needed and returns its table; throws std::runtime_error with the one-line load error.
const LearnModuleApi& learnModule();

} // namespace ss::learn

/// The module's entry point (the one symbol it exports).
extern "C" const char* schedstudio_learn_module_init(const char* hostVersion);
