// Kill and resume, as a user meets it: a sweep started in a child process is killed with SIGKILL while it
// writes runs (twice, at different points), then the same command is run again. After every kill and at the
// end the database passes PRAGMA integrity_check, holds each run identity at most once, and every stored run
// is whole (all its job rows, its series and its decision log); the final database holds every run exactly
// once. The same for the studio: the GUI saving runs of a scenario into a project database (--db) is killed
// part way and the database it leaves is whole and opens again.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fstream>
#include <set>
#include <sqlite3.h>

namespace {

const QString kTrace = QStringLiteral(SS_SOURCE_DIR "/sample-traces/das-small-1000.csv");
const QStringList kPolicies = {QStringLiteral("fifo+firstfit"), QStringLiteral("sjf+bestfit"), QStringLiteral("las+consolidate"),
                               QStringLiteral("tetris")};
constexpr int kSeeds = 5;

struct DbCheck {
    QString error;        // "" when the database is consistent
    int runs = 0;
    std::set<std::string> keys;
};

// Opens read-only and checks integrity, identities and that every run is whole.
DbCheck checkDb(const QString& path, bool expectLogs, int expectJobs)
{
    DbCheck c;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        c.error = QStringLiteral("cannot open: ") + QString::fromUtf8(sqlite3_errmsg(db));
        sqlite3_close(db);
        return c;
    }
    sqlite3_busy_timeout(db, 5000);
    auto query = [&](const char* sql, auto row) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) {
            c.error = QStringLiteral("%1: %2").arg(QString::fromUtf8(sql), QString::fromUtf8(sqlite3_errmsg(db)));
            return;
        }
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            row(st);
        if (rc != SQLITE_DONE && c.error.isEmpty())
            c.error = QStringLiteral("%1: %2").arg(QString::fromUtf8(sql), QString::fromUtf8(sqlite3_errmsg(db)));
        sqlite3_finalize(st);
    };
    query("PRAGMA integrity_check", [&](sqlite3_stmt* st) {
        const QString r = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
        if (r != QLatin1String("ok"))
            c.error += QStringLiteral("integrity_check: ") + r + QLatin1Char(' ');
    });
    query("SELECT r.run_key, r.s_jobs, r.cancelled, (SELECT COUNT(*) FROM jobs j WHERE j.run_id = r.id),"
          " (SELECT COUNT(*) FROM series s WHERE s.run_id = r.id), (SELECT COUNT(*) FROM decision_logs d WHERE d.run_id = r.id)"
          " FROM runs r",
          [&](sqlite3_stmt* st) {
              ++c.runs;
              const std::string key = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
              if (!c.keys.insert(key).second)
                  c.error += QStringLiteral("run %1 stored twice; ").arg(QString::fromStdString(key.substr(0, 12)));
              const int jobs = sqlite3_column_int(st, 1), rows = sqlite3_column_int(st, 3);
              if (sqlite3_column_int(st, 2) != 0)
                  c.error += QStringLiteral("a cancelled (partial) run was stored; ");
              if (jobs != expectJobs || rows != jobs)
                  c.error += QStringLiteral("run with %1 jobs has %2 job rows (want %3); ").arg(jobs).arg(rows).arg(expectJobs);
              if (sqlite3_column_int(st, 4) == 0)
                  c.error += QStringLiteral("run without its series; ");
              if (expectLogs && sqlite3_column_int(st, 5) != 1)
                  c.error += QStringLiteral("run without its decision log; ");
          });
    sqlite3_close(db);
    return c;
}

int runCount(const QString& path)
{
    if (!QFileInfo::exists(path))
        return 0;
    sqlite3* db = nullptr;
    int n = 0;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 200);
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM runs", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return n;
}

// Starts `program`, waits until the database holds at least `atLeast` runs, then SIGKILLs it. Returns the
// runs seen just before the kill, or -1 when the process ended by itself first.
int killWhenRuns(const QString& program, const QStringList& args, const QString& db, int atLeast, int extraMs,
                 const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    p.setStandardOutputFile(QProcess::nullDevice());
    p.start(program, args);
    if (!p.waitForStarted(10000))
        return -2;
    QElapsedTimer t;
    t.start();
    int n = 0;
    while (p.state() == QProcess::Running && t.elapsed() < 120000) {
        n = runCount(db);
        if (n >= atLeast)
            break;
        QThread::msleep(5);
    }
    if (p.state() != QProcess::Running)
        return -1;
    QThread::msleep(extraMs); // land somewhere inside the next save, not just after a commit
    ::kill(pid_t(p.processId()), SIGKILL);
    p.waitForFinished(10000);
    return n;
}

} // namespace

