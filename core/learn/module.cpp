// Entry point of the LibTorch module (libschedstudio-learn.so), loaded with dlopen on the first use of a learned
// policy or of training (core/policy/learnedmodule.cpp). It hands the host its function table (moduleapi.h):
// training, checkpoint reading and the DAS schedulers, which the host's policy table lists already.
#include <cstring>

#include "learn/moduleapi.h"
#include "learn/policies.h"
#include "policy/learnedmodule.h"

namespace ss::learn {
// trainer.cpp
std::unique_ptr<TrainerBackend> makeTorchTrainer(TrainConfig cfg);
// das.cpp
CheckpointInfo torchReadCheckpointInfo(const std::string& path);
// relmas.cpp
RelmasTrainResult torchTrainRelmas(const RelmasTrainConfig& cfg, const std::function<void(const RelmasIterStats&)>& cb);
std::unique_ptr<accel::AccelScheduler> torchMakeRelmas(const std::string& checkpoint, bool untrained);
} // namespace ss::learn

extern "C" __attribute__((visibility("default"))) const char* schedstudio_learn_module_init(const char* hostVersion)
{
    if (!hostVersion || std::strcmp(hostVersion, SCHEDSTUDIO_VERSION) != 0)
        return "module built for SchedStudio " SCHEDSTUDIO_VERSION ", not for this program's version";
    static const ss::learn::LearnModuleApi api {&ss::learn::makeTorchTrainer, &ss::learn::torchReadCheckpointInfo,
                                                &ss::learn::makeDasPolicy, &ss::learn::torchTrainRelmas,
                                                &ss::learn::torchMakeRelmas};
    ss::learn::installLearnModule(&api);
    return nullptr;
}
