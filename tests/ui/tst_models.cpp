// Item models, topology undo/redo, scenario files and teaching text of the studio (ui/).
#include <QAbstractItemModelTester>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cmath>

#include "clusterdocument.h"
#include "io/traceio.h"
#include "model/tracegen.h"
#include "models.h"
#include "scenario.h"
#include "run/runner.h"
#include "teaching.h"

using namespace ss;
using namespace ss::ui;

namespace {
std::shared_ptr<Trace> smallTrace(int jobs = 40, uint64_t seed = 3)
{
    TraceGenConfig cfg;
    cfg.jobs = jobs;
    cfg.seed = seed;
    cfg.clusterGpus = 32;
    cfg.load = 1.4;
    cfg.durationScale = 0.05;
    auto t = std::make_shared<Trace>(generateTrace(cfg));
    t->name = "gen";
    return t;
}

RunPtr makeRun(int id, std::shared_ptr<const Trace> trace, const std::string& policy, uint64_t seed)
{
    auto cluster = std::make_shared<ClusterSpec>(makeClusterPreset("das-case"));
    cluster->finalize();
    RunSpec spec;
    spec.policy = policy;
    spec.config.seed = seed;
    spec.config.perf = PerfConfig::parse("fluctuation_sd=0.1");
    spec.config.recordDecisions = true;
    spec.keepDecisionLog = true;
    auto e = std::make_shared<RunEntry>();
    e->id = id;
    e->name = QString::fromStdString(policy) + QStringLiteral(" seed %1").arg(seed);
    e->clusterLabel = QStringLiteral("das-case");
    e->trace = trace;
    e->cluster = cluster;
    e->out = std::make_shared<RunOutput>(runSimulation(*cluster, *trace, spec));
    return e;
}
} // namespace

class TestModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void jobTableModel();
    void jobFilterProxy();
    void runHistoryModel();
    void compareModel();
    void queueModel();
    void machineAndLinkModels();
    void topologyUndoRestoresExactSpec();
    void removeSwitchRefusedWithMachines();
    void scenarioRoundTrip();
    void scenarioErrors();
    void teachingText();
    void teachingAllocationSentence();
};

void TestModels::jobTableModel()
{
    JobTableModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(m.rowCount(), 0);
    auto trace = smallTrace();
    m.setTrace(trace);
    QCOMPARE(m.rowCount(), int(trace->jobs.size()));
    QCOMPARE(m.index(5, JobTableModel::Id).data().toString(), QString::number(trace->jobs[5].id));
    QCOMPARE(m.index(5, JobTableModel::Gpus).data(SortRole).toDouble(), trace->jobs[5].gpus);
    QVERIFY(!m.index(5, JobTableModel::Jct).data().isValid()); // no run attached
    RunPtr run = makeRun(1, trace, "fifo+firstfit", 1);
    m.setTrace(trace, run->out);
    const JobRecord& r = run->out->jobs[7];
    QVERIFY(r.jct > 0);
    QCOMPARE(m.index(7, JobTableModel::Jct).data(SortRole).toDouble(), r.jct / 60);
    QCOMPARE(m.index(7, JobTableModel::Status).data().toString(), QString::fromLatin1(toString(r.status)));
    QCOMPARE(m.index(7, 0).data(JobIndexRole).toInt(), 7);
}

