// The seed's RWGP (issue 26): per-job transition matrix P(i) over the communication topology, the product-graph
// random-walk kernel, the GP posterior (13)/(14) over it, correlated sampling, the `das.rwgp` switch end to end, and
// the decision log's RWGP posterior fields (round trip, old logs still load).
#include <QTest>

#include <cmath>
#include <filesystem>

#include <Eigen/Dense>

#include "learn/learn.h"
#include "learn/rwgp.h"
#include "learn/trainer.h"
#include "model/tracegen.h"
#include "policy/registry.h"
#include "run/runner.h"
#include "sim/decisionlog.h"

using namespace ss;
using namespace ss::learn;

namespace {

// m0, m1 under sw0, m2 under sw1; every NIC 25 Gbps.
ClusterSpec threeMachines(bool link)
{
    ClusterSpec c;
    c.name = "three";
    c.types = {{"V100", 2.48, 32, 1.0}, {"T4", 0.35, 16, 0.35}};
    c.switches = {{"sw0", 100}, {"sw1", 50}};
    for (int m = 0; m < 3; ++m) {
        Machine mc;
        mc.name = "m" + std::to_string(m);
        mc.type = m == 2 ? 1 : 0;
        mc.gpus = 4;
        mc.sw = m < 2 ? 0 : 1;
        mc.nicGbps = 25;
        c.machines.push_back(mc);
    }
    if (link)
        c.links.push_back({0, 1, 40});
    c.finalize();
    return c;
}

double minEigen(const Eigen::MatrixXd& K)
{
    return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(K).eigenvalues().minCoeff();
}

Eigen::MatrixXd seedKernel(const ClusterSpec& c, double gpus, double lambda = 0.5, int L = 3)
{
    return productGraphKernel(jobTransition(topologyBandwidth(c), communicationNeed(gpus)), nodeLabelKernel(c), lambda, L);
}

RunSpec dasSpec(const char* kernel, bool sample)
{
    RunSpec spec;
    spec.policy = "das";
    spec.options.checkpoint = "";
    spec.options.params["das.untrained"] = "1";
    spec.options.params["das.rwgp"] = kernel;
    spec.options.params["das.sample_place"] = sample ? "1" : "0";
    spec.config.seed = 3;
    spec.config.perf.machineBiasSd = 0.15;
    spec.config.perf.fluctuationSd = 0.05;
    spec.config.recordDecisions = true;
    spec.keepDecisionLog = true;
    return spec;
}

Trace smallTrace(int clusterGpus)
{
    TraceGenConfig g;
    g.jobs = 60;
    g.seed = 11;
    g.load = 1.4;
    g.clusterGpus = clusterGpus;
    g.maxGpus = 8;
    Trace t = generateTrace(g);
    t.sortBySubmit();
    return t;
}

} // namespace

