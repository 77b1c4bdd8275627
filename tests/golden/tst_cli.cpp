// The real schedstudio-cli binary, as a user meets it: policies, run --json, compare, generate, errors.
#include <QtTest>

#include "../clirun.h"

namespace {
using Result = sstest::CliResult;

Result cli(const QStringList& args)
{
    return sstest::runCli(args);
}

const QString kSample = QStringLiteral("sample-traces/das-small-200.csv");
} // namespace

class TstCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void policiesListsEveryCombination()
    {
        const Result r = cli({"policies"});
        QCOMPARE(r.code, 0);
        const QStringList names = QString::fromUtf8(r.out).split('\n', Qt::SkipEmptyParts);
        for (const char* o : {"fifo", "sjf", "srtf", "edf", "drf", "las", "gittins"})
            for (const char* p : {"firstfit", "bestfit", "loadbalance", "consolidate", "random"})
                QVERIFY2(names.contains(QString("%1+%2").arg(o, p)), qPrintable(QString("%1+%2").arg(o, p)));
        QVERIFY(names.contains("tetris"));
        QStringList sorted = names;
        sorted.sort();
        QCOMPARE(names, sorted);
    }

    void runJsonHasTheDocumentedKeysAndIsDeterministic()
    {
        for (const char* cluster : {"das-small", "gavel-108"}) {
            const QStringList args = {"run", "--trace", kSample, "--cluster", cluster, "--policy", "fifo+firstfit",
                                      "--seed", "3", "--json", "--perf", "fluctuation_sd=0.1,machine_bias_sd=0.05"};
            const Result a = cli(args), b = cli(args);
            QVERIFY2(a.code == 0, a.err.constData());
            QCOMPARE(a.out, b.out);
            const QJsonObject o = QJsonDocument::fromJson(a.out).object();
            for (const char* k : {"jobs", "mean_jct_min", "p95_jct_min", "mean_fee_usd", "makespan_h", "utilization"})
                QVERIFY2(o.contains(k), k);
            QCOMPARE(o.value("jobs").toInt(), 200);
            QVERIFY(o.value("mean_jct_min").toDouble() > 0);
            QStringList other = args;
            other[other.indexOf("3")] = "4";
            const Result c = cli(other);
            QCOMPARE(c.code, 0);
            QVERIFY2(QJsonDocument::fromJson(c.out).object().value("mean_jct_min")
                         != o.value("mean_jct_min"),
                     "a different seed must change a run with random performance");
        }
    }

    void everyPolicyRunsOnBothClusters()
    {
        const Result names = cli({"policies"});
        for (const QString& p : QString::fromUtf8(names.out).split('\n', Qt::SkipEmptyParts)) {
            for (const char* cluster : {"das-small", "gavel-108"}) {
                const Result r = cli({"run", "--trace", kSample, "--cluster", cluster, "--policy", p, "--json",
                                      "--check-invariants"});
                QVERIFY2(r.code == 0, qPrintable(p + " on " + cluster + ": " + QString::fromUtf8(r.err)));
                const QJsonObject o = QJsonDocument::fromJson(r.out).object();
                QCOMPARE(o.value("jobs").toInt(), 200);
                QVERIFY2(o.value("finished").toInt() + o.value("rejected").toInt() == 200,
                         qPrintable(p + " left jobs unfinished on " + cluster));
            }
        }
    }

    void compareTableAndJson()
    {
        const Result r = cli({"compare", "--trace", kSample, "--cluster", "das-small", "--policies",
                              "fifo+firstfit,sjf+bestfit", "--seeds", "1,2", "--json"});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value("policies").toArray().size(), 2);
        QCOMPARE(o.value("runs").toArray().size(), 4);
        const Result t = cli({"compare", "--trace", kSample, "--cluster", "das-small", "--policies",
                              "fifo+firstfit,sjf+bestfit"});
        QCOMPARE(t.code, 0);
        QVERIFY(t.out.contains("sjf+bestfit"));
        QVERIFY(t.out.contains("mean JCT (min)"));
    }

    // A scenario file runs as its own options would: `run --scenario` is the same run (same identity, same
    // numbers) as `run --trace --cluster --perf`; `compare --scenario` runs policies x seeds x variants.
    void scenarioRunsAsItsOptions()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("s.scenario.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral(R"({"format": "schedstudio-scenario", "version": 1, "name": "s",
            "trace": "%1", "cluster": "das-small", "perf": "machine_bias_sd=0.1",
            "policies": ["sjf+bestfit", "las+consolidate"], "seed": "4", "seeds": 2,
            "params": {"las.knob": "2"}, "variants": [{"name": "2x load", "load_scale": 2}]})")
                    .arg(QDir(SS_SOURCE_DIR).absoluteFilePath(kSample)).toUtf8());
        f.close();
        const Result a = cli({"run", "--scenario", path, "--json"});
        QVERIFY2(a.code == 0, a.err.constData());
        const Result b = cli({"run", "--trace", kSample, "--cluster", "das-small", "--perf", "machine_bias_sd=0.1",
                              "--policy", "sjf+bestfit", "--seed", "4", "--param", "las.knob=2", "--json"});
        QVERIFY2(b.code == 0, b.err.constData());
        const QJsonObject ja = QJsonDocument::fromJson(a.out).object(), jb = QJsonDocument::fromJson(b.out).object();
        QVERIFY2(!ja.isEmpty(), a.out.constData());
        QCOMPARE(ja.value("policy").toString(), QStringLiteral("sjf+bestfit")); // the scenario's first policy
        QCOMPARE(ja.value("run_id").toString().size(), 64);
        QCOMPARE(ja.value("run_id").toString(), jb.value("run_id").toString());
        QCOMPARE(ja.value("mean_jct_min").toDouble(), jb.value("mean_jct_min").toDouble());

        const Result c = cli({"compare", "--scenario", path, "--json", "--jobs", "2"});
        QVERIFY2(c.code == 0, c.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(c.out).object();
        const QJsonArray rows = o.value("policies").toArray();
        QCOMPARE(rows.size(), 4); // 2 policies x (base + 1 variant)
        QCOMPARE(o.value("runs").toArray().size(), 8);
        QCOMPARE(rows[2].toObject().value("variant").toString(), QStringLiteral("2x load"));
        QCOMPARE(rows[0].toObject().value("runs").toInt(), 2);
        QVERIFY(rows[0].toObject().value("mean_jct_min_ci95").toDouble() >= 0);
        // the base row's sjf+bestfit seed 4 is the run above
        QCOMPARE(o.value("runs").toArray()[0].toObject().value("run_id").toString(), ja.value("run_id").toString());
        // more load, longer waits
        QVERIFY(rows[2].toObject().value("mean_jct_min").toDouble() > rows[0].toObject().value("mean_jct_min").toDouble());
    }

    void benchPrintsGrowthAndSkipsWhatCannotFit()
    {
        // bench runs each size in its own process and ends with a summary; a size whose time, predicted from the
        // last one, is over --max-seconds is not started (here 100M jobs: it would take minutes and gigabytes)
        const Result r = cli({"bench", "--policies", "fifo+firstfit,las+firstfit", "--sizes", "300,600,100000000",
                              "--max-seconds", "0.5"});
        QCOMPARE(r.code, 0);
        const QString out = QString::fromUtf8(r.out);
        // the load against the GPUs and against what they do at their types' speeds (4,755.4 reference GPUs)
        QVERIFY2(out.startsWith("bench: cluster alibaba-scale (1814 machines, 6742 GPUs, 4755.4 at their types' speeds), "
                                "load 0.80 of the GPUs (1.13 at their speeds), seed 1, one process per run\n"),
                 qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression(R"(fifo\+firstfit\s+600\s+1200\s+1200\s)")), qPrintable(out));
        QCOMPARE(out.count(QStringLiteral("not run: at least")), 2);
        QVERIFY2(out.contains("over the 0.5 s budget (--max-seconds)"), qPrintable(out));
        const int summary = out.indexOf(QStringLiteral("\nsummary"));
        QVERIFY(summary > 0);
        const QString tail = out.mid(summary);
        QVERIFY(tail.contains(QRegularExpression(R"(\n\S+\s+300\s+600\s+100000000\s+growth\n)")));
        QVERIFY2(tail.contains(QRegularExpression(R"(\nlas\+firstfit\s+\d+\.\d\d\s+\d+\.\d\d\s+\(> 0\.50\)\s+(n/a|-?\d+\.\d\d \(stopped at a larger size\))\n)")),
                 qPrintable(tail)); // (a growth where the runs reach --fit-floor: a sanitizer build)
        // the machine it ran on, and each policy against fifo+firstfit at the largest size both ran (600 here)
        QVERIFY2(out.contains(QRegularExpression(R"(\nmachine: .+, \d+ logical CPUs, \d+\.\d GiB, load average \d+\.\d\d at the start; \S+ build\n)")),
                 qPrintable(out));
        QVERIFY2(tail.contains(QRegularExpression(R"(\nagainst fifo\+firstfit .*\nlas\+firstfit\s+(\d+\.\dx at 600 jobs|n/a)\n)")),
                 qPrintable(tail));
    }

    void benchShowsWhetherTheClusterCarriesTheTrace()
    {
        // each run's mean wait and preemptions, as `run` reports them on the same generated trace, and a backlog
        // that grows with the size is named: das-small at load 3 (a trace it cannot carry) against --perf ideal at
        // load 0.2 (nothing waits)
        const Result r = cli({"bench", "--policies", "fifo+firstfit,srtf+firstfit", "--sizes", "200,2000", "--cluster",
                              "das-small", "--load", "3", "--max-seconds", "60"});
        QCOMPARE(r.code, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains("\nperf: type_speed=true,"), qPrintable(out));
        QTemporaryDir dir;
        const QString trace = dir.filePath("t.csv");
        QCOMPARE(cli({"generate", "--jobs", "2000", "--seed", "1", "--load", "3", "--cluster", "das-small", "--out", trace}).code, 0);
        const Result run = cli({"run", "--trace", trace, "--cluster", "das-small", "--policy", "srtf+firstfit", "--seed", "1", "--json"});
        QCOMPARE(run.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(run.out).object();
        const double wait = o.value("mean_queue_min").toDouble();
        const int preempts = o.value("preemptions").toInt();
        QVERIFY2(wait > 60 && preempts > 0, qPrintable(QString::fromUtf8(run.out)));
        // the run's line: ... peak MiB, wait min (one decimal), preemptions
        const QRegularExpression line(R"(\nsrtf\+firstfit\s+2000\s+\d+\s+\d+\s+\S+\s+\S+\s+\S+\s+\S+\s+(\S+)\s+(\d+)\n)");
        const QRegularExpressionMatch m = line.match(out);
        QVERIFY2(m.hasMatch(), qPrintable(out));
        QCOMPARE(m.captured(1), QString::number(wait, 'f', 1));
        QCOMPARE(m.captured(2).toInt(), preempts);
        const int table = out.indexOf(QStringLiteral("\nwaiting (mean minutes a job waited / preemptions per job)\n"));
        QVERIFY2(table > 0, qPrintable(out));
        const QString rows = out.mid(table);
        const QRegularExpression srtfRow(R"(\nsrtf\+firstfit\s+\d+ / \d\.\d\d\s+(\d+) / (\d+\.\d\d)  backlog grows with the trace's size\n)");
        const QRegularExpressionMatch sm = srtfRow.match(rows);
        QVERIFY2(sm.hasMatch(), qPrintable(rows));
        QCOMPARE(sm.captured(1), QString::number(wait, 'f', 0));
        QCOMPARE(sm.captured(2), QString::number(preempts / 2000.0, 'f', 2));
        QVERIFY2(rows.contains(QRegularExpression(R"(\nfifo\+firstfit\s+\d+ / 0\.00\s+\d+ / 0\.00  backlog grows)")), qPrintable(rows));
        QVERIFY(rows.contains("a lower --load or another --perf shows a carried one"));

        const Result light = cli({"bench", "--policies", "srtf+firstfit", "--sizes", "200,2000", "--cluster", "das-small",
                                  "--load", "0.2", "--perf", "ideal", "--max-seconds", "60"});
        QCOMPARE(light.code, 0);
        const QString lout = QString::fromUtf8(light.out);
        QVERIFY2(lout.contains("\nperf: ideal"), qPrintable(lout));
        QVERIFY2(lout.contains(QRegularExpression(R"(\nsrtf\+firstfit\s+0 / 0\.00\s+0 / 0\.00\n)")), qPrintable(lout));
        QVERIFY(!lout.contains("backlog grows"));
        QCOMPARE(cli({"bench", "--perf", "speed=fast", "--sizes", "200"}).code == 0, false);
    }

    void generateIsReproducible()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath("a.csv"), b = dir.filePath("b.csv");
        QCOMPARE(cli({"generate", "--jobs", "300", "--seed", "9", "--load", "0.8", "--cluster", "das-small", "--out", a}).code, 0);
        QCOMPARE(cli({"generate", "--jobs", "300", "--seed", "9", "--load", "0.8", "--cluster", "das-small", "--out", b}).code, 0);
        QFile fa(a), fb(b);
        QVERIFY(fa.open(QIODevice::ReadOnly) && fb.open(QIODevice::ReadOnly));
        const QByteArray da = fa.readAll();
        QCOMPARE(da, fb.readAll());
        QVERIFY(da.count('\n') >= 300);
        // what the trace asks of the cluster, from the file's own rows: work (GPUs x duration) over the span,
        // against das-small's 32 GPUs and its 21.8 reference GPUs (4 x 3 V100, 4 x 3 P100 at 0.55, 4 x 2 T4 at 0.4)
        const Result r = cli({"generate", "--jobs", "300", "--seed", "9", "--load", "0.8", "--cluster", "das-small", "--out", a});
        QCOMPARE(r.code, 0);
        double work = 0, first = -1, last = 0;
        for (const QByteArray& line : da.split('\n')) {
            if (line.isEmpty() || line.startsWith('#') || line.startsWith("id,"))
                continue;
            const QList<QByteArray> f = line.split(',');
            const double submit = f[1].toDouble(), gpus = f[2].toDouble(), duration = f[3].toDouble();
            work += gpus * duration;
            if (first < 0)
                first = submit;
            last = submit;
        }
        const double perSecond = work / (last - first);
        const QString expect = QString("the trace asks %1 of das-small's 32 GPUs, %2 of their capacity at their types' "
                                       "speeds (21.8 reference GPUs)")
                                   .arg(perSecond / 32, 0, 'f', 2)
                                   .arg(perSecond / 21.8, 0, 'f', 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(expect), qPrintable(QString::fromUtf8(r.err) + " / " + expect));
    }

    void errorsAreOneLineWithNonZeroExit()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.csv");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("# schedstudio-trace v1\nid,submit,gpus,duration,model,user,vc,qos,gpu_spec,deadlines,cpu,mem_gb,iterations\n"
                "1,0,1,100,,,,,,,,,\n2,5,two,100,,,,,,,,,\n");
        f.close();
        const Result r = cli({"run", "--trace", bad, "--cluster", "das-small", "--policy", "fifo+firstfit"});
        QVERIFY(r.code != 0);
        const QString err = QString::fromUtf8(r.err).trimmed();
        QCOMPARE(err.count('\n'), 0);
        QVERIFY2(err.contains("bad.csv") && err.contains(":4") && err.contains("gpus"), qPrintable(err));

        const QString badCluster = dir.filePath("c.json");
        QFile g(badCluster);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write("{\"format\":\"schedstudio-cluster\",\"version\":1,\"name\":\"x\",\n\"gpu_types\":[{\"name\":\"V100\"}],\n"
                "\"switches\":[{\"name\":\"s\"}],\n\"machines\":[{\"name\":\"m\",\"gpu_type\":\"V100\",\"gpus\":\"four\",\"switch\":\"s\"}]}\n");
        g.close();
        const Result c = cli({"run", "--trace", kSample, "--cluster", badCluster, "--policy", "fifo+firstfit"});
        QVERIFY(c.code != 0);
        const QString cerr = QString::fromUtf8(c.err).trimmed();
        QCOMPARE(cerr.count('\n'), 0);
        QVERIFY2(cerr.contains("c.json") && cerr.contains(":4") && cerr.contains("gpus"), qPrintable(cerr));

        const Result u = cli({"run", "--trace", kSample, "--cluster", "das-small", "--policy", "fifo+nowhere"});
        QVERIFY(u.code != 0);
        QVERIFY(u.err.contains("fifo+nowhere"));
        const Result o = cli({"run", "--trace", kSample, "--cluster", "das-small", "--policy", "fifo+firstfit", "--bogus", "1"});
        QCOMPARE(o.code, 2);
        QVERIFY(o.err.contains("--bogus"));
    }
};

QTEST_GUILESS_MAIN(TstCli)
#include "tst_cli.moc"
