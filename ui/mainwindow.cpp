#include "mainwindow.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QThread>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include "qcp.h"

#include <algorithm>
#include <cmath>

#include "backgroundjob.h"
#include "rundatabase.h"
#include "trainingpanel.h"
#include "clusterdocument.h"
#include "clustermapview.h"
#include "exporthelpers.h"
#include "ganttview.h"
#include "heatmapview.h"
#include "io/traceio.h"
#include "jobcolors.h"
#include "models.h"
#include "plothelpers.h"
#include "policy/registry.h"
#include "teaching.h"
#include "topologyeditorview.h"

static void initSchedResources()
{
    Q_INIT_RESOURCE(schedstudio);
}

namespace ss::ui {

namespace {
QIcon icon(const char* name)
{
    return QIcon(QStringLiteral(":/icons/%1.svg").arg(QLatin1String(name)));
}

QWidget* hbox(std::initializer_list<QWidget*> ws, QWidget* parent = nullptr)
{
    auto* w = new QWidget(parent);
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    for (QWidget* x : ws)
        l->addWidget(x);
    l->addStretch(1);
    return w;
}

QCustomPlot* makePlot(QWidget* parent)
{
    auto* p = new QCustomPlot(parent);
    p->setMinimumSize(220, 160);
    p->setNoAntialiasingOnDrag(true);
    return p;
}

QTableView* makeTable(QWidget* parent)
{
    auto* t = new QTableView(parent);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    t->verticalHeader()->setDefaultSectionSize(22);
    t->verticalHeader()->setVisible(false);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setWordWrap(false);
    return t;
}

QSettings settings()
{
    return QSettings(QStringLiteral("SchedStudio"), QStringLiteral("schedstudio"));
}
} // namespace

QStringList MainWindow::viewNames()
{
    return {QStringLiteral("trace"), QStringLiteral("cluster"), QStringLiteral("topology"), QStringLiteral("stepper"),
            QStringLiteral("heatmaps"), QStringLiteral("gantt"), QStringLiteral("compare"), QStringLiteral("whatif"),
            QStringLiteral("history"), QStringLiteral("teaching")
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
    m_loadJob = new BackgroundJob(this);
    m_runJob = new BackgroundJob(this);
    m_history = new RunHistoryModel(this);
    m_db = new RunDatabase(this);

    buildActions();
    buildDocks();

    // Status bar: message, progress and Stop for whichever background job is active.
    m_statusLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    m_progress->setVisible(false);
    m_stopButton = new QToolButton(this);
    m_stopButton->setIcon(icon("stop"));
    m_stopButton->setText(tr("Stop"));
    m_stopButton->setToolTip(tr("Stop the running job (Esc)"));
    m_stopButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_stopButton->setVisible(false);
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_stopButton);
    connect(m_stopButton, &QToolButton::clicked, this, [this] {
        m_loadJob->cancel();
        m_runJob->cancel();
    });
    for (BackgroundJob* job : {m_loadJob, m_runJob}) {
        connect(job, &BackgroundJob::started, this, [this](const QString& title) {
            setStatus(title);
            m_progress->setValue(0);
            m_progress->setVisible(true);
            m_stopButton->setVisible(true);
            if (m_runAction)
                m_runAction->setEnabled(!m_runJob->isRunning());
        });
        connect(job, &BackgroundJob::progressChanged, this, [this](double f) { m_progress->setValue(int(f * 1000)); });
        auto done = [this] {
            if (!m_loadJob->isRunning() && !m_runJob->isRunning()) {
                m_progress->setVisible(false);
                m_stopButton->setVisible(false);
            }
            m_runAction->setEnabled(!m_runJob->isRunning());
        };
        connect(job, &BackgroundJob::finished, this, done);
        connect(job, &BackgroundJob::cancelled, this, [this, done] {
            setStatus(tr("Stopped."));
            done();
        });
        connect(job, &BackgroundJob::failed, this, [this, done](const QString& msg) {
            showError(msg);
            setStatus(tr("Failed."));
            done();
        });
    }

    // A run waiting for its trace is dropped when the trace does not arrive.
    connect(m_loadJob, &BackgroundJob::failed, this, [this] { m_pendingRun = false; });
    connect(m_loadJob, &BackgroundJob::cancelled, this, [this] { m_pendingRun = false; });
    connect(m_clusterDoc, &ClusterDocument::clusterChanged, this, &MainWindow::refreshClusterViews);
    connect(m_history, &RunHistoryModel::checkedChanged, this, &MainWindow::refreshCompare);
    connect(m_history, &QAbstractItemModel::rowsInserted, this, &MainWindow::refreshRunCombo);
    connect(m_history, &QAbstractItemModel::rowsRemoved, this, &MainWindow::refreshRunCombo);
    connect(m_history, &QAbstractItemModel::dataChanged, this, &MainWindow::refreshRunCombo);

    // Run history on disk: every operation runs on the database's own thread and reports back here.
    connect(m_db, &RunDatabase::opened, this, &MainWindow::onDatabaseOpened);
    connect(m_db, &RunDatabase::failed, this, [this](const QString& msg) {
        showError(msg);
        refreshDatabaseLabel();
    });
    connect(m_db, &RunDatabase::saved, this, [this](int runId, qint64 dbId) {
        const int row = m_history->rowOfId(runId);
        if (row < 0)
            return;
        auto e = std::make_shared<RunEntry>(*m_history->run(row));
        e->dbId = dbId;
        m_history->replaceRun(row, e);
        if (m_current && m_current->id == runId)
            m_current = e; // same output: the replayer stays valid
        refreshDatabaseLabel();
    });
    connect(m_db, &RunDatabase::logLoaded, this, [this](const RunPtr& r) {
        const int row = m_history->rowOfId(r->id);
        if (row >= 0)
            m_history->replaceRun(row, r);
        if (m_openAfterLoad == r->id) {
            m_openAfterLoad = 0;
            setCurrentRun(r);
            setStatus(tr("Loaded run '%1' with %2 decisions from the database").arg(r->name).arg(decisionCount()));
        }
    });
    connect(m_history, &RunHistoryModel::runRenamed, this, [this](int id, const QString& name) {
        const int row = m_history->rowOfId(id);
        if (row >= 0 && m_history->run(row)->dbId > 0)
            m_db->rename(m_history->run(row)->dbId, name);
    });

    resize(1500, 950);
    m_defaultState = saveState(kStateVersion);

    QSettings s = settings();
    if (s.value(QStringLiteral("window/version")).toInt() == kStateVersion) {
        restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
        restoreState(s.value(QStringLiteral("window/state")).toByteArray(), kStateVersion);
    }
    setDarkTheme(s.value(QStringLiteral("ui/dark"), false).toBool());
    rebuildRecentMenu();
    m_clusterDoc->replace(m_clusterDoc->spec(), QString(), true);
    m_clusterDoc->undoStack()->setClean();
    scenarioToPanel();
    setStatus(tr("Open a scenario (File ▸ Open) or drop a trace or cluster file here."));
}

MainWindow::~MainWindow() = default;

// ------------------------------------------------------------------------------------------ actions

void MainWindow::buildActions()
{
    // Menu bar + error banner share the top: the banner sits right under the menus, above all docks.
    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->setSpacing(0);
    auto* bar = new QMenuBar(top);
    topLayout->addWidget(bar);
    auto* banner = new QFrame(top);
    banner->setObjectName(QStringLiteral("errorBanner"));
    auto* bl = new QHBoxLayout(banner);
    bl->setContentsMargins(8, 4, 4, 4);
    m_bannerLabel = new QLabel(banner);
    m_bannerLabel->setWordWrap(true);
    m_bannerLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* close = new QToolButton(banner);
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Dismiss"));
    bl->addWidget(m_bannerLabel, 1);
    bl->addWidget(close);
    connect(close, &QToolButton::clicked, this, &MainWindow::clearError);
    QFile qss(QStringLiteral(":/styles/banner.qss"));
    if (qss.open(QIODevice::ReadOnly))
        banner->setStyleSheet(QString::fromUtf8(qss.readAll()));
    banner->setVisible(false);
    m_banner = banner;
    topLayout->addWidget(banner);
    setMenuWidget(top);

    QMenu* file = bar->addMenu(tr("&File"));
    file->addAction(icon("new"), tr("&New scenario"), QKeySequence::New, this, &MainWindow::newScenario);
    file->addAction(icon("open"), tr("&Open scenario…"), QKeySequence::Open, this, &MainWindow::openScenarioDialog);
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addAction(icon("save"), tr("&Save scenario"), QKeySequence::Save, this, [this] {
        if (m_scenarioPath.isEmpty())
            saveScenarioAs();
        else
            saveScenario(m_scenarioPath);
    });
    file->addAction(tr("Save scenario &as…"), QKeySequence::SaveAs, this, &MainWindow::saveScenarioAs);
    file->addSeparator();
    file->addAction(tr("Load &trace…"), QKeySequence(Qt::CTRL | Qt::Key_T), this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Load trace"), QString(),
                                                       tr("Traces (*.csv *.trace *.swf *.json *.txt);;All files (*)"));
        if (!p.isEmpty())
            loadTrace(p);
    });
    file->addAction(tr("Load &cluster…"), this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Load cluster"), QString(),
                                                       tr("Clusters (*.json *.csv *.txt);;All files (*)"));
        if (!p.isEmpty())
            loadCluster(p);
    });
    file->addSeparator();
    file->addAction(tr("New project &database…"), this, [this] {
        const QString p = QFileDialog::getSaveFileName(this, tr("New project database"),
                                                       settings().value(QStringLiteral("db/dir")).toString(),
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
                                                       settings().value(QStringLiteral("db/dir")).toString(),
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
    run->addAction(icon("stop"), tr("&Stop"), QKeySequence(Qt::Key_Escape), this, [this] {
        m_loadJob->cancel();
        m_runJob->cancel();
    });
    run->addSeparator();
    run->addAction(icon("teach"), tr("&Teaching mode (DAS case study)"), this, [this] {
        const QString p = QStringLiteral(SS_SAMPLE_DIR "/das-case.scenario.json");
        if (m_scenario.name != QLatin1String("das-case") && QFileInfo::exists(p)) {
            if (!openScenario(p))
                return;
        }
        showView(QStringLiteral("teaching"));
        if (!m_current && !m_runJob->isRunning())
            m_pendingRun = true, runScenario();
    });

    m_viewMenu = bar->addMenu(tr("&View"));

    QMenu* help = bar->addMenu(tr("&Help"));
    help->addAction(tr("Keyboard shortcuts"), this, [this] {
        m_bannerLabel->setText(tr("Stepping: ←/→ step, Space play/pause, Home/End first/last decision. "
                                  "Ctrl+R run, Esc stop, Ctrl+Z/Ctrl+Shift+Z undo/redo topology edits, "
                                  "Ctrl+C copy table cells."));
        m_banner->setObjectName(QStringLiteral("infoBanner"));
        m_banner->style()->unpolish(m_banner);
        m_banner->style()->polish(m_banner);
        m_banner->setVisible(true);
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

// ------------------------------------------------------------------------------------------ docks

QDockWidget* MainWindow::addView(const QString& key, const QString& title, QWidget* w, Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(QStringLiteral("dock-") + key);
    dock->setWidget(w);
    addDockWidget(area, dock);
    m_docks.insert(key, dock);
    return dock;
}

void MainWindow::buildDocks()
{
    QDockWidget* scen = addView(QStringLiteral("scenario"), tr("Scenario"), buildScenarioPanel(), Qt::LeftDockWidgetArea);
    QDockWidget* trace = addView(QStringLiteral("trace"), tr("Trace"), buildTraceView(), Qt::RightDockWidgetArea);
    QDockWidget* cluster = addView(QStringLiteral("cluster"), tr("Cluster map"), buildClusterView(), Qt::RightDockWidgetArea);
    QDockWidget* topo = addView(QStringLiteral("topology"), tr("Topology editor"), buildTopologyView(), Qt::RightDockWidgetArea);
    QDockWidget* heat = addView(QStringLiteral("heatmaps"), tr("Heatmaps"), buildHeatmapView(), Qt::RightDockWidgetArea);
    QDockWidget* gantt = addView(QStringLiteral("gantt"), tr("Gantt"), buildGanttView(), Qt::RightDockWidgetArea);
    QDockWidget* cmp = addView(QStringLiteral("compare"), tr("Compare"), buildCompareView(), Qt::RightDockWidgetArea);
    QDockWidget* whatif = addView(QStringLiteral("whatif"), tr("What-if"), buildWhatIfView(), Qt::RightDockWidgetArea);
    QDockWidget* hist = addView(QStringLiteral("history"), tr("Run history"), buildHistoryView(), Qt::RightDockWidgetArea);
    QDockWidget* stepper = addView(QStringLiteral("stepper"), tr("Decision stepper"), buildStepperView(), Qt::BottomDockWidgetArea);
    QDockWidget* teach = addView(QStringLiteral("teaching"), tr("Teaching mode"), buildTeachingView(), Qt::RightDockWidgetArea);
    connect(teach, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible && m_teachDirty)
            QTimer::singleShot(0, this, [this] {
                if (m_teachDirty)
                    refreshTeaching();
            });
    });

    for (QDockWidget* d : {cluster, topo, heat, gantt, cmp, whatif, hist})
        tabifyDockWidget(trace, d);
    // The teaching panel sits beside the views (not tabbed with them) so the map stays visible.
    removeDockWidget(teach);
    addDockWidget(Qt::RightDockWidgetArea, teach, Qt::Horizontal);
    teach->hide();
#ifdef SS_UI_HAVE_TRAINING
    QDockWidget* training = addView(QStringLiteral("training"), tr("Training"), buildTrainingView(), Qt::RightDockWidgetArea);
    tabifyDockWidget(trace, training);
#endif
    cluster->raise();
    resizeDocks({scen}, {300}, Qt::Horizontal);
    resizeDocks({stepper}, {230}, Qt::Vertical);

    for (const QString& key : {QStringLiteral("scenario"), QStringLiteral("trace"), QStringLiteral("cluster"),
                               QStringLiteral("topology"), QStringLiteral("stepper"), QStringLiteral("heatmaps"),
                               QStringLiteral("gantt"), QStringLiteral("compare"), QStringLiteral("whatif"),
                               QStringLiteral("history"), QStringLiteral("teaching")})
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
        connect(s, &QShortcut::activated, this, fn);
    };
    shortcut(QKeySequence(Qt::Key_Right), [this] { setDecision(m_decision + 1); });
    shortcut(QKeySequence(Qt::Key_Left), [this] { setDecision(std::max(0, m_decision - 1)); });
    shortcut(QKeySequence(Qt::Key_Home), [this] { setDecision(0); });
    shortcut(QKeySequence(Qt::Key_End), [this] { setDecision(decisionCount() - 1); });
    shortcut(QKeySequence(Qt::Key_Space), [this] { m_playButton->click(); });
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultState, kStateVersion);
    m_docks[QStringLiteral("cluster")]->raise();
}

// ------------------------------------------------------------------------------------------ scenario panel

QWidget* MainWindow::buildScenarioPanel()
{
    auto* w = new QWidget(this);
    auto* form = new QFormLayout(w);
    m_nameEdit = new QLineEdit(w);
    form->addRow(tr("Name"), m_nameEdit);

    m_traceEdit = new QLineEdit(w);
    m_traceEdit->setReadOnly(true);
    m_traceEdit->setPlaceholderText(tr("no trace — load or drop one"));
    auto* browse = new QToolButton(w);
    browse->setText(QStringLiteral("…"));
    connect(browse, &QToolButton::clicked, this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Load trace"));
        if (!p.isEmpty())
            loadTrace(p);
    });
    auto* traceRow = new QWidget(w);
    auto* tl = new QHBoxLayout(traceRow);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->addWidget(m_traceEdit, 1);
    tl->addWidget(browse);
    form->addRow(tr("Trace"), traceRow);

    m_clusterLabel = new QLabel(w);
    m_clusterLabel->setWordWrap(true);
    form->addRow(tr("Cluster"), m_clusterLabel);

    m_perfEdit = new QLineEdit(w);
    m_perfEdit->setToolTip(tr("Performance model: 'ideal' or key=value,… e.g. cross_machine=0.1,interference=0.05,"
                              "fluctuation_sd=0.05"));
    connect(m_perfEdit, &QLineEdit::editingFinished, this, [this] {
        try {
            PerfConfig::parse(m_perfEdit->text().toStdString());
            m_perfEdit->setStyleSheet(QString());
            m_perfEdit->setToolTip(QString());
        } catch (const std::exception& e) {
            m_perfEdit->setStyleSheet(QStringLiteral("QLineEdit { border: 1px solid #c9372c; }"));
            m_perfEdit->setToolTip(QString::fromUtf8(e.what()));
        }
    });
    form->addRow(tr("Perf model"), m_perfEdit);

    m_policyFilter = new QLineEdit(w);
    m_policyFilter->setPlaceholderText(tr("filter policies…"));
    m_policyFilter->setClearButtonEnabled(true);
    m_policyList = new QListWidget(w);
    for (const std::string& n : schedulerNames()) {
        auto* it = new QListWidgetItem(QString::fromStdString(n), m_policyList);
        it->setFlags(it->flags() | Qt::ItemIsUserCheckable);
        it->setCheckState(Qt::Unchecked);
    }
    connect(m_policyFilter, &QLineEdit::textChanged, this, [this](const QString& t) {
        for (int i = 0; i < m_policyList->count(); ++i)
            m_policyList->item(i)->setHidden(!m_policyList->item(i)->text().contains(t, Qt::CaseInsensitive));
    });
    form->addRow(tr("Policies"), m_policyFilter);
    form->addRow(m_policyList);

    m_seedSpin = new QSpinBox(w);
    m_seedSpin->setRange(0, 1 << 30);
    m_seedsSpin = new QSpinBox(w);
    m_seedsSpin->setRange(1, 100);
    m_seedsSpin->setToolTip(tr("Runs per policy with seeds seed, seed+1, … (error bars in Compare)"));
    form->addRow(tr("Seed"), m_seedSpin);
    form->addRow(tr("Seeds per policy"), m_seedsSpin);
    m_backfillCheck = new QCheckBox(tr("Backfill (try later jobs when one does not fit)"), w);
    form->addRow(m_backfillCheck);

    auto* runButton = new QPushButton(icon("run"), tr("Run scenario"), w);
    connect(runButton, &QPushButton::clicked, this, [this] { runScenario(); });
    form->addRow(runButton);
    return w;
}

