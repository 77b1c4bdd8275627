// RunController::startFork: a what-if fork of a finished run (issue 21), in the background like every run.
#include "runcontroller.h"

#include <QPointer>

#include "backgroundjob.h"
#include "models.h"
#include "rundatabase.h"
#include "run/checkpoint.h"
#include "run/fork.h"
#include "run/forkdiff.h"
#include "run/forkstart.h"

namespace ss::ui {

struct RunController::ForkLineage {
    RunSpec root;                 ///< the run forked first (not a fork)
    std::vector<ForkStage> stages; ///< the changes, oldest first
};

bool RunController::startFork(const RunPtr& parent, const ForkRequest& req)
{
    if (!parent || !parent->out || !parent->trace || !parent->cluster) {
        Q_EMIT error(tr("Fork: open a run first."));
        return false;
    }
    const RunSpec& spec = parent->out->spec;
    if (spec.traceFingerprint.empty()) {
        Q_EMIT error(tr("Fork: “%1” has no complete configuration to rerun.").arg(parent->name));
        return false;
    }
    // a fork of a fork: its lineage (made in this session) chains the changes
    std::shared_ptr<const ForkLineage> lineage;
    if (spec.fork.rfind("start-state=", 0) == 0) {
        Q_EMIT error(tr("Fork: “%1” started from a cluster state; forking it is not supported yet.").arg(parent->name));
        return false;
    }
    if (!spec.fork.empty()) {
        const auto it = m_forkLineage.find(parent->id);
        if (it == m_forkLineage.end()) {
            Q_EMIT error(tr("Fork: “%1” is a fork from the database; fork it with schedstudio-cli fork (it reads its changes back).").arg(parent->name));
            return false;
        }
        if (req.atDecision < parent->out->forkDecision) {
            Q_EMIT error(tr("Fork: “%1” is a fork at decision %2; its decisions before it are its parent's: fork at %2 or later.")
                             .arg(parent->name).arg(parent->out->forkDecision));
            return false;
        }
        lineage = it->second;
    }
    if (!spec.throughputsFingerprint.empty()) {
        Q_EMIT error(tr("Fork: “%1” used a measured speed table; fork it with schedstudio-cli fork --throughputs.").arg(parent->name));
        return false;
    }
    if (m_runJob->isRunning()) {
        Q_EMIT error(tr("Fork: a run is in progress; wait or press Stop."));
        return false;
    }
    const QString what = QString::fromStdString(req.change.describe(*parent->cluster, engineTrace(*parent->trace)));
    const int id = m_nextRunId++;
    const QString tracePath = parent->trace == m_trace ? m_traceLoadedPath : QString();
    ForkRequest full = req;
    const RunSpec root = lineage ? lineage->root : spec;
    if (lineage) {
        full.chain = lineage->stages;
        full.parentId = spec.id();
    }
    auto next = std::make_shared<ForkLineage>(ForkLineage {root, full.stages()});
    if (!m_checkpoints)
        m_checkpoints = std::make_shared<CheckpointSet>(std::string(), nullptr, nullptr);
    const std::shared_ptr<CheckpointSet> checkpoints = m_checkpoints; // used by this job only (one at a time)
    Q_EMIT forkStarted(what);
    m_runJob->start(tr("Forking at decision %1…").arg(req.atDecision),
                    [=, this](const BackgroundJob::Progress& progress) -> std::function<void()> {
                        // the checkpoints of the run forked restore this fork; a replay leaves them for the next
                        const std::string parentPath = forkPathKey(root, full.chain);
                        if (checkpoints->path() == parentPath)
                            checkpoints->setLog(parent->out->log);
                        ForkHow how;
                        RunOutput o = runFork(*parent->cluster, *parent->trace, root, full, nullptr, true, progress,
                                              checkpoints.get(), &how);
                        if (checkpoints->path() == parentPath)
                            checkpoints->setLog(parent->out->log);
                        if (o.cancelled)
                            return {};
                        const QString made = how.restored ? tr("restored from the checkpoint after decision %1").arg(how.fromDecision)
                                                          : tr("replayed from decision 1: %1").arg(QString::fromStdString(how.why));
                        auto e = std::make_shared<RunEntry>();
                        e->id = id;
                        e->name = tr("fork @%1 of %2: %3").arg(req.atDecision).arg(parent->name, what);
                        e->scenario = parent->scenario;
                        e->clusterLabel = parent->clusterLabel;
                        e->trace = parent->trace;
                        e->cluster = parent->cluster;
                        e->out = std::make_shared<RunOutput>(std::move(o));
                        prepareGantt(*e);
                        RunPtr r = e;
                        auto diff = std::make_shared<const RunDiff>(diffRuns(*parent->out, *r->out));
                        return [this, r, parent, tracePath, diff, next, made] {
                            m_forkLineage[r->id] = next;
                            m_history->addRun(r);
                            m_db->save(r, tracePath); // no-op without a database
                            Q_EMIT runFinished(r);
                            Q_EMIT status(tr("Fork finished in %1 s (%2)").arg(r->out->wallSeconds, 0, 'f', 2).arg(made));
                            Q_EMIT forkFinished(parent, r, diff);
                        };
                    });
    return true;
}

bool RunController::startFromState(const RunRequest& req, std::shared_ptr<const StartState> state, const QString& label,
                                   std::function<void(RunPtr)> done)
{
    if (!req.trace || !req.cluster || req.policies.isEmpty() || req.seeds.isEmpty()) {
        Q_EMIT error(tr("Import cluster state: load a trace and tick a policy first."));
        return false;
    }
    if (m_runJob->isRunning()) {
        Q_EMIT error(tr("Import cluster state: a run is in progress; wait or press Stop."));
        return false;
    }
    RunSpec spec;
    spec.policy = req.policies.first().toStdString();
    spec.options.backfill = req.backfill;
    spec.config.seed = req.seeds.first();
    spec.config.perf = PerfConfig::parse(req.perf.toStdString());
    spec.config.recordDecisions = true;
    spec.keepDecisionLog = true;
    spec.traceSource = (req.trace == m_trace ? m_traceLoadedPath : QString()).toStdString();
    spec.clusterSource = req.clusterLabel.toStdString();
    const int id = m_nextRunId++;
    m_runJob->start(tr("Running from cluster state %1…").arg(label),
                    [=, this](const BackgroundJob::Progress& progress) -> std::function<void()> {
                        RunOutput o = runFromStartState(*req.cluster, *req.trace, *state, spec, req.table.get(), progress);
                        if (o.cancelled)
                            return {};
                        auto e = std::make_shared<RunEntry>();
                        e->id = id;
                        e->name = tr("from state %1: %2 seed %3").arg(label, QString::fromStdString(spec.policy)).arg(spec.config.seed);
                        e->scenario = req.scenarioName;
                        e->clusterLabel = req.clusterLabel;
                        e->trace = std::make_shared<const Trace>(traceWithStartState(*req.trace, *state));
                        e->cluster = req.cluster;
                        e->out = std::make_shared<RunOutput>(std::move(o));
                        prepareGantt(*e);
                        RunPtr r = e;
                        return [this, r, done] {
                            m_history->addRun(r);
                            m_db->save(r, QString());
                            Q_EMIT runFinished(r);
                            if (done)
                                done(r);
                        };
                    });
    return true;
}

} // namespace ss::ui
