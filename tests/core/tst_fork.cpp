// What-if forks (run/fork.h): a fork with no change equals its parent job for job; a forced placement is
// applied at decision K and every decision before K agrees; another policy, failed or drained machines and
// a burst of arrivals from K on; machine events in the engine; the run diff; forks in the store.
#include <QtTest>

#include <QJsonDocument>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>

#include <fstream>
#include <map>
#include <set>

#include "io/ioerror.h"
#include "io/runio.h"
#include "forkfixture.h"
#include "io/traceio.h"
#include "model/tracegen.h"
#include "policy/registry.h"
#include "run/fork.h"
#include "run/forkdiff.h"
#include "store/runstore.h"

using namespace ss;

namespace {

ClusterSpec cluster() { return forkfix::dasCase(); }
Trace trace(int jobs = 240, uint64_t seed = 3) { return forkfix::contended(jobs, seed); }

RunSpec spec(const std::string& policy, uint64_t seed = 7) { return forkfix::runSpec(policy, seed); }

void sameJobs(const RunOutput& a, const RunOutput& b)
{
    QCOMPARE(a.jobs.size(), b.jobs.size());
    for (size_t i = 0; i < a.jobs.size(); ++i) {
        const JobRecord& x = a.jobs[i];
        const JobRecord& y = b.jobs[i];
        QCOMPARE(x.id, y.id);
        QCOMPARE(x.start, y.start); // exactly: a fork replays, it does not approximate
        QCOMPARE(x.end, y.end);
        QCOMPARE(x.fee, y.fee);
        QCOMPARE(x.preemptions, y.preemptions);
        QCOMPARE(int(x.status), int(y.status));
    }
}

// The state the fork hook sees at decision k (counted from 1): pending jobs and free GPUs per machine.
struct Probe {
    std::vector<int> pending;
    std::vector<int> freeGpus;
    double time = 0;
};
Probe probe(const ClusterSpec& c, const Trace& t, const RunSpec& s, uint64_t k)
{
    Probe p;
    auto pol = makeScheduler(s.policy, s.options);
    Simulator sim(c, t, *pol, s.config);
    sim.setDecisionHook(k - 1, [&](Simulator& sm, SchedContext& ctx) {
        p.pending = ctx.pendingJobs();
        for (int m = 0; m < c.machineCount(); ++m)
            p.freeGpus.push_back(sm.state().freeGpus(m));
        p.time = sm.now();
    });
    sim.run();
    return p;
}

using forkfix::Cli;
using forkfix::cli;

} // namespace

