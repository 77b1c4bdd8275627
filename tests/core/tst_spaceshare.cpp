// Space sharing (Gavel's -ss policies): the engine runs two whole-GPU jobs on the same GPUs, each holding half
// of every GPU at its co-located speed from the throughput table; the partner left behind speeds up to its own
// speed; bad requests are refused with the reason; Gavel's round schedules the LP's pair rows as units.
#include <QtTest>

#include <cmath>
#include <functional>

#include "metrics/metrics.h"
#include "policy/gavel/gavelsched.h"
#include "policy/registry.h"
#include "sim/engine.h"
#include "gavelfixture.h"

using namespace ss;
using namespace gavelfix;

namespace {

/// abTable plus the pair (fastA, fastB) sharing A: fastA 3 steps/s (0.75 of alone), fastB 0.5 (0.5 of alone);
/// together 1.25 > 1, so LAS's packing threshold keeps the pair.
ThroughputTable table()
{
    ThroughputTable t = abTable();
    t.setPairStepsPerSecond("fastB", "fastA", 1, "a", 0.5, 3); // given in the other order on purpose
    return t;
}

RunConfig config() { return gavelConfig(); }
ClusterSpec cluster(int a, int b) { return twoTypes(a, b, 2.0); }
Trace trace(const std::vector<std::tuple<double, std::string, double>>& jobs) { return abTrace(jobs); }

/// Runs `act` once, at the first decision.
struct Once : Scheduler {
    std::function<void(SchedContext&)> act;
    bool done = false;
    std::string name() const override { return "once"; }
    void schedule(SchedContext& ctx) override
    {
        if (!done && ctx.pendingCount() >= 2) {
            done = true;
            act(ctx);
        }
    }
};


} // namespace