class TestRwgpSeed : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void topologyBandwidthFollowsTheLinks()
    {
        // Same switch: the smaller NIC. Across an explicit 40 Gbps link shared by the busier switch's 2 machines:
        // 20 Gbps each. Without explicit links: through the core, the smaller uplink (50) over 2 machines.
        const Eigen::MatrixXd W = topologyBandwidth(threeMachines(true));
        QCOMPARE(W(0, 1), 25.0);
        QCOMPARE(W(0, 2), 20.0);
        QCOMPARE(W(2, 1), 20.0);
        QCOMPARE(W(1, 1), 0.0);
        const Eigen::MatrixXd Wc = topologyBandwidth(threeMachines(false));
        QCOMPARE(Wc(0, 2), 25.0);
        // das-large chains its 8 switches: machines two switches apart are not adjacent, neighbours are.
        const ClusterSpec large = makeClusterPreset("das-large");
        const Eigen::MatrixXd Wl = topologyBandwidth(large);
        int far = -1, near = -1;
        for (int m = 1; m < large.machineCount(); ++m) {
            if (near < 0 && large.machines[m].sw == large.machines[0].sw + 1)
                near = m;
            if (far < 0 && large.machines[m].sw == large.machines[0].sw + 2)
                far = m;
        }
        QVERIFY(near > 0 && far > 0);
        QVERIFY(Wl(0, near) > 0);
        QCOMPARE(Wl(0, far), 0.0);
    }

    void communicationNeedAndTransition()
    {
        QCOMPARE(communicationNeed(0.5), 0.0);
        QCOMPARE(communicationNeed(1), 0.0);
        QCOMPARE(communicationNeed(2), 0.5);
        QCOMPARE(communicationNeed(8), 0.875);
        // A path graph 0 - 1 - 2: a job that communicates fully walks only along links (self loop included)...
        Eigen::MatrixXd W = Eigen::MatrixXd::Zero(3, 3);
        W(0, 1) = W(1, 0) = W(1, 2) = W(2, 1) = 10;
        const Eigen::MatrixXd P1 = jobTransition(W, 1.0);
        Eigen::MatrixXd expect(3, 3);
        expect << 0.5, 0.5, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 0.5, 0.5;
        QVERIFY((P1 - expect).cwiseAbs().maxCoeff() < 1e-15);
        // ... one that does not walks uniformly; both are row-stochastic.
        const Eigen::MatrixXd P0 = jobTransition(W, 0.0);
        QVERIFY((P0 - Eigen::MatrixXd::Constant(3, 3, 1.0 / 3)).cwiseAbs().maxCoeff() < 1e-15);
        const Eigen::MatrixXd Ph = jobTransition(W, 0.5);
        QVERIFY((Ph.rowwise().sum() - Eigen::VectorXd::Ones(3)).cwiseAbs().maxCoeff() < 1e-15);
        QVERIFY(Ph(0, 1) > Ph(0, 2) && Ph(0, 2) > 0);
    }

    void productGraphKernelByHand()
    {
        // Path graph, full communication, distinct labels (S = I), one step, lambda 0.5:
        // K_raw = I + 0.5 P P^T = [[1.25, 1/6, 1/8], [1/6, 7/6, 1/6], [1/8, 1/6, 1.25]], then unit diagonal.
        Eigen::MatrixXd W = Eigen::MatrixXd::Zero(3, 3);
        W(0, 1) = W(1, 0) = W(1, 2) = W(2, 1) = 10;
        const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(3, 3);
        const Eigen::MatrixXd K = productGraphKernel(jobTransition(W, 1.0), I, 0.5, 1);
        QVERIFY(std::fabs(K(0, 2) - 0.1) < 1e-12);
        QVERIFY(std::fabs(K(0, 1) - (1.0 / 6) / std::sqrt(1.25 * 7.0 / 6)) < 1e-12);
        QVERIFY(std::fabs(K(1, 1) - 1.0) < 1e-12);
        // A job that does not communicate: P uniform, K_raw = I + 1/6, so every pair is alike: 1/7.
        const Eigen::MatrixXd K0 = productGraphKernel(jobTransition(W, 0.0), I, 0.5, 1);
        QVERIFY(std::fabs(K0(0, 2) - 1.0 / 7) < 1e-12);
        QVERIFY(std::fabs(K0(0, 1) - 1.0 / 7) < 1e-12);
        // Two nodes joined by a link: P = 1/2 everywhere, K_raw = I + 0.5 * 0.5 = [[1.25, .25], [.25, 1.25]].
        Eigen::MatrixXd W2 = Eigen::MatrixXd::Zero(2, 2);
        W2(0, 1) = W2(1, 0) = 1;
        const Eigen::MatrixXd K2 = productGraphKernel(jobTransition(W2, 1.0), Eigen::MatrixXd::Identity(2, 2), 0.5, 1);
        QVERIFY(std::fabs(K2(0, 1) - 0.2) < 1e-12);
    }

    void productGraphKernelMatchesExplicitKronecker()
    {
        // k(a,b) = sum_l lambda^l sum_{(i,k)} [P_x^l]_{(a,b),(i,k)} S_ik with P_x = P (x) P built explicitly (64 x 64).
        const ClusterSpec c = makeClusterPreset("das-small");
        const int M = c.machineCount();
        const Eigen::MatrixXd P = jobTransition(topologyBandwidth(c), communicationNeed(4));
        const Eigen::MatrixXd S = nodeLabelKernel(c);
        Eigen::MatrixXd Px(M * M, M * M);
        for (int a = 0; a < M; ++a)
            for (int b = 0; b < M; ++b)
                for (int i = 0; i < M; ++i)
                    for (int k = 0; k < M; ++k)
                        Px(a * M + b, i * M + k) = P(a, i) * P(b, k);
        Eigen::VectorXd stop(M * M);
        for (int i = 0; i < M; ++i)
            for (int k = 0; k < M; ++k)
                stop(i * M + k) = S(i, k);
        const double lambda = 0.6;
        const int L = 3;
        Eigen::MatrixXd raw = Eigen::MatrixXd::Zero(M, M);
        Eigen::MatrixXd Pl = Eigen::MatrixXd::Identity(M * M, M * M);
        double w = 1;
        for (int l = 0; l <= L; ++l) {
            const Eigen::VectorXd walks = Pl * stop;
            for (int a = 0; a < M; ++a)
                for (int b = 0; b < M; ++b)
                    raw(a, b) += w * walks(a * M + b);
            Pl = Pl * Px;
            w *= lambda;
        }
        const Eigen::VectorXd inv = raw.diagonal().cwiseSqrt().cwiseInverse();
        const Eigen::MatrixXd expect = inv.asDiagonal() * raw * inv.asDiagonal();
        const Eigen::MatrixXd K = productGraphKernel(P, S, lambda, L);
        QVERIFY2((K - expect).cwiseAbs().maxCoeff() < 1e-12, qPrintable(QString::number((K - expect).cwiseAbs().maxCoeff())));
    }

    void seedKernelIsSymmetricPsdPerJob()
    {
        for (const char* preset : {"das-case", "das-small", "das-large"}) {
            const ClusterSpec c = makeClusterPreset(preset);
            for (double gpus : {0.5, 1.0, 2.0, 8.0}) {
                const Eigen::MatrixXd K = seedKernel(c, gpus);
                QVERIFY((K - K.transpose()).cwiseAbs().maxCoeff() == 0.0);
                QVERIFY2(minEigen(K) > -1e-12, preset);
                QVERIFY((K.diagonal() - Eigen::VectorXd::Ones(K.rows())).cwiseAbs().maxCoeff() < 1e-12);
                QVERIFY(K.minCoeff() >= 0 && K.maxCoeff() <= 1 + 1e-12);
            }
        }
        // On das-large an 8-GPU job (it communicates) sees a same-type machine on its own switch as more alike
        // than one four switches away; a 1-GPU job (no communication) sees them as equally alike.
        const ClusterSpec c = makeClusterPreset("das-large");
        int sameSw = -1, farSw = -1;
        for (int m = 1; m < c.machineCount(); ++m) {
            if (c.machines[m].type != c.machines[0].type)
                continue;
            if (sameSw < 0 && c.machines[m].sw == c.machines[0].sw)
                sameSw = m;
            if (farSw < 0 && c.machines[m].sw >= c.machines[0].sw + 2)
                farSw = m;
        }
        QVERIFY(sameSw > 0 && farSw > 0);
        const Eigen::MatrixXd K8 = seedKernel(c, 8), K1 = seedKernel(c, 1);
        QVERIFY(K8(0, sameSw) > K8(0, farSw) + 0.01);
        QVERIFY(std::fabs(K1(0, sameSw) - K1(0, farSw)) < 1e-12);
        // Same type is more alike than another type for either job.
        int other = -1;
        for (int m = 1; m < c.machineCount() && other < 0; ++m)
            if (c.machines[m].type != c.machines[0].type && c.machines[m].sw == c.machines[0].sw)
                other = m;
        if (other < 0)
            for (int m = 1; m < c.machineCount() && other < 0; ++m)
                if (c.machines[m].type != c.machines[0].type)
                    other = m;
        QVERIFY(K1(0, farSw) > K1(0, other));
        QVERIFY(K8(0, sameSw) > K8(0, other));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rwgpKernelFromString("walk"));
        QCOMPARE(rwgpKernelFromString("seed"), RwgpKernel::Seed);
    }

    void posteriorCollapsesToObservations()
    {
        RwgpState::Params p;
        p.kernel = RwgpKernel::Seed;
        p.noiseVar = 1e-9;
        p.jitter = 1e-9;
        RwgpState s(makeClusterPreset("das-large"), p);
        s.selectJob(8);
        QCOMPARE(s.posterior().mean, Eigen::VectorXd::Zero(32)); // no observation: the prior
        s.observe(1, 1.2);  // deviation +0.2
        s.observe(20, 0.9); // deviation -0.1
        const GpPosterior& post = s.posterior();
        QVERIFY(std::fabs(post.mean(1) - 0.2) < 1e-5);
        QVERIFY(std::fabs(post.mean(20) + 0.1) < 1e-5);
        QVERIFY(post.cov(1, 1) < 1e-6 && post.cov(20, 20) < 1e-6);
        QVERIFY(post.cov(3, 3) > 1e-3); // an unobserved machine stays uncertain
        QVERIFY(post.mean(3) > 0);      // and leans towards its like (same type as machine 1)
        // Each job's kernel gives its own posterior, over the same observations.
        const double mean8 = post.mean(10);
        s.selectJob(1);
        const double mean1 = s.posterior().mean(10);
        QVERIFY(std::fabs(mean8 - mean1) > 1e-6);
        QVERIFY(std::fabs(s.posterior().mean(1) - 0.2) < 1e-5);
        // And the cache follows new observations.
        s.selectJob(8);
        s.observe(3, 1.05);
        QVERIFY(std::fabs(s.posterior().mean(3) - 0.05) < 1e-5);
    }

    void correlatedSamplingIsDeterministicPerSeed()
    {
        RwgpState::Params p;
        p.kernel = RwgpKernel::Seed;
        RwgpState s(makeClusterPreset("das-large"), p);
        s.selectJob(8);
        s.observe(0, 1.1);
        s.observe(9, 0.95);
        auto draw = [&](uint64_t seed) {
            Rng rng(seed);
            return sampleMvn(s.posterior().mean, s.choleskyL(), rng);
        };
        QCOMPARE(draw(5), draw(5));
        QVERIFY((draw(5) - draw(6)).cwiseAbs().maxCoeff() > 1e-6);
        // The draws are correlated as the posterior says: the empirical covariance of 4000 draws matches it.
        Rng rng(7);
        const int M = s.machineCount(), n = 4000;
        Eigen::MatrixXd X(n, M);
        for (int i = 0; i < n; ++i)
            X.row(i) = (sampleMvn(s.posterior().mean, s.choleskyL(), rng) - s.posterior().mean).transpose();
        const Eigen::MatrixXd C = X.transpose() * X / n;
        QVERIFY((C - s.posterior().cov).cwiseAbs().maxCoeff() < 0.006); // entries ~0.04, sampling error ~0.001
    }

    void switchRunsEndToEnd()
    {
        // das.rwgp=seed runs, is deterministic per seed, logs its posterior per machine, and differs from the
        // similarity kernel's; a bad value is refused with the parameter's name.
        const ClusterSpec c = makeClusterPreset("das-small");
        const Trace t = smallTrace(c.totalGpus());
        const RunOutput a = runSimulation(c, t, dasSpec("seed", true));
        const RunOutput b = runSimulation(c, t, dasSpec("seed", true));
        QCOMPARE(a.summary.finished, 60);
        QCOMPARE(a.summary.meanJctMin, b.summary.meanJctMin);
        QCOMPARE(a.summary.meanFeeUsd, b.summary.meanFeeUsd);
        const RunOutput sim = runSimulation(c, t, dasSpec("similarity", true));
        QVERIFY(a.log && sim.log);
        int withGp = 0, differ = 0;
        for (size_t k = 0; k < a.log->records.size() && k < sim.log->records.size(); ++k)
            for (size_t i = 0; i < a.log->records[k].placements.size(); ++i) {
                const PlacementRecord& p = a.log->records[k].placements[i];
                if (p.rwgpMean.empty())
                    continue;
                ++withGp;
                QCOMPARE(int(p.rwgpMean.size()), c.machineCount());
                QCOMPARE(int(p.rwgpVar.size()), c.machineCount());
                for (float v : p.rwgpVar)
                    QVERIFY(v >= 0);
                if (i < sim.log->records[k].placements.size()) {
                    const PlacementRecord& q = sim.log->records[k].placements[i];
                    differ += !q.rwgpVar.empty() && q.rwgpVar != p.rwgpVar;
                }
            }
        QVERIFY(withGp > 10);
        QVERIFY(differ > 0);
        // The ablation without RWGP logs no posterior.
        RunSpec da = dasSpec("seed", false);
        da.policy = "da+mc";
        const RunOutput o = runSimulation(c, t, da);
        for (const DecisionRecord& r : o.log->records)
            for (const PlacementRecord& p : r.placements)
                QVERIFY(p.rwgpMean.empty());
        RunSpec bad = dasSpec("walk", false);
        try {
            runSimulation(c, t, bad);
            QFAIL("das.rwgp=walk was accepted");
        } catch (const std::exception& e) {
            QVERIFY2(std::string(e.what()).find("das.rwgp") != std::string::npos, e.what());
        }
    }

    void trainedKernelTravelsWithTheCheckpoint()
    {
        // train with the seed's kernel -> the checkpoint says so -> a run of it uses that kernel unless das.rwgp says
        // otherwise. Variances logged by the run identify the kernel (they differ between kernels, see above).
        const ClusterSpec c = makeClusterPreset("das-small");
        TrainConfig tc;
        tc.policy = "das";
        tc.cluster = c;
        tc.trace = smallTrace(c.totalGpus());
        tc.iterations = 1;
        tc.episodesPerIteration = 1;
        tc.episodeJobs = 30;
        tc.evalEvery = 0;
        tc.dModel = 16;
        tc.heads = 2;
        tc.rwgpKernel = "seed";
        const std::string path = (std::filesystem::temp_directory_path() / "ss-tst-rwgpseed.sscp").string();
        {
            Trainer t(tc);
            while (t.step()) {
            }
            t.save(path);
        }
        QCOMPARE(readCheckpointInfo(path).rwgpKernel, std::string("seed"));
        auto variances = [&](const char* kernel) {
            RunSpec spec = dasSpec(kernel, false);
            spec.options.checkpoint = path;
            spec.options.params.erase("das.untrained");
            if (!*kernel)
                spec.options.params.erase("das.rwgp");
            const RunOutput o = runSimulation(c, tc.trace, spec);
            std::vector<float> v;
            for (const DecisionRecord& r : o.log->records)
                for (const PlacementRecord& p : r.placements)
                    v.insert(v.end(), p.rwgpVar.begin(), p.rwgpVar.end());
            return v;
        };
        const std::vector<float> own = variances(""), seed = variances("seed"), sim = variances("similarity");
        QVERIFY(!own.empty());
        QVERIFY(own == seed);
        QVERIFY(own != sim);
        std::filesystem::remove(path);
        tc.rwgpKernel = "walk";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Trainer bad(tc));
    }

    void decisionLogKeepsRwgpPosterior()
    {
        DecisionLog log;
        log.machineCount = 3;
        log.gpuCount = 12;
        DecisionRecord r;
        r.index = 0;
        r.time = 12.5;
        r.queue = {ScoredJob{4, 1.5f, 0.3f, 0.42f}, ScoredJob{7, 0.5f, 0.2f, kNoScore}};
        r.queueLength = 2;
        PlacementRecord p;
        p.job = 4;
        p.slots = {{0, 1000}, {1, 1000}};
        p.affinity = {1.f, 2.f, 3.f};
        p.affinityVar = {0.1f, 0.2f, 0.3f};
        p.rwgpMean = {0.05f, -0.1f, kNoScore};
        p.rwgpVar = {0.01f, 0.02f, 0.04f};
        p.reason = "das";
        r.placements.push_back(p);
        PlacementRecord none = p; // a placement without a GP (another policy in the same stream)
        none.job = 7;
        none.rwgpMean.clear();
        none.rwgpVar.clear();
        r.placements.push_back(none);
        log.records.push_back(r);
        auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
            if (a.size() != b.size())
                return false;
            for (size_t i = 0; i < a.size(); ++i)
                if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))))
                    return false;
            return true;
        };
        auto check = [&](const DecisionLog& back) {
            QCOMPARE(back.records.size(), size_t(1));
            const DecisionRecord& x = back.records[0];
            QCOMPARE(x.placements.size(), size_t(2));
            QVERIFY(same(x.placements[0].rwgpMean, p.rwgpMean));
            QVERIFY(same(x.placements[0].rwgpVar, p.rwgpVar));
            QVERIFY(x.placements[1].rwgpMean.empty() && x.placements[1].rwgpVar.empty());
            QCOMPARE(x.queue[0].gate, 0.42f);
            QVERIFY(std::isnan(x.queue[1].gate));
            QCOMPARE(x.placements[0].reason, std::string("das"));
        };
        const std::string blob = encodeDecisionLogBlob(log);
        check(decodeDecisionLogBlob(blob.data(), blob.size()));
        const std::string path = (std::filesystem::temp_directory_path() / "ss-tst-rwgpseed.sslog").string();
        {
            DecisionLogWriter w(path, log.machineCount, log.gpuCount);
            w.write(r);
            w.close();
        }
        check(readDecisionLog(path));
        std::filesystem::remove(path);
        // A version 3 file (before the RWGP fields) still loads, without a posterior.
        const DecisionLog old = readDecisionLog(SS_SOURCE_DIR "/tests/corpus/decisionlog/seed.sslog");
        QVERIFY(!old.records.empty());
        int placements = 0;
        for (const DecisionRecord& x : old.records)
            for (const PlacementRecord& q : x.placements) {
                ++placements;
                QVERIFY(q.rwgpMean.empty() && q.rwgpVar.empty());
            }
        QVERIFY(placements > 0);
    }
};

QTEST_GUILESS_MAIN(TestRwgpSeed)
#include "tst_rwgpseed.moc"
