#pragma once
// SQLite persistence of runs: experiments, run configs and summaries, per-job results, time series and
// decision logs (sqlite3 C API, no Qt). Every run is written in one transaction, so a process killed
// mid-write leaves the database as it was before that run. Schema history and layout: docs/STORE.md.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "run/runner.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ss {

/// A store error (cannot open, not a SchedStudio database, newer schema, SQL failure). what() is one line.
class StoreError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The identity of a run for resumable sweeps and merges: the hash of its complete RunSpec (RunSpec::id);
/// the legacy form (trace fp | cluster fp | policy | seed | perf) for outputs without a spec.
std::string runKey(const RunOutput& out);
std::string runKey(const std::string& traceFp, const std::string& clusterFp, const std::string& policy,
                   uint64_t seed, const std::string& perf);

/// One row of listRuns: what a run history table shows.
struct RunInfo {
    int64_t id = 0;
    std::string experiment;
    std::string name;          ///< user label ("" until renamed)
    std::string policy;
    uint64_t seed = 0;
    std::string perf;
    std::string clusterName, clusterFingerprint;
    std::string traceName, traceFingerprint;
    std::string key;
    std::string created;       ///< UTC, ISO 8601
    std::string softwareVersion;
    int jobs = 0;
    double meanJctMin = 0;
    double wallSeconds = 0;
    bool hasLog = false;
    int64_t parentRunId = 0;   ///< a what-if fork's parent (0 = none); filled by loadRun
    uint64_t forkDecision = 0; ///< decision it was forked at, counted from 1 (0 = not a fork)
    std::string forkChange;    ///< the change, in words
};

struct RunFilter {
    std::string experiment;    ///< exact match; "" = any
    std::string policy;        ///< exact match; "" = any
    std::string traceFingerprint, clusterFingerprint;
    int limit = -1;            ///< -1 = all
};

/// A run as loaded back: the run output plus its stored metadata and scenario.
struct StoredRun {
    RunInfo info;
    RunOutput out;
    std::string config;        ///< the scenario/config JSON given to saveRun
};

/// Current on-disk schema version (PRAGMA user_version). Opening an older file migrates it forward.
constexpr int kStoreSchemaVersion = 4;

/// One open database file. Not thread-safe: use one RunStore per thread (several may open one file; writers
/// wait up to 30 s for each other).
class RunStore {
public:
    enum class Mode { Create, Existing, ReadOnly };
    RunStore() = default;
    explicit RunStore(const std::string& path, Mode mode = Mode::Create) { open(path, mode); }
    ~RunStore();
    RunStore(const RunStore&) = delete;
    RunStore& operator=(const RunStore&) = delete;

    /// Opens (Create: creating the file if missing) and migrates the file to the current schema. Throws
    /// StoreError for a missing file (Existing/ReadOnly), a file that is not a SchedStudio database, a newer
    /// schema version, or a corrupt file. ReadOnly never migrates: an older file is refused.
    void open(const std::string& path, Mode mode = Mode::Create);
    void close();
    bool isOpen() const { return m_db != nullptr; }
    const std::string& path() const { return m_path; }
    int schemaVersion() const;   ///< of the open file (after migration: kStoreSchemaVersion)

    /// Saves a run in one transaction and returns its id. With skipIfPresent, a run with the same key
    /// already in the database is not written again and its id is returned instead.
    int64_t saveRun(const std::string& experiment, const RunOutput& out, const std::string& config = {},
                    bool skipIfPresent = false);
    std::vector<RunInfo> listRuns(const RunFilter& filter = {}) const;
    /// Throws StoreError when no such run. withLog = false skips decoding the decision log.
    StoredRun loadRun(int64_t id, bool withLog = true) const;
    std::optional<RunInfo> runInfo(int64_t id) const;
    void renameRun(int64_t id, const std::string& name);   ///< throws StoreError when no such run
    void deleteRun(int64_t id);                            ///< throws StoreError when no such run
    bool hasRun(const std::string& key) const;
    int64_t runCount() const;
    std::vector<std::string> experiments() const;
    /// Copies every run of another database whose key is not present yet (one transaction per run).
    /// Returns the number of runs copied.
    int merge(const std::string& otherDbPath);
    /// PRAGMA integrity_check: "ok" or the first problem.
    std::string integrityCheck() const;

private:
    sqlite3* m_db = nullptr;
    std::string m_path;
    mutable std::vector<std::pair<std::string, sqlite3_stmt*>> m_stmts;

    sqlite3_stmt* prepare(const char* sql) const; ///< cached; reset and unbound on return
    void exec(const char* sql) const;
    void migrate();
    int64_t experimentId(const std::string& name);
    int64_t insertRun(const std::string& experiment, const RunOutput& out, const std::string& config,
                      bool skipIfPresent, const RunInfo* keep);
    [[noreturn]] void fail(const std::string& what) const;
};

/// The store's decision log blob: the sim's one encoding (encodeDecisionLogBlob); decodes encodings 1 and 2.
std::string encodeDecisionLog(const DecisionLog& log);
/// Throws StoreError on a truncated or malformed blob.
DecisionLog decodeDecisionLog(const void* data, size_t size);

} // namespace ss
