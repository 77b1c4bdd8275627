// DAS's Q-critic (issue 26, learn/critic.h, trainer.cpp, das.cpp): the TD targets and the counterfactual baseline by
// hand, the target network lagging the online one, the critic kind through the checkpoint and its refusals, and the
// critic's values in a DAS decision's log.
#include <QTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "learn/critic.h"
#include "learn/learn.h"
#include "learn/trainer.h"
#include "model/tracegen.h"
#include "run/runner.h"
#include "learnfixture.h"

using namespace ss;
using namespace ss::learn;

namespace {


TrainConfig tinyConfig(const std::string& critic, uint64_t seed)
{
    TrainConfig c = learnfix::tinyConfig("das", seed);
    c.critic = critic;
    return c;
}

std::string tmpPath(const char* name) { return learnfix::tmpPath("qcritic", name); }

using learnfix::errorOf;

std::string fileBytes(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

RunOutput runDas(const std::string& checkpoint, const std::map<std::string, std::string>& params = {})
{
    const ClusterSpec c = makeClusterPreset("das-case");
    const Trace t = learnfix::tinyTrace(50, 3, c.totalGpus());
    RunSpec spec;
    spec.policy = "das";
    spec.options.checkpoint = checkpoint;
    for (const auto& [k, v] : params)
        spec.options.params[k] = v;
    spec.config.seed = 1;
    spec.config.perf = TrainConfig::defaultPerf();
    spec.config.recordDecisions = true;
    spec.keepDecisionLog = true;
    return runSimulation(c, t, spec);
}

} // namespace

class TestQCritic : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { registerLearnedPolicies(); }

    void tdTargetsByHand()
    {
        // A 2-step episode, gamma 0.5: y_0 = r_0 + 0.5 Q_target(s_1, a_1) = 1 + 0.5 * 5; the last step is terminal.
        const std::vector<double> y = qTdTargets({1.0, 2.0}, {5.0}, 0.5);
        QCOMPARE(y.size(), size_t(2));
        QCOMPARE(y[0], 3.5);
        QCOMPARE(y[1], 2.0);
        // Three steps, gamma 0.9: the target of step t uses the target network's Q of step t+1, never step t's.
        const std::vector<double> y3 = qTdTargets({0.0, -1.0, 4.0}, {2.0, 10.0, 99.0}, 0.9);
        QCOMPARE(y3[0], 1.8);
        QCOMPARE(y3[1], -1.0 + 9.0);
        QCOMPARE(y3[2], 4.0);
        QVERIFY(!errorOf([] { qTdTargets({1, 2, 3}, {1}, 0.9); }).empty());
    }

    void counterfactualBaselineByHand()
    {
        // E_pi[Q] over the agent's alternatives: 0.25 * 1 + 0.75 * 3.
        QCOMPARE(expectedQ({1.f, 3.f}, {0.25f, 0.75f}), 2.5);
        // Weights need not sum to 1; an alternative the policy never picks counts for nothing.
        QCOMPARE(expectedQ({1.f, 3.f, 100.f}, {1.f, 3.f, 0.f}), 2.5);
        QCOMPARE(expectedQ({2.f, 4.f}, {0.f, 0.f}), 3.0); // no weight at all: the plain mean
        QCOMPARE(expectedQ({}, {}), 0.0);
    }

    void topChoiceProbabilitiesFollowThePolicy()
    {
        Rng rng(4);
        // Item 2 far ahead: always first. Among items 0 and 1 only (2 not allowed): a fair coin.
        std::vector<float> p = topChoiceProbabilities({0.f, 0.f, 5.f}, {1.f, 1.f, 0.1f}, {1, 1, 1}, 400, rng);
        QCOMPARE(p[2], 1.f);
        p = topChoiceProbabilities({0.f, 0.f, 5.f}, {1.f, 1.f, 0.1f}, {1, 1, 0}, 4000, rng);
        QCOMPARE(p[2], 0.f);
        QVERIFY2(std::fabs(p[0] - 0.5f) < 0.05f, qPrintable(QString::number(p[0])));
        QCOMPARE(p[0] + p[1], 1.f);
        // One sd ahead: P(N(1,1) > N(0,1)) = Phi(1/sqrt 2) = 0.760.
        p = topChoiceProbabilities({1.f, 0.f}, {1.f, 1.f}, {1, 1}, 4000, rng);
        QVERIFY2(std::fabs(p[0] - 0.760f) < 0.03f, qPrintable(QString::number(p[0])));
    }

    void targetNetworkLagsTheOnlineOne()
    {
        Trainer q(tinyConfig("q", 3));
        QVERIFY(q.step());
        const TrainStats s = q.lastStats();
        // The online critic moved during the last epoch; the target it took its TD targets from did not.
        QVERIFY2(s.targetLag > 1e-6, qPrintable(QString::number(s.targetLag)));
        QVERIFY(std::isfinite(s.valueLoss) && s.valueLoss > 0);
        QVERIFY(std::isfinite(s.criticError));
        Trainer v(tinyConfig("v", 3));
        QVERIFY(v.step());
        QCOMPARE(v.lastStats().targetLag, -1.0); // no target network
        // Deterministic: the same seed gives the same Q-critic training.
        Trainer q2(tinyConfig("q", 3));
        QVERIFY(q2.step());
        QCOMPARE(q2.lastStats().valueLoss, s.valueLoss);
        QCOMPARE(q2.lastStats().targetLag, s.targetLag);
        // A different critic trains differently (the switch does something).
        QVERIFY(v.lastStats().valueLoss != s.valueLoss);
    }

