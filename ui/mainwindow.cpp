#include "mainwindow.h"

#include "accelwindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QShortcut>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QThreadPool>
#include <QScrollArea>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>

#include "clusterdocument.h"
#include "clusterpanel.h"
#include "errorbanner.h"
#include "comparepanel.h"
#include "ganttpanel.h"
#include "heatmapspanel.h"
#include "historypanel.h"
#include "jobprogress.h"
#include "io/traceio.h"
#include "models.h"
#include "perf/perfmodel.h"
#include "rundatabase.h"
#include "runcontroller.h"
#include "scenariopanel.h"
#include "stepperpanel.h"
#include "teachingpanel.h"
#include "topologypanel.h"
#include "tracepanel.h"
#include "trainingpanel.h"
#include "run/runspec.h"
#include "viewhelpers.h"
#include "whatifpanel.h"
#include "forkpanel.h"

static void initSchedResources()
{
    Q_INIT_RESOURCE(schedstudio);
}

namespace ss::ui {

QStringList MainWindow::viewNames()
{
    return {QStringLiteral("trace"), QStringLiteral("cluster"), QStringLiteral("topology"), QStringLiteral("stepper"),
            QStringLiteral("heatmaps"), QStringLiteral("gantt"), QStringLiteral("compare"), QStringLiteral("whatif"),
            QStringLiteral("history"), QStringLiteral("teaching"), QStringLiteral("fork")
#ifdef SS_UI_HAVE_TRAINING
            , QStringLiteral("training")
#endif
    };
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    initSchedResources();
    setWindowTitle(tr("SchedStudio"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/schedstudio.svg")));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);

    m_clusterDoc = new ClusterDocument(this);
    m_runs = new RunController(this);
    m_exports = new ExportMenus(this);
    m_exports->caption = [this] { return exportCaption(); };
    m_exports->scenarioCaption = [this] {
        const Scenario s = currentScenario();
        return tr("scenario %1 · trace %2 · cluster %3").arg(s.name, s.tracePath, m_scenarioPanel->clusterLabel());
    };
    connect(m_exports, &ExportMenus::error, this, &MainWindow::showError);
    connect(m_exports, &ExportMenus::status, this, &MainWindow::setStatus);

    buildActions();
    buildDocks();
    buildStatusBar();
    wireRuns();
    wireViews();
    wireFork(); // mainwindowfork.cpp

    resize(1500, 950);
    m_defaultState = saveState(kStateVersion);

    QSettings s = studioSettings();
    if (s.value(QStringLiteral("window/version")).toInt() == kStateVersion) {
        restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
        m_stateRestored = restoreState(s.value(QStringLiteral("window/state")).toByteArray(), kStateVersion);
    }
    setDarkTheme(s.value(QStringLiteral("ui/dark"), false).toBool());
    rebuildRecentMenu();
    m_clusterDoc->replace(m_clusterDoc->spec(), QString(), true);
    m_clusterDoc->undoStack()->setClean();
    m_scenarioPanel->setScenario(Scenario(), QString());
    markScenarioSaved();
    setStatus(tr("Open a scenario (File ▸ Open) or drop a trace or cluster file here."));
}

MainWindow::~MainWindow()
{
    // The children outlive this body (QWidget deletes them after it): nothing they say as they go may reach a
    // slot of this window, whose members are gone by then.
    for (QObject* child : findChildren<QObject*>())
        QObject::disconnect(child, nullptr, this, nullptr);
    delete m_accel;
}

// ------------------------------------------------------------------------------------------ menus

void MainWindow::buildActions()
{
    // The banner floats at the top right, under the menus and the toolbars: showing it moves nothing.
    auto* bar = new QMenuBar(this);
    setMenuWidget(bar);
    m_banner = new ErrorBanner(this, [this] {
        int y = menuWidget() ? menuWidget()->geometry().bottom() + 1 : 0;
        for (QToolBar* t : findChildren<QToolBar*>(QString(), Qt::FindDirectChildrenOnly))
            if (t->isVisible() && !t->isFloating() && toolBarArea(t) == Qt::TopToolBarArea)
                y = std::max(y, t->geometry().bottom() + 1);
        return y;
    });

    QMenu* file = bar->addMenu(tr("&File"));
    file->addAction(icon("new"), tr("&New scenario"), QKeySequence::New, this, &MainWindow::newScenario);
    file->addAction(icon("open"), tr("&Open scenario…"), QKeySequence::Open, this, &MainWindow::openScenarioDialog);
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(icon("save"), tr("&Save scenario"), QKeySequence::Save, this, [this] {
        if (scenarioPath().isEmpty())
            saveScenarioAs();
        else
            saveScenario(scenarioPath());
    });
    file->addAction(tr("Save scenario &as…"), QKeySequence::SaveAs, this, &MainWindow::saveScenarioAs);
    file->addSeparator();
    file->addAction(tr("Load &trace…"), QKeySequence(Qt::CTRL | Qt::Key_T), this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Load trace"), QString(),
                                                       tr("Traces (*.csv *.trace *.swf *.json *.txt);;All files (*)"));
        if (!p.isEmpty())
            loadTrace(p);
    });
    file->addAction(tr("&Map trace columns…"), this, [this] {
        // re-map the scenario's CSV (or pick one): the dialog opens even when the trace was read before
        QString p = m_scenarioPanel->tracePath();
        if (p.isEmpty() || !QFileInfo(p).isFile())
            p = QFileDialog::getOpenFileName(this, tr("Map the columns of a CSV trace"), QString(),
                                             tr("CSV (*.csv *.tsv *.txt);;All files (*)"));
        if (!p.isEmpty() && !mapTraceColumns(p))
            showError(tr("%1 cannot be mapped: it is not a CSV with a header of at least three columns and a data row")
                          .arg(QFileInfo(p).fileName()));
    })->setObjectName(QStringLiteral("mapTraceColumnsAction"));
    file->addAction(tr("Load &cluster…"), this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Load cluster"), QString(),
                                                       tr("Clusters (*.json *.csv *.txt *machine_list* *.spec);;All files (*)"));
        if (!p.isEmpty())
            loadCluster(p);
    });
    file->addAction(tr("Import cluster &state…"), this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Import cluster state"), QString(),
                                                       tr("Start states (*.csv *.json);;All files (*)"));
        if (!p.isEmpty())
            importClusterState(p);
    });
    file->addSeparator();
    file->addAction(tr("New project &database…"), this, [this] {
        const QString p = QFileDialog::getSaveFileName(this, tr("New project database"),
                                                       studioSettings().value(QStringLiteral("db/dir")).toString(),
                                                       tr("SchedStudio runs (*.db *.sqlite);;All files (*)"));
        if (p.isEmpty())
            return;
        // The dialog already asked before replacing an existing file.
        if (QFileInfo::exists(p) && !QFile::remove(p)) {
            showError(tr("New project database: cannot replace %1").arg(p));
            return;
        }
        openDatabase(p, true);
    });
    file->addAction(tr("Open project data&base…"), this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Open project database"),
                                                       studioSettings().value(QStringLiteral("db/dir")).toString(),
                                                       tr("SchedStudio runs (*.db *.sqlite);;All files (*)"));
        if (!p.isEmpty())
            openDatabase(p, false);
    });
    file->addAction(tr("C&lose project database"), this, &MainWindow::closeDatabase);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = bar->addMenu(tr("&Edit"));
    QAction* undo = m_clusterDoc->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    undo->setIcon(icon("undo"));
    QAction* redo = m_clusterDoc->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    redo->setIcon(icon("redo"));
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu* run = bar->addMenu(tr("&Run"));
    m_runAction = run->addAction(icon("run"), tr("&Run scenario"), QKeySequence(Qt::CTRL | Qt::Key_R), this,
                                 [this] { runScenario(); });
    run->addAction(icon("stop"), tr("&Stop"), QKeySequence(Qt::Key_Escape), m_runs, &RunController::cancel);
    run->addSeparator();
    run->addAction(icon("teach"), tr("&Teaching mode (DAS case study)"), this, &MainWindow::startTeaching);

    m_viewMenu = bar->addMenu(tr("&View"));

    QMenu* help = bar->addMenu(tr("&Help"));
    help->addAction(tr("Keyboard shortcuts"), this, [this] {
        m_banner->showInfo(tr("Stepping: ←/→ step, Shift+←/→ previous/next decision that decided something, "
                              "Space play/pause, Home/End first/last decision. "
                              "Ctrl+R run, Esc stop, Ctrl+Z/Ctrl+Shift+Z undo/redo topology edits, "
                              "Ctrl+C copy table cells."));
    });
    help->addAction(tr("Legend"), this, [this] {
        m_banner->showInfo(tr("Heatmaps: colour = the value on the colour bar (yellow high); hatched grey = no value "
                              "(the job was not queued, the machine not scored); a whisker = ± std of a learned "
                              "policy's score, a cell's height standing for the colour bar's span. Stepper: bold = "
                              "placed at this decision; Placed says why not. Gantt and cluster map: one colour per "
                              "job, the selected job outlined in every view; Gavel's allocation X and OASiS's prices "
                              "replace the affinity / history maps for those policies."));
    });
    help->addAction(tr("About SchedStudio"), this, [this] {
        QMessageBox::about(this, tr("About SchedStudio"),
                           tr("<b>SchedStudio</b> %1<br>A what-if studio for deep-learning GPU cluster scheduling: "
                              "DAS and its baselines, Tiresias, Gavel, Chronus, OASiS and the RELMAS accelerator "
                              "mode, with every decision open to inspection.<br>Built with Qt %2.")
                               .arg(QString::fromUtf8(softwareVersion()), QString::fromLatin1(qVersion())));
    });

    auto* tb = addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("mainToolBar"));
    tb->setIconSize(QSize(18, 18));
    tb->addAction(file->actions().at(0));
    tb->addAction(file->actions().at(1));
    tb->addAction(file->actions().at(3));
    tb->addSeparator();
    tb->addAction(undo);
    tb->addAction(redo);
    tb->addSeparator();
    tb->addAction(m_runAction);
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
}

