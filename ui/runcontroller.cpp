#include "runcontroller.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLocale>
#include <QPointer>
#include <QThread>

#include <cmath>
#include <filesystem>

#include "backgroundjob.h"
#include "io/traceio.h"
#include "io/transforms.h"
#include "policy/registry.h"
#include "run/executor.h"
#include "models.h"
#include "rundatabase.h"
#include "viewhelpers.h"

namespace ss::ui {

std::shared_ptr<Trace> scaleLoad(const Trace& trace, double factor)
{
    // The core's load transform (io/transforms.h), as `--load-scale` and scenario variants use it; the first
    // submit stays where it was.
    auto t = std::make_shared<Trace>(trace);
    TraceTransform tr;
    tr.loadScale = factor;
    tr.rebase = false;
    applyTransforms(*t, tr);
    t->name += "-load" + QString::number(factor).toStdString();
    return t;
}

RunController::RunController(QObject* parent)
    : QObject(parent), m_loadJob(new BackgroundJob(this)), m_runJob(new BackgroundJob(this)),
      m_history(new RunHistoryModel(this)), m_db(new RunDatabase(this))
{
    for (BackgroundJob* job : {m_loadJob, m_runJob}) {
        connect(job, &BackgroundJob::started, this, [this, job](const QString& title) {
            Q_EMIT jobStarted(title);
            if (job == m_runJob)
                Q_EMIT runStarted(title);
        });
        connect(job, &BackgroundJob::progressChanged, this, &RunController::progress);
        connect(job, &BackgroundJob::finished, this, &RunController::jobEnded);
        connect(job, &BackgroundJob::cancelled, this, [this] {
            Q_EMIT status(tr("Stopped."));
            Q_EMIT jobEnded();
        });
        connect(job, &BackgroundJob::failed, this, [this, job](QString msg) {
            // the readers' hint names the CLI's options; in the studio a CSV is mapped in a dialog instead
            if (job == m_loadJob) {
                const int hint = msg.indexOf(QLatin1String(" (use --format, or --map for another CSV"));
                if (hint >= 0)
                    msg = msg.left(hint) + tr(": not one of the trace formats SchedStudio reads, and not a CSV with a "
                                              "header of at least three columns to map (File ▸ Map trace columns…)");
            }
            Q_EMIT error(msg);
            Q_EMIT status(tr("Failed."));
            Q_EMIT jobEnded();
        });
    }
    // A run waiting for its trace is dropped when the trace does not arrive.
    connect(m_loadJob, &BackgroundJob::failed, this, [this] { m_pendingRun = false; });
    connect(m_loadJob, &BackgroundJob::cancelled, this, [this] { m_pendingRun = false; });

    // Run history on disk: every operation runs on the database's own thread and reports back here.
    connect(m_db, &RunDatabase::opened, this, &RunController::onDatabaseOpened);
    connect(m_db, &RunDatabase::failed, this, [this](const QString& msg) {
        Q_EMIT error(msg);
        Q_EMIT databaseChanged();
    });
    connect(m_db, &RunDatabase::saved, this, [this](int runId, qint64 dbId) {
        const int row = m_history->rowOfId(runId);
        if (row < 0)
            return;
        auto e = std::make_shared<RunEntry>(*m_history->run(row));
        e->dbId = dbId;
        m_history->replaceRun(row, e);
        Q_EMIT runReplaced(e);
        Q_EMIT databaseChanged();
    });
    connect(m_db, &RunDatabase::logLoaded, this, [this](const RunPtr& r) {
        const int row = m_history->rowOfId(r->id);
        if (row >= 0)
            m_history->replaceRun(row, r);
        if (m_openAfterLoad == r->id) {
            m_openAfterLoad = 0;
            Q_EMIT runLoaded(r);
        }
    });
    connect(m_history, &RunHistoryModel::runRenamed, this, [this](int id, const QString& name) {
        const int row = m_history->rowOfId(id);
        if (row >= 0 && m_history->run(row)->dbId > 0)
            m_db->rename(m_history->run(row)->dbId, name);
    });
}

RunController::~RunController() = default;

// ------------------------------------------------------------------------------------------ trace

void RunController::loadTrace(const QString& path, const QString& format, const std::map<std::string, std::string>& columns,
                              const QString& timeFormat)
{
    const std::string p = path.toStdString();
    const std::string fmt = format.toStdString();
    const std::string tf = timeFormat.toStdString();
    m_loadJob->start(tr("Loading trace %1…").arg(QFileInfo(path).fileName()),
                     [this, p, fmt, path, format, columns, tf, timeFormat](const BackgroundJob::Progress& progress) -> std::function<void()> {
                         TraceReadOptions opts;
                         opts.format = fmt.empty() ? "auto" : fmt;
                         opts.columnMap = columns;
                         opts.timeFormat = tf;
                         opts.progress = progress;
                         TraceReadReport report;
                         auto trace = std::make_shared<Trace>(readTrace(p, opts, &report));
                         return [this, trace, report, path, format, columns, timeFormat] {
                             m_trace = trace;
                             m_traceLoadedPath = path;
                             m_traceLoadedFormat = format.isEmpty() ? QStringLiteral("auto") : format;
                             m_traceLoadedColumns = columns;
                             m_traceLoadedTimeFormat = timeFormat;
                             QString msg = tr("Loaded %1 jobs from %2 (format %3)")
                                               .arg(trace->jobs.size()).arg(QFileInfo(path).fileName(),
                                                                             QString::fromStdString(report.format));
                             if (!columns.empty())
                                 msg += tr(", %n column(s) mapped", nullptr, int(columns.size()));
                             if (report.skipped > 0)
                                 msg += tr(", skipped %1 rows").arg(report.skipped);
                             Q_EMIT traceLoaded(m_trace, msg);
                         };
                     });
}

void RunController::clearTrace()
{
    m_trace.reset();
    m_traceLoadedPath.clear();
    m_traceLoadedFormat.clear();
    m_traceLoadedColumns.clear();
    m_traceLoadedTimeFormat.clear();
}

bool RunController::isLoading() const
{
    return m_loadJob->isRunning();
}

// ------------------------------------------------------------------------------------------ runs

bool RunController::isRunning() const
{
    return m_runJob->isRunning();
}

bool RunController::takePendingRun()
{
    const bool p = m_pendingRun;
    m_pendingRun = false;
    return p;
}

void RunController::cancel()
{
    m_loadJob->cancel();
    m_runJob->cancel();
}

bool RunController::isBusy() const
{
    return m_loadJob->isRunning() || m_runJob->isRunning() || m_db->isBusy();
}

bool RunController::waitForIdle(int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (!isBusy() && !m_pendingRun)
            return true;
        QThread::msleep(2);
    }
    return !isBusy();
}

