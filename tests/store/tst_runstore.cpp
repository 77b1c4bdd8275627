// RunStore: round trips, listing/rename/delete, migration, refusal of newer/foreign/corrupt files,
// all-or-nothing writes, merges, the decision-log blob codec and bulk insert speed.
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <cstring>
#include <fstream>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include "storetestutil.h"
#include "store/runstore.h"

using namespace ss;
using sstest::fakeRun;
using sstest::sameFloat;

namespace {

int64_t countRows(const std::string& db, const char* sql)
{
    sqlite3* h = nullptr;
    sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* st = nullptr;
    int64_t n = -1;
    if (sqlite3_prepare_v2(h, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return n;
}

void execSql(const std::string& db, const char* sql)
{
    sqlite3* h = nullptr;
    QCOMPARE(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(h, sql, nullptr, nullptr, &err);
    const std::string msg = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(h);
    QVERIFY2(rc == SQLITE_OK, msg.c_str());
}

// Fails with a message naming the first difference.
std::string diffRuns(const RunOutput& a, const RunOutput& b)
{
    if (a.policy != b.policy || a.seed != b.seed || a.perf != b.perf || a.clusterName != b.clusterName ||
        a.clusterFingerprint != b.clusterFingerprint || a.traceName != b.traceName ||
        a.traceFingerprint != b.traceFingerprint)
        return "identity fields differ";
    if (!sameFloat(a.wallSeconds, b.wallSeconds) || a.cancelled != b.cancelled)
        return "wall seconds / cancelled differ";
    const Summary &s = a.summary, &t = b.summary;
    if (s.jobs != t.jobs || s.finished != t.finished || s.unfinished != t.unfinished || s.rejected != t.rejected ||
        s.deadlineJobs != t.deadlineJobs || s.preemptions != t.preemptions || s.events != t.events ||
        s.decisions != t.decisions)
        return "summary counts differ";
    const double sv[] = {s.meanJctMin, s.medianJctMin, s.p95JctMin, s.p99JctMin, s.meanQueueMin, s.meanFeeUsd,
                         s.totalFeeUsd, s.makespanH, s.utilization, s.deadlineMissRate, s.jainFairness};
    const double tv[] = {t.meanJctMin, t.medianJctMin, t.p95JctMin, t.p99JctMin, t.meanQueueMin, t.meanFeeUsd,
                         t.totalFeeUsd, t.makespanH, t.utilization, t.deadlineMissRate, t.jainFairness};
    for (size_t i = 0; i < std::size(sv); ++i)
        if (!sameFloat(sv[i], tv[i]))
            return "summary value " + std::to_string(i) + " differs";
    if (a.jobs.size() != b.jobs.size())
        return "job count differs";
    for (size_t i = 0; i < a.jobs.size(); ++i) {
        const JobRecord &x = a.jobs[i], &y = b.jobs[i];
        if (x.index != y.index || x.id != y.id || x.submit != y.submit || x.start != y.start || x.end != y.end ||
            x.jct != y.jct || x.queueing != y.queueing || x.gpus != y.gpus || x.machines != y.machines ||
            x.fee != y.fee || x.gpuSeconds != y.gpuSeconds || x.preemptions != y.preemptions ||
            x.deadlineMet != y.deadlineMet || x.deadlineValue != y.deadlineValue || x.duration != y.duration ||
            x.status != y.status)
            return "job " + std::to_string(i) + " differs";
    }
    if (a.series.size() != b.series.size())
        return "series length differs";
    for (size_t i = 0; i < a.series.size(); ++i) {
        const TimePoint &x = a.series[i], &y = b.series[i];
        if (x.t != y.t || x.utilization != y.utilization || x.fragmentation != y.fragmentation ||
            x.queue != y.queue || x.running != y.running)
            return "series point " + std::to_string(i) + " differs";
    }
    if (bool(a.log) != bool(b.log))
        return "log presence differs";
    if (!a.log)
        return {};
    if (a.log->machineCount != b.log->machineCount || a.log->gpuCount != b.log->gpuCount ||
        a.log->records.size() != b.log->records.size())
        return "log header differs";
    for (size_t k = 0; k < a.log->records.size(); ++k) {
        const DecisionRecord &x = a.log->records[k], &y = b.log->records[k];
        const std::string at = "log record " + std::to_string(k) + ": ";
        if (x.index != y.index || x.time != y.time || x.arrived != y.arrived || x.finished != y.finished ||
            x.queueLength != y.queueLength || x.preempted != y.preempted)
            return at + "header differs";
        if (x.queue.size() != y.queue.size() || x.placements.size() != y.placements.size())
            return at + "sizes differ";
        for (size_t i = 0; i < x.queue.size(); ++i)
            if (x.queue[i].job != y.queue[i].job || !sameFloat(x.queue[i].priority, y.queue[i].priority) ||
                !sameFloat(x.queue[i].priorityStd, y.queue[i].priorityStd) ||
                !sameFloat(x.queue[i].gate, y.queue[i].gate))
                return at + "queue item " + std::to_string(i) + " differs";
        for (size_t i = 0; i < x.placements.size(); ++i) {
            const PlacementRecord &p = x.placements[i], &q = y.placements[i];
            if (p.job != q.job || p.slots != q.slots || p.machines != q.machines || p.reason != q.reason ||
                p.affinity.size() != q.affinity.size() || p.affinityVar.size() != q.affinityVar.size())
                return at + "placement " + std::to_string(i) + " differs";
            for (size_t m = 0; m < p.affinity.size(); ++m)
                if (!sameFloat(p.affinity[m], q.affinity[m]))
                    return at + "affinity differs";
            for (size_t m = 0; m < p.affinityVar.size(); ++m)
                if (!sameFloat(p.affinityVar[m], q.affinityVar[m]))
                    return at + "affinity variance differs";
        }
    }
    return {};
}

} // namespace

class TestRunStore : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }

private Q_SLOTS:
    void roundTrip()
    {
        const std::string db = path("roundtrip.db");
        const RunOutput in = fakeRun(2000, 300, 120);
        int64_t id;
        {
            RunStore store(db);
            QCOMPARE(store.schemaVersion(), kStoreSchemaVersion);
            id = store.saveRun("exp-a", in, "{\"scenario\":1}");
            QVERIFY(id > 0);
        }
        RunStore store(db, RunStore::Mode::Existing); // a fresh connection: nothing comes from a cache
        const StoredRun sr = store.loadRun(id);
        const std::string diff = diffRuns(in, sr.out);
        QVERIFY2(diff.empty(), diff.c_str());
        QCOMPARE(sr.config, std::string("{\"scenario\":1}"));
        QCOMPARE(sr.info.experiment, std::string("exp-a"));
        QCOMPARE(sr.info.key, runKey(in));
        QVERIFY(sr.info.hasLog);
        QCOMPARE(sr.info.softwareVersion, std::string(SCHEDSTUDIO_VERSION));
        QVERIFY(!sr.info.created.empty());
        // Without the log requested, everything else still loads.
        const StoredRun noLog = store.loadRun(id, false);
        QVERIFY(!noLog.out.log);
        QCOMPARE(noLog.out.jobs.size(), in.jobs.size());
        QCOMPARE(store.integrityCheck(), std::string("ok"));
        sqlite3* h = nullptr;
        sqlite3_open(db.c_str(), &h);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(h, "PRAGMA journal_mode", -1, &st, nullptr);
        QCOMPARE(sqlite3_step(st), SQLITE_ROW);
        QCOMPARE(QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))), QString("wal"));
        sqlite3_finalize(st);
        sqlite3_close(h);
    }

    void decisionLogBlobIsCompactAndStrict()
    {
        const RunOutput in = fakeRun(10, 0, 500);
        const std::string blob = encodeDecisionLog(*in.log);
        // Per record: 8 bytes of time, ~60 bytes of raw floats (3 priorities + 11 affinities + extras) and
        // small varints; repeated reasons are written once and then referenced by index.
        QVERIFY2(blob.size() < 500 * 128, std::to_string(blob.size()).c_str());
        auto occurrences = [&](const std::string& needle) {
            size_t n = 0;
            for (size_t p = blob.find(needle); p != std::string::npos; p = blob.find(needle, p + 1))
                ++n;
            return n;
        };
        QCOMPARE(occurrences("no machine with 8 free GPUs"), size_t(1));
        QCOMPARE(occurrences("first fit"), size_t(1));
        QCOMPARE(occurrences("best fit on machine 3"), size_t(1));
        const DecisionLog back = decodeDecisionLog(blob.data(), blob.size());
        RunOutput tmp = in;
        tmp.log = std::make_shared<DecisionLog>(back);
        const std::string diff = diffRuns(in, tmp);
        QVERIFY2(diff.empty(), diff.c_str());
        // Every truncation is an error, never a crash or a silently short log.
        for (size_t cut : {size_t(0), size_t(3), size_t(5), blob.size() / 2, blob.size() - 1}) {
            bool threw = false;
            try {
                decodeDecisionLog(blob.data(), cut);
            } catch (const StoreError&) {
                threw = true;
            }
            QVERIFY2(threw, std::to_string(cut).c_str());
        }
        // Flipped bytes: either a log or a StoreError, never a crash or a huge allocation.
        Rng rng(11);
        int rejected = 0;
        for (int i = 0; i < 300; ++i) {
            std::string bad = blob;
            for (int k = 0; k < 3; ++k)
                bad[size_t(rng.below(bad.size()))] = char(rng.below(256));
            try {
                decodeDecisionLog(bad.data(), bad.size());
            } catch (const StoreError&) {
                ++rejected;
            }
        }
        QVERIFY(rejected > 0);
        std::string extra = blob + "x";
        QVERIFY_THROWS_EXCEPTION(StoreError, decodeDecisionLog(extra.data(), extra.size()));
    }

    void listRenameDelete()
    {
        const std::string db = path("list.db");
        RunStore store(db);
        const int64_t a = store.saveRun("e1", fakeRun(50, 10, 5, 1, "fifo+firstfit"));
        const int64_t b = store.saveRun("e1", fakeRun(60, 10, 0, 2, "srtf+bestfit"));
        const int64_t c = store.saveRun("e2", fakeRun(70, 10, 0, 3, "fifo+firstfit"));
        QCOMPARE(store.runCount(), int64_t(3));
        QCOMPARE(store.listRuns().size(), size_t(3));
        RunFilter f;
        f.experiment = "e1";
        auto e1 = store.listRuns(f);
        QCOMPARE(e1.size(), size_t(2));
        QCOMPARE(e1[0].id, a);
        QCOMPARE(e1[1].id, b);
        QCOMPARE(e1[1].jobs, 60);
        QCOMPARE(e1[1].policy, std::string("srtf+bestfit"));
        QVERIFY(e1[0].hasLog);
        QVERIFY(!e1[1].hasLog);
        f = {};
        f.policy = "fifo+firstfit";
        auto fifo = store.listRuns(f);
        QCOMPARE(fifo.size(), size_t(2));
        QCOMPARE(fifo[1].id, c);
        f = {};
        f.limit = 1;
        QCOMPARE(store.listRuns(f).size(), size_t(1));
        QCOMPARE(store.experiments(), (std::vector<std::string>{"e1", "e2"}));

        store.renameRun(b, "baseline");
        QCOMPARE(store.runInfo(b)->name, std::string("baseline"));
        QVERIFY_THROWS_EXCEPTION(StoreError, store.renameRun(999, "x"));

        QCOMPARE(countRows(db, "SELECT count(*) FROM jobs"), int64_t(180));
        store.deleteRun(a);
        QCOMPARE(store.runCount(), int64_t(2));
        QVERIFY(!store.runInfo(a));
        // Children go with the run: no orphan jobs, series points or logs.
        QCOMPARE(countRows(db, "SELECT count(*) FROM jobs"), int64_t(130));
        QCOMPARE(countRows(db, "SELECT count(*) FROM series"), int64_t(20));
        QCOMPARE(countRows(db, "SELECT count(*) FROM decision_logs"), int64_t(0));
        QVERIFY_THROWS_EXCEPTION(StoreError, store.deleteRun(a));
        QVERIFY_THROWS_EXCEPTION(StoreError, store.loadRun(a));
    }

    void keysAndSkipIfPresent()
    {
        const std::string db = path("keys.db");
        RunStore store(db);
        const RunOutput r = fakeRun(20, 5, 0, 4);
        QVERIFY(!store.hasRun(runKey(r)));
        const int64_t id = store.saveRun("e", r, {}, true);
        QVERIFY(store.hasRun(runKey(r)));
        QCOMPARE(store.saveRun("e", r, {}, true), id); // not written twice
        QCOMPARE(store.runCount(), int64_t(1));
        RunOutput other = r;
        other.seed = 5;
        QVERIFY(!store.hasRun(runKey(other)));
        QVERIFY(runKey(other) != runKey(r));
        other = r;
        other.perf = "ideal";
        QVERIFY(runKey(other) != runKey(r));
        // Without skipIfPresent the same run may be saved again (e.g. repeated `run --db`).
        QVERIFY(store.saveRun("e", r) != id);
        QCOMPARE(store.runCount(), int64_t(2));
    }

    void failedWriteLeavesDatabaseAsItWas()
    {
        const std::string db = path("atomic.db");
        RunStore store(db);
        store.saveRun("e", fakeRun(100, 10, 3, 1));
        RunOutput bad = fakeRun(100, 10, 3, 2);
        bad.jobs[60].index = bad.jobs[59].index; // duplicate primary key: fails after 60 job rows
        QVERIFY_THROWS_EXCEPTION(StoreError, store.saveRun("e-new", bad));
        QCOMPARE(store.runCount(), int64_t(1));
        QCOMPARE(countRows(db, "SELECT count(*) FROM jobs"), int64_t(100));
        QCOMPARE(countRows(db, "SELECT count(*) FROM series"), int64_t(10));
        QCOMPARE(countRows(db, "SELECT count(*) FROM experiments"), int64_t(1)); // "e-new" rolled back too
        // The store is still usable after a failed write.
        store.saveRun("e", fakeRun(10, 1, 0, 3));
        QCOMPARE(store.runCount(), int64_t(2));
    }

    void killedMidTransactionLeavesDatabaseAsItWas()
    {
        const std::string db = path("killed.db");
        {
            RunStore store(db);
            store.saveRun("e", fakeRun(100, 10, 2, 1));
        }
        const RunOutput big = fakeRun(100000, 4096, 0, 2); // built before the fork: the child only writes
        int fds[2];
        QCOMPARE(pipe(fds), 0);
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            RunStore store(db);
            const char go = 'g';
            (void)!write(fds[1], &go, 1);
            store.saveRun("e", big); // takes several hundred ms; SIGKILLed well before it commits
            _exit(3);
        }
        char go = 0;
        QCOMPARE(read(fds[0], &go, 1), ssize_t(1));
        QThread::msleep(60);
        kill(child, SIGKILL);
        int status = 0;
        waitpid(child, &status, 0);
        close(fds[0]);
        close(fds[1]);
        QVERIFY2(WIFSIGNALED(status), "the child finished its write before the kill; the test proves nothing");
        RunStore store(db, RunStore::Mode::Existing);
        QCOMPARE(store.integrityCheck(), std::string("ok"));
        QCOMPARE(store.runCount(), int64_t(1));
        QCOMPARE(countRows(db, "SELECT count(*) FROM jobs"), int64_t(100));
        QCOMPARE(store.loadRun(1).out.jobs.size(), size_t(100));
        store.saveRun("e", fakeRun(10, 1, 0, 3)); // and the file takes new runs
        QCOMPARE(store.runCount(), int64_t(2));
    }

    void migratesVersion1File()
    {
        // A file written by schema v1 (before run labels and the key index), made by hand.
        const std::string db = path("v1.db");
        execSql(db, R"SQL(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES('app','SchedStudio'),('software_version','0.0.9');
CREATE TABLE experiments(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));
CREATE TABLE runs(id INTEGER PRIMARY KEY, experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  run_key TEXT NOT NULL, policy TEXT NOT NULL, seed INTEGER NOT NULL, perf TEXT NOT NULL,
  cluster_name TEXT NOT NULL, cluster_fp TEXT NOT NULL, trace_name TEXT NOT NULL, trace_fp TEXT NOT NULL,
  config TEXT NOT NULL DEFAULT '', software_version TEXT NOT NULL, created TEXT NOT NULL,
  wall_seconds REAL, cancelled INTEGER NOT NULL DEFAULT 0,
  s_jobs INTEGER, s_finished INTEGER, s_unfinished INTEGER, s_rejected INTEGER,
  mean_jct_min REAL, median_jct_min REAL, p95_jct_min REAL, p99_jct_min REAL, mean_queue_min REAL,
  mean_fee_usd REAL, total_fee_usd REAL, makespan_h REAL, utilization REAL,
  deadline_jobs INTEGER, deadline_miss_rate REAL, jain_fairness REAL, preemptions INTEGER,
  events INTEGER, decisions INTEGER);
CREATE TABLE jobs(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL, job_id INTEGER NOT NULL, submit REAL, start REAL, end_t REAL, jct REAL, queueing REAL,
  gpus REAL, machines INTEGER, fee REAL, gpu_seconds REAL, preemptions INTEGER, deadline_met INTEGER,
  deadline_value REAL, duration REAL, status INTEGER, PRIMARY KEY(run_id, idx)) WITHOUT ROWID;
CREATE TABLE series(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL, t REAL, utilization REAL, fragmentation REAL, queue INTEGER, running INTEGER,
  PRIMARY KEY(run_id, seq)) WITHOUT ROWID;
CREATE TABLE decision_logs(run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  encoding INTEGER NOT NULL, machine_count INTEGER, gpu_count INTEGER, records INTEGER, data BLOB NOT NULL);
INSERT INTO experiments(id, name) VALUES(1, 'old');
INSERT INTO runs(id, experiment_id, run_key, policy, seed, perf, cluster_name, cluster_fp, trace_name, trace_fp,
  software_version, created, s_jobs, mean_jct_min) VALUES(1, 1, 'tfp|cfp|fifo+firstfit|3|ideal', 'fifo+firstfit',
  3, 'ideal', 'das-case', 'cfp', 'old-trace', 'tfp', '0.0.9', '2026-01-02T03:04:05Z', 2, 12.5);
INSERT INTO jobs VALUES(1, 0, 17, 0, 5, 65, 65, 5, 1, 1, 0.5, 60, 0, -1, 0, 60, 3);
INSERT INTO jobs VALUES(1, 1, 18, 1, 6, 66, 65, 5, 2, 1, 0.5, 120, 0, -1, 0, 60, 3);
PRAGMA user_version = 1;
)SQL");
        RunStore store(db);
        QCOMPARE(store.schemaVersion(), kStoreSchemaVersion);
        const auto runs = store.listRuns();
        QCOMPARE(runs.size(), size_t(1));
        QCOMPARE(runs[0].name, std::string()); // the column v2 added, with its default
        QCOMPARE(runs[0].meanJctMin, 12.5);
        QCOMPARE(runs[0].created, std::string("2026-01-02T03:04:05Z"));
        QVERIFY(store.hasRun("tfp|cfp|fifo+firstfit|3|ideal"));
        const StoredRun sr = store.loadRun(1);
        QCOMPARE(sr.out.jobs.size(), size_t(2));
        QCOMPARE(sr.out.jobs[1].id, int64_t(18));
        QCOMPARE(sr.out.jobs[1].status, JobStatus::Done);
        store.renameRun(1, "migrated");
        QCOMPARE(store.runInfo(1)->name, std::string("migrated"));
        QCOMPARE(countRows(db, "SELECT count(*) FROM sqlite_master WHERE name = 'runs_by_key'"), int64_t(1));
        QCOMPARE(countRows(db, "PRAGMA user_version"), int64_t(kStoreSchemaVersion));
        store.saveRun("new", fakeRun(5, 1, 1));
        QCOMPARE(store.runCount(), int64_t(2));
    }

    void readOnlyRefusesOlderFile()
    {
        const std::string db = path("v1-ro.db");
        execSql(db, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                    "INSERT INTO meta VALUES('app','SchedStudio'); PRAGMA user_version = 1;");
        try {
            RunStore store(db, RunStore::Mode::ReadOnly);
            QFAIL("an older file opened read-only without migration");
        } catch (const StoreError& e) {
            QVERIFY2(std::string(e.what()).find("older") != std::string::npos, e.what());
        }
        QCOMPARE(countRows(db, "PRAGMA user_version"), int64_t(1)); // untouched
    }

    void refusesNewerVersion()
    {
        const std::string db = path("newer.db");
        {
            RunStore store(db);
            store.saveRun("e", fakeRun(3, 1, 0));
        }
        execSql(db, "PRAGMA user_version = 7");
        try {
            RunStore store(db);
            QFAIL("a newer schema was opened");
        } catch (const StoreError& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.find("newer") != std::string::npos && msg.find("7") != std::string::npos &&
                         msg.find(db) != std::string::npos && msg.find('\n') == std::string::npos,
                     e.what());
        }
        QCOMPARE(countRows(db, "PRAGMA user_version"), int64_t(7)); // not downgraded or touched
    }

    void refusesForeignAndCorruptFiles()
    {
        const std::string foreign = path("foreign.db");
        execSql(foreign, "CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT)");
        try {
            RunStore store(foreign);
            QFAIL("a foreign database was opened");
        } catch (const StoreError& e) {
            QVERIFY2(std::string(e.what()).find("not a SchedStudio") != std::string::npos, e.what());
        }
        QCOMPARE(countRows(foreign, "SELECT count(*) FROM sqlite_master"), int64_t(1)); // no tables added

        const std::string text = path("notes.db");
        {
            std::ofstream f(text);
            f << "these are my notes, not a database\n";
            for (int i = 0; i < 200; ++i)
                f << "line " << i << "\n";
        }
        try {
            RunStore store(text);
            QFAIL("a text file was opened");
        } catch (const StoreError& e) {
            QVERIFY2(std::string(e.what()).find("not a SchedStudio") != std::string::npos, e.what());
            QVERIFY(std::string(e.what()).find(text) == 0);
        }

        // A real store whose header page is damaged.
        const std::string damaged = path("damaged.db");
        {
            RunStore store(damaged);
            store.saveRun("e", fakeRun(500, 10, 0));
        }
        {
            std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(0);
            const char junk[100] = "garbage garbage garbage garbage";
            f.write(junk, sizeof junk);
        }
        QVERIFY_THROWS_EXCEPTION(StoreError, RunStore{damaged});

        QVERIFY_THROWS_EXCEPTION(StoreError, (RunStore{path("missing.db"), RunStore::Mode::Existing}));
        QVERIFY(!QFile::exists(m_dir.filePath("missing.db")));
    }

    void mergeDeduplicatesByKey()
    {
        const std::string a = path("merge-a.db"), b = path("merge-b.db"), out = path("merge-out.db");
        {
            RunStore sa(a);
            sa.saveRun("x", fakeRun(30, 3, 4, 1));
            sa.saveRun("x", fakeRun(30, 3, 0, 2));
            RunStore sb(b);
            sb.saveRun("y", fakeRun(30, 3, 0, 2)); // same key as a's second run
            sb.saveRun("y", fakeRun(30, 3, 0, 3));
            sb.renameRun(2, "kept label");
        }
        RunStore so(out);
        QCOMPARE(so.merge(a), 2);
        QCOMPARE(so.merge(b), 1);
        QCOMPARE(so.merge(b), 0); // idempotent
        QCOMPARE(so.runCount(), int64_t(3));
        const auto runs = so.listRuns();
        QCOMPARE(runs[0].experiment, std::string("x"));
        QCOMPARE(runs[2].experiment, std::string("y"));
        QCOMPARE(runs[2].name, std::string("kept label"));
        RunStore sa(a, RunStore::Mode::ReadOnly);
        const std::string diff = diffRuns(sa.loadRun(1).out, so.loadRun(runs[0].id).out);
        QVERIFY2(diff.empty(), diff.c_str());
        QCOMPARE(so.loadRun(runs[0].id).info.created, sa.loadRun(1).info.created);
        QVERIFY_THROWS_EXCEPTION(StoreError, so.merge(out));
    }

    void bulkInsert100kJobs()
    {
        const std::string db = path("bulk.db");
        const RunOutput big = fakeRun(100000, 4096, 0);
        RunStore store(db);
        QElapsedTimer t;
        t.start();
        const int64_t id = store.saveRun("bulk", big);
        const qint64 saveMs = t.elapsed();
        t.restart();
        const StoredRun back = store.loadRun(id);
        const qint64 loadMs = t.elapsed();
        qInfo("100k jobs + 4096 series points: save %lld ms, load %lld ms", (long long)saveMs, (long long)loadMs);
        QCOMPARE(back.out.jobs.size(), size_t(100000));
        QCOMPARE(back.out.jobs[99999].id, big.jobs[99999].id);
        // Generous bound for a loaded 2-core CI box; a row-per-transaction insert takes minutes.
        QVERIFY2(saveMs < 5000, std::to_string(saveMs).c_str());
    }
};

QTEST_GUILESS_MAIN(TestRunStore)
#include "tst_runstore.moc"