void MainWindow::scenarioToPanel()
{
    m_nameEdit->setText(m_scenario.name);
    m_traceEdit->setText(m_scenario.tracePath);
    m_traceEdit->setToolTip(m_scenario.tracePath);
    m_perfEdit->setText(m_scenario.perf);
    for (int i = 0; i < m_policyList->count(); ++i)
        m_policyList->item(i)->setCheckState(m_scenario.policies.contains(m_policyList->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
    // Checked policies first, in the scenario's order, so the choice is visible without scrolling.
    for (int k = int(m_scenario.policies.size()) - 1; k >= 0; --k) {
        const auto found = m_policyList->findItems(m_scenario.policies[k], Qt::MatchExactly);
        if (!found.isEmpty())
            m_policyList->insertItem(0, m_policyList->takeItem(m_policyList->row(found.first())));
    }
    m_seedSpin->setValue(int(m_scenario.seed));
    m_seedsSpin->setValue(m_scenario.seeds);
    m_backfillCheck->setChecked(m_scenario.backfill);
    m_clusterLabel->setText(clusterLabelNow());
    setWindowTitle(tr("%1 — SchedStudio").arg(m_scenario.name.isEmpty() ? tr("untitled") : m_scenario.name));
}

void MainWindow::panelToScenario()
{
    m_scenario.name = m_nameEdit->text();
    m_scenario.perf = m_perfEdit->text().trimmed().isEmpty() ? QStringLiteral("ideal") : m_perfEdit->text().trimmed();
    QStringList pol;
    for (int i = 0; i < m_policyList->count(); ++i)
        if (m_policyList->item(i)->checkState() == Qt::Checked)
            pol << m_policyList->item(i)->text();
    m_scenario.policies = pol;
    m_scenario.seed = quint64(m_seedSpin->value());
    m_scenario.seeds = m_seedsSpin->value();
    m_scenario.backfill = m_backfillCheck->isChecked();
    if (!m_clusterDoc->undoStack()->isClean()) {
        m_scenario.clusterSource = Scenario::ClusterSource::Inline;
        m_scenario.clusterJson = QString::fromStdString(clusterToJson(m_clusterDoc->spec()));
    }
}

Scenario MainWindow::currentScenario() const
{
    const_cast<MainWindow*>(this)->panelToScenario();
    return m_scenario;
}

QString MainWindow::clusterLabelNow() const
{
    const ClusterSpec& c = m_clusterDoc->spec();
    QString s = QStringLiteral("%1 — %2 machines, %3 GPUs")
                    .arg(QString::fromStdString(c.name)).arg(c.machineCount()).arg(c.totalGpus());
    if (!m_clusterDoc->undoStack()->isClean())
        s += tr(" (edited)");
    return s;
}

void MainWindow::newScenario()
{
    Scenario s;
    s.name = tr("untitled");
    setScenario(s);
}

void MainWindow::setScenario(const Scenario& s, const QString& path)
{
    m_scenario = s;
    m_scenarioPath = path;
    clearError();
    // Cluster first: it is cheap and synchronous.
    try {
        ClusterSpec spec;
        if (s.clusterSource == Scenario::ClusterSource::Inline)
            spec = clusterFromJson(s.clusterJson.toStdString(), path.toStdString());
        else
            spec = readCluster(s.clusterRef().toStdString());
        spec.finalize();
        m_clusterDoc->replace(spec, QString(), true);
        m_clusterDoc->undoStack()->setClean();
    } catch (const std::exception& e) {
        showError(QString::fromUtf8(e.what()));
    }
    m_trace.reset();
    m_traceLoadedPath.clear();
    refreshTraceViews();
    scenarioToPanel();
    // A policy the scenario names but this build does not have would otherwise just stay unticked.
    QStringList missing;
    for (const QString& p : s.policies)
        if (m_policyList->findItems(p, Qt::MatchExactly).isEmpty())
            missing << p;
    if (!missing.isEmpty())
        showError(tr("%1: this build has no policy named %2; it is left out of the run (learned policies such as das "
                     "need a build with LibTorch). Pick policies in the Scenario panel.")
                      .arg(path.isEmpty() ? s.name : path, missing.join(QStringLiteral(", "))));
    if (!s.tracePath.isEmpty())
        loadTrace(s.tracePath);
}

bool MainWindow::openScenario(const QString& path)
{
    try {
        setScenario(Scenario::load(path), QFileInfo(path).absoluteFilePath());
        addRecent(QFileInfo(path).absoluteFilePath());
        return true;
    } catch (const ScenarioError& e) {
        showError(e.text());
        return false;
    }
}

bool MainWindow::saveScenario(const QString& path)
{
    panelToScenario();
    try {
        m_scenario.save(path);
        m_scenarioPath = QFileInfo(path).absoluteFilePath();
        addRecent(m_scenarioPath);
        setStatus(tr("Saved %1").arg(path));
        return true;
    } catch (const ScenarioError& e) {
        showError(e.text());
        return false;
    }
}

void MainWindow::openScenarioDialog()
{
    const QString p = QFileDialog::getOpenFileName(this, tr("Open scenario"), QString(),
                                                   tr("Scenarios (*.scenario.json);;JSON (*.json);;All files (*)"));
    if (!p.isEmpty())
        openScenario(p);
}

void MainWindow::saveScenarioAs()
{
    QString p = QFileDialog::getSaveFileName(this, tr("Save scenario"), m_scenarioPath,
                                             tr("Scenarios (*.scenario.json)"));
    if (p.isEmpty())
        return;
    if (!p.endsWith(QLatin1String(".json")))
        p += QLatin1String(".scenario.json");
    saveScenario(p);
}

void MainWindow::addRecent(const QString& path)
{
    QSettings s = settings();
    QStringList r = s.value(QStringLiteral("recentFiles")).toStringList();
    r.removeAll(path);
    r.prepend(path);
    while (r.size() > 10)
        r.removeLast();
    s.setValue(QStringLiteral("recentFiles"), r);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList r = settings().value(QStringLiteral("recentFiles")).toStringList();
    for (const QString& p : r)
        m_recentMenu->addAction(QFileInfo(p).fileName(), this, [this, p] { openScenario(p); })->setToolTip(p);
    m_recentMenu->setEnabled(!r.isEmpty());
}

void MainWindow::loadTrace(const QString& path)
{
    m_scenario.tracePath = path;
    m_traceEdit->setText(path);
    const std::string p = path.toStdString();
    const std::string fmt = m_scenario.traceFormat.toStdString();
    m_loadJob->start(tr("Loading trace %1…").arg(QFileInfo(path).fileName()),
                     [this, p, fmt, path](const BackgroundJob::Progress& progress) -> std::function<void()> {
                         TraceReadOptions opts;
                         opts.format = fmt.empty() ? "auto" : fmt;
                         opts.progress = progress;
                         TraceReadReport report;
                         auto trace = std::make_shared<Trace>(readTrace(p, opts, &report));
                         return [this, trace, report, path] {
                             m_trace = trace;
                             m_traceLoadedPath = path;
                             QString msg = tr("Loaded %1 jobs from %2 (format %3)")
                                               .arg(trace->jobs.size()).arg(QFileInfo(path).fileName(),
                                                                             QString::fromStdString(report.format));
                             if (report.skipped > 0)
                                 msg += tr(", skipped %1 rows").arg(report.skipped);
                             setStatus(msg);
                             refreshTraceViews();
                             Q_EMIT traceLoaded();
                             if (m_pendingRun) {
                                 m_pendingRun = false;
                                 runScenario();
                             }
                         };
                     });
}

bool MainWindow::loadCluster(const QString& pathOrPreset)
{
    try {
        ClusterSpec spec = readCluster(pathOrPreset.toStdString());
        spec.finalize();
        m_clusterDoc->replace(spec, tr("Load cluster %1").arg(QFileInfo(pathOrPreset).fileName()));
        if (QFileInfo::exists(pathOrPreset)) {
            m_scenario.clusterSource = Scenario::ClusterSource::File;
            m_scenario.clusterPath = QFileInfo(pathOrPreset).absoluteFilePath();
        } else {
            m_scenario.clusterSource = Scenario::ClusterSource::Preset;
            m_scenario.clusterPreset = pathOrPreset;
        }
        setStatus(tr("Cluster %1 loaded").arg(QString::fromStdString(spec.name)));
        return true;
    } catch (const std::exception& e) {
        showError(QString::fromUtf8(e.what()));
        return false;
    }
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
    m_banner->setObjectName(QStringLiteral("errorBanner"));
    m_banner->style()->unpolish(m_banner);
    m_banner->style()->polish(m_banner);
    m_bannerLabel->setText(text);
    m_banner->setVisible(true);
}

void MainWindow::clearError()
{
    m_bannerLabel->clear();
    m_banner->setVisible(false);
}

QString MainWindow::bannerText() const
{
    return m_banner->isHidden() ? QString() : m_bannerLabel->text();
}

void MainWindow::setStatus(const QString& text)
{
    if (m_statusLabel)
        m_statusLabel->setText(text);
}

QString MainWindow::exportCaption() const
{
    if (!m_current)
        return m_scenario.name;
    return tr("%1 · policy %2 · seed %3 · %4").arg(m_scenario.name, m_current->policy())
        .arg(m_current->out->seed).arg(m_current->clusterLabel);
}

void MainWindow::installPlotExport(QWidget* w, QCustomPlot* plot)
{
    w->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(w, &QWidget::customContextMenuRequested, this, [this, w, plot](const QPoint& pos) {
        QMenu menu;
        menu.addAction(icon("export"), tr("Export image (PNG/SVG/PDF)…"), this, [this, w, plot] {
            const QString p = QFileDialog::getSaveFileName(this, tr("Export"), QString(), exporter::imageFilter());
            if (p.isEmpty())
                return;
            QString err;
            const bool ok = plot ? exporter::exportPlot(plot, p, &err, exportCaption())
                                 : exporter::exportWidget(w, p, &err, exportCaption());
            if (!ok)
                showError(err);
            else
                setStatus(tr("Exported %1").arg(p));
        });
        menu.exec(w->mapToGlobal(pos));
    });
}

void MainWindow::installTableExport(QTableView* view)
{
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    auto* copy = new QAction(tr("Copy"), view);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    view->addAction(copy);
    connect(copy, &QAction::triggered, this, [view] { TableExport::copySelection(view); });
    connect(view, &QWidget::customContextMenuRequested, this, [this, view, copy](const QPoint& pos) {
        QMenu menu;
        menu.addAction(copy);
        menu.addAction(icon("export"), tr("Export CSV…"), this, [this, view] {
            const QString p = QFileDialog::getSaveFileName(this, tr("Export CSV"), QString(), tr("CSV (*.csv)"));
            if (p.isEmpty())
                return;
            QString err;
            if (!TableExport::writeCsv(view->model(), p, &err, exportCaption()))
                showError(err);
        });
        menu.exec(view->viewport()->mapToGlobal(pos));
    });
}

// ------------------------------------------------------------------------------------------ trace view

QWidget* MainWindow::buildTraceView()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    auto* search = new QLineEdit(w);
    search->setPlaceholderText(tr("Search jobs: id, model, user, VC; or gpus>=4, gpus<2…"));
    search->setClearButtonEnabled(true);
    m_traceInfo = new QLabel(w);
    v->addWidget(hbox({search, m_traceInfo}, w));
    search->setMinimumWidth(360);

    m_jobModel = new JobTableModel(this);
    m_jobProxy = new JobFilterProxy(this);
    m_jobProxy->setSourceModel(m_jobModel);
    connect(search, &QLineEdit::textChanged, m_jobProxy, &JobFilterProxy::setSearch);
    m_jobTable = makeTable(w);
    m_jobTable->setModel(m_jobProxy);
    m_jobTable->setSortingEnabled(true);
    m_jobTable->sortByColumn(JobTableModel::Submit, Qt::AscendingOrder);
    m_jobTable->horizontalHeader()->setDefaultSectionSize(82);
    installTableExport(m_jobTable);
    connect(m_jobTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& cur) {
                if (cur.isValid())
                    selectJob(cur.data(JobIndexRole).toInt());
            });

    auto* split = new QSplitter(Qt::Vertical, w);
    split->addWidget(m_jobTable);
    auto* plots = new QWidget(split);
    auto* ph = new QHBoxLayout(plots);
    ph->setContentsMargins(0, 0, 0, 0);
    m_arrivalsPlot = makePlot(plots);
    m_demandPlot = makePlot(plots);
    m_durationPlot = makePlot(plots);
    for (QCustomPlot* p : {m_arrivalsPlot, m_demandPlot, m_durationPlot}) {
        ph->addWidget(p);
        installPlotExport(p, p);
    }
    split->addWidget(plots);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    v->addWidget(split, 1);
    return w;
}