QString untrainedNote(const RunOutput& o, const RunSpec& spec)
{
    const double ck = o.summary.policyStat("checkpoint");
    if (!(ck == 0) || spec.options.param("das.untrained", "0") == "1")
        return {};
    const QString name = QStringLiteral("%1 seed %2").arg(QString::fromStdString(spec.policy)).arg(spec.config.seed);
    if (o.summary.policyStat("checkpoint_refused") == 1)
        return RunController::tr("%1 ran UNTRAINED: the shipped checkpoint %2 was trained for another cluster than "
                                 "this run's '%3' (edited or different). Train one for it, or pass "
                                 "das.allow_other_cluster=1 to use the shipped one anyway.")
            .arg(name, QString::fromStdString(std::filesystem::path(spec.checkpointFile).filename().string()),
                 QString::fromStdString(o.clusterName));
    return RunController::tr("%1 ran UNTRAINED: no trained checkpoint is shipped for cluster '%2' "
                             "(train one with `schedstudio-cli train`).")
        .arg(name, QString::fromStdString(o.clusterName));
}

void RunController::startRuns(const RunRequest& req, std::function<void(QVector<RunPtr>)> done)
{
    RunSpec base;
    base.options.backfill = req.backfill;
    base.options.params = req.params;
    base.options.checkpoint = req.checkpoint;
    base.config.perf = PerfConfig::parse(req.perf.toStdString());
    base.config.recordDecisions = true;
    base.keepDecisionLog = true;
    // Keep memory bounded on big traces: the log keeps the top of the queue only.
    const size_t n = req.trace->jobs.size();
    base.config.logQueueLimit = n > 20000 ? 32 : n > 2000 ? 200 : 1000;
    const QString tracePath = req.trace == m_trace ? m_traceLoadedPath : QString();
    // One plan (policies x seeds on this trace and cluster), run by the core's executor like every CLI command.
    RunInputs in;
    in.trace = req.trace;
    in.cluster = req.cluster;
    in.traceSource = tracePath.toStdString();
    in.clusterSource = req.clusterLabel.toStdString();
    in.table = req.table;
    std::vector<std::string> policies;
    for (const QString& p : req.policies)
        policies.push_back(p.toStdString());
    std::vector<uint64_t> seeds(req.seeds.begin(), req.seeds.end());
    auto plan = std::make_shared<const ExperimentPlan>(expandPlan({std::move(in)}, policies, seeds, base));
    const int firstId = m_nextRunId;
    const int total = int(plan->runs.size());
    m_nextRunId += total;
    // Each run is handed over as it finishes, only while this generation is current and not stopped:
    // start() below makes it generation()+1.
    const quint64 gen = m_runJob->generation() + 1;
    QPointer<RunController> self(this);
    auto deliver = [self, gen, tracePath](RunPtr r) {
        if (!self || self->m_runJob->generation() != gen || !self->m_runJob->isRunning() ||
            self->m_runJob->isCancelling())
            return;
        self->m_history->addRun(r);
        self->m_db->save(r, tracePath); // no-op without a database
        Q_EMIT self->runFinished(r);
    };
    m_runJob->start(tr("Running %1 run(s)…").arg(total),
                    [=, this](const BackgroundJob::Progress& progress) -> std::function<void()> {
                        QVector<RunPtr> runs;
                        ExecOptions ex;
                        ex.progress = [&](size_t doneRuns, size_t all, double f) {
                            return progress((double(doneRuns) + f) / double(std::max<size_t>(1, all)));
                        };
                        // What the run in progress has reached, at most every 100 ms (the bar alone sat at 0 %
                        // while an overloaded cluster worked through its first jobs).
                        QElapsedTimer sinceLive;
                        sinceLive.start();
                        qint64 lastLive = -1000;
                        ex.live = [&, total](const LiveRun& l) {
                            if (sinceLive.elapsed() - lastLive < 100 || !self)
                                return;
                            lastLive = sinceLive.elapsed();
                            const QLocale loc;
                            const QString text =
                                tr("%1 seed %2 (run %3 of %4) · simulated %5 · %6 / %7 jobs done · %8 arrived")
                                    .arg(QString::fromStdString(l.policy)).arg(l.seed).arg(l.index + 1).arg(total)
                                    .arg(formatDuration(l.simTime), loc.toString(l.ended), loc.toString(l.jobs),
                                         loc.toString(l.arrived));
                            QMetaObject::invokeMethod(self.data(), [self, gen, text] {
                                if (self && self->m_runJob->generation() == gen && self->m_runJob->isRunning())
                                    Q_EMIT self->liveStatus(text);
                            }, Qt::QueuedConnection);
                        };
                        ex.onError = [](size_t, const std::string& e) { throw std::runtime_error(e); };
                        ex.onResult = [&](size_t i, RunOutput& o) {
                            const PlannedRun& pr = plan->runs[i];
                            auto e = std::make_shared<RunEntry>();
                            e->id = firstId + int(i);
                            e->name = (req.namePrefix.isEmpty() ? QString() : req.namePrefix + QStringLiteral(": ")) +
                                      QString::fromStdString(pr.spec.policy) +
                                      QStringLiteral(" seed %1").arg(pr.spec.config.seed);
                            // A learned policy that ran without its trained checkpoint is marked and said,
                            // never silent (the reason is in the run's policy stats, kept by the store).
                            const QString fallback = untrainedNote(o, pr.spec);
                            if (!fallback.isEmpty()) {
                                e->name += tr(" (untrained)");
                                if (self)
                                    QMetaObject::invokeMethod(self.data(), [self, fallback] {
                                        if (self)
                                            Q_EMIT self->error(fallback);
                                    }, Qt::QueuedConnection);
                            }
                            e->scenario = req.scenarioName;
                            e->clusterLabel = req.clusterLabel;
                            e->trace = req.trace;
                            e->cluster = req.cluster;
                            e->out = std::make_shared<RunOutput>(std::move(o));
                            prepareGantt(*e);
                            RunPtr r = e;
                            runs << r;
                            if (self)
                                QMetaObject::invokeMethod(self.data(), [deliver, r] { deliver(r); },
                                                          Qt::QueuedConnection);
                        };
                        if (executePlan(*plan, ex).cancelled)
                            return {};
                        return [this, runs, done, tracePath] {
                            // Runs whose hand-over was still queued join now, in order.
                            for (const RunPtr& r : runs)
                                if (m_history->rowOfId(r->id) < 0) {
                                    m_history->addRun(r);
                                    m_db->save(r, tracePath);
                                    Q_EMIT runFinished(r);
                                }
                            double wall = 0;
                            for (const RunPtr& r : runs)
                                wall += r->out->wallSeconds;
                            Q_EMIT status(tr("%1 finished in %2 s").arg(countOf(runs.size(), tr("run"), tr("runs"))).arg(wall, 0, 'f', 2));
                            if (done)
                                done(runs);
                            Q_EMIT allFinished(runs);
                        };
                    });
}

