#include "store/runstore.h"

#include <sqlite3.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "io/json.h"
#include "io/runio.h"

#ifndef SCHEDSTUDIO_VERSION
#define SCHEDSTUDIO_VERSION "dev"
#endif

namespace ss {

namespace {

constexpr const char* kAppTag = "SchedStudio";
constexpr int kLogEncoding = 3; // decision_logs.encoding: blob version written (1 = before admissions, 2 = before allocations; both still read)

// Migration i (1-based) moves a file from user_version i-1 to i. Never edit a shipped step: add one.
const char* const kMigrations[] = {
    // 1: first schema.
    R"SQL(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE experiments(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  run_key TEXT NOT NULL,
  policy TEXT NOT NULL, seed INTEGER NOT NULL, perf TEXT NOT NULL,
  cluster_name TEXT NOT NULL, cluster_fp TEXT NOT NULL, trace_name TEXT NOT NULL, trace_fp TEXT NOT NULL,
  config TEXT NOT NULL DEFAULT '',
  software_version TEXT NOT NULL,
  created TEXT NOT NULL,
  wall_seconds REAL, cancelled INTEGER NOT NULL DEFAULT 0,
  s_jobs INTEGER, s_finished INTEGER, s_unfinished INTEGER, s_rejected INTEGER,
  mean_jct_min REAL, median_jct_min REAL, p95_jct_min REAL, p99_jct_min REAL, mean_queue_min REAL,
  mean_fee_usd REAL, total_fee_usd REAL, makespan_h REAL, utilization REAL,
  deadline_jobs INTEGER, deadline_miss_rate REAL, jain_fairness REAL, preemptions INTEGER,
  events INTEGER, decisions INTEGER);
CREATE TABLE jobs(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL, job_id INTEGER NOT NULL, submit REAL, start REAL, end_t REAL, jct REAL, queueing REAL,
  gpus REAL, machines INTEGER, fee REAL, gpu_seconds REAL, preemptions INTEGER, deadline_met INTEGER,
  deadline_value REAL, duration REAL, status INTEGER,
  PRIMARY KEY(run_id, idx)) WITHOUT ROWID;
CREATE TABLE series(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL, t REAL, utilization REAL, fragmentation REAL, queue INTEGER, running INTEGER,
  PRIMARY KEY(run_id, seq)) WITHOUT ROWID;
CREATE TABLE decision_logs(
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  encoding INTEGER NOT NULL, machine_count INTEGER, gpu_count INTEGER, records INTEGER, data BLOB NOT NULL);
)SQL",
    // 2: user labels for runs (rename) and lookups by key / experiment (resumable sweeps, merges).
    R"SQL(
ALTER TABLE runs ADD COLUMN name TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_by_key ON runs(run_key);
CREATE INDEX runs_by_experiment ON runs(experiment_id);
)SQL",
    // 3: Chronus's figures: weighted deadline miss rate, best-effort JCT and what the policy reported about
    // its run (JSON object, e.g. {"slo_accepted":1724,"lease_solver_mean_ms":3.9}).
    R"SQL(
ALTER TABLE runs ADD COLUMN weighted_miss_rate REAL;
ALTER TABLE runs ADD COLUMN be_jobs INTEGER;
ALTER TABLE runs ADD COLUMN be_mean_jct_min REAL;
ALTER TABLE runs ADD COLUMN policy_stats TEXT NOT NULL DEFAULT '';
)SQL",
    // 4: what-if forks (run/fork.h): the run a fork was made from (NULL = not a fork, or its parent lives in
    // another database), the decision it was forked at (counted from 1) and the change, in words.
    R"SQL(
ALTER TABLE runs ADD COLUMN parent_run_id INTEGER;
ALTER TABLE runs ADD COLUMN fork_decision INTEGER;
ALTER TABLE runs ADD COLUMN fork_change TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_by_parent ON runs(parent_run_id);
)SQL",
};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == size_t(kStoreSchemaVersion));

