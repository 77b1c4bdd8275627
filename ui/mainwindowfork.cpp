// MainWindow's Fork dock wiring (issue 21): the stepper's run and decision are the fork point; the
// RunController forks off the GUI thread; the dock shows the diff when the fork is in.
#include "mainwindow.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QTimer>

#include "clusterdocument.h"
#include "clustermapview.h"
#include "forkpanel.h"
#include "io/startstateio.h"
#include "run/forkstart.h"
#include "teachingpanel.h"
#include "run/fork.h"
#include "run/forkdiff.h"

namespace ss::ui {

void MainWindow::wireFork()
{
    auto context = [this] { m_forkPanel->setContext(currentRun(), currentDecision()); };
    connect(m_stepper, &StepperPanel::runChanged, this, context);
    connect(m_stepper, &StepperPanel::decisionChanged, this, context);
    connect(m_forkPanel, &ForkPanel::forkRequested, this, [this](const ForkRequest& req) {
        clearError();
        m_runs->startFork(currentRun(), req);
    });
    connect(m_runs, &RunController::forkStarted, m_forkPanel, &ForkPanel::showRunning);
    connect(m_runs, &RunController::forkFinished, this,
            [this](const RunPtr& parent, const RunPtr& fork, std::shared_ptr<const RunDiff> diff) {
        // after the hand-over's own work (history, views of the new run): two short turns of the event loop
        QTimer::singleShot(0, this, [this, parent, fork, diff] {
            m_forkPanel->showResult(parent, fork, diff);
            showView(QStringLiteral("fork"));
        });
    });
    // the teaching tour's "What if?": the same decision under FIFO (DAS's baseline), or SJF for a FIFO run
    connect(m_teachingPanel, &TeachingPanel::forkRequested, this, [this] {
        const RunPtr run = currentRun();
        const bool fifo = run && run->policy() == QLatin1String("fifo+firstfit");
        forkHere(fifo ? QStringLiteral("policy=sjf+bestfit") : QStringLiteral("policy=fifo+firstfit"));
    });
    // a queued job dragged from the stepper onto a machine of the cluster map: fork with it started there
    connect(clusterMap(), &ClusterMapView::jobDropped, this, [this](const QString& jobId, int machine) {
        const RunPtr run = currentRun();
        if (!run || !run->cluster || machine < 0 || machine >= run->cluster->machineCount())
            return;
        forkHere(QStringLiteral("place=%1:%2").arg(jobId, QString::fromStdString(run->cluster->machines[size_t(machine)].name)));
    });
    connect(m_runs, &RunController::error, m_forkPanel, [this](const QString& msg) {
        if (msg.startsWith(tr("Fork")) || msg.contains(QLatin1String("decision")))
            m_forkPanel->showError(msg);
    });
}

bool MainWindow::forkHere(const QString& change)
{
    const int eq = change.indexOf(QLatin1Char('='));
    const QString key = change.left(eq).trimmed(), value = eq < 0 ? QString() : change.mid(eq + 1).trimmed();
    if (key == QLatin1String("policy")) {
        m_forkPanel->setChange(ForkPanel::Kind::Policy, value);
    } else if (key == QLatin1String("place")) {
        const int colon = value.indexOf(QLatin1Char(':'));
        m_forkPanel->setChange(ForkPanel::Kind::Place, value.left(colon), colon < 0 ? QString() : value.mid(colon + 1));
    } else if (key == QLatin1String("fail")) {
        m_forkPanel->setChange(ForkPanel::Kind::Fail, {}, value);
    } else if (key == QLatin1String("drain")) {
        m_forkPanel->setChange(ForkPanel::Kind::Drain, {}, value);
    } else if (key == QLatin1String("queue-first")) {
        m_forkPanel->setChange(ForkPanel::Kind::QueueFirst, value);
    } else if (key == QLatin1String("add")) { // add=N:LIKE
        const int colon = value.indexOf(QLatin1Char(':'));
        m_forkPanel->setChange(ForkPanel::Kind::AddMachines, value.left(colon), colon < 0 ? QString() : value.mid(colon + 1));
    } else if (key == QLatin1String("burst")) {
        m_forkPanel->setChange(ForkPanel::Kind::Burst, value);
    } else {
        showError(tr("Fork: '%1' is not a change (policy=P, place=JOB:M1,M2, fail=M, drain=M, queue-first=J1,J2, add=N:M, burst=FILE).").arg(change));
        return false;
    }
    ForkRequest req;
    QString why;
    if (!m_forkPanel->buildRequest(req, why)) {
        showError(why);
        m_forkPanel->showError(why);
        return false;
    }
    clearError();
    return m_runs->startFork(currentRun(), req);
}

bool MainWindow::importClusterState(const QString& path)
{
    std::shared_ptr<const StartState> state;
    try {
        state = std::make_shared<const StartState>(readStartState(path.toStdString(), m_clusterDoc->spec()));
    } catch (const std::exception& e) {
        showError(tr("Import cluster state: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    clearError();
    return m_runs->startFromState(runRequest(currentScenario()), state, QFileInfo(path).fileName(),
                                  [this](const RunPtr& r) { setCurrentRun(r); });
}

} // namespace ss::ui
