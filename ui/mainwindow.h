#pragma once
// The studio's main window: every view is a dock (View menu, Reset layout), long work runs in
// BackgroundJobs with progress and Stop, errors show in an inline banner, and one job selection is
// shared by the table, the cluster map, the Gantt charts and the heatmaps.
#include <QMainWindow>
#include <QPointer>

#include <memory>

#include "runentry.h"
#include "scenario.h"
#include "sim/decisionlog.h"

class QAction;
class QCheckBox;
class QComboBox;
class QCustomPlot;
class QDockWidget;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QTableView;
class QTextBrowser;
class QTimer;
class QToolButton;

namespace ss {
class ClusterMapView;
class DecisionStripView;
class GanttView;
enum class GanttRowMode;
class HeatmapView;
class TopologyEditorView;
} // namespace ss

namespace ss::ui {

class BackgroundJob;
class ClusterDocument;
class CompareModel;
class JobFilterProxy;
class JobTableModel;
class LinkTableModel;
class MachineTableModel;
class QueueModel;
class RunDatabase;
class RunHistoryModel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// Bump when docks are added/renamed so an old saved layout is ignored rather than misapplied.
    static constexpr int kStateVersion = 3;

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    static QStringList viewNames(); ///< trace, cluster, topology, stepper, heatmaps, gantt, compare, whatif, history, teaching

    // --- scenario ---
    /// Loads the scenario and starts loading its trace in the background. False (and a banner) on error.
    bool openScenario(const QString& path);
    void setScenario(const Scenario& s, const QString& path = {});
    bool saveScenario(const QString& path);
    Scenario currentScenario() const; ///< the scenario as edited in the window
    QString scenarioPath() const { return m_scenarioPath; }
    /// Starts loading a trace (async); the scenario now refers to it.
    void loadTrace(const QString& path);
    /// Loads a cluster file or preset into the topology editor (undoable). False + banner on error.
    bool loadCluster(const QString& pathOrPreset);

    // --- runs ---
    /// Runs every selected policy x seed of the scenario in the background. False when it cannot start.
    bool runScenario();
    /// Processes events until background work is done or `ms` passed. True when idle.
    bool waitForIdle(int ms);
    bool isBusy() const;
    RunHistoryModel* history() const { return m_history; }
    RunPtr currentRun() const { return m_current; }
    void setCurrentRun(RunPtr run);
    /// Makes a run current; a stored run whose decision log is still in the database gets it loaded first
    /// (in the background) so the stepper and heatmaps work.
    void openRun(RunPtr run);

    // --- project database (run history on disk) ---
    /// Opens (create: making it when missing) the project's run database in the background: its runs
    /// replace the stored runs in Run history, and runs kept only in memory are saved into it.
    void openDatabase(const QString& path, bool create = true);
    void closeDatabase();
    RunDatabase* database() const { return m_db; }
    /// The training panel (a TrainingPanel, see trainingpanel.h) in LibTorch builds; null otherwise.
    QWidget* trainingPanel() const { return m_trainingPanel; }

    // --- stepping ---
    int decisionCount() const;
    int currentDecision() const { return m_decision; }
    void setDecision(int k);
    const Replayer* replayer() const { return m_replayer.get(); }

    // --- views ---
    bool showView(const QString& name);
    void selectJob(int jobIndex);
    int selectedJob() const { return m_selectedJob; }
    ClusterDocument* clusterDocument() const { return m_clusterDoc; }
    ss::ClusterMapView* clusterMap() const { return m_clusterMap; }
    std::shared_ptr<const Trace> trace() const { return m_trace; }
    QString bannerText() const;
    QString teachingText() const;
    void setDarkTheme(bool dark);
    void resetLayout();
    /// Runs the what-if: the scenario's first policy on the original and on the changed setup.
    bool runWhatIf(const QString& clusterPreset, double loadFactor, const QString& policy);

Q_SIGNALS:
    void runsFinished();
    void traceLoaded();

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    // state
    Scenario m_scenario;
    QString m_scenarioPath;
    std::shared_ptr<const Trace> m_trace;
    QString m_traceLoadedPath;
    ClusterDocument* m_clusterDoc;
    BackgroundJob* m_loadJob;
    BackgroundJob* m_runJob;
    RunHistoryModel* m_history;
    RunDatabase* m_db;
    QLabel* m_dbLabel = nullptr;
    std::shared_ptr<const Trace> m_plottedTrace; ///< trace the trace plots show (replotted only on change)
    QWidget* m_trainingPanel = nullptr;
    int m_openAfterLoad = 0;
    bool m_teachDirty = false; ///< the teaching text is behind the current decision (panel hidden) ///< run id to make current once its log is loaded from the database
    RunPtr m_current;
    std::unique_ptr<Replayer> m_replayer;
    int m_decision = -1;
    int m_selectedJob = -1;
    int m_nextRunId = 1;
    QByteArray m_defaultState;
    bool m_dark = false;
    bool m_pendingRun = false;

    // chrome
    QWidget* m_banner = nullptr;
    QLabel* m_bannerLabel = nullptr;
    QLabel* m_statusLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QToolButton* m_stopButton = nullptr;
    QMenu* m_viewMenu = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_darkAction = nullptr;
    QMap<QString, QDockWidget*> m_docks;

