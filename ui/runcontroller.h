#pragma once
// RunController: the studio's runs, apart from any view. It owns the background work (loading the trace,
// simulating policy x seed runs, the what-if pair), the finished runs (the Run history model), and the
// project database (RunDatabase), and reports through signals: the window wires them to the docks.
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "runentry.h"

namespace ss {
class CheckpointSet;
struct ForkRequest;
struct RunDiff;
struct StartState;
}

namespace ss::ui {

class BackgroundJob;
class RunDatabase;
class RunHistoryModel;

/// One batch of runs: every policy x seed on one trace and cluster.
struct RunRequest {
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const ClusterSpec> cluster;
    QString clusterLabel;
    QStringList policies;
    QVector<quint64> seeds;
    QString scenarioName;
    QString perf = QStringLiteral("ideal"); ///< PerfConfig text
    bool backfill = true;
    QString namePrefix; ///< "original", "what-if (…)": prefixed to each run's name
    std::shared_ptr<const ThroughputTable> table; ///< the scenario's measured speed table (null = none)
    std::map<std::string, std::string> params; ///< the scenario's policy knobs (--param), for every policy
    std::string checkpoint;                    ///< learned policies' checkpoint ("" = the shipped one)
};

/// The what-if: the base request's first policy on the original setup and on a changed one.
struct WhatIfChange {
    QString clusterPreset;            ///< empty: same cluster
    double loadFactor = 1.0;          ///< arrival-rate factor
    QString policy;                   ///< empty: same policy
};

/// "" when `o` ran as asked; else why a learned policy ran untrained (its shipped checkpoint was refused for
/// another cluster, or none is shipped), for the error banner and the run's "(untrained)" mark.
QString untrainedNote(const RunOutput& o, const RunSpec& spec);

/// The trace with every submit time compressed towards the first by `factor` (2 = jobs arrive twice as
/// fast); the name records the factor.
std::shared_ptr<Trace> scaleLoad(const Trace& trace, double factor);

class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    RunHistoryModel* history() const { return m_history; }
    RunDatabase* database() const { return m_db; }

    // --- trace ---
    /// Starts reading the trace in the background; traceLoaded() when it is in. `columns` / `timeFormat`: a
    /// CSV no reader recognises, read through a column map (TraceReadOptions::columnMap).
    void loadTrace(const QString& path, const QString& format, const std::map<std::string, std::string>& columns = {},
                   const QString& timeFormat = {});
    /// How the trace in memory was read: the format asked for ("auto", "csv", ...), its column map and time format.
    QString traceLoadedFormat() const { return m_traceLoadedFormat; }
    const std::map<std::string, std::string>& traceLoadedColumns() const { return m_traceLoadedColumns; }
    QString traceLoadedTimeFormat() const { return m_traceLoadedTimeFormat; }
    void clearTrace();
    std::shared_ptr<const Trace> trace() const { return m_trace; }
    QString traceLoadedPath() const { return m_traceLoadedPath; }
    bool isLoading() const;

    // --- runs ---
    /// Simulates every policy x seed of `req` in the background: runFinished() for each run as it
    /// finishes (it joins the history and the database), then allFinished() and `done`.
    void startRuns(const RunRequest& req, std::function<void(QVector<RunPtr>)> done = {});
    enum class Start { Started, Pending, Refused };
    /// The Run command: checks what a run needs (error() names what is missing; `clusterProblem` is the
    /// cluster's validation message), waits for a trace still loading (Pending), else startRuns().
    Start startScenario(const RunRequest& req, const QString& clusterProblem,
                        std::function<void(QVector<RunPtr>)> done = {});
    /// Runs the original and the changed setup one after the other; whatIfFinished() with both.
    /// False (and error()) when nothing changes or the change is not valid.
    bool startWhatIf(const RunRequest& base, const WhatIfChange& change);
    /// Reruns `parent` from decision req.atDecision with req's change, off the GUI thread (run/fork.h,
    /// runcontrollerfork.cpp): the fork joins the history and the database like any run, then
    /// forkFinished(). False (and error()) when the run cannot be forked or a run is in progress.
    bool startFork(const RunPtr& parent, const ss::ForkRequest& req);
    /// Runs `req`'s first policy and seed from a cluster's state (run/forkstart.h) in the background; the run
    /// joins the history, then `done`. False (and error()) when it cannot start.
    bool startFromState(const RunRequest& req, std::shared_ptr<const ss::StartState> state, const QString& label,
                        std::function<void(RunPtr)> done = {});
    bool isRunning() const;
    /// A run waits for the trace that is loading (cleared when loading fails or is stopped).
    void setPendingRun(bool on) { m_pendingRun = on; }
    bool takePendingRun();
    bool hasPendingRun() const { return m_pendingRun; }
    void cancel(); ///< stops loading and running
    bool isBusy() const; ///< loading, running or a database operation pending
    /// Processes events until nothing is busy and no run waits, or `ms` passed. True when idle.
    bool waitForIdle(int ms);