double colD(sqlite3_stmt* s, int i)
{
    // SQLite stores NaN as NULL; give it back as NaN rather than 0.
    return sqlite3_column_type(s, i) == SQLITE_NULL ? std::numeric_limits<double>::quiet_NaN()
                                                    : sqlite3_column_double(s, i);
}
std::string colS(sqlite3_stmt* s, int i)
{
    const unsigned char* t = sqlite3_column_text(s, i);
    return t ? std::string(reinterpret_cast<const char*>(t), size_t(sqlite3_column_bytes(s, i))) : std::string();
}
void bindS(sqlite3_stmt* s, int i, const std::string& v)
{
    sqlite3_bind_text(s, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
}

// Rolls back unless committed: an exception thrown mid-run leaves the file as it was.
class Transaction {
public:
    explicit Transaction(sqlite3* db) : m_db(db)
    {
        if (sqlite3_exec(m_db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK)
            throw StoreError(std::string("cannot start a transaction: ") + sqlite3_errmsg(m_db));
    }
    ~Transaction()
    {
        if (!m_done)
            sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    void commit()
    {
        if (sqlite3_exec(m_db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK)
            throw StoreError(std::string("cannot commit: ") + sqlite3_errmsg(m_db));
        m_done = true;
    }
private:
    sqlite3* m_db;
    bool m_done = false;
};

const char* const kRunColumns =
    "r.id, e.name, r.name, r.policy, r.seed, r.perf, r.cluster_name, r.cluster_fp, r.trace_name, r.trace_fp, "
    "r.run_key, r.created, r.software_version, r.s_jobs, r.mean_jct_min, r.wall_seconds, "
    "EXISTS(SELECT 1 FROM decision_logs d WHERE d.run_id = r.id)";

RunInfo readInfo(sqlite3_stmt* s)
{
    RunInfo i;
    i.id = sqlite3_column_int64(s, 0);
    i.experiment = colS(s, 1);
    i.name = colS(s, 2);
    i.policy = colS(s, 3);
    i.seed = uint64_t(sqlite3_column_int64(s, 4));
    i.perf = colS(s, 5);
    i.clusterName = colS(s, 6);
    i.clusterFingerprint = colS(s, 7);
    i.traceName = colS(s, 8);
    i.traceFingerprint = colS(s, 9);
    i.key = colS(s, 10);
    i.created = colS(s, 11);
    i.softwareVersion = colS(s, 12);
    i.jobs = sqlite3_column_int(s, 13);
    i.meanJctMin = colD(s, 14);
    i.wallSeconds = colD(s, 15);
    i.hasLog = sqlite3_column_int(s, 16) != 0;
    return i;
}

} // namespace

std::string runKey(const std::string& traceFp, const std::string& clusterFp, const std::string& policy,
                   uint64_t seed, const std::string& perf)
{
    return traceFp + "|" + clusterFp + "|" + policy + "|" + std::to_string(seed) + "|" + perf;
}

std::string runKey(const RunOutput& out)
{
    // Runs made by runSimulation carry their complete spec: its hash is the identity. The legacy key is
    // kept for outputs assembled by hand (and is what runs stored before schema 3 hold).
    if (!out.spec.traceFingerprint.empty())
        return out.spec.id();
    return runKey(out.traceFingerprint, out.clusterFingerprint, out.policy, out.seed, out.perf);
}

RunStore::~RunStore()
{
    close();
}

void RunStore::close()
{
    for (auto& [sql, st] : m_stmts)
        sqlite3_finalize(st);
    m_stmts.clear();
    if (m_db)
        sqlite3_close(m_db);
    m_db = nullptr;
}

void RunStore::fail(const std::string& what) const
{
    throw StoreError(m_path + ": " + what + (m_db ? std::string(" (") + sqlite3_errmsg(m_db) + ")" : ""));
}

void RunStore::exec(const char* sql) const
{
    char* err = nullptr;
    if (sqlite3_exec(m_db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        throw StoreError(m_path + ": " + msg);
    }
}

sqlite3_stmt* RunStore::prepare(const char* sql) const
{
    for (auto& [text, st] : m_stmts)
        if (text == sql) {
            sqlite3_reset(st);
            sqlite3_clear_bindings(st);
            return st;
        }
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v3(m_db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, nullptr) != SQLITE_OK)
        fail(std::string("cannot prepare statement"));
    m_stmts.emplace_back(sql, st);
    return st;
}

void RunStore::open(const std::string& path, Mode mode)
{
    close();
    m_path = path;
    if (mode != Mode::Create && !std::filesystem::exists(path))
        throw StoreError(path + ": no such database");
    int flags = mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY
                                       : SQLITE_OPEN_READWRITE | (mode == Mode::Create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path.c_str(), &m_db, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
        std::string msg = m_db ? sqlite3_errmsg(m_db) : "out of memory";
        close();
        throw StoreError(path + ": cannot open database (" + msg + ")");
    }
    // Parallel sweeps (shards) may write one file: wait for the writer instead of failing at once.
    sqlite3_busy_timeout(m_db, 30000);
    try {
        int version = -1;
        sqlite3_stmt* st = nullptr;
        int rc = sqlite3_prepare_v2(m_db, "PRAGMA user_version", -1, &st, nullptr);
        if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            version = sqlite3_column_int(st, 0);
        rc = sqlite3_errcode(m_db);
        sqlite3_finalize(st);
        if (version < 0) {
            if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
                throw StoreError(path + ": not a SchedStudio run database (not an SQLite file, or corrupt)");
            fail("cannot read the schema version");
        }
        if (version > kStoreSchemaVersion)
            throw StoreError(path + ": schema version " + std::to_string(version) +
                             " is newer than this SchedStudio (" SCHEDSTUDIO_VERSION ") supports (" +
                             std::to_string(kStoreSchemaVersion) + "); open it with a newer SchedStudio");
        if (version == 0) {
            // A fresh file has no tables; anything else with user_version 0 belongs to someone else.
            sqlite3_stmt* q = nullptr;
            sqlite3_prepare_v2(m_db, "SELECT count(*) FROM sqlite_master", -1, &q, nullptr);
            int tables = -1;
            if (q && sqlite3_step(q) == SQLITE_ROW)
                tables = sqlite3_column_int(q, 0);
            sqlite3_finalize(q);
            if (tables < 0)
                throw StoreError(path + ": not a SchedStudio run database (not an SQLite file, or corrupt)");
            if (tables > 0)
                throw StoreError(path + ": not a SchedStudio run database (it has tables but no SchedStudio "
                                        "schema version)");
        } else {
            sqlite3_stmt* q = nullptr;
            std::string app;
            if (sqlite3_prepare_v2(m_db, "SELECT value FROM meta WHERE key = 'app'", -1, &q, nullptr) == SQLITE_OK &&
                sqlite3_step(q) == SQLITE_ROW)
                app = colS(q, 0);
            sqlite3_finalize(q);
            if (app != kAppTag)
                throw StoreError(path + ": not a SchedStudio run database (no SchedStudio meta table)");
        }
        if (mode == Mode::ReadOnly) {
            if (version < kStoreSchemaVersion)
                throw StoreError(path + ": schema version " + std::to_string(version) +
                                 " is older than " + std::to_string(kStoreSchemaVersion) +
                                 "; open it once for writing (e.g. `runs --db`) to migrate it");
            exec("PRAGMA foreign_keys = ON");
            return;
        }
        // WAL: readers do not block the writer, and a killed writer leaves only an uncommitted tail.
        exec("PRAGMA journal_mode = WAL");
        exec("PRAGMA synchronous = NORMAL");
        exec("PRAGMA foreign_keys = ON");
        if (version < kStoreSchemaVersion)
            migrate();
        else {
            sqlite3_stmt* q = prepare("INSERT OR REPLACE INTO meta(key, value) VALUES('last_opened_by', ?)");
            bindS(q, 1, SCHEDSTUDIO_VERSION);
            sqlite3_step(q); // best effort: a busy database is not worth failing the open
            sqlite3_reset(q);
        }
    } catch (...) {
        close();
        throw;
    }
}

void RunStore::migrate()
{
    int version = schemaVersion();
    Transaction tx(m_db);
    version = schemaVersion(); // another process may have migrated it meanwhile
    for (int v = version; v < kStoreSchemaVersion; ++v)
        exec(kMigrations[v]);
    if (version == 0) {
        sqlite3_stmt* q = prepare("INSERT INTO meta(key, value) VALUES('app', ?), ('created_by', ?)");
        bindS(q, 1, kAppTag);
        bindS(q, 2, SCHEDSTUDIO_VERSION);
        if (sqlite3_step(q) != SQLITE_DONE)
            fail("cannot write the meta table");
    }
    sqlite3_stmt* q = prepare("INSERT OR REPLACE INTO meta(key, value) VALUES('software_version', ?), "
                              "('last_opened_by', ?)");
    bindS(q, 1, SCHEDSTUDIO_VERSION);
    bindS(q, 2, SCHEDSTUDIO_VERSION);
    if (sqlite3_step(q) != SQLITE_DONE)
        fail("cannot write the meta table");
    exec(("PRAGMA user_version = " + std::to_string(kStoreSchemaVersion)).c_str());
    tx.commit();
}

int RunStore::schemaVersion() const
{
    sqlite3_stmt* q = prepare("PRAGMA user_version");
    int v = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) : -1;
    sqlite3_reset(q);
    return v;
}

int64_t RunStore::experimentId(const std::string& name)
{
    sqlite3_stmt* q = prepare("SELECT id FROM experiments WHERE name = ?");
    bindS(q, 1, name);
    if (sqlite3_step(q) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(q, 0);
        sqlite3_reset(q);
        return id;
    }
    sqlite3_reset(q);
    q = prepare("INSERT INTO experiments(name) VALUES(?)");
    bindS(q, 1, name);
    if (sqlite3_step(q) != SQLITE_DONE)
        fail("cannot add experiment '" + name + "'");
    return sqlite3_last_insert_rowid(m_db);
}

int64_t RunStore::saveRun(const std::string& experiment, const RunOutput& out, const std::string& config,
                          bool skipIfPresent)
{
    return insertRun(experiment, out, config, skipIfPresent, nullptr);
}

int64_t RunStore::insertRun(const std::string& experiment, const RunOutput& out, const std::string& config,
                            bool skipIfPresent, const RunInfo* keep)
{
    if (!m_db)
        throw StoreError("no database open");
    const std::string key = keep ? keep->key : runKey(out); // a merge keeps the source's identity
    Transaction tx(m_db);
    if (skipIfPresent) {
        sqlite3_stmt* q = prepare("SELECT id FROM runs WHERE run_key = ? ORDER BY id LIMIT 1");
        bindS(q, 1, key);
        if (sqlite3_step(q) == SQLITE_ROW) {
            int64_t id = sqlite3_column_int64(q, 0);
            sqlite3_reset(q);
            return id; // nothing written: the transaction rolls back
        }
        sqlite3_reset(q);
    }
    const int64_t exp = experimentId(experiment.empty() ? std::string("default") : experiment);
    sqlite3_stmt* r = prepare(
        "INSERT INTO runs(experiment_id, run_key, policy, seed, perf, cluster_name, cluster_fp, trace_name, "
        "trace_fp, config, software_version, created, wall_seconds, cancelled, s_jobs, s_finished, s_unfinished, "
        "s_rejected, mean_jct_min, median_jct_min, p95_jct_min, p99_jct_min, mean_queue_min, mean_fee_usd, "
        "total_fee_usd, makespan_h, utilization, deadline_jobs, deadline_miss_rate, jain_fairness, preemptions, "
        "events, decisions, name, weighted_miss_rate, be_jobs, be_mean_jct_min, policy_stats) VALUES(?,?,?,?,?,?,?,?,?,?,?,"
        "COALESCE(?, strftime('%Y-%m-%dT%H:%M:%SZ','now')),?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    const Summary& s = out.summary;
    int i = 1;
    sqlite3_bind_int64(r, i++, exp);
    bindS(r, i++, key);
    bindS(r, i++, out.policy);
    sqlite3_bind_int64(r, i++, int64_t(out.seed));
    bindS(r, i++, out.perf);
    bindS(r, i++, out.clusterName);
    bindS(r, i++, out.clusterFingerprint);
    bindS(r, i++, out.traceName);
    bindS(r, i++, out.traceFingerprint);
    bindS(r, i++, !config.empty() || out.spec.traceFingerprint.empty() ? config : runConfigJson(out.spec));
    bindS(r, i++, keep ? keep->softwareVersion : std::string(SCHEDSTUDIO_VERSION));
    if (keep && !keep->created.empty())
        bindS(r, i++, keep->created);
    else
        sqlite3_bind_null(r, i++);
    sqlite3_bind_double(r, i++, out.wallSeconds);
    sqlite3_bind_int(r, i++, out.cancelled ? 1 : 0);
    for (int v : {s.jobs, s.finished, s.unfinished, s.rejected})
        sqlite3_bind_int(r, i++, v);
    for (double v : {s.meanJctMin, s.medianJctMin, s.p95JctMin, s.p99JctMin, s.meanQueueMin, s.meanFeeUsd,
                     s.totalFeeUsd, s.makespanH, s.utilization})
        sqlite3_bind_double(r, i++, v);
    sqlite3_bind_int(r, i++, s.deadlineJobs);
    sqlite3_bind_double(r, i++, s.deadlineMissRate);
    sqlite3_bind_double(r, i++, s.jainFairness);
    sqlite3_bind_int(r, i++, s.preemptions);
    sqlite3_bind_int64(r, i++, int64_t(s.events));
    sqlite3_bind_int64(r, i++, int64_t(s.decisions));
    bindS(r, i++, keep ? keep->name : std::string());
    sqlite3_bind_double(r, i++, s.weightedMissRate);
    sqlite3_bind_int(r, i++, s.bestEffortJobs);
    sqlite3_bind_double(r, i++, s.bestEffortMeanJctMin);
    {
        std::string stats;
        if (!s.policyStats.empty()) {
            JsonValue o = JsonValue::makeObject();
            for (const auto& [k, v] : s.policyStats)
                o[k] = std::isfinite(v) ? JsonValue::makeNumber(v) : JsonValue();
            stats = writeJson(o, -1);
        }
        bindS(r, i++, stats);
    }
    if (sqlite3_step(r) != SQLITE_DONE)
        fail("cannot write run");
    const int64_t runId = sqlite3_last_insert_rowid(m_db);
    if (out.forkDecision > 0) {
        sqlite3_stmt* f = prepare("UPDATE runs SET parent_run_id = ?, fork_decision = ?, fork_change = ? WHERE id = ?");
        if (out.parentRunId > 0 && !keep) // a merged fork's parent id means nothing in this database
            sqlite3_bind_int64(f, 1, out.parentRunId);
        else
            sqlite3_bind_null(f, 1);
        sqlite3_bind_int64(f, 2, int64_t(out.forkDecision));
        bindS(f, 3, out.forkChange);
        sqlite3_bind_int64(f, 4, runId);
        if (sqlite3_step(f) != SQLITE_DONE)
            fail("cannot write the fork of a run");
        sqlite3_reset(f);
    }

    sqlite3_stmt* j = prepare("INSERT INTO jobs(run_id, idx, job_id, submit, start, end_t, jct, queueing, gpus, "
                              "machines, fee, gpu_seconds, preemptions, deadline_met, deadline_value, duration, "
                              "status) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    sqlite3_bind_int64(j, 1, runId);
    for (const JobRecord& rec : out.jobs) {
        sqlite3_reset(j);
        sqlite3_bind_int(j, 2, rec.index);
        sqlite3_bind_int64(j, 3, rec.id);
        sqlite3_bind_double(j, 4, rec.submit);
        sqlite3_bind_double(j, 5, rec.start);
        sqlite3_bind_double(j, 6, rec.end);
        sqlite3_bind_double(j, 7, rec.jct);
        sqlite3_bind_double(j, 8, rec.queueing);
        sqlite3_bind_double(j, 9, rec.gpus);
        sqlite3_bind_int(j, 10, rec.machines);
        sqlite3_bind_double(j, 11, rec.fee);
        sqlite3_bind_double(j, 12, rec.gpuSeconds);
        sqlite3_bind_int(j, 13, rec.preemptions);
        sqlite3_bind_int(j, 14, rec.deadlineMet);
        sqlite3_bind_double(j, 15, rec.deadlineValue);
        sqlite3_bind_double(j, 16, rec.duration);
        sqlite3_bind_int(j, 17, int(rec.status));
        if (sqlite3_step(j) != SQLITE_DONE)
            fail("cannot write job " + std::to_string(rec.index) + " of a run");
    }
    sqlite3_reset(j);

    sqlite3_stmt* t = prepare("INSERT INTO series(run_id, seq, t, utilization, fragmentation, queue, running) "
                              "VALUES(?,?,?,?,?,?,?)");
    sqlite3_bind_int64(t, 1, runId);
    int seq = 0;
    for (const TimePoint& p : out.series) {
        sqlite3_reset(t);
        sqlite3_bind_int(t, 2, seq++);
        sqlite3_bind_double(t, 3, p.t);
        sqlite3_bind_double(t, 4, p.utilization);
        sqlite3_bind_double(t, 5, p.fragmentation);
        sqlite3_bind_int(t, 6, p.queue);
        sqlite3_bind_int(t, 7, p.running);
        if (sqlite3_step(t) != SQLITE_DONE)
            fail("cannot write the time series of a run");
    }
    sqlite3_reset(t);

    if (out.log) {
        const std::string blob = encodeDecisionLog(*out.log);
        sqlite3_stmt* d = prepare("INSERT INTO decision_logs(run_id, encoding, machine_count, gpu_count, records, "
                                  "data) VALUES(?,?,?,?,?,?)");
        sqlite3_bind_int64(d, 1, runId);
        sqlite3_bind_int(d, 2, kLogEncoding);
        sqlite3_bind_int(d, 3, out.log->machineCount);
        sqlite3_bind_int(d, 4, out.log->gpuCount);
        sqlite3_bind_int64(d, 5, int64_t(out.log->records.size()));
        sqlite3_bind_blob64(d, 6, blob.data(), blob.size(), SQLITE_STATIC);
        if (sqlite3_step(d) != SQLITE_DONE)
            fail("cannot write the decision log of a run");
        sqlite3_reset(d);
    }
    tx.commit();
    return runId;
}

std::vector<RunInfo> RunStore::listRuns(const RunFilter& f) const
{
    if (!m_db)
        throw StoreError("no database open");
    // A fixed statement with "? = '' OR" filters keeps it cacheable.
    sqlite3_stmt* q = prepare(
        "SELECT r.id, e.name, r.name, r.policy, r.seed, r.perf, r.cluster_name, r.cluster_fp, r.trace_name, "
        "r.trace_fp, r.run_key, r.created, r.software_version, r.s_jobs, r.mean_jct_min, r.wall_seconds, "
        "EXISTS(SELECT 1 FROM decision_logs d WHERE d.run_id = r.id) "
        "FROM runs r JOIN experiments e ON e.id = r.experiment_id "
        "WHERE (?1 = '' OR e.name = ?1) AND (?2 = '' OR r.policy = ?2) AND (?3 = '' OR r.trace_fp = ?3) "
        "AND (?4 = '' OR r.cluster_fp = ?4) ORDER BY r.id LIMIT ?5");
    bindS(q, 1, f.experiment);
    bindS(q, 2, f.policy);
    bindS(q, 3, f.traceFingerprint);
    bindS(q, 4, f.clusterFingerprint);
    sqlite3_bind_int64(q, 5, f.limit);
    std::vector<RunInfo> res;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW)
        res.push_back(readInfo(q));
    sqlite3_reset(q);
    if (rc != SQLITE_DONE)
        fail("cannot list runs");
    return res;
}

std::optional<RunInfo> RunStore::runInfo(int64_t id) const
{
    if (!m_db)
        throw StoreError("no database open");
    std::string sql = std::string("SELECT ") + kRunColumns +
                      " FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE r.id = ?";
    static const std::string cached = sql;
    sqlite3_stmt* q = prepare(cached.c_str());
    sqlite3_bind_int64(q, 1, id);
    std::optional<RunInfo> res;
    if (sqlite3_step(q) == SQLITE_ROW)
        res = readInfo(q);
    sqlite3_reset(q);
    return res;
}

StoredRun RunStore::loadRun(int64_t id, bool withLog) const
{
    auto info = runInfo(id);
    if (!info)
        throw StoreError(m_path + ": no run with id " + std::to_string(id));
    StoredRun sr;
    sr.info = *info;
    RunOutput& o = sr.out;
    o.policy = info->policy;
    o.seed = info->seed;
    o.perf = info->perf;
    o.clusterName = info->clusterName;
    o.clusterFingerprint = info->clusterFingerprint;
    o.traceName = info->traceName;
    o.traceFingerprint = info->traceFingerprint;

    sqlite3_stmt* q = prepare(
        "SELECT config, wall_seconds, cancelled, s_jobs, s_finished, s_unfinished, s_rejected, mean_jct_min, "
        "median_jct_min, p95_jct_min, p99_jct_min, mean_queue_min, mean_fee_usd, total_fee_usd, makespan_h, "
        "utilization, deadline_jobs, deadline_miss_rate, jain_fairness, preemptions, events, decisions, "
        "weighted_miss_rate, be_jobs, be_mean_jct_min, policy_stats FROM runs WHERE id = ?");
    sqlite3_bind_int64(q, 1, id);
    if (sqlite3_step(q) != SQLITE_ROW)
        fail("cannot read run " + std::to_string(id));
    Summary& s = o.summary;
    sr.config = colS(q, 0);
    if (sr.config.find("\"schedstudio-run\"") != std::string::npos) {
        try {
            sr.out.spec = runSpecFromJson(sr.config, m_path + " run " + std::to_string(id) + " config");
        } catch (const std::exception&) {
            // A config of an older shape: the run loads, its spec stays unknown.
        }
    }
    o.wallSeconds = colD(q, 1);
    o.cancelled = sqlite3_column_int(q, 2) != 0;
    s.jobs = sqlite3_column_int(q, 3);
    s.finished = sqlite3_column_int(q, 4);
    s.unfinished = sqlite3_column_int(q, 5);
    s.rejected = sqlite3_column_int(q, 6);
    s.meanJctMin = colD(q, 7);
    s.medianJctMin = colD(q, 8);
    s.p95JctMin = colD(q, 9);
    s.p99JctMin = colD(q, 10);
    s.meanQueueMin = colD(q, 11);
    s.meanFeeUsd = colD(q, 12);
    s.totalFeeUsd = colD(q, 13);
    s.makespanH = colD(q, 14);
    s.utilization = colD(q, 15);
    s.deadlineJobs = sqlite3_column_int(q, 16);
    s.deadlineMissRate = colD(q, 17);
    s.jainFairness = colD(q, 18);
    s.preemptions = sqlite3_column_int(q, 19);
    s.events = uint64_t(sqlite3_column_int64(q, 20));
    s.decisions = uint64_t(sqlite3_column_int64(q, 21));
    s.weightedMissRate = colD(q, 22);
    s.bestEffortJobs = sqlite3_column_int(q, 23);
    s.bestEffortMeanJctMin = colD(q, 24);
    if (const std::string stats = colS(q, 25); !stats.empty()) {
        try {
            const JsonValue o = parseJson(stats, m_path);
            if (o.isObject())
                for (const auto& [k, v] : o.object())
                    s.policyStats.push_back({k, v.isNumber() ? v.number() : std::numeric_limits<double>::quiet_NaN()});
        } catch (const std::exception&) {
            // a damaged stats text: the run loads without them
        }
    }
    sqlite3_reset(q);

    q = prepare("SELECT parent_run_id, fork_decision, fork_change FROM runs WHERE id = ?");
    sqlite3_bind_int64(q, 1, id);
    if (sqlite3_step(q) == SQLITE_ROW) {
        o.parentRunId = sr.info.parentRunId = sqlite3_column_int64(q, 0);
        o.forkDecision = sr.info.forkDecision = uint64_t(sqlite3_column_int64(q, 1));
        o.forkChange = sr.info.forkChange = colS(q, 2);
    }
    sqlite3_reset(q);

    q = prepare("SELECT idx, job_id, submit, start, end_t, jct, queueing, gpus, machines, fee, gpu_seconds, "
                "preemptions, deadline_met, deadline_value, duration, status FROM jobs WHERE run_id = ? ORDER BY idx");
    sqlite3_bind_int64(q, 1, id);
    o.jobs.reserve(size_t(std::max(0, s.jobs)));
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        JobRecord r;
        r.index = sqlite3_column_int(q, 0);
        r.id = sqlite3_column_int64(q, 1);
        r.submit = colD(q, 2);
        r.start = colD(q, 3);
        r.end = colD(q, 4);
        r.jct = colD(q, 5);
        r.queueing = colD(q, 6);
        r.gpus = colD(q, 7);
        r.machines = sqlite3_column_int(q, 8);
        r.fee = colD(q, 9);
        r.gpuSeconds = colD(q, 10);
        r.preemptions = sqlite3_column_int(q, 11);
        r.deadlineMet = sqlite3_column_int(q, 12);
        r.deadlineValue = colD(q, 13);
        r.duration = colD(q, 14);
        r.status = JobStatus(sqlite3_column_int(q, 15));
        o.jobs.push_back(r);
    }
    sqlite3_reset(q);
    if (rc != SQLITE_DONE)
        fail("cannot read the jobs of run " + std::to_string(id));

    q = prepare("SELECT t, utilization, fragmentation, queue, running FROM series WHERE run_id = ? ORDER BY seq");
    sqlite3_bind_int64(q, 1, id);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        TimePoint p;
        p.t = colD(q, 0);
        p.utilization = float(colD(q, 1));
        p.fragmentation = float(colD(q, 2));
        p.queue = sqlite3_column_int(q, 3);
        p.running = sqlite3_column_int(q, 4);
        o.series.push_back(p);
    }
    sqlite3_reset(q);
    if (rc != SQLITE_DONE)
        fail("cannot read the time series of run " + std::to_string(id));

    if (withLog) {
        q = prepare("SELECT encoding, data FROM decision_logs WHERE run_id = ?");
        sqlite3_bind_int64(q, 1, id);
        if (sqlite3_step(q) == SQLITE_ROW) {
            const int enc = sqlite3_column_int(q, 0);
            if (enc < 1 || enc > kLogEncoding) {
                sqlite3_reset(q);
                throw StoreError(m_path + ": run " + std::to_string(id) + ": unknown decision log encoding " +
                                 std::to_string(enc));
            }
            const void* data = sqlite3_column_blob(q, 1);
            const size_t n = size_t(sqlite3_column_bytes(q, 1));
            try {
                o.log = std::make_shared<DecisionLog>(decodeDecisionLog(data, n));
            } catch (const StoreError& e) {
                sqlite3_reset(q);
                throw StoreError(m_path + ": run " + std::to_string(id) + ": " + e.what());
            }
        }
        sqlite3_reset(q);
    }
    return sr;
}

void RunStore::renameRun(int64_t id, const std::string& name)
{
    sqlite3_stmt* q = prepare("UPDATE runs SET name = ? WHERE id = ?");
    bindS(q, 1, name);
    sqlite3_bind_int64(q, 2, id);
    if (sqlite3_step(q) != SQLITE_DONE)
        fail("cannot rename run " + std::to_string(id));
    sqlite3_reset(q);
    if (sqlite3_changes(m_db) == 0)
        throw StoreError(m_path + ": no run with id " + std::to_string(id));
}

void RunStore::deleteRun(int64_t id)
{
    Transaction tx(m_db);
    sqlite3_stmt* q = prepare("DELETE FROM runs WHERE id = ?");
    sqlite3_bind_int64(q, 1, id);
    if (sqlite3_step(q) != SQLITE_DONE)
        fail("cannot delete run " + std::to_string(id));
    sqlite3_reset(q);
    if (sqlite3_changes(m_db) == 0)
        throw StoreError(m_path + ": no run with id " + std::to_string(id));
    tx.commit();
}

bool RunStore::hasRun(const std::string& key) const
{
    sqlite3_stmt* q = prepare("SELECT 1 FROM runs WHERE run_key = ? LIMIT 1");
    bindS(q, 1, key);
    const bool found = sqlite3_step(q) == SQLITE_ROW;
    sqlite3_reset(q);
    return found;
}

int64_t RunStore::runCount() const
{
    sqlite3_stmt* q = prepare("SELECT count(*) FROM runs");
    int64_t n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
    sqlite3_reset(q);
    return n;
}

std::vector<std::string> RunStore::experiments() const
{
    sqlite3_stmt* q = prepare("SELECT name FROM experiments ORDER BY id");
    std::vector<std::string> res;
    while (sqlite3_step(q) == SQLITE_ROW)
        res.push_back(colS(q, 0));
    sqlite3_reset(q);
    return res;
}

int RunStore::merge(const std::string& otherDbPath)
{
    if (!m_db)
        throw StoreError("no database open");
    std::error_code ec;
    if (std::filesystem::equivalent(otherDbPath, m_path, ec))
        throw StoreError(otherDbPath + ": cannot merge a database into itself");
    RunStore other(otherDbPath, Mode::ReadOnly);
    int copied = 0;
    for (const RunInfo& info : other.listRuns()) {
        if (hasRun(info.key))
            continue;
        StoredRun sr = other.loadRun(info.id);
        insertRun(info.experiment, sr.out, sr.config, true, &sr.info);
        ++copied;
    }
    return copied;
}

std::string RunStore::integrityCheck() const
{
    sqlite3_stmt* q = nullptr;
    std::string res = "cannot run integrity_check";
    if (sqlite3_prepare_v2(m_db, "PRAGMA integrity_check", -1, &q, nullptr) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        res = colS(q, 0);
    sqlite3_finalize(q);
    return res;
}

// ---------------------------------------------------------------------------------------------------------
// Decision log blob: the sim's one binary encoding (core/sim/decisionlog.cpp), which also reads the blobs of
// encoding 1 that older builds stored.

std::string encodeDecisionLog(const DecisionLog& log) { return encodeDecisionLogBlob(log); }

DecisionLog decodeDecisionLog(const void* data, size_t size)
{
    try {
        return decodeDecisionLogBlob(data, size);
    } catch (const std::runtime_error& e) {
        throw StoreError(e.what());
    }
}

} // namespace ss
