// Chronus (policy `chronus`) in the studio, on a hand-checked case: 8 GPUs, leases of 20 min; A (strict, 20 min) and
// B (soft: 20 min value 10, 40 min value 8) each need the whole cluster for one lease, C (strict, 20 min) too. A takes
// lease 0; B fits only by its second deadline (lease 1); C does not fit at all (unaccepted) and runs opportunistically
// when A finishes, until B's guaranteed lease 1 preempts it. The stepper lists the verdicts with their reasons, the
// heatmaps show the plan (jobs x leases), the Gantt draws lease boundaries, opportunistic (hatched) time and deadline
// marks for this run and none for FIFO's, teaching mode walks the lease boundary, and the plan survives the log's
// binary and JSON forms (older logs, without the plan's note, still read).
#include <QLabel>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <fstream>
#include <sstream>

#include "chronusview.h"
#include "ganttpanel.h"
#include "ganttview.h"
#include "heatmapspanel.h"
#include "heatmapview.h"
#include "io/decisionlogjson.h"
#include "io/runio.h"
#include "io/traceio.h"
#include "run/runner.h"
#include "stepperpanel.h"
#include "teaching.h"
#include "viewhelpers.h"

using namespace ss;
using namespace ss::ui;

namespace {

Job sloJob(int64_t id, double gpus, double duration, std::vector<DeadlineLevel> levels)
{
    Job j;
    j.id = id;
    j.submit = 0;
    j.gpus = gpus;
    j.duration = duration;
    j.deadlines = std::move(levels);
    return j;
}

RunPtr handRun(const std::string& policy)
{
    auto cluster = std::make_shared<ClusterSpec>();
    cluster->name = "hand";
    cluster->types = {{"A", 1.0, 16, 1.0}};
    cluster->switches = {{"s0", 100}};
    cluster->machines.push_back({"m0", 0, 8, 0, 0, 0, 25});
    cluster->finalize();
    auto trace = std::make_shared<Trace>();
    trace->jobs.push_back(sloJob(0, 8, 900, {{1200, 10}}));
    trace->jobs.push_back(sloJob(1, 8, 900, {{1200, 10}, {2400, 8}}));
    trace->jobs.push_back(sloJob(2, 8, 900, {{1200, 10}}));
    RunSpec spec;
    spec.policy = policy;
    spec.config.perf = PerfConfig::parse("ideal");
    spec.config.recordDecisions = true;
    spec.keepDecisionLog = true;
    auto e = std::make_shared<RunEntry>();
    e->id = 1;
    e->name = QString::fromStdString(policy);
    e->trace = trace;
    e->cluster = cluster;
    e->out = std::make_shared<RunOutput>(runSimulation(*cluster, *trace, spec));
    return e;
}

const AdmissionRecord* admissionOf(const DecisionRecord& r, int job)
{
    for (const AdmissionRecord& a : r.admissions)
        if (a.job == job)
            return &a;
    return nullptr;
}

// The first decision whose plan belongs to lease k (-1 none).
int planAt(const DecisionLog& log, int64_t k)
{
    for (size_t i = 0; i < log.records.size(); ++i)
        if (chronusPlanLease(log.records[i]) == k)
            return int(i);
    return -1;
}

} // namespace

class TestChronusView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void planAndVerdictsAreLogged();
    void stepperListsVerdictsWithReasons();
    void planHeatmap();
    void ganttLeasesStylesAndDeadlines();
    void teachingWalksALeaseBoundary();
    void planRoundTrip();
    void sampleGanttScreenshot();
};

