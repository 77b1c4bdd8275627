// The Fork dock end to end (issue 21): fork the current run at the stepper's decision off the GUI thread,
// the fork joins the history, the dock shows the first divergence, the Gantt diff and the per-job deltas;
// a placement that does not fit and a bad change are errors that leave the history as it was.
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QTableView>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "clusterdocument.h"
#include "clustermapview.h"
#include "forkpanel.h"
#include "mainwindow.h"
#include "models.h"
#include "runcontroller.h"
#include "io/traceio.h"
#include "run/fork.h"

using namespace ss;
using namespace ss::ui;

/// Opens the DAS case study in `w`, runs its scenario and returns the run of `policy` (null when any step fails
/// or the scenario has no such run).
RunPtr runDasCase(MainWindow& w, const QString& policy)
{
    w.resize(1400, 900);
    w.show();
    if (!w.openScenario(QStringLiteral(SS_SOURCE_DIR "/sample-traces/das-case.scenario.json")) || !w.waitForIdle(20000)
        || !w.runScenario() || !w.waitForIdle(60000))
        return nullptr;
    for (const RunPtr& r : w.history()->allRuns())
        if (r->policy() == policy)
            return r;
    return nullptr;
}

class TestForkView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settings.path());
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings.path());
    }

    void forkFromTheStepper()
    {
        MainWindow w;
        const RunPtr fifo = runDasCase(w, QStringLiteral("fifo+firstfit"));
        QVERIFY(fifo);
        const int before = w.history()->rowCount();
        w.setCurrentRun(fifo);
        w.setDecision(2); // decision 3
        QCOMPARE(w.currentDecision(), 2);
        QVERIFY(!w.forkHere(QStringLiteral("explode=now")));
        QVERIFY(w.bannerText().contains(QStringLiteral("not a change")));
        QVERIFY(!w.forkHere(QStringLiteral("fail=nosuch")));
        QCOMPARE(w.history()->rowCount(), before);

        QVERIFY2(w.forkHere(QStringLiteral("policy=sjf+bestfit")), qPrintable(w.bannerText()));
        QVERIFY(w.isBusy()); // off the GUI thread
        QVERIFY(w.waitForIdle(60000));
        QVERIFY2(w.bannerText().isEmpty(), qPrintable(w.bannerText()));
        QCOMPARE(w.history()->rowCount(), before + 1);
        const RunPtr fork = w.history()->run(w.history()->rowCount() - 1);
        QCOMPARE(fork->out->forkDecision, uint64_t(3));
        QCOMPARE(fork->out->policy, std::string("sjf+bestfit"));
        QTRY_VERIFY(w.forkPanel()->diff()); // shown a turn of the event loop after the hand-over
        const RunDiff* d = w.forkPanel()->diff();
        QVERIFY(d->logsCompared);
        QVERIFY(d->firstDivergence == 0 || d->firstDivergence >= 3);
        QCOMPARE(w.forkPanel()->deltaRows(), d->moved + d->onlyA + d->onlyB);
        QCOMPARE(w.forkPanel()->findChild<GanttDiffView*>()->rows(), std::min(60, d->moved));

        // a placement that does not fit: an error, nothing added. Job 0 of the trace is done or running by
        // decision 3, so it is not pending either way.
        w.setCurrentRun(fifo);
        w.setDecision(2);
        const QString job = QString::number(fifo->trace->jobs[0].id);
        const int rows = w.history()->rowCount();
        QVERIFY(w.forkHere(QStringLiteral("place=%1:%2").arg(job, QString::fromStdString(fifo->cluster->machines[0].name))));
        QVERIFY(w.waitForIdle(60000));
        QVERIFY2(w.bannerText().contains(QStringLiteral("not pending")), qPrintable(w.bannerText()));
        QCOMPARE(w.history()->rowCount(), rows);
    }

    // a fork of a fork (its parent's change kept), K before the parent's fork point refused, a second fork of
    // the same run restored from the checkpoints the first left, machines added from the dock
    void forkOfForkAndCheckpoints()
    {
        MainWindow w;
        const RunPtr fifo = runDasCase(w, QStringLiteral("fifo+firstfit"));
        QVERIFY(fifo);
        auto* runs = w.findChild<RunController*>();
        QVERIFY(runs);
        QSignalSpy status(runs, &RunController::status);
        const QString m1 = QString::fromStdString(fifo->cluster->machines[1].name);
        const QString m2 = QString::fromStdString(fifo->cluster->machines[2].name);
        w.setCurrentRun(fifo);
        w.setDecision(4); // decision 5
        QVERIFY2(w.forkHere(QStringLiteral("fail=%1").arg(m1)), qPrintable(w.bannerText()));
        QVERIFY(w.waitForIdle(60000));
        const RunPtr a = w.history()->run(w.history()->rowCount() - 1);
        QCOMPARE(a->out->forkDecision, uint64_t(5));
        // the same run forked again at the same decision: restored from the checkpoint the first fork left
        w.setCurrentRun(fifo);
        w.setDecision(4);
        status.clear();
        QVERIFY2(w.forkHere(QStringLiteral("drain=%1").arg(m2)), qPrintable(w.bannerText()));
        QVERIFY(w.waitForIdle(60000));
        bool restored = false;
        for (const QList<QVariant>& args : status)
            restored = restored || args.at(0).toString().contains(QStringLiteral("restored from the checkpoint after decision 4"));
        QVERIFY(restored);
        // the fork of fork a at decision 8: a's failure stays, the drain comes on top
        w.setCurrentRun(a);
        w.setDecision(1);
        QVERIFY(!w.forkHere(QStringLiteral("drain=%1").arg(m2))); // decision 2 < a's fork point
        QVERIFY2(w.bannerText().contains(QStringLiteral("decision 5")), qPrintable(w.bannerText()));
        w.setCurrentRun(a);
        w.setDecision(7);
        const int rows = w.history()->rowCount();
        QVERIFY2(w.forkHere(QStringLiteral("drain=%1").arg(m2)), qPrintable(w.bannerText()));
        QVERIFY(w.waitForIdle(60000));
        QVERIFY2(w.bannerText().isEmpty(), qPrintable(w.bannerText()));
        QCOMPARE(w.history()->rowCount(), rows + 1);
        const RunPtr b = w.history()->run(rows);
        QCOMPARE(b->out->forkDecision, uint64_t(8));
        QVERIFY(b->out->spec.fork.rfind("parent=" + a->out->spec.id(), 0) == 0);
        ForkRequest direct;
        direct.chain = {{5, {}}};
        direct.chain[0].change.failMachines = {1};
        direct.atDecision = 8;
        direct.change.drainMachines = {2};
        direct.parentId = a->out->spec.id();
        const RunOutput want = runFork(*fifo->cluster, *fifo->trace, fifo->out->spec, direct, nullptr, false);
        QCOMPARE(b->out->jobs.size(), want.jobs.size());
        for (size_t i = 0; i < want.jobs.size(); ++i) {
            QCOMPARE(b->out->jobs[i].start, want.jobs[i].start);
            QCOMPARE(b->out->jobs[i].end, want.jobs[i].end);
        }
        QCOMPARE(b->out->spec.id(), want.spec.id());
        // machines added from the dock
        w.setCurrentRun(fifo);
        w.setDecision(4);
        QVERIFY2(w.forkHere(QStringLiteral("add=2:%1").arg(m1)), qPrintable(w.bannerText()));
        QVERIFY(w.waitForIdle(60000));
        const RunPtr c = w.history()->run(w.history()->rowCount() - 1);
        QVERIFY2(c->out->forkChange.find("add 2 machine(s) like") == 0, c->out->forkChange.c_str());
        // a burst of arrivals from a trace file: its jobs join the fork (ids after the trace's), a bad file is an error
        QTemporaryDir dir;
        const QString burst = dir.filePath(QStringLiteral("burst.csv"));
        Trace bt;
        for (int i = 0; i < 3; ++i) {
            Job j;
            j.id = i;
            j.submit = 10.0 * i;
            j.gpus = 1;
            j.duration = 600;
            bt.jobs.push_back(j);
        }
        writeNativeTrace(bt, burst.toStdString());
        w.setCurrentRun(fifo);
        w.setDecision(4);
        const int before = w.history()->rowCount();
        QVERIFY(!w.forkHere(QStringLiteral("burst=%1").arg(dir.filePath(QStringLiteral("nosuch.csv")))));
        QCOMPARE(w.history()->rowCount(), before);
        QVERIFY2(w.forkHere(QStringLiteral("burst=%1").arg(burst)), qPrintable(w.bannerText()));
        QVERIFY(w.waitForIdle(60000));
        const RunPtr d = w.history()->run(w.history()->rowCount() - 1);
        QVERIFY2(d->out->forkChange.find("burst of 3 job(s)") == 0, d->out->forkChange.c_str());
        QCOMPARE(d->out->jobs.size(), fifo->out->jobs.size() + 3);
    }

    // the DAS tour's "What if? Fork here": DAS's decision 4 rerun under FIFO from there
    // a queued job dragged from the stepper's queue onto a machine of the cluster map forks the run with that job
    // started there: the row drags out as the job's trace id, and the drop asks for that placement
    void dragQueuedJobOntoMachine()
    {
        MainWindow w;
        const RunPtr fifo = runDasCase(w, QStringLiteral("fifo+firstfit"));
        QVERIFY(fifo && fifo->out->log);
        // a decision with a job of at most 4 GPUs (a das-case machine's) still queued after it
        int k = -1, row = -1;
        for (size_t i = 0; i < fifo->out->log->records.size() && k < 0; ++i) {
            const auto& q = fifo->out->log->records[i].queue;
            for (size_t r = 0; r < q.size() && k < 0; ++r)
                if (fifo->trace->jobs[size_t(q[r].job)].gpus <= 4) {
                    k = int(i);
                    row = int(r);
                }
        }
        QVERIFY(k >= 0);
        w.setCurrentRun(fifo);
        w.setDecision(k);
        auto* table = w.findChild<QTableView*>(QStringLiteral("stepperQueue"));
        QVERIFY(table && table->model()->rowCount() > row);
        const QModelIndex cell = table->model()->index(row, 1);
        QVERIFY(table->model()->flags(cell) & Qt::ItemIsDragEnabled);
        std::unique_ptr<QMimeData> mime(table->model()->mimeData({cell}));
        QVERIFY(mime && mime->hasFormat(QString::fromLatin1(ClusterMapView::kJobMime)));
        const QString id = QString::fromUtf8(mime->data(QString::fromLatin1(ClusterMapView::kJobMime)));
        QCOMPARE(id, cell.data().toString());

        // dropped on each machine in turn until one has the GPUs free: those that do not say so, naming the job,
        // and add nothing; the one that does is forked with that placement at this decision
        w.showView(QStringLiteral("cluster"));
        ClusterMapView* map = w.clusterMap();
        QSignalSpy dropped(map, &ClusterMapView::jobDropped);
        bool forked = false;
        for (int m = 0; m < fifo->cluster->machineCount() && !forked; ++m) {
            w.setCurrentRun(fifo);
            w.setDecision(k);
            const int rows = w.history()->rowCount();
            const QPoint at = map->machineRect(m).center();
            QVERIFY(!map->machineRect(m).isEmpty());
            QDragEnterEvent enter(at, Qt::MoveAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
            QCoreApplication::sendEvent(map, &enter);
            QVERIFY(enter.isAccepted());
            QDropEvent drop(QPointF(at), Qt::MoveAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
            QCoreApplication::sendEvent(map, &drop);
            QCOMPARE(dropped.count(), m + 1);
            QCOMPARE(dropped.back()[0].toString(), id);
            QCOMPARE(dropped.back()[1].toInt(), m);
            QVERIFY(w.waitForIdle(60000));
            const QString machine = QString::fromStdString(fifo->cluster->machines[size_t(m)].name);
            if (w.history()->rowCount() == rows + 1) {
                const RunPtr fork = w.history()->run(rows);
                QVERIFY2(QString::fromStdString(fork->out->forkChange).startsWith(QStringLiteral("place job %1 on %2").arg(id, machine)),
                         fork->out->forkChange.c_str());
                QCOMPARE(fork->out->forkDecision, uint64_t(k + 1));
                forked = true;
            } else {
                QCOMPARE(w.history()->rowCount(), rows);
                QVERIFY2(w.bannerText().contains(QStringLiteral("job %1").arg(id)), qPrintable(w.bannerText()));
            }
        }
        QVERIFY(forked);
    }

    void teachingForksDas()
    {
        MainWindow w;
        const RunPtr das = runDasCase(w, QStringLiteral("das"));
        QVERIFY(w.history()->rowCount() > 0); // the scenario ran; only DAS may be missing
        if (!das)
            QSKIP("this build runs no DAS (no LibTorch module)");
        w.setCurrentRun(das);
        w.setDecision(3);
        w.showView(QStringLiteral("teaching"));
        auto* button = w.findChild<QPushButton*>(QStringLiteral("teachingFork"));
        QVERIFY(button);
        const int rows = w.history()->rowCount();
        button->click();
        QVERIFY(w.waitForIdle(60000));
        QVERIFY2(w.bannerText().isEmpty(), qPrintable(w.bannerText()));
        QCOMPARE(w.history()->rowCount(), rows + 1);
        const RunPtr fork = w.history()->run(rows);
        QCOMPARE(fork->out->policy, std::string("fifo+firstfit"));
        QCOMPARE(fork->out->forkDecision, uint64_t(4));
        QTRY_VERIFY(w.forkPanel()->diff());
        QVERIFY(w.forkPanel()->diff()->firstDivergence == 0 || w.forkPanel()->diff()->firstDivergence >= 4);
    }

    // File ▸ Import cluster state: the state's running jobs start on their machines at the state's time
    void importClusterState()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(w.openScenario(QStringLiteral(SS_SOURCE_DIR "/sample-traces/das-case.scenario.json")));
        QVERIFY(w.waitForIdle(20000));
        const ClusterSpec& c = w.clusterDocument()->spec();
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.csv"), good = dir.filePath("state.csv");
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("job_id,state,gpus,work,machines\n1,running,2,10,nosuch\n");
        }
        QVERIFY(!w.importClusterState(bad));
        QVERIFY2(w.bannerText().contains(QStringLiteral("bad.csv:2")) && w.bannerText().contains(QStringLiteral("nosuch")),
                 qPrintable(w.bannerText()));
        {
            QFile f(good);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QStringLiteral("# time=5\njob_id,state,gpus,work,machines\n7001,running,4,900,%1\n7002,queued,2,60,\n")
                        .arg(QString::fromStdString(c.machines[3].name)).toUtf8());
        }
        const int rows = w.history()->rowCount();
        QVERIFY2(w.importClusterState(good), qPrintable(w.bannerText()));
        QVERIFY(w.waitForIdle(60000));
        QCOMPARE(w.history()->rowCount(), rows + 1);
        const RunPtr r = w.currentRun();
        QVERIFY(r);
        QCOMPARE(r->out->jobs.at(0).id, qint64(7001));
        QCOMPARE(r->out->jobs.at(0).start, 5.0);
        QCOMPARE(r->trace->jobs.at(0).id, qint64(7001)); // the views see the state's jobs
        const DecisionRecord& d0 = r->out->log->records.at(0);
        bool onMachine3 = false;
        for (const PlacementRecord& pl : d0.placements)
            if (pl.job == 0)
                onMachine3 = !pl.slots.empty() && c.machineOfGpu(pl.slots[0].gpu) == 3;
        QVERIFY(onMachine3);
    }

private:
    QTemporaryDir m_settings;
};

QTEST_MAIN(TestForkView)
#include "tst_forkview.moc"
