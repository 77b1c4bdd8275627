#pragma once
// The studio's main window. It arranges the docks (one class per dock, View menu, Reset layout), the
// menus, the tool bar, the inline error banner and the status bar (progress and Stop), and wires the docks
// to each other and to the RunController, which owns the runs, the history and the project database.
// One job selection is shared by the table, the cluster map, the Gantt charts and the heatmaps.
#include <QMainWindow>
#include <QJsonObject>
#include <QMap>
#include <QMessageBox>

#include <functional>

#include <memory>

#include "clusterpanel.h"
#include "runcontroller.h"
#include "runentry.h"
#include "scenario.h"
#include "sim/decisionlog.h"
#include "stepperpanel.h"

class QAction;
class QDockWidget;
class QLabel;

namespace ss {
class ClusterMapView;
} // namespace ss

namespace ss::ui {

class ClusterDocument;
class ErrorBanner;
class ComparePanel;
class ExportMenus;
class GanttPanel;
class HeatmapsPanel;
class HistoryPanel;
class RunDatabase;
class RunHistoryModel;
class ScenarioPanel;
class TeachingPanel;
class TopologyPanel;
class TracePanel;
class WhatIfPanel;
class AccelWindow;
class ForkPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// Bump when docks are added/renamed so an old saved layout is ignored rather than misapplied.
    /// (4: two docks scroll and the stepper is sized for eight rows; a layout saved before would keep two.)
    static constexpr int kStateVersion = 4;

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    static QStringList viewNames(); ///< trace, cluster, topology, stepper, heatmaps, gantt, compare, whatif, history, teaching

    // --- scenario ---
    /// Loads the scenario and starts loading its trace in the background. False (and a banner) on error.
    /// A scenario of mode "accelerator" (RELMAS) opens in the accelerator window instead (acceleratorWindow()),
    /// leaving this window's scenario as it was.
    bool openScenario(const QString& path);
    /// The accelerator-mode window (accelwindow.h), made on first use.
    AccelWindow* acceleratorWindow();
    /// Shows `s` (cluster, fields, trace loading). False (banner listing every problem, nothing changed) when
    /// its cluster or trace cannot be read; a policy this build lacks is reported but the rest opens.
    bool setScenario(const Scenario& s, const QString& path = {});
    bool saveScenario(const QString& path);
    Scenario currentScenario() const; ///< the scenario as edited in the window
    QString scenarioPath() const;
    /// Trace, cluster, policies or another field differ from the scenario as opened or saved (title shows [*]).
    bool isScenarioModified() const;
    /// Asks before unsaved changes are dropped (Open scenario, New, DAS case study, quit): Save, Discard or
    /// Cancel. The default shows a QMessageBox; tests put their own answer here.
    using UnsavedPrompt = std::function<QMessageBox::StandardButton(const QString& question)>;
    void setUnsavedPrompt(UnsavedPrompt prompt) { m_unsavedPrompt = std::move(prompt); }
    /// Starts loading a trace (async); the scenario refers to it once it is loaded (a failed load changes nothing).
    void loadTrace(const QString& path);
    /// A CSV no reader recognises: opens the column-mapping dialog (guessed or remembered mapping) and loads the
    /// trace when it is accepted. False when the file cannot be mapped (not a CSV of at least three columns).
    bool mapTraceColumns(const QString& path);
    /// Loads a cluster file or preset into the topology editor (undoable). False + banner on error.
    bool loadCluster(const QString& pathOrPreset);

    // --- runs ---
    /// Runs every selected policy x seed of the scenario in the background. False when it cannot start.
    bool runScenario();
    /// Processes events until background work is done or `ms` passed. True when idle.
    bool waitForIdle(int ms) { return m_runs->waitForIdle(ms); }
    bool isBusy() const { return m_runs->isBusy(); }
    RunController* runController() const { return m_runs; }
    RunHistoryModel* history() const { return m_runs->history(); }
    RunPtr currentRun() const { return m_stepper->currentRun(); }
    void setCurrentRun(RunPtr run) { m_stepper->setRun(std::move(run)); }
    /// Makes a run current; a stored run whose decision log is still in the database gets it loaded first
    /// (in the background) so the stepper and heatmaps work.
    void openRun(RunPtr run);

    // --- project database (run history on disk) ---
    /// Opens (create: making it when missing) the project's run database in the background: its runs
    /// replace the stored runs in Run history, and runs kept only in memory are saved into it.
    void openDatabase(const QString& path, bool create = true);
    void closeDatabase();
    RunDatabase* database() const { return m_runs->database(); }
    /// The training panel (a TrainingPanel, see trainingpanel.h) in LibTorch builds; null otherwise.
    QWidget* trainingPanel() const { return m_trainingPanel; }

