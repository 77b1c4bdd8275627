// The learn API as the executables see it (part of schedcore, no LibTorch): Trainer and readCheckpointInfo
// forward to the LibTorch module (moduleapi.h), which is loaded the first time one of them is used.
#include <atomic>
#include <stdexcept>

#include "learn/moduleapi.h"
#include "policy/learnedmodule.h"

namespace ss::learn {

namespace {
std::atomic<const LearnModuleApi*> g_api {nullptr};
} // namespace

void installLearnModule(const LearnModuleApi* api) { g_api.store(api); }

const LearnModuleApi& learnModule()
{
    if (const std::string err = ensureLearnedModuleLoaded(); !err.empty())
        throw std::runtime_error(err);
    const LearnModuleApi* api = g_api.load();
    if (!api)
        throw std::runtime_error("the LibTorch module loaded but installed no function table");
    return *api;
}

PerfConfig TrainConfig::defaultPerf()
{
    PerfConfig p;
    p.machineBiasSd = 0.15;
    p.fluctuationSd = 0.05;
    return p;
}

CheckpointInfo readCheckpointInfo(const std::string& path) { return learnModule().readCheckpointInfo(path); }

RelmasTrainResult trainRelmas(const RelmasTrainConfig& cfg, const std::function<void(const RelmasIterStats&)>& onIteration)
{
    return learnModule().trainRelmas(cfg, onIteration);
}

std::unique_ptr<accel::AccelScheduler> makeRelmasScheduler(const std::string& checkpoint, bool untrained)
{
    return learnModule().makeRelmasScheduler(checkpoint, untrained);
}

struct Trainer::Impl {
    std::unique_ptr<TrainerBackend> b;
};

Trainer::Trainer(TrainConfig cfg) : d(std::make_unique<Impl>())
{
    d->b = learnModule().makeTrainer(std::move(cfg));
}

Trainer::~Trainer() = default;

bool Trainer::step() { return d->b->step(); }
int Trainer::iteration() const { return d->b->iteration(); }
TrainStats Trainer::lastStats() const { return d->b->lastStats(); }
std::pair<double, double> Trainer::evaluate(const Trace& trace) const { return d->b->evaluate(trace); }
std::pair<double, double> Trainer::evaluateBaseline(const std::string& policy, const Trace& trace) const
{
    return d->b->evaluateBaseline(policy, trace);
}
int Trainer::bestIteration() const { return d->b->bestIteration(); }
void Trainer::save(const std::string& path) const { d->b->save(path); }
const TrainConfig& Trainer::config() const { return d->b->config(); }

} // namespace ss::learn
