// core/learn: RWGP algebra, checkpoints, determinism of training, and every learned policy end to end.
#include <array>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <Eigen/Dense>

#include "learn/features.h"
#include "learn/learn.h"
#include "learn/rwgp.h"
#include "learn/trainer.h"
#include "model/tracegen.h"
#include "perf/perfmodel.h"
#include "policy/learnedmodule.h"
#include "policy/registry.h"
#include "run/runner.h"
#include "learnfixture.h"

using namespace ss;
using namespace ss::learn;

namespace {

using learnfix::tinyConfig;
using learnfix::tinyTrace;


// A hand-written trace: one job per {GPUs, submit s, duration s}, ids in order.
Trace handTrace(const std::vector<std::array<double, 3>>& jobs)
{
    Trace t;
    t.name = "hand";
    for (size_t i = 0; i < jobs.size(); ++i) {
        Job j;
        j.id = int64_t(i);
        j.gpus = jobs[i][0];
        j.submit = jobs[i][1];
        j.duration = jobs[i][2];
        t.jobs.push_back(j);
    }
    return t;
}

// One job's record and the GPU types of its placement, under the untrained DAS (das.compact as given).
struct WideRun {
    JobRecord rec;
    QStringList types;
};
WideRun runWide(const ClusterSpec& c, const Trace& t, int job, const char* compact = "1", const char* wide = "degrade")
{
    RunSpec spec;
    spec.policy = "das";
    spec.options.checkpoint = "";
    spec.options.params["das.untrained"] = "1";
    spec.options.params["das.compact"] = compact;
    spec.options.params["das.wide"] = wide;
    spec.config.seed = 1;
    spec.config.recordDecisions = true;
    spec.keepDecisionLog = true;
    const RunOutput o = runSimulation(c, t, spec);
    WideRun w;
    w.rec = o.jobs[size_t(job)];
    for (const DecisionRecord& r : o.log->records)
        for (const PlacementRecord& p : r.placements)
            if (p.job == job)
                for (const GpuSlot& g : p.slots) {
                    const int type = c.machines[size_t(c.machineOfGpu(g.gpu))].type;
                    const QString name = QString::fromStdString(c.types[size_t(type)].name);
                    if (!w.types.contains(name))
                        w.types << name;
                }
    return w;
}

std::string tmpPath(const char* name) { return learnfix::tmpPath("learn", name); }

using learnfix::errorOf;

/// Mean JCT and fee of a checkpoint over the trainer's evaluation replicas (TrainConfig::evalSeed), through
/// the ordinary run path: what Trainer::evaluate must report.
std::pair<double, double> runMean(const TrainConfig& cfg, const Trace& trace, const std::string& checkpoint)
{
    double jct = 0, fee = 0;
    for (int k = 0; k < cfg.evalReplicas; ++k) {
        RunSpec spec;
        spec.policy = "das";
        spec.options.checkpoint = checkpoint;
        spec.config.seed = cfg.evalSeed(k);
        spec.config.perf = cfg.perf;
        spec.config.checkInvariants = true;
        const RunOutput out = runSimulation(cfg.cluster, trace, spec);
        if (out.summary.finished != int(trace.jobs.size()))
            return {-1, -1};
        jct += out.summary.meanJctMin;
        fee += out.summary.meanFeeUsd;
    }
    return {jct / cfg.evalReplicas, fee / cfg.evalReplicas};
}

} // namespace

static bool mapped(const char* what)
{
    std::ifstream f("/proc/self/maps");
    std::string line;
    while (std::getline(f, line))
        if (line.find(what) != std::string::npos)
            return true;
    return false;
}