void MainWindow::refreshTraceViews()
{
    std::shared_ptr<const RunOutput> out;
    if (m_current && m_current->trace == m_trace)
        out = m_current->out;
    m_jobModel->setTrace(m_trace, out);
    // A new current run changes the table's result columns, not the trace plots (costly on 100k jobs).
    if (m_plottedTrace == m_trace && m_trace)
        return;
    m_plottedTrace = m_trace;
    for (QCustomPlot* p : {m_arrivalsPlot, m_demandPlot, m_durationPlot}) {
        p->clearPlottables();
        p->clearGraphs();
    }
    if (m_trace) {
        plots::plotArrivals(m_arrivalsPlot, *m_trace);
        plots::plotGpuDemand(m_demandPlot, *m_trace);
        plots::plotDurations(m_durationPlot, *m_trace);
        m_traceInfo->setText(tr("%1 jobs · span %2").arg(m_trace->jobs.size()).arg(formatDuration(m_trace->span())));
        m_jobTable->resizeColumnsToContents();
    } else {
        m_traceInfo->setText(tr("no trace loaded"));
    }
    themePlots();
}

// ------------------------------------------------------------------------------------------ cluster map

QWidget* MainWindow::buildClusterView()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    m_clusterInfo = new QLabel(w);
    m_affinityOverlay = new QCheckBox(tr("Shade machines by affinity of the job placed"), w);
    m_affinityOverlay->setChecked(true);
    v->addWidget(hbox({m_clusterInfo, m_affinityOverlay}, w));
    m_clusterMap = new ss::ClusterMapView(w);
    v->addWidget(m_clusterMap, 1);
    installPlotExport(m_clusterMap);
    connect(m_clusterMap, &ss::ClusterMapView::jobSelected, this, &MainWindow::selectJob);
    connect(m_affinityOverlay, &QCheckBox::toggled, this, [this] { setDecision(m_decision); });
    return w;
}

