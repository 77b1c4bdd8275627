// OASiS (policy `oasis`) in the studio: the stepper lists every admission verdict with its payoff breakdown (rejected
// jobs too), the heatmaps show the worker servers' GPU prices over the coming slots, and teaching mode walks an
// admission in one sentence.
#include <QLabel>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

#include <cmath>

#include "ganttpanel.h"
#include "ganttview.h"
#include "heatmapspanel.h"
#include "heatmapview.h"
#include "io/traceio.h"
#include "oasisslots.h"
#include "oasisview.h"
#include "io/oasisio.h"
#include "policy/oasis/oasispolicy.h"
#include "policy/oasis/oasissim.h"
#include "run/runner.h"
#include "stepperpanel.h"
#include "teaching.h"
#include "viewhelpers.h"

using namespace ss;
using namespace ss::ui;

namespace {
// The bundled scenario's run (sample-traces/oasis.scenario.json): the DAS case-study trace on das-case, perf ideal;
// it admits some jobs and rejects others.
RunPtr oasisRun()
{
    auto cluster = std::make_shared<ClusterSpec>(makeClusterPreset("das-case"));
    cluster->finalize();
    auto trace = std::make_shared<Trace>(readTrace(SS_SOURCE_DIR "/sample-traces/das-case.csv"));
    RunSpec spec;
    spec.policy = "oasis";
    spec.config.perf = PerfConfig::parse("ideal");
    spec.config.recordDecisions = true;
    spec.keepDecisionLog = true;
    auto e = std::make_shared<RunEntry>();
    e->id = 1;
    e->name = QStringLiteral("oasis");
    e->trace = trace;
    e->cluster = cluster;
    e->out = std::make_shared<RunOutput>(runSimulation(*cluster, *trace, spec));
    return e;
}

// First decision with an accepted (want = Accept) or rejected admission; -1 if none.
int decisionWith(const DecisionLog& log, Admit want)
{
    for (size_t k = 0; k < log.records.size(); ++k)
        for (const AdmissionRecord& a : log.records[k].admissions)
            if (a.verdict == want)
                return int(k);
    return -1;
}
} // namespace

class TestOasisView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void stepperListsPayoffsAndRejections();
    void priceHeatmap();
    void priceRecordRoundTrip();
    void teachingWalksAnAdmission();
    void scheduleSummaryParses();
    void slotStripShowsWorkersAndPsPerSlot();
    void slottedWindowShowsElasticCounts();
};

void TestOasisView::stepperListsPayoffsAndRejections()
{
    const RunPtr run = oasisRun();
    const DecisionLog& log = *run->out->log;
    const int acc = decisionWith(log, Admit::Accept), rej = decisionWith(log, Admit::Reject);
    QVERIFY2(acc >= 0 && rej >= 0, "the bundled scenario admits some jobs and rejects others");
    ExportMenus exports;
    StepperPanel p(&exports);
    p.setRun(run);
    auto* label = p.findChild<QLabel*>(QStringLiteral("stepperAdmissions"));
    QVERIFY(label);
    for (int k : {acc, rej}) {
        p.setDecision(k);
        QVERIFY(!label->isHidden());
        const QString text = label->text();
        // every verdict of this decision, by trace id, with its breakdown
        for (const AdmissionRecord& a : log.records[size_t(k)].admissions) {
            const QString line = QStringLiteral("job %1 %2: %3")
                                     .arg(run->trace->jobs[size_t(a.job)].id)
                                     .arg(QString::fromUtf8(toString(a.verdict)), QString::fromStdString(a.reason));
            QVERIFY2(text.contains(line), qPrintable(text + QStringLiteral(" lacks ") + line));
            if (a.reason != "no schedule finishes within the horizon")
                QVERIFY(line.contains(QRegularExpression(QStringLiteral("utility \\S+ - worker cost \\S+ - PS cost \\S+ = payoff"))));
        }
    }
    // a decision without admissions hides the list
    int none = -1;
    for (size_t k = 0; k < log.records.size() && none < 0; ++k)
        if (log.records[k].admissions.empty())
            none = int(k);
    QVERIFY(none >= 0);
    p.setDecision(none);
    QVERIFY(label->isHidden());
}

