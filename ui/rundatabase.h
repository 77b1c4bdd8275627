#pragma once
// The project's run database (core/store RunStore) seen from the GUI: every operation runs on one
// background thread, in the order it was asked for, and reports back on the GUI thread. Each operation
// opens its own RunStore (the store is not thread-safe; opening a SQLite file costs well under a millisecond).
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QVector>

#include <functional>
#include <memory>

#include "runentry.h"
#include "store/runstore.h"

namespace ss::ui {

class RunDatabase : public QObject {
    Q_OBJECT
public:
    explicit RunDatabase(QObject* parent = nullptr);
    ~RunDatabase() override; ///< waits for the operation in progress

    /// Opens (create: making the file if missing) and lists its runs; emits opened() or failed(). Results
    /// of operations on a previously open file are dropped from then on.
    void open(const QString& path, bool create = true);
    void close();
    QString path() const { return m_path; }
    bool isOpen() const { return !m_path.isEmpty(); }
    bool isBusy() const { return m_pending > 0; }
    /// Blocks (processing events) until no operation is pending or `ms` passed; for tests and headless hooks.
    bool waitForIdle(int ms);

    /// Saves a finished run (with its decision log) under the run's name; emits saved(run id, database id).
    void save(RunPtr run, const QString& tracePath);
    void rename(qint64 dbId, const QString& name);
    void remove(qint64 dbId);
    /// Loads a listed run's decision log; emits logLoaded() with a new entry (same id, trace and cluster).
    void loadLog(RunPtr run);

    /// The config JSON the studio stores with a run: trace path and format hint, cluster label, the cluster.
    static std::string configFor(const RunEntry& run, const QString& tracePath);
    /// A run entry (id 0) rebuilt from a stored run: the cluster from the config (else a matching preset),
    /// the trace from `trace` or the config's trace path when the fingerprint matches, else from the job
    /// records. Throws std::runtime_error when no cluster fits.
    static std::shared_ptr<RunEntry> entryFromStored(const StoredRun& stored,
                                                     std::shared_ptr<const Trace> trace);

Q_SIGNALS:
    void opened(const QString& path, const QVector<ss::ui::RunPtr>& runs, const QString& note);
    void closed();
    void saved(int runId, qint64 dbId);
    void logLoaded(const ss::ui::RunPtr& run);
    void failed(const QString& message);

private:
    using Task = std::function<std::function<void()>()>;
    void post(const QString& what, Task task);

    QThreadPool m_pool;
    QString m_path;
    quint64 m_generation = 0;
    int m_pending = 0;
};

} // namespace ss::ui
