// Shared by the learn tests (tst_learn, tst_qcritic, tst_learnship, tst_learnbench): a generated trace that queues on a small
// cluster, and a training config small enough to run in a test.
#pragma once
#include <exception>
#include <filesystem>
#include <functional>
#include <string>

#include "learn/trainer.h"
#include "model/clusterspec.h"
#include "model/tracegen.h"

namespace learnfix {

/// `jobs` jobs of at most `maxGpus` GPUs at `load` on `clusterGpus` GPUs, sorted by submit time.
inline ss::Trace tinyTrace(int jobs, uint64_t seed, int clusterGpus, double load = 1.4, int maxGpus = 4)
{
    ss::TraceGenConfig g;
    g.jobs = jobs;
    g.seed = seed;
    g.load = load;
    g.clusterGpus = clusterGpus;
    g.maxGpus = maxGpus;
    ss::Trace t = ss::generateTrace(g);
    t.sortBySubmit();
    return t;
}

/// `policy` on das-case, 80 jobs (seed 7), 2 iterations of one 40-job episode, a 16-wide, 2-head network.
inline ss::learn::TrainConfig tinyConfig(const std::string& policy, uint64_t seed)
{
    ss::learn::TrainConfig c;
    c.policy = policy;
    c.cluster = ss::makeClusterPreset("das-case");
    c.trace = tinyTrace(80, 7, c.cluster.totalGpus());
    c.seed = seed;
    c.iterations = 2;
    c.episodesPerIteration = 1;
    c.episodeJobs = 40;
    c.ppoEpochs = 2;
    c.minibatch = 64;
    c.dModel = 16;
    c.heads = 2;
    return c;
}

/// A path in the temp directory, prefixed per suite ("ss-tst-<suite>-<name>").
inline std::string tmpPath(const std::string& suite, const char* name)
{
    return (std::filesystem::temp_directory_path() / ("ss-tst-" + suite + "-" + name)).string();
}

/// What f throws ("" when it does not).
inline std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

} // namespace learnfix
