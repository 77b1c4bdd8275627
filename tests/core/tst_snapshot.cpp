// Engine snapshots and checkpoints (sim/engine.h Simulator::snapshot, run/checkpoint.h): for every policy of the
// registry, a run snapshotted at decision K and restored (the original simulator and policy gone) ends exactly as
// the uninterrupted run, decision for decision and job for job; a fork restored from a checkpoint equals the same
// fork replayed from decision 1; checkpoints stay within their bound; forks of forks chain their parents' changes.
#include <QtTest>

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <set>

#include "forkfixture.h"
#include "io/traceio.h"
#include "model/tracegen.h"
#include "policy/learnedmodule.h"
#include "policy/registry.h"
#include "run/checkpoint.h"
#include "run/fork.h"
#include "store/runstore.h"

using namespace ss;

namespace {

ClusterSpec cluster() { return forkfix::dasCase(); }
Trace trace(int jobs = 90, uint64_t seed = 5) { return forkfix::contended(jobs, seed); }

std::vector<std::string> everyPolicy()
{
    std::vector<std::string> names = schedulerNames();
    for (const std::string& n : learnedModulePolicyNames())
        if (std::find(names.begin(), names.end(), n) == names.end())
            names.push_back(n);
    return names;
}

struct LogCopy : SimObserver {
    std::vector<DecisionRecord> recs;
    void onDecision(const DecisionRecord& r) override { recs.push_back(r); }
};

std::string decisionText(const DecisionRecord& r)
{
    std::string s = std::to_string(r.index) + "@" + std::to_string(r.time) + " q" + std::to_string(r.queueLength) + ":";
    for (const ScoredJob& q : r.queue)
        s += " " + std::to_string(q.job) + "/" + std::to_string(q.priority);
    s += " |";
    for (const PlacementRecord& p : r.placements) {
        s += " " + std::to_string(p.job) + "->";
        for (const GpuSlot& g : p.slots)
            s += std::to_string(g.gpu) + "." + std::to_string(g.milli) + ",";
    }
    s += " | pre";
    for (int j : r.preempted)
        s += " " + std::to_string(j);
    return s;
}

void sameJobs(const std::vector<JobRecord>& a, const std::vector<JobRecord>& b, const std::string& what)
{
    QVERIFY2(a.size() == b.size(), what.c_str());
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string m = what + ": job " + std::to_string(a[i].id);
        QVERIFY2(a[i].id == b[i].id, m.c_str());
        QVERIFY2(a[i].start == b[i].start, (m + " start " + std::to_string(a[i].start) + " vs " + std::to_string(b[i].start)).c_str());
        QVERIFY2(a[i].end == b[i].end, (m + " end " + std::to_string(a[i].end) + " vs " + std::to_string(b[i].end)).c_str());
        QVERIFY2(a[i].fee == b[i].fee, (m + " fee").c_str());
        QVERIFY2(a[i].preemptions == b[i].preemptions, (m + " preemptions").c_str());
        QVERIFY2(a[i].machines == b[i].machines, (m + " machines").c_str());
        QVERIFY2(a[i].status == b[i].status, (m + " status").c_str());
    }
}

RunSpec spec(const std::string& policy, uint64_t seed = 7)
{
    RunSpec s;
    s.policy = policy;
    s.config.seed = seed;
    s.config.perf = PerfConfig::parse("default");
    s.config.perf.fluctuationSd = 0.05; // the perf model's random stream is part of what a snapshot keeps
    s.keepDecisionLog = true;
    return s;
}

// Every policy of the registry clones (Scheduler::clone); none is left to replay.
bool replaysOnly(const std::string&) { return false; }

using forkfix::Cli;
using forkfix::cli;

} // namespace