RunController::Start RunController::startScenario(const RunRequest& req, const QString& clusterProblem,
                                                  std::function<void(QVector<RunPtr>)> done)
{
    if (m_loadJob->isRunning()) {
        // The trace is still loading: run as soon as it is there.
        m_pendingRun = true;
        return Start::Pending;
    }
    QString problem;
    if (!req.trace)
        problem = tr("Run: no trace loaded. Load a trace (File ▸ Load trace) or drop one on the window.");
    else if (!clusterProblem.isEmpty())
        problem = tr("Run: the cluster is invalid: %1").arg(clusterProblem);
    else if (req.policies.isEmpty())
        problem = tr("Run: tick at least one policy in the Scenario panel.");
    else
        try {
            PerfConfig::parse(req.perf.toStdString());
        } catch (const std::exception& e) {
            problem = tr("Run: perf model '%1': %2").arg(req.perf, QString::fromUtf8(e.what()));
        }
    // The scenario's params apply to every policy; a key no ticked policy knows is a typo, said before the run.
    for (const QString& p : req.policies) {
        if (!problem.isEmpty())
            break;
        std::string why;
        try {
            why = validatePolicyParams(p.toStdString(), req.params);
        } catch (const std::exception& e) {
            why = e.what();
        }
        if (!why.empty())
            problem = tr("Run: %1").arg(QString::fromStdString(why));
    }
    if (!problem.isEmpty()) {
        Q_EMIT error(problem);
        return Start::Refused;
    }
    startRuns(req, std::move(done));
    return Start::Started;
}

