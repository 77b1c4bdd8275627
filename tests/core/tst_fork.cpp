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
#include "io/startstateio.h"
#include "io/runio.h"
#include "forkfixture.h"
#include "io/traceio.h"
#include "model/tracegen.h"
#include "policy/registry.h"
#include "run/fork.h"
#include "run/forkdiff.h"
#include "run/forkstart.h"
#include "store/runstore.h"

using namespace ss;

namespace {

ClusterSpec cluster() { return forkfix::dasCase(); }
Trace trace(int jobs = 240, uint64_t seed = 3) { return forkfix::contended(jobs, seed); }

RunSpec spec(const std::string& policy, uint64_t seed = 7)
{
    RunSpec s;
    s.policy = policy;
    s.config.seed = seed;
    s.config.perf = PerfConfig::parse("default");
    s.keepDecisionLog = true;
    return s;
}

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

// A hand-made openb pod list (the published header plus node_name, as a pod list exported with its pods'
// nodes has) and its two 4-GPU nodes; at t=1000: pods 2, 3 and 7 run, 4 is queued, 1 has ended, 5 arrives
// later, 6 never ran (Pending: the reader skips it).
const char* kOpenbPods =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time,node_name\n"
    "openb-pod-0001,4000,8192,1,1000,,LS,Succeeded,0,800,100,openb-node-0000\n"
    "openb-pod-0002,8000,16384,4,1000,,LS,Running,50,1600,200,openb-node-0001\n"
    "openb-pod-0003,2000,4096,1,500,,BE,Running,300,3000,900,openb-node-0000\n"
    "openb-pod-0004,8000,16384,4,1000,,LS,Running,700,2500,1500,openb-node-0001\n"
    "openb-pod-0005,2000,4096,1,1000,,BE,Succeeded,1200,1400,1300,openb-node-0000\n"
    "openb-pod-0006,2000,4096,1,1000,,BE,Pending,500,12902960,,\n"
    "openb-pod-0007,2000,4096,1,1000,,LS,Running,1000,1100,1000,openb-node-0000\n";
const char* kOpenbNodes = "sn,cpu_milli,memory_mib,gpu,model\n"
                          "openb-node-0000,64000,262144,4,V100M16\n"
                          "openb-node-0001,64000,262144,4,V100M16\n";

std::string writeText(const QTemporaryDir& dir, const char* name, const std::string& text)
{
    const std::string p = dir.filePath(QString::fromLatin1(name)).toStdString();
    std::ofstream(p) << text;
    return p;
}

const JobRecord* recordOf(const RunOutput& out, int64_t id)
{
    for (const JobRecord& r : out.jobs)
        if (r.id == id)
            return &r;
    return nullptr;
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

    void startStateJobsKeepTheirMachines()
    {
        const ClusterSpec c = cluster();
        const std::string m2 = c.machines[2].name, m5 = c.machines[5].name, m6 = c.machines[6].name;
        const std::string csv = "# schedstudio start state\n# time=1000\njob_id,state,gpus,work,machines,model\n"
                                "9001,running,4,500," + m2 + ",resnet50\n"
                                "9002,running,2,1200," + m5 + ";" + m6 + ",\n"
                                "9003,queued,1,300,,\n";
        const StartState st = startStateFromText(csv, "state.csv", c);
        QCOMPARE(st.time, 1000.0);
        QCOMPARE(int(st.jobs.size()), 3);
        Trace t = trace(60);
        RunSpec s = spec("fifo+firstfit");
        s.config.perf = PerfConfig::parse("ideal"); // reference speed: work left = wall seconds left
        int dropped = -1;
        const Trace merged = traceWithStartState(t, st, &dropped);
        int before = 0;
        for (const Job& j : t.jobs)
            before += j.submit < 1000 ? 1 : 0;
        QCOMPARE(dropped, before);
        QCOMPARE(merged.jobs.size(), t.jobs.size() - size_t(before) + 3);
        const RunOutput out = runFromStartState(c, t, st, s);
        QCOMPARE(out.jobs[0].id, int64_t(9001));
        QCOMPARE(out.jobs[0].start, 1000.0);
        QCOMPARE(out.jobs[0].end, 1500.0); // start + remaining
        QCOMPARE(out.jobs[1].start, 1000.0);
        QCOMPARE(out.jobs[1].end, 2200.0);
        QCOMPARE(out.jobs[1].machines, 1); // both GPUs fit on m5, the first machine listed
        QCOMPARE(out.jobs[2].start, 1000.0); // queued, and the cluster has room
        QVERIFY(out.spec.fork.rfind("start-state=", 0) == 0);
        // the log: decision 1 starts them on their machines
        RunSpec logged = s;
        logged.keepDecisionLog = true;
        const RunOutput withLog = runFromStartState(c, t, st, logged);
        const DecisionRecord& r0 = withLog.log->records.at(0);
        QCOMPARE(r0.time, 1000.0);
        int seen = 0;
        for (const PlacementRecord& pl : r0.placements) {
            if (pl.job == 0) {
                ++seen;
                for (const GpuSlot& g : pl.slots)
                    QCOMPARE(c.machineOfGpu(g.gpu), 2);
            }
            if (pl.job == 1) {
                ++seen;
                for (const GpuSlot& g : pl.slots)
                    QCOMPARE(c.machineOfGpu(g.gpu), 5);
            }
        }
        QCOMPARE(seen, 2);
    }

    void startStateBadInput_data()
    {
        QTest::addColumn<QString>("rows");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("says");
        QTest::newRow("unknown machine") << "1,running,2,10,nosuch" << 2 << "machines" << "no machine 'nosuch'";
        QTest::newRow("more GPUs than the machine") << "1,running,8,10,M0" << 2 << "gpus" << "uses 8 GPUs, its machines have 4";
        QTest::newRow("over-booked") << "1,running,4,10,M0\n2,running,2,10,M0" << 3 << "machines" << "leave only 0 free";
        QTest::newRow("bad state") << "1,sleeping,1,10," << 2 << "state" << "expected running or queued";
        QTest::newRow("no work") << "1,queued,1,0," << 2 << "work" << "work left";
        QTest::newRow("queued on a machine") << "1,queued,1,10,M0" << 2 << "machines" << "runs on no machine";
        QTest::newRow("twice") << "1,queued,1,10,\n1,queued,1,10," << 3 << "job_id" << "listed twice";
        QTest::newRow("not a number") << "x,queued,1,10," << 2 << "job_id" << "";
    }
    void startStateBadInput()
    {
        QFETCH(QString, rows);
        QFETCH(int, line);
        QFETCH(QString, field);
        QFETCH(QString, says);
        const ClusterSpec c = cluster();
        const std::string text = "job_id,state,gpus,work,machines\n"
                                 + rows.replace("M0", QString::fromStdString(c.machines[0].name)).toStdString() + "\n";
        try {
            startStateFromText(text, "bad-state.csv", c);
            QFAIL("accepted");
        } catch (const IoError& e) {
            QCOMPARE(e.file(), std::string("bad-state.csv"));
            QCOMPARE(int(e.line()), line);
            QCOMPARE(QString::fromStdString(e.field()), field);
            QVERIFY2(QString(e.what()).contains(says), e.what());
        }
    }

    void startStateJson()
    {
        const ClusterSpec c = cluster();
        const std::string json = "{\"format\": \"schedstudio-start-state\", \"version\": 1, \"time\": 50,\n"
                                 " \"jobs\": [{\"id\": 7, \"state\": \"running\", \"gpus\": 1, \"work\": 25, \"machines\": [\""
                                 + c.machines[3].name + "\"]},\n"
                                 "          {\"id\": 8, \"state\": \"running\", \"gpus\": 1, \"work\": 5, \"machines\": [\"zz\"]}]}";
        try {
            startStateFromText(json, "s.json", c);
            QFAIL("accepted an unknown machine");
        } catch (const IoError& e) {
            QCOMPARE(int(e.line()), 3);
            QCOMPARE(e.field(), std::string("machines"));
        }
        std::string ok = json.substr(0, json.find(",\n          {")) + "]}";
        const StartState st = startStateFromText(ok, "s.json", c);
        QCOMPARE(st.time, 50.0);
        QCOMPARE(st.jobs.at(0).machines, std::vector<int>{3});
        QVERIFY(st.jobs.at(0).running);
    }

    // fork, diff and show end to end; a placement that does not fit is an error and the store is untouched
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
    void startAtFromOpenbTrace()
    {
        QTemporaryDir dir;
        const std::string pods = writeText(dir, "pods.csv", kOpenbPods);
        ClusterSpec c = readCluster(writeText(dir, "nodes.csv", kOpenbNodes));
        c.finalize();
        const Trace t = readTrace(pods);
        const StartState st = startStateAt(t, c, 1000, pods);
        QCOMPARE(st.time, 1000.0);
        QCOMPARE(st.source, pods);
        std::vector<int64_t> running, queued;
        for (const StartStateJob& j : st.jobs)
            (j.running ? running : queued).push_back(j.id);
        QCOMPARE(running, (std::vector<int64_t>{2, 3, 7})); // in the order they started
        QCOMPARE(queued, std::vector<int64_t>{4});
        QCOMPARE(st.jobs[0].machines, std::vector<int>{1});
        QCOMPARE(st.jobs[0].work, 600.0);                 // deleted at 1600
        QCOMPARE(st.jobs[1].machines, std::vector<int>{0});
        QCOMPARE(st.jobs[1].gpus, 0.5);
        QCOMPARE(st.jobs[2].work, 100.0);                 // scheduled exactly at T: running
        QCOMPARE(st.jobs[3].work, 1000.0);                // queued: all its work

        RunSpec s = spec("fifo+firstfit");
        s.config.perf = PerfConfig::parse("ideal");
        const RunOutput out = runFromStartState(c, t, st, s);
        QCOMPARE(out.jobs.size(), size_t(5)); // 2, 3, 7, 4 from the state; 5 from the trace
        QVERIFY(!recordOf(out, 1));           // ended before T
        QVERIFY(!recordOf(out, 6));           // never scheduled
        for (auto [id, end] : {std::pair<int64_t, double>{2, 1600}, {3, 3000}, {7, 1100}}) {
            const JobRecord* r = recordOf(out, id);
            QVERIFY(r);
            QCOMPARE(r->start, 1000.0);
            QCOMPARE(r->end, end); // T + remaining
        }
        const JobRecord* q = recordOf(out, 4);
        QCOMPARE(q->submit, 1000.0);
        QCOMPARE(q->start, 1600.0); // 4 GPUs: node 1 frees at 1600 (node 0 holds pod 3's share)
        QCOMPARE(q->end, 2600.0);
        QCOMPARE(recordOf(out, 5)->start, 1200.0); // arrives at its own time, backfilled on node 0
        QVERIFY(out.spec.fork.rfind("start-state=", 0) == 0);
        // decision 1 puts the running pods on the nodes the trace names
        RunSpec logged = s;
        logged.keepDecisionLog = true;
        const RunOutput withLog = runFromStartState(c, t, st, logged);
        const DecisionRecord& r0 = withLog.log->records.at(0);
        QCOMPARE(r0.time, 1000.0);
        std::map<int, std::set<int>> on;
        for (const PlacementRecord& pl : r0.placements)
            for (const GpuSlot& g : pl.slots)
                on[pl.job].insert(c.machineOfGpu(g.gpu));
        QCOMPARE(on[0], std::set<int>{1});
        QCOMPARE(on[1], std::set<int>{0});
        QCOMPARE(on[2], std::set<int>{0});
        QVERIFY(!on.count(3)); // the queued pod does not fit at T

        // the same through the CLI, and a list without node names: placed first-fit, same times
        const Cli r = cli({"run", "--trace", QString::fromStdString(pods), "--cluster", dir.filePath("nodes.csv"),
                           "--policy", "fifo+firstfit", "--perf", "ideal", "--start-at", "1000", "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("3 running, 1 queued"), qPrintable(r.err));
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object().value("jobs").toInt(), 5);
        std::string noNodes = kOpenbPods;
        for (size_t p; (p = noNodes.find(",openb-node-")) != std::string::npos;)
            noNodes.erase(p, 16);
        noNodes.replace(noNodes.find(",node_name"), 10, "");
        noNodes.replace(noNodes.find("12902960,,\n"), 11, "12902960,\n");
        const Trace bare = readTrace(writeText(dir, "bare.csv", noNodes));
        QVERIFY(bare.machineSets.empty());
        const StartState st2 = startStateAt(bare, c, 1000, "bare.csv");
        QCOMPARE(st2.jobs.size(), size_t(4));
        QVERIFY(st2.jobs[0].machines.empty());
        const RunOutput out2 = runFromStartState(c, bare, st2, s);
        for (auto [id, end] : {std::pair<int64_t, double>{2, 1600}, {3, 3000}, {7, 1100}})
            QCOMPARE(recordOf(out2, id)->end, end);
        QCOMPARE(recordOf(out2, 4)->start, 1600.0);
    }

    // pods without a node: placed first-fit in start order, a 6-GPU pod over both 4-GPU nodes, then a 2-GPU
    // pod in what is left
    void startAtFirstFitSpans()
    {
        QTemporaryDir dir;
        ClusterSpec c = readCluster(writeText(dir, "nodes.csv", kOpenbNodes));
        c.finalize();
        const Trace t = readTrace(writeText(
            dir, "big.csv",
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
            "openb-pod-0001,1000,1024,6,1000,,LS,Running,0,700,100\n"
            "openb-pod-0002,1000,1024,2,1000,,LS,Running,0,400,300\n"));
        const StartState st = startStateAt(t, c, 350, "big.csv");
        QCOMPARE(st.jobs.size(), size_t(2));
        RunSpec s = spec("fifo+firstfit");
        s.config.perf = PerfConfig::parse("ideal");
        s.keepDecisionLog = true;
        const RunOutput out = runFromStartState(c, t, st, s);
        QCOMPARE(recordOf(out, 1)->machines, 2);
        QCOMPARE(recordOf(out, 1)->end, 700.0);
        QCOMPARE(recordOf(out, 2)->start, 350.0);
        QCOMPARE(recordOf(out, 2)->end, 400.0);
        std::map<int, int> gpusOn; // machine -> GPUs held at decision 1
        for (const PlacementRecord& pl : out.log->records.at(0).placements)
            for (const GpuSlot& g : pl.slots)
                ++gpusOn[c.machineOfGpu(g.gpu)];
        QCOMPARE(gpusOn[0], 4);
        QCOMPARE(gpusOn[1], 4);
        // one pod more than the GPUs: the error names it and the field
        const Trace over = readTrace(writeText(
            dir, "over.csv",
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
            "openb-pod-0001,1000,1024,6,1000,,LS,Running,0,700,100\n"
            "openb-pod-0002,1000,1024,3,1000,,LS,Running,0,400,300\n"));
        try {
            runFromStartState(c, over, startStateAt(over, c, 350, "over.csv"), s);
            QFAIL("accepted 9 GPUs on 8");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).startsWith("over.csv: job 2: field 'machines': the trace names no machines"), e.what());
        }
    }

