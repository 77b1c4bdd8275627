// The store commands of the real CLI: a sweep killed with SIGKILL leaves a valid database whose runs are
// all complete and resumes to exactly one copy of each run; two shards merged equal the unsharded sweep;
// runs/show/export read the result; errors are one line with a non-zero exit.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

#include "io/traceio.h"
#include "model/tracegen.h"
#include "store/runstore.h"

using namespace ss;

namespace {

struct Result {
    int code = -1;
    QString out, err;
};

Result runCli(const QStringList& args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(SS_CLI, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {-2, {}, "timed out"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

std::map<std::string, double> meanJctByKey(const std::string& db)
{
    RunStore s(db, RunStore::Mode::Existing);
    std::map<std::string, double> m;
    for (const RunInfo& r : s.listRuns()) {
        if (m.count(r.key))
            qFatal("duplicate key %s in %s", r.key.c_str(), db.c_str());
        m[r.key] = r.meanJctMin;
    }
    return m;
}

} // namespace

class TestStoreCli : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_smallTrace, m_bigTraceA, m_bigTraceB;
    QString file(const char* name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void initTestCase()
    {
        if (!QFile::exists(SS_CLI))
            QSKIP("schedstudio-cli not built");
        QVERIFY(m_dir.isValid());
        auto write = [&](const char* name, int jobs, uint64_t seed) {
            TraceGenConfig g;
            g.jobs = jobs;
            g.seed = seed;
            g.clusterGpus = 32;
            g.load = 1.2;
            Trace t = generateTrace(g);
            t.name = name;
            writeNativeTrace(t, file(name).toStdString());
            return file(name);
        };
        m_smallTrace = write("small.csv", 200, 1);
        m_bigTraceA = write("big-a.csv", 2000, 2);
        m_bigTraceB = write("big-b.csv", 2000, 3);
    }

    void killedSweepResumes()
    {
        const QString db = file("kill.db");
        const QStringList args = {"sweep", "--traces", m_bigTraceA + "," + m_bigTraceB, "--clusters", "das-case",
                                  "--policies", "fifo+firstfit,sjf+bestfit", "--seeds", "1-3",
                                  "--db", db, "--jobs", "2", "--keep-log"};
        const int total = 2 * 2 * 3;
        QProcess p;
        p.setProcessChannelMode(QProcess::SeparateChannels);
        p.start(SS_CLI, args);
        QVERIFY(p.waitForStarted());
        // Kill once a few runs are written: the writer is then usually inside a run's transaction.
        QByteArray err;
        QElapsedTimer t;
        t.start();
        while (err.count("] ") < 3 && t.elapsed() < 60000 && p.state() != QProcess::NotRunning) {
            p.waitForReadyRead(50);
            err += p.readAllStandardError();
        }
        QThread::msleep(100); // land somewhere in the next runs, possibly inside a write
        QVERIFY2(p.state() == QProcess::Running, "the sweep ended before it could be killed; make it longer");
        p.kill(); // SIGKILL
        QVERIFY(p.waitForFinished());
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);

        int64_t before = 0;
        {
            RunStore store(db.toStdString(), RunStore::Mode::Existing);
            QCOMPARE(store.integrityCheck(), std::string("ok"));
            before = store.runCount();
            QVERIFY2(before >= 3 && before < total, std::to_string(before).c_str());
            qInfo("killed after %lld of %d runs", (long long)before, total);
            for (const RunInfo& r : store.listRuns()) {
                const StoredRun sr = store.loadRun(r.id); // every run present is complete
                QCOMPARE(int(sr.out.jobs.size()), 2000);
                QCOMPARE(sr.out.summary.jobs, 2000);
                QVERIFY(!sr.out.series.empty());
                QVERIFY(sr.out.log && !sr.out.log->records.empty());
            }
        }
        const Result again = runCli(args);
        QVERIFY2(again.code == 0, qPrintable(again.err));
        QVERIFY2(again.err.contains(QString("%1 already in").arg(before)), qPrintable(again.err));
        const auto keys = meanJctByKey(db.toStdString()); // fails on a duplicate key
        QCOMPARE(int(keys.size()), total);
        RunStore store(db.toStdString(), RunStore::Mode::Existing);
        QCOMPARE(store.runCount(), int64_t(total));
        // A third run has nothing left to do.
        const Result third = runCli(args);
        QCOMPARE(third.code, 0);
        QVERIFY2(third.err.contains("0 to run"), qPrintable(third.err));
    }

    void shardsMergeToTheFullSweep()
    {
        const QStringList base = {"sweep", "--traces", m_smallTrace, "--clusters", "das-case,das-small",
                                  "--policies", "fifo+firstfit,sjf+bestfit", "--seeds", "1,2,3", "--quiet"};
        const QString full = file("full.db"), a = file("shard0.db"), b = file("shard1.db"), merged = file("merged.db");
        Result r = runCli(base + QStringList{"--db", full, "--jobs", "2"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runCli(base + QStringList{"--db", a, "--shard", "0/2", "--jobs", "1"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runCli(base + QStringList{"--db", b, "--shard", "1/2"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto ka = meanJctByKey(a.toStdString()), kb = meanJctByKey(b.toStdString());
        QCOMPARE(ka.size(), size_t(6));
        QCOMPARE(kb.size(), size_t(6));
        for (const auto& [k, v] : ka)
            QVERIFY2(!kb.count(k), "shards overlap");
        r = runCli({"merge", "--db", merged, a, b});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("12 runs"));
        const auto km = meanJctByKey(merged.toStdString()), kf = meanJctByKey(full.toStdString());
        QCOMPARE(km.size(), size_t(12));
        // Same keys, same results: runs are deterministic whichever process or thread ran them.
        QVERIFY(km == kf);
        r = runCli({"merge", "--db", merged, full});
        QVERIFY2(r.code == 0 && r.err.contains("0 runs copied"), qPrintable(r.err));
    }

    // Runs that differ only in backfill, only in one --param, or only in the checkpoint file are different
    // runs: merging two databases keeps every one of them (the identity is the hash of the complete spec).
    void mergeKeepsRunsThatDifferInOneSetting()
    {
        const QString a = file("one-a.db"), b = file("one-b.db"), merged = file("one-merged.db");
        const QString ckA = file("a.sscp"), ckB = file("b.sscp");
        for (const auto& [path, text] : {std::pair{ckA, "checkpoint A"}, std::pair{ckB, "checkpoint B"}}) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        }
        const QStringList run = {"run", "--trace", m_smallTrace, "--cluster", "das-case", "--seed", "3"};
        auto runInto = [&](const QString& db, const QStringList& extra) {
            const Result r = runCli(run + QStringList{"--db", db} + extra);
            QVERIFY2(r.code == 0, qPrintable(r.err));
        };
        runInto(a, {"--policy", "fifo+firstfit"});
        runInto(b, {"--policy", "fifo+firstfit", "--no-backfill"});
        runInto(a, {"--policy", "las+firstfit"});
        runInto(b, {"--policy", "las+firstfit", "--param", "las.knob=2"});
        runInto(a, {"--policy", "sjf+bestfit", "--checkpoint", ckA});
        runInto(b, {"--policy", "sjf+bestfit", "--checkpoint", ckB});
        Result r = runCli({"merge", "--db", merged, a, b});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QString("merged %1: 3 runs copied").arg(a)), qPrintable(r.err));
        QVERIFY2(r.err.contains(QString("merged %1: 3 runs copied").arg(b)), qPrintable(r.err));
        QVERIFY2(r.out.contains("6 runs"), qPrintable(r.out));
        const auto keys = meanJctByKey(merged.toStdString()); // fails on a duplicate key
        QCOMPARE(keys.size(), size_t(6));
        // every stored config names what made its run different
        RunStore store(merged.toStdString(), RunStore::Mode::Existing);
        int noBackfill = 0, knob = 0, checkpoints = 0;
        for (const RunInfo& i : store.listRuns()) {
            const StoredRun sr = store.loadRun(i.id, false);
            QCOMPARE(sr.out.spec.id(), i.key); // the config read back has the run's identity
            noBackfill += !sr.out.spec.options.backfill;
            knob += sr.out.spec.options.params.count("las.knob") ? 1 : 0;
            checkpoints += sr.out.spec.checkpointHash.empty() ? 0 : 1;
        }
        QCOMPARE(noBackfill, 1);
        QCOMPARE(knob, 1);
        QCOMPARE(checkpoints, 2);
        // merging again copies nothing, and a rerun of the same command is the same run
        r = runCli({"merge", "--db", merged, a, b});
        QVERIFY2(r.err.contains("0 runs copied"), qPrintable(r.err));
        runInto(b, {"--policy", "las+firstfit", "--param", "las.knob=2"});
        r = runCli({"merge", "--db", merged, b});
        QVERIFY2(r.err.contains("0 runs copied"), qPrintable(r.err));
    }

    void listShowExport()
    {
        const QString db = file("cli.db");
        Result r = runCli({"sweep", "--traces", m_smallTrace, "--clusters", "das-case", "--policies", "fifo+firstfit",
                           "--seeds", "4,5", "--db", db, "--keep-log", "--experiment", "demo"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runCli({"runs", "--db", db, "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonArray runs = QJsonDocument::fromJson(r.out.toUtf8()).array();
        QCOMPARE(runs.size(), 2);
        const QJsonObject first = runs[0].toObject();
        QCOMPARE(first.value("experiment").toString(), QString("demo"));
        QCOMPARE(first.value("seed").toInt(), 4);
        QCOMPARE(first.value("jobs").toInt(), 200);
        QVERIFY(first.value("mean_jct_min").toDouble() > 0);
        const QString id = QString::number(first.value("id").toInt());

        r = runCli({"runs", "--db", db});
        QVERIFY(r.code == 0 && r.out.contains("2 runs") && r.out.contains("fifo+firstfit"));

        r = runCli({"show", id, "--db", db, "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject shown = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(shown.value("config").toObject().value("seed").toInt(), 4);
        QCOMPARE(shown.value("run").toObject().value("seed").toInt(), 4);
        QCOMPARE(shown.value("jobs_stored").toInt(), 200);
        QVERIFY(shown.value("log_records").toInt() > 0);
        QCOMPARE(shown.value("run").toObject().value("summary").toObject().value("mean_jct_min").toDouble(),
                 first.value("mean_jct_min").toDouble());

        const QString csv = file("jobs.csv"), chrome = file("trace.json");
        r = runCli({"export", id, "--db", db, "--jobs-out", csv, "--chrome-trace", chrome});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> ls = f.readAll().split('\n');
        QVERIFY(ls[0].startsWith("# SchedStudio jobs; policy=fifo+firstfit; seed=4;"));
        QCOMPARE(ls.size(), 2 + 200 + 1); // comment, header, rows, empty tail
        QFile c(chrome);
        QVERIFY(c.open(QIODevice::ReadOnly));
        const QJsonObject trace = QJsonDocument::fromJson(c.readAll()).object();
        QCOMPARE(trace.value("otherData").toObject().value("seed").toString(), QString("4"));
        QCOMPARE(trace.value("otherData").toObject().value("segments_from").toString(), QString("decision log"));
        int x = 0, machines = 0;
        for (const QJsonValue& v : trace.value("traceEvents").toArray()) {
            x += v.toObject().value("ph").toString() == "X";
            machines += v.toObject().value("name").toString() == "process_name";
        }
        QVERIFY(x >= 200);
        QVERIFY(machines > 1); // das-case is a preset: GPUs are grouped by machine

        r = runCli({"runs", "--db", db, "--rename", id, "--name", "baseline"});
        QCOMPARE(r.code, 0);
        r = runCli({"runs", "--db", db, "--delete", id});
        QCOMPARE(r.code, 0);
        r = runCli({"runs", "--db", db, "--json"});
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).array().size(), 1);
    }

    void runSavesThroughTheHook()
    {
        const QString db = file("hook.db"), chrome = file("hook-trace.json");
        const Result r = runCli({"run", "--trace", m_smallTrace, "--cluster", "das-case", "--policy", "sjf+bestfit",
                                 "--seed", "9", "--db", db, "--experiment", "hooked", "--chrome-trace", chrome});
        if (r.code == 2 && r.err.contains("db"))
            QSKIP("`run` does not call saveRunIfAsked/exportIfAsked yet");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        RunStore store(db.toStdString(), RunStore::Mode::Existing);
        const auto runs = store.listRuns();
        QCOMPARE(runs.size(), size_t(1));
        QCOMPARE(runs[0].experiment, std::string("hooked"));
        QCOMPARE(runs[0].seed, uint64_t(9));
        QCOMPARE(runs[0].jobs, 200);
        QVERIFY(store.loadRun(runs[0].id).config.find("\"seed\":9") != std::string::npos);
        QFile c(chrome);
        QVERIFY(c.open(QIODevice::ReadOnly));
        const QJsonObject trace = QJsonDocument::fromJson(c.readAll()).object();
        QCOMPARE(trace.value("otherData").toObject().value("seed").toString(), QString("9"));
        if (trace.value("otherData").toObject().value("segments_from").toString() != "decision log")
            QWARN("run --chrome-trace without the decision log: set RunSpec::keepDecisionLog (wantsDecisionLog)");
    }

    void errorsAreOneLine()
    {
        Result r = runCli({"runs", "--db", file("nope.db")});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.trimmed().count('\n') == 0 && r.err.contains("nope.db"), qPrintable(r.err));
        QVERIFY(!QFile::exists(file("nope.db")));
        r = runCli({"show", "12345", "--db", file("kill.db")});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("12345"), qPrintable(r.err));
        r = runCli({"sweep", "--traces", m_smallTrace, "--clusters", "das-case", "--policies", "fifo+firstfit",
                    "--db", file("x.db"), "--shard", "2/2"});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("--shard"), qPrintable(r.err));
        r = runCli({"sweep", "--traces", m_smallTrace, "--clusters", "das-case", "--policies", "no-such-policy",
                    "--db", file("x.db")});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("no-such-policy"), qPrintable(r.err));
        const QString text = file("text.db");
        QFile t(text);
        QVERIFY(t.open(QIODevice::WriteOnly));
        t.write(QByteArray(4096, 'x'));
        t.close();
        r = runCli({"runs", "--db", text});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("not a SchedStudio"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestStoreCli)
#include "tst_storecli.moc"