void MainWindow::startTeaching()
{
    const QString p = QStringLiteral(SS_SAMPLE_DIR "/das-case.scenario.json");
    if (currentScenario().name != QLatin1String("das-case") && QFileInfo::exists(p)) {
        if (!confirmDiscard(tr("opening the DAS case study")) || !openScenario(p))
            return;
    }
    showView(QStringLiteral("teaching"));
    if (!currentRun() && !m_runs->isRunning())
        runScenario(); // waits for the trace by itself when it is still loading
}

void MainWindow::buildStatusBar()
{
    // Message, then progress and Stop for whichever background job is active.
    m_statusLabel = new QLabel(this);
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(new JobProgress(m_runs, this));
}

// ------------------------------------------------------------------------------------------ docks

QDockWidget* MainWindow::addView(const QString& key, const QString& title, QWidget* w, Qt::DockWidgetArea area,
                                 bool scrolls)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(QStringLiteral("dock-") + key);
    if (scrolls) {
        // A tall panel in the tabbed view stack would set the stack's minimum height for every view in it (and
        // leave the stepper two rows): it scrolls when the stack is shorter than it.
        auto* area = new QScrollArea(dock);
        area->setObjectName(QStringLiteral("scroll-") + key);
        area->setWidgetResizable(true);
        area->setFrameShape(QFrame::NoFrame);
        area->setWidget(w);
        dock->setWidget(area);
    } else {
        dock->setWidget(w);
    }
    addDockWidget(area, dock);
    m_docks.insert(key, dock);
    return dock;
}

