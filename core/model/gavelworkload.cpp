#include "model/gavelworkload.h"

#include <cmath>
#include <iterator>
#include <string>

#include "model/rng.h"

namespace ss {

namespace {
struct Template {
    const char* name;
    bool distributed;
};
// Gavel's JobTable: ResNet-18 x5 batch sizes, ResNet-50 x4, Transformer x5, LM x5, Recommendation x5, A3C,
// CycleGAN; the image, translation and language models train data-parallel (scale factors > 1).
const Template kTemplates[] = {
    {"ResNet-18 (batch size 16)", true},       {"ResNet-18 (batch size 32)", true},
    {"ResNet-18 (batch size 64)", true},       {"ResNet-18 (batch size 128)", true},
    {"ResNet-18 (batch size 256)", true},      {"ResNet-50 (batch size 16)", true},
    {"ResNet-50 (batch size 32)", true},       {"ResNet-50 (batch size 64)", true},
    {"ResNet-50 (batch size 128)", true},      {"Transformer (batch size 16)", true},
    {"Transformer (batch size 32)", true},     {"Transformer (batch size 64)", true},
    {"Transformer (batch size 128)", true},    {"Transformer (batch size 256)", true},
    {"LM (batch size 5)", true},               {"LM (batch size 10)", true},
    {"LM (batch size 20)", true},              {"LM (batch size 40)", true},
    {"LM (batch size 80)", true},              {"Recommendation (batch size 512)", false},
    {"Recommendation (batch size 1024)", false}, {"Recommendation (batch size 2048)", false},
    {"Recommendation (batch size 4096)", false}, {"Recommendation (batch size 8192)", false},
    {"A3C", false},                            {"CycleGAN", false},
};
} // namespace

Trace generateGavelWorkload(const GavelWorkloadConfig& cfg)
{
    Rng rng(cfg.seed * 0x9e3779b97f4a7c15ULL + 0x6761766c);
    Trace t;
    t.name = "gavel-workload-" + std::to_string(cfg.jobs) + "-l" + std::to_string(cfg.jobsPerHour) + "-s" + std::to_string(cfg.seed);
    for (const Template& m : kTemplates)
        t.models.emplace_back(m.name);
    t.qosClasses = {"w1", "w5"};
    t.notes.push_back("Gavel workload generator (ALGORITHMS.md §4.5): " + std::to_string(cfg.jobs) + " jobs, "
                      + std::to_string(cfg.jobsPerHour) + " jobs/h, seed " + std::to_string(cfg.seed)
                      + (cfg.multiGpu ? ", multi-GPU" : ", single-GPU") + "; durations in V100-seconds");
    double now = 0;
    t.jobs.reserve(size_t(std::max(0, cfg.jobs)));
    for (int i = 0; i < cfg.jobs; ++i) {
        Job j;
        j.id = i;
        if (i > 0 && cfg.jobsPerHour > 0)
            now += rng.exponential(cfg.jobsPerHour / 3600.0);
        j.submit = now;
        const size_t k = size_t(rng.below(std::size(kTemplates)));
        j.model = int32_t(k);
        j.gpus = 1;
        if (cfg.multiGpu && kTemplates[k].distributed) {
            const double u = rng.uniform();
            j.gpus = u < 0.7 ? 1 : u < 0.8 ? 2 : u < 0.95 ? 4 : 8;
        }
        if (cfg.fixedDuration > 0) {
            j.duration = cfg.fixedDuration;
        } else {
            const bool longJob = rng.uniform() >= 0.8;
            j.duration = 60.0 * std::pow(10.0, longJob ? rng.uniform(3.0, 4.0) : rng.uniform(1.5, 3.0));
        }
        j.qos = cfg.priorities && rng.uniform() < 0.2 ? 1 : 0;
        t.jobs.push_back(std::move(j));
    }
    return t;
}

} // namespace ss
