// The studio tells the truth about its scenario (issue 22): a failed load leaves the scenario exactly as it
// was, unsaved changes are marked and asked about before they are dropped, and every view counts decisions
// the same way (from 1, as the stepper title and --goto-decision).
#include <QCheckBox>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QUndoStack>
#include <QSet>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>

#include "clusterdocument.h"
#include "exporthelpers.h"
#include "policy/registry.h"
#include "columnmapdialog.h"
#include "qcp.h"
#include "ganttview.h"
#include "heatmapview.h"
#include "mainwindow.h"
#include "scenario.h"
#include "models.h"
#include "stepperpanel.h"
#include "topologypanel.h"
#include "viewhelpers.h"
#include "studiotestutil.h"

using namespace ss;
using namespace ss::ui;
using namespace studiotest;

class TestStudioState : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void failedTraceLoadKeepsScenario();
    void badScenarioReportsEveryProblemAndKeepsOld();
    void editsMarkTheTitle();
    void discardingAsksFirst();
    void decisionsCountFromOne();
    void heatmapsNameJobsByTraceId();
    void scenarioParamsReachTheRuns();
    void stepToNextRound();
    void untrainedFallbackIsShownNotSilent();
    void compareShowsTwoRunsAndLogTails();
    void rerunKeepsTheDecisionAndHelpHasALegend();

private:
    QTemporaryDir m_dir;
};