class TstSpaceShare : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pairRunsAtItsMeasuredSpeedsThenTheSurvivorAlone()
    {
        // job 0 (fastA, 2000 s of work) at 0.75, job 1 (fastB, 1000 s) at 0.5 while they share GPU 0: job 1
        // ends at 2000 s; job 0 has done 1500 s and does its last 500 s alone at full speed: ends at 2500 s
        const ClusterSpec c = cluster(1, 0);
        const Trace t = trace({{0, "fastA", 2000}, {0, "fastB", 1000}});
        const ThroughputTable tab = table();
        Once p;
        p.act = [](SchedContext& ctx) { ctx.startShared(0, 1, {0}, "pair"); };
        MetricsCollector m;
        Simulator sim(c, t, p, config(), &tab);
        sim.addObserver(&m);
        QVERIFY(sim.step());
        QCOMPARE(sim.rt(0).partner, 1);
        QCOMPARE(sim.rt(1).partner, 0);
        QCOMPARE(sim.rt(0).slots, (std::vector<GpuSlot> {{0, 500}}));
        QCOMPARE(sim.rt(1).slots, (std::vector<GpuSlot> {{0, 500}}));
        QVERIFY(std::fabs(sim.rt(0).rate - 0.75) < 1e-12);
        QVERIFY(std::fabs(sim.rt(1).rate - 0.5) < 1e-12);
        sim.run();
        QVERIFY2(std::fabs(sim.rt(1).end - 2000) < 1e-6, qPrintable(QString::number(sim.rt(1).end)));
        QVERIFY2(std::fabs(sim.rt(0).end - 2500) < 1e-6, qPrintable(QString::number(sim.rt(0).end)));
        QCOMPARE(sim.rt(0).preemptions, 0);
        // each pays for the half it holds: A costs $2/h; job 1 half a GPU for 2000 s, job 0 for 2500 s
        const auto& jobs = m.jobs();
        QVERIFY(std::fabs(jobs[1].fee - 0.5 * 2.0 * 2000 / 3600) < 1e-9);
        QVERIFY(std::fabs(jobs[0].fee - 0.5 * 2.0 * 2500 / 3600) < 1e-9);
    }

    void interferenceLeavesThePartnerOut()
    {
        // with interference on, the partner is not a co-runner (its effect is in the measured pair speed), but
        // a third job on the machine is
        const ClusterSpec c = cluster(2, 0);
        const Trace t = trace({{0, "fastA", 2000}, {0, "fastB", 1000}, {0, "fastA", 100}});
        const ThroughputTable tab = table();
        RunConfig cfg = config();
        cfg.perf.interference = 0.1;
        Once p;
        p.act = [](SchedContext& ctx) { ctx.startShared(0, 1, {0}, "pair"); };
        Simulator sim(c, t, p, cfg, &tab);
        QVERIFY(sim.step());
        QCOMPARE(sim.rt(0).coRunners, 0);
        QVERIFY(std::fabs(sim.rt(0).rate - 0.75) < 1e-12);
        Once third;
        third.act = [](SchedContext& ctx) {
            ctx.startShared(0, 1, {0}, "pair");
            ctx.start(2, {{1, 1000}});
        };
        Simulator sim3(c, t, third, cfg, &tab);
        QVERIFY(sim3.step());
        QCOMPARE(sim3.rt(0).coRunners, 1);
        QVERIFY(std::fabs(sim3.rt(0).rate - 0.75 / 1.1) < 1e-12);
        QVERIFY(std::fabs(sim3.rt(2).rate - 1.0 / 1.2) < 1e-12); // two other jobs on its machine
    }

    void badPairsAreRefusedWithTheReason()
    {
        const ClusterSpec c = cluster(2, 1);
        const Trace t = trace({{0, "fastA", 100}, {0, "unknown-model", 100}, {0, "fastB", 100}});
        const ThroughputTable tab = table();
        auto refused = [&](std::function<void(SchedContext&)> act, const char* needle) {
            Once p;
            p.act = std::move(act);
            Simulator sim(c, t, p, config(), &tab);
            try {
                sim.step();
            } catch (const PolicyError& e) {
                const std::string what = e.what();
                if (what.find(needle) == std::string::npos)
                    return what;
                return std::string();
            }
            return std::string("no error");
        };
        QCOMPARE(refused([](SchedContext& ctx) { ctx.startShared(0, 1, {0}); }, "pair (fastA, unknown-model) at scale 1 is not measured on A"), std::string());
        QCOMPARE(refused([](SchedContext& ctx) { ctx.startShared(0, 2, {2}); }, "not measured on B"), std::string());
        QCOMPARE(refused([](SchedContext& ctx) { ctx.startShared(0, 0, {0}); }, "with itself"), std::string());
        QCOMPARE(refused([](SchedContext& ctx) { ctx.startShared(0, 2, {0, 1}); }, "needs 1 GPU(s), got 2"), std::string());
        QCOMPARE(refused([](SchedContext& ctx) { ctx.start(1, {{0, 1000}}); ctx.startShared(0, 2, {0}); }, "busy"), std::string());
        // and nothing of a refused pair started
        Once p;
        bool untouched = false;
        p.act = [&](SchedContext& ctx) {
            try {
                ctx.startShared(0, 1, {0});
            } catch (const PolicyError&) {
            }
            untouched = ctx.rt(0).status == JobStatus::Pending && ctx.rt(1).status == JobStatus::Pending
                && ctx.state().gpuFreeMilli(0) == 1000 && ctx.runningJobs().empty();
        };
        Simulator sim(c, t, p, config(), &tab);
        sim.step();
        QVERIFY(untouched);
    }

    void gavelRoundRunsThePairRowOnSharedGpus()
    {
        // one A GPU, a fastA and a fastB job: gavel-las-ss puts the pair row in the LP and the round starts both
        // on GPU 0, half each; gavel-las time-shares them; sharing ends both sooner
        const ClusterSpec c = cluster(1, 0);
        const Trace t = trace({{0, "fastA", 2000}, {0, "fastB", 1000}});
        const ThroughputTable tab = table();
        auto ss = makeScheduler("gavel-las-ss");
        Recorder rec;
        Simulator sim(c, t, *ss, config(), &tab);
        sim.addObserver(&rec);
        sim.run();
        int shared = 0;
        for (const DecisionRecord& r : rec.records)
            for (const PlacementRecord& pr : r.placements)
                if (!pr.slots.empty() && pr.slots.front().milli == 500) {
                    ++shared;
                    QVERIFY2(pr.reason.find("shares its GPUs with job") != std::string::npos, pr.reason.c_str());
                }
        QVERIFY2(shared >= 2, qPrintable(QString::number(shared)));
        QCOMPARE(sim.rt(0).status, JobStatus::Done);
        QCOMPARE(sim.rt(1).status, JobStatus::Done);
        auto las = makeScheduler("gavel-las");
        Simulator alone(c, t, *las, config(), &tab);
        alone.run();
        const double sharedSum = sim.rt(0).end + sim.rt(1).end, aloneSum = alone.rt(0).end + alone.rt(1).end;
        QVERIFY2(sharedSum < aloneSum, qPrintable(QString("%1 vs %2").arg(sharedSum).arg(aloneSum)));
        QVERIFY(std::max(sim.rt(0).end, sim.rt(1).end) < std::max(alone.rt(0).end, alone.rt(1).end));
        // deterministic
        auto ss2 = makeScheduler("gavel-las-ss");
        Simulator again(c, t, *ss2, config(), &tab);
        again.run();
        QCOMPARE(again.rt(0).end, sim.rt(0).end);
        QCOMPARE(again.rt(1).end, sim.rt(1).end);
    }

    void idealModeCountsThePairRows()
    {
        // the ideal (fluid) mode of an -ss policy has the pair rows: with them both jobs end sooner than when they
        // can only time-share GPU 0 (alone: the 8000 + 1000 steps share one GPU; paired: both progress at once)
        const ClusterSpec c = cluster(1, 0);
        const Trace t = trace({{0, "fastA", 2000}, {0, "fastB", 1000}});
        const ThroughputTable tab = table();
        const RunConfig cfg = config();
        PerfModel pm(c, t, cfg.perf, cfg.seed, &tab);
        const SimSetup setup {c, t, pm, cfg};
        const std::vector<double> paired = simulateGavelIdeal(setup, gavel::Objective::MaxMinFairness, {}, false, 4);
        const std::vector<double> alone = simulateGavelIdeal(setup, gavel::Objective::MaxMinFairness, {}, false, 0);
        const QString got = QString("paired %1 %2, alone %3 %4").arg(paired[0]).arg(paired[1]).arg(alone[0]).arg(alone[1]);
        QVERIFY2(paired[0] < alone[0] - 100 && paired[1] < alone[1] - 100, qPrintable(got));
        // alone, the last job ends when the GPU has done both: 2000 s + 1000 s of work on A
        QVERIFY2(std::fabs(std::max(alone[0], alone[1]) - 3000) < 1e-3, qPrintable(got));
    }
};

QTEST_APPLESS_MAIN(TstSpaceShare)
#include "tst_spaceshare.moc"
