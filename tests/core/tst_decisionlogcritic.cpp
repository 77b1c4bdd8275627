// Decision log version 6 (issue 26): a learned critic's values (DecisionRecord::criticKind/criticValue,
// ScoredJob::critic, PlacementRecord::critic) round-trip exactly through the file and the store blob, a version 5
// stream (without them) still reads, and SchedContext::recordCritic lands on the right placement, dense or top-K.
#include <QTest>

#include <cmath>
#include <filesystem>

#include "model/clusterspec.h"
#include "sim/decisionlog.h"
#include "sim/engine.h"

using namespace ss;

namespace {

DecisionRecord criticRecord()
{
    DecisionRecord r;
    r.index = 3;
    r.time = 120.5;
    r.queueLength = 3;
    ScoredJob a{4, 0.9f, 0.2f, 0.45f};
    a.critic = 1.25f;
    ScoredJob b{7, 0.1f, 0.3f, 0.55f}; // could not start: no Q
    ScoredJob c{9, -0.4f};
    c.critic = -0.75f;
    r.queue = {a, b, c};
    PlacementRecord p;
    p.job = 4;
    p.slots = {GpuSlot{0, 1000}};
    p.affinity = {0.5f, 0.1f, -0.2f};
    p.rwgpMean = {0.f, 0.1f, -0.1f};
    p.rwgpVar = {0.2f, 0.2f, 0.3f};
    p.critic = {1.25f, 0.5f, kNoScore};
    p.reason = "das";
    r.placements = {p};
    r.criticKind = 'q';
    r.criticValue = 1.25f;
    return r;
}

void checkSame(const DecisionRecord& x, const DecisionRecord& y)
{
    QCOMPARE(x.criticKind, y.criticKind);
    QCOMPARE(x.criticValue, y.criticValue);
    QCOMPARE(x.queue.size(), y.queue.size());
    for (size_t i = 0; i < x.queue.size(); ++i) {
        QCOMPARE(std::isnan(x.queue[i].critic), std::isnan(y.queue[i].critic));
        if (!std::isnan(x.queue[i].critic))
            QCOMPARE(x.queue[i].critic, y.queue[i].critic);
        QCOMPARE(x.queue[i].gate, y.queue[i].gate);
    }
    QCOMPARE(x.placements.size(), y.placements.size());
    const auto& a = x.placements[0].critic;
    const auto& b = y.placements[0].critic;
    QCOMPARE(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
        QVERIFY(std::isnan(a[i]) ? std::isnan(b[i]) : a[i] == b[i]);
    QCOMPARE(x.placements[0].rwgpVar, y.placements[0].rwgpVar);
}

// A policy that records a critic: Q per machine for the job it places, as DAS does.
class CriticPolicy : public Scheduler {
public:
    std::string name() const override { return "critic-probe"; }
    void schedule(SchedContext& ctx) override
    {
        std::vector<int> q;
        ctx.forEachPending([&](int j) {
            q.push_back(j);
            return true;
        });
        if (q.empty())
            return;
        const int M = ctx.cluster().machineCount();
        std::vector<float> aff(static_cast<size_t>(M)), qm(static_cast<size_t>(M));
        for (int m = 0; m < M; ++m) {
            aff[size_t(m)] = float(M - m);
            qm[size_t(m)] = 10.f + float(m);
        }
        const std::vector<GpuSlot> slots{GpuSlot{0, 1000}};
        if (ctx.state().gpuOwner(0) != -1)
            return;
        ctx.recordPlacement(q[0], slots, aff, "probe");
        ctx.recordCritic('q', 10.f, q[0], qm);
        ctx.start(q[0], slots, "probe");
    }
};

} // namespace

class TestDecisionLogCritic : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTripFileAndBlob()
    {
        DecisionLog log;
        log.machineCount = 3;
        log.gpuCount = 12;
        log.records = {criticRecord(), DecisionRecord{}};
        log.records[1].index = 4;
        log.records[1].criticKind = 'v';
        log.records[1].criticValue = -2.5f;
        const std::string blob = encodeDecisionLogBlob(log);
        const DecisionLog b = decodeDecisionLogBlob(blob.data(), blob.size());
        checkSame(log.records[0], b.records[0]);
        QCOMPARE(b.records[1].criticKind, 'v');
        QCOMPARE(b.records[1].criticValue, -2.5f);
        const std::string path = (std::filesystem::temp_directory_path() / "ss-tst-critic.sslog").string();
        {
            DecisionLogWriter w(path, log.machineCount, log.gpuCount);
            for (const DecisionRecord& r : log.records)
                w.write(r);
            w.close();
        }
        const DecisionLog f = readDecisionLog(path);
        checkSame(log.records[0], f.records[0]);
        QCOMPARE(f.records[1].criticKind, 'v');
        std::filesystem::remove(path);
    }

