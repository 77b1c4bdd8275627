// The learned RELMAS scheduler of the accelerator mode (core/learn/relmas.cpp), driven through the CLI as a user
// would: the shipped checkpoint runs and is deterministic, a checkpoint of another chip or a broken file is one
// clear error, the untrained actor runs on any chip, and accel-train writes a checkpoint `run` then uses.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "../clirun.h"

using sstest::runCli;

namespace {
const QString kScenario = QStringLiteral("sample-traces/relmas.scenario.json");
const QString kShipped = QStringLiteral("resources/checkpoints/relmas-magma-s5.sscp");

/// The run's figures without the scheduler's wall-clock decision times (those vary from run to run).
QJsonObject figures(const QByteArray& json)
{
    QJsonObject r = QJsonDocument::fromJson(json).object().value(QStringLiteral("runs")).toArray().first().toObject();
    for (const QString& k : r.keys())
        if (k.startsWith(QLatin1String("decision")))
            r.remove(k);
    return r;
}

double slaOf(const QByteArray& json)
{
    const QJsonObject o = QJsonDocument::fromJson(json).object();
    const QJsonArray runs = o.value(QStringLiteral("runs")).toArray();
    return runs.isEmpty() ? -1 : runs.first().toObject().value(QStringLiteral("sla_satisfaction")).toDouble(-1);
}

/// The bundled scenario with another chip (written beside its networks' folder so the relative paths hold).
QString otherChipScenario(QTemporaryDir& dir)
{
    QFile in(QStringLiteral(SS_SOURCE_DIR "/sample-traces/relmas.scenario.json"));
    if (!in.open(QIODevice::ReadOnly))
        return {};
    QJsonObject o = QJsonDocument::fromJson(in.readAll()).object();
    o[QStringLiteral("chip")] = QStringLiteral("magma-s6");
    QJsonArray nets;
    for (const auto& n : o.value(QStringLiteral("networks")).toArray())
        nets.append(QStringLiteral(SS_SOURCE_DIR "/sample-traces/") + n.toString());
    o[QStringLiteral("networks")] = nets;
    const QString path = dir.filePath(QStringLiteral("s6.scenario.json"));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(QJsonDocument(o).toJson());
    return path;
}
} // namespace

class TestRelmas : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shippedCheckpointRunsDeterministically()
    {
        QVERIFY(QFile::exists(QStringLiteral(SS_SOURCE_DIR "/") + kShipped));
        const auto a = runCli({QStringLiteral("run"), QStringLiteral("--scenario"), kScenario, QStringLiteral("--policy"),
                               QStringLiteral("relmas"), QStringLiteral("--json")});
        QVERIFY2(a.code == 0, a.err.constData());
        const auto b = runCli({QStringLiteral("run"), QStringLiteral("--scenario"), kScenario, QStringLiteral("--policy"),
                               QStringLiteral("relmas"), QStringLiteral("--json")});
        QVERIFY(figures(a.out).size() >= 8);
        QCOMPARE(figures(b.out), figures(a.out));
        const double sla = slaOf(a.out);
        QVERIFY2(sla > 0 && sla <= 1, a.out.constData());
        // the trained actor is not the untrained one: the checkpoint was read (the runs differ somewhere)
        const auto u = runCli({QStringLiteral("run"), QStringLiteral("--scenario"), kScenario, QStringLiteral("--policy"),
                               QStringLiteral("relmas"), QStringLiteral("--param"), QStringLiteral("relmas.untrained=1"),
                               QStringLiteral("--json")});
        QVERIFY2(u.code == 0, u.err.constData());
        QVERIFY(figures(u.out) != figures(a.out));
    }

    void otherChipOrBrokenCheckpointIsRefused()
    {
        QTemporaryDir dir;
        const QString s6 = otherChipScenario(dir);
        QVERIFY(!s6.isEmpty());
        const auto r = runCli({QStringLiteral("run"), QStringLiteral("--scenario"), s6, QStringLiteral("--policy"),
                               QStringLiteral("relmas"), QStringLiteral("--param"),
                               QStringLiteral("relmas.checkpoint=") + kShipped});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("magma-s5") && r.err.contains("magma-s6"), r.err.constData());
        // no checkpoint shipped for that chip: the error says how to get one
        const auto n = runCli({QStringLiteral("run"), QStringLiteral("--scenario"), s6, QStringLiteral("--policy"),
                               QStringLiteral("relmas")});
        QVERIFY(n.code != 0);
        QVERIFY2(n.err.contains("no checkpoint for chip magma-s6"), n.err.constData());
        // ... and the untrained actor runs there
        const auto u = runCli({QStringLiteral("run"), QStringLiteral("--scenario"), s6, QStringLiteral("--policy"),
                               QStringLiteral("relmas"), QStringLiteral("--param"), QStringLiteral("relmas.untrained=1")});
        QVERIFY2(u.code == 0, u.err.constData());
        const QString bad = dir.filePath(QStringLiteral("bad.sscp"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("SSCKPT\r\nnot a relmas checkpoint");
        f.close();
        const auto b = runCli({QStringLiteral("run"), QStringLiteral("--scenario"), kScenario, QStringLiteral("--policy"),
                               QStringLiteral("relmas"), QStringLiteral("--param"), QStringLiteral("relmas.checkpoint=") + bad});
        QVERIFY(b.code != 0);
        QVERIFY2(b.err.contains("bad.sscp") && b.err.contains("bad magic"), b.err.constData());
    }

    void trainWritesACheckpointRunUses()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("r.sscp"));
        const auto t = runCli({QStringLiteral("accel-train"), QStringLiteral("--scenario"), kScenario,
                               QStringLiteral("--iterations"), QStringLiteral("1"), QStringLiteral("--updates"),
                               QStringLiteral("2"), QStringLiteral("--train-requests"), QStringLiteral("20"),
                               QStringLiteral("--out"), out});
        QVERIFY2(t.code == 0, t.err.constData());
        QVERIFY2(t.out.contains("held-out SLA: hetero"), t.out.constData());
        QVERIFY(QFile::exists(out));
        QVERIFY(!QFile::exists(out + QStringLiteral(".tmp")));
        const auto r = runCli({QStringLiteral("run"), QStringLiteral("--scenario"), kScenario, QStringLiteral("--policy"),
                               QStringLiteral("relmas"), QStringLiteral("--param"), QStringLiteral("relmas.checkpoint=") + out,
                               QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(slaOf(r.out) > 0);
        // bad options are refused before anything trains
        const auto bad = runCli({QStringLiteral("accel-train"), QStringLiteral("--scenario"), kScenario,
                                 QStringLiteral("--gamma"), QStringLiteral("1.5"), QStringLiteral("--out"), out});
        QVERIFY(bad.code != 0);
        QVERIFY2(bad.err.contains("--gamma"), bad.err.constData());
    }
};

QTEST_MAIN(TestRelmas)
#include "tst_relmas.moc"