void TestChronusView::planAndVerdictsAreLogged()
{
    const RunPtr run = handRun("chronus");
    const DecisionLog& log = *run->out->log;
    QVERIFY(!log.records.empty());
    const DecisionRecord& r0 = log.records[0];
    QCOMPARE(r0.time, 0.0);
    QCOMPARE(chronusVerdict(*admissionOf(r0, 0)), ChronusVerdict::Accepted);
    QCOMPARE(chronusVerdict(*admissionOf(r0, 1)), ChronusVerdict::AcceptedLater);
    QCOMPARE(chronusVerdict(*admissionOf(r0, 2)), ChronusVerdict::Unaccepted);
    // why C is unaccepted: one lease of 8 GPUs before its only deadline, and lease 0 is A's
    QVERIFY2(admissionOf(r0, 2)->reason.find("needs 1 lease of 8 GPUs") != std::string::npos, admissionOf(r0, 2)->reason.c_str());
    QVERIFY(admissionOf(r0, 2)->reason.find("only 0 leases there have the GPUs free") != std::string::npos);
    // the plan of lease 0's boundary: A in lease 0 (level 1), B in lease 1 (level 2); C has none
    QCOMPARE(chronusPlanLease(r0), int64_t(0));
    const AllocationRecord& a = r0.allocation;
    QCOMPARE(a.jobs, std::vector<int>({0, 1}));
    QCOMPARE(a.types, std::vector<std::string>({"lease 0", "lease 1"}));
    QCOMPARE(a.share, std::vector<float>({8, 0, 0, 8}));
    QCOMPARE(chronusPlanLevel(a, 0), 1);
    QCOMPARE(chronusPlanLevel(a, 1), 2);
    QVERIFY(!chronusPlanKept(a, 0));
    QVERIFY2(a.note.rfind("MILP optimal", 0) == 0, a.note.c_str());
    QCOMPARE(chronusGuaranteedJobs(a), std::vector<int>({0}));
    // lease 1's boundary (t = 1200): B alone, guaranteed now
    const int k1 = planAt(log, 1);
    QVERIFY(k1 > 0);
    QCOMPARE(log.records[size_t(k1)].time, 1200.0);
    QCOMPARE(log.records[size_t(k1)].allocation->jobs, std::vector<int>({1}));
    QCOMPARE(chronusGuaranteedJobs(log.records[size_t(k1)].allocation), std::vector<int>({1}));
    // decisions inside a lease record no plan; the last one at or before them is found
    for (size_t k = 1; k < size_t(k1); ++k) {
        QCOMPARE(chronusPlanLease(log.records[k]), int64_t(-1));
        QCOMPARE(chronusPlanDecision(log, int(k)), 0);
    }
}

void TestChronusView::stepperListsVerdictsWithReasons()
{
    const RunPtr run = handRun("chronus");
    const DecisionLog& log = *run->out->log;
    ExportMenus exports;
    StepperPanel p(&exports);
    p.setRun(run);
    auto* label = p.findChild<QLabel*>(QStringLiteral("stepperAdmissions"));
    QVERIFY(label);
    p.setDecision(0);
    QVERIFY(!label->isHidden());
    const QStringList lines = label->text().split(QLatin1Char('\n'));
    // the boundary's plan first, then accepted, accepted later, unaccepted: each with the policy's reason
    QVERIFY2(lines.value(0).startsWith(QStringLiteral("lease 0 boundary: MILP optimal")), qPrintable(lines.value(0)));
    QVERIFY(lines.value(0).contains(QStringLiteral("2 accepted SLO job(s) hold plans, 1 guaranteed in lease 0")));
    const DecisionRecord& r0 = log.records[0];
    for (int j = 0; j < 3; ++j)
        QCOMPARE(lines.value(1 + j), QStringLiteral("job %1 %2").arg(j).arg(QString::fromStdString(admissionOf(r0, j)->reason)));
    QVERIFY(lines.value(2).startsWith(QStringLiteral("job 1 accepted with a later deadline: ")));
    QVERIFY(lines.value(3).startsWith(QStringLiteral("job 2 unaccepted SLO: needs 1 lease of 8 GPUs")));
    // the engine's verdict is "accept" for all three; the stepper does not say so
    QVERIFY(!label->text().contains(QStringLiteral(" accept:")));
    bool summary = false;
    for (QLabel* l : p.findChildren<QLabel*>())
        summary |= l->text().contains(QStringLiteral("admission: 1 accepted, 1 with a later deadline, 1 unaccepted"));
    QVERIFY(summary);
    // a decision inside the lease without admissions hides the list
    p.setDecision(1);
    QVERIFY(label->isHidden());
    // best-effort arrivals are one line
    DecisionRecord r;
    r.admissions = {{4, Admit::Accept, kNoScore, "best-effort job (no deadline)"}, {5, Admit::Accept, kNoScore, "best-effort job (no deadline)"}};
    Trace t;
    for (int i = 0; i < 6; ++i)
        t.jobs.push_back(sloJob(100 + i, 1, 60, {}));
    const QStringList be = chronusStepperLines(r, t);
    QCOMPARE(be.size(), 1);
    QVERIFY2(be[0].endsWith(QStringLiteral("jobs 104, 105")), qPrintable(be[0]));
    // many verdicts: one example of each kind with its reason, the rest by id; later and unaccepted stay visible
    DecisionRecord many;
    for (int j = 0; j < 4; ++j)
        many.admissions.push_back({j, Admit::Accept, 60.0f, "accepted SLO: 1 lease of 1 GPUs by lease 3 (deadline 60 min)"});
    many.admissions.push_back({4, Admit::Accept, 80.0f, "accepted with a later deadline: 1 lease of 1 GPUs do not fit"});
    many.admissions.push_back({5, Admit::Accept, -1.0f, "unaccepted SLO: needs 1 lease of 1 GPUs by lease 1"});
    for (int j = 6; j < 9; ++j)
        many.admissions.push_back({j, Admit::Accept, 60.0f, "accepted SLO: 1 lease of 1 GPUs by lease 3 (deadline 60 min)"});
    for (int i = 6; i < 9; ++i)
        t.jobs.push_back(sloJob(100 + i, 1, 60, {{3600, 10}}));
    const QStringList ml = chronusStepperLines(many, t);
    QCOMPARE(ml, QStringList({QStringLiteral("job 100 accepted SLO: 1 lease of 1 GPUs by lease 3 (deadline 60 min)"),
                              QStringLiteral("   … and 6 more accepted SLO: jobs 101, 102, 103, 106, 107, 108"),
                              QStringLiteral("job 104 accepted with a later deadline: 1 lease of 1 GPUs do not fit"),
                              QStringLiteral("job 105 unaccepted SLO: needs 1 lease of 1 GPUs by lease 1")}));
}