    // scenario dock
    QLineEdit* m_nameEdit = nullptr;
    QLineEdit* m_traceEdit = nullptr;
    QLabel* m_clusterLabel = nullptr;
    QLineEdit* m_perfEdit = nullptr;
    QListWidget* m_policyList = nullptr;
    QLineEdit* m_policyFilter = nullptr;
    QSpinBox* m_seedSpin = nullptr;
    QSpinBox* m_seedsSpin = nullptr;
    QCheckBox* m_backfillCheck = nullptr;

    // trace view
    JobTableModel* m_jobModel = nullptr;
    JobFilterProxy* m_jobProxy = nullptr;
    QTableView* m_jobTable = nullptr;
    QLabel* m_traceInfo = nullptr;
    QCustomPlot* m_arrivalsPlot = nullptr;
    QCustomPlot* m_demandPlot = nullptr;
    QCustomPlot* m_durationPlot = nullptr;

    // cluster map
    ss::ClusterMapView* m_clusterMap = nullptr;
    QLabel* m_clusterInfo = nullptr;
    QCheckBox* m_affinityOverlay = nullptr;

    // topology
    ss::TopologyEditorView* m_topology = nullptr;
    MachineTableModel* m_machineModel = nullptr;
    LinkTableModel* m_linkModel = nullptr;
    QTableView* m_machineTable = nullptr;
    QLabel* m_validationLabel = nullptr;
    QComboBox* m_typeCombo = nullptr;
    QSpinBox* m_gpuCountSpin = nullptr;
    QSpinBox* m_addCountSpin = nullptr;
    QDoubleSpinBox* m_linkGbpsSpin = nullptr;
    QComboBox* m_presetCombo = nullptr;

    // stepper
    QSlider* m_slider = nullptr;
    QLabel* m_decisionLabel = nullptr;
    QPushButton* m_playButton = nullptr;
    QComboBox* m_speedCombo = nullptr;
    QComboBox* m_runCombo = nullptr;
    QLineEdit* m_gotoTimeEdit = nullptr;
    QLineEdit* m_gotoJobEdit = nullptr;
    QTimer* m_playTimer = nullptr;
    QueueModel* m_queueModel = nullptr;
    QTableView* m_queueTable = nullptr;

    // heatmaps
    ss::HeatmapView* m_priorityMap = nullptr;
    ss::HeatmapView* m_historyMap = nullptr;
    ss::HeatmapView* m_affinityMap = nullptr;
    ss::DecisionStripView* m_strip = nullptr;
    QComboBox* m_stripContent = nullptr;

    // gantt
    ss::GanttView* m_gantt = nullptr;
    QComboBox* m_ganttMode = nullptr;

    // compare
    CompareModel* m_compareModel = nullptr;
    QTableView* m_compareTable = nullptr;
    QCustomPlot* m_cdfPlot = nullptr;
    QCustomPlot* m_barPlot = nullptr;
    QComboBox* m_barMetric = nullptr;
    QComboBox* m_ganttACombo = nullptr;
    QComboBox* m_ganttBCombo = nullptr;
    ss::GanttView* m_ganttA = nullptr;
    ss::GanttView* m_ganttB = nullptr;
    QVector<RunPtr> m_compareRuns;

    // what-if
    QComboBox* m_whatIfCluster = nullptr;
    QDoubleSpinBox* m_whatIfLoad = nullptr;
    QComboBox* m_whatIfPolicy = nullptr;
    QLabel* m_whatIfResult = nullptr;

    // history
    QTableView* m_historyTable = nullptr;

    // teaching
    QTextBrowser* m_teachText = nullptr;

    void buildActions();
    void buildDocks();
    QDockWidget* addView(const QString& key, const QString& title, QWidget* w, Qt::DockWidgetArea area);
    QWidget* buildScenarioPanel();
    QWidget* buildTraceView();
    QWidget* buildClusterView();
    QWidget* buildTopologyView();
    QWidget* buildStepperView();
    QWidget* buildHeatmapView();
    QWidget* buildGanttView();
    QWidget* buildCompareView();
    QWidget* buildWhatIfView();
    QWidget* buildHistoryView();
    QWidget* buildTeachingView();
    void installPlotExport(QWidget* w, QCustomPlot* plot = nullptr);
    void installTableExport(QTableView* view);
    QString exportCaption() const;

    void showError(const QString& text);
    void clearError();
    void setStatus(const QString& text);
    void scenarioToPanel();
    void panelToScenario();
    void refreshTraceViews();
    void refreshClusterViews();
    void refreshRunViews();
    void refreshCompare();
    void refreshCompareGantts();
    void refreshRunCombo();
    void refreshTeaching();
    void themePlots();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void startRuns(std::shared_ptr<const Trace> trace, std::shared_ptr<const ClusterSpec> cluster,
                   const QString& clusterLabel, QStringList policies, QVector<quint64> seeds,
                   const QString& namePrefix, std::function<void(QVector<RunPtr>)> done = {});
    QString clusterLabelNow() const;
    std::vector<int> selectedMachineRows() const;
    void newScenario();
    void openScenarioDialog();
    void saveScenarioAs();
    void gotoTime(double seconds);
    void gotoJob(qint64 jobId);
    void exportRunJobs(RunPtr run);
    void onDatabaseOpened(const QString& path, const QVector<RunPtr>& runs, const QString& note);
    void refreshDatabaseLabel();
    QWidget* buildTrainingView(); ///< the training panel (LibTorch builds only)
    void showGantt(ss::GanttView* view, const RunEntry& run, ss::GanttRowMode mode);
};

} // namespace ss::ui