void TestStudioState::initTestCase()
{
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
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
    QVERIFY(writeJson(bad, o));
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

static QString clusterLabel(MainWindow& w)
{
    auto* l = w.findChild<QLabel*>(QStringLiteral("clusterLabel"));
    return l ? l->text() : QStringLiteral("(no cluster label)");
}

void TestStudioState::editsMarkTheTitle()
{
    MainWindow w;
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    QVERIFY(w.windowTitle().contains(QLatin1String("[*]")));
    QVERIFY(!w.isWindowModified());
    QVERIFY2(!clusterLabel(w).contains(QLatin1String("edited")), qPrintable(clusterLabel(w)));

    // Cluster: +4 machines marks it, undoing back to the loaded cluster clears both marks.
    ClusterDocument* doc = w.clusterDocument();
    doc->addMachines(4, 0, 4, 0);
    QVERIFY(w.isWindowModified());
    QVERIFY2(clusterLabel(w).contains(QLatin1String("edited")), qPrintable(clusterLabel(w)));
    doc->undoStack()->undo();
    QVERIFY(!w.isWindowModified());
    QVERIFY2(!clusterLabel(w).contains(QLatin1String("edited")), qPrintable(clusterLabel(w)));

    // A freshly loaded cluster is not "edited" (it is what the scenario now names), but the scenario changed.
    QVERIFY(w.loadCluster(QStringLiteral("das-small")));
    QVERIFY2(!clusterLabel(w).contains(QLatin1String("edited")), qPrintable(clusterLabel(w)));
    QVERIFY(w.isWindowModified());
    const QString out = m_dir.filePath(QStringLiteral("marks.scenario.json"));
    QVERIFY(w.saveScenario(out));
    QVERIFY(!w.isWindowModified());

    // Policies: ticking one marks, unticking it again clears.
    auto* list = w.findChild<QListWidget*>();
    QVERIFY(list);
    QListWidgetItem* item = nullptr;
    for (int i = 0; i < list->count() && !item; ++i)
        if ((list->item(i)->flags() & Qt::ItemIsUserCheckable) && list->item(i)->checkState() == Qt::Unchecked)
            item = list->item(i);
    QVERIFY(item);
    item->setCheckState(Qt::Checked);
    QVERIFY(w.isWindowModified());
    item->setCheckState(Qt::Unchecked);
    QVERIFY(!w.isWindowModified());

    // Trace: another trace marks it.
    const QString copy = m_dir.filePath(QStringLiteral("copy.csv"));
    QVERIFY(QFile::copy(kSampleTrace, copy));
    w.loadTrace(copy);
    QVERIFY(w.waitForIdle(20000));
    QVERIFY(w.isWindowModified());
}

void TestStudioState::discardingAsksFirst()
{
    MainWindow w;
    w.show();
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    const QString path = m_dir.filePath(QStringLiteral("asked.scenario.json"));
    QVERIFY(w.saveScenario(path)); // keep the sample file itself out of Save

    QStringList asked;
    QMessageBox::StandardButton answer = QMessageBox::Cancel;
    w.setUnsavedPrompt([&](const QString& question) {
        asked << question;
        return answer;
    });
    // Nothing changed: no question.
    QVERIFY(w.close());
    QVERIFY(asked.isEmpty());
    w.show();

    w.clusterDocument()->addMachines(4, 0, 4, 0);
    const int machines = w.clusterDocument()->spec().machineCount();
    QVERIFY(w.isWindowModified());

    // Ctrl+Q / close: Cancel keeps the window and the edit.
    QVERIFY(!w.close());
    QCOMPARE(asked.size(), 1);
    QVERIFY(w.isVisible());

    // The "DAS case study" button: Cancel keeps the edited cluster.
    QPushButton* caseStudy = nullptr;
    for (QPushButton* b : w.findChildren<QPushButton*>())
        if (b->text().contains(QLatin1String("DAS case study")))
            caseStudy = b;
    QVERIFY(caseStudy);
    caseStudy->click();
    QCOMPARE(asked.size(), 2);
    QCOMPARE(w.clusterDocument()->spec().machineCount(), machines);
    QVERIFY(w.isWindowModified());

    // File ▸ Open scenario…: Cancel asks and stops before any file dialog.
    QAction* open = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
        if (a->shortcut() == QKeySequence(QKeySequence::Open))
            open = a;
    QVERIFY(open);
    open->trigger();
    QCOMPARE(asked.size(), 3);
    QCOMPARE(w.clusterDocument()->spec().machineCount(), machines);

    // Save: the edit is written, then the window closes.
    answer = QMessageBox::Save;
    QVERIFY(w.close());
    QCOMPARE(asked.size(), 4);
    MainWindow reopened;
    QVERIFY(reopened.openScenario(path));
    QCOMPARE(reopened.clusterDocument()->spec().machineCount(), machines);

    // Discard: the case study opens over the edit.
    w.show();
    w.clusterDocument()->addMachines(1, 0, 4, 0);
    answer = QMessageBox::Discard;
    caseStudy->click();
    QVERIFY(w.waitForIdle(30000));
    QCOMPARE(asked.size(), 5);
    QCOMPARE(w.clusterDocument()->spec().machineCount(), 8);
    QVERIFY(!w.isWindowModified());
}

void TestStudioState::decisionsCountFromOne()
{
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    QVERIFY(w.runScenario());
    QVERIFY(w.waitForIdle(30000));
    QVERIFY(w.decisionCount() > 5);
    w.showView(QStringLiteral("stepper"));
    w.setDecision(4); // the fifth decision: "Decision 5" in the stepper, --goto-decision 5
    QLabel* stepperTitle = nullptr;
    for (QLabel* l : w.findChildren<QLabel*>())
        if (l->text().startsWith(QLatin1String("Decision ")))
            stepperTitle = l;
    QVERIFY(stepperTitle);
    QVERIFY2(stepperTitle->text().startsWith(QLatin1String("Decision 5 /")), qPrintable(stepperTitle->text()));

    // The last-4 panels: decisions 2..5, the current one last.
    auto* strip = w.findChild<ss::DecisionStripView*>();
    QVERIFY(strip);
    QVERIFY2(strip->heatmap(3)->title().startsWith(QLatin1String("#5 ")), qPrintable(strip->heatmap(3)->title()));
    QVERIFY2(strip->heatmap(0)->title().startsWith(QLatin1String("#2 ")), qPrintable(strip->heatmap(0)->title()));
    // Priority history: its axis ticks run 1..5 and its title says so.
    ss::HeatmapView* history = nullptr;
    for (ss::HeatmapView* h : w.findChildren<ss::HeatmapView*>())
        if (h->title().contains(QLatin1String("Priority over decisions")))
            history = h;
    QVERIFY(history);
    QVERIFY2(history->title().contains(QStringLiteral("1–5")), qPrintable(history->title()));
    QCOMPARE(history->colLabels().first(), QStringLiteral("#1"));
    QCOMPARE(history->colLabels().last(), QStringLiteral("#5"));
    // The priority and affinity maps name the same decision.
    int named = 0;
    for (ss::HeatmapView* h : w.findChildren<ss::HeatmapView*>())
        if (h->title().contains(QLatin1String("at decision"))) {
            QVERIFY2(h->title().contains(QLatin1String("at decision 5")), qPrintable(h->title()));
            ++named;
        }
    QCOMPARE(named, 2);
    // The builder the views share counts the same way.
    const ss::DecisionLog& log = *w.currentRun()->out->log;
    QCOMPARE(ss::priorityHistory(log, 0, 4).title, QStringLiteral("priority, decisions 1..5"));
}

void TestStudioState::heatmapsNameJobsByTraceId()
{
    // The sample with its ids moved to 5000+: an index and an id can no longer be mistaken for each other.
    QFile in(kSampleTrace);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QStringList lines = QString::fromUtf8(in.readAll()).split(QLatin1Char('\n'));
    for (QString& l : lines)
        if (!l.isEmpty() && l[0].isDigit())
            l = QString::number(5000 + l.section(QLatin1Char(','), 0, 0).toInt()) + QLatin1Char(',') + l.section(QLatin1Char(','), 1);
    const QString shifted = m_dir.filePath(QStringLiteral("shifted.csv"));
    QFile out(shifted);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(lines.join(QLatin1Char('\n')).toUtf8());
    out.close();

    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    w.loadTrace(shifted);
    QVERIFY(w.waitForIdle(20000));
    QVERIFY(w.trace() && w.trace()->jobs.front().id >= 5000);
    QVERIFY(w.runScenario());
    QVERIFY(w.waitForIdle(30000));
    w.showView(QStringLiteral("stepper"));
    w.setDecision(4);

    // The stepper's queue names the job by its trace id; the heatmaps must name the same one.
    auto* queue = w.findChild<QTableView*>(QStringLiteral("stepperQueue"));
    QVERIFY(queue && queue->model()->rowCount() > 0);
    const QString stepperJob = queue->model()->index(0, 1).data().toString();
    QVERIFY2(stepperJob.toLongLong() >= 5000, qPrintable(stepperJob));
    ss::HeatmapView* priority = nullptr;
    ss::HeatmapView* history = nullptr;
    for (ss::HeatmapView* h : w.findChildren<ss::HeatmapView*>()) {
        if (h->title().startsWith(QLatin1String("Priority of queued jobs")))
            priority = h;
        if (h->title().startsWith(QLatin1String("Priority over decisions")))
            history = h;
    }
    QVERIFY(priority && history);
    QCOMPARE(priority->colLabels().first(), stepperJob);
    QVERIFY2(history->rowLabels().contains(stepperJob), qPrintable(history->rowLabels().join(QLatin1Char(' '))));
    auto* strip = w.findChild<ss::DecisionStripView*>();
    QCOMPARE(strip->heatmap(3)->colLabels().first(), stepperJob);
    for (const QString& label : history->rowLabels())
        QVERIFY2(label.toLongLong() >= 5000, qPrintable(label));
    // The Gantt's one-lane-per-job rows too.
    const ss::GanttData g = ss::buildSegmentsFromJobs(w.currentRun()->out->jobs, ss::JobLanes::PerJob);
    QVERIFY(!g.rowLabels.isEmpty());
    for (const QString& label : g.rowLabels)
        QVERIFY2(label.toLongLong() >= 5000, qPrintable(label));
}


void TestStudioState::scenarioParamsReachTheRuns()
{
    // A scenario's params are part of every run it makes, in the studio as in `run --scenario`.
    QJsonObject o = readJson(kSample);
    o[QStringLiteral("trace")] = QJsonObject{{QStringLiteral("path"), kSampleTrace}};
    o[QStringLiteral("policies")] = QJsonArray{QStringLiteral("las+firstfit")};
    o[QStringLiteral("params")] = QJsonObject{{QStringLiteral("las.thresholds"), QStringLiteral("60")}};
    const QString path = m_dir.filePath(QStringLiteral("params.scenario.json"));
    QVERIFY(writeJson(path, o));
    MainWindow w;
    QVERIFY(openAndRun(w, path));
    QVERIFY(w.currentRun());
    const auto& params = w.currentRun()->out->spec.options.params;
    QCOMPARE(params.size(), size_t(1));
    QCOMPARE(params.at("las.thresholds"), std::string("60"));

    // A key no policy declares is refused before anything runs, naming the key.
    o[QStringLiteral("params")] = QJsonObject{{QStringLiteral("las.no_such_knob"), QStringLiteral("1")}};
    QVERIFY(writeJson(path, o));
    QVERIFY(w.openScenario(path));
    QVERIFY(w.waitForIdle(20000));
    const auto runBefore = w.currentRun();
    QVERIFY(!w.runScenario());
    QVERIFY2(w.bannerText().contains(QLatin1String("las.no_such_knob")), qPrintable(w.bannerText()));
    QVERIFY(w.waitForIdle(5000));
    QCOMPARE(w.currentRun(), runBefore);
}

void TestStudioState::stepToNextRound()
{
    // Gavel: most decisions between two rounds only record arrivals and finishes; "decided ›" goes to the next
    // round (a decision with an allocation X), passing over every one that decided nothing.
    QJsonObject o = readJson(QStringLiteral(SS_SOURCE_DIR "/sample-traces/gavel.scenario.json"));
    const QString dir = QStringLiteral(SS_SOURCE_DIR "/sample-traces/");
    o[QStringLiteral("trace")] = QJsonObject{{QStringLiteral("path"), dir + QStringLiteral("gavel-120.csv")}};
    o[QStringLiteral("throughputs")] = dir + QStringLiteral("gavel-throughputs.json");
    o[QStringLiteral("policies")] = QJsonArray{QStringLiteral("gavel-las")};
    const QString path = m_dir.filePath(QStringLiteral("gavel-one.scenario.json"));
    QVERIFY(writeJson(path, o));
    MainWindow w;
    QVERIFY(openAndRun(w, path));
    const ss::DecisionLog& log = *w.currentRun()->out->log;
    auto* next = w.findChild<QPushButton*>(QStringLiteral("stepperNextDecided"));
    auto* prev = w.findChild<QPushButton*>(QStringLiteral("stepperPrevDecided"));
    QVERIFY(next && prev);
    // From the first round, walk three rounds on and back, checking nothing in between decided anything.
    int k = 0;
    while (k < int(log.records.size()) && log.records[size_t(k)].allocation.empty())
        ++k;
    QVERIFY(k < int(log.records.size()));
    w.setDecision(k);
    std::vector<int> visited{k};
    for (int i = 0; i < 3; ++i) {
        next->click();
        const int now = w.currentDecision();
        QVERIFY2(now > visited.back(), qPrintable(QString::number(now)));
        for (int j = visited.back() + 1; j < now; ++j)
            QVERIFY2(!StepperPanel::decidedSomething(log.records[size_t(j)]), qPrintable(QString::number(j)));
        QVERIFY(StepperPanel::decidedSomething(log.records[size_t(now)]));
        visited.push_back(now);
    }
    QVERIFY2(visited.back() - visited.front() > 3, "some decisions between rounds decided nothing");
    for (int i = 2; i >= 0; --i) {
        prev->click();
        QCOMPARE(w.currentDecision(), visited[size_t(i)]);
    }
}

void TestStudioState::untrainedFallbackIsShownNotSilent()
{
    // Issue 22 point 3: DAS on a cluster its shipped checkpoint was not trained for runs untrained: the run is
    // marked, the banner says why, the run's stats record it; the what-if says which policy it reruns.
    QJsonObject o = readJson(kSample);
    o[QStringLiteral("trace")] = QJsonObject{{QStringLiteral("path"), kSampleTrace}};
    o[QStringLiteral("policies")] = QJsonArray{QStringLiteral("das")};
    const QString path = m_dir.filePath(QStringLiteral("das-only.scenario.json"));
    QVERIFY(writeJson(path, o));
    MainWindow w;
    QVERIFY(openAndRun(w, path));
    QCOMPARE(w.currentRun()->out->summary.policyStat("checkpoint"), 1.0); // the shipped one ran
    QVERIFY2(!w.currentRun()->name.contains(QLatin1String("untrained")), qPrintable(w.currentRun()->name));
    QVERIFY2(!w.bannerText().contains(QLatin1String("UNTRAINED")), qPrintable(w.bannerText()));

    w.clusterDocument()->addMachines(4, 0, 4, 0); // same name, another cluster
    QVERIFY(w.runScenario());
    QVERIFY(w.waitForIdle(60000));
    const auto& s = w.currentRun()->out->summary;
    QCOMPARE(s.policyStat("checkpoint"), 0.0);
    QCOMPARE(s.policyStat("checkpoint_refused"), 1.0);
    QVERIFY2(w.currentRun()->name.endsWith(QLatin1String("(untrained)")), qPrintable(w.currentRun()->name));
    QVERIFY2(w.bannerText().contains(QLatin1String("das seed 1 ran UNTRAINED")), qPrintable(w.bannerText()));
    QVERIFY2(w.bannerText().contains(QLatin1String("das.allow_other_cluster=1")), qPrintable(w.bannerText()));

    // The what-if names the policy it reruns and the ticked ones it leaves out.
    auto* base = w.findChild<QLabel*>(QStringLiteral("whatIfBasePolicy"));
    QVERIFY(base);
    QVERIFY2(base->text().contains(QLatin1String("<b>das</b>")), qPrintable(base->text()));
    QVERIFY(w.openScenario(kSample)); // das + fifo+firstfit
    QVERIFY(w.waitForIdle(20000));
    QVERIFY2(base->text().contains(QLatin1String("fifo+firstfit")) && base->text().contains(QLatin1String("not rerun")),
             qPrintable(base->text()));
}

void TestStudioState::compareShowsTwoRunsAndLogTails()
{
    // Issue 22 point 11: Gantt A / B start on two different runs, and the JCT CDF can use a log axis.
    MainWindow w;
    QVERIFY(openAndRun(w, kSample)); // das + fifo+firstfit
    w.showView(QStringLiteral("compare"));
    auto* a = w.findChild<QComboBox*>(QStringLiteral("compareGanttA"));
    auto* b = w.findChild<QComboBox*>(QStringLiteral("compareGanttB"));
    QVERIFY(a && b);
    QCOMPARE(a->count(), 2);
    QVERIFY(a->currentData() != b->currentData());
    auto* logX = w.findChild<QCheckBox*>(QStringLiteral("compareCdfLogX"));
    auto* cdf = w.findChild<QCustomPlot*>(QStringLiteral("compareCdf"));
    QVERIFY(logX && cdf);
    QCOMPARE(cdf->xAxis->scaleType(), QCPAxis::stLinear);
    logX->setChecked(true);
    QCOMPARE(cdf->xAxis->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(cdf->graphCount() >= 2);
    logX->setChecked(false);
    QCOMPARE(cdf->xAxis->scaleType(), QCPAxis::stLinear);
}

void TestStudioState::rerunKeepsTheDecisionAndHelpHasALegend()
{
    // Issue 22 point 13: re-running stayed nowhere (back to decision 1); Help had no legend or About.
    MainWindow w;
    QVERIFY(openAndRun(w, kSample));
    w.setDecision(10);
    QVERIFY(w.runScenario());
    QVERIFY(w.waitForIdle(60000));
    QCOMPARE(w.currentDecision(), 10);
    QAction* legend = nullptr;
    bool about = false;
    for (QAction* a : w.findChildren<QAction*>()) {
        if (a->text() == QLatin1String("Legend"))
            legend = a;
        about = about || a->text() == QLatin1String("About SchedStudio");
    }
    QVERIFY(legend && about);
    legend->trigger();
    QVERIFY2(w.bannerText().contains(QLatin1String("whisker")), qPrintable(w.bannerText()));
    // "1 jobs running" after the only job was placed: the count agrees with its noun
    w.setDecision(1);
    auto* info = w.findChild<QLabel*>(QStringLiteral("clusterInfo"));
    QVERIFY(info);
    QVERIFY2(!info->text().contains(QLatin1String("1 jobs")), qPrintable(info->text()));
    QVERIFY2(info->text().contains(QRegularExpression(QStringLiteral("\\b1 job running|\\b\\d+ jobs running"))), qPrintable(info->text()));
}

QTEST_MAIN(TestStudioState)
#include "tst_studiostate.moc"
