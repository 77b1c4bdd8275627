// The accelerator mode (RELMAS) in the studio: the bundled scenario opens in the accelerator window, every
// scheduler runs, the compare table shows the CLI's figures, the Gantt has one row per sub-accelerator with
// every layer once and misses outlined, the cycle stepper shows the ready layers and every score, the chip view
// what runs at the cycle, and teaching mode walks the cycle.
#include <QDir>
#include <QFile>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "accelviews.h"
#include "accelwindow.h"
#include "heatmapview.h"
#include "mainwindow.h"
#include "policy/relmas/accelpolicies.h"

using namespace ss;
using namespace ss::ui;
using namespace ss::accel;

namespace {
const QString kRelmas = QStringLiteral(SS_SOURCE_DIR "/sample-traces/relmas.scenario.json");
const QString kGpu = QStringLiteral(SS_SOURCE_DIR "/sample-traces/das-case.scenario.json");
} // namespace

class TestAccelView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void compareShowsWhatTheCliComputes();
    void ganttHasEveryLayerOnceAndMarksMisses();
    void cycleShowsReadyLayersScoresAndTheChip();
    void teachingWalksTheCycle();
    void anotherSchedulerKeepsTheTime();
    void badScenarioKeepsTheOpenOne();
    void mainWindowOpensItInTheAcceleratorWindow();
    void cleanupTestCase() { delete m_w; }

private:
    AccelWindow* m_w = nullptr;
    int busyCycle() const; ///< a cycle of the shown run that started at least one layer
};

void TestAccelView::initTestCase()
{
    m_w = new AccelWindow();
    m_w->resize(1400, 900);
    QVERIFY2(m_w->openScenario(kRelmas), qPrintable(m_w->errorText()));
    m_w->show();
    m_w->runAll();
    QVERIFY(m_w->waitForIdle(120000));
    QVERIFY2(m_w->errorText().isEmpty(), qPrintable(m_w->errorText()));
    QCOMPARE(m_w->runs().size(), m_w->scenario()->policies.size());
    QCOMPARE(m_w->policyIndex(), 0);
}

int TestAccelView::busyCycle() const
{
    const auto& cycles = m_w->runs()[size_t(m_w->policyIndex())]->cycles;
    for (size_t k = cycles.size() / 3; k < cycles.size(); ++k)
        if (!cycles[k].assignments.empty())
            return int(k);
    return -1;
}

void TestAccelView::compareShowsWhatTheCliComputes()
{
    // The table's figures are the ones `schedstudio-cli run --scenario` prints: a run of the same scheduler
    // made here without the studio's recorder gives the same SLA rate and energy.
    const AccelScenario& s = *m_w->scenario();
    const CostTable cost(s.workload.chip, s.workload.networks);
    QTableWidget* t = m_w->compareTable();
    QCOMPARE(t->rowCount(), int(s.policies.size()));
    for (int r = 0; r < t->rowCount(); ++r) {
        const std::string policy = t->item(r, 0)->text().toStdString();
        auto sched = makeAccelScheduler(policy, s.params);
        SimConfig cfg = s.sim;
        cfg.keepTimeline = false;
        const AccelMetrics m = computeMetrics(s.workload, simulate(s.workload, cost, *sched, cfg));
        QCOMPARE(t->item(r, 1)->text(), QStringLiteral("%1%").arg(100 * m.slaRate, 0, 'f', 1));
        QCOMPARE(t->item(r, 5)->text(), QString::number(m.energyUj, 'f', 1));
    }
}

void TestAccelView::ganttHasEveryLayerOnceAndMarksMisses()
{
    const StudioRun& run = *m_w->runs()[0];
    AccelGanttView* g = m_w->gantt();
    QCOMPARE(g->rowCount(), int(m_w->scenario()->workload.chip.subs.size()));
    size_t total = 0;
    for (int r = 0; r < g->rowCount(); ++r) {
        const auto& rr = g->rowRuns(r);
        total += rr.size();
        for (size_t i = 0; i + 1 < rr.size(); ++i) // a sub-accelerator runs one layer at a time
            QVERIFY(run.result.timeline[size_t(rr[i])].end <= run.result.timeline[size_t(rr[i + 1])].start + 1e-6);
        for (int i : rr)
            QCOMPARE(run.result.timeline[size_t(i)].sub, r);
    }
    QCOMPARE(total, run.result.timeline.size());
    QCOMPARE(uint64_t(total), run.result.layersRun);
    // the whole run in view: every layer of a request that missed its deadline is outlined
    g->setViewRange(0, run.result.makespan);
    g->grab();
    int missed = 0;
    for (const LayerRun& l : run.result.timeline)
        missed += run.result.requests[size_t(l.request)].met ? 0 : 1;
    QVERIFY2(missed > 0, "the sample scenario should miss some deadlines under the first scheduler");
    QCOMPARE(g->lastMissOutlines(), missed);
}