    void startAtBadInput()
    {
        QTemporaryDir dir;
        ClusterSpec c = readCluster(writeText(dir, "nodes.csv", kOpenbNodes));
        c.finalize();
        auto failsWith = [&](const Trace& t, double at, const std::string& source, const QStringList& says) {
            try {
                startStateAt(t, c, at, source);
                QFAIL("accepted");
            } catch (const std::invalid_argument& e) {
                const QString w = QString::fromStdString(e.what());
                QVERIFY2(!w.contains('\n'), e.what());
                QVERIFY2(w.startsWith(QString::fromStdString(source) + ": "), e.what());
                for (const QString& s : says)
                    QVERIFY2(w.contains(s), e.what());
            }
        };
        // Philly: submit times and durations only
        const std::string philly = writeText(dir, "philly.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                                                "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
                                                                "2017-10-09 07:03:00,600.0,2,1200.0,11cb48\n");
        failsWith(readTrace(philly), 100, philly, {"no start times", "--start-state", "fork"});
        const Cli r = cli({"run", "--trace", QString::fromStdString(philly), "--cluster", "das-case", "--policy",
                           "fifo+firstfit", "--start-at", "100"});
        QCOMPARE(r.code, 1);
        const QStringList errors = r.err.split('\n').filter("error:"); // beside the loader's "read N jobs" line
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors[0].contains(QString::fromStdString(philly)) && errors[0].contains("no start times"), qPrintable(r.err));
        const Cli both = cli({"run", "--trace", QString::fromStdString(philly), "--cluster", "das-case", "--policy",
                              "fifo+firstfit", "--start-at", "100", "--start-state", "x.csv"});
        QCOMPARE(both.code, 2);
        // a node the cluster does not have
        std::string pods = kOpenbPods;
        pods.replace(pods.find("200,openb-node-0001"), 19, "200,openb-node-0042");
        const std::string unknown = writeText(dir, "unknown.csv", pods);
        failsWith(readTrace(unknown), 1000, unknown, {"job 2", "'machines'", "openb-node-0042"});
        // pods that do not fit on their node at T: pod 4 started at 900 on node 1, beside pod 2's 4 GPUs
        pods = kOpenbPods;
        pods.replace(pods.find("700,2500,1500"), 13, "700,2500,900");
        const Trace t = readTrace(writeText(dir, "full.csv", pods));
        const StartState st = startStateAt(t, c, 1000, "full.csv");
        try {
            runFromStartState(c, t, st, spec("fifo+firstfit"));
            QFAIL("accepted an over-booked node");
        } catch (const std::invalid_argument& e) {
            const QString w = QString::fromStdString(e.what());
            QVERIFY2(w.startsWith("full.csv: job 4: field 'machines'") && w.contains("openb-node-0001"), e.what());
        }
    }

    // a real openb pod list: the running and queued pods at T are those a direct count of the CSV finds
    void startAtRealOpenb()
    {
        const std::string dirPath = SS_SHARED_TRACES "/alibaba-pai-v2023";
        if (!QFileInfo::exists(QString::fromStdString(dirPath)))
            QSKIP("../shared/traces is absent");
        const std::string pods = dirPath + "/openb_pod_list_default.csv";
        ClusterSpec c = readCluster(dirPath + "/openb_node_list_gpu_node.csv");
        c.finalize();
        // direct count, with the reader's rules: no Pending, Failed or still-alive pods, none without GPUs or time
        QFile f(QString::fromStdString(pods));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> header = f.readLine().trimmed().split(',');
        auto col = [&](const char* n) { return int(header.indexOf(QByteArray(n))); };
        const int cNum = col("num_gpu"), cMilli = col("gpu_milli"), cPhase = col("pod_phase"), cCreate = col("creation_time"),
                  cDel = col("deletion_time"), cSched = col("scheduled_time");
        struct Pod { double create, sched, del; };
        std::vector<Pod> kept;
        double first = 1e300, bestWait = -1, at = 0;
        while (!f.atEnd()) {
            const QList<QByteArray> v = f.readLine().trimmed().split(',');
            const double num = v[cNum].toDouble(), milli = v[cMilli].toDouble(), del = v[cDel].toDouble();
            if (v[cPhase] == "Pending" || v[cPhase] == "Failed" || del >= 12902960 || num == 0 || (num == 1 && milli == 0))
                continue;
            const double create = v[cCreate].toDouble();
            const double sched = v[cSched].isEmpty() ? create : v[cSched].toDouble();
            if (del - sched <= 0)
                continue;
            kept.push_back({create, sched, del});
            first = std::min(first, create);
            if (sched - create > bestWait) { // T: halfway through the longest wait, so someone is queued
                bestWait = sched - create;
                at = create + bestWait / 2;
            }
        }
        int running = 0, queued = 0;
        for (const Pod& p : kept) {
            running += p.sched <= at && at < p.del ? 1 : 0;
            queued += p.create <= at && at < p.sched ? 1 : 0;
        }
        QVERIFY(queued >= 1 && running >= 1);
        const Trace t = readTrace(pods);
        QCOMPARE(t.jobs.size(), kept.size());
        const StartState st = startStateAt(t, c, at - first, pods);
        int r = 0, q = 0;
        for (const StartStateJob& j : st.jobs)
            (j.running ? r : q) += 1;
        QCOMPARE(r, running);
        QCOMPARE(q, queued);
        RunSpec s = spec("fifo+firstfit");
        s.keepDecisionLog = false;
        const RunOutput out = runFromStartState(c, t, st, s);
        int startedAtT = 0;
        for (size_t i = 0; i < st.jobs.size(); ++i)
            startedAtT += st.jobs[i].running && out.jobs[i].start == st.time ? 1 : 0;
        QCOMPARE(startedAtT, running);
    }
};

QTEST_GUILESS_MAIN(TstFork)
#include "tst_fork.moc"