void TestModels::jobFilterProxy()
{
    JobTableModel m;
    auto trace = smallTrace(200, 5);
    m.setTrace(trace);
    JobFilterProxy p;
    p.setSourceModel(&m);
    QAbstractItemModelTester tester(&p, QAbstractItemModelTester::FailureReportingMode::QtTest);
    int big = 0;
    for (const Job& j : trace->jobs)
        big += j.gpus >= 4;
    QVERIFY(big > 0 && big < 200);
    p.setSearch(QStringLiteral("gpus>=4"));
    QCOMPARE(p.rowCount(), big);
    p.setSearch(QString());
    QCOMPARE(p.rowCount(), 200);
    // Text search on the model name.
    const QString model = QString::fromStdString(trace->modelName(trace->jobs[0]));
    int withModel = 0;
    for (const Job& j : trace->jobs)
        withModel += QString::fromStdString(trace->modelName(j)).contains(model, Qt::CaseInsensitive) ||
                     QString::number(j.id).contains(model);
    p.setSearch(model);
    QCOMPARE(p.rowCount(), withModel);
    // Numeric sort by duration, not text order.
    p.setSearch(QString());
    p.sort(JobTableModel::Duration, Qt::DescendingOrder);
    double prev = 1e300;
    for (int r = 0; r < p.rowCount(); ++r) {
        const double d = p.index(r, JobTableModel::Duration).data(SortRole).toDouble();
        QVERIFY(d <= prev);
        prev = d;
    }
    // Another run on the same trace updates the result columns in place (no reset, which would re-sort
    // 100k rows in one go) and the proxy, sorted by a result column, follows the new values.
    auto sortedByJct = [&] {
        double last = -1;
        for (int r = 0; r < p.rowCount(); ++r) {
            const double v = p.index(r, JobTableModel::Jct).data(SortRole).toDouble();
            if (v < last)
                return false;
            last = v;
        }
        return true;
    };
    RunPtr a = makeRun(1, trace, "fifo+firstfit", 1), b = makeRun(2, trace, "sjf+bestfit", 1);
    m.setTrace(trace, a->out);
    p.sort(JobTableModel::Jct, Qt::AscendingOrder);
    QVERIFY(sortedByJct());
    QSignalSpy resets(&m, &QAbstractItemModel::modelReset), changes(&m, &QAbstractItemModel::dataChanged);
    m.setTrace(trace, b->out);
    QCOMPARE(resets.count(), 0);
    QCOMPARE(changes.count(), 1);
    QCOMPARE(m.index(3, JobTableModel::Jct).data(SortRole).toDouble(), b->out->jobs[3].jct / 60);
    QVERIFY(sortedByJct());
    m.setTrace(trace, b->out); // same run again: nothing to do
    QCOMPARE(changes.count(), 1);
    m.setTrace(smallTrace(50, 9)); // another trace: a reset
    QCOMPARE(resets.count(), 1);
    QCOMPARE(p.rowCount(), 50);
}

void TestModels::runHistoryModel()
{
    RunHistoryModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto trace = smallTrace();
    QSignalSpy checked(&m, &RunHistoryModel::checkedChanged);
    m.addRun(makeRun(1, trace, "fifo+firstfit", 1));
    m.addRun(makeRun(2, trace, "sjf+bestfit", 1), false);
    QCOMPARE(m.rowCount(), 2);
    QCOMPARE(m.checkedRuns().size(), 1);
    QCOMPARE(m.index(1, RunHistoryModel::Policy).data().toString(), QStringLiteral("sjf+bestfit"));
    QCOMPARE(m.index(0, RunHistoryModel::MeanJct).data(SortRole).toDouble(), m.run(0)->out->summary.meanJctMin);
    QVERIFY(m.setData(m.index(1, RunHistoryModel::Name), Qt::Checked, Qt::CheckStateRole));
    QCOMPARE(m.checkedRuns().size(), 2);
    QVERIFY(m.setData(m.index(0, RunHistoryModel::Name), QStringLiteral("baseline"), Qt::EditRole));
    QCOMPARE(m.run(0)->name, QStringLiteral("baseline"));
    QCOMPARE(m.rowOfId(2), 1);
    // Run history says when each run finished (issue 22 point 13): today's by the clock, sortable by time
    QCOMPARE(m.headerData(RunHistoryModel::Finished, Qt::Horizontal, Qt::DisplayRole).toString(), QStringLiteral("Finished"));
    QVERIFY(QTime::fromString(m.index(0, RunHistoryModel::Finished).data().toString(), QStringLiteral("HH:mm:ss")).isValid());
    QVERIFY(m.index(0, RunHistoryModel::Finished).data(SortRole).toLongLong() <= m.index(1, RunHistoryModel::Finished).data(SortRole).toLongLong());
    m.removeRun(0);
    QCOMPARE(m.rowCount(), 1);
    QCOMPARE(m.rowOfId(2), 0);
    QVERIFY(checked.count() >= 4);
}