    void version5StillReads()
    {
        // A record without a critic costs no byte more in version 6 (its allocation header is 0 either way): the
        // same bytes relabelled as version 5 read the same.
        DecisionLog log;
        log.machineCount = 2;
        log.gpuCount = 8;
        DecisionRecord r;
        r.index = 1;
        r.time = 5;
        r.queue = {ScoredJob{2, 0.5f}};
        r.queueLength = 1;
        log.records = {r};
        const std::string blob = encodeDecisionLogBlob(log);
        QCOMPARE(int(blob[4]), 6); // "SSLB", then the version varint
        std::string v5 = blob;
        v5[4] = 5;
        const DecisionLog old = decodeDecisionLogBlob(v5.data(), v5.size());
        QCOMPARE(old.records.size(), size_t(1));
        QCOMPARE(old.records[0].criticKind, char(0));
        QVERIFY(std::isnan(old.records[0].criticValue));
        QCOMPARE(old.records[0].queue[0].job, 2);
        QCOMPARE(old.records[0].allocation.types.size(), size_t(0));
        // With a critic, the flag and the critic section follow: [header 1]['v'][f32][placements 0]. Read as
        // version 5 that header is one allocation type, whose name length ('v' = 118) runs past the data.
        log.records[0].criticKind = 'v';
        log.records[0].criticValue = -2.5f;
        std::string withCritic = encodeDecisionLogBlob(log);
        QCOMPARE(withCritic.size(), blob.size() + 6);
        QCOMPARE(decodeDecisionLogBlob(withCritic.data(), withCritic.size()).records[0].criticValue, -2.5f);
        std::string relabelled = withCritic;
        relabelled[4] = 5;
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, decodeDecisionLogBlob(relabelled.data(), relabelled.size()));
        // A bad critic kind is corruption.
        std::string bad = withCritic;
        QCOMPARE(bad[bad.size() - 6], 'v');
        bad[bad.size() - 6] = 'x';
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, decodeDecisionLogBlob(bad.data(), bad.size()));
    }

    void recordCriticLandsOnThePlacement()
    {
        for (int denseMax : {1000, 2}) {
            ClusterSpec c = makeClusterPreset("das-case");
            Trace t;
            for (int i = 0; i < 3; ++i) {
                Job j;
                j.id = i;
                j.gpus = 1;
                j.submit = i;
                j.duration = 100;
                t.jobs.push_back(j);
            }
            CriticPolicy pol;
            RunConfig rc;
            rc.recordDecisions = true;
            rc.denseAffinityMaxMachines = denseMax; // 2: the top-K form
            rc.sparseAffinityTopK = 3;
            Simulator sim(c, t, pol, rc);
            struct Keep : SimObserver {
                std::vector<DecisionRecord> recs;
                void onDecision(const DecisionRecord& r) override { recs.push_back(r); }
            } keep;
            sim.addObserver(&keep);
            sim.run();
            const DecisionRecord* hit = nullptr;
            for (const DecisionRecord& r : keep.recs)
                if (r.criticKind == 'q' && !r.placements.empty())
                    hit = hit ? hit : &r;
            QVERIFY(hit);
            QCOMPARE(hit->criticValue, 10.f);
            const PlacementRecord& p = hit->placements[0];
            QCOMPARE(p.critic.size(), p.affinity.size());
            for (size_t k = 0; k < p.critic.size(); ++k)
                QCOMPARE(p.critic[k], 10.f + float(p.machineOf(int(k))));
            if (denseMax == 2)
                QCOMPARE(p.critic.size(), size_t(3));
            else
                QCOMPARE(int(p.critic.size()), c.machineCount());
        }
    }
};

QTEST_GUILESS_MAIN(TestDecisionLogCritic)
#include "tst_decisionlogcritic.moc"