bool RunController::startWhatIf(const RunRequest& base, const WhatIfChange& change)
{
    if (!base.trace) {
        Q_EMIT error(tr("What-if: load a trace first."));
        return false;
    }
    if (base.policies.isEmpty()) {
        Q_EMIT error(tr("What-if: tick at least one policy in the Scenario panel."));
        return false;
    }
    if (m_runJob->isRunning()) {
        Q_EMIT error(tr("What-if: a run is in progress; wait or press Stop."));
        return false;
    }
    RunRequest orig = base;
    orig.policies = QStringList{base.policies.first()};
    orig.namePrefix = tr("original");
    RunRequest changed = orig;
    QStringList what;
    if (!change.clusterPreset.isEmpty()) {
        try {
            ClusterSpec c = makeClusterPreset(change.clusterPreset.toStdString());
            c.finalize();
            changed.cluster = std::make_shared<const ClusterSpec>(std::move(c));
        } catch (const std::exception& e) {
            Q_EMIT error(QString::fromUtf8(e.what()));
            return false;
        }
        changed.clusterLabel = change.clusterPreset;
        what << tr("cluster %1").arg(change.clusterPreset);
    }
    if (std::abs(change.loadFactor - 1.0) > 1e-9) {
        changed.trace = scaleLoad(*base.trace, change.loadFactor);
        what << tr("%1 × load").arg(change.loadFactor);
    }
    if (!change.policy.isEmpty() && change.policy != orig.policies.first()) {
        changed.policies = QStringList{change.policy};
        what << tr("policy %1").arg(change.policy);
    }
    if (what.isEmpty()) {
        Q_EMIT error(tr("What-if: change the cluster, the load or the policy first."));
        return false;
    }
    const QString desc = what.join(QStringLiteral(", "));
    changed.namePrefix = tr("what-if (%1)").arg(desc);
    Q_EMIT whatIfStarted(desc);
    // Original first, then the changed setup; both land in the history and are the only ones ticked.
    startRuns(orig, [this, changed, desc](QVector<RunPtr> before) {
        startRuns(changed, [this, before, desc](QVector<RunPtr> after) {
            for (int i = 0; i < m_history->rowCount(); ++i)
                m_history->setChecked(i, false);
            for (const RunPtr& r : before + after)
                m_history->setChecked(m_history->rowOfId(r->id), true);
            auto mean = [](const QVector<RunPtr>& v) {
                double s = 0;
                for (const RunPtr& r : v)
                    s += r->out->summary.meanJctMin;
                return v.isEmpty() ? 0.0 : s / v.size();
            };
            Q_EMIT whatIfFinished(desc, mean(before), mean(after));
        });
    });
    return true;
}