void TestModels::compareModel()
{
    auto trace = smallTrace();
    QVector<RunPtr> runs{makeRun(1, trace, "fifo+firstfit", 1), makeRun(2, trace, "fifo+firstfit", 2),
                         makeRun(3, trace, "sjf+bestfit", 1)};
    CompareModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.setRuns(runs);
    QCOMPARE(m.rowCount(), 2); // grouped by policy
    const auto& g = m.groups()[0];
    QCOMPARE(g.runs.size(), 2);
    const double a = runs[0]->out->summary.meanJctMin, b = runs[1]->out->summary.meanJctMin;
    QVERIFY(a != b); // seeds differ through the perf noise
    QCOMPARE(g.stat[CompareModel::MeanJct].mean, (a + b) / 2);
    QVERIFY(std::abs(g.stat[CompareModel::MeanJct].sd - std::abs(a - b) / std::sqrt(2.0)) < 1e-9);
    QVERIFY(m.index(0, CompareModel::MeanJct).data().toString().contains(QStringLiteral("±")));
    QCOMPARE(m.groups()[1].stat[CompareModel::Fee].mean, runs[2]->out->summary.totalFeeUsd);
    QCOMPARE(m.groups()[0].label, QStringLiteral("fifo+firstfit")); // nothing but the policy differs
    QCOMPARE(m.index(1, CompareModel::Policy).data().toString(), QStringLiteral("sjf+bestfit"));

    // Issue 22 point 5: a rerun of seed 1 counts once (the latest run), and a run on another perf model is a
    // group of its own whose label says so.
    RunPtr again = makeRun(4, trace, "fifo+firstfit", 1);
    auto other = std::make_shared<RunEntry>(*makeRun(5, trace, "fifo+firstfit", 1));
    {
        RunSpec spec = other->out->spec;
        spec.config.perf = PerfConfig::parse("ideal");
        other->out = std::make_shared<RunOutput>(runSimulation(*other->cluster, *trace, spec));
    }
    m.setRuns({runs[0], runs[1], runs[2], again, other});
    QCOMPARE(m.rowCount(), 3);
    const auto& g0 = m.groups()[0];
    QCOMPARE(g0.runs.size(), 2); // seeds 1 and 2, not 1, 2, 1
    QCOMPARE(g0.reruns, 1);
    QCOMPARE(g0.stat[CompareModel::MeanJct].mean, (again->out->summary.meanJctMin + b) / 2);
    QVERIFY(m.index(0, CompareModel::Group).data(Qt::ToolTipRole).toString().contains(QStringLiteral("rerun")));
    QVERIFY2(m.groups()[2].label.contains(QStringLiteral("perf ")), qPrintable(m.groups()[2].label));
    QVERIFY2(m.groups()[0].label.contains(QStringLiteral("perf ")), qPrintable(m.groups()[0].label));
    QVERIFY(m.groups()[0].label != m.groups()[2].label);
    QCOMPARE(m.index(2, CompareModel::Perf).data().toString(), QString::fromStdString(other->out->perf));

    // The policies' own figures are columns after the fixed ones: mean over the runs that report each, empty
    // for a group whose policy does not (issue 17: Gavel's ideal mode beside the mechanism).
    auto withStats = [&](int id, uint64_t seed, double ideal) {
        auto r = std::make_shared<RunEntry>(*makeRun(id, trace, "fifo+firstfit", seed));
        auto out = std::make_shared<RunOutput>(*r->out);
        out->summary.policyStats = {{"ideal_mean_jct_min", ideal}, {"rounds", 7}};
        r->out = out;
        return r;
    };
    m.setRuns({withStats(6, 1, 10.0), withStats(7, 2, 14.0), runs[2]});
    QCOMPARE(m.policyKeys(), (QStringList{QStringLiteral("ideal_mean_jct_min"), QStringLiteral("rounds")}));
    QCOMPARE(m.columnCount(), int(CompareModel::ColumnCount) + 2);
    QCOMPARE(m.headerData(CompareModel::ColumnCount, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("ideal_mean_jct_min"));
    QCOMPARE(m.index(0, CompareModel::ColumnCount).data(SortRole).toDouble(), 12.0);
    QVERIFY(m.index(0, CompareModel::ColumnCount).data().toString().startsWith(QStringLiteral("12 ±")));
    QCOMPARE(m.index(0, CompareModel::ColumnCount + 1).data().toString(), QStringLiteral("7 ± 0"));
    QVERIFY(m.index(1, CompareModel::ColumnCount).data().toString().isEmpty()); // sjf+bestfit reports none
}

void TestModels::queueModel()
{
    auto trace = smallTrace();
    RunPtr run = makeRun(1, trace, "sjf+bestfit", 1);
    QVERIFY(run->out->log && !run->out->log->records.empty());
    QueueModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    int withQueue = -1;
    for (size_t k = 0; k < run->out->log->records.size(); ++k)
        if (run->out->log->records[k].queue.size() >= 2) {
            withQueue = int(k);
            break;
        }
    QVERIFY(withQueue >= 0);
    m.setDecision(trace, run->out->log, withQueue);
    const DecisionRecord& r = run->out->log->records[size_t(withQueue)];
    QCOMPARE(m.rowCount(), int(r.queue.size()));
    QCOMPARE(m.index(0, QueueModel::Priority).data(SortRole).toDouble(), double(r.queue[0].priority));
    QCOMPARE(m.index(1, QueueModel::Job).data().toString(), QString::number(trace->jobs[size_t(r.queue[1].job)].id));
    // The Placed column says why a tried job did not start (the policy's reason); an untried one is said to wait
    // for GPUs or to be held back, from the GPUs free after the decision (issue 22 point 12).
    auto log = std::make_shared<DecisionLog>(*run->out->log);
    DecisionRecord& edited = log->records[size_t(withQueue)];
    edited.placements.clear();
    PlacementRecord held;
    held.job = r.queue[0].job;
    held.reason = "waits: would spread";
    edited.placements.push_back(held);
    m.setDecision(trace, log, withQueue);
    QCOMPARE(m.index(0, QueueModel::Placed).data().toString(), QStringLiteral("no: waits: would spread"));
    QVERIFY(!m.index(0, QueueModel::Placed).data(Qt::FontRole).isValid());
    QCOMPARE(m.index(1, QueueModel::Placed).data().toString(), QStringLiteral("no (not tried)")); // free GPUs unknown
    const double need1 = trace->jobs[size_t(r.queue[1].job)].gpus;
    m.setDecision(trace, log, withQueue, 0);
    QCOMPARE(m.index(1, QueueModel::Placed).data().toString(),
             QStringLiteral("no: waits for GPUs (needs %1, 0 free)").arg(need1));
    m.setDecision(trace, log, withQueue, 64);
    QCOMPARE(m.index(1, QueueModel::Placed).data().toString(),
             QStringLiteral("no: held back by the policy (needs %1, 64 free)").arg(need1));
    // a queue the policy did not score at this decision (Gavel between rounds: NaN priorities) shows a dash,
    // sorts last, and its untried jobs are said to wait for the next round, not to be held back
    edited.queue[1].priority = kNoScore;
    m.setDecision(trace, log, withQueue, 64);
    QCOMPARE(m.index(1, QueueModel::Priority).data().toString(), QStringLiteral("–"));
    QVERIFY(std::isinf(m.index(1, QueueModel::Priority).data(SortRole).toDouble()));
    QVERIFY(m.index(1, QueueModel::Placed).data().toString().startsWith(QStringLiteral("no: not scored at this decision")));
    // What the priority means: the header says, from the registry (composites: the ordering's).
    QCOMPARE(priorityMeaning(QStringLiteral("fifo+firstfit")), QStringLiteral("fifo+firstfit: minutes waited (ties: arrival order)"));
    QCOMPARE(priorityMeaning(QStringLiteral("no-such-policy")), QString());
    m.setScoreMeaning(priorityMeaning(QStringLiteral("sjf+bestfit")));
    QVERIFY(m.headerData(QueueModel::Priority, Qt::Horizontal, Qt::ToolTipRole).toString().contains(QStringLiteral("hours of work")));
    PlacementRecord placed = held;
    placed.slots = {GpuSlot{0, 1000}};
    placed.reason = "sjf";
    edited.placements.push_back(placed);
    m.setDecision(trace, log, withQueue);
    QCOMPARE(m.index(0, QueueModel::Placed).data().toString(), QStringLiteral("yes"));
    QVERIFY(m.index(0, QueueModel::Placed).data(Qt::FontRole).value<QFont>().bold());
    QCOMPARE(m.index(0, QueueModel::Placed).data(Qt::ToolTipRole).toString(), QStringLiteral("sjf")); // the reason
    // a whole-GPU job started on half of a GPU shares it (Gavel's space-sharing pairs)
    edited.placements.back().slots = {GpuSlot{0, 500}};
    edited.placements.back().reason = "gavel round 3: shares its GPUs with job 9";
    m.setDecision(trace, log, withQueue);
    QCOMPARE(m.index(0, QueueModel::Placed).data().toString(), QStringLiteral("yes, sharing its GPUs with another job"));
    QVERIFY(m.index(0, QueueModel::Placed).data(Qt::ToolTipRole).toString().contains(QStringLiteral("job 9")));
    // The Admitted column shows the admission stage's verdict for a job that arrived at this decision: in the
    // policy's words when it gave a reason, the engine's verdict in the tooltip; the verdict alone otherwise.
    edited.admissions.clear();
    edited.admissions.push_back(AdmissionRecord{r.queue[1].job, Admit::Accept, 0.5f, "unaccepted SLO: does not fit"});
    m.setDecision(trace, log, withQueue);
    QCOMPARE(m.index(1, QueueModel::Admitted).data().toString(), QStringLiteral("unaccepted SLO: does not fit"));
    QCOMPARE(m.index(1, QueueModel::Admitted).data(Qt::ToolTipRole).toString(),
             QStringLiteral("admission stage: accept (the job joins the queue)\nunaccepted SLO: does not fit"));
    QCOMPARE(m.index(0, QueueModel::Admitted).data().toString(), QString());
    QVERIFY(m.index(0, QueueModel::Admitted).data(Qt::ToolTipRole).isNull());
    edited.admissions.push_back(AdmissionRecord{r.queue[0].job, Admit::Accept, 0.5f, ""});
    m.setDecision(trace, log, withQueue);
    QCOMPARE(m.index(0, QueueModel::Admitted).data().toString(), QStringLiteral("accept"));
    m.setDecision(trace, run->out->log, -1);
    QCOMPARE(m.rowCount(), 0);
}

void TestModels::machineAndLinkModels()
{
    ClusterDocument doc;
    MachineTableModel mm(&doc);
    LinkTableModel lm(&doc);
    QAbstractItemModelTester t1(&mm, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&lm, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(mm.rowCount(), doc.spec().machineCount());
    QVERIFY(mm.setData(mm.index(2, MachineTableModel::Gpus), 8, Qt::EditRole));
    QCOMPARE(doc.spec().machines[2].gpus, 8);
    QCOMPARE(doc.undoStack()->count(), 1);
    doc.addSwitch(QStringLiteral("rack-b"), 100);
    doc.addLink(0, int(doc.spec().switches.size()) - 1, 40);
    QCOMPARE(lm.rowCount(), int(doc.spec().links.size()));
    const int last = lm.rowCount() - 1;
    QVERIFY(lm.setData(lm.index(last, LinkTableModel::Bandwidth), 25.0, Qt::EditRole));
    QCOMPARE(doc.spec().links[size_t(last)].gbps, 25.0);
    QVERIFY(!lm.setData(lm.index(last, LinkTableModel::Bandwidth), -3.0, Qt::EditRole));
    doc.undoStack()->undo();
    QCOMPARE(doc.spec().links[size_t(last)].gbps, 40.0);
}

void TestModels::topologyUndoRestoresExactSpec()
{
    ClusterDocument doc;
    const std::string original = clusterToJson(doc.spec());
    const std::string fp = doc.spec().fingerprint();
    GpuType t;
    t.name = "A100";
    t.pricePerHour = 3.5;
    t.speed = 2.5;
    doc.addGpuType(t);
    doc.addSwitch(QStringLiteral("rack-b"), 200);
    doc.addMachines(3, int(doc.spec().types.size()) - 1, 8, int(doc.spec().switches.size()) - 1);
    doc.setMachinesType({0, 2, 4}, int(doc.spec().types.size()) - 1);
    doc.setMachinesGpus({1, 3}, 2);
    doc.duplicateMachines({0, 1});
    doc.removeMachines({5, 2, 7});
    doc.renameMachine(0, QStringLiteral("gpu-node-0"));
    doc.addLink(0, 1, 100);
    doc.setLinkBandwidth(0, 50);
    doc.duplicateSwitch(1);
    const std::string edited = clusterToJson(doc.spec());
    QVERIFY(edited != original);
    QVERIFY(doc.validationMessage().isEmpty());
    const int steps = doc.undoStack()->count();
    QVERIFY(steps >= 11);
    while (doc.undoStack()->canUndo())
        doc.undoStack()->undo();
    QCOMPARE(clusterToJson(doc.spec()), original);
    QCOMPARE(doc.spec().fingerprint(), fp);
    while (doc.undoStack()->canRedo())
        doc.undoStack()->redo();
    QCOMPARE(clusterToJson(doc.spec()), edited);
    // Replacing the cluster (load preset) is one undoable step as well.
    ClusterSpec other = makeClusterPreset("gavel-108");
    other.finalize();
    doc.replace(other, QStringLiteral("load"));
    QCOMPARE(doc.spec().machineCount(), other.machineCount());
    doc.undoStack()->undo();
    QCOMPARE(clusterToJson(doc.spec()), edited);
}

void TestModels::removeSwitchRefusedWithMachines()
{
    ClusterDocument doc;
    QSignalSpy spy(&doc, &ClusterDocument::validationChanged);
    const int before = int(doc.spec().switches.size());
    QVERIFY(!doc.removeSwitch(doc.spec().machines[0].sw));
    QCOMPARE(int(doc.spec().switches.size()), before);
    QVERIFY(doc.validationMessage().contains(QStringLiteral("still has machines")));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(doc.undoStack()->count(), 0); // a refused edit leaves no undo entry
}

void TestModels::scenarioRoundTrip()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ui::Scenario s;
    s.name = QStringLiteral("round trip");
    s.tracePath = dir.filePath(QStringLiteral("traces/t.csv"));
    s.clusterSource = ui::Scenario::ClusterSource::File;
    s.clusterPath = dir.filePath(QStringLiteral("c/cluster.json"));
    s.perf = QStringLiteral("cross_machine=0.2,fluctuation_sd=0.05");
    s.policies = {QStringLiteral("fifo+firstfit"), QStringLiteral("las+consolidate")};
    s.seed = 12345678901234ULL;
    s.seeds = 3;
    s.backfill = false;
    const QString path = dir.filePath(QStringLiteral("a.scenario.json"));
    s.save(path);
    // Paths are stored relative to the scenario file.
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(o.value(QStringLiteral("trace")).toObject().value(QStringLiteral("path")).toString(), QStringLiteral("traces/t.csv"));
    QCOMPARE(o.value(QStringLiteral("format")).toString(), QStringLiteral("schedstudio-scenario"));
    QCOMPARE(o.value(QStringLiteral("version")).toInt(), 1);
    const ui::Scenario r = ui::Scenario::load(path);
    QCOMPARE(r.name, s.name);
    QCOMPARE(r.tracePath, s.tracePath);
    QCOMPARE(r.clusterPath, s.clusterPath);
    QVERIFY(r.clusterSource == ui::Scenario::ClusterSource::File);
    QCOMPARE(r.perf, s.perf);
    QCOMPARE(r.policies, s.policies);
    QCOMPARE(r.seed, s.seed);
    QCOMPARE(r.seeds, 3);
    QCOMPARE(r.backfill, false);

    // Inline cluster survives too.
    ui::Scenario in = s;
    ClusterSpec c = makeClusterPreset("das-case");
    c.finalize();
    c.machines[0].gpus = 2;
    in.clusterSource = ui::Scenario::ClusterSource::Inline;
    in.clusterJson = QString::fromStdString(clusterToJson(c));
    in.save(path);
    const ui::Scenario r2 = ui::Scenario::load(path);
    QVERIFY(r2.clusterSource == ui::Scenario::ClusterSource::Inline);
    ClusterSpec back = clusterFromJson(r2.clusterJson.toStdString(), "x");
    back.finalize();
    QCOMPARE(back.fingerprint(), c.fingerprint());

    // The shipped sample opens with no other input.
    const ui::Scenario das = ui::Scenario::load(QStringLiteral(SS_SOURCE_DIR "/sample-traces/das-case.scenario.json"));
    QCOMPARE(das.clusterPreset, QStringLiteral("das-case"));
    QVERIFY(QFileInfo::exists(das.tracePath));
}

void TestModels::scenarioErrors()
{
    QTemporaryDir dir;
    auto write = [&](const char* name, const QByteArray& text) {
        const QString p = dir.filePath(QLatin1String(name));
        QFile f(p);
        f.open(QIODevice::WriteOnly);
        f.write(text);
        return p;
    };
    const QString bad = write("bad.scenario.json", "{\n  \"format\": \"schedstudio-scenario\",\n  \"version\": 1,\n  \"name\": oops\n}\n");
    try {
        ui::Scenario::load(bad);
        QFAIL("bad JSON accepted");
    } catch (const ScenarioError& e) {
        QCOMPARE(e.line, 4);
        QVERIFY(e.text().startsWith(bad + QStringLiteral(":4:")));
    }
    const QString newer = write("newer.scenario.json", R"({"format":"schedstudio-scenario","version":7,"name":"x"})");
    try {
        ui::Scenario::load(newer);
        QFAIL("newer version accepted");
    } catch (const ScenarioError& e) {
        QVERIFY2(e.reason.contains(QStringLiteral("newer")), qPrintable(e.reason));
        QVERIFY(e.reason.contains(QStringLiteral("'version'")));
    }
    const QString other = write("other.json", R"({"format":"something-else","version":1})");
    QVERIFY_THROWS_EXCEPTION(ScenarioError, ui::Scenario::load(other));
    const QString seeds = write("seeds.scenario.json", R"({"format":"schedstudio-scenario","version":1,"seeds":0})");
    try {
        ui::Scenario::load(seeds);
        QFAIL("seeds 0 accepted");
    } catch (const ScenarioError& e) {
        QVERIFY(e.reason.contains(QStringLiteral("'seeds'")));
    }
    QVERIFY_THROWS_EXCEPTION(ScenarioError, ui::Scenario::load(dir.filePath(QStringLiteral("missing.json"))));
}

void TestModels::teachingText()
{
    auto trace = smallTrace();
    RunPtr run = makeRun(1, trace, "sjf+bestfit", 1);
    const DecisionLog& log = *run->out->log;
    int k = -1;
    for (size_t i = 0; i < log.records.size(); ++i)
        if (log.records[i].queue.size() >= 2 && !log.records[i].placements.empty() && !log.records[i].placements[0].slots.empty()) {
            k = int(i);
            break;
        }
    QVERIFY(k >= 0);
    const DecisionRecord& r = log.records[size_t(k)];
    const QString html = explainDecision(log, k, *trace, *run->cluster, run->policy());
    // Names the first job in the queue and the machine the first placement went to.
    QVERIFY(html.contains(QStringLiteral("job %1").arg(trace->jobs[size_t(r.queue[0].job)].id)));
    const int m = run->cluster->machineOfGpu(r.placements[0].slots[0].gpu);
    QVERIFY(html.contains(QString::fromStdString(run->cluster->machines[size_t(m)].name)));
    QVERIFY(html.contains(QStringLiteral("priority")));
    QVERIFY(explainDecision(DecisionLog{}, 0, *trace, *run->cluster, run->policy()).contains(QStringLiteral("Run the scenario")));
}

QTEST_MAIN(TestModels)
void TestModels::teachingAllocationSentence()
{
    // a round-based policy's X in words, largest share first: "job 7 gets 60 % of its time on V100 and 40 % on P100"
    Trace t;
    for (int i = 0; i < 8; ++i) {
        Job j;
        j.id = i;
        t.jobs.push_back(j);
    }
    AllocationRecord a;
    a.types = {"P100", "V100", "K80"};
    a.jobs = {7, 3};
    a.share = {0.4f, 0.6f, 0.0f, 0.0f, 0.0f, 0.0f};
    a.estimated = {0, 1};
    QCOMPARE(allocationSentence(a, 0, t), QStringLiteral("<b>job 7</b> gets 60 % of its time on V100 and 40 % on P100"));
    QCOMPARE(allocationSentence(a, 1, t), QStringLiteral("<b>job 3</b> gets no time on any GPU type"));
    const QString html = explainAllocation(a, t);
    QVERIFY(html.contains(QStringLiteral("60 % of its time on V100")));
    QVERIFY(html.contains(QStringLiteral("estimated")));
}

#include "tst_models.moc"
