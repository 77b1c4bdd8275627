// MainWindow, the scenario part: open, save, new, trace and cluster loading, and what the window knows
// about unsaved changes. A load that fails leaves the scenario exactly as it was.
#include "mainwindow.h"

#include "accelwindow.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QUndoStack>

#include "clusterdocument.h"
#include "columnmapdialog.h"
#include "io/csvpreview.h"
#include "io/traceio.h"
#include "runcontroller.h"
#include "scenariopanel.h"
#include "viewhelpers.h"

namespace ss::ui {

void MainWindow::updateWindowTitle()
{
    const QString name = m_scenarioPanel->scenario().name;
    setWindowTitle(tr("%1[*] — SchedStudio").arg(name.isEmpty() ? tr("untitled") : name));
    setWindowModified(isScenarioModified());
}

bool MainWindow::isScenarioModified() const
{
    return currentScenario().toJson(QStringLiteral("/")) != m_savedScenario;
}

void MainWindow::markScenarioSaved()
{
    m_savedScenario = currentScenario().toJson(QStringLiteral("/"));
    updateWindowTitle();
}

bool MainWindow::confirmDiscard(const QString& action)
{
    if (!isScenarioModified())
        return true;
    const QString name = currentScenario().name;
    const QString question = tr("The scenario \"%1\" has unsaved changes (trace, cluster, policies or settings). "
                                "Save them before %2?").arg(name.isEmpty() ? tr("untitled") : name, action);
    const QMessageBox::StandardButton answer =
        m_unsavedPrompt ? m_unsavedPrompt(question)
                        : QMessageBox::question(this, tr("Unsaved changes"), question,
                                                QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel,
                                                QMessageBox::Save);
    if (answer == QMessageBox::Discard)
        return true;
    if (answer != QMessageBox::Save)
        return false;
    if (scenarioPath().isEmpty())
        saveScenarioAs();
    else
        saveScenario(scenarioPath());
    return !isScenarioModified(); // a failed or cancelled save keeps the window as it is
}

Scenario MainWindow::currentScenario() const
{
    return m_scenarioPanel->scenario();
}

QString MainWindow::scenarioPath() const
{
    return m_scenarioPanel->path();
}

void MainWindow::newScenario()
{
    if (!confirmDiscard(tr("starting a new scenario")))
        return;
    Scenario s;
    s.name = tr("untitled");
    setScenario(s);
}

bool MainWindow::setScenario(const Scenario& s, const QString& path)
{
    // Every problem is found before anything changes: a scenario whose cluster or trace cannot be read is not
    // opened at all (the window keeps the scenario it had), and the banner lists all of its problems.
    const QString where = path.isEmpty() ? s.name : path;
    QStringList problems;
    bool whole = true;
    ClusterSpec cluster;
    try {
        cluster = s.loadClusterSpec(path);
    } catch (const std::exception& e) {
        whole = false;
        problems << QString::fromUtf8(e.what());
    }
    if (!s.tracePath.isEmpty() && !QFileInfo(s.tracePath).isReadable()) {
        whole = false;
        problems << tr("%1: cannot read the trace %2").arg(where, s.tracePath);
    }
    // A policy the scenario names but this build does not have would otherwise just stay unticked.
    const QStringList missing = m_scenarioPanel->missingPolicies(s);
    if (!missing.isEmpty())
        problems << tr("%1: this build has no policy named %2; it is left out of the run (learned policies such as das "
                       "need a build with LibTorch). Pick policies in the Scenario panel.")
                        .arg(where, missing.join(QStringLiteral(", ")));
    if (!whole) {
        showError(tr("%1 was not opened (the scenario stays as it was):\n%2").arg(where, problems.join(QLatin1Char('\n'))));
        return false;
    }
    clearError();
    m_clusterDoc->replace(cluster, QString(), true);
    m_clusterDoc->undoStack()->setClean();
    m_runs->clearTrace();
    refreshTraceView();
    m_scenarioPanel->setScenario(s, path);
    markScenarioSaved();
    if (!problems.isEmpty())
        showError(problems.join(QLatin1Char('\n')));
    if (!s.tracePath.isEmpty())
        loadTrace(s.tracePath);
    return true;
}

AccelWindow* MainWindow::acceleratorWindow()
{
    if (!m_accel) {
        // a top-level window of its own (no parent: it is not a dialog of this one); deleted with this one
        m_accel = new AccelWindow();
        m_accel->setAttribute(Qt::WA_DeleteOnClose, false);
        m_accel->setPalette(palette());
    }
    return m_accel;
}

bool MainWindow::openScenario(const QString& path)
{
    if (AccelWindow::isAcceleratorScenario(path)) {
        AccelWindow* a = acceleratorWindow();
        if (!a->openScenario(path)) {
            showError(a->errorText());
            return false;
        }
        addRecent(QFileInfo(path).absoluteFilePath());
        a->show();
        a->raise();
        a->activateWindow();
        a->runAll();
        setStatus(tr("Opened the accelerator scenario %1 in the accelerator window").arg(QFileInfo(path).fileName()));
        return true;
    }
    try {
        if (!setScenario(Scenario::load(path), QFileInfo(path).absoluteFilePath()))
            return false;
        addRecent(QFileInfo(path).absoluteFilePath());
        return true;
    } catch (const ScenarioError& e) {
        showError(e.text());
        return false;
    }
}

bool MainWindow::saveScenario(const QString& path)
{
    try {
        const Scenario s = currentScenario();
        s.save(path);
        m_scenarioPanel->markSaved(s, QFileInfo(path).absoluteFilePath());
        m_clusterDoc->undoStack()->setClean(); // the cluster as saved is the one the scenario names now
        markScenarioSaved();
        addRecent(scenarioPath());
        setStatus(tr("Saved %1").arg(path));
        return true;
    } catch (const ScenarioError& e) {
        showError(e.text());
        return false;
    }
}

void MainWindow::openScenarioDialog()
{
    if (!confirmDiscard(tr("opening another scenario")))
        return;
    const QString p = QFileDialog::getOpenFileName(this, tr("Open scenario"), QString(),
                                                   tr("Scenarios (*.scenario.json);;JSON (*.json);;All files (*)"));
    if (!p.isEmpty())
        openScenario(p);
}

void MainWindow::saveScenarioAs()
{
    QString p = QFileDialog::getSaveFileName(this, tr("Save scenario"), scenarioPath(), tr("Scenarios (*.scenario.json)"));
    if (p.isEmpty())
        return;
    if (!p.endsWith(QLatin1String(".json")))
        p += QLatin1String(".scenario.json");
    saveScenario(p);
}

void MainWindow::addRecent(const QString& path)
{
    addRecentFile(path);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList r = recentFiles();
    for (const QString& p : r)
        m_recentMenu->addAction(QFileInfo(p).fileName(), this, [this, p] {
            if (confirmDiscard(tr("opening another scenario")))
                openScenario(p);
        })->setToolTip(p);
    m_recentMenu->setEnabled(!r.isEmpty());
}

void MainWindow::loadTrace(const QString& path)
{
    // The scenario names the trace once it is in (traceLoaded, wireRuns); a file that cannot be read leaves the
    // scenario, its Trace field and the loaded trace as they were.
    const bool same = QFileInfo(path).absoluteFilePath() == QFileInfo(m_scenarioPanel->tracePath()).absoluteFilePath()
                      && !m_scenarioPanel->tracePath().isEmpty();
    if (same && !m_scenarioPanel->traceColumns().empty()) { // the scenario's own CSV with its column map
        m_runs->loadTrace(path, QStringLiteral("csv"), m_scenarioPanel->traceColumns(), m_scenarioPanel->traceTimeFormat());
        return;
    }
    const QString format = same ? m_scenarioPanel->traceFormat() : QStringLiteral("auto");
    if (format == QLatin1String("auto") && QFileInfo(path).isFile() && detectTraceFormat(path.toStdString()).empty()
        && mapTraceColumns(path))
        return; // the column-mapping dialog loads it (or leaves everything as it was when cancelled)
    m_runs->loadTrace(path, format);
}

bool MainWindow::mapTraceColumns(const QString& path)
{
    CsvPreview preview;
    try {
        preview = previewCsv(path.toStdString());
    } catch (const std::exception&) {
        return false; // not a CSV at all: the reader's own error says what is wrong
    }
    if (preview.header.size() < 3 || preview.rows.empty())
        return false; // submit, gpus and duration need three columns and a row to preview
    std::map<std::string, std::string> columns;
    QString timeFormat;
    QStringList notes;
    if (!ColumnMapDialog::remembered(path, &columns, &timeFormat)) {
        const ColumnGuess g = guessColumnMap(preview);
        columns = g.columns;
        timeFormat = QString::fromStdString(g.timeFormat);
        for (const std::string& n : g.notes)
            notes << QString::fromStdString(n);
    } else {
        notes << tr("the mapping chosen for this file before");
    }
    auto* dlg = new ColumnMapDialog(preview, columns, timeFormat, notes, this);
    dlg->setAttribute(Qt::WA_DeleteOnClose);
    connect(dlg, &QDialog::accepted, this, [this, dlg, path] {
        ColumnMapDialog::remember(path, dlg->columns(), dlg->timeFormat());
        m_runs->loadTrace(path, QStringLiteral("csv"), dlg->columns(), dlg->timeFormat());
    });
    connect(dlg, &QDialog::rejected, this, [this, path] {
        setStatus(tr("%1 was not loaded: its columns were not mapped").arg(QFileInfo(path).fileName()));
    });
    dlg->open();
    return true;
}

bool MainWindow::loadCluster(const QString& pathOrPreset)
{
    try {
        ClusterSpec spec = readCluster(pathOrPreset.toStdString());
        spec.finalize();
        m_clusterDoc->replace(spec, tr("Load cluster %1").arg(QFileInfo(pathOrPreset).fileName()));
        // Not "(edited)": it is the cluster the scenario names from now on (undoing the load is an edit).
        m_clusterDoc->undoStack()->setClean();
        const bool isFile = QFileInfo::exists(pathOrPreset);
        m_scenarioPanel->setClusterSource(isFile ? QFileInfo(pathOrPreset).absoluteFilePath() : pathOrPreset, isFile);
        setStatus(tr("Cluster %1 loaded").arg(QString::fromStdString(spec.name)));
        return true;
    } catch (const std::exception& e) {
        showError(QString::fromUtf8(e.what()));
        return false;
    }
}

} // namespace ss::ui