void TestAccelView::cycleShowsReadyLayersScoresAndTheChip()
{
    const int k = busyCycle();
    QVERIFY(k >= 0);
    m_w->setCycle(k);
    QCOMPARE(m_w->cycle(), k);
    const StudioRun& run = *m_w->runs()[size_t(m_w->policyIndex())];
    const CycleRecord& c = run.cycles[size_t(k)];
    const Workload& w = m_w->scenario()->workload;
    const int S = int(w.chip.subs.size());
    QCOMPARE(m_w->readyTable()->rowCount(), int(c.ready.size()));
    HeatmapView* h = m_w->scoreHeatmap();
    QCOMPARE(h->rows(), int(c.ready.size()));
    QCOMPARE(h->cols(), S);
    QCOMPARE(c.scores.size(), c.ready.size() * size_t(S));
    for (int i = 0; i < h->rows(); ++i)
        for (int sIdx = 0; sIdx < S; ++sIdx)
            QCOMPARE(h->value(i, sIdx), c.scores[size_t(i) * size_t(S) + size_t(sIdx)]);
    const CostTable cost(w.chip, w.networks);
    for (const Assignment& a : c.assignments) {
        // the table names the sub-accelerator a started layer went to ...
        QCOMPARE(m_w->readyTable()->item(a.ready, 6)->text(), QString::fromStdString(w.chip.subs[size_t(a.sub)].name));
        QCOMPARE(m_w->readyTable()->item(a.ready, 0)->text().toInt(), c.ready[size_t(a.ready)].request);
        // ... and the chip view shows it running there, started at the cycle
        const int li = m_w->chip()->running()[size_t(a.sub)];
        QVERIFY(li >= 0);
        const LayerRun& l = run.result.timeline[size_t(li)];
        QCOMPARE(l.request, c.ready[size_t(a.ready)].request);
        QCOMPARE(l.layer, c.ready[size_t(a.ready)].layer);
        QCOMPARE(l.start, c.now);
        // an idle sub-accelerator scores 0 for every layer, a busy one too; the started one scores > 0
        QVERIFY(c.scores[size_t(a.ready) * size_t(S) + size_t(a.sub)] > 0);
    }
    QCOMPARE(m_w->chip()->demand(), demandAt(w, cost, run.result.timeline, c.now));
    QCOMPARE(m_w->gantt()->cursorTime(), c.now);
}

void TestAccelView::teachingWalksTheCycle()
{
    const int k = busyCycle();
    m_w->setCycle(k);
    const StudioRun& run = *m_w->runs()[size_t(m_w->policyIndex())];
    const CycleRecord& c = run.cycles[size_t(k)];
    const Workload& w = m_w->scenario()->workload;
    const QString t = m_w->teachingText();
    QVERIFY2(t.startsWith(QStringLiteral("Cycle %1 ").arg(k + 1)), qPrintable(t));
    const Assignment& a = c.assignments.front();
    QVERIFY2(t.contains(QStringLiteral("request %1 ").arg(c.ready[size_t(a.ready)].request)), qPrintable(t));
    QVERIFY2(t.contains(QString::fromStdString(w.chip.subs[size_t(a.sub)].name)), qPrintable(t));
    const CostTable cost(w.chip, w.networks);
    double demand = c.demand;
    for (const Assignment& x : c.assignments)
        demand += cost.at(c.ready[size_t(x.ready)].network, c.ready[size_t(x.ready)].layer, x.sub).bandwidth;
    QVERIFY2(t.contains(demand > c.budget ? QLatin1String("oversubscribed") : QLatin1String("within the budget")),
             qPrintable(t));
}

void TestAccelView::anotherSchedulerKeepsTheTime()
{
    m_w->setPolicyIndex(0);
    const int k = busyCycle();
    m_w->setCycle(k);
    const double t = m_w->runs()[0]->cycles[size_t(k)].now;
    m_w->setPolicyIndex(1);
    const auto& other = m_w->runs()[1]->cycles;
    QCOMPARE(m_w->cycle(), std::max(0, cycleAt(other, t)));
    QVERIFY(other[size_t(m_w->cycle())].now <= t);
    QCOMPARE(m_w->gantt()->rowCount(), int(m_w->scenario()->workload.chip.subs.size()));
    m_w->setPolicyIndex(0);
}

void TestAccelView::badScenarioKeepsTheOpenOne()
{
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.scenario.json"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"format": "schedstudio-scenario", "version": 1, "mode": "accelerator", "name": "bad",
  "chip": "magma-s5", "networks": ["no-such-network.json"],
  "generator": {"requests": 10, "seed": 1, "tenants": 2, "load": 0.5, "mix": "mixed"}})");
    f.close();
    const size_t runs = m_w->runs().size();
    QVERIFY(!m_w->openScenario(bad));
    QVERIFY2(m_w->errorText().contains(QLatin1String("no-such-network.json")), qPrintable(m_w->errorText()));
    QCOMPARE(QString::fromStdString(m_w->scenario()->name), QStringLiteral("relmas-sample"));
    QCOMPARE(m_w->runs().size(), runs);
}

void TestAccelView::mainWindowOpensItInTheAcceleratorWindow()
{
    // Opened in the main window, an accelerator scenario goes to the accelerator window; the GPU scenario that
    // was open stays as it was.
    MainWindow w;
    QVERIFY(w.openScenario(kGpu));
    QVERIFY(w.waitForIdle(20000));
    const QString before = w.scenarioPath();
    QVERIFY(w.openScenario(kRelmas));
    QVERIFY(w.waitForIdle(20000));
    QVERIFY2(w.bannerText().isEmpty(), qPrintable(w.bannerText()));
    QCOMPARE(w.scenarioPath(), before);
    AccelWindow* a = w.acceleratorWindow();
    QVERIFY(a->scenario());
    QCOMPARE(QString::fromStdString(a->scenario()->name), QStringLiteral("relmas-sample"));
    QVERIFY(a->waitForIdle(120000));
    QCOMPARE(a->runs().size(), a->scenario()->policies.size());
}

QTEST_MAIN(TestAccelView)
#include "tst_accelview.moc"
