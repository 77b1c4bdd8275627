// Screenshot smoke test: every view renders something (not blank, not one colour) after a run, and the
// real executable's headless --screenshot hook writes a PNG.
#include <QDockWidget>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "mainwindow.h"

using namespace ss::ui;

static const QString kSample = QStringLiteral(SS_SOURCE_DIR "/sample-traces/das-case.scenario.json");

static int distinctColours(const QImage& img, const QRect& r)
{
    QSet<QRgb> seen;
    for (int y = r.top(); y < r.bottom(); y += 3)
        for (int x = r.left(); x < r.right(); x += 3)
            seen.insert(img.pixel(x, y));
    return int(seen.size());
}

class TestScreenshots : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void everyView_data();
    void everyView();
    void headlessHook();

private:
    QTemporaryDir m_settingsDir;
    std::unique_ptr<MainWindow> m_w;
};

void TestScreenshots::initTestCase()
{
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settingsDir.path());
    m_w = std::make_unique<MainWindow>();
    m_w->resize(1400, 900);
    m_w->show();
    QVERIFY(m_w->openScenario(kSample));
    QVERIFY(m_w->waitForIdle(20000));
    QVERIFY(m_w->runScenario());
    QVERIFY(m_w->waitForIdle(30000));
    QVERIFY(m_w->decisionCount() > 5);
    m_w->setDecision(5);
}

void TestScreenshots::everyView_data()
{
    QTest::addColumn<QString>("view");
    for (const QString& v : MainWindow::viewNames())
        QTest::newRow(qPrintable(v)) << v;
}

void TestScreenshots::everyView()
{
    QFETCH(QString, view);
    QVERIFY(m_w->showView(view));
    QCoreApplication::processEvents();
    const QImage img = m_w->grab().toImage();
    QVERIFY(!img.isNull());
    QVERIFY(img.width() >= 1000);
    QVERIFY2(distinctColours(img, img.rect()) > 20, qPrintable(view));
    // The view's own dock has content too (not an empty pane).
    auto* dock = m_w->findChild<QDockWidget*>(QStringLiteral("dock-") + view);
    QVERIFY(dock);
    QVERIFY(dock->isVisible());
    const QImage d = dock->grab().toImage();
    QVERIFY2(distinctColours(d, d.rect()) > 8, qPrintable(view));
}

void TestScreenshots::headlessHook()
{
#ifndef SS_GUI
    QSKIP("schedstudio executable not built");
#else
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("heat.png"));
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.path());
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SS_GUI), {QStringLiteral("--scenario"), kSample, QStringLiteral("--run"),
                                     QStringLiteral("--goto-decision"), QStringLiteral("4"), QStringLiteral("--view"),
                                     QStringLiteral("heatmaps"), QStringLiteral("--screenshot"), out,
                                     QStringLiteral("--size"), QStringLiteral("1200x800")});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    const QImage img(out);
    QCOMPARE(img.size(), QSize(1200, 800));
    QVERIFY(distinctColours(img, img.rect()) > 20);

    // A bad view name is an error with a message, not a picture.
    QProcess bad;
    bad.setProcessEnvironment(env);
    bad.start(QStringLiteral(SS_GUI), {QStringLiteral("--scenario"), kSample, QStringLiteral("--view"),
                                       QStringLiteral("nope"), QStringLiteral("--screenshot"), out});
    QVERIFY(bad.waitForFinished(60000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(bad.readAllStandardError().contains("unknown view"));
#endif
}

QTEST_MAIN(TestScreenshots)
#include "tst_screenshots.moc"
