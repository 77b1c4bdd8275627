// A policy as a plug-in: this file alone registers an ordering (lifo), a placement (lastfit) and an admission
// stage (smallonly) with the registration table, then runs them by name through makeScheduler and the engine
// and checks the schedules by hand; the parameter schema is enforced by makeScheduler; admission verdicts go
// through every decision-log encoding (and the store's older blob version still reads).
#include <QtTest>

#include <QTemporaryDir>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "io/decisionlogjson.h"
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

// Admission: rejects jobs wider than 2 GPUs; defers job 2 until t=20.
class SmallOnly final : public Admission {
public:
    AdmissionRecord admit(const SchedContext& ctx, int job) override
    {
        if (ctx.job(job).gpus > 2)
            return {job, Admit::Reject, -float(ctx.job(job).gpus), "wider than 2 GPUs"};
        if (job == 2 && ctx.now() < 20)
            return {job, Admit::Defer, 0.0f, "not before t=20"};
        return {job, Admit::Accept, 1.0f, "small"};
    }
};

const PolicyRegistrar smallonly({.name = "smallonly",
                                 .family = PolicyFamily::Admission,
                                 .description = "rejects jobs wider than 2 GPUs (test plug-in)",
                                 .admission = [](const PolicyOptions&) { return std::make_unique<SmallOnly>(); }});

ClusterSpec twoByTwo()
{
    ClusterSpec c;
    c.name = "plug";
    c.types = {{"A", 1.0, 16, 1.0}};
    c.switches = {{"s0", 100}};
    c.machines = {{"m0", 0, 2, 0, 0, 0, 25}, {"m1", 0, 2, 0, 0, 0, 25}};
    c.finalize();
    return c;
}