void TestOasisView::priceHeatmap()
{
    const RunPtr run = oasisRun();
    const DecisionLog& log = *run->out->log;
    const int k = decisionWith(log, Admit::Accept);
    QVERIFY(k >= 0);
    // the policy recorded the GPU prices of every worker server over the coming slots at this decision
    const AllocationRecord& a = log.records[size_t(k)].allocation;
    QCOMPARE(int(a.jobs.size()), run->cluster->machineCount());
    QVERIFY(!a.types.empty() && int(a.types.size()) <= oasis::kPriceSlots);
    QVERIFY(QString::fromStdString(a.types[0]).startsWith(QStringLiteral("slot ")));
    float lo = a.share[0], hi = a.share[0];
    for (float v : a.share) {
        QVERIFY(v > 0);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    QVERIFY2(hi > lo * 1.01f, "the admitted job's reservation raises some prices above the zero-load price");
    // decisions that offered nothing carry no prices
    for (const DecisionRecord& r : log.records)
        if (r.admissions.empty())
            QVERIFY(r.allocation.empty());

    ExportMenus exports;
    HeatmapsPanel panel(&exports);
    panel.setRun(run.get());
    panel.showDecision(*run, k);
    const HeatmapView* h = panel.historyMap();
    QVERIFY(h->title().contains(QStringLiteral("OASiS GPU price")));
    QCOMPARE(h->rows(), run->cluster->machineCount());
    QCOMPARE(h->cols(), int(a.types.size()));
    QCOMPARE(h->rowLabels().front(), QString::fromStdString(run->cluster->machines[0].name));
    QCOMPARE(h->colLabels().front(), QString::fromStdString(a.types[0]));
    QCOMPARE(h->value(1, 0), std::log10(a.at(1, 0))); // log10 of the price (exponential in the reserved share)
    // a later decision without an offer shows the prices of the last one that had one
    if (k + 1 < int(log.records.size()) && log.records[size_t(k + 1)].allocation.empty()) {
        panel.showDecision(*run, k + 1);
        QVERIFY(h->title().contains(QStringLiteral("decision %1's").arg(k + 1)));
    }
}

void TestOasisView::priceRecordRoundTrip()
{
    // the price map rides in the log's allocation record: the binary blob keeps it exactly
    const RunPtr run = oasisRun();
    const DecisionLog& log = *run->out->log;
    const std::string blob = encodeDecisionLogBlob(log);
    const DecisionLog back = decodeDecisionLogBlob(blob.data(), blob.size());
    QCOMPARE(back.records.size(), log.records.size());
    int withPrices = 0;
    for (size_t k = 0; k < log.records.size(); ++k) {
        const AllocationRecord& x = log.records[k].allocation;
        const AllocationRecord& y = back.records[k].allocation;
        QCOMPARE(y.types, x.types);
        QCOMPARE(y.jobs, x.jobs);
        QCOMPARE(y.share, x.share);
        withPrices += !x.empty();
        QCOMPARE(back.records[k].admissions.size(), log.records[k].admissions.size());
        for (size_t i = 0; i < log.records[k].admissions.size(); ++i)
            QCOMPARE(back.records[k].admissions[i].reason, log.records[k].admissions[i].reason);
    }
    QVERIFY(withPrices > 0);
}

void TestOasisView::teachingWalksAnAdmission()
{
    const RunPtr run = oasisRun();
    const DecisionLog& log = *run->out->log;
    const int k = decisionWith(log, Admit::Accept);
    QVERIFY(k >= 0);
    const AdmissionRecord* acc = nullptr;
    for (const AdmissionRecord& a : log.records[size_t(k)].admissions)
        if (a.verdict == Admit::Accept && !acc)
            acc = &a;
    const OasisAdmission p = parseOasisAdmission(acc->reason);
    QVERIFY(p.ok && p.admitted);
    QVERIFY(std::fabs(p.utility - p.workerCost - p.psCost - p.payoff) < 1e-3 * (1 + std::fabs(p.utility)));
    QVERIFY(p.payoff > 0);
    const Job& job = run->trace->jobs[size_t(acc->job)];
    const QString s = oasisAdmissionSentence(*acc, *run->trace);
    // "job 12: utility 3.1 − worker cost 1.2 − PS cost 0.4 = payoff 1.5 > 0, admitted; its schedule: 4 workers, 1 PS
    // in slots 10–13 on servers m0, m3"
    const QRegularExpression re(QStringLiteral("^job %1: utility (\\S+) − worker cost (\\S+) − PS cost (\\S+) "
                                               "= payoff (\\S+) > 0, admitted; its schedule: %2 workers?, \\d+ PSs? "
                                               "in slots? \\d+(–\\d+)?(, \\d+(–\\d+)?)* on servers? (\\S+)")
                                    .arg(job.id)
                                    .arg(job.wholeGpus()));
    const QRegularExpressionMatch m = re.match(s);
    QVERIFY2(m.hasMatch(), qPrintable(s));
    auto number = [&m](int i) { return m.captured(i).replace(QChar(0x2212), QLatin1Char('-')).toDouble(); };
    QCOMPARE(number(1), QString::number(p.utility, 'g', 4).toDouble());
    QCOMPARE(number(2), QString::number(p.workerCost, 'g', 4).toDouble());
    QCOMPARE(number(4), QString::number(p.payoff, 'g', 4).toDouble());
    // the servers named are machines of the cluster, and the job's first placement is on them
    bool known = false;
    for (const Machine& mc : run->cluster->machines)
        known |= s.contains(QStringLiteral("server ") + QString::fromStdString(mc.name)) ||
                 s.contains(QStringLiteral("servers ") + QString::fromStdString(mc.name));
    QVERIFY(known);
    // teaching mode at that decision carries the sentence (HTML-escaped) and explains the test
    const QString html = explainDecision(log, k, *run->trace, *run->cluster, QStringLiteral("oasis"));
    QVERIFY(html.contains(s.toHtmlEscaped()));
    QVERIFY(html.contains(QStringLiteral("Admission — OASiS")));
    QVERIFY(html.contains(QStringLiteral("Gantt's OASiS strip"))); // points to the workers / PSs per slot
    QVERIFY(!html.contains(QStringLiteral("Allocation — how the time"))); // the prices are not a Gavel allocation
    // a rejected job's sentence says so (one server: singular)
    AdmissionRecord neg {acc->job, Admit::Reject, -7.0f,
                         "utility 3 - worker cost 8 - PS cost 2 = payoff -7; rejected (payoff <= 0), completes slot 4; "
                         "schedule: 2 workers, 1 PS in slots 3-4 on m1"};
    QCOMPARE(oasisAdmissionSentence(neg, *run->trace),
             QStringLiteral("job %1: utility 3 − worker cost 8 − PS cost 2 = payoff −7 ≤ 0, rejected; its cheapest schedule "
                            "would have been 2 workers, 1 PS in slots 3–4 on server m1 (nothing reserved)").arg(job.id));
}

void TestOasisView::scheduleSummaryParses()
{
    const OasisScheduleSummary a = parseOasisSchedule(QStringLiteral("4 workers, 1 PS in slots 10-13, 15 on m0, m3"));
    QVERIFY(a.ok);
    QCOMPARE(a.workersLo, 4);
    QCOMPARE(a.workersHi, 4);
    QCOMPARE(a.psLo, 1);
    QCOMPARE(a.slots, (std::vector<int> {10, 11, 12, 13, 15}));
    const OasisScheduleSummary b = parseOasisSchedule(QStringLiteral("1-4 workers, 1-2 PSs in slot 3 on server 7"));
    QVERIFY(b.ok);
    QCOMPARE(b.workersLo, 1);
    QCOMPARE(b.workersHi, 4);
    QCOMPARE(b.psHi, 2);
    QCOMPARE(b.slots, (std::vector<int> {3}));
    QVERIFY(!parseOasisSchedule(QStringLiteral("no slots")).ok);
    QVERIFY(!parseOasisSchedule(QStringLiteral("2 workers, 1 PS in slots 5-3 on m0")).ok);
}

void TestOasisView::slotStripShowsWorkersAndPsPerSlot()
{
    const RunPtr run = oasisRun();
    const DecisionLog& log = *run->out->log;
    int accepted = 0;
    for (const DecisionRecord& r : log.records)
        for (const AdmissionRecord& a : r.admissions)
            accepted += a.verdict == Admit::Accept;
    const OasisSlotsData d = oasisSlotsOf(*run);
    QCOMPARE(int(d.jobs.size()), accepted);
    QCOMPARE(d.slotSeconds, 600.0);
    int planned = 0;
    for (const OasisJobSlots& j : d.jobs) {
        const Job& job = run->trace->jobs[size_t(j.job)];
        QCOMPARE(j.id, (long long)job.id);
        // the engine's schedules are rigid: the job's whole gang in every planned slot, PSs by the bandwidth rule
        // (fromTrace: b = 1 Gbit/s, B = 4 Gbit/s, so one PS per 4 workers)
        QCOMPARE(j.workersHi, job.wholeGpus());
        QCOMPARE(j.psHi, (job.wholeGpus() + 3) / 4);
        for (const OasisSlotCell& c : j.cells) {
            // with --perf ideal every admitted job runs exactly its plan: it holds its gang in each planned slot and
            // nothing outside it
            QVERIFY2(c.planned(), qPrintable(QStringLiteral("job %1 held GPUs in unplanned slot %2").arg(j.id).arg(c.slot)));
            QCOMPARE(c.held, c.workersHi);
            ++planned;
        }
    }
    QVERIFY(planned > 0);
    // the strip under the Gantt: shown for OASiS runs, with a cell per planned slot in view and tooltips
    ExportMenus exports;
    GanttPanel panel(&exports);
    panel.resize(1200, 600);
    panel.setRun(run);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    OasisSlotStrip* strip = panel.oasisStrip();
    QVERIFY(strip && strip->isVisible());
    QCOMPARE(int(strip->data().jobs.size()), accepted);
    strip->grab();
    QCOMPARE(strip->lastDrawnCells(), planned); // zoomed to fit: every planned cell is in view
    // the tooltip of the first job's first cell names its slot and counts
    const OasisJobSlots& j0 = strip->data().jobs.front();
    const OasisSlotCell& c0 = j0.cells.front();
    const double mid = (c0.slot + 0.5) * d.slotSeconds;
    const int x = int(panel.view()->xOf(mid) + panel.view()->mapTo(&panel, QPoint(0, 0)).x() - strip->mapTo(&panel, QPoint(0, 0)).x());
    const int y = strip->fontMetrics().height() + 4 + 2;
    const QString tip = strip->tipAt(QPoint(x, y));
    QVERIFY2(tip.contains(QStringLiteral("job %1, slot %2").arg(j0.id).arg(c0.slot)), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("reserved %1 worker(s) y(t) and %2 PS(s) z(t); held %3 GPU(s)")
                              .arg(c0.workersHi).arg(c0.psHi).arg(c0.held)),
             qPrintable(tip));
    // selecting in the strip selects the job
    QSignalSpy spy(strip, &OasisSlotStrip::jobSelected);
    QTest::mouseClick(strip, Qt::LeftButton, {}, QPoint(x, y));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), j0.job);
    // the stepper's line for an admitted job points at its row
    const QStringList lines = admissionLines(log.records[size_t(decisionWith(log, Admit::Accept))], *run->trace);
    QVERIFY(lines.front().contains(QStringLiteral("(per slot: Gantt, OASiS strip row j")));
    // another policy's run hides the strip
    auto other = std::make_shared<RunEntry>(*run);
    auto out = std::make_shared<RunOutput>(*run->out);
    out->policy = "fifo+firstfit";
    other->out = out;
    panel.setRun(other);
    QVERIFY(!strip->isVisible());
    QVERIFY(oasisSlotsOf(*other).jobs.empty());
}

