// The studio tells the truth about its scenario (issue 22): a failed load leaves the scenario exactly as it
// was, unsaved changes are marked and asked about before they are dropped, and every view counts decisions
// the same way (from 1, as the stepper title and --goto-decision).
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "clusterdocument.h"
#include "mainwindow.h"
#include "scenario.h"

using namespace ss;
using namespace ss::ui;

static const QString kSample = QStringLiteral(SS_SOURCE_DIR "/sample-traces/das-case.scenario.json");
static const QString kSampleTrace = QStringLiteral(SS_SOURCE_DIR "/sample-traces/das-case.csv");

class TestStudioState : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void failedTraceLoadKeepsScenario();
    void badScenarioReportsEveryProblemAndKeepsOld();

private:
    QTemporaryDir m_dir;
};

void TestStudioState::initTestCase()
{
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
}

static QJsonObject readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

void TestStudioState::failedTraceLoadKeepsScenario()
{
    MainWindow w;
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    QVERIFY(w.trace());
    const QString goodTrace = w.currentScenario().tracePath;
    QVERIFY(goodTrace.endsWith(QLatin1String("das-case.csv")));

    w.loadTrace(QStringLiteral("/etc/passwd"));
    QVERIFY(w.waitForIdle(20000));
    QVERIFY2(!w.bannerText().isEmpty(), "a trace that cannot be read is reported");
    // Scenario, Trace field and loaded trace all still the old ones.
    QCOMPARE(w.currentScenario().tracePath, goodTrace);
    auto* field = w.findChild<QLineEdit*>(QStringLiteral("traceEdit"));
    QVERIFY(field);
    QCOMPARE(field->text(), goodTrace);
    QVERIFY(w.trace());
    QCOMPARE(int(w.trace()->jobs.size()), 24);

    // Save writes the old trace, never the bad one.
    const QString out = m_dir.filePath(QStringLiteral("after-bad-trace.scenario.json"));
    QVERIFY(w.saveScenario(out));
    const QString saved = readJson(out)[QStringLiteral("trace")].toObject()[QStringLiteral("path")].toString();
    QVERIFY2(!saved.contains(QLatin1String("passwd")), qPrintable(saved));
    QCOMPARE(QFileInfo(QDir(m_dir.path()).filePath(saved)).canonicalFilePath(), QFileInfo(kSampleTrace).canonicalFilePath());

    // A good trace afterwards does reach the field.
    w.loadTrace(kSampleTrace);
    QVERIFY(w.waitForIdle(20000));
    QCOMPARE(field->text(), kSampleTrace);
}

void TestStudioState::badScenarioReportsEveryProblemAndKeepsOld()
{
    MainWindow w;
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    const ss::ui::Scenario before = w.currentScenario();
    const auto fp = w.clusterDocument()->spec().fingerprint();
    const QString pathBefore = w.scenarioPath();

    QJsonObject o = readJson(kSample);
    o[QStringLiteral("name")] = QStringLiteral("broken");
    o[QStringLiteral("cluster")] = QJsonObject{{QStringLiteral("preset"), QStringLiteral("no-such-preset")}};
    o[QStringLiteral("policies")] = QJsonArray{QStringLiteral("no-such-policy"), QStringLiteral("fifo+firstfit")};
    const QString bad = m_dir.filePath(QStringLiteral("broken.scenario.json"));
    {
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(o).toJson());
    }
    QVERIFY(!w.openScenario(bad));
    QVERIFY(w.waitForIdle(20000));
    const QString banner = w.bannerText();
    QVERIFY2(banner.contains(QLatin1String("no-such-preset")), qPrintable(banner));
    QVERIFY2(banner.contains(QLatin1String("no-such-policy")), qPrintable(banner));
    // Nothing of it was kept: name, policies, cluster, trace and file are the old scenario's.
    const ss::ui::Scenario after = w.currentScenario();
    QCOMPARE(after.name, before.name);
    QCOMPARE(after.policies, before.policies);
    QCOMPARE(after.tracePath, before.tracePath);
    QCOMPARE(w.clusterDocument()->spec().fingerprint(), fp);
    QCOMPARE(w.scenarioPath(), pathBefore);
    QVERIFY(w.trace());
}

QTEST_MAIN(TestStudioState)
#include "tst_studiostate.moc"