void MainWindow::buildDocks()
{
    m_scenarioPanel = new ScenarioPanel(m_clusterDoc, this);
    m_tracePanel = new TracePanel(m_exports, this);
    m_clusterPanel = new ClusterPanel(m_exports, this);
    m_topologyPanel = new TopologyPanel(m_clusterDoc, m_exports, this);
    m_stepper = new StepperPanel(m_exports, this);
    m_heatmaps = new HeatmapsPanel(m_exports, this);
    m_ganttPanel = new GanttPanel(m_exports, this);
    m_comparePanel = new ComparePanel(m_exports, this);
    m_whatIfPanel = new WhatIfPanel(this);
    m_historyPanel = new HistoryPanel(m_runs->history(), m_exports, this);
    m_teachingPanel = new TeachingPanel(this);
    m_forkPanel = new ForkPanel(this);

    QDockWidget* scen = addView(QStringLiteral("scenario"), tr("Scenario"), m_scenarioPanel, Qt::LeftDockWidgetArea);
    QDockWidget* trace = addView(QStringLiteral("trace"), tr("Trace"), m_tracePanel, Qt::RightDockWidgetArea);
    QDockWidget* cluster = addView(QStringLiteral("cluster"), tr("Cluster map"), m_clusterPanel, Qt::RightDockWidgetArea);
    QDockWidget* topo = addView(QStringLiteral("topology"), tr("Topology editor"), m_topologyPanel, Qt::RightDockWidgetArea);
    QDockWidget* heat = addView(QStringLiteral("heatmaps"), tr("Heatmaps"), m_heatmaps, Qt::RightDockWidgetArea);
    QDockWidget* gantt = addView(QStringLiteral("gantt"), tr("Gantt"), m_ganttPanel, Qt::RightDockWidgetArea);
    QDockWidget* cmp = addView(QStringLiteral("compare"), tr("Compare"), m_comparePanel, Qt::RightDockWidgetArea);
    QDockWidget* whatif = addView(QStringLiteral("whatif"), tr("What-if"), m_whatIfPanel, Qt::RightDockWidgetArea);
    QDockWidget* hist = addView(QStringLiteral("history"), tr("Run history"), m_historyPanel, Qt::RightDockWidgetArea);
    QDockWidget* stepper = addView(QStringLiteral("stepper"), tr("Decision stepper"), m_stepper, Qt::BottomDockWidgetArea);
    QDockWidget* fork = addView(QStringLiteral("fork"), tr("Fork"), m_forkPanel, Qt::RightDockWidgetArea, true);
    QDockWidget* teach = addView(QStringLiteral("teaching"), tr("Teaching mode"), m_teachingPanel, Qt::RightDockWidgetArea);

    for (QDockWidget* d : {cluster, topo, heat, gantt, cmp, whatif, fork, hist})
        tabifyDockWidget(trace, d);
    // The teaching panel sits beside the views (not tabbed with them) so the map stays visible.
    removeDockWidget(teach);
    addDockWidget(Qt::RightDockWidgetArea, teach, Qt::Horizontal);
    teach->hide();
#ifdef SS_UI_HAVE_TRAINING
    QDockWidget* training = addView(QStringLiteral("training"), tr("Training"), buildTrainingView(), Qt::RightDockWidgetArea, true);
    tabifyDockWidget(trace, training);
#endif
    cluster->raise();
    resizeDocks({scen}, {300}, Qt::Horizontal);
    resizeDocks({stepper}, {230}, Qt::Vertical);

    for (const QString& key : {QStringLiteral("scenario"), QStringLiteral("trace"), QStringLiteral("cluster"),
                               QStringLiteral("topology"), QStringLiteral("stepper"), QStringLiteral("heatmaps"),
                               QStringLiteral("gantt"), QStringLiteral("compare"), QStringLiteral("whatif"),
                               QStringLiteral("fork"), QStringLiteral("history"), QStringLiteral("teaching")})
        m_viewMenu->addAction(m_docks[key]->toggleViewAction());
#ifdef SS_UI_HAVE_TRAINING
    m_viewMenu->addAction(m_docks[QStringLiteral("training")]->toggleViewAction());
#endif
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(tr("Reset &layout"), this, &MainWindow::resetLayout);
    m_darkAction = m_viewMenu->addAction(tr("&Dark theme"));
    m_darkAction->setCheckable(true);
    connect(m_darkAction, &QAction::toggled, this, [this](bool on) {
        if (on != m_dark)
            setDarkTheme(on);
    });

    // Stepping shortcuts work from every view (line edits keep their own arrow keys).
    auto shortcut = [this](QKeySequence k, auto fn) {
        auto* s = new QShortcut(k, this);
        s->setContext(Qt::WindowShortcut);
        connect(s, &QShortcut::activated, m_stepper, fn);
    };
    shortcut(QKeySequence(Qt::Key_Right), [this] { m_stepper->step(1); });
    shortcut(QKeySequence(Qt::Key_Left), [this] { m_stepper->step(-1); });
    shortcut(QKeySequence(Qt::SHIFT | Qt::Key_Right), [this] { m_stepper->stepScheduled(1); });
    shortcut(QKeySequence(Qt::SHIFT | Qt::Key_Left), [this] { m_stepper->stepScheduled(-1); });
    shortcut(QKeySequence(Qt::Key_Home), [this] { m_stepper->first(); });
    shortcut(QKeySequence(Qt::Key_End), [this] { m_stepper->last(); });
    shortcut(QKeySequence(Qt::Key_Space), [this] { m_stepper->togglePlay(); });
}