// ------------------------------------------------------------------------------------------ database

void RunController::openDatabase(const QString& path, bool create)
{
    m_db->open(path, create);
    Q_EMIT status(tr("Opening run database %1…").arg(QFileInfo(path).fileName()));
    Q_EMIT databaseChanged();
}

void RunController::removeStoredRuns()
{
    for (int r = m_history->rowCount() - 1; r >= 0; --r)
        if (m_history->run(r)->dbId > 0) {
            Q_EMIT runAboutToBeRemoved(m_history->run(r)->id);
            m_history->removeRun(r);
        }
}

void RunController::closeDatabase()
{
    m_db->close();
    removeStoredRuns();
    Q_EMIT databaseChanged();
}

void RunController::onDatabaseOpened(const QString& path, const QVector<RunPtr>& runs, const QString& note)
{
    // The runs of the previous database leave the list; runs kept only in memory are saved into this one.
    removeStoredRuns();
    int saving = 0;
    for (const RunPtr& run : m_history->allRuns()) {
        m_db->save(run, run->trace == m_trace ? m_traceLoadedPath : QString());
        ++saving;
    }
    for (const RunPtr& run : runs) {
        auto e = std::make_shared<RunEntry>(*run);
        e->id = m_nextRunId++;
        m_history->addRun(e, false); // stored runs join Compare only when ticked
    }
    QString msg = tr("Opened run database %1: %2").arg(QFileInfo(path).fileName(), countOf(runs.size(), tr("stored run"), tr("stored runs")));
    if (saving > 0) // the session's runs go into it as well: the count the history shows once they are in
        msg += tr(", saving the %1 of this session into it").arg(countOf(saving, tr("run"), tr("runs")));
    Q_EMIT status(msg);
    if (!note.isEmpty())
        Q_EMIT error(note);
    Q_EMIT databaseChanged();
}

void RunController::removeRun(int row)
{
    if (row < 0 || row >= m_history->rowCount())
        return;
    const RunPtr run = m_history->run(row);
    Q_EMIT runAboutToBeRemoved(run->id);
    if (run->dbId > 0)
        m_db->remove(run->dbId);
    m_history->removeRun(row);
    Q_EMIT databaseChanged();
}

bool RunController::loadRunLog(const RunPtr& run)
{
    if (!run || !run->logInDb || !m_db->isOpen())
        return false;
    // The summary and results show now; the stepper and heatmaps follow when the log is in.
    m_openAfterLoad = run->id;
    m_db->loadLog(run);
    Q_EMIT status(tr("Loading the decision log of '%1'…").arg(run->name));
    return true;
}

QString RunController::databaseSummary() const
{
    if (!m_db->isOpen())
        return tr("Runs are kept in memory only. File ▸ New project database (or Open) keeps them on disk.");
    int stored = 0;
    for (const RunPtr& r : m_history->allRuns())
        stored += r->dbId > 0;
    return tr("Project database: %1 — %2%3")
        .arg(QDir::toNativeSeparators(QFileInfo(m_db->path()).absoluteFilePath()), countOf(stored, tr("stored run"), tr("stored runs")),
             m_db->isBusy() ? tr(" (saving…)") : QString());
}

} // namespace ss::ui