void MainWindow::refreshClusterViews()
{
    const ClusterSpec& spec = m_clusterDoc->spec();
    m_topology->setCluster(spec);
    const QString v = m_clusterDoc->validationMessage();
    m_validationLabel->setText(v.isEmpty() ? tr("✔ Cluster is valid: %1 machines, %2 GPUs, %3 switches, %4 links")
                                                 .arg(spec.machineCount()).arg(spec.totalGpus())
                                                 .arg(spec.switches.size()).arg(spec.links.size())
                                           : QStringLiteral("⚠ ") + v);
    m_validationLabel->setStyleSheet(v.isEmpty() ? QString() : QStringLiteral("color: #c9372c; font-weight: bold;"));
    const QString cur = m_typeCombo->currentText();
    m_typeCombo->clear();
    for (const GpuType& t : spec.types)
        m_typeCombo->addItem(QString::fromStdString(t.name));
    m_typeCombo->setCurrentText(cur);
    m_clusterLabel->setText(clusterLabelNow());
    if (!m_current) {
        m_clusterMap->setCluster(&m_clusterDoc->spec());
        m_clusterMap->setOccupancy({});
        m_clusterInfo->setText(tr("%1 — no run yet: run the scenario to see who holds each GPU")
                                   .arg(QString::fromStdString(spec.name)));
    }
}

// ------------------------------------------------------------------------------------------ topology

std::vector<int> MainWindow::selectedMachineRows() const
{
    std::vector<int> rows;
    for (int m : m_topology->selectedMachines())
        rows.push_back(m);
    for (const QModelIndex& i : m_machineTable->selectionModel()->selectedRows())
        rows.push_back(i.row());
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

QWidget* MainWindow::buildTopologyView()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    auto* tb = new QToolBar(w);
    tb->setIconSize(QSize(16, 16));
    m_addCountSpin = new QSpinBox(w);
    m_addCountSpin->setRange(1, 512);
    m_addCountSpin->setPrefix(tr("× "));
    m_typeCombo = new QComboBox(w);
    m_gpuCountSpin = new QSpinBox(w);
    m_gpuCountSpin->setRange(0, 16);
    m_gpuCountSpin->setValue(4);
    m_gpuCountSpin->setSuffix(tr(" GPUs"));
    m_linkGbpsSpin = new QDoubleSpinBox(w);
    m_linkGbpsSpin->setRange(1, 10000);
    m_linkGbpsSpin->setValue(100);
    m_linkGbpsSpin->setSuffix(tr(" Gb/s"));
    m_presetCombo = new QComboBox(w);
    m_presetCombo->addItem(tr("Load preset…"));
    for (const std::string& n : clusterPresetNames())
        m_presetCombo->addItem(QString::fromStdString(n));

    auto firstSwitch = [this]() {
        const QList<int> sw = m_topology->selectedSwitches();
        if (!sw.isEmpty())
            return sw.first();
        const auto rows = selectedMachineRows();
        if (!rows.empty())
            return m_clusterDoc->spec().machines[size_t(rows.front())].sw;
        return 0;
    };
    tb->addAction(tr("Add machines"), this, [this, firstSwitch] {
        if (m_clusterDoc->spec().switches.empty())
            m_clusterDoc->addSwitch(QString(), 100);
        m_clusterDoc->addMachines(m_addCountSpin->value(), std::max(0, m_typeCombo->currentIndex()),
                                  m_gpuCountSpin->value(), firstSwitch());
    })->setToolTip(tr("Add machines of the chosen GPU type and count to the selected switch"));
    tb->addWidget(m_addCountSpin);
    tb->addAction(tr("Duplicate"), this, [this] { m_clusterDoc->duplicateMachines(selectedMachineRows()); });
    tb->addAction(tr("Remove"), this, [this] {
        m_clusterDoc->removeMachines(selectedMachineRows());
        for (int s : m_topology->selectedSwitches())
            m_clusterDoc->removeSwitch(s);
    });
    tb->addSeparator();
    tb->addWidget(m_typeCombo);
    tb->addAction(tr("Set type"), this, [this] { m_clusterDoc->setMachinesType(selectedMachineRows(), m_typeCombo->currentIndex()); })
        ->setToolTip(tr("Set the GPU type of every selected machine"));
    tb->addWidget(m_gpuCountSpin);
    tb->addAction(tr("Set count"), this, [this] { m_clusterDoc->setMachinesGpus(selectedMachineRows(), m_gpuCountSpin->value()); })
        ->setToolTip(tr("Set the GPU count of every selected machine"));
    tb->addSeparator();
    tb->addAction(tr("Add switch"), this, [this] { m_clusterDoc->addSwitch(QString(), 100); });
    tb->addAction(tr("Duplicate switch"), this, [this] {
        for (int s : m_topology->selectedSwitches())
            m_clusterDoc->duplicateSwitch(s);
    });
    tb->addWidget(m_linkGbpsSpin);
    tb->addAction(tr("Connect"), this, [this] {
        const QList<int> sw = m_topology->selectedSwitches();
        if (sw.size() != 2)
            showError(tr("Topology: select exactly two switches to connect (ctrl+click), or shift-drag between them."));
        else
            m_clusterDoc->addLink(sw[0], sw[1], m_linkGbpsSpin->value());
    });
    tb->addSeparator();
    tb->addWidget(m_presetCombo);
    tb->addAction(icon("open"), tr("Load file…"), this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Load cluster"));
        if (!p.isEmpty())
            loadCluster(p);
    });
    connect(m_presetCombo, &QComboBox::activated, this, [this](int i) {
        if (i > 0)
            loadCluster(m_presetCombo->itemText(i));
        m_presetCombo->setCurrentIndex(0);
    });
    v->addWidget(tb);

    m_validationLabel = new QLabel(w);
    m_validationLabel->setWordWrap(true);
    v->addWidget(m_validationLabel);

    auto* split = new QSplitter(Qt::Horizontal, w);
    m_topology = new ss::TopologyEditorView(split);
    split->addWidget(m_topology);
    installPlotExport(m_topology);
    auto* tabs = new QTabWidget(split);
    m_machineModel = new MachineTableModel(m_clusterDoc, this);
    m_machineTable = makeTable(tabs);
    m_machineTable->setModel(m_machineModel);
    m_machineTable->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_machineTable->verticalHeader()->setVisible(true);
    installTableExport(m_machineTable);
    tabs->addTab(m_machineTable, tr("Machines"));
    m_linkModel = new LinkTableModel(m_clusterDoc, this);
    auto* links = makeTable(tabs);
    links->setModel(m_linkModel);
    installTableExport(links);
    auto* linkPane = new QWidget(tabs);
    auto* lv = new QVBoxLayout(linkPane);
    lv->addWidget(links);
    auto* rmLink = new QPushButton(tr("Remove link"), linkPane);
    connect(rmLink, &QPushButton::clicked, this, [this, links] {
        const QModelIndex i = links->currentIndex();
        if (i.isValid())
            m_clusterDoc->removeLink(i.row());
    });
    lv->addWidget(rmLink);
    tabs->addTab(linkPane, tr("Links"));
    split->addWidget(tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({720, 480}); // the graph gets the room; the table scrolls
    v->addWidget(split, 1);

    connect(m_topology, &ss::TopologyEditorView::requestConnect, this,
            [this](int a, int b) { m_clusterDoc->addLink(a, b, m_linkGbpsSpin->value()); });
    connect(m_topology, &ss::TopologyEditorView::requestDelete, this, [this](QList<int> ms, QList<int> sws) {
        m_clusterDoc->removeMachines(std::vector<int>(ms.begin(), ms.end()));
        std::sort(sws.begin(), sws.end(), std::greater<int>());
        for (int s : sws)
            m_clusterDoc->removeSwitch(s);
    });
    connect(m_topology, &ss::TopologyEditorView::selectionChangedIds, this, [this](QList<int> ms, QList<int>) {
        QSignalBlocker b(m_machineTable->selectionModel());
        m_machineTable->clearSelection();
        for (int m : ms)
            m_machineTable->selectionModel()->select(m_machineModel->index(m, 0),
                                                     QItemSelectionModel::Select | QItemSelectionModel::Rows);
        m_machineTable->viewport()->update();
    });
    connect(m_clusterDoc, &ClusterDocument::validationChanged, this, [this] { refreshClusterViews(); });
    return w;
}

// ------------------------------------------------------------------------------------------ stepper

