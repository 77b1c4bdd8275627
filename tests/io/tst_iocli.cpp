// Runs the real schedstudio-cli: a bad file gives exit code != 0 and one line naming file, line and column;
// inspect --json and convert work end to end.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "io/traceio.h"

class TstIoCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString write(const QString& name, const std::string& text)
    {
        const QString p = m_dir.filePath(name);
        std::ofstream(p.toStdString(), std::ios::binary) << text;
        return p;
    }
    struct Result {
        int code;
        QString out, err;
    };
    Result run(const QStringList& args)
    {
        QProcess p;
        p.start(QStringLiteral(SS_CLI), args);
        if (!p.waitForFinished(60000))
            return {-999, {}, {}};
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -998, QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (!QFileInfo::exists(QStringLiteral(SS_CLI)))
            QSKIP("schedstudio-cli not built");
    }

    void badFileOneLine()
    {
        const QString bad = write("bad.csv", "# schedstudio-trace v1\nid,submit,gpus,duration\n1,0,1,10\n2,5,x,10\n");
        const Result r = run({"inspect", bad});
        QVERIFY(r.code != 0);
        const QString e = r.err.trimmed();
        QVERIFY2(!e.contains('\n'), qPrintable(e));
        QVERIFY2(e.contains(bad + ":4:"), qPrintable(e));
        QVERIFY2(e.contains("column 'gpus'"), qPrintable(e));
        QVERIFY2(e.contains("'x'"), qPrintable(e));
    }

    void badClusterOneLine()
    {
        const QString bad = write("c.json", "{\"format\": \"schedstudio-cluster\",\n \"version\": 7}\n");
        const Result r = run({"inspect", bad, "--cluster"});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.trimmed().contains(":2: column 'version': unsupported version 7"), qPrintable(r.err));
        QVERIFY(!r.err.trimmed().contains('\n'));
    }

    void inspectJsonAndConvert()
    {
        const QString good = write("t.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
                                            "0,1,10,606,vgg19,100,30\n1,8,40,133,vgg11,300,23\n2,0,50,1,x,1,1\n");
        Result r = run({"inspect", good, "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o["format"].toString(), QString("tiresias"));
        QCOMPARE(o["jobs"].toInt(), 2);
        QCOMPARE(o["span_s"].toDouble(), 30.0);
        QCOMPARE(o["gpu_histogram"].toObject()["5-8"].toInt(), 1);
        QCOMPARE(o["skipped"].toObject()["zero GPUs"].toInt(), 1);
        QCOMPARE(o["duration_s"].toObject()["max"].toDouble(), 300.0);

        const QString out = m_dir.filePath("out.csv");
        r = run({"convert", good, out, "--first", "1"});
        QCOMPARE(r.code, 0);
        const ss::Trace t = ss::readTrace(out.toStdString());
        QCOMPARE(t.jobs.size(), size_t(1));
        QCOMPARE(t.modelName(t.jobs[0]), std::string("vgg19"));

        const QString swf = m_dir.filePath("out.swf");
        QCOMPARE(run({"convert", good, swf, "--to", "swf"}).code, 0);
        const ss::Trace s = ss::readTrace(swf.toStdString());
        QCOMPARE(s.jobs.size(), size_t(2));
        QCOMPARE(s.jobs[1].gpus, 8.0);
        QCOMPARE(s.jobs[1].duration, 300.0);

        const QString cl = m_dir.filePath("c.json");
        QCOMPARE(run({"convert", "das-small", cl}).code, 0);
        QCOMPARE(ss::readCluster(cl.toStdString()).fingerprint(), ss::makeClusterPreset("das-small").fingerprint());

        r = run({"inspect", good, "--bogus"});
        QCOMPARE(r.code, 2);
    }
};

QTEST_GUILESS_MAIN(TstIoCli)
#include "tst_iocli.moc"
