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
    void editsMarkTheTitle();
    void discardingAsksFirst();
    void decisionsCountFromOne();
    void heatmapsNameJobsByTraceId();
    void scenarioParamsReachTheRuns();
    void stepToNextRound();
    void untrainedFallbackIsShownNotSilent();
    void compareShowsTwoRunsAndLogTails();
    void rerunKeepsTheDecisionAndHelpHasALegend();
    void topologyEditorOffersCatalogueTypes();
    void csvWithoutKnownFormatIsMapped();
    void bannerDoesNotShiftTheLayout();
    void switchCellIsAListOfNames();
    void policyListIsGroupedAndCounted();
    void exportsSayWhatTheViewShows();
    void stepperShowsMoreThanTwoRows();

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

static bool writeJson(const QString& path, const QJsonObject& o)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(QJsonDocument(o).toJson()) > 0;
}

/// Opens the scenario, runs it and waits for the runs.
static bool openAndRun(MainWindow& w, const QString& path)
{
    return w.openScenario(path) && w.waitForIdle(20000) && w.runScenario() && w.waitForIdle(60000);
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

void TestStudioState::topologyEditorOffersCatalogueTypes()
{
    // Issue 22 point 9: the GPU-type list offered only the cluster's types, and the type cell was a number box.
    MainWindow w;
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    ClusterDocument* doc = w.clusterDocument();
    const QStringList choices = gpuTypeChoices(doc->spec());
    QCOMPARE(choices.mid(0, 2), (QStringList{QStringLiteral("V100"), QStringLiteral("P100")})); // the cluster's first
    QVERIFY(choices.contains(QStringLiteral("K80")) && choices.contains(QStringLiteral("T4")));
    const size_t typesBefore = doc->spec().types.size();
    MachineTableModel model(doc);
    const QModelIndex cell = model.index(0, MachineTableModel::GpuType);
    QCOMPARE(cell.data(Qt::EditRole).toString(), QStringLiteral("V100")); // a name, not an index
    QVERIFY(model.setData(cell, QStringLiteral("K80"), Qt::EditRole));
    QCOMPARE(doc->spec().types.size(), typesBefore + 1);
    QCOMPARE(cell.data().toString(), QStringLiteral("K80"));
    doc->undoStack()->undo(); // one step: the machine's type and the catalogue type it brought
    QCOMPARE(doc->spec().types.size(), typesBefore);
    QCOMPARE(cell.data().toString(), QStringLiteral("V100"));
    QVERIFY(!model.setData(cell, QStringLiteral("no-such-gpu"), Qt::EditRole));
    // The Machines table edits that column with a list of names.
    w.showView(QStringLiteral("topology"));
    QTableView* table = nullptr;
    for (QTableView* t : w.findChildren<QTableView*>())
        if (qobject_cast<MachineTableModel*>(t->model()))
            table = t;
    QVERIFY(table);
    QStyleOptionViewItem opt;
    std::unique_ptr<QWidget> editor(table->itemDelegateForColumn(MachineTableModel::GpuType)->createEditor(table, opt, cell));
    auto* combo = qobject_cast<QComboBox*>(editor.get());
    QVERIFY(combo);
    QVERIFY(combo->findText(QStringLiteral("K80")) >= 0);
    // "Load preset…" sits on the second toolbar row, not behind the first row's overflow arrow.
    auto* row2 = w.findChild<QToolBar*>(QStringLiteral("topologyToolBar2"));
    QVERIFY(row2);
    bool preset = false;
    for (QComboBox* c : row2->findChildren<QComboBox*>())
        preset = preset || c->itemText(0).startsWith(QLatin1String("Load preset"));
    QVERIFY(preset);
}

void TestStudioState::csvWithoutKnownFormatIsMapped()
{
    // Issue 22 point 10: a plain id,submit,gpus,duration CSV could only be read with the CLI's --map. The studio
    // now opens the column-mapping dialog with a guess; accepted, the trace loads, the scenario keeps the map
    // (saved and reopened without asking), and the choice is remembered for the file. Cancelled, nothing changes.
    const QString csv = m_dir.filePath(QStringLiteral("plain.csv"));
    {
        QFile f(csv);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("job,arrival,ngpu,runtime_min,owner\n1,0,2,60,ann\n2,30,1,10,bob\n3,45,4,120,ann\n");
    }
    MainWindow w;
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    const QString before = w.currentScenario().tracePath;

    // cancelled: scenario and loaded trace as they were
    w.loadTrace(csv);
    auto* dlg = w.findChild<ColumnMapDialog*>(QStringLiteral("columnMapDialog"));
    QVERIFY(dlg);
    dlg->reject();
    QVERIFY(w.waitForIdle(20000));
    QCOMPARE(w.currentScenario().tracePath, before);
    QCOMPARE(int(w.trace()->jobs.size()), 24);
    QApplication::processEvents(); // the rejected dialog deletes itself

    w.loadTrace(csv);
    dlg = w.findChild<ColumnMapDialog*>(QStringLiteral("columnMapDialog"));
    QVERIFY(dlg);
    // the guess: names, not positions; "runtime_min" is a duration by prefix, "arrival" a submit time
    const auto guessed = dlg->columns();
    QCOMPARE(guessed.at("id"), std::string("job"));
    QCOMPARE(guessed.at("submit"), std::string("arrival"));
    QCOMPARE(guessed.at("gpus"), std::string("ngpu"));
    QCOMPARE(guessed.at("duration"), std::string("runtime_min"));
    QCOMPARE(guessed.at("user"), std::string("owner"));
    QVERIFY(dlg->problem().isEmpty());
    // unmapping gpus blocks the load and says why
    dlg->comboFor(QStringLiteral("gpus"))->setCurrentIndex(0);
    QVERIFY(dlg->problem().contains(QStringLiteral("gpus")));
    QVERIFY(!dlg->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
    dlg->comboFor(QStringLiteral("gpus"))->setCurrentIndex(dlg->comboFor(QStringLiteral("gpus"))->findData(QStringLiteral("ngpu")));
    dlg->findChild<QComboBox*>(QStringLiteral("timeFormat"))->setCurrentText(QStringLiteral("min"));
    if (const QByteArray shots = qgetenv("SS_SCREENSHOT_DIR"); !shots.isEmpty())
        dlg->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/column-map-dialog.png"));
    dlg->accept();
    QVERIFY(w.waitForIdle(20000));
    QVERIFY(w.trace());
    QCOMPARE(int(w.trace()->jobs.size()), 3);
    QCOMPARE(w.trace()->jobs[0].duration, 3600.0); // 60 min
    QCOMPARE(w.trace()->jobs[1].submit, 1800.0);
    QCOMPARE(w.currentScenario().tracePath, QFileInfo(csv).absoluteFilePath());
    QCOMPARE(w.currentScenario().traceFormat, QStringLiteral("csv"));
    QCOMPARE(w.currentScenario().core.traceColumns.at("gpus"), std::string("ngpu"));
    QCOMPARE(w.currentScenario().core.traceTimeFormat, std::string("min"));

    // remembered for the file
    std::map<std::string, std::string> cols;
    QString tf;
    QVERIFY(ColumnMapDialog::remembered(csv, &cols, &tf));
    QCOMPARE(cols.at("duration"), std::string("runtime_min"));
    QCOMPARE(tf, QStringLiteral("min"));

    // saved and reopened: loads through the map, no dialog
    const QString out = m_dir.filePath(QStringLiteral("mapped.scenario.json"));
    QVERIFY(w.saveScenario(out));
    const QJsonObject trace = readJson(out)[QStringLiteral("trace")].toObject();
    QCOMPARE(trace[QStringLiteral("columns")].toObject()[QStringLiteral("submit")].toString(), QStringLiteral("arrival"));
    QCOMPARE(trace[QStringLiteral("time_format")].toString(), QStringLiteral("min"));
    MainWindow w2;
    QVERIFY(w2.openScenario(out));
    QVERIFY(w2.waitForIdle(20000));
    QVERIFY(!w2.findChild<ColumnMapDialog*>());
    QVERIFY(w2.trace());
    QCOMPARE(int(w2.trace()->jobs.size()), 3);
}

void TestStudioState::bannerDoesNotShiftTheLayout()
{
    // Issue 22 point 13: the error banner used to sit in the menu area and push every dock down when shown.
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    QApplication::processEvents();
    QMap<QString, QRect> before;
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
        if (d->isVisible())
            before[d->objectName()] = d->geometry();
    QVERIFY(!before.isEmpty());
    w.loadTrace(QStringLiteral("/etc/passwd"));
    QVERIFY(w.waitForIdle(20000));
    QApplication::processEvents();
    QVERIFY(!w.bannerText().isEmpty());
    QVERIFY2(!w.bannerText().contains(QLatin1String("--map")), qPrintable(w.bannerText())); // no CLI options in the studio
    QVERIFY2(w.bannerText().contains(QLatin1String("Map trace columns")), qPrintable(w.bannerText()));
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
        if (before.contains(d->objectName()))
            QCOMPARE(d->geometry(), before[d->objectName()]);
    auto* banner = w.findChild<QFrame*>(QStringLiteral("errorBanner"));
    QVERIFY(banner && banner->isVisible());
    QVERIFY(w.rect().contains(banner->geometry()));
    for (QToolBar* t : w.findChildren<QToolBar*>(QString(), Qt::FindDirectChildrenOnly))
        if (t->isVisible() && w.toolBarArea(t) == Qt::TopToolBarArea)
            QVERIFY2(banner->geometry().top() > t->geometry().bottom(), "the banner does not hide the toolbar");
    if (const QByteArray shots = qgetenv("SS_SCREENSHOT_DIR"); !shots.isEmpty())
        w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/error-banner.png"));
}

void TestStudioState::switchCellIsAListOfNames()
{
    // Issue 22 point 9: the Machines table's Switch cell was a number box of switch indices.
    MainWindow w;
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    ClusterDocument* doc = w.clusterDocument();
    doc->addSwitch(QStringLiteral("rack-b"), 100);
    const int last = int(doc->spec().switches.size()) - 1;
    QVERIFY(last >= 1);
    w.showView(QStringLiteral("topology"));
    QTableView* table = nullptr;
    for (QTableView* t : w.findChildren<QTableView*>())
        if (qobject_cast<MachineTableModel*>(t->model()))
            table = t;
    QVERIFY(table);
    const QModelIndex cell = table->model()->index(0, MachineTableModel::Switch);
    QStyleOptionViewItem opt;
    QAbstractItemDelegate* delegate = table->itemDelegateForColumn(MachineTableModel::Switch);
    QVERIFY(delegate);
    std::unique_ptr<QWidget> editor(delegate->createEditor(table, opt, cell));
    auto* combo = qobject_cast<QComboBox*>(editor.get());
    QVERIFY2(combo, "the Switch cell edits with a list");
    QCOMPARE(combo->count(), last + 1);
    QCOMPARE(combo->itemText(last), QStringLiteral("rack-b"));
    QCOMPARE(combo->itemText(0), QString::fromStdString(doc->spec().switches[0].name));
    delegate->setEditorData(combo, cell);
    QCOMPARE(combo->currentIndex(), doc->spec().machines[0].sw);
    combo->setCurrentIndex(last);
    delegate->setModelData(combo, table->model(), cell);
    QCOMPARE(doc->spec().machines[0].sw, last);
    QCOMPARE(cell.data().toString(), QStringLiteral("rack-b"));
    doc->undoStack()->undo();
    QCOMPARE(doc->spec().machines[0].sw, 0);
}

void TestStudioState::policyListIsGroupedAndCounted()
{
    // Issue 22 point 13: the 50-entry policy list had no groups, tooltips or ticked count.
    MainWindow w;
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    auto* list = w.findChild<QListWidget*>(QStringLiteral("policyList"));
    auto* count = w.findChild<QLabel*>(QStringLiteral("policyCount"));
    QVERIFY(list && count);
    const QStringList policies = w.currentScenario().policies;
    QVERIFY(policies.size() >= 2);
    auto isHeader = [](const QListWidgetItem* it) { return !(it->flags() & Qt::ItemIsUserCheckable); };
    // the scenario's policies first, ticked, in its order, under their own heading
    QVERIFY(isHeader(list->item(0)));
    for (int k = 0; k < policies.size(); ++k) {
        QCOMPARE(list->item(1 + k)->text(), policies[k]);
        QCOMPARE(list->item(1 + k)->checkState(), Qt::Checked);
    }
    // every policy once, with a tooltip; the Gavel policies together under one heading that names Gavel
    const int all = int(ss::policyCatalog().size());
    int items = 0, headers = 0;
    QString heading;
    QSet<QString> seen;
    for (int i = 0; i < list->count(); ++i) {
        const QListWidgetItem* it = list->item(i);
        if (isHeader(it)) {
            heading = it->text();
            ++headers;
            continue;
        }
        ++items;
        QVERIFY2(!seen.contains(it->text()), qPrintable(it->text()));
        seen.insert(it->text());
        QVERIFY2(!it->toolTip().isEmpty(), qPrintable(it->text()));
        if (it->text().startsWith(QLatin1String("gavel-")) && !policies.contains(it->text()))
            QVERIFY2(heading.contains(QLatin1String("Gavel")), qPrintable(heading));
        if (it->text().startsWith(QLatin1String("las+")) && !policies.contains(it->text()))
            QVERIFY2(heading.contains(QLatin1String("las")), qPrintable(heading));
    }
    QCOMPARE(items, all);
    QVERIFY(headers >= 6);
    QCOMPARE(count->text(), QStringLiteral("Policies\n%1 of %2 ticked").arg(policies.size()).arg(all));
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->text() == QLatin1String("gavel-las")) {
            list->item(i)->setCheckState(Qt::Checked);
            break;
        }
    QCOMPARE(count->text(), QStringLiteral("Policies\n%1 of %2 ticked").arg(policies.size() + 1).arg(all));
    QCOMPARE(w.currentScenario().policies.last(), QStringLiteral("gavel-las"));
}

void TestStudioState::exportsSayWhatTheViewShows()
{
    // Issue 22 point 11: the PNG footer and the CSV header described the scenario being edited, not the runs the
    // view shows. After the runs, the scenario gets another trace; Compare's exports still name both runs as they
    // were made, the stepper's names its run, and the trace table's names the new trace.
    MainWindow w;
    QVERIFY(openAndRun(w, kSample)); // das + fifo+firstfit on das-case.csv
    const QString copy = m_dir.filePath(QStringLiteral("renamed-trace.csv"));
    QVERIFY(QFile::copy(kSampleTrace, copy));
    w.loadTrace(copy);
    QVERIFY(w.waitForIdle(20000));
    QVERIFY(w.currentScenario().tracePath.endsWith(QLatin1String("renamed-trace.csv")));
    w.showView(QStringLiteral("compare"));
    auto* exports = w.findChild<ExportMenus*>();
    QVERIFY(exports);
    auto* cdf = w.findChild<QCustomPlot*>(QStringLiteral("compareCdf"));
    auto* bars = w.findChild<QCustomPlot*>(QStringLiteral("compareBars"));
    auto* table = w.findChild<QTableView*>(QStringLiteral("compareTable"));
    auto* gantts = w.findChild<QWidget*>(QStringLiteral("compareGanttPane"));
    QVERIFY(cdf && bars && table && gantts);
    for (QWidget* v : {static_cast<QWidget*>(cdf), static_cast<QWidget*>(bars), static_cast<QWidget*>(table), gantts}) {
        const QString c = exports->captionFor(v);
        QVERIFY2(c.contains(QLatin1String("policy das ")) && c.contains(QLatin1String("policy fifo+firstfit ")), qPrintable(c));
        QVERIFY2(c.contains(QLatin1String("trace das-case")), qPrintable(c));
        QVERIFY2(!c.contains(QLatin1String("renamed-trace")), qPrintable(c));
        QVERIFY2(c.contains(QStringLiteral(" · run ")), qPrintable(c)); // each run's identity
    }
    // the CSV of the compare table carries it as "# " lines
    const QString csv = TableExport::toCsv(table->model(), exports->captionFor(table));
    QVERIFY2(csv.startsWith(QLatin1String("# Compare of 2 runs:\n# ")), qPrintable(csv.left(200)));
    // the stepper's table: the run it shows
    auto* queue = w.findChild<QTableView*>(QStringLiteral("stepperQueue"));
    QVERIFY(queue);
    const QString sc = exports->captionFor(queue);
    QVERIFY2(sc.contains(QLatin1String("trace das-case")) && sc.contains(QStringLiteral(" · run ")), qPrintable(sc));
    // the trace table shows the scenario's (new) trace
    const QString tc = exports->captionFor(w.findChild<QTableView*>(QStringLiteral("traceJobs")));
    QVERIFY2(tc.contains(QLatin1String("renamed-trace.csv")), qPrintable(tc));
}

void TestStudioState::stepperShowsMoreThanTwoRows()
{
    // Issue 22 point 13: in the default layout the stepper's queue table showed two rows. The default layout now
    // gives it eight rows (at most 40 % of the window), and it never shrinks below StepperPanel::kMinQueueRows.
    studioSettings().remove(QStringLiteral("window")); // a first start: no layout saved by an earlier window
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(openAndRun(w, kSample));
    w.setDecision(30);
    QTest::qWait(50);
    auto* queue = w.findChild<QTableView*>(QStringLiteral("stepperQueue"));
    QVERIFY(queue && queue->isVisible());
    QVERIFY(queue->model()->rowCount() >= 6);
    auto visibleRows = [queue] { return queue->viewport()->height() / queue->rowHeight(0); };
    QVERIFY2(visibleRows() >= 8, qPrintable(QString::number(visibleRows())));
    w.resize(1100, 600);
    QTest::qWait(50);
    QVERIFY2(visibleRows() >= StepperPanel::kMinQueueRows - 1, qPrintable(QString::number(visibleRows()))); // a scroll bar may take one
}

QTEST_MAIN(TestStudioState)
#include "tst_studiostate.moc"