QWidget* MainWindow::buildStepperView()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    auto mkButton = [w](const char* ic, const QString& tip) {
        auto* b = new QPushButton(icon(ic), QString(), w);
        b->setToolTip(tip);
        b->setFocusPolicy(Qt::NoFocus);
        return b;
    };
    auto* first = mkButton("first", tr("First decision (Home)"));
    auto* back = mkButton("step-back", tr("Step back (←)"));
    m_playButton = mkButton("play", tr("Play / pause (Space)"));
    m_playButton->setCheckable(true);
    auto* fwd = mkButton("step-forward", tr("Step forward (→)"));
    auto* last = mkButton("last", tr("Last decision (End)"));
    m_speedCombo = new QComboBox(w);
    for (int s : {1, 2, 5, 10, 25, 100})
        m_speedCombo->addItem(tr("%1 / s").arg(s), s);
    m_speedCombo->setCurrentIndex(2);
    m_speedCombo->setToolTip(tr("Playback speed: decisions per second"));
    m_runCombo = new QComboBox(w);
    m_runCombo->setMinimumWidth(220);
    m_runCombo->setToolTip(tr("Run to step through"));
    m_gotoTimeEdit = new QLineEdit(w);
    m_gotoTimeEdit->setPlaceholderText(tr("go to time (min)"));
    m_gotoTimeEdit->setMaximumWidth(130);
    m_gotoJobEdit = new QLineEdit(w);
    m_gotoJobEdit->setPlaceholderText(tr("go to job id"));
    m_gotoJobEdit->setMaximumWidth(110);
    v->addWidget(hbox({new QLabel(tr("Run:"), w), m_runCombo, first, back, m_playButton, fwd, last, m_speedCombo,
                       m_gotoTimeEdit, m_gotoJobEdit}, w));
    m_slider = new QSlider(Qt::Horizontal, w);
    m_slider->setRange(0, 0);
    m_slider->setFocusPolicy(Qt::NoFocus);
    m_decisionLabel = new QLabel(tr("No run yet."), w);
    auto* sl = new QWidget(w);
    auto* sh = new QHBoxLayout(sl);
    sh->setContentsMargins(0, 0, 0, 0);
    sh->addWidget(m_slider, 1);
    sh->addWidget(m_decisionLabel);
    m_decisionLabel->setMinimumWidth(380);
    v->addWidget(sl);
    m_queueModel = new QueueModel(this);
    m_queueTable = makeTable(w);
    m_queueTable->setModel(m_queueModel);
    installTableExport(m_queueTable);
    v->addWidget(m_queueTable, 1);

    m_playTimer = new QTimer(this);
    connect(m_playTimer, &QTimer::timeout, this, [this] {
        if (m_decision + 1 >= decisionCount()) {
            m_playButton->setChecked(false);
            return;
        }
        setDecision(m_decision + 1);
    });
    auto interval = [this] { return std::max(10, 1000 / m_speedCombo->currentData().toInt()); };
    connect(m_playButton, &QPushButton::toggled, this, [this, interval](bool on) {
        m_playButton->setIcon(icon(on ? "pause" : "play"));
        if (on) {
            if (m_decision + 1 >= decisionCount())
                setDecision(0);
            m_playTimer->start(interval());
        } else {
            m_playTimer->stop();
        }
    });
    connect(m_speedCombo, &QComboBox::currentIndexChanged, this, [this, interval] { m_playTimer->setInterval(interval()); });
    connect(first, &QPushButton::clicked, this, [this] { setDecision(0); });
    connect(back, &QPushButton::clicked, this, [this] { setDecision(std::max(0, m_decision - 1)); });
    connect(fwd, &QPushButton::clicked, this, [this] { setDecision(m_decision + 1); });
    connect(last, &QPushButton::clicked, this, [this] { setDecision(decisionCount() - 1); });
    connect(m_slider, &QSlider::valueChanged, this, [this](int k) {
        if (k != m_decision)
            setDecision(k);
    });
    connect(m_gotoTimeEdit, &QLineEdit::returnPressed, this, [this] {
        bool ok = false;
        const double t = m_gotoTimeEdit->text().toDouble(&ok);
        if (ok)
            gotoTime(t * 60);
        else
            showError(tr("Go to time: '%1' is not a number of minutes").arg(m_gotoTimeEdit->text()));
    });
    connect(m_gotoJobEdit, &QLineEdit::returnPressed, this, [this] {
        bool ok = false;
        const qint64 id = m_gotoJobEdit->text().toLongLong(&ok);
        if (ok)
            gotoJob(id);
        else
            showError(tr("Go to job: '%1' is not a job id").arg(m_gotoJobEdit->text()));
    });
    connect(m_runCombo, &QComboBox::activated, this, [this](int i) {
        const int row = m_history->rowOfId(m_runCombo->itemData(i).toInt());
        if (row >= 0)
            openRun(m_history->run(row));
    });
    connect(m_queueTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
        if (cur.isValid())
            selectJob(cur.data(JobIndexRole).toInt());
    });
    return w;
}

int MainWindow::decisionCount() const
{
    return m_current && m_current->out->log ? int(m_current->out->log->records.size()) : 0;
}

void MainWindow::gotoTime(double t)
{
    if (!decisionCount())
        return;
    const auto& recs = m_current->out->log->records;
    auto it = std::lower_bound(recs.begin(), recs.end(), t, [](const DecisionRecord& r, double v) { return r.time < v; });
    setDecision(std::min(int(it - recs.begin()), int(recs.size()) - 1));
}

void MainWindow::gotoJob(qint64 id)
{
    if (!decisionCount())
        return;
    const Trace& tr_ = *m_current->trace;
    int job = -1;
    for (size_t i = 0; i < tr_.jobs.size(); ++i)
        if (tr_.jobs[i].id == id)
            job = int(i);
    if (job < 0) {
        showError(tr("Go to job: no job with id %1 in this trace").arg(id));
        return;
    }
    const auto& recs = m_current->out->log->records;
    int arrived = -1;
    for (size_t k = 0; k < recs.size(); ++k) {
        for (const PlacementRecord& p : recs[k].placements)
            if (p.job == job && !p.slots.empty()) {
                setDecision(int(k));
                selectJob(job);
                return;
            }
        if (arrived < 0 && std::find(recs[k].arrived.begin(), recs[k].arrived.end(), job) != recs[k].arrived.end())
            arrived = int(k);
    }
    if (arrived >= 0)
        setDecision(arrived);
    selectJob(job);
}

void MainWindow::setDecision(int k)
{
    const int n = decisionCount();
    if (n == 0) {
        m_decision = -1;
        m_decisionLabel->setText(m_current ? tr("This run has no decision log.") : tr("No run yet: press Run."));
        m_queueModel->setDecision(nullptr, nullptr, -1);
        return;
    }
    k = std::clamp(k, 0, n - 1);
    m_decision = k;
    const DecisionLog& log = *m_current->out->log;
    const DecisionRecord& r = log.records[size_t(k)];
    m_replayer->seek(k);
    m_clusterMap->setOccupancy(m_replayer->holders());
    // Affinity overlay: the first job placed at this decision.
    std::vector<float> scores;
    if (m_affinityOverlay->isChecked())
        for (const PlacementRecord& p : r.placements)
            if (!p.affinity.empty()) {
                scores.assign(size_t(log.machineCount), kNoScore);
                for (size_t i = 0; i < p.affinity.size(); ++i) {
                    const size_t m = size_t(p.machineOf(i));
                    if (m < scores.size())
                        scores[m] = p.affinity[i];
                }
                break;
            }
    m_clusterMap->setMachineScores(scores);
    m_clusterInfo->setText(tr("%1 · decision %2/%3 · t = %4 · %5 jobs running · %6 queued")
                               .arg(m_current->name).arg(k + 1).arg(n).arg(formatDuration(r.time))
                               .arg(m_replayer->runningJobs().size()).arg(r.queueLength));

    {
        QSignalBlocker b(m_slider);
        m_slider->setValue(k);
    }
    m_decisionLabel->setText(tr("Decision %1 / %2 · t = %3 · %4 arrived · %5 finished · %6 placed")
                                 .arg(k + 1).arg(n).arg(formatDuration(r.time)).arg(r.arrived.size())
                                 .arg(r.finished.size())
                                 .arg(std::count_if(r.placements.begin(), r.placements.end(),
                                                    [](const PlacementRecord& p) { return !p.slots.empty(); })));
    m_queueModel->setDecision(m_current->trace, m_current->out->log, k);

    QStringList machineNames;
    for (const Machine& m : m_current->cluster->machines)
        machineNames << QString::fromStdString(m.name);
    HeatmapData pri = priorityMatrix(r);
    pri.title = tr("Priority of queued jobs at decision %1 (highest first)").arg(k + 1);
    m_priorityMap->setData(pri);
    HeatmapData aff = affinityMatrix(r, log.machineCount, machineNames);
    aff.title = tr("Affinity: job × machine at decision %1").arg(k + 1);
    m_affinityMap->setData(aff);
    HeatmapData hist = priorityHistory(log, std::max(0, k - 39), k, 60);
    hist.title = tr("Priority over decisions %1–%2 (rows: jobs)").arg(std::max(0, k - 39) + 1).arg(k + 1);
    m_historyMap->setData(hist);
    m_strip->setCurrentDecision(k);
    m_gantt->setCursorTime(r.time);
    for (ss::HeatmapView* h : {m_priorityMap, m_affinityMap, m_historyMap})
        h->setSelectedJob(m_selectedJob);
    refreshTeaching();
}

// ------------------------------------------------------------------------------------------ heatmaps & gantt

QWidget* MainWindow::buildHeatmapView()
{
    auto* w = new QWidget(this);
    auto* g = new QGridLayout(w);
    m_priorityMap = new ss::HeatmapView(w);
    m_priorityMap->setMinimumHeight(110);
    m_historyMap = new ss::HeatmapView(w);
    m_affinityMap = new ss::HeatmapView(w);
    m_strip = new ss::DecisionStripView(w);
    m_strip->setMinimumHeight(180);
    m_stripContent = new QComboBox(w);
    m_stripContent->addItem(tr("Last 4 decisions: priority"));
    m_stripContent->addItem(tr("Last 4 decisions: affinity"));
    connect(m_stripContent, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_strip->setContent(i == 0 ? ss::DecisionStripView::Content::Priority : ss::DecisionStripView::Content::Affinity);
    });
    g->addWidget(m_priorityMap, 0, 0, 1, 2);
    g->addWidget(m_historyMap, 1, 0);
    g->addWidget(m_affinityMap, 1, 1);
    g->addWidget(m_stripContent, 2, 0, 1, 2, Qt::AlignLeft);
    g->addWidget(m_strip, 3, 0, 1, 2);
    g->setRowStretch(0, 1);
    g->setRowStretch(1, 3);
    g->setRowStretch(3, 2);
    for (ss::HeatmapView* h : {m_priorityMap, m_historyMap, m_affinityMap}) {
        connect(h, &ss::HeatmapView::jobSelected, this, &MainWindow::selectJob);
        installPlotExport(h);
    }
    installPlotExport(m_strip);
    connect(m_strip, &ss::DecisionStripView::jobSelected, this, &MainWindow::selectJob);
    return w;
}

QWidget* MainWindow::buildGanttView()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    m_ganttMode = new QComboBox(w);
    m_ganttMode->addItem(tr("One row per GPU"));
    m_ganttMode->addItem(tr("One row per machine"));
    auto* fit = new QPushButton(tr("Zoom to fit"), w);
    auto* hint = new QLabel(tr("Wheel: zoom · drag: pan · click: select job"), w);
    v->addWidget(hbox({m_ganttMode, fit, hint}, w));
    m_gantt = new ss::GanttView(w);
    v->addWidget(m_gantt, 1);
    installPlotExport(m_gantt);
    connect(fit, &QPushButton::clicked, m_gantt, &ss::GanttView::zoomToFit);
    connect(m_ganttMode, &QComboBox::currentIndexChanged, this, [this](int i) {
        const ss::GanttRowMode mode = i == 0 ? ss::GanttRowMode::Gpu : ss::GanttRowMode::Machine;
        if (!m_current) {
            m_gantt->setRowMode(mode);
            return;
        }
        const double v0 = m_gantt->viewStart(), v1 = m_gantt->viewEnd();
        showGantt(m_gantt, *m_current, mode);
        m_gantt->setViewRange(v0, v1); // switching rows keeps the time window
    });
    connect(m_gantt, &ss::GanttView::jobSelected, this, &MainWindow::selectJob);
    connect(m_gantt, &ss::GanttView::timeClicked, this, [this](double t) { gotoTime(t); });
    return w;
}

