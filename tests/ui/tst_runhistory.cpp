// Run history on disk: the studio saves every finished run (with its decision log) into the project's
// SQLite database off the GUI thread, lists stored runs when a database is opened, reopens a run with its
// log so stepping works, and renames / deletes runs in the file. Checked against the store read directly.
#include <QDockWidget>
#include <QFile>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#ifdef SCHEDSTUDIO_HAVE_TORCH
static constexpr int kSampleRuns = 2; // das and fifo+firstfit
#else
static constexpr int kSampleRuns = 1; // das needs LibTorch: only fifo+firstfit
#endif
#include "mainwindow.h"
#include "model/clusterspec.h"
#include "model/tracegen.h"
#include "models.h"
#include "rundatabase.h"
#include "store/runstore.h"

using namespace ss;
using namespace ss::ui;

static const QString kSample = QStringLiteral(SS_SOURCE_DIR "/sample-traces/das-case.scenario.json");

class TestRunHistory : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void finishedRunsAreSavedAndReopenWithLog();
    void renameAndDeleteReachTheFile();
    void runsMadeBeforeOpeningAreSaved();
    void cliRunWithoutTraceFileIsRebuilt();
    void badFilesShowBanner();

private:
    QTemporaryDir m_dir;
    QString dbPath(const QString& name) const { return m_dir.filePath(name); }
};

void TestRunHistory::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
    // The sample scenario runs das beside fifo+firstfit: the LibTorch module loads when das runs.
}

static void runSample(MainWindow& w)
{
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    QVERIFY(w.runScenario());
    QVERIFY(w.waitForIdle(60000));
    QVERIFY2(w.bannerText().isEmpty(), qPrintable(w.bannerText()));
}

void TestRunHistory::finishedRunsAreSavedAndReopenWithLog()
{
    const QString db = dbPath(QStringLiteral("a.db"));
    std::vector<RunPtr> original;
    {
        MainWindow w;
        w.openDatabase(db);
        QVERIFY(w.waitForIdle(10000));
        QCOMPARE(w.history()->rowCount(), 0);
        runSample(w);
        QCOMPARE(w.history()->rowCount(), kSampleRuns); // the sample ticks two policies
        for (int r = 0; r < w.history()->rowCount(); ++r) {
            QVERIFY2(w.history()->run(r)->dbId > 0, "a finished run got no database id");
            QVERIFY(w.history()->run(r)->out->log);
            original.push_back(w.history()->run(r));
        }
    }
    // What the file holds, read without the studio.
    RunStore store(db.toStdString(), RunStore::Mode::Existing);
    const std::vector<RunInfo> infos = store.listRuns();
    QCOMPARE(int(infos.size()), kSampleRuns);
    for (const RunPtr& r : original) {
        const StoredRun sr = store.loadRun(r->dbId);
        QCOMPARE(QString::fromStdString(sr.info.name), r->name);
        QCOMPARE(sr.out.policy, r->out->policy);
        QVERIFY(sr.out.log);
        QCOMPARE(sr.out.log->records.size(), r->out->log->records.size());
        QCOMPARE(sr.out.summary.meanJctMin, r->out->summary.meanJctMin);
    }
    store.close();

    // A new window lists them without their logs, and loads the log when a run is opened.
    MainWindow w;
    w.openDatabase(db, false);
    QVERIFY(w.waitForIdle(10000));
    QVERIFY2(w.bannerText().isEmpty(), qPrintable(w.bannerText()));
    QCOMPARE(w.history()->rowCount(), kSampleRuns);
    for (int r = 0; r < kSampleRuns; ++r) {
        const RunPtr run = w.history()->run(r);
        const RunPtr& orig = original[size_t(r)];
        QCOMPARE(run->dbId, orig->dbId);
        QCOMPARE(run->name, orig->name);
        QVERIFY(run->logInDb);
        QVERIFY(!run->out->log);
        QCOMPARE(run->out->jobs.size(), orig->out->jobs.size());
        QCOMPARE(run->cluster->fingerprint(), orig->cluster->fingerprint());
        // The trace file named in the stored config is read again: model names and all.
        QCOMPARE(traceFingerprint(*run->trace), traceFingerprint(*orig->trace));
        QCOMPARE(run->trace->models, orig->trace->models);
    }
    w.openRun(w.history()->run(kSampleRuns - 1));
    QVERIFY(w.waitForIdle(10000));
    QVERIFY(w.currentRun());
    QCOMPARE(w.currentRun()->dbId, original[kSampleRuns - 1]->dbId);
    QVERIFY(w.currentRun()->out->log);
    QCOMPARE(w.decisionCount(), int(original[kSampleRuns - 1]->out->log->records.size()));
    QVERIFY(!w.history()->run(kSampleRuns - 1)->logInDb);
    // Stepping works on the reloaded log: the replayer reaches the end.
    w.setDecision(w.decisionCount() - 1);
    QCOMPARE(w.currentDecision(), w.decisionCount() - 1);
    QVERIFY(w.replayer());
}

static QPushButton* historyButton(MainWindow& w, const QString& text)
{
    for (QPushButton* b : w.findChildren<QPushButton*>())
        if (b->text() == text)
            return b;
    return nullptr;
}