void TestChronusView::planHeatmap()
{
    const RunPtr run = handRun("chronus");
    const DecisionLog& log = *run->out->log;
    ExportMenus exports;
    HeatmapsPanel panel(&exports);
    panel.setRun(run.get());
    panel.showDecision(*run, 0);
    const HeatmapView* h = panel.historyMap();
    QVERIFY2(h->title().startsWith(QStringLiteral("Chronus plan of decision 1: SLO job × lease")), qPrintable(h->title()));
    // jobs x leases, 1 = guaranteed: A = (1, 0), B = (0, 1); each with its 8 GPUs and the level its plan meets
    QCOMPARE(h->rows(), 2);
    QCOMPARE(h->cols(), 2);
    QCOMPARE(h->rowLabels(), QStringList({QStringLiteral("job 0 · 8g · L1"), QStringLiteral("job 1 · 8g · L2")}));
    QCOMPARE(h->colLabels(), QStringList({QStringLiteral("lease 0"), QStringLiteral("lease 1")}));
    QCOMPARE(h->value(0, 0), 1.0f);
    QCOMPARE(h->value(0, 1), 0.0f);
    QCOMPARE(h->value(1, 0), 0.0f);
    QCOMPARE(h->value(1, 1), 1.0f);
    QCOMPARE(h->rangeMin(), 0.0f);
    QCOMPARE(h->rangeMax(), 1.0f);
    // inside lease 0 the map keeps decision 1's plan; at lease 1's boundary it shows B alone
    panel.showDecision(*run, 1);
    QVERIFY(h->title().startsWith(QStringLiteral("Chronus plan of decision 1:")));
    QCOMPARE(h->rows(), 2);
    const int k1 = planAt(log, 1);
    panel.showDecision(*run, k1);
    QCOMPARE(h->rows(), 1);
    QCOMPARE(h->cols(), 1);
    QCOMPARE(h->colLabels(), QStringList({QStringLiteral("lease 1")}));
    QCOMPARE(h->value(0, 0), 1.0f);
    // another policy keeps the priority history
    const RunPtr fifo = handRun("fifo+consolidate");
    panel.setRun(fifo.get());
    panel.showDecision(*fifo, 0);
    QVERIFY(!h->title().contains(QStringLiteral("Chronus")));
}