// ------------------------------------------------------------------------------------------ compare

QWidget* MainWindow::buildCompareView()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    auto* hint = new QLabel(tr("Runs ticked in Run history are compared (grouped by policy and cluster; "
                               "± is the standard deviation over seeds)."), w);
    hint->setWordWrap(true);
    v->addWidget(hint);
    m_compareModel = new CompareModel(this);
    m_compareTable = makeTable(w);
    m_compareTable->setModel(m_compareModel);
    m_compareTable->setMaximumHeight(170);
    installTableExport(m_compareTable);
    v->addWidget(m_compareTable);
    auto* tabs = new QTabWidget(w);
    m_cdfPlot = makePlot(tabs);
    installPlotExport(m_cdfPlot, m_cdfPlot);
    tabs->addTab(m_cdfPlot, tr("JCT CDF"));
    auto* bars = new QWidget(tabs);
    auto* bv = new QVBoxLayout(bars);
    m_barMetric = new QComboBox(bars);
    for (int c = CompareModel::MeanJct; c < CompareModel::ColumnCount; ++c)
        m_barMetric->addItem(CompareModel::metricName(c), c);
    m_barPlot = makePlot(bars);
    installPlotExport(m_barPlot, m_barPlot);
    bv->addWidget(m_barMetric, 0, Qt::AlignLeft);
    bv->addWidget(m_barPlot, 1);
    tabs->addTab(bars, tr("Bars (± sd over seeds)"));
    connect(m_barMetric, &QComboBox::currentIndexChanged, this, &MainWindow::refreshCompare);

    auto* gpane = new QWidget(tabs);
    auto* gv = new QVBoxLayout(gpane);
    m_ganttACombo = new QComboBox(gpane);
    m_ganttBCombo = new QComboBox(gpane);
    m_ganttA = new ss::GanttView(gpane);
    m_ganttB = new ss::GanttView(gpane);
    gv->addWidget(hbox({new QLabel(tr("Top:"), gpane), m_ganttACombo}, gpane));
    gv->addWidget(m_ganttA, 1);
    gv->addWidget(hbox({new QLabel(tr("Bottom:"), gpane), m_ganttBCombo}, gpane));
    gv->addWidget(m_ganttB, 1);
    installPlotExport(gpane);
    tabs->addTab(gpane, tr("Gantt A / B"));
    // One time axis for both charts: panning or zooming either moves the other.
    connect(m_ganttA, &ss::GanttView::viewRangeChanged, this, [this](double a, double b) {
        if (m_ganttB->viewStart() != a || m_ganttB->viewEnd() != b)
            m_ganttB->setViewRange(a, b);
    });
    connect(m_ganttB, &ss::GanttView::viewRangeChanged, this, [this](double a, double b) {
        if (m_ganttA->viewStart() != a || m_ganttA->viewEnd() != b)
            m_ganttA->setViewRange(a, b);
    });
    connect(m_ganttACombo, &QComboBox::currentIndexChanged, this, &MainWindow::refreshCompareGantts);
    connect(m_ganttBCombo, &QComboBox::currentIndexChanged, this, &MainWindow::refreshCompareGantts);
    connect(m_ganttA, &ss::GanttView::jobSelected, this, &MainWindow::selectJob);
    connect(m_ganttB, &ss::GanttView::jobSelected, this, &MainWindow::selectJob);
    v->addWidget(tabs, 1);
    return w;
}

void MainWindow::refreshCompare()
{
    m_compareRuns = m_history->checkedRuns();
    m_compareModel->setRuns(m_compareRuns);
    m_compareTable->resizeColumnsToContents();

    std::vector<plots::NamedSeries> cdf;
    for (const RunPtr& r : m_compareRuns) {
        if (cdf.size() >= 10)
            break;
        plots::NamedSeries s;
        s.name = r->name;
        for (const JobRecord& j : r->out->jobs)
            if (j.jct >= 0)
                s.values.push_back(j.jct / 60.0);
        cdf.push_back(std::move(s));
    }
    m_cdfPlot->clearPlottables();
    m_cdfPlot->clearGraphs();
    if (!cdf.empty())
        plots::plotCdf(m_cdfPlot, cdf, tr("JCT (min)"), false);
    m_barPlot->clearPlottables();
    const int metric = m_barMetric->currentData().toInt();
    QStringList cats;
    std::vector<std::vector<double>> mean(1), sd(1);
    for (const auto& g : m_compareModel->groups()) {
        cats << g.label;
        mean[0].push_back(g.stat[metric].mean);
        sd[0].push_back(g.stat[metric].sd);
    }
    if (!cats.isEmpty())
        plots::plotGroupedBars(m_barPlot, cats, {CompareModel::metricName(metric)}, mean, sd, CompareModel::metricName(metric));
    themePlots();

    auto fill = [this](QComboBox* c, int pick) {
        QSignalBlocker b(c);
        const int keep = c->currentData().toInt();
        c->clear();
        for (const RunPtr& r : m_compareRuns)
            c->addItem(r->name, r->id);
        const int at = c->findData(keep);
        c->setCurrentIndex(at >= 0 && keep != 0 ? at : std::min(pick, c->count() - 1));
    };
    fill(m_ganttACombo, 0);
    fill(m_ganttBCombo, 1);
    refreshCompareGantts();
}

void MainWindow::refreshCompareGantts()
{
    auto runFor = [this](QComboBox* c) -> RunPtr {
        const int id = c->currentData().toInt();
        for (const RunPtr& r : m_compareRuns)
            if (r->id == id)
                return r;
        return nullptr;
    };
    double t1 = 0;
    for (auto [combo, view] : {std::pair{m_ganttACombo, m_ganttA}, std::pair{m_ganttBCombo, m_ganttB}}) {
        RunPtr r = runFor(combo);
        if (r)
            showGantt(view, *r, ss::GanttRowMode::Machine);
        else
            view->setData({});
        if (r)
            t1 = std::max(t1, r->out->summary.makespanH * 3600.0);
    }
    if (t1 > 0) {
        m_ganttA->setViewRange(0, t1);
        m_ganttB->setViewRange(0, t1);
    }
}

// ------------------------------------------------------------------------------------------ what-if

QWidget* MainWindow::buildWhatIfView()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    auto* intro = new QLabel(tr("Duplicate the current scenario, change one thing, rerun both with the same seeds, "
                                "and compare the original with the change."), w);
    intro->setWordWrap(true);
    v->addWidget(intro);
    auto* form = new QFormLayout;
    m_whatIfCluster = new QComboBox(w);
    m_whatIfCluster->addItem(tr("(same cluster)"));
    for (const std::string& n : clusterPresetNames())
        m_whatIfCluster->addItem(QString::fromStdString(n));
    m_whatIfLoad = new QDoubleSpinBox(w);
    m_whatIfLoad->setRange(0.1, 10);
    m_whatIfLoad->setSingleStep(0.25);
    m_whatIfLoad->setValue(1.0);
    m_whatIfLoad->setSuffix(tr(" × load"));
    m_whatIfLoad->setToolTip(tr("Arrival rate factor: 2 × load submits every job twice as early"));
    m_whatIfPolicy = new QComboBox(w);
    m_whatIfPolicy->addItem(tr("(same policy)"));
    for (const std::string& n : schedulerNames())
        m_whatIfPolicy->addItem(QString::fromStdString(n));
    form->addRow(tr("Cluster"), m_whatIfCluster);
    form->addRow(tr("Load"), m_whatIfLoad);
    form->addRow(tr("Policy"), m_whatIfPolicy);
    v->addLayout(form);
    auto* go = new QPushButton(icon("run"), tr("Run what-if and compare"), w);
    v->addWidget(go, 0, Qt::AlignLeft);
    m_whatIfResult = new QLabel(w);
    m_whatIfResult->setWordWrap(true);
    m_whatIfResult->setTextFormat(Qt::RichText);
    v->addWidget(m_whatIfResult);
    v->addStretch(1);
    connect(go, &QPushButton::clicked, this, [this] {
        runWhatIf(m_whatIfCluster->currentIndex() == 0 ? QString() : m_whatIfCluster->currentText(),
                  m_whatIfLoad->value(), m_whatIfPolicy->currentIndex() == 0 ? QString() : m_whatIfPolicy->currentText());
    });
    return w;
}

bool MainWindow::runWhatIf(const QString& clusterPreset, double loadFactor, const QString& policy)
{
    panelToScenario();
    if (!m_trace) {
        showError(tr("What-if: load a trace first."));
        return false;
    }
    if (m_scenario.policies.isEmpty()) {
        showError(tr("What-if: tick at least one policy in the Scenario panel."));
        return false;
    }
    if (m_runJob->isRunning()) {
        showError(tr("What-if: a run is in progress; wait or press Stop."));
        return false;
    }
    ClusterSpec changedCluster = m_clusterDoc->spec();
    QString changedLabel = clusterLabelNow();
    QStringList what;
    if (!clusterPreset.isEmpty()) {
        try {
            changedCluster = makeClusterPreset(clusterPreset.toStdString());
            changedCluster.finalize();
        } catch (const std::exception& e) {
            showError(QString::fromUtf8(e.what()));
            return false;
        }
        changedLabel = clusterPreset;
        what << tr("cluster %1").arg(clusterPreset);
    }
    auto changedTrace = std::make_shared<Trace>(*m_trace);
    if (std::abs(loadFactor - 1.0) > 1e-9) {
        const double t0 = changedTrace->jobs.empty() ? 0 : changedTrace->jobs.front().submit;
        for (Job& j : changedTrace->jobs)
            j.submit = t0 + (j.submit - t0) / loadFactor;
        changedTrace->name += "-load" + QString::number(loadFactor).toStdString();
        what << tr("%1 × load").arg(loadFactor);
    }
    const QString basePolicy = m_scenario.policies.first();
    const QString newPolicy = policy.isEmpty() ? basePolicy : policy;
    if (newPolicy != basePolicy)
        what << tr("policy %1").arg(newPolicy);
    if (what.isEmpty()) {
        showError(tr("What-if: change the cluster, the load or the policy first."));
        return false;
    }
    QVector<quint64> seeds;
    for (int i = 0; i < m_scenario.seeds; ++i)
        seeds << m_scenario.seed + quint64(i);
    auto origCluster = std::make_shared<const ClusterSpec>(m_clusterDoc->spec());
    auto newCluster = std::make_shared<const ClusterSpec>(changedCluster);
    const QString desc = what.join(QStringLiteral(", "));
    m_whatIfResult->setText(tr("Running original and “%1”…").arg(desc));
    // Original first, then the changed setup; both land in the history and are the only ones ticked.
    auto trace = m_trace;
    const QString origLabel = clusterLabelNow();
    startRuns(trace, origCluster, origLabel, {basePolicy}, seeds, tr("original"),
              [this, changedTrace, newCluster, changedLabel, newPolicy, seeds, desc](QVector<RunPtr> orig) {
                  startRuns(changedTrace, newCluster, changedLabel, {newPolicy}, seeds, tr("what-if (%1)").arg(desc),
                            [this, orig, desc](QVector<RunPtr> changed) {
                                for (int i = 0; i < m_history->rowCount(); ++i)
                                    m_history->setChecked(i, false);
                                for (const RunPtr& r : orig + changed)
                                    m_history->setChecked(m_history->rowOfId(r->id), true);
                                auto mean = [](const QVector<RunPtr>& v) {
                                    double s = 0;
                                    for (const RunPtr& r : v)
                                        s += r->out->summary.meanJctMin;
                                    return v.isEmpty() ? 0.0 : s / v.size();
                                };
                                const double a = mean(orig), b = mean(changed);
                                m_whatIfResult->setText(
                                    tr("<b>%1</b>: mean JCT %2 min → %3 min (%4%5 %). See Compare.")
                                        .arg(desc).arg(a, 0, 'f', 1).arg(b, 0, 'f', 1)
                                        .arg(b >= a ? QStringLiteral("+") : QString())
                                        .arg(a > 0 ? 100 * (b - a) / a : 0.0, 0, 'f', 1));
                                showView(QStringLiteral("compare"));
                            });
              });
    return true;
}