void TestRunHistory::renameAndDeleteReachTheFile()
{
    const QString db = dbPath(QStringLiteral("b.db"));
    MainWindow w;
    w.show();
    w.openDatabase(db);
    QVERIFY(w.waitForIdle(10000));
    runSample(w);
    if (kSampleRuns < 2)
        runSample(w); // a build without LibTorch runs one policy of the sample: run it twice for two rows
    QCOMPARE(w.history()->rowCount(), 2);
    const qint64 keep = w.history()->run(0)->dbId, gone = w.history()->run(1)->dbId;

    QVERIFY(w.history()->setData(w.history()->index(0, RunHistoryModel::Name), QStringLiteral("baseline"), Qt::EditRole));
    // Delete the second row through the history view's own button.
    QTableView* table = nullptr;
    for (QTableView* t : w.findChildren<QTableView*>())
        if (auto* p = qobject_cast<QSortFilterProxyModel*>(t->model()); p && p->sourceModel() == w.history())
            table = t;
    QVERIFY(table);
    auto* proxy = static_cast<QSortFilterProxyModel*>(table->model());
    table->setCurrentIndex(proxy->mapFromSource(w.history()->index(1, RunHistoryModel::Policy)));
    QPushButton* del = historyButton(w, QStringLiteral("Delete"));
    QVERIFY(del);
    del->click();
    QCOMPARE(w.history()->rowCount(), 1);
    QVERIFY(w.waitForIdle(10000));
    QVERIFY2(w.bannerText().isEmpty(), qPrintable(w.bannerText()));

    RunStore store(db.toStdString(), RunStore::Mode::Existing);
    QCOMPARE(store.runCount(), 1);
    QVERIFY(store.runInfo(keep));
    QCOMPARE(store.runInfo(keep)->name, std::string("baseline"));
    QVERIFY(!store.runInfo(gone));
}

void TestRunHistory::runsMadeBeforeOpeningAreSaved()
{
    const QString db = dbPath(QStringLiteral("c.db"));
    MainWindow w;
    runSample(w);
    QCOMPARE(w.history()->rowCount(), kSampleRuns);
    QCOMPARE(w.history()->run(0)->dbId, 0);
    w.openDatabase(db);
    QVERIFY(w.waitForIdle(10000));
    QCOMPARE(w.history()->rowCount(), kSampleRuns);
    for (int r = 0; r < kSampleRuns; ++r)
        QVERIFY(w.history()->run(r)->dbId > 0);
    QCOMPARE(RunStore(db.toStdString(), RunStore::Mode::Existing).runCount(), kSampleRuns);

    // Closing drops the stored rows from the list; reopening brings them back, once each.
    w.closeDatabase();
    QCOMPARE(w.history()->rowCount(), 0);
    w.openDatabase(db, false);
    QVERIFY(w.waitForIdle(10000));
    QCOMPARE(w.history()->rowCount(), kSampleRuns);
}

void TestRunHistory::cliRunWithoutTraceFileIsRebuilt()
{
    // A run saved by another tool with no studio config: the cluster comes from the preset of the same
    // fingerprint, the trace from the job records.
    const QString db = dbPath(QStringLiteral("d.db"));
    ClusterSpec cluster = makeClusterPreset("das-small");
    cluster.finalize();
    TraceGenConfig g;
    g.jobs = 300;
    g.seed = 7;
    g.clusterGpus = cluster.totalGpus();
    const Trace trace = generateTrace(g);
    RunSpec spec;
    spec.policy = "sjf+bestfit";
    spec.config.recordDecisions = true;
    spec.keepDecisionLog = true;
    const RunOutput out = runSimulation(cluster, trace, spec);
    {
        RunStore store(db.toStdString());
        store.saveRun("cli", out, "{\"policy\":\"sjf+bestfit\"}");
    }
    MainWindow w;
    w.openDatabase(db, false);
    QVERIFY(w.waitForIdle(10000));
    QVERIFY2(w.bannerText().isEmpty(), qPrintable(w.bannerText()));
    QCOMPARE(w.history()->rowCount(), 1);
    const RunPtr r = w.history()->run(0);
    QCOMPARE(r->cluster->fingerprint(), cluster.fingerprint());
    QCOMPARE(r->trace->jobs.size(), trace.jobs.size());
    for (const JobRecord& rec : out.jobs) {
        QCOMPARE(r->trace->jobs[size_t(rec.index)].id, rec.id);
        QCOMPARE(r->trace->jobs[size_t(rec.index)].gpus, rec.gpus);
    }
    QCOMPARE(r->name, QStringLiteral("sjf+bestfit seed 1"));
    w.openRun(r);
    QVERIFY(w.waitForIdle(10000));
    QCOMPARE(w.decisionCount(), int(out.log->records.size()));

    // A cluster that is neither stored nor a preset: the run is named in the banner, not shown broken.
    RunOutput odd = out;
    odd.clusterName = "no-such-cluster";
    {
        RunStore store(db.toStdString());
        store.saveRun("cli", odd, "{}");
    }
    MainWindow w2;
    w2.openDatabase(db, false);
    QVERIFY(w2.waitForIdle(10000));
    QCOMPARE(w2.history()->rowCount(), 1);
    QVERIFY2(w2.bannerText().contains(QStringLiteral("no-such-cluster")), qPrintable(w2.bannerText()));
}

void TestRunHistory::badFilesShowBanner()
{
    const QString junk = dbPath(QStringLiteral("junk.db"));
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a database, just text that is long enough to be looked at by sqlite\n");
    f.close();
    MainWindow w;
    w.openDatabase(junk, false);
    QVERIFY(w.waitForIdle(10000));
    QVERIFY2(w.bannerText().contains(QStringLiteral("junk.db")), qPrintable(w.bannerText()));
    QCOMPARE(w.history()->rowCount(), 0);

    const QString missing = dbPath(QStringLiteral("missing.db"));
    w.openDatabase(missing, false);
    QVERIFY(w.waitForIdle(10000));
    QVERIFY2(w.bannerText().contains(QStringLiteral("missing.db")), qPrintable(w.bannerText()));
    QVERIFY(!QFile::exists(missing)); // opening for reading never creates a file
}

QTEST_MAIN(TestRunHistory)
#include "tst_runhistory.moc"