class TestLearn : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Runs first: LibTorch is mapped only once a DAS variant is created (the module loads on demand); listing the
    // policies and running the plain learned ones (dl2, rifling, malo, mosa) does not load it.
    void learnedModuleLoadsOnFirstUse()
    {
        QVERIFY(!mapped("libtorch") && !mapped("libschedstudio-learn"));
        const std::vector<std::string> names = schedulerNames();
        for (const std::string& n : learnedPolicyNames())
            QVERIFY2(std::find(names.begin(), names.end(), n) != names.end(), n.c_str());
        for (const char* n : {"dl2", "rifling", "malo", "mosa"})
            QVERIFY(makeScheduler(n) != nullptr);
        QVERIFY(!mapped("libtorch") && !mapped("libschedstudio-learn"));
        QVERIFY(makeScheduler("da") != nullptr);
        QVERIFY(mapped("libtorch") && mapped("libschedstudio-learn.so"));
        QCOMPARE(ensureLearnedModuleLoaded(), std::string());
    }

    void gpPosteriorMatchesDenseComputation()
    {
        const ClusterSpec c = makeClusterPreset("das-small");
        const Eigen::MatrixXd K = 0.04 * randomWalkKernel(machineAdjacency(c), 0.5, 3, 1e-4);
        const int M = int(K.rows());
        const std::vector<int> obs = {0, 3, 3, M - 1, 5};
        Eigen::VectorXd y(5);
        y << 0.1, -0.2, -0.15, 0.05, 0.3;
        Eigen::VectorXd m0 = Eigen::VectorXd::LinSpaced(M, -0.1, 0.1);
        const double sn2 = 0.01;
        const GpPosterior p = gpPosterior(K, m0, obs, y, sn2);
        // Direct: explicit inverse of the dense (K_tt + sn2 I), no Cholesky.
        const int T = int(obs.size());
        Eigen::MatrixXd Ktt(T, T), Kst(M, T);
        Eigen::VectorXd r(T);
        for (int a = 0; a < T; ++a) {
            for (int b = 0; b < T; ++b)
                Ktt(a, b) = K(obs[a], obs[b]) + (a == b ? sn2 : 0.0);
            for (int m = 0; m < M; ++m)
                Kst(m, a) = K(m, obs[a]);
            r(a) = y(a) - m0(obs[a]);
        }
        const Eigen::MatrixXd inv = Ktt.inverse();
        const Eigen::VectorXd mean = m0 + Kst * inv * r;
        const Eigen::MatrixXd cov = K - Kst * inv * Kst.transpose();
        QVERIFY((p.mean - mean).cwiseAbs().maxCoeff() < 1e-10);
        QVERIFY((p.cov - cov).cwiseAbs().maxCoeff() < 1e-10);
        // Observing a machine shrinks its variance, and the posterior mean moves towards what was observed.
        QVERIFY(p.cov(3, 3) < K(3, 3));
        QVERIFY(p.mean(5) > m0(5));
        // No observation: the posterior is the prior.
        const GpPosterior prior = gpPosterior(K, m0, {}, Eigen::VectorXd(), sn2);
        QCOMPARE(prior.mean, m0);
        QVERIFY((prior.cov - K).cwiseAbs().maxCoeff() == 0.0);
    }

    void randomWalkKernelIsSymmetricPsd()
    {
        for (const char* preset : {"das-case", "das-small", "das-large"}) {
            const ClusterSpec c = makeClusterPreset(preset);
            const Eigen::MatrixXd A = machineAdjacency(c);
            const Eigen::MatrixXd K = randomWalkKernel(A, 0.5, 3, 1e-6);
            QVERIFY((K - K.transpose()).cwiseAbs().maxCoeff() < 1e-12);
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(K);
            QVERIFY2(es.eigenvalues().minCoeff() > 0, preset);
            // Machines of one type are more alike than machines of different types.
            int a = -1, b = -1, o = -1;
            for (int m = 1; m < c.machineCount(); ++m) {
                if (b < 0 && c.machines[m].type == c.machines[0].type)
                    b = m;
                if (o < 0 && c.machines[m].type != c.machines[0].type)
                    o = m;
            }
            a = 0;
            if (b > 0 && o > 0)
                QVERIFY(K(a, b) > K(a, o));
        }
        // lambda = 0 leaves only the l = 0 term: the identity (plus jitter).
        const Eigen::MatrixXd K0 = randomWalkKernel(machineAdjacency(makeClusterPreset("das-case")), 0.0, 3, 0.5);
        QVERIFY((K0 - 1.5 * Eigen::MatrixXd::Identity(K0.rows(), K0.cols())).cwiseAbs().maxCoeff() < 1e-12);
    }

    void rwgpWindowKeepsTau()
    {
        RwgpState::Params p;
        p.tau = 5;
        RwgpState s(makeClusterPreset("das-case"), p);
        for (int i = 0; i < 20; ++i)
            s.observe(i % 8, 0.8);
        QCOMPARE(s.historySize(), 5);
        const Eigen::MatrixXd& L = s.choleskyL();
        const Eigen::MatrixXd C = L * L.transpose();
        QVERIFY((C - s.posterior().cov).cwiseAbs().maxCoeff() < 1e-3);
        // Machines seen slower than nominal get a negative mean deviation.
        QVERIFY(s.posterior().mean(7) < 0);
    }

    void sameSeedSameTrainingStats()
    {
        auto run = [](uint64_t seed) {
            Trainer t(tinyConfig("das", seed));
            std::vector<double> v;
            while (t.step()) {
                const TrainStats s = t.lastStats();
                v.insert(v.end(), {double(s.envSteps), s.meanReward, s.policyLossOrder, s.policyLossPlace, s.valueLoss,
                                   s.criticError, s.trainMeanJctMin});
            }
            return v;
        };
        const auto a = run(3), b = run(3), c = run(4);
        QCOMPARE(a.size(), size_t(14));
        QCOMPARE(a, b);
        QVERIFY(a != c);
        for (double x : a)
            QVERIFY(std::isfinite(x));
    }

    void criticErrorFallsAsTheCriticLearns()
    {
        // The critic starts untrained: its error against the returns of fresh episodes must be large at first
        // and fall within a few iterations (the figure `train` prints as "critic err"). One 40-job episode's error
        // swings by 2x between iterations, so the first two are compared with the last four.
        TrainConfig cfg = tinyConfig("das", 2);
        cfg.iterations = 12;
        cfg.ppoEpochs = 4;
        cfg.minibatch = 8;
        Trainer t(cfg);
        std::vector<double> err;
        while (t.step())
            err.push_back(t.lastStats().criticError);
        QCOMPARE(err.size(), size_t(12));
        for (double e : err)
            QVERIFY(std::isfinite(e) && e > 0);
        const double first = (err[0] + err[1]) / 2, last = (err[8] + err[9] + err[10] + err[11]) / 4;
        QVERIFY2(last < 0.5 * first, qPrintable(QString("critic error %1 -> %2").arg(first).arg(last)));
    }

    void checkpointRoundTripAndEvaluationMatchesRun()
    {
        TrainConfig cfg = tinyConfig("das", 5);
        Trainer t(cfg);
        while (t.step()) {
        }
        const std::string path = tmpPath("rt.sscp");
        t.save(path);
        const CheckpointInfo info = readCheckpointInfo(path);
        QCOMPARE(info.policy, std::string("das"));
        QCOMPARE(info.clusterName, std::string("das-case"));
        QCOMPARE(info.clusterFingerprint, cfg.cluster.fingerprint());
        QCOMPARE(info.iterations, 2);
        QCOMPARE(info.dModel, 16);
        QCOMPARE(info.heads, 2);

        // The run path loads the same weights: its results, averaged over the evaluation replicas (one perf
        // seed each), equal the trainer's own evaluation; one replica alone does not.
        const Trace eval = tinyTrace(50, 99, cfg.cluster.totalGpus());
        QCOMPARE(cfg.evalReplicas, 3);
        const auto viaRun = runMean(cfg, eval, path);
        QVERIFY(viaRun.first > 0);
        QCOMPARE(t.evaluate(eval), viaRun);
        TrainConfig one = cfg;
        one.evalReplicas = 1;
        QVERIFY(runMean(one, eval, path) != viaRun);

        // Resuming continues the iteration count.
        TrainConfig r = cfg;
        r.resume = path;
        r.iterations = 3;
        Trainer t2(r);
        QCOMPARE(t2.iteration(), 2);
        QVERIFY(t2.step());
        QVERIFY(!t2.step());
        std::filesystem::remove(path);
    }

    void validationKeepsTheBestPolicy()
    {
        TrainConfig cfg = tinyConfig("das", 6);
        cfg.iterations = 4;
        cfg.evalEvery = 1;
        cfg.validTrace = tinyTrace(40, 21, cfg.cluster.totalGpus());
        Trainer t(cfg);
        const auto initial = t.evaluate(cfg.validTrace);
        double bestScore = initial.first * initial.second;
        int bestIter = 0;
        while (t.step()) {
            const TrainStats s = t.lastStats();
            QVERIFY(s.validMeanJctMin > 0 && s.validMeanFeeUsd > 0);
            if (s.validMeanJctMin * s.validMeanFeeUsd < bestScore) {
                bestScore = s.validMeanJctMin * s.validMeanFeeUsd;
                bestIter = s.iteration;
            }
            QCOMPARE(s.bestIteration, bestIter);
        }
        QCOMPARE(t.bestIteration(), bestIter);
        const auto current = t.evaluate(cfg.validTrace);
        const std::string path = tmpPath("best.sscp");
        t.save(path);
        QCOMPARE(t.evaluate(cfg.validTrace), current); // saving the best puts the current weights back
        const auto viaRun = runMean(cfg, cfg.validTrace, path);
        QCOMPARE(viaRun.first * viaRun.second, bestScore); // the file holds the best policy
        std::filesystem::remove(path);
    }

    void untrainedAgentOrdersSrptAndConsolidates()
    {
        // The heuristic-initialised skip paths: before any training the mean priorities follow shortest
        // remaining work first with aging (-3 log-remaining/6 + log-waited/5, features.cpp) up to the small
        // network part, a job that fits on one machine is placed on one machine, and the first job (empty
        // cluster, all machines tied on fit) goes to the fastest type. Consolidate-or-wait (das.compact, on by
        // default): no job of at most 4 GPUs is ever spread over the 4-GPU machines of das-small; with
        // das.compact=0 some are.
        const ClusterSpec c = makeClusterPreset("das-small");
        const Trace tr = tinyTrace(150, 5, c.totalGpus());
        RunSpec spec;
        spec.policy = "das";
        spec.options.checkpoint = ""; // no shipped one: untrained
        spec.options.params["das.untrained"] = "1";
        spec.config.seed = 1;
        spec.config.recordDecisions = true;
        spec.keepDecisionLog = true;
        auto spreadPlacements = [&](const RunOutput& o) {
            int n = 0;
            for (const DecisionRecord& r : o.log->records)
                for (const PlacementRecord& p : r.placements)
                    n += machinesSpanned(c, p.slots) > 1;
            return n;
        };
        const RunOutput out = runSimulation(c, tr, spec);
        QVERIFY(out.log);
        QCOMPARE(out.summary.finished, 150);
        QCOMPARE(spreadPlacements(out), 0);
        {
            RunSpec loose = spec;
            loose.options.params["das.compact"] = "0";
            const RunOutput o2 = runSimulation(c, tr, loose);
            QVERIFY(o2.log);
            QVERIFY(spreadPlacements(o2) > 0);
        }
        for (const DecisionRecord& r : out.log->records) {
            auto first = std::find_if(r.placements.begin(), r.placements.end(),
                                      [](const PlacementRecord& p) { return !p.slots.empty(); });
            if (first == r.placements.end())
                continue;
            const Machine& m = c.machines[size_t(c.machineOfGpu(first->slots[0].gpu))];
            QCOMPARE(QString::fromStdString(c.types[size_t(m.type)].name), QStringLiteral("V100"));
            break;
        }
        int pairs = 0, inOrder = 0, placed = 0;
        for (const DecisionRecord& r : out.log->records) {
            auto prior = [&](int job) {
                const Job& j = tr.jobs[size_t(job)];
                return -3.0 * std::log1p(j.duration / 60.0) / 6.0 + std::log1p(std::max(0.0, r.time - j.submit) / 60.0) / 5.0;
            };
            // Only queues the agent ranked (when nothing fits the queue is logged in arrival order, unscored).
            const bool ranked = !r.queue.empty() && !std::isnan(r.queue[0].priorityStd);
            for (size_t i = 1; ranked && i < r.queue.size(); ++i) {
                ++pairs;
                inOrder += prior(r.queue[i - 1].job) >= prior(r.queue[i].job) - 0.05;
            }
            for (const PlacementRecord& p : r.placements)
                placed += !p.slots.empty();
        }
        QVERIFY(pairs > 100);
        QCOMPARE(inOrder, pairs);
        QCOMPARE(placed, 150);
    }

    void wideJobTakesWholeFastMachines()
    {
        // Consolidate or wait, for a job wider than a machine: on das-case (4 V100 + 4 P100 machines of 4 GPUs)
        // two 1-GPU jobs of 10 hours are running on V100s when an 8-GPU job arrives. The untrained placement
        // start prefers the fullest V100 machine first, so the walk down its order would spread the job over
        // three machines; instead of waiting 10 hours for those to drain, it starts at once on two whole V100
        // machines (the fallback walk over machines as fast as the agent's first choice). With das.compact=0 it
        // is spread.
        const ClusterSpec c = makeClusterPreset("das-case");
        const Trace t = handTrace({{1, 0, 36000}, {1, 60, 36000}, {8, 120, 36000}});
        const WideRun w = runWide(c, t, 2);
        QCOMPARE(w.rec.start, w.rec.submit);
        QCOMPARE(w.rec.machines, 2);
        QCOMPARE(w.types, QStringList({QStringLiteral("V100")}));
        QVERIFY(runWide(c, t, 2, "0").rec.machines > 2);
        const WideRun waited = runWide(c, t, 2, "1", "wait"); // the rule before the second walk
        QVERIFY(waited.rec.start >= 36000); // until the 1-GPU jobs end
        QCOMPARE(waited.rec.machines, 2);
    }

    void rwgpDeviationCountsInSpeedUnits()
    {
        // RWGP's posterior is over a machine's speed deviation (observed / predicted - 1); it changes the expected
        // speed to speed x (1 + mean). A V100 machine seen running 15 % slow is still much faster than a P100
        // seen running 15 % fast (0.85 against 0.63), so a 1-GPU job must go to the V100. When the deviation was
        // added to the score on its own, the GP's +/-0.15 outweighed the types' 0.45 and the job went to the P100.
        ClusterSpec c = makeClusterPreset("das-case");
        const int v100 = c.typeIndex("V100"), p100 = c.typeIndex("P100");
        std::vector<Machine> two;
        for (const Machine& m : c.machines)
            if ((m.type == v100 && two.empty()) || (m.type == p100 && two.size() == 1))
                two.push_back(m);
        QCOMPARE(two.size(), size_t(2));
        c.machines = two;
        c.finalize();
        // j0 fills the V100 machine, j1 goes to the P100 one (the GP sees both), j2 comes after j0 has ended.
        const Trace t = handTrace({{4, 0, 3600}, {1, 60, 36000}, {1, 20000, 3600}});
        const PerfConfig perf = PerfConfig::parse("machine_bias_sd=0.3");
        uint64_t seed = 0;
        for (uint64_t s = 1; s < 2000 && !seed; ++s) {
            const PerfModel pm(c, t, perf, s);
            if (pm.machineFactor(0) < 0.85 && pm.machineFactor(1) > 1.15)
                seed = s;
        }
        QVERIFY(seed > 0);
        RunSpec spec;
        spec.options.checkpoint = "";
        spec.options.params["das.untrained"] = "1";
        spec.config.seed = seed;
        spec.config.perf = perf;
        spec.config.recordDecisions = true;
        spec.keepDecisionLog = true;
        for (const char* policy : {"das", "da+rwgp", "da"}) {
            spec.policy = policy;
            const RunOutput o = runSimulation(c, t, spec);
            auto machineOf = [&](int job) {
                for (const DecisionRecord& r : o.log->records)
                    for (const PlacementRecord& p : r.placements)
                        if (p.job == job && !p.slots.empty())
                            return c.machineOfGpu(p.slots.front().gpu);
                return -1;
            };
            QCOMPARE(machineOf(0), 0);
            QCOMPARE(machineOf(1), 1);
            QVERIFY2(machineOf(2) == 0, policy);
        }
    }

    void wideJobDelaysOrDegrades()
    {
        // All four V100 machines of das-case busy (an 8-GPU, a 4-GPU and two 1-GPU jobs, landed there by the
        // speed-aware start) when an 8-GPU job of 2 reference-hours arrives; the P100 machines are empty. When the
        // V100 jobs end 10 minutes later, waiting for two V100 machines ends sooner than running on P100s now: the
        // wide job waits and lands on V100s. When they run 10 hours, it starts at once on two P100 machines.
        const ClusterSpec c = makeClusterPreset("das-case");
        for (const double blockers : {600.0, 36000.0}) {
            const Trace t = handTrace(
                {{8, 0, blockers}, {4, 10, blockers}, {1, 20, blockers}, {1, 30, blockers}, {8, 40, 7200}});
            for (int i = 0; i < 4; ++i)
                QCOMPARE(runWide(c, t, i).types, QStringList({QStringLiteral("V100")}));
            const WideRun w = runWide(c, t, 4);
            QCOMPARE(w.rec.machines, 2);
            if (blockers < 3600) {
                QVERIFY(w.rec.start > w.rec.submit);
                QCOMPARE(w.types, QStringList({QStringLiteral("V100")}));
            } else {
                QCOMPARE(w.rec.start, w.rec.submit);
                QCOMPARE(w.types, QStringList({QStringLiteral("P100")}));
                // das.wide=fast stops after the walk over V100s: it waits the 10 hours.
                const WideRun fast = runWide(c, t, 4, "1", "fast");
                QVERIFY(fast.rec.start >= blockers);
                QCOMPARE(fast.types, QStringList({QStringLiteral("V100")}));
            }
        }
    }

    void placementRewardIgnoresTimeAlreadyWaited()
    {
        // Two identical jobs, one submitted an hour before the other. At the second arrival both wait; the same
        // placement (one V100, alone) must earn both the same reward: the waiting penalty has already charged
        // the older one for its hour, and paying less for starting it would pull the agents towards LIFO.
        const ClusterSpec cluster = makeClusterPreset("das-case");
        Trace t;
        t.name = "two";
        for (int i = 0; i < 2; ++i) {
            Job j;
            j.id = i;
            j.submit = i * 3600.0;
            j.gpus = 1;
            j.duration = 1800;
            t.jobs.push_back(j);
        }
        struct Probe : Scheduler {
            double rOld = -1, rNew = -1, rSlow = -1;
            std::string name() const override { return "probe"; }
            void schedule(SchedContext& ctx) override
            {
                if (ctx.now() < 3600.0)
                    return; // hold the first job until the second arrives
                const ClusterSpec& c = ctx.cluster();
                if (rOld < 0) {
                    const std::vector<GpuSlot> v100{GpuSlot{c.gpuBase(0), 1000}}, other{GpuSlot{c.gpuBase(1), 1000}};
                    rOld = placedReward(ctx, 0, v100, 1.0);
                    rNew = placedReward(ctx, 1, other, 1.0);
                    rSlow = placedReward(ctx, 0, v100, 0.5); // the same GPU at half the rate: a worse placement
                }
                std::vector<int> pending;
                ctx.forEachPending([&](int j) {
                    pending.push_back(j);
                    return true;
                });
                for (size_t k = 0; k < pending.size(); ++k)
                    ctx.start(pending[k], {GpuSlot{c.gpuBase(int(k)), 1000}});
            }
        } probe;
        RunConfig rc;
        Simulator sim(cluster, t, probe, rc);
        sim.run();
        QVERIFY(probe.rOld > 0 && probe.rOld <= 1.0);
        QCOMPARE(probe.rOld, probe.rNew);
        QVERIFY(probe.rSlow < probe.rOld);
    }

    void corruptOrMismatchedCheckpointRejected()
    {
        Trainer t(tinyConfig("das", 1));
        const std::string path = tmpPath("bad.sscp");
        t.save(path);
        std::string bytes;
        {
            std::ifstream f(path, std::ios::binary);
            bytes.assign(std::istreambuf_iterator<char>(f), {});
        }
        auto writeBytes = [&](const std::string& b) {
            std::ofstream f(path, std::ios::binary | std::ios::trunc);
            f << b;
        };
        std::string flipped = bytes;
        flipped[flipped.size() / 2] ^= 0x5a;
        writeBytes(flipped);
        QVERIFY(errorOf([&] { readCheckpointInfo(path); }).find("checksum") != std::string::npos);
        writeBytes(bytes.substr(0, bytes.size() - 100));
        QVERIFY(errorOf([&] { readCheckpointInfo(path); }).find("truncated") != std::string::npos);
        writeBytes("hello world, not a checkpoint");
        const std::string e1 = errorOf([&] { readCheckpointInfo(path); });
        QVERIFY2(e1.find("not a SchedStudio checkpoint") != std::string::npos, e1.c_str());
        QVERIFY(e1.rfind(path, 0) == 0); // names the file first
        QVERIFY(e1.find('\n') == std::string::npos);

        writeBytes(bytes);
        QVERIFY(errorOf([&] { readCheckpointInfo(path); }).empty());
        const Trace tr = tinyTrace(10, 1, 32);
        RunSpec spec;
        spec.options.checkpoint = path;
        spec.policy = "das";
        const std::string e2 = errorOf([&] { runSimulation(makeClusterPreset("das-small"), tr, spec); });
        QVERIFY2(e2.find("trained for cluster 'das-case'") != std::string::npos, e2.c_str());
        spec.policy = "da";
        const std::string e3 = errorOf([&] { runSimulation(makeClusterPreset("das-case"), tr, spec); });
        QVERIFY2(e3.find("for policy 'das'") != std::string::npos, e3.c_str());
        std::filesystem::remove(path);
    }

    void everyLearnedPolicyRunsToCompletion()
    {
        const ClusterSpec c = makeClusterPreset("das-case");
        const Trace tr = tinyTrace(60, 11, c.totalGpus());
        for (const std::string& name : learnedPolicyNames()) {
            RunSpec spec;
            spec.policy = name;
            spec.config.seed = 2;
            spec.config.perf = TrainConfig::defaultPerf();
            spec.config.checkInvariants = true;
            spec.config.recordDecisions = true;
            spec.keepDecisionLog = true;
            spec.options.params["das.allow_other_cluster"] = "1";
            const RunOutput out = runSimulation(c, tr, spec);
            QVERIFY2(out.summary.finished == 60, name.c_str());
            QVERIFY(out.log);
            const RunOutput again = runSimulation(c, tr, spec);
            QVERIFY2(again.summary.meanJctMin == out.summary.meanJctMin, name.c_str()); // seeded
            if (name == "das" || name == "da") {
                bool sawQueue = false, sawPlacement = false;
                for (const DecisionRecord& r : out.log->records) {
                    for (const ScoredJob& s : r.queue)
                        if (std::isfinite(s.priorityStd)) {
                            sawQueue = true;
                            QVERIFY(s.priorityStd > 0);
                            QCOMPARE(std::isfinite(s.gate), name == "das"); // gates only with squeeze-and-communicate
                        }
                    for (const PlacementRecord& p : r.placements)
                        if (!p.affinityVar.empty()) {
                            sawPlacement = true;
                            QCOMPARE(int(p.affinityVar.size()), c.machineCount());
                            QCOMPARE(int(p.affinity.size()), c.machineCount());
                        }
                }
                QVERIFY(sawQueue);
                QVERIFY(sawPlacement);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestLearn)
#include "tst_learn.moc"