// ------------------------------------------------------------------------------------------ history & teaching

QWidget* MainWindow::buildHistoryView()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_history);
    proxy->setSortRole(SortRole);
    m_historyTable = makeTable(w);
    m_historyTable->setModel(proxy);
    m_historyTable->setSortingEnabled(true);
    m_historyTable->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    installTableExport(m_historyTable);
    connect(m_history, &QAbstractItemModel::rowsInserted, m_historyTable, [this] { m_historyTable->resizeColumnsToContents(); });
    auto current = [this, proxy]() -> int {
        const QModelIndex i = m_historyTable->currentIndex();
        return i.isValid() ? proxy->mapToSource(i).row() : -1;
    };
    auto* open = new QPushButton(tr("Open in stepper"), w);
    auto* rename = new QPushButton(tr("Rename…"), w);
    auto* del = new QPushButton(tr("Delete"), w);
    auto* exp = new QPushButton(icon("export"), tr("Export jobs CSV…"), w);
    auto* compare = new QPushButton(tr("Compare ticked"), w);
    m_dbLabel = new QLabel(w);
    m_dbLabel->setWordWrap(true);
    m_dbLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    v->addWidget(m_dbLabel);
    v->addWidget(hbox({open, rename, del, exp, compare}, w));
    v->addWidget(m_historyTable, 1);
    refreshDatabaseLabel();
    connect(open, &QPushButton::clicked, this, [this, current] {
        if (current() >= 0) {
            openRun(m_history->run(current()));
            showView(QStringLiteral("cluster"));
        }
    });
    connect(m_historyTable, &QTableView::doubleClicked, this, [this, proxy](const QModelIndex& i) {
        if (i.column() != RunHistoryModel::Name)
            openRun(m_history->run(proxy->mapToSource(i).row()));
    });
    connect(rename, &QPushButton::clicked, this, [this, current] {
        const int r = current();
        if (r < 0)
            return;
        bool ok = false;
        const QString n = QInputDialog::getText(this, tr("Rename run"), tr("Name"), QLineEdit::Normal,
                                                m_history->run(r)->name, &ok);
        if (ok)
            m_history->setData(m_history->index(r, RunHistoryModel::Name), n, Qt::EditRole);
    });
    connect(del, &QPushButton::clicked, this, [this, current] {
        const int r = current();
        if (r < 0)
            return;
        if (m_current && m_history->run(r)->id == m_current->id)
            setCurrentRun(nullptr);
        if (m_history->run(r)->dbId > 0)
            m_db->remove(m_history->run(r)->dbId);
        m_history->removeRun(r);
        refreshDatabaseLabel();
    });
    connect(exp, &QPushButton::clicked, this, [this, current] {
        if (current() >= 0)
            exportRunJobs(m_history->run(current()));
    });
    connect(compare, &QPushButton::clicked, this, [this] { showView(QStringLiteral("compare")); });
    return w;
}

QWidget* MainWindow::buildTrainingView()
{
#ifdef SS_UI_HAVE_TRAINING
    // Trains on what the Scenario panel shows now: the edited cluster and the loaded trace.
    auto* panel = new TrainingPanel(
        [this](ClusterSpec& cluster, std::shared_ptr<const Trace>& trace) -> QString {
            if (m_loadJob->isRunning())
                return tr("the trace is still loading");
            if (!m_trace)
                return tr("no trace loaded (File ▸ Load trace)");
            const QString v = m_clusterDoc->validationMessage();
            if (!v.isEmpty())
                return tr("the cluster is invalid: %1").arg(v);
            cluster = m_clusterDoc->spec();
            cluster.finalize();
            trace = m_trace;
            return {};
        },
        this);
    installPlotExport(panel, panel->plot());
    m_trainingPanel = panel;
    return panel;
#else
    return nullptr;
#endif
}

void MainWindow::exportRunJobs(RunPtr run)
{
    const QString p = QFileDialog::getSaveFileName(this, tr("Export job results"), run->name + QStringLiteral(".csv"),
                                                   tr("CSV (*.csv)"));
    if (p.isEmpty())
        return;
    JobTableModel model;
    model.setTrace(run->trace, run->out);
    QString err;
    if (!TableExport::writeCsv(&model, p, &err,
                               tr("policy %1, seed %2, cluster %3").arg(run->policy()).arg(run->out->seed).arg(run->clusterLabel)))
        showError(err);
}

QWidget* MainWindow::buildTeachingView()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    auto* intro = new QLabel(tr("A guided walk through the decisions of the current run: who goes first and "
                                "why, and which machine each job gets and why."), w);
    intro->setWordWrap(true);
    v->addWidget(intro);
    auto* prev = new QPushButton(tr("◀ Previous"), w);
    auto* next = new QPushButton(tr("Next ▶"), w);
    auto* das = new QPushButton(icon("teach"), tr("DAS case study"), w);
    prev->setFocusPolicy(Qt::NoFocus);
    next->setFocusPolicy(Qt::NoFocus);
    v->addWidget(hbox({prev, next, das}, w));
    m_teachText = new QTextBrowser(w);
    m_teachText->setOpenExternalLinks(false);
    v->addWidget(m_teachText, 1);
    connect(prev, &QPushButton::clicked, this, [this] { setDecision(std::max(0, m_decision - 1)); });
    connect(next, &QPushButton::clicked, this, [this] { setDecision(m_decision + 1); });
    connect(das, &QPushButton::clicked, this, [this] {
        const QString p = QStringLiteral(SS_SAMPLE_DIR "/das-case.scenario.json");
        if (openScenario(p)) {
            m_pendingRun = true;
        }
    });
    m_teachText->setHtml(tr("<p>Open the DAS case study and run it; then step with Next or the → key.</p>"));
    return w;
}

void MainWindow::refreshTeaching()
{
    // The explanation lists the whole queue: laying it out costs more than the rest of a step on big runs,
    // so it is built only while the panel can be seen (and when its text is asked for).
    QDockWidget* dock = m_docks.value(QStringLiteral("teaching"));
    if (dock && !m_teachText->isVisible()) {
        m_teachDirty = true;
        return;
    }
    m_teachDirty = false;
    if (!m_current || !m_current->out->log || m_decision < 0) {
        m_teachText->setHtml(tr("<p>Run the scenario first: teaching mode walks through the decisions of a run.</p>"));
        return;
    }
    m_teachText->setHtml(explainDecision(*m_current->out->log, m_decision, *m_current->trace, *m_current->cluster,
                                         m_current->policy()));
}

QString MainWindow::teachingText() const
{
    if (m_teachDirty) {
        auto* self = const_cast<MainWindow*>(this);
        self->m_teachDirty = false;
        if (!self->m_current || !self->m_current->out->log || m_decision < 0)
            self->m_teachText->setHtml(tr("<p>Run the scenario first: teaching mode walks through the decisions of a run.</p>"));
        else
            self->m_teachText->setHtml(explainDecision(*m_current->out->log, m_decision, *m_current->trace,
                                                       *m_current->cluster, m_current->policy()));
    }
    return m_teachText->toPlainText();
}

// ------------------------------------------------------------------------------------------ runs

bool MainWindow::isBusy() const
{
    return m_loadJob->isRunning() || m_runJob->isRunning() || m_db->isBusy();
}

bool MainWindow::waitForIdle(int ms)
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

bool MainWindow::runScenario()
{
    panelToScenario();
    if (m_loadJob->isRunning()) {
        // The trace is still loading: run as soon as it is there.
        m_pendingRun = true;
        return true;
    }
    if (!m_trace) {
        showError(tr("Run: no trace loaded. Load a trace (File ▸ Load trace) or drop one on the window."));
        return false;
    }
    const QString v = m_clusterDoc->validationMessage();
    if (!v.isEmpty()) {
        showError(tr("Run: the cluster is invalid: %1").arg(v));
        return false;
    }
    if (m_scenario.policies.isEmpty()) {
        showError(tr("Run: tick at least one policy in the Scenario panel."));
        return false;
    }
    try {
        PerfConfig::parse(m_scenario.perf.toStdString());
    } catch (const std::exception& e) {
        showError(tr("Run: perf model '%1': %2").arg(m_scenario.perf, QString::fromUtf8(e.what())));
        return false;
    }
    QVector<quint64> seeds;
    for (int i = 0; i < m_scenario.seeds; ++i)
        seeds << m_scenario.seed + quint64(i);
    clearError();
    startRuns(m_trace, std::make_shared<const ClusterSpec>(m_clusterDoc->spec()), clusterLabelNow(),
              m_scenario.policies, seeds, QString(), [this](QVector<RunPtr> runs) {
                  if (!runs.isEmpty())
                      setCurrentRun(runs.first());
              });
    return true;
}