QWidget* MainWindow::buildTrainingView()
{
#ifdef SS_UI_HAVE_TRAINING
    // Trains on what the Scenario panel shows now: the edited cluster and the loaded trace.
    auto* panel = new TrainingPanel(
        [this](ClusterSpec& cluster, std::shared_ptr<const Trace>& trace) -> QString {
            if (m_runs->isLoading())
                return tr("the trace is still loading");
            if (!m_runs->trace())
                return tr("no trace loaded (File ▸ Load trace)");
            const QString v = m_clusterDoc->validationMessage();
            if (!v.isEmpty())
                return tr("the cluster is invalid: %1").arg(v);
            cluster = m_clusterDoc->spec();
            cluster.finalize();
            trace = m_runs->trace();
            return {};
        },
        this);
    m_exports->installPlotExport(panel, panel->plot(), m_exports->scenario());
    m_trainingPanel = panel;
    return panel;
#else
    return nullptr;
#endif
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultState, kStateVersion);
    QTimer::singleShot(0, this, &MainWindow::fitDefaultLayout); // after the restored layout is applied
    m_docks[QStringLiteral("cluster")]->raise();
}

void MainWindow::fitDefaultLayout()
{
    resizeDocks({m_docks[QStringLiteral("scenario")]}, {300}, Qt::Horizontal);
    // eight queue rows, but never more than 40 % of the window
    const int stepperH = std::min(m_stepper->heightForRows(8) + 24, height() * 2 / 5); // + the dock's title bar
    // resizeDocks() moves the bottom area only part of the way in a window without a central widget: the dock is
    // held at that height for one layout pass, then let go (it keeps the height; the user's splitter moves it).
    QDockWidget* stepper = m_docks[QStringLiteral("stepper")];
    // never more than the views above leave: the window itself must not grow
    const int room = stepper->minimumSizeHint().height() + std::max(0, height() - minimumSizeHint().height());
    stepper->setMinimumHeight(std::min(stepperH, room));
    QTimer::singleShot(0, stepper, [stepper] { stepper->setMinimumHeight(0); });
}