void TestChronusView::ganttLeasesStylesAndDeadlines()
{
    const RunPtr run = handRun("chronus");
    ExportMenus exports;
    GanttPanel panel(&exports);
    panel.resize(900, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setRun(run);
    GanttView* v = panel.view();
    QCOMPARE(v->periodLines(), 1200.0);
    auto* legend = panel.findChild<QLabel*>(QStringLiteral("ganttChronusLegend"));
    QVERIFY(legend && !legend->isHidden());
    QVERIFY(legend->text().contains(QStringLiteral("every 20 min")));
    // one mark per deadline level of the jobs that ran: A 1, B 2, C 1; B's second is a later level
    QCOMPARE(int(v->marks().size()), 4);
    int later = 0, missed = 0;
    for (const GanttMark& m : v->marks()) {
        later += (m.flags & GanttMark::kMarkLater) ? 1 : 0;
        missed += (m.flags & GanttMark::kMarkMissed) ? 1 : 0;
        QVERIFY(v->markRow(m.job) >= 0);
    }
    QCOMPARE(later, 1);
    const RunOutput& o = *run->out;
    int expectMissed = 0; // B misses its first level (20 min) and C its only one, whatever else happens
    for (const JobRecord& j : o.jobs)
        for (const DeadlineLevel& d : run->trace->jobs[size_t(j.index)].deadlines)
            expectMissed += (j.end < 0 || j.end > j.submit + d.offset + 1e-6) ? 1 : 0;
    QCOMPARE(missed, expectMissed);
    QVERIFY(missed >= 2);
    // styles on GPU 0: A guaranteed (lease 0), C opportunistic from 900 s until B's guaranteed lease 1
    std::vector<GanttSegment> segs = v->rowSegments(0);
    auto find = [&](int job, double start) -> const GanttSegment* {
        for (const GanttSegment& s : segs)
            if (s.job == job && std::fabs(s.start - start) < 1e-6)
                return &s;
        return nullptr;
    };
    QVERIFY(find(0, 0) && find(0, 0)->style == 0);
    QVERIFY(find(2, 900) && find(2, 900)->style == 1);
    QCOMPARE(find(2, 900)->end, 1200.0);
    QVERIFY(find(1, 1200) && find(1, 1200)->style == 0);
    // paint: marks in view are drawn
    v->zoomToFit();
    v->grab();
    QVERIFY(v->lastDrawnMarkCount() > 0);
    // docs/screenshots/chronus-gantt-hand.png: SS_SCREENSHOT_DIR=docs/screenshots build/tests/ui/tst_chronusview
    if (const QString dir = qEnvironmentVariable("SS_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(panel.grab().save(dir + QStringLiteral("/chronus-gantt-hand.png")));

    // FIFO on the same trace: no lease lines, no marks, no hatching, no legend
    const RunPtr fifo = handRun("fifo+consolidate");
    panel.setRun(fifo);
    QCOMPARE(v->periodLines(), 0.0);
    QVERIFY(v->marks().empty());
    QVERIFY(legend->isHidden());
    for (int r = 0; r < v->rowCount(); ++r)
        for (const GanttSegment& s : v->rowSegments(r))
            QCOMPARE(int(s.style), 0);
    v->grab();
    QCOMPARE(v->lastDrawnMarkCount(), 0);
}

void TestChronusView::teachingWalksALeaseBoundary()
{
    const RunPtr run = handRun("chronus");
    const DecisionLog& log = *run->out->log;
    const QString html = explainDecision(log, 0, *run->trace, *run->cluster, QStringLiteral("chronus"));
    QVERIFY(html.contains(QStringLiteral("Lease boundary — Chronus plans lease 0")));
    QVERIFY2(html.contains(QStringLiteral("job 0 gets 8 GPU(s) in lease 0, which meets its deadline level 1 (20 min after "
                                          "submission, value 10)")),
             qPrintable(html));
    QVERIFY(html.contains(QStringLiteral("MILP optimal")));
    QVERIFY(html.contains(QStringLiteral("Admission — does the job fit on the leases?")));
    QVERIFY(html.contains(QStringLiteral("job 2 unaccepted SLO: needs 1 lease of 8 GPUs")));
    QVERIFY(!html.contains(QStringLiteral("Allocation — how the time"))); // the plan is not a Gavel allocation
    // inside the lease: where its plan came from
    const QString inside = explainDecision(log, 1, *run->trace, *run->cluster, QStringLiteral("chronus"));
    QVERIFY2(inside.contains(QStringLiteral("Inside lease 0")) && inside.contains(QStringLiteral("made at decision 1")),
             qPrintable(inside));
}

void TestChronusView::planRoundTrip()
{
    const RunPtr run = handRun("chronus");
    const DecisionLog& log = *run->out->log;
    auto same = [](const AllocationRecord& x, const AllocationRecord& y) {
        return x.types == y.types && x.jobs == y.jobs && x.share == y.share && x.estimated == y.estimated && x.note == y.note;
    };
    const std::string blob = encodeDecisionLogBlob(log);
    const DecisionLog back = decodeDecisionLogBlob(blob.data(), blob.size());
    QCOMPARE(back.records.size(), log.records.size());
    for (size_t k = 0; k < log.records.size(); ++k)
        QVERIFY(same(back.records[k].allocation, log.records[k].allocation));
    QVERIFY(!back.records[0].allocation->note.empty());
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("log.ssdlog")).toStdString();
    DecisionLogWriter w(path, log.machineCount, log.gpuCount);
    for (const DecisionRecord& r : log.records)
        w.write(r);
    w.close();
    const DecisionLog file = readDecisionLog(path);
    QCOMPARE(file.records.size(), log.records.size());
    for (size_t k = 0; k < log.records.size(); ++k)
        QVERIFY(same(file.records[k].allocation, log.records[k].allocation));
    // JSON lines carry the note and the plan's level marks
    const std::string json = dir.filePath(QStringLiteral("log.jsonl")).toStdString();
    writeDecisionLogJsonl(log, json);
    std::stringstream text;
    text << std::ifstream(json).rdbuf();
    QVERIFY(text.str().find("\"note\":\"MILP optimal") != std::string::npos || text.str().find("\"note\": \"MILP optimal") != std::string::npos);
    QVERIFY(text.str().find("\"flag\"") != std::string::npos);
    // a version 3 blob (allocation without a note) still reads: one record, types {"x"}, job 5, share 0.5, flag 1
    const unsigned char v3[] = {'S', 'S', 'L', 'B', 3, 1, 8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                1, 1, 'x', 1, 10, 1, 0, 0, 0, 0x3f, 1, 1};
    const DecisionLog old = decodeDecisionLogBlob(v3, sizeof v3);
    QCOMPARE(old.records.size(), size_t(1));
    const AllocationRecord& oa = old.records[0].allocation;
    QCOMPARE(oa.types, std::vector<std::string>({"x"}));
    QCOMPARE(oa.jobs, std::vector<int>({5}));
    QCOMPARE(oa.share, std::vector<float>({0.5f}));
    QVERIFY(oa.note.empty());
}

void TestChronusView::sampleGanttScreenshot()
{
    // docs/screenshots/chronus-gantt-zoom.png: the bundled scenario's first three hours (the GUI's --screenshot shows
    // the whole run, where one long job stretches the axis to 2.6 days). Only with SS_SCREENSHOT_DIR set.
    const QString dir = qEnvironmentVariable("SS_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("set SS_SCREENSHOT_DIR to write the screenshot");
    const Scenario sc = readScenario(SS_SOURCE_DIR "/sample-traces/chronus.scenario.json");
    const ExperimentPlan plan = planScenario(sc);
    RunSpec spec = plan.runs.at(0).spec;
    QCOMPARE(spec.policy, std::string("chronus"));
    spec.config.recordDecisions = true;
    spec.keepDecisionLog = true;
    auto e = std::make_shared<RunEntry>();
    e->name = QStringLiteral("chronus");
    e->trace = plan.inputs.at(0).trace;
    e->cluster = plan.inputs.at(0).cluster;
    e->out = std::make_shared<RunOutput>(runSimulation(*e->cluster, *e->trace, spec));
    ExportMenus exports;
    GanttPanel panel(&exports);
    panel.resize(1400, 760);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setRun(e);
    panel.view()->setViewRange(0, 3 * 3600);
    panel.setCursorTime(40 * 60);
    QVERIFY(panel.grab().save(dir + QStringLiteral("/chronus-gantt-zoom.png")));
}

QTEST_MAIN(TestChronusView)
#include "tst_chronusview.moc"
