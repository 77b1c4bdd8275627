// accel-train: trains the learned RELMAS scheduler of the accelerator mode (docs/ACCELERATOR.md §6.1) on
// scenarios generated like a given one, scores it on a held-out one after every iteration and writes the best
// actor (core/learn/relmas.cpp, in the LibTorch module).
#include <cstdio>
#include <stdexcept>

#include "cli.h"
#include "io/accelio.h"
#include "learn/relmasapi.h"

namespace ss::cli {

using namespace ss::accel;

namespace {

int cmdAccelTrain(Args& a)
{
    const AccelScenario s = readAccelScenario(a.require("scenario"));
    if (!s.generated)
        throw UsageError("accel-train: " + s.file + " lists its requests; it needs a \"generator\" to train on "
                         "scenarios drawn like it");
    learn::RelmasTrainConfig cfg;
    cfg.base.chip = s.workload.chip;
    cfg.base.networks = s.workload.networks;
    cfg.period = s.sim.period;
    cfg.seed = uint64_t(a.getInt("seed", 1));
    cfg.train = s.gen;
    cfg.train.requests = int(a.getInt("train-requests", 150));
    cfg.train.seed = cfg.seed * 1000;
    cfg.eval = s.gen;
    cfg.eval.seed = uint64_t(a.getInt("eval-seed", long(cfg.seed * 1000 + 500)));
    cfg.iterations = int(a.getInt("iterations", cfg.iterations));
    cfg.updates = int(a.getInt("updates", cfg.updates));
    cfg.batch = int(a.getInt("batch", cfg.batch));
    cfg.gamma = a.getDouble("gamma", cfg.gamma);
    cfg.noise = a.getDouble("noise", cfg.noise);
    cfg.bandwidthPenalty = a.getDouble("bandwidth-penalty", cfg.bandwidthPenalty);
    cfg.fairness = a.getDouble("fairness", cfg.fairness);
    cfg.out = a.require("out");
    cfg.command = "schedstudio-cli accel-train";
    for (const Args::Option& o : a.options())
        cfg.command += " --" + o.key + (o.flag ? "" : " " + o.value);
    a.finish();
    if (cfg.iterations < 0 || cfg.updates < 0 || cfg.batch < 1 || cfg.train.requests < 1 || !(cfg.gamma >= 0 && cfg.gamma < 1))
        throw UsageError("accel-train: --iterations and --updates >= 0, --batch and --train-requests >= 1, 0 <= --gamma < 1");
    std::printf("training relmas on chip %s: episodes of %d generated requests (load %.2f, %d tenants), held-out "
                "scenario of %d requests (seed %llu)\n",
                cfg.base.chip.name.c_str(), cfg.train.requests, cfg.train.load, cfg.train.tenants, cfg.eval.requests,
                static_cast<unsigned long long>(cfg.eval.seed));
    std::fflush(stdout);
    const learn::RelmasTrainResult r = learn::trainRelmas(cfg, [](const learn::RelmasIterStats& st) {
        std::printf("iter %3d  train SLA %6.2f%%  held-out SLA %6.2f%%%s  critic loss %8.3f  Q %8.3f  replay %zu  %.1f s\n",
                    st.iteration, 100 * st.trainSla, 100 * st.evalSla, st.best ? " (best, written)" : "",
                    st.criticLoss, st.actorQ, st.transitions, st.seconds);
        std::fflush(stdout);
    });
    std::printf("held-out SLA: hetero %.2f%%, untrained relmas %.2f%%, best relmas %.2f%% (iteration %d) -> %s\n",
                100 * r.heteroEvalSla, 100 * r.untrainedEvalSla, 100 * r.bestEvalSla, r.bestIteration, cfg.out.c_str());
    return 0;
}

CliCommand c1("accel-train",
              "--scenario F --out CKPT [--iterations N] [--updates N] [--batch N] [--train-requests N] [--seed S] "
              "[--eval-seed S] [--gamma G] [--noise SD] [--bandwidth-penalty X] [--fairness X] : train the learned "
              "relmas scheduler (DDPG) on scenarios generated like F",
              &cmdAccelTrain);

} // namespace

} // namespace ss::cli