void MainWindow::showEvent(QShowEvent* e)
{
    QMainWindow::showEvent(e);
    if (!m_layoutFitted) {
        m_layoutFitted = true;
        if (!m_stateRestored) // once the window's first layout has happened, which resizes the docks again
            QTimer::singleShot(0, this, &MainWindow::fitDefaultLayout);
    }
}

// ------------------------------------------------------------------------------------------ wiring

void MainWindow::wireRuns()
{
    RunController* rc = m_runs;
    RunHistoryModel* hist = rc->history();
    connect(rc, &RunController::error, this, &MainWindow::showError);
    connect(rc, &RunController::status, this, &MainWindow::setStatus);
    connect(rc, &RunController::jobStarted, this, [this](const QString& title) {
        setStatus(title);
        m_runAction->setEnabled(!m_runs->isRunning());
    });
    connect(rc, &RunController::jobEnded, this, [this] { m_runAction->setEnabled(!m_runs->isRunning()); });
    connect(rc, &RunController::traceLoaded, this, [this](const std::shared_ptr<const Trace>&, const QString& msg) {
        m_scenarioPanel->setTraceInput(m_runs->traceLoadedPath(), m_runs->traceLoadedFormat(), m_runs->traceLoadedColumns(),
                                       m_runs->traceLoadedTimeFormat());
        setStatus(msg);
        refreshTraceView();
        Q_EMIT traceLoaded();
        if (m_runs->takePendingRun())
            runScenario();
    });
    connect(rc, &RunController::allFinished, this, &MainWindow::runsFinished);
    connect(rc, &RunController::whatIfStarted, m_whatIfPanel, &WhatIfPanel::showRunning);
    connect(rc, &RunController::whatIfFinished, this, [this](const QString& desc, double a, double b) {
        m_whatIfPanel->showResult(desc, a, b);
        showView(QStringLiteral("compare"));
    });
    connect(rc, &RunController::runReplaced, m_stepper, &StepperPanel::replaceRun);
    connect(rc, &RunController::runLoaded, this, [this](const RunPtr& r) {
        setCurrentRun(r);
        setStatus(tr("Loaded run '%1' with %2 decisions from the database").arg(r->name).arg(decisionCount()));
    });
    connect(rc, &RunController::runAboutToBeRemoved, this, [this](int id) {
        if (currentRun() && currentRun()->id == id)
            setCurrentRun(nullptr);
    });
    auto dbText = [this] { m_historyPanel->setDatabaseText(m_runs->databaseSummary()); };
    connect(rc, &RunController::databaseChanged, this, dbText);
    dbText();

    connect(hist, &RunHistoryModel::checkedChanged, this, [this] { m_comparePanel->setRuns(m_runs->history()->checkedRuns()); });
    auto runList = [this] { m_stepper->setRunList(m_runs->history()->allRuns()); };
    connect(hist, &QAbstractItemModel::rowsInserted, this, runList);
    connect(hist, &QAbstractItemModel::rowsRemoved, this, runList);
    connect(hist, &QAbstractItemModel::dataChanged, this, runList);
    connect(m_historyPanel, &HistoryPanel::openRequested, this, [this](const RunPtr& run, bool showMap) {
        openRun(run);
        if (showMap)
            showView(QStringLiteral("cluster"));
    });
    connect(m_historyPanel, &HistoryPanel::removeRequested, rc, &RunController::removeRun);
    connect(m_historyPanel, &HistoryPanel::compareRequested, this, [this] { showView(QStringLiteral("compare")); });
    connect(m_historyPanel, &HistoryPanel::error, this, &MainWindow::showError);
    connect(m_whatIfPanel, &WhatIfPanel::whatIfRequested, this, &MainWindow::runWhatIf);
}