    // --- stepping ---
    int decisionCount() const { return m_stepper->decisionCount(); }
    int currentDecision() const { return m_stepper->currentDecision(); }
    void setDecision(int k) { m_stepper->setDecision(k); }
    const Replayer* replayer() const { return m_stepper->replayer(); }

    // --- views ---
    bool showView(const QString& name);
    void selectJob(int jobIndex);
    int selectedJob() const { return m_selectedJob; }
    ClusterDocument* clusterDocument() const { return m_clusterDoc; }
    ss::ClusterMapView* clusterMap() const { return m_clusterPanel->map(); }
    std::shared_ptr<const Trace> trace() const { return m_runs->trace(); }
    QString bannerText() const;
    QString teachingText() const;
    void setDarkTheme(bool dark);
    void resetLayout();
    /// Runs the what-if: the scenario's first policy on the original and on the changed setup.
    bool runWhatIf(const QString& clusterPreset, double loadFactor, const QString& policy);
    /// The Fork dock (what-if forks of the current run at the current decision).
    ForkPanel* forkPanel() const { return m_forkPanel; }
    /// Forks the current run at the current decision: `change` is "policy=P", "place=JOB:M1,M2",
    /// "fail=M1,M2", "drain=M1" or "queue-first=J1,J2" (the GUI's --fork). False (banner) when it cannot start.
    bool forkHere(const QString& change);
    /// File ▸ Import cluster state: runs the scenario's first policy from the running and queued jobs in
    /// `path` (docs/FORMATS.md "Start state"), read against the window's cluster. False (banner) on bad input.
    bool importClusterState(const QString& path);

Q_SIGNALS:
    void runsFinished();
    void traceLoaded();

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    ClusterDocument* m_clusterDoc;
    RunController* m_runs;
    ExportMenus* m_exports;
    int m_selectedJob = -1;
    QByteArray m_defaultState;
    bool m_stateRestored = false; ///< the window's last layout came back from the settings
    bool m_layoutFitted = false;  ///< the default layout was fitted to the window once it was shown
    /// Sizes the default layout's docks for the window as shown: the scenario column 300 px, the stepper eight
    /// queue rows (at most 40 % of the height). Set before the window has its size, Qt keeps neither.
    void fitDefaultLayout();
    bool m_dark = false;
    QJsonObject m_savedScenario; ///< the scenario as opened or saved (isScenarioModified compares with it)
    UnsavedPrompt m_unsavedPrompt;
    AccelWindow* m_accel = nullptr;

    // docks
    ScenarioPanel* m_scenarioPanel = nullptr;
    TracePanel* m_tracePanel = nullptr;
    ClusterPanel* m_clusterPanel = nullptr;
    TopologyPanel* m_topologyPanel = nullptr;
    StepperPanel* m_stepper = nullptr;
    HeatmapsPanel* m_heatmaps = nullptr;
    GanttPanel* m_ganttPanel = nullptr;
    ComparePanel* m_comparePanel = nullptr;
    WhatIfPanel* m_whatIfPanel = nullptr;
    ForkPanel* m_forkPanel = nullptr;
    HistoryPanel* m_historyPanel = nullptr;
    TeachingPanel* m_teachingPanel = nullptr;
    QWidget* m_trainingPanel = nullptr;
    QMap<QString, QDockWidget*> m_docks;

    // chrome
    ErrorBanner* m_banner = nullptr;
    QLabel* m_statusLabel = nullptr;
    QMenu* m_viewMenu = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_darkAction = nullptr;

    void buildActions();
    void buildDocks();
    void buildStatusBar();
    void wireRuns();
    void wireViews();
    void wireFork();
    /// A dock for `w` under `key`; `scrolls`: inside a scroll area, so its height does not set the area's minimum.
    QDockWidget* addView(const QString& key, const QString& title, QWidget* w, Qt::DockWidgetArea area, bool scrolls = false);
    QWidget* buildTrainingView(); ///< the training panel (LibTorch builds only)
    QString exportCaption() const;

    void showError(const QString& text);
    void clearError();
    void setStatus(const QString& text);
    void updateWindowTitle(); ///< name and the modified mark
    void markScenarioSaved(); ///< what the window shows now is the scenario as opened or saved
    /// True when nothing unsaved would be lost by `action` (saved or discarded as the user chose).
    bool confirmDiscard(const QString& action);
    RunRequest runRequest(const Scenario& s) const;
    void refreshTraceView();
    void onClusterChanged();
    void onRunChanged();
    void onDecisionChanged(int k);
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void newScenario();
    void openScenarioDialog();
    void saveScenarioAs();
    void startTeaching();
};

} // namespace ss::ui