void MainWindow::startRuns(std::shared_ptr<const Trace> trace, std::shared_ptr<const ClusterSpec> cluster,
                           const QString& clusterLabel, QStringList policies, QVector<quint64> seeds,
                           const QString& namePrefix, std::function<void(QVector<RunPtr>)> done)
{
    RunSpec base;
    base.options.backfill = m_scenario.backfill;
    base.config.perf = PerfConfig::parse(m_scenario.perf.toStdString());
    base.config.recordDecisions = true;
    base.keepDecisionLog = true;
    // Keep memory bounded on big traces: the log keeps the top of the queue only.
    const size_t n = trace->jobs.size();
    base.config.logQueueLimit = n > 20000 ? 32 : n > 2000 ? 200 : 1000;
    const QString scenarioName = m_scenario.name;
    const QString tracePath = trace == m_trace ? m_traceLoadedPath : QString();
    int firstId = m_nextRunId;
    m_nextRunId += int(policies.size() * seeds.size());
    m_runJob->start(tr("Running %1 run(s)…").arg(policies.size() * seeds.size()),
                    [=, this](const BackgroundJob::Progress& progress) -> std::function<void()> {
                        QVector<RunPtr> runs;
                        const int total = int(policies.size() * seeds.size());
                        int i = 0;
                        for (const QString& p : policies)
                            for (quint64 seed : seeds) {
                                RunSpec spec = base;
                                spec.policy = p.toStdString();
                                spec.config.seed = seed;
                                const int at = i;
                                auto out = std::make_shared<RunOutput>(runSimulation(
                                    *cluster, *trace, spec, [&](double f) { return progress((at + f) / total); }));
                                if (out->cancelled)
                                    return {};
                                auto e = std::make_shared<RunEntry>();
                                e->id = firstId + i;
                                e->name = (namePrefix.isEmpty() ? QString() : namePrefix + QStringLiteral(": ")) + p +
                                          QStringLiteral(" seed %1").arg(seed);
                                e->scenario = scenarioName;
                                e->clusterLabel = clusterLabel;
                                e->trace = trace;
                                e->cluster = cluster;
                                e->out = out;
                                prepareGantt(*e);
                                runs << e;
                                ++i;
                            }
                        return [this, runs, done, tracePath] {
                            for (const RunPtr& r : runs) {
                                m_history->addRun(r);
                                m_db->save(r, tracePath); // no-op without a database
                            }
                            double wall = 0;
                            for (const RunPtr& r : runs)
                                wall += r->out->wallSeconds;
                            setStatus(tr("%1 run(s) finished in %2 s").arg(runs.size()).arg(wall, 0, 'f', 2));
                            if (done)
                                done(runs);
                            Q_EMIT runsFinished();
                        };
                    });
}

void MainWindow::openDatabase(const QString& path, bool create)
{
    if (path.isEmpty())
        return;
    clearError();
    settings().setValue(QStringLiteral("db/dir"), QFileInfo(path).absolutePath());
    m_db->open(path, create);
    setStatus(tr("Opening run database %1…").arg(QFileInfo(path).fileName()));
    refreshDatabaseLabel();
}

void MainWindow::closeDatabase()
{
    m_db->close();
    for (int r = m_history->rowCount() - 1; r >= 0; --r)
        if (m_history->run(r)->dbId > 0) {
            if (m_current && m_current->id == m_history->run(r)->id)
                setCurrentRun(nullptr);
            m_history->removeRun(r);
        }
    refreshDatabaseLabel();
}

void MainWindow::onDatabaseOpened(const QString& path, const QVector<RunPtr>& runs, const QString& note)
{
    // The runs of the previous database leave the list; runs kept only in memory are saved into this one.
    for (int r = m_history->rowCount() - 1; r >= 0; --r) {
        const RunPtr run = m_history->run(r);
        if (run->dbId > 0) {
            if (m_current && m_current->id == run->id)
                setCurrentRun(nullptr);
            m_history->removeRun(r);
        }
    }
    for (const RunPtr& run : m_history->allRuns())
        m_db->save(run, run->trace == m_trace ? m_traceLoadedPath : QString());
    for (const RunPtr& run : runs) {
        auto e = std::make_shared<RunEntry>(*run);
        e->id = m_nextRunId++;
        m_history->addRun(e, false); // stored runs join Compare only when ticked
    }
    setStatus(tr("Opened run database %1: %2 stored run(s)").arg(QFileInfo(path).fileName()).arg(runs.size()));
    if (!note.isEmpty())
        showError(note);
    refreshDatabaseLabel();
}

void MainWindow::refreshDatabaseLabel()
{
    if (!m_dbLabel)
        return;
    if (!m_db->isOpen()) {
        m_dbLabel->setText(tr("Runs are kept in memory only. File ▸ New project database (or Open) keeps them on disk."));
        return;
    }
    int stored = 0;
    for (const RunPtr& r : m_history->allRuns())
        stored += r->dbId > 0;
    m_dbLabel->setText(tr("Project database: %1 — %2 stored run(s)%3")
                           .arg(QDir::toNativeSeparators(QFileInfo(m_db->path()).absoluteFilePath()))
                           .arg(stored)
                           .arg(m_db->isBusy() ? tr(" (saving…)") : QString()));
}

void MainWindow::openRun(RunPtr run)
{
    if (!run)
        return;
    setCurrentRun(run);
    if (run->logInDb && m_db->isOpen()) {
        // Show the summary and results now; the stepper and heatmaps follow when the log is in.
        m_openAfterLoad = run->id;
        m_db->loadLog(run);
        setStatus(tr("Loading the decision log of '%1'…").arg(run->name));
    }
}

void MainWindow::showGantt(ss::GanttView* view, const RunEntry& run, ss::GanttRowMode mode)
{
    const int i = mode == ss::GanttRowMode::Gpu ? 0 : 1;
    if (run.gantt[i]) {
        // Rows were built with the run on the worker thread; the view only takes them.
        view->setDecisionLog(nullptr, nullptr);
        view->setRowMode(mode);
        view->setData(*run.gantt[i]);
    } else if (run.out->log) {
        view->setDecisionLog(run.out->log.get(), run.cluster.get());
        view->setRowMode(mode);
    } else {
        view->setData(buildSegmentsFromJobs(run.out->jobs));
    }
}

void MainWindow::refreshRunCombo()
{
    QSignalBlocker b(m_runCombo);
    m_runCombo->clear();
    for (const RunPtr& r : m_history->allRuns())
        m_runCombo->addItem(r->name, r->id);
    if (m_current)
        m_runCombo->setCurrentIndex(m_runCombo->findData(m_current->id));
}

void MainWindow::setCurrentRun(RunPtr run)
{
    m_playButton->setChecked(false);
    m_current = std::move(run);
    m_replayer.reset();
    if (m_current && m_current->out->log)
        m_replayer = std::make_unique<Replayer>(*m_current->out->log);
    refreshRunViews();
}

void MainWindow::refreshRunViews()
{
    refreshRunCombo();
    refreshTraceViews();
    const int n = decisionCount();
    m_slider->setRange(0, std::max(0, n - 1));
    if (!m_current) {
        m_gantt->setData({});
        m_strip->setLog(nullptr);
        refreshClusterViews();
        setDecision(-1);
        return;
    }
    m_clusterMap->setCluster(m_current->cluster.get());
    auto trace = m_current->trace;
    m_clusterMap->setJobLabeler([trace](int j) {
        if (j < 0 || size_t(j) >= trace->jobs.size())
            return QStringLiteral("job #%1").arg(j);
        const Job& job = trace->jobs[size_t(j)];
        QString s = QStringLiteral("job %1").arg(job.id);
        if (job.model >= 0 && size_t(job.model) < trace->models.size())
            s += QStringLiteral(" (%1)").arg(QString::fromStdString(trace->models[size_t(job.model)]));
        return s;
    });
    QStringList machineNames;
    for (const Machine& m : m_current->cluster->machines)
        machineNames << QString::fromStdString(m.name);
    showGantt(m_gantt, *m_current, m_ganttMode->currentIndex() == 0 ? ss::GanttRowMode::Gpu : ss::GanttRowMode::Machine);
    if (m_current->out->log)
        m_strip->setLog(m_current->out->log.get(), machineNames);
    else
        m_strip->setLog(nullptr);
    m_gantt->zoomToFit();
    setDecision(n > 0 ? 0 : -1);
}

// ------------------------------------------------------------------------------------------ selection & views

void MainWindow::selectJob(int job)
{
    if (job == m_selectedJob)
        return;
    m_selectedJob = job;
    m_clusterMap->setSelectedJob(job);
    m_gantt->setSelectedJob(job);
    m_ganttA->setSelectedJob(job);
    m_ganttB->setSelectedJob(job);
    for (ss::HeatmapView* h : {m_priorityMap, m_affinityMap, m_historyMap})
        h->setSelectedJob(job);
    m_strip->setSelectedJob(job);
    // Table: map the job's source row through the proxy without re-emitting into this slot.
    if (m_trace && job >= 0 && job < m_jobModel->rowCount()) {
        const QModelIndex pi = m_jobProxy->mapFromSource(m_jobModel->index(job, 0));
        if (pi.isValid() && m_jobTable->currentIndex().row() != pi.row()) {
            QSignalBlocker b(m_jobTable->selectionModel());
            m_jobTable->selectionModel()->setCurrentIndex(pi, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_jobTable->scrollTo(pi);
            m_jobTable->viewport()->update();
        }
    }
    if (m_trace && job >= 0 && size_t(job) < m_trace->jobs.size())
        setStatus(tr("Selected job %1").arg(m_trace->jobs[size_t(job)].id));
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
    QPalette p = qApp->style()->standardPalette();
    if (dark) {
        p.setColor(QPalette::Window, QColor(45, 47, 51));
        p.setColor(QPalette::WindowText, QColor(225, 228, 232));
        p.setColor(QPalette::Base, QColor(30, 32, 35));
        p.setColor(QPalette::AlternateBase, QColor(40, 42, 46));
        p.setColor(QPalette::Text, QColor(225, 228, 232));
        p.setColor(QPalette::Button, QColor(55, 58, 63));
        p.setColor(QPalette::ButtonText, QColor(225, 228, 232));
        p.setColor(QPalette::Highlight, QColor(53, 116, 212));
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::ToolTipBase, QColor(30, 32, 35));
        p.setColor(QPalette::ToolTipText, QColor(225, 228, 232));
        p.setColor(QPalette::PlaceholderText, QColor(140, 144, 150));
        p.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 120, 120));
        p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 120));
        p.setColor(QPalette::Link, QColor(110, 170, 255));
    }
    qApp->setPalette(p);
    setPalette(p);
    if (m_darkAction) {
        QSignalBlocker b(m_darkAction);
        m_darkAction->setChecked(dark);
    }
    themePlots();
    settings().setValue(QStringLiteral("ui/dark"), dark);
}

void MainWindow::themePlots()
{
    for (QCustomPlot* p : findChildren<QCustomPlot*>()) {
        plots::applyTheme(p, qApp->palette());
        p->replot(QCustomPlot::rpQueuedReplot);
    }
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    m_loadJob->cancel();
    m_runJob->cancel();
    QSettings s = settings();
    s.setValue(QStringLiteral("window/version"), kStateVersion);
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState(kStateVersion));
    QThreadPool::globalInstance()->waitForDone(3000);
    e->accept();
}

} // namespace ss::ui