void MainWindow::wireViews()
{
    connect(m_clusterDoc, &ClusterDocument::clusterChanged, this, &MainWindow::onClusterChanged);
    connect(m_clusterDoc, &ClusterDocument::validationChanged, this, &MainWindow::onClusterChanged);
    connect(m_scenarioPanel, &ScenarioPanel::traceChosen, this, &MainWindow::loadTrace);
    connect(m_scenarioPanel, &ScenarioPanel::edited, this, &MainWindow::updateWindowTitle);
    connect(m_scenarioPanel, &ScenarioPanel::edited, this,
            [this] { m_whatIfPanel->setScenarioPolicies(currentScenario().policies); });
    m_whatIfPanel->setScenarioPolicies(currentScenario().policies);
    connect(m_clusterDoc->undoStack(), &QUndoStack::cleanChanged, this, [this] {
        m_scenarioPanel->refreshClusterLabel();
        updateWindowTitle();
    });
    connect(m_scenarioPanel, &ScenarioPanel::runRequested, this, [this] { runScenario(); });
    connect(m_topologyPanel, &TopologyPanel::loadClusterRequested, this, &MainWindow::loadCluster);
    connect(m_topologyPanel, &TopologyPanel::error, this, &MainWindow::showError);

    connect(m_stepper, &StepperPanel::runChanged, this, &MainWindow::onRunChanged);
    connect(m_stepper, &StepperPanel::decisionChanged, this, &MainWindow::onDecisionChanged);
    connect(m_stepper, &StepperPanel::error, this, &MainWindow::showError);
    connect(m_stepper, &StepperPanel::runActivated, this, [this](int id) {
        const int row = m_runs->history()->rowOfId(id);
        if (row >= 0)
            openRun(m_runs->history()->run(row));
    });
    connect(m_clusterPanel, &ClusterPanel::overlayToggled, this, [this] { m_stepper->setDecision(m_stepper->currentDecision()); });
    connect(m_ganttPanel, &GanttPanel::timeClicked, m_stepper, &StepperPanel::gotoTime);
    connect(m_teachingPanel, &TeachingPanel::stepRequested, m_stepper, &StepperPanel::step);
    connect(m_teachingPanel, &TeachingPanel::caseStudyRequested, this, [this] {
        if (confirmDiscard(tr("opening the DAS case study")) && openScenario(QStringLiteral(SS_SAMPLE_DIR "/das-case.scenario.json")))
            m_runs->setPendingRun(true);
    });

    // One selection across the views.
    connect(m_tracePanel, &TracePanel::jobSelected, this, &MainWindow::selectJob);
    connect(m_clusterPanel, &ClusterPanel::jobSelected, this, &MainWindow::selectJob);
    connect(m_stepper, &StepperPanel::jobSelected, this, &MainWindow::selectJob);
    connect(m_heatmaps, &HeatmapsPanel::jobSelected, this, &MainWindow::selectJob);
    connect(m_ganttPanel, &GanttPanel::jobSelected, this, &MainWindow::selectJob);
    connect(m_comparePanel, &ComparePanel::jobSelected, this, &MainWindow::selectJob);
}