    // --- history & database ---
    /// Opens (create: making it when missing) the project database in the background.
    void openDatabase(const QString& path, bool create = true);
    void closeDatabase();
    /// Removes a run from the history (and the database when stored there).
    void removeRun(int row);
    /// Asks the database for a stored run's decision log when it is not loaded; runLoaded() follows.
    /// False when the run already has everything.
    bool loadRunLog(const RunPtr& run);
    QString databaseSummary() const; ///< one line for the Run history dock

Q_SIGNALS:
    void traceLoaded(std::shared_ptr<const ss::Trace> trace, const QString& message);
    void jobStarted(const QString& title); ///< loading or running began (status bar: progress + Stop)
    void progress(double fraction);
    /// Inside a run: "gavel-las seed 1 (run 1 of 2) · simulated 3.2 d · 1,204 / 82,247 jobs done · 40,118 arrived".
    void liveStatus(const QString& text);
    void jobEnded(); ///< loading or running ended (finished, stopped or failed)
    void runStarted(const QString& title);
    void runFinished(const ss::ui::RunPtr& run);
    void allFinished(const QVector<ss::ui::RunPtr>& runs);
    void whatIfStarted(const QString& description);
    void whatIfFinished(const QString& description, double meanJctBefore, double meanJctAfter);
    void forkStarted(const QString& description);
    /// `diff` (parent = A, fork = B) was computed off the GUI thread.
    void forkFinished(const ss::ui::RunPtr& parent, const ss::ui::RunPtr& fork, std::shared_ptr<const ss::RunDiff> diff);
    /// A run that is (or may be) current changed its entry: same output, now with a database id.
    void runReplaced(const ss::ui::RunPtr& run);
    /// A run's decision log came in from the database after loadRunLog().
    void runLoaded(const ss::ui::RunPtr& run);
    void runAboutToBeRemoved(int runId);
    void databaseChanged(); ///< databaseSummary() changed
    void error(const QString& message);
    void status(const QString& message);

private:
    void onDatabaseOpened(const QString& path, const QVector<RunPtr>& runs, const QString& note);
    void removeStoredRuns();

    BackgroundJob* m_loadJob;
    BackgroundJob* m_runJob;
    RunHistoryModel* m_history;
    RunDatabase* m_db;
    std::shared_ptr<const Trace> m_trace;
    QString m_traceLoadedPath;
    QString m_traceLoadedFormat, m_traceLoadedTimeFormat;
    std::map<std::string, std::string> m_traceLoadedColumns;
    int m_nextRunId = 1;
    /// What each fork made in this session is a fork of (run id -> root spec and stages): forking it chains them.
    struct ForkLineage;
    std::map<int, std::shared_ptr<const ForkLineage>> m_forkLineage;
    /// Checkpoints of the run last forked, i.e. the one open in the stepper (run/checkpoint.h): its first fork
    /// replays and leaves them, later forks of it restore the nearest instead of replaying.
    std::shared_ptr<ss::CheckpointSet> m_checkpoints;
    int m_openAfterLoad = 0; ///< run id whose log is being loaded to be opened
    bool m_pendingRun = false;
};

} // namespace ss::ui
