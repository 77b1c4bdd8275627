// Runs from a recorded start state (run/forkstart.h): jobs running at time T keep their machines and their work
// left, queued ones wait; the state file's bad input; `run --start-at T` on openb pod lists (hand-made and the
// public one) with first-fit spans for pods without a node. Split from tst_fork.cpp.
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
#include "run/forkstart.h"

using namespace ss;

namespace {

ClusterSpec cluster() { return forkfix::dasCase(); }
Trace trace(int jobs = 240, uint64_t seed = 3) { return forkfix::contended(jobs, seed); }
RunSpec spec(const std::string& policy, uint64_t seed = 7) { return forkfix::runSpec(policy, seed); }
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

using forkfix::Cli;
using forkfix::cli;

} // namespace

class TstStartState : public QObject {
    Q_OBJECT
private Q_SLOTS:
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

QTEST_GUILESS_MAIN(TstStartState)
#include "tst_startstate.moc"