    void criticKindRoundTripsAndIsRefused()
    {
        const std::string pq = tmpPath("q.sscp"), pv = tmpPath("v.sscp");
        {
            Trainer q(tinyConfig("q", 1));
            q.step();
            q.save(pq);
            Trainer v(tinyConfig("v", 1));
            v.step();
            v.save(pv);
        }
        QCOMPARE(QString::fromStdString(readCheckpointInfo(pq).critic), QStringLiteral("q"));
        QCOMPARE(QString::fromStdString(readCheckpointInfo(pv).critic), QStringLiteral("v"));
        // The header names the kind only when it is q: a v checkpoint is byte-compatible with older builds.
        QVERIFY(fileBytes(pq).find("\"critic\":\"q\"") != std::string::npos);
        QVERIFY(fileBytes(pv).find("\"critic\"") == std::string::npos);

        // A run that demands the other kind is refused, naming both.
        const std::string e1 = errorOf([&] { runDas(pq, {{"das.critic", "v"}}); });
        QVERIFY2(e1.find("q-critic") != std::string::npos && e1.find("das.critic=v") != std::string::npos, e1.c_str());
        QVERIFY2(e1.find(pq) != std::string::npos, e1.c_str());
        const std::string e2 = errorOf([&] { runDas(pv, {{"das.critic", "q"}}); });
        QVERIFY2(e2.find("v-critic") != std::string::npos && e2.find("das.critic=q") != std::string::npos, e2.c_str());
        QVERIFY(errorOf([&] { runDas(pq, {{"das.critic", "q"}}); }).empty());
        QVERIFY(errorOf([&] { runDas(pq, {{"das.critic", "x"}}); }).find("das.critic") != std::string::npos);
        // Resuming with another critic is refused too; without a demand it keeps the checkpoint's.
        TrainConfig r = tinyConfig("v", 1);
        r.resume = pq;
        const std::string e3 = errorOf([&] { Trainer t(r); });
        QVERIFY2(e3.find("q-critic") != std::string::npos && e3.find("critic v") != std::string::npos, e3.c_str());
        r.critic = "";
        r.iterations = 3;
        Trainer resumed(r);
        QCOMPARE(QString::fromStdString(resumed.config().critic), QStringLiteral("q"));
        QVERIFY(resumed.step());
        QVERIFY(resumed.lastStats().targetLag > 0);
        std::filesystem::remove(pq);
        std::filesystem::remove(pv);
    }

    void decisionLogCarriesTheCritic()
    {
        const std::string pq = tmpPath("log-q.sscp"), pv = tmpPath("log-v.sscp");
        {
            Trainer q(tinyConfig("q", 2));
            q.step();
            q.save(pq);
            Trainer v(tinyConfig("v", 2));
            v.step();
            v.save(pv);
        }
        const RunOutput oq = runDas(pq);
        int withQ = 0;
        for (const DecisionRecord& r : oq.log->records) {
            if (r.criticKind == 0)
                continue;
            QCOMPARE(r.criticKind, 'q');
            ++withQ;
            // The job the ordering put first among those that could start carries Q of the action taken, and the
            // first placement's row has the same value at the machine it scored highest.
            const ScoredJob* first = nullptr;
            int alternatives = 0;
            for (const ScoredJob& q : r.queue)
                if (!std::isnan(q.critic)) {
                    first = first ? first : &q;
                    ++alternatives;
                }
            QVERIFY(first);
            QVERIFY(std::fabs(first->critic - r.criticValue) < 1e-4f);
            const PlacementRecord* p = nullptr;
            for (const PlacementRecord& pr : r.placements)
                if (!pr.critic.empty())
                    p = p ? p : &pr;
            QVERIFY(p);
            QCOMPARE(p->job, first->job);
            QCOMPARE(p->critic.size(), p->affinity.size());
            bool found = false;
            for (float x : p->critic)
                found = found || std::fabs(x - r.criticValue) < 1e-4f;
            QVERIFY(found);
            QVERIFY(alternatives >= 1);
        }
        QVERIFY2(withQ > 5, qPrintable(QString::number(withQ)));
        // The log does not change the run: same JCTs without recording.
        const RunOutput ov = runDas(pv);
        int withV = 0;
        for (const DecisionRecord& r : ov.log->records) {
            if (r.criticKind == 0)
                continue;
            QCOMPARE(r.criticKind, 'v');
            QVERIFY(std::isfinite(r.criticValue));
            for (const ScoredJob& q : r.queue)
                QVERIFY(std::isnan(q.critic)); // a V-critic ranks nothing
            for (const PlacementRecord& pr : r.placements)
                QVERIFY(pr.critic.empty());
            ++withV;
        }
        QVERIFY(withV > 5);
        std::filesystem::remove(pq);
        std::filesystem::remove(pv);
    }
};

QTEST_GUILESS_MAIN(TestQCritic)
#include "tst_qcritic.moc"