void MainWindow::onClusterChanged()
{
    m_topologyPanel->refresh();
    m_scenarioPanel->refreshClusterLabel();
    updateWindowTitle();
    if (!currentRun())
        m_clusterPanel->showIdleCluster(&m_clusterDoc->spec());
}

void MainWindow::refreshTraceView()
{
    const RunPtr run = currentRun();
    const auto trace = m_runs->trace();
    m_tracePanel->setTrace(trace, run && run->trace == trace ? run->out : nullptr);
}

void MainWindow::onRunChanged()
{
    refreshTraceView();
    const RunPtr run = currentRun();
    m_heatmaps->setRun(run.get());
    if (!run) {
        m_ganttPanel->setRun(nullptr);
        onClusterChanged();
        return;
    }
    m_clusterPanel->setRun(*run);
    m_ganttPanel->setRun(run);
}

void MainWindow::onDecisionChanged(int k)
{
    const RunPtr run = currentRun();
    if (k < 0 || !run || !run->out->log)
        return;
    m_clusterPanel->showDecision(*run, *m_stepper->replayer(), k);
    m_heatmaps->showDecision(*run, k);
    m_ganttPanel->setCursorTime(run->out->log->records[size_t(k)].time);
    m_teachingPanel->showDecision(run, k);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e)
{
    if (e->mimeData()->hasUrls())
        e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e)
{
    for (const QUrl& u : e->mimeData()->urls()) {
        const QString p = u.toLocalFile();
        if (p.isEmpty())
            continue;
        if (p.endsWith(QLatin1String(".scenario.json"))) {
            if (confirmDiscard(tr("opening another scenario")))
                openScenario(p);
        } else if (!detectTraceFormat(p.toStdString()).empty()) {
            loadTrace(p);
        } else {
            // Not a trace we recognise: a cluster file, or an error naming the file.
            loadCluster(p);
        }
    }
    e->acceptProposedAction();
}

// ------------------------------------------------------------------------------------------ banner/status

void MainWindow::showError(const QString& text)
{
    m_banner->showError(text);
}

void MainWindow::clearError()
{
    m_banner->clear();
}

QString MainWindow::bannerText() const
{
    return m_banner->text();
}

void MainWindow::setStatus(const QString& text)
{
    if (m_statusLabel)
        m_statusLabel->setText(text);
}

QString MainWindow::exportCaption() const
{
    // the run the stepper, heatmaps, Gantt and cluster map show, as it was made (not the scenario edited since)
    const RunPtr run = currentRun();
    if (!run)
        return m_exports->scenarioCaption();
    return runProvenance(*run);
}

// ------------------------------------------------------------------------------------------ runs

QString MainWindow::teachingText() const { return m_teachingPanel->text(); }

RunRequest MainWindow::runRequest(const Scenario& s) const
{
    RunRequest req;
    req.trace = m_runs->trace();
    req.cluster = std::make_shared<const ClusterSpec>(m_clusterDoc->spec());
    req.clusterLabel = m_scenarioPanel->clusterLabel();
    req.policies = s.policies;
    for (int i = 0; i < s.seeds; ++i)
        req.seeds << s.seed + quint64(i);
    req.scenarioName = s.name;
    req.perf = s.perf;
    req.backfill = s.backfill;
    req.params = s.core.params;
    req.checkpoint = s.core.checkpoint;
    if (!s.core.throughputs.empty()) {
        // the scenario's speed table (Gavel's policies read their throughput matrix from it); a file that
        // does not read leaves the runs on the cluster's type speeds, said in the error banner
        try {
            req.table = std::make_shared<const ThroughputTable>(readThroughputTable(s.core.throughputs));
        } catch (const std::exception& e) {
            m_banner->showError(tr("Throughput table not used: %1").arg(QString::fromStdString(e.what())));
        }
    }
    return req;
}