struct Recorder : SimObserver {
    DecisionLog log;
    std::vector<std::pair<int, std::string>> rejected;
    void onDecision(const DecisionRecord& r) override { log.records.push_back(r); }
    void onJobRejected(double, int job, std::string_view why) override { rejected.push_back({job, std::string(why)}); }
};

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

    void admissionRejectsAndDefers()
    {
        const ClusterSpec c = twoByTwo();
        Trace t;
        t.name = "adm";
        const double defs[4][3] = {{0, 2, 10}, {0, 4, 10}, {1, 2, 10}, {25, 1, 5}};
        for (int i = 0; i < 4; ++i) {
            Job j;
            j.id = i;
            j.submit = defs[i][0];
            j.gpus = defs[i][1];
            j.duration = defs[i][2];
            t.jobs.push_back(j);
        }
        t.sortBySubmit();
        PolicyOptions o;
        o.params["admission"] = "smallonly";
        auto s = makeScheduler("fifo+firstfit", o);
        RunConfig cfg;
        cfg.perf.ideal = true;
        cfg.checkInvariants = true;
        cfg.recordDecisions = true;
        Simulator sim(c, t, *s, cfg);
        Recorder rec;
        rec.log.machineCount = c.machineCount();
        rec.log.gpuCount = c.totalGpus();
        sim.addObserver(&rec);
        sim.run();
        QCOMPARE(sim.rt(0).firstStart, 0.0);
        QCOMPARE(int(sim.rt(1).status), int(JobStatus::Rejected));
        QCOMPARE(int(rec.rejected.size()), 1);
        QCOMPARE(rec.rejected[0].second, std::string("wider than 2 GPUs"));
        // deferred at t=1 and t=10 (the next decision), accepted at t=25
        QCOMPARE(sim.rt(2).firstStart, 25.0);
        QCOMPARE(int(sim.rt(2).status), int(JobStatus::Done));
        QCOMPARE(sim.rt(3).firstStart, 25.0);
        std::string verdicts;
        for (const DecisionRecord& r : rec.log.records)
            for (const AdmissionRecord& a : r.admissions)
                verdicts += std::to_string(int(r.time)) + ":" + std::to_string(a.job) + toString(a.verdict) + " ";
        QCOMPARE(verdicts, std::string("0:0accept 0:1reject 1:2defer 10:2defer 25:2accept 25:3accept "));

        // every encoding carries the verdicts: the file, the store's blob, JSON lines
        QTemporaryDir dir;
        const std::string bin = dir.filePath("a.sslog").toStdString();
        {
            DecisionLogWriter w(bin, rec.log.machineCount, rec.log.gpuCount);
            for (const DecisionRecord& r : rec.log.records)
                w.write(r);
            w.close();
        }
        const std::string blob = encodeDecisionLogBlob(rec.log);
        for (const DecisionLog& back : {readDecisionLog(bin), decodeDecisionLogBlob(blob.data(), blob.size())}) {
            QCOMPARE(back.records.size(), rec.log.records.size());
            for (size_t i = 0; i < back.records.size(); ++i) {
                const auto& a = back.records[i].admissions;
                const auto& b = rec.log.records[i].admissions;
                QCOMPARE(a.size(), b.size());
                for (size_t k = 0; k < a.size(); ++k) {
                    QCOMPARE(a[k].job, b[k].job);
                    QCOMPARE(int(a[k].verdict), int(b[k].verdict));
                    QCOMPARE(a[k].score, b[k].score);
                    QCOMPARE(a[k].reason, b[k].reason);
                }
                QCOMPARE(back.records[i].placements.size(), rec.log.records[i].placements.size());
            }
        }
        const std::string jsonl = dir.filePath("a.jsonl").toStdString();
        writeDecisionLogJsonl(rec.log, jsonl);
        std::ifstream in(jsonl);
        std::string line;
        QJsonArray admissions;
        while (std::getline(in, line)) {
            QJsonParseError err;
            const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(line), &err).object();
            QVERIFY2(err.error == QJsonParseError::NoError, line.c_str()); // every line is JSON
            if (admissions.isEmpty())
                admissions = o.value("admissions").toArray();
        }
        QCOMPARE(admissions.size(), 2);
        const QJsonObject a0 = admissions[0].toObject(), a1 = admissions[1].toObject();
        QCOMPARE(a0.value("job").toInt(), 0);
        QCOMPARE(a0.value("verdict").toString(), QStringLiteral("accept"));
        QCOMPARE(a0.value("score").toDouble(), 1.0);
        QCOMPARE(a0.value("reason").toString(), QStringLiteral("small"));
        QCOMPARE(a1.value("job").toInt(), 1);
        QCOMPARE(a1.value("verdict").toString(), QStringLiteral("reject"));
        QCOMPARE(a1.value("score").toDouble(), -4.0);
        QCOMPARE(a1.value("reason").toString(), QStringLiteral("wider than 2 GPUs"));
    }

    void storeBlobVersion1StillReads()
    {
        // a blob as the store wrote it before admissions (encoding 1), byte by byte
        const unsigned char v1[] = {'S', 'S', 'L', 'B', 1, 2, 4, 1,              // version, machines, GPUs, records
                                    0, 0, 0, 0, 0, 0, 0, 0x24, 0x40,             // index 0, time 10.0
                                    1, 6, 0, 1,                                   // arrived [3], finished [], queue length 1
                                    1, 6, 0, 0, 0, 0x80, 0x3f,                    // queue: job 3, no flags, priority 1
                                    0,                                            // preempted []
                                    1, 6, 1, 2, 0xe8, 0x07, 0,                    // placement: job 3, GPU 2 x 1000, dense
                                    2, 0, 0, 0, 0x3f, 0, 0, 0x80, 0xbf, 0,        // affinity [0.5, -1], no variance
                                    0, 4, 'f', 'i', 'f', 'o'};                    // reason "fifo" (new in the table)
        const DecisionLog log = decodeDecisionLogBlob(v1, sizeof v1);
        QCOMPARE(log.machineCount, 2);
        QCOMPARE(log.gpuCount, 4);
        QCOMPARE(int(log.records.size()), 1);
        const DecisionRecord& r = log.records[0];
        QCOMPARE(r.time, 10.0);
        QCOMPARE(r.arrived, std::vector<int>({3}));
        QCOMPARE(r.queue.at(0).job, 3);
        QCOMPARE(r.queue.at(0).priority, 1.0f);
        QCOMPARE(r.placements.at(0).slots.at(0).gpu, 2);
        QCOMPARE(r.placements.at(0).affinity, std::vector<float>({0.5f, -1.0f}));
        QCOMPARE(r.placements.at(0).machineOf(1), 1);
        QCOMPARE(r.placements.at(0).reason, std::string("fifo"));
        QVERIFY(r.admissions.empty());
        // the top-K form names its machines
        PlacementRecord sparse;
        sparse.machines = {7, 3};
        sparse.affinity = {1, 2};
        QCOMPARE(sparse.machineOf(0), 7);
        QCOMPARE(sparse.machineOf(1), 3);
        QCOMPARE(sparse.machineOf(2), -1);
    }
};

QTEST_GUILESS_MAIN(TstPluginPolicy)
#include "tst_pluginpolicy.moc"