class TstKillResume : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sweepKilledTwiceThenResumed()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("sweep.db"));
        const QStringList args = {QStringLiteral("sweep"), QStringLiteral("--traces"), kTrace, QStringLiteral("--clusters"),
                                  QStringLiteral("das-small"), QStringLiteral("--policies"), kPolicies.join(QLatin1Char(',')),
                                  QStringLiteral("--seeds"), QStringLiteral("1-%1").arg(kSeeds), QStringLiteral("--db"), db,
                                  QStringLiteral("--jobs"), QStringLiteral("1"), QStringLiteral("--keep-log"), QStringLiteral("--quiet")};
        const int total = int(kPolicies.size()) * kSeeds;
        int killedAt = 0;
        for (auto [atLeast, extra] : {std::pair{1, 3}, std::pair{4, 11}}) {
            const int seen = killWhenRuns(QStringLiteral(SS_CLI), args, db, killedAt + atLeast, extra);
            QVERIFY2(seen != -2, "the CLI did not start");
            if (seen == -1)
                QSKIP("the sweep finished before it could be killed (machine too fast for this sweep)");
            const DbCheck c = checkDb(db, true, 1000);
            QVERIFY2(c.error.isEmpty(), qPrintable(QStringLiteral("after SIGKILL at %1 runs: ").arg(seen) + c.error));
            QVERIFY2(c.runs >= seen && c.runs < total, qPrintable(QStringLiteral("%1 runs after the kill").arg(c.runs)));
            killedAt = c.runs;
            qInfo("killed with %d runs stored (of %d); database consistent", c.runs, total);
        }
        // the same command again finishes the sweep without redoing or duplicating anything
        QProcess p;
        p.start(QStringLiteral(SS_CLI), args);
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const DbCheck done = checkDb(db, true, 1000);
        QVERIFY2(done.error.isEmpty(), qPrintable(done.error));
        QCOMPARE(done.runs, total);
        // and once more: nothing left to do, nothing added
        QProcess again;
        again.start(QStringLiteral(SS_CLI), args);
        QVERIFY(again.waitForFinished(300000));
        QCOMPARE(again.exitCode(), 0);
        const DbCheck twice = checkDb(db, true, 1000);
        QVERIFY2(twice.error.isEmpty(), qPrintable(twice.error));
        QCOMPARE(twice.runs, total);
        QVERIFY(twice.keys == done.keys);
    }

#ifdef SS_GUI
    void studioKilledWhileSavingRuns()
    {
        QTemporaryDir dir;
        const QString scenario = dir.filePath(QStringLiteral("kill.scenario.json"));
        {
            std::ofstream f(scenario.toStdString());
            f << "{\"format\": \"schedstudio-scenario\", \"version\": 1, \"name\": \"kill\", \"trace\": {\"path\": \""
              << kTrace.toStdString() << "\", \"format\": \"auto\"}, \"cluster\": {\"preset\": \"das-small\"}, "
              << "\"perf\": \"ideal\", \"policies\": [\"fifo+firstfit\", \"sjf+bestfit\", \"las+consolidate\", \"tetris\"], "
              << "\"seed\": \"1\", \"seeds\": 6, \"backfill\": true}\n";
        }
        const QString db = dir.filePath(QStringLiteral("project.db"));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
        const QStringList args = {QStringLiteral("--scenario"), scenario, QStringLiteral("--run"), QStringLiteral("--db"), db};
        const int seen = killWhenRuns(QStringLiteral(SS_GUI), args, db, 2, 7, env);
        QVERIFY2(seen != -2, "the studio did not start");
        if (seen == -1)
            QSKIP("the studio finished its runs before it could be killed");
        const DbCheck c = checkDb(db, false, 1000);
        QVERIFY2(c.error.isEmpty(), qPrintable(QStringLiteral("after SIGKILL of the studio: ") + c.error));
        QVERIFY(c.runs >= seen);
        qInfo("studio killed with %d runs saved; database consistent", c.runs);
        // the project database opens again in the studio and keeps what it had
        const QString shot = dir.filePath(QStringLiteral("reopen.png"));
        QProcess reopen;
        reopen.setProcessEnvironment(env);
        reopen.start(QStringLiteral(SS_GUI), {QStringLiteral("--db"), db, QStringLiteral("--screenshot"), shot});
        QVERIFY(reopen.waitForFinished(120000));
        QCOMPARE(reopen.exitCode(), 0);
        QVERIFY(QFileInfo::exists(shot));
        const DbCheck after = checkDb(db, false, 1000);
        QVERIFY2(after.error.isEmpty(), qPrintable(after.error));
        QCOMPARE(after.runs, c.runs);
    }
#endif
};

QTEST_GUILESS_MAIN(TstKillResume)
#include "tst_killresume.moc"
