// A policy as a plug-in: this file alone registers an ordering (lifo) and a placement (lastfit) with the
// registration table, then runs "lifo+lastfit" by name through makeScheduler and the engine and checks the
// schedule by hand; its parameter schema is enforced by makeScheduler.
#include <QtTest>

#include <stdexcept>

#include "policy/registry.h"
#include "sim/engine.h"

using namespace ss;

namespace {

// Last in, first out: the job that joined the queue last is served first.
class Lifo final : public Ordering {
public:
    double staticKey(const SchedContext& ctx, int job) const override { return -ctx.rt(job).enqueuedAt; }
    std::vector<ScoredJob> rank(const SchedContext& ctx, const std::vector<QueuedJob>& served) const override
    {
        std::vector<ScoredJob> out;
        for (const QueuedJob& q : served)
            out.push_back({q.job, float(ctx.rt(q.job).enqueuedAt / 3600.0)});
        return out;
    }
};

// The highest-id machine that holds the whole job (whole-GPU jobs on one machine only).
class LastFit final : public Placement {
public:
    bool place(SchedContext& ctx, int job, std::vector<GpuSlot>& out, std::vector<float>* scores) override
    {
        out.clear();
        const ClusterSpec& c = ctx.cluster();
        const int k = ctx.job(job).wholeGpus();
        int pick = -1;
        if (scores)
            scores->assign(size_t(c.machineCount()), -1.0f);
        for (int m = 0; m < c.machineCount(); ++m)
            if (ctx.state().freeGpus(m) >= k) {
                pick = m;
                if (scores)
                    (*scores)[size_t(m)] = 1.0f + float(m) / float(c.machineCount());
            }
        if (pick < 0)
            return false;
        for (int g = c.gpuBase(pick); g < c.gpuBase(pick) + c.machines[size_t(pick)].gpus && int(out.size()) < k; ++g)
            if (ctx.state().gpuFreeMilli(g) >= 1000)
                out.push_back({g, 1000});
        return true;
    }
};

const PolicyRegistrar lifo({.name = "lifo",
                            .family = PolicyFamily::Ordering,
                            .description = "last in, first out (test plug-in)",
                            .ordering = [](const PolicyOptions&) { return std::make_unique<Lifo>(); }});
const PolicyRegistrar lastfit({.name = "lastfit",
                               .family = PolicyFamily::Placement,
                               .description = "highest-id machine that holds the job (test plug-in)",
                               .params = {{.key = "lastfit.unused", .type = ParamSpec::Type::Integer, .dflt = "1", .min = 1,
                                           .max = 8, .help = "a declared knob the test validates"}},
                               .placement = [](const PolicyOptions&) { return std::make_unique<LastFit>(); }});

} // namespace

class TstPluginPolicy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void registeredByName()
    {
        const auto ords = orderingNames();
        const auto plcs = placementNames();
        QVERIFY(std::find(ords.begin(), ords.end(), "lifo") != ords.end());
        QVERIFY(std::find(plcs.begin(), plcs.end(), "lastfit") != plcs.end());
        const auto all = schedulerNames();
        for (const char* n : {"lifo+lastfit", "lifo+firstfit", "fifo+lastfit"})
            QVERIFY2(std::find(all.begin(), all.end(), n) != all.end(), n);
        const PolicyInfo info = policyInfo("lifo+lastfit");
        QCOMPARE(QString::fromStdString(info.group), QString("ordering+placement"));
        QVERIFY(info.description.find("test plug-in") != std::string::npos);
    }

    void runsThroughTheEngine()
    {
        // 2 machines x 2 GPUs; jobs 0 and 1 hold both machines until t=100; jobs 2, 3, 4 (2 GPUs each) queue.
        ClusterSpec c;
        c.name = "plug";
        c.types = {{"A", 1.0, 16, 1.0}};
        c.switches = {{"s0", 100}};
        c.machines = {{"m0", 0, 2, 0, 0, 0, 25}, {"m1", 0, 2, 0, 0, 0, 25}};
        c.finalize();
        Trace t;
        t.name = "plug";
        for (int i = 0; i < 5; ++i) {
            Job j;
            j.id = i;
            j.submit = i < 2 ? 0 : i - 1;
            j.gpus = 2;
            j.duration = i < 2 ? 100 : 10;
            t.jobs.push_back(j);
        }
        t.sortBySubmit();
        RunConfig cfg;
        cfg.perf.ideal = true;
        cfg.checkInvariants = true;
        cfg.recordDecisions = true;
        auto s = makeScheduler("lifo+lastfit");
        QCOMPARE(QString::fromStdString(s->name()), QString("lifo+lastfit"));
        Simulator sim(c, t, *s, cfg);
        struct Rec : SimObserver {
            std::vector<DecisionRecord> recs;
            void onDecision(const DecisionRecord& r) override { recs.push_back(r); }
        } rec;
        sim.addObserver(&rec);
        sim.run();
        // t=0: equal entry times keep queue order, job 0 on the last machine; at t=100 the last arrivals go
        // first: job 4 on the last machine, job 3 on the other; job 2 at 110
        QCOMPARE(sim.rt(4).firstStart, 100.0);
        QCOMPARE(sim.rt(3).firstStart, 100.0);
        QCOMPARE(sim.rt(2).firstStart, 110.0);
        QCOMPARE(sim.rt(2).end, 120.0);
        bool sawJob4 = false;
        for (const DecisionRecord& r : rec.recs)
            for (const PlacementRecord& p : r.placements) {
                if (p.job == 0 && !p.slots.empty())
                    QCOMPARE(c.machineOfGpu(p.slots.front().gpu), 1);
                if (p.job == 4 && !p.slots.empty()) {
                    sawJob4 = true;
                    QCOMPARE(c.machineOfGpu(p.slots.front().gpu), 1);
                    QCOMPARE(QString::fromStdString(p.reason), QString("lifo (lastfit)"));
                }
            }
        QVERIFY(sawJob4);
        // the default admission stage accepted every arrival, and the log says so
        int accepted = 0;
        for (const DecisionRecord& r : rec.recs)
            for (const AdmissionRecord& a : r.admissions)
                accepted += a.verdict == Admit::Accept;
        QCOMPARE(accepted, 5);
    }

    void paramsAreValidated()
    {
        PolicyOptions ok;
        ok.params["lastfit.unused"] = "3";
        QVERIFY(makeScheduler("lifo+lastfit", ok) != nullptr);
        // a key of another policy is for that policy (compare passes one set to all), and is not checked here
        PolicyOptions other;
        other.params["lastfit.unused"] = "99";
        QVERIFY(makeScheduler("fifo+firstfit", other) != nullptr);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeScheduler("fifo+lastfit", other));
        for (const auto& [key, value, needle] : {std::tuple<std::string, std::string, std::string> {"lastfit.unused", "9", "out of range"},
                                                 {"lastfit.unused", "x", "not a number"},
                                                 {"lastfit.other", "1", "no parameter lastfit.other"}}) {
            PolicyOptions bad;
            bad.params[key] = value;
            try {
                makeScheduler("lifo+lastfit", bad);
                QFAIL("expected invalid_argument");
            } catch (const std::invalid_argument& e) {
                const std::string msg = e.what();
                QVERIFY2(msg.find(needle) != std::string::npos && msg.find("lifo+lastfit") != std::string::npos
                             && msg.find("lastfit.unused") != std::string::npos,
                         msg.c_str());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TstPluginPolicy)
#include "tst_pluginpolicy.moc"
