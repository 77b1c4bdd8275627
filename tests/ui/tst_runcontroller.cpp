// RunController on its own, without a window: runs arrive one by one (runFinished while the batch still
// runs, then allFinished once), the Run command refuses what a run lacks, the what-if reruns the first
// policy on a changed setup, and scaleLoad compresses arrivals.
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

#include "model/clusterspec.h"
#include "model/tracegen.h"
#include "models.h"
#include "runcontroller.h"

using namespace ss;
using namespace ss::ui;

static RunRequest smallRequest(int jobs)
{
    auto cluster = std::make_shared<ClusterSpec>(makeClusterPreset("das-small"));
    cluster->finalize();
    TraceGenConfig g;
    g.jobs = jobs;
    g.seed = 3;
    g.clusterGpus = cluster->totalGpus();
    RunRequest req;
    req.trace = std::make_shared<const Trace>(generateTrace(g));
    req.cluster = cluster;
    req.clusterLabel = QStringLiteral("das-small");
    req.policies = {QStringLiteral("fifo+firstfit"), QStringLiteral("sjf+bestfit")};
    req.seeds = {1, 2};
    req.scenarioName = QStringLiteral("test");
    return req;
}

class TestRunController : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void runsArriveOneByOne();
    void runCommandRefusesWhatIsMissing();
    void whatIfRerunsTheChange();
    void scaleLoadCompressesArrivals();
    void liveStatusSaysWhereTheRunIs();
};

void TestRunController::runsArriveOneByOne()
{
    RunController rc;
    QVector<bool> runningAtArrival;
    QVector<int> rowsAtArrival;
    connect(&rc, &RunController::runFinished, this, [&](const RunPtr& r) {
        runningAtArrival << rc.isRunning();
        rowsAtArrival << rc.history()->rowOfId(r->id);
    });
    QSignalSpy started(&rc, &RunController::runStarted);
    QSignalSpy finished(&rc, &RunController::runFinished);
    QSignalSpy all(&rc, &RunController::allFinished);
    QVector<RunPtr> done;
    rc.startRuns(smallRequest(300), [&](QVector<RunPtr> runs) { done = runs; });
    QCOMPARE(started.count(), 1);
    QVERIFY(rc.waitForIdle(60000));
    QCOMPARE(finished.count(), 4); // 2 policies x 2 seeds
    QCOMPARE(all.count(), 1);
    QCOMPARE(done.size(), 4);
    QCOMPARE(rc.history()->rowCount(), 4);
    for (int i = 0; i < 4; ++i) {
        QVERIFY(runningAtArrival[i]); // handed over while the rest of the batch still ran
        QVERIFY(rowsAtArrival[i] >= 0); // and already in the history when announced
        QCOMPARE(finished.at(i).at(0).value<RunPtr>()->id, done[i]->id);
    }
    QCOMPARE(done[0]->name, QStringLiteral("fifo+firstfit seed 1"));
    QCOMPARE(done[3]->name, QStringLiteral("sjf+bestfit seed 2"));
}

void TestRunController::runCommandRefusesWhatIsMissing()
{
    RunController rc;
    QSignalSpy errors(&rc, &RunController::error);
    RunRequest req = smallRequest(50);
    req.trace.reset();
    QCOMPARE(rc.startScenario(req, QString()), RunController::Start::Refused);
    QVERIFY(errors.last().at(0).toString().contains(QStringLiteral("no trace")));
    req = smallRequest(50);
    QCOMPARE(rc.startScenario(req, QStringLiteral("machine m3 has no switch")), RunController::Start::Refused);
    QVERIFY(errors.last().at(0).toString().contains(QStringLiteral("m3")));
    req.policies.clear();
    QCOMPARE(rc.startScenario(req, QString()), RunController::Start::Refused);
    QVERIFY(errors.last().at(0).toString().contains(QStringLiteral("policy")));
    req = smallRequest(50);
    req.perf = QStringLiteral("no_such_knob=3");
    QCOMPARE(rc.startScenario(req, QString()), RunController::Start::Refused);
    QVERIFY(errors.last().at(0).toString().contains(QStringLiteral("perf model")));
    QVERIFY(!rc.isRunning());
    QCOMPARE(rc.startScenario(smallRequest(50), QString()), RunController::Start::Started);
    QVERIFY(rc.waitForIdle(60000));
    QCOMPARE(rc.history()->rowCount(), 4);
}

void TestRunController::whatIfRerunsTheChange()
{
    RunController rc;
    QSignalSpy errors(&rc, &RunController::error);
    QSignalSpy result(&rc, &RunController::whatIfFinished);
    RunRequest base = smallRequest(200);
    base.seeds = {1};
    QVERIFY(!rc.startWhatIf(base, WhatIfChange{})); // nothing changes
    QVERIFY(errors.last().at(0).toString().contains(QStringLiteral("What-if")));
    WhatIfChange change;
    change.loadFactor = 2.0;
    QVERIFY(rc.startWhatIf(base, change));
    QVERIFY(rc.waitForIdle(60000));
    QVERIFY(rc.waitForIdle(60000)); // the changed run starts when the original finishes
    QCOMPARE(result.count(), 1);
    QCOMPARE(rc.history()->rowCount(), 2);
    const QVector<RunPtr> ticked = rc.history()->checkedRuns();
    QCOMPARE(ticked.size(), 2);
    QVERIFY(ticked[0]->name.startsWith(QStringLiteral("original: fifo+firstfit")));
    QVERIFY(ticked[1]->name.startsWith(QStringLiteral("what-if (")));
    QVERIFY(QString::fromStdString(ticked[1]->trace->name).endsWith(QStringLiteral("-load2")));
    QCOMPARE(result.at(0).at(1).toDouble(), ticked[0]->out->summary.meanJctMin);
    QCOMPARE(result.at(0).at(2).toDouble(), ticked[1]->out->summary.meanJctMin);
}

void TestRunController::scaleLoadCompressesArrivals()
{
    Trace t;
    t.name = "t";
    for (int i = 0; i < 4; ++i) {
        Job j;
        j.id = i;
        j.submit = 100 + 60.0 * i;
        t.jobs.push_back(j);
    }
    const auto s = scaleLoad(t, 2.0);
    QCOMPARE(s->name, std::string("t-load2"));
    for (int i = 0; i < 4; ++i)
        QCOMPARE(s->jobs[size_t(i)].submit, 100 + 30.0 * i);
    QCOMPARE(t.jobs[3].submit, 280.0); // the original is untouched
}

void TestRunController::liveStatusSaysWhereTheRunIs()
{
    RunController rc;
    QSignalSpy live(&rc, &RunController::liveStatus);
    RunRequest req = smallRequest(3000);
    req.policies = {QStringLiteral("fifo+firstfit")};
    req.seeds = {1};
    rc.startRuns(req, {});
    QVERIFY(rc.waitForIdle(60000));
    QVERIFY(live.count() >= 1);
    const QString text = live.first().at(0).toString();
    QVERIFY2(text.startsWith(QStringLiteral("fifo+firstfit seed 1 (run 1 of 1) · simulated ")), qPrintable(text));
    QVERIFY2(QRegularExpression(QStringLiteral(" / 3.?000 jobs done · \\d[\\d,. ]* arrived$")).match(text).hasMatch(),
             qPrintable(text));
}

QTEST_MAIN(TestRunController)
#include "tst_runcontroller.moc"