class TstSnapshot : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // every policy of the registry: snapshot at decision K, drop the simulator and its policy, restore, run on
    void everyPolicyRestoresExactly()
    {
        const ClusterSpec c = cluster();
        const Trace t = trace();
        std::vector<std::string> refused;
        int checked = 0;
        for (const std::string& p : everyPolicy()) {
            RunSpec s = spec(p);
            RunConfig cfg = s.config;
            cfg.recordDecisions = true;
            // the uninterrupted run
            auto pa = makeScheduler(p, s.options);
            Simulator a(c, t, *pa, cfg);
            MetricsCollector ma;
            LogCopy la;
            a.addObserver(&ma);
            a.addObserver(&la);
            a.run();
            const uint64_t total = a.decisions();
            QVERIFY2(total > 6, p.c_str());
            const uint64_t k = total / 2;
            // the same run, snapshotted at K
            std::shared_ptr<const SimSnapshot> snap;
            MetricsCollector mAtK;
            LogCopy lAtK;
            {
                auto pb = makeScheduler(p, s.options);
                Simulator b(c, t, *pb, cfg);
                b.addObserver(&mAtK);
                b.addObserver(&lAtK);
                while (b.decisions() < k)
                    QVERIFY(b.step());
                snap = b.snapshot();
            } // the simulator and its policy are gone: the snapshot holds its own copy
            if (!snap) {
                refused.push_back(p);
                continue;
            }
            QCOMPARE(snap->decisions(), k);
            for (int round = 0; round < 2; ++round) { // a snapshot restores any number of times
                std::unique_ptr<Simulator> r = Simulator::restore(*snap, cfg);
                MetricsCollector mr = mAtK;
                LogCopy lr = lAtK;
                r->addObserver(&mr);
                r->addObserver(&lr);
                while (r->step()) {
                }
                QVERIFY2(r->decisions() == total, (p + ": " + std::to_string(r->decisions()) + " decisions, not " + std::to_string(total)).c_str());
                QCOMPARE(r->eventsProcessed(), a.eventsProcessed());
                QCOMPARE(lr.recs.size(), la.recs.size());
                for (size_t i = 0; i < la.recs.size(); ++i)
                    QVERIFY2(decisionText(lr.recs[i]) == decisionText(la.recs[i]),
                             (p + ": decision " + std::to_string(i + 1) + "\n  " + decisionText(la.recs[i]) + "\n  "
                              + decisionText(lr.recs[i])).c_str());
                sameJobs(ma.jobs(), mr.jobs(), p);
                QCOMPARE(mr.summary().meanJctMin, ma.summary().meanJctMin);
            }
            ++checked;
        }
        for (const std::string& p : refused)
            QVERIFY2(replaysOnly(p), ("policy " + p + " does not clone").c_str());
        for (const std::string& p : everyPolicy())
            if (replaysOnly(p))
                QVERIFY2(std::find(refused.begin(), refused.end(), p) != refused.end(), p.c_str());
        QVERIFY(checked >= 30);
    }

    // a fork restored from a checkpoint equals the same fork replayed from decision 1, for every policy
    void forkFromCheckpointEqualsReplay()
    {
        auto c = std::make_shared<const ClusterSpec>(cluster());
        auto t = std::make_shared<const Trace>(engineTrace(trace()));
        int restored = 0, n = 0;
        for (const std::string& p : everyPolicy()) {
            const RunSpec s = spec(p);
            CheckpointSet set("", c, t);
            set.setInterval(7);
            const RunOutput parent = runWithCheckpoints(s, set, nullptr);
            QVERIFY(parent.log);
            const uint64_t k = std::max<uint64_t>(2, parent.summary.decisions * 2 / 3);
            ForkRequest req;
            req.atDecision = k;
            switch (n++ % 4) { // the changes that keep the parent's world
            case 0: break;
            case 1: req.change.policy = p == "sjf+bestfit" ? "fifo+firstfit" : "sjf+bestfit"; break;
            case 2: req.change.failMachines = {1}; break;
            case 3: req.change.drainMachines = {0, 2}; break;
            }
            ForkHow how;
            ForkHow replayHow;
            // every policy survives failed and drained machines (Gavel once placed on a failed machine's GPUs)
            RunOutput a, b;
            std::string errA, errB;
            try {
                b = runFork(*c, *t, s, req, nullptr, true, {}, nullptr, &replayHow);
            } catch (const PolicyError& e) {
                errB = e.what();
            }
            try {
                a = runFork(*c, *t, s, req, nullptr, true, {}, &set, &how);
            } catch (const PolicyError& e) {
                errA = e.what();
            }
            QCOMPARE(errA, errB);
            QVERIFY2(errA.empty(), (p + ": the fork failed: " + errA).c_str());
            QVERIFY(!replayHow.restored);
            QVERIFY2(how.restored == !replaysOnly(p), (p + ": " + how.why).c_str());
            if (how.restored) {
                ++restored;
                QVERIFY2(how.fromDecision >= 1 && how.fromDecision <= k - 1, p.c_str());
            }
            sameJobs(a.jobs, b.jobs, p + " fork " + a.forkChange);
            QCOMPARE(a.spec.id(), b.spec.id());
            QCOMPARE(a.summary.decisions, b.summary.decisions);
            QCOMPARE(a.log->records.size(), b.log->records.size());
            for (size_t i = 0; i < a.log->records.size(); ++i)
                QVERIFY2(decisionText(a.log->records[i]) == decisionText(b.log->records[i]), (p + " decision " + std::to_string(i + 1)).c_str());
            if (req.change.empty())
                sameJobs(a.jobs, parent.jobs, p + " no change");
        }
        QVERIFY(restored >= 30);
    }

    // checkpoints stay within their bound, spread over the run; a fork that replays refills them up to K
    void checkpointsBounded()
    {
        auto c = std::make_shared<const ClusterSpec>(cluster());
        auto t = std::make_shared<const Trace>(engineTrace(trace(200)));
        const RunSpec s = spec("fifo+firstfit");
        CheckpointSet set("", c, t);
        set.setInterval(5);
        set.setMaxCheckpoints(4);
        set.requestAt(33);
        const RunOutput parent = runWithCheckpoints(s, set, nullptr);
        QVERIFY(parent.summary.decisions > 100);
        QVERIFY(set.size() <= 4 && set.size() >= 2);
        QVERIFY(set.interval() >= 40); // doubled as it thinned
        QVERIFY(set.approxBytes() > 0);
        // the periodic ones sit just before decisions on the interval (a fork there restores with no step)
        const auto last = set.atOrBefore(parent.summary.decisions);
        QVERIFY(last);
        QVERIFY(last->decisions() == 33 || (last->decisions() + 1) % set.interval() == 0);
        auto at = set.atOrBefore(33);
        QVERIFY(at);
        QCOMPARE(at->decisions(), uint64_t(33)); // requested: kept through the thinning
        QVERIFY(!set.atOrBefore(0));
        // a fork with no checkpoint of its parent replays, and leaves checkpoints of the parent up to K
        CheckpointSet other("", c, t);
        ForkRequest req;
        req.atDecision = 60;
        ForkHow how;
        runFork(*c, *t, s, req, nullptr, false, {}, &other, &how);
        QVERIFY(!how.restored);
        QCOMPARE(other.path(), forkPathKey(s, {}));
        QVERIFY(other.size() >= 1);
        QCOMPARE(other.atOrBefore(59)->decisions(), uint64_t(59)); // the fork point itself is kept
        runFork(*c, *t, s, req, nullptr, false, {}, &other, &how);
        QVERIFY2(how.restored, how.why.c_str());
        // the log is needed to restore a fork that keeps one
        runFork(*c, *t, s, req, nullptr, true, {}, &other, &how);
        QVERIFY(!how.restored);
        QVERIFY(how.why.find("log") != std::string::npos);
        // a change that grows the world replays
        req.change.addMachines = 1;
        runFork(*c, *t, s, req, nullptr, false, {}, &set, &how);
        QVERIFY(!how.restored);
    }

    // forks of forks: a fork of a fork with no change is its parent fork; K before the parent's fork point fails
    void forkOfFork()
    {
        const ClusterSpec c = cluster();
        const Trace t = trace(120);
        for (const std::string& p : {std::string("fifo+firstfit"), std::string("las+bestfit"), std::string("srtf+firstfit")}) {
            const RunSpec s = spec(p);
            ForkRequest r1;
            r1.atDecision = 20;
            r1.change.policy = "sjf+consolidate";
            r1.change.failMachines = {3};
            const RunOutput f1 = runFork(c, t, s, r1, nullptr, true);
            ForkRequest r2;
            r2.chain = {{r1.atDecision, r1.change}};
            r2.parentId = f1.spec.id();
            for (uint64_t k2 : {uint64_t(20), uint64_t(45)}) {
                r2.atDecision = k2;
                const RunOutput f2 = runFork(c, t, s, r2, nullptr, true);
                sameJobs(f2.jobs, f1.jobs, p + " fork of fork at " + std::to_string(k2));
                QCOMPARE(f2.log->records.size(), f1.log->records.size());
                for (size_t i = 0; i < f1.log->records.size(); ++i)
                    QCOMPARE(decisionText(f2.log->records[i]), decisionText(f1.log->records[i]));
                QVERIFY(f2.spec.fork.find("parent=" + f1.spec.id()) == 0);
                QCOMPARE(f2.forkDecision, k2);
            }
            // with checkpoints of the parent fork (the studio keeps them): restored, the same
            auto cc = std::make_shared<const ClusterSpec>(c);
            auto tt = std::make_shared<const Trace>(engineTrace(t));
            CheckpointSet set("", cc, tt);
            set.setInterval(6);
            ForkRequest r3 = r2;
            r3.atDecision = 50;
            r3.change.drainMachines = {0};
            ForkHow how;
            const RunOutput replayed = runFork(c, t, s, r3, nullptr, false, {}, &set, &how); // fills the set
            QVERIFY(!how.restored);
            QCOMPARE(set.path(), forkPathKey(s, r2.chain));
            const RunOutput again = runFork(c, t, s, r3, nullptr, false, {}, &set, &how);
            QVERIFY2(how.restored == !replaysOnly(p), how.why.c_str());
            sameJobs(again.jobs, replayed.jobs, p + " fork of fork restored");
            // K before the parent's fork point
            r2.atDecision = 19;
            bool threw = false;
            try {
                runFork(c, t, s, r2, nullptr, false);
            } catch (const ForkError& e) {
                threw = true;
                QVERIFY2(std::string(e.what()).find("fork point") != std::string::npos, e.what());
            }
            QVERIFY(threw);
        }
    }

    // the CLI forks a stored fork: its changes are re-read from the store and chained
    void cliForkOfFork()
    {
        QTemporaryDir dir;
        const QString tracePath = dir.filePath("t.csv"), db = dir.filePath("r.sqlite");
        writeNativeTrace(trace(120), tracePath.toStdString());
        Cli r = cli({"run", "--trace", tracePath, "--cluster", "das-case", "--policy", "fifo+firstfit", "--db", db});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const ClusterSpec c = cluster();
        const QString m3 = QString::fromStdString(c.machines[3].name);
        r = cli({"fork", "--db", db, "--run", "1", "--at-decision", "15", "--policy", "sjf+bestfit", "--fail-machine", m3, "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["run_id"].toInt(), 2);
        // no change at a later decision: the fork of the fork is its parent job for job
        r = cli({"fork", "--db", db, "--run", "2", "--at-decision", "40", "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["run_id"].toInt(), 3);
        QCOMPARE(o["parent_run_id"].toInt(), 2);
        QCOMPARE(o["diff"].toObject()["moved"].toInt(), 0);
        QCOMPARE(o["diff"].toObject()["first_divergence"].toInt(), 0);
        // a change at a later decision
        r = cli({"fork", "--db", db, "--run", "2", "--at-decision", "40", "--drain-machine", "0", "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QVERIFY(o["diff"].toObject()["first_divergence"].toInt() == 0 || o["diff"].toObject()["first_divergence"].toInt() >= 40);
        {
            RunStore store(db.toStdString(), RunStore::Mode::Existing);
            const StoredRun f3 = store.loadRun(3, false);
            const StoredRun f2 = store.loadRun(2, false);
            QVERIFY(f3.out.spec.fork.find("parent=" + f2.out.spec.id()) == 0);
        }
        // before the parent's fork point: a clear error, nothing stored
        r = cli({"fork", "--db", db, "--run", "2", "--at-decision", "10", "--policy", "fifo+bestfit"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("fork point"), qPrintable(r.err));
        RunStore store(db.toStdString(), RunStore::Mode::Existing);
        QCOMPARE(store.runCount(), int64_t(4));
    }
};

QTEST_GUILESS_MAIN(TstSnapshot)
#include "tst_snapshot.moc"