class TstFork : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void noChangeForkEqualsParent_data()
    {
        QTest::addColumn<QString>("policy");
        for (const char* p : {"fifo+firstfit", "sjf+bestfit", "gittins+firstfit", "las+consolidate", "srtf+random", "tetris", "gavel-las"})
            QTest::newRow(p) << QString(p);
    }
    void noChangeForkEqualsParent()
    {
        QFETCH(QString, policy);
        const ClusterSpec c = cluster();
        const Trace t = trace();
        const RunSpec s = spec(policy.toStdString());
        const RunOutput parent = runSimulation(c, t, s);
        QVERIFY(parent.summary.decisions > 50);
        for (uint64_t k : {uint64_t(1), parent.summary.decisions / 2, parent.summary.decisions}) {
            ForkRequest req;
            req.atDecision = k;
            const RunOutput fork = runFork(c, t, parent.spec, req, nullptr, true);
            sameJobs(parent, fork);
            QCOMPARE(fork.summary.meanJctMin, parent.summary.meanJctMin);
            QCOMPARE(fork.summary.decisions, parent.summary.decisions);
            QCOMPARE(firstDivergence(*parent.log, *fork.log), uint64_t(0));
            QCOMPARE(fork.forkDecision, k);
            QCOMPARE(QString::fromStdString(fork.forkChange), QString("no change"));
            QVERIFY(fork.spec.id() != parent.spec.id()); // a fork never shares its parent's identity
            const RunDiff d = diffRuns(parent, fork);
            QCOMPARE(d.moved, 0);
            QVERIFY(d.logsCompared);
            QCOMPARE(d.firstDivergence, uint64_t(0));
        }
    }

    // a learned policy (DAS on its shipped checkpoint) forks like any other: the replay restores its state
    void learnedPolicyForkEqualsParent()
    {
        const ClusterSpec c = cluster();
        const Trace t = trace(120);
        const RunSpec s = spec("das");
        RunOutput parent;
        try {
            parent = runSimulation(c, t, s);
        } catch (const std::exception& e) {
            QSKIP(qPrintable(QString("no DAS in this build: ") + e.what()));
        }
        ForkRequest req;
        req.atDecision = parent.summary.decisions / 2;
        const RunOutput fork = runFork(c, t, parent.spec, req, nullptr, true);
        sameJobs(parent, fork);
        QCOMPARE(firstDivergence(*parent.log, *fork.log), uint64_t(0));
    }

    void forcedPlacementAppliedAtK()
    {
        const ClusterSpec c = cluster();
        const Trace t = trace();
        const RunSpec s = spec("fifo+firstfit");
        const RunOutput parent = runSimulation(c, t, s);
        // the first decision (after 20) where a job arrives and the parent starts it: force it elsewhere
        uint64_t k = 0;
        int job = -1;
        std::vector<int> machines;
        for (size_t i = 20; i < parent.log->records.size() && job < 0; ++i) {
            const DecisionRecord& r = parent.log->records[i];
            for (const PlacementRecord& pl : r.placements) {
                if (pl.slots.empty())
                    continue;
                const Probe p = probe(c, t, s, i + 1);
                const int parentMachine = c.machineOfGpu(pl.slots[0].gpu);
                const int need = t.jobs[size_t(pl.job)].wholeGpus();
                for (int m = c.machineCount() - 1; m >= 0; --m)
                    if (m != parentMachine && p.freeGpus[size_t(m)] >= need) {
                        job = pl.job;
                        k = i + 1;
                        machines = {m};
                        break;
                    }
                if (job >= 0)
                    break;
            }
        }
        QVERIFY2(job >= 0, "the trace gives no decision with a free other machine");
        ForkRequest req;
        req.atDecision = k;
        req.change.placeJob = job;
        req.change.placeMachines = machines;
        const RunOutput fork = runFork(c, t, parent.spec, req, nullptr, true);
        // every decision before K agrees; K itself differs
        QCOMPARE(firstDivergence(*parent.log, *fork.log), k);
        const DecisionRecord& rk = fork.log->records[size_t(k - 1)];
        bool placed = false;
        for (const PlacementRecord& pl : rk.placements)
            if (pl.job == job) {
                placed = true;
                QCOMPARE(QString::fromStdString(pl.reason), QString("forced by what-if fork"));
                for (const GpuSlot& g : pl.slots)
                    QCOMPARE(c.machineOfGpu(g.gpu), machines[0]);
            }
        QVERIFY(placed);
        QCOMPARE(fork.jobs[size_t(job)].start, rk.time);
        QVERIFY(fork.forkChange.find("place job " + std::to_string(t.jobs[size_t(job)].id)) != std::string::npos);
        const RunDiff d = diffRuns(parent, fork);
        QCOMPARE(d.firstDivergence, k);
        QVERIFY(d.moved >= 0);
    }

    void forcedPlacementThatDoesNotFit()
    {
        const ClusterSpec c = cluster();
        const Trace t = trace();
        const RunSpec s = spec("fifo+firstfit");
        const RunOutput parent = runSimulation(c, t, s);
        // a decision with a pending job and a machine with fewer free GPUs than it needs
        for (uint64_t k = 5; k < parent.summary.decisions; ++k) {
            const Probe p = probe(c, t, s, k);
            for (int j : p.pending)
                for (int m = 0; m < c.machineCount(); ++m)
                    if (p.freeGpus[size_t(m)] < t.jobs[size_t(j)].wholeGpus()) {
                        ForkRequest req;
                        req.atDecision = k;
                        req.change.placeJob = j;
                        req.change.placeMachines = {m};
                        try {
                            runFork(c, t, parent.spec, req);
                            QFAIL("a placement that does not fit was accepted");
                        } catch (const ForkError& e) {
                            const QString msg = e.what();
                            QVERIFY2(msg.contains("does not fit"), e.what());
                            QVERIFY2(msg.contains("decision " + QString::number(k)), e.what());
                            QVERIFY2(msg.contains(QString::fromStdString(c.machines[size_t(m)].name)), e.what());
                        }
                        return;
                    }
        }
        QFAIL("no decision with a job that does not fit somewhere");
    }

    void badRequests()
    {
        const ClusterSpec c = cluster();
        const Trace t = trace(60);
        const RunSpec s = spec("fifo+firstfit");
        const RunOutput parent = runSimulation(c, t, s);
        ForkRequest past;
        past.atDecision = parent.summary.decisions + 5;
        QVERIFY_THROWS_EXCEPTION(ForkError, runFork(c, t, parent.spec, past));
        ForkRequest noMachine;
        noMachine.atDecision = 2;
        noMachine.change.failMachines = {99};
        QVERIFY_THROWS_EXCEPTION(ForkError, runFork(c, t, parent.spec, noMachine));
        ForkRequest badPolicy;
        badPolicy.atDecision = 2;
        badPolicy.change.policy = "no-such-policy";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runFork(c, t, parent.spec, badPolicy));
    }

    void otherPolicyFromK()
    {
        const ClusterSpec c = cluster();
        const Trace t = trace();
        const RunSpec s = spec("fifo+firstfit");
        const RunOutput parent = runSimulation(c, t, s);
        const RunOutput whole = runSimulation(c, t, spec("sjf+bestfit"));
        ForkRequest req;
        req.atDecision = parent.summary.decisions / 3;
        req.change.policy = "sjf+bestfit";
        const RunOutput fork = runFork(c, t, parent.spec, req, nullptr, true);
        const uint64_t div = firstDivergence(*parent.log, *fork.log);
        QVERIFY2(div == 0 || div >= req.atDecision, "a decision before K changed");
        QVERIFY(div > 0); // SJF reorders a queue FIFO would not
        QCOMPARE(QString::fromStdString(fork.policy), QString::fromStdString(whole.policy));
        QCOMPARE(fork.summary.finished, parent.summary.finished);
        QVERIFY(fork.summary.meanJctMin != parent.summary.meanJctMin);
    }

    void failedMachineRequeuesItsJobs()
    {
        const ClusterSpec c = cluster();
        const Trace t = trace();
        const RunSpec s = spec("fifo+firstfit");
        const RunOutput parent = runSimulation(c, t, s);
        const uint64_t k = parent.summary.decisions / 2;
        const Probe p = probe(c, t, s, k);
        int busy = -1;
        for (int m = 0; m < c.machineCount() && busy < 0; ++m)
            if (p.freeGpus[size_t(m)] < c.machines[size_t(m)].gpus)
                busy = m;
        QVERIFY(busy >= 0);
        ForkRequest req;
        req.atDecision = k;
        req.change.failMachines = {busy};
        const RunOutput fork = runFork(c, t, parent.spec, req, nullptr, true);
        const double requeued = fork.summary.policyStat("failure_requeues");
        QVERIFY(requeued >= 1);
        QVERIFY(std::isnan(parent.summary.policyStat("failure_requeues")));
        QCOMPARE(fork.summary.finished, parent.summary.finished); // the rest of the cluster runs everything
        QCOMPARE(fork.summary.preemptions, parent.summary.preemptions + int(requeued));
        // nothing runs on the failed machine from K on
        for (size_t i = k - 1; i < fork.log->records.size(); ++i)
            for (const PlacementRecord& pl : fork.log->records[i].placements)
                for (const GpuSlot& g : pl.slots)
                    QVERIFY(c.machineOfGpu(g.gpu) != busy);
        QVERIFY(firstDivergence(*parent.log, *fork.log) >= k);
    }

    void addedMachinesFromK()
    {
        const ClusterSpec c = cluster();
        const Trace t = trace();
        const RunSpec s = spec("fifo+firstfit");
        const RunOutput parent = runSimulation(c, t, s);
        const uint64_t k = parent.summary.decisions / 3;
        ForkRequest req;
        req.atDecision = k;
        req.change.addMachines = 2;
        req.change.addLike = 1;
        const RunOutput fork = runFork(c, t, parent.spec, req, nullptr, true);
        QCOMPARE(fork.log->machineCount, c.machineCount() + 2);
        QVERIFY(fork.clusterFingerprint != parent.clusterFingerprint);
        QCOMPARE(firstDivergence(*parent.log, *fork.log) >= k || firstDivergence(*parent.log, *fork.log) == 0, true);
        const int firstNewGpu = c.totalGpus();
        int onNew = 0;
        for (size_t i = 0; i < fork.log->records.size(); ++i)
            for (const PlacementRecord& pl : fork.log->records[i].placements)
                for (const GpuSlot& g : pl.slots)
                    if (g.gpu >= firstNewGpu) {
                        QVERIFY2(i + 1 >= k, "an added machine was used before the fork point");
                        ++onNew;
                    }
        QVERIFY(onNew > 0); // the queue is long at load 1.3: the new machines take jobs
        QVERIFY(fork.summary.meanJctMin < parent.summary.meanJctMin);
        QVERIFY(fork.forkChange.find("add 2 machine(s) like " + c.machines[1].name) != std::string::npos);
    }

    void drainAndRestoreEvents()
    {
        const ClusterSpec c = cluster();
        const Trace t = trace(160);
        RunSpec s = spec("fifo+firstfit");
        s.config.checkInvariants = true;
        const RunOutput parent = runSimulation(c, t, s);
        const double t0 = parent.summary.makespanH * 3600 * 0.25, t1 = parent.summary.makespanH * 3600 * 0.5;
        std::vector<std::pair<double, int>> startsOn0; // (time, job) started on machine 0
        bool ranThrough = false;
        RunOutput out = runSimulation(c, t, s, {}, nullptr, {}, [&](Simulator& sim) {
            sim.addMachineEvent({t0, 0, MachineEventKind::Drain});
            sim.addMachineEvent({t1, 0, MachineEventKind::Restore});
            ranThrough = true;
        });
        QVERIFY(ranThrough);
        QCOMPARE(out.summary.finished, parent.summary.finished);
        QVERIFY(std::isnan(out.summary.policyStat("failure_requeues"))); // a drain requeues nobody
        int startedInDrain = 0, startedAfter = 0;
        for (const DecisionRecord& r : out.log->records)
            for (const PlacementRecord& pl : r.placements)
                for (const GpuSlot& g : pl.slots)
                    if (c.machineOfGpu(g.gpu) == 0) {
                        if (r.time >= t0 && r.time < t1)
                            ++startedInDrain;
                        else if (r.time >= t1)
                            ++startedAfter;
                    }
        QCOMPARE(startedInDrain, 0);
        QVERIFY(startedAfter > 0); // restored: it takes jobs again
    }

    void failEventRequeuesAndCounts()
    {
        const ClusterSpec c = cluster();
        const Trace t = trace(160);
        RunSpec s = spec("fifo+firstfit");
        s.config.checkInvariants = true;
        const RunOutput parent = runSimulation(c, t, s);
        const double t0 = parent.summary.makespanH * 3600 * 0.3;
        const RunOutput out = runSimulation(c, t, s, {}, nullptr, {}, [&](Simulator& sim) {
            for (int m = 0; m < 4; ++m)
                sim.addMachineEvent({t0, m, MachineEventKind::Fail}); // half the cluster, never restored
        });
        QVERIFY(out.summary.policyStat("failure_requeues") >= 1);
        QCOMPARE(out.summary.finished + out.summary.unfinished + out.summary.rejected, out.summary.jobs);
        for (const DecisionRecord& r : out.log->records)
            if (r.time > t0)
                for (const PlacementRecord& pl : r.placements)
                    for (const GpuSlot& g : pl.slots)
                        QVERIFY(c.machineOfGpu(g.gpu) >= 4);
        QVERIFY(out.summary.makespanH > parent.summary.makespanH);
    }

    void burstFromK()
    {
        const ClusterSpec c = cluster();
        const Trace t = trace();
        const RunSpec s = spec("fifo+firstfit");
        const RunOutput parent = runSimulation(c, t, s);
        const uint64_t k = parent.summary.decisions / 2;
        const double tk = parent.log->records[size_t(k - 1)].time;
        QCOMPARE(decisionTime(c, t, s, k), tk);
        ForkRequest req;
        req.atDecision = k;
        req.change.burst = trace(30, 99);
        const RunOutput fork = runFork(c, t, parent.spec, req, nullptr, true);
        QCOMPARE(fork.jobs.size(), t.jobs.size() + 30);
        QVERIFY(firstDivergence(*parent.log, *fork.log) >= k);
        int64_t maxId = 0;
        for (const Job& j : t.jobs)
            maxId = std::max(maxId, j.id);
        int burst = 0;
        for (const JobRecord& r : fork.jobs)
            if (r.id > maxId) {
                ++burst;
                QVERIFY(r.submit >= tk);
            }
        QCOMPARE(burst, 30);
        const RunDiff d = diffRuns(parent, fork);
        QCOMPARE(d.onlyB, 30);
        QCOMPARE(d.onlyA, 0);
    }

    void reorderedQueue()
    {
        const ClusterSpec c = cluster();
        const Trace t = trace();
        const RunSpec s = spec("fifo+firstfit");
        const RunOutput parent = runSimulation(c, t, s);
        // a decision with at least two pending jobs: put the last one first
        for (uint64_t k = 10; k < parent.summary.decisions; ++k) {
            const Probe p = probe(c, t, s, k);
            if (p.pending.size() < 3)
                continue;
            ForkRequest req;
            req.atDecision = k;
            req.change.queueFront = {p.pending.back()};
            // the engine's queue: the job moves to the head, the others keep their order
            auto pol = makeScheduler(s.policy, s.options);
            Simulator sim(c, t, *pol, s.config);
            bool checked = false;
            sim.setDecisionHook(k - 1, [&](Simulator& sm, SchedContext& ctx) {
                const std::vector<int> before = ctx.pendingJobs();
                sm.movePendingToFront({before.back()});
                std::vector<int> expect{before.back()};
                expect.insert(expect.end(), before.begin(), before.end() - 1);
                QCOMPARE(ctx.pendingJobs(), expect);
                QCOMPARE(ctx.pendingCount(), int(before.size()));
                QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sm.movePendingToFront({ctx.jobCount() + 3}));
                checked = true;
            });
            sim.run();
            QVERIFY(checked);
            // fifo keeps its own order (by arrival), so the fork may equal its parent; never before K
            const RunOutput fork = runFork(c, t, parent.spec, req, nullptr, true);
            std::string what;
            const uint64_t div = firstDivergence(*parent.log, *fork.log, nullptr, &what);
            QVERIFY2(div == 0 || div >= k, (std::to_string(div) + " < " + std::to_string(k) + ": " + what).c_str());
            QCOMPARE(fork.summary.finished, parent.summary.finished);
            return;
        }
        QFAIL("no decision with a queue of three");
    }

    void storedWithParent()
    {
        QTemporaryDir dir;
        const std::string db = dir.filePath("runs.sqlite").toStdString();
        const ClusterSpec c = cluster();
        const Trace t = trace(80);
        const RunOutput parent = runSimulation(c, t, spec("fifo+firstfit"));
        RunStore store(db);
        QCOMPARE(store.schemaVersion(), 4);
        const int64_t pid = store.saveRun("e", parent);
        ForkRequest req;
        req.atDecision = 3;
        req.parentRunId = pid;
        req.change.policy = "sjf+bestfit";
        const RunOutput fork = runFork(c, t, parent.spec, req, nullptr, true);
        const int64_t fid = store.saveRun("e", fork);
        QVERIFY(fid != pid);
        const StoredRun back = store.loadRun(fid);
        QCOMPARE(back.info.parentRunId, pid);
        QCOMPARE(back.info.forkDecision, uint64_t(3));
        QCOMPARE(QString::fromStdString(back.info.forkChange), QString("policy sjf+bestfit"));
        QCOMPARE(QString::fromStdString(back.out.spec.fork), QString::fromStdString(fork.spec.fork));
        QCOMPARE(QString::fromStdString(back.out.spec.id()), QString::fromStdString(fork.spec.id()));
        const StoredRun p = store.loadRun(pid);
        QCOMPARE(p.info.parentRunId, int64_t(0));
        QCOMPARE(p.info.forkDecision, uint64_t(0));
        QVERIFY(p.out.spec.fork.empty());
    }

    void cliForkAndDiff()
    {
        QTemporaryDir dir;
        const QString tracePath = dir.filePath("t.csv"), db = dir.filePath("r.sqlite");
        writeNativeTrace(trace(120), tracePath.toStdString());
        Cli r = cli({"run", "--trace", tracePath, "--cluster", "das-case", "--policy", "fifo+firstfit", "--db", db});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const ClusterSpec c = cluster();
        const Trace t = readTrace(tracePath.toStdString());
        RunSpec parentSpec;
        {
            RunStore store(db.toStdString(), RunStore::Mode::Existing);
            parentSpec = store.loadRun(1, false).out.spec;
        }
        // a decision with a pending job and a machine too small for it
        uint64_t k = 0;
        int job = -1, machine = -1;
        for (uint64_t d = 3; d < 200 && job < 0; ++d) {
            const Probe p = probe(c, t, parentSpec, d);
            for (int j : p.pending)
                for (int m = 0; m < c.machineCount() && job < 0; ++m)
                    if (p.freeGpus[size_t(m)] < t.jobs[size_t(j)].wholeGpus()) {
                        k = d;
                        job = j;
                        machine = m;
                    }
        }
        QVERIFY(job >= 0);
        const QString place = QString::number(t.jobs[size_t(job)].id) + ":" + QString::fromStdString(c.machines[size_t(machine)].name);
        r = cli({"fork", "--db", db, "--run", "1", "--at-decision", QString::number(k), "--place", place});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("does not fit") && r.err.contains("decision " + QString::number(k)), qPrintable(r.err));
        QCOMPARE(r.err.count('\n'), 1); // one line
        {
            RunStore store(db.toStdString(), RunStore::Mode::Existing);
            QCOMPARE(store.runCount(), int64_t(1)); // nothing stored, the parent as it was
        }
        r = cli({"fork", "--db", db, "--run", "1", "--at-decision", QString::number(k), "--policy", "sjf+bestfit", "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["run_id"].toInt(), 2);
        QCOMPARE(o["parent_run_id"].toInt(), 1);
        QCOMPARE(o["change"].toString(), QString("policy sjf+bestfit"));
        const QJsonObject d = o["diff"].toObject();
        QVERIFY(d["logs_compared"].toBool());
        QVERIFY(d["first_divergence"].toInt() == 0 || d["first_divergence"].toInt() >= int(k));
        r = cli({"diff", "--db", db, "--run", "1", "--run", "2", "--json", "--all"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject d2 = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(d2["jobs"].toArray().size(), 120);
        QCOMPARE(d2["first_divergence"].toInt(), d["first_divergence"].toInt());
        r = cli({"show", "2", "--db", db});
        QVERIFY2(r.out.contains("fork of run 1 at decision " + QString::number(k) + ": policy sjf+bestfit"), qPrintable(r.out));
        r = cli({"diff", "--db", db, "--run", "1"});
        QCOMPARE(r.code, 2);
    }

    // machine events in a scenario file: read, written back, planned into every run's spec (identity), run
    void scenarioEvents()
    {
        QTemporaryDir dir;
        writeNativeTrace(trace(100), dir.filePath("t.csv").toStdString());
        const ClusterSpec c = cluster();
        const std::string m1 = c.machines[1].name;
        const std::string text = "{\"format\": \"schedstudio-scenario\", \"version\": 1, \"name\": \"ev\",\n"
                                 " \"trace\": {\"path\": \"t.csv\"}, \"cluster\": \"das-case\", \"policies\": [\"fifo+firstfit\"],\n"
                                 " \"events\": [{\"time\": 20000, \"machine\": \"" + m1 + "\", \"kind\": \"fail\"},\n"
                                 "            {\"time\": 90000, \"machine\": 1, \"kind\": \"restore\"}]}";
        const Scenario sc = scenarioFromJson(text, dir.path().toStdString(), "ev.scenario.json");
        QCOMPARE(int(sc.events.size()), 2);
        QCOMPARE(sc.events[1].machine, std::string("1"));
        QCOMPARE(sc.events[1].kind, std::string("restore"));
        const Scenario back = scenarioFromJson(writeJson(scenarioToJson(sc, dir.path().toStdString())), dir.path().toStdString(), "x");
        QCOMPARE(int(back.events.size()), 2);
        QCOMPARE(back.events[0].time, 20000.0);
        const ExperimentPlan plan = planScenario(sc);
        const RunSpec& spec = plan.runs.at(0).spec;
        QCOMPARE(int(spec.machineEvents.size()), 2);
        QCOMPARE(int(spec.machineEvents[0].kind), int(MachineEventKind::Fail));
        RunSpec noEvents = spec;
        noEvents.machineEvents.clear();
        QVERIFY(noEvents.id() != spec.id()); // events decide results: part of the identity
        const RunSpec read = runSpecFromJson(runConfigJson(spec), "config");
        QVERIFY(read.machineEvents == spec.machineEvents);
        QCOMPARE(QString::fromStdString(read.id()), QString::fromStdString(spec.id()));
        const RunOutput out = runSimulation(*plan.inputs[0].cluster, *plan.inputs[0].trace, spec);
        const RunOutput plain = runSimulation(*plan.inputs[0].cluster, *plan.inputs[0].trace, noEvents);
        QVERIFY(out.summary.meanJctMin != plain.summary.meanJctMin);
        // bad events name the file and the field
        auto bad = [&](const std::string& events, const char* field) {
            const std::string t2 = "{\"format\": \"schedstudio-scenario\", \"version\": 1,\n \"events\": " + events + "}";
            try {
                scenarioFromJson(t2, dir.path().toStdString(), "bad.scenario.json");
                QFAIL("accepted");
            } catch (const IoError& e) {
                QCOMPARE(e.file(), std::string("bad.scenario.json"));
                QCOMPARE(e.line(), 2L);
                QCOMPARE(e.field(), std::string(field));
            }
        };
        bad("[{\"time\": 5, \"machine\": \"m0\", \"kind\": \"explode\"}]", "events[0].kind");
        bad("[{\"time\": -5, \"machine\": \"m0\", \"kind\": \"fail\"}]", "events[0].time");
        bad("[{\"time\": 5, \"kind\": \"fail\"}]", "events[0].machine");
        Scenario unknown = sc;
        unknown.events[0].machine = "nosuch";
        try {
            planScenario(unknown);
            QFAIL("accepted an unknown machine");
        } catch (const IoError& e) {
            QCOMPARE(e.field(), std::string("events[0].machine"));
            QVERIFY(QString(e.what()).contains("nosuch"));
        }
    }
    // --start-at T on an openb pod list: running pods on their nodes finish at T + what was left, the queued
    // one waits for GPUs, ended and skipped pods are absent, later ones arrive as usual
};

QTEST_GUILESS_MAIN(TstFork)
#include "tst_fork.moc"