void TestOasisView::slottedWindowShowsElasticCounts()
{
    const QString path = QStringLiteral(SS_SOURCE_DIR "/sample-traces/oasis-ps.json");
    OasisSlottedWindow win(path);
    win.show();
    QVERIFY(QTest::qWaitForWindowExposed(&win));
    const ss::oasis::OasisScenario sc = ss::oasis::readScenario(path.toStdString());
    ss::oasis::RunOptions o;
    o.keepSchedules = true;
    const ss::oasis::OasisRun run = ss::oasis::runOasisPolicy(sc, "oasis", o);
    QVERIFY2(win.summary().contains(QStringLiteral("oasis: total utility %1, %2 admitted").arg(run.totalUtility, 0, 'f', 2).arg(run.admitted)),
             qPrintable(win.summary()));
    const OasisSlotsData& d = win.strip()->data();
    QCOMPARE(int(d.jobs.size()), run.admitted); // every admitted job runs its plan
    bool elastic = false;
    for (const OasisJobSlots& j : d.jobs) {
        const ss::oasis::OasisJob& job = sc.jobs[size_t(j.job)];
        int work = 0;
        for (const OasisSlotCell& c : j.cells) {
            // the seed's constraints per slot: worker cap, bandwidth guarantee, PS count
            QVERIFY(c.workersHi >= 1 && c.workersHi <= job.chunks);
            QVERIFY(c.workersHi * job.workerBw <= c.psHi * job.psBw + 1e-9);
            QVERIFY(c.psHi <= c.workersHi);
            work += c.workersHi;
        }
        QVERIFY(work >= job.workerSlots(sc.slotSeconds));
        QCOMPARE(j.cells.back().slot, run.jobs[size_t(j.job)].completion);
        elastic |= j.workersLo < j.workersHi;
    }
    QVERIFY2(elastic, "some job's worker count changes from slot to slot");
    win.strip()->grab();
    QVERIFY(win.strip()->lastDrawnCells() > 0);
    // docs/screenshots/oasis-slotted.png: SS_SCREENSHOT_DIR=docs/screenshots build/tests/ui/tst_oasisview
    if (const QString dir = qEnvironmentVariable("SS_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(win.grab().save(dir + QStringLiteral("/oasis-slotted.png")));
    // another policy: its counts
    win.setPolicy(QStringLiteral("dorm"));
    const ss::oasis::OasisRun dorm = ss::oasis::runOasisPolicy(sc, "dorm", o);
    QVERIFY(win.summary().contains(QStringLiteral("dorm: total utility %1").arg(dorm.totalUtility, 0, 'f', 2)));
    int ran = 0;
    for (const auto& w : dorm.workersOverTime)
        ran += !w.empty();
    QCOMPARE(int(win.strip()->data().jobs.size()), ran);
    // a bad file is an error naming it
    QVERIFY_THROWS_EXCEPTION(std::exception, OasisSlottedWindow(QStringLiteral("/nonexistent/oasis.json")));
}

QTEST_MAIN(TestOasisView)
#include "tst_oasisview.moc"