bool MainWindow::runScenario()
{
    // A rerun stays at the decision the user was looking at (clamped), rather than jumping back to the first.
    const int keep = currentDecision();
    const auto started = m_runs->startScenario(runRequest(currentScenario()), m_clusterDoc->validationMessage(),
                                               [this, keep](QVector<RunPtr> runs) {
                                                   if (runs.isEmpty())
                                                       return;
                                                   setCurrentRun(runs.first());
                                                   if (keep > 0 && decisionCount() > 0)
                                                       setDecision(std::min(keep, decisionCount() - 1));
                                               });
    if (started == RunController::Start::Started)
        clearError();
    return started != RunController::Start::Refused;
}

bool MainWindow::runWhatIf(const QString& clusterPreset, double loadFactor, const QString& policy)
{
    WhatIfChange change;
    change.clusterPreset = clusterPreset;
    change.loadFactor = loadFactor;
    change.policy = policy;
    return m_runs->startWhatIf(runRequest(currentScenario()), change);
}

void MainWindow::openRun(RunPtr run)
{
    if (!run)
        return;
    setCurrentRun(run);
    m_runs->loadRunLog(run); // the stepper and heatmaps follow when a stored log is in
}

void MainWindow::openDatabase(const QString& path, bool create)
{
    if (path.isEmpty())
        return;
    clearError();
    studioSettings().setValue(QStringLiteral("db/dir"), QFileInfo(path).absolutePath());
    m_runs->openDatabase(path, create);
}

void MainWindow::closeDatabase()
{
    m_runs->closeDatabase();
}

// ------------------------------------------------------------------------------------------ selection & views

void MainWindow::selectJob(int job)
{
    if (job == m_selectedJob)
        return;
    m_selectedJob = job;
    m_clusterPanel->selectJob(job);
    m_ganttPanel->selectJob(job);
    m_comparePanel->selectJob(job);
    m_heatmaps->selectJob(job);
    m_tracePanel->selectJob(job);
    const auto trace = m_runs->trace();
    if (trace && job >= 0 && size_t(job) < trace->jobs.size())
        setStatus(tr("Selected job %1").arg(trace->jobs[size_t(job)].id));
}

bool MainWindow::showView(const QString& name)
{
    QString key = name.toLower();
    if (key == QLatin1String("what-if"))
        key = QStringLiteral("whatif");
    if (!m_docks.contains(key))
        return false;
    QDockWidget* d = m_docks[key];
    if (key == QLatin1String("teaching")) {
        // The walk-through reads best beside the cluster map.
        m_docks[QStringLiteral("cluster")]->show();
        m_docks[QStringLiteral("cluster")]->raise();
    }
    if (key == QLatin1String("stepper")) {
        m_docks[QStringLiteral("heatmaps")]->show();
        m_docks[QStringLiteral("heatmaps")]->raise();
    }
    d->show();
    d->raise();
    return true;
}

// ------------------------------------------------------------------------------------------ theme & close

void MainWindow::setDarkTheme(bool dark)
{
    m_dark = dark;
    qApp->setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    const QPalette p = studioPalette(dark);
    qApp->setPalette(p);
    setPalette(p);
    if (m_darkAction) {
        QSignalBlocker b(m_darkAction);
        m_darkAction->setChecked(dark);
    }
    themePlotsUnder(this);
    studioSettings().setValue(QStringLiteral("ui/dark"), dark);
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    if (!confirmDiscard(tr("quitting"))) {
        e->ignore();
        return;
    }
    m_runs->cancel();
    QSettings s = studioSettings();
    s.setValue(QStringLiteral("window/version"), kStateVersion);
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState(kStateVersion));
    QThreadPool::globalInstance()->waitForDone(3000);
    e->accept();
}

} // namespace ss::ui
