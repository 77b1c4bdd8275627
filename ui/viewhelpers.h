#pragma once
// Small pieces every dock shares: widget factories with the studio's look, the Gantt hand-over of a run,
// and ExportMenus, the right-click export (PNG/SVG/PDF, CSV, copy) that every plot and table offers.
#include <QObject>
#include <QSettings>
#include <QString>
#include <QStringList>

#include <functional>
#include <initializer_list>

#include "runentry.h"

class QCustomPlot;
class QIcon;
class QPalette;
class QTableView;
class QWidget;

namespace ss {
class GanttView;
enum class GanttRowMode;
} // namespace ss

namespace ss::ui {

QIcon icon(const char* name);                                               ///< :/icons/<name>.svg
QWidget* hbox(std::initializer_list<QWidget*> ws, QWidget* parent = nullptr); ///< a row, stretch at the end
QCustomPlot* makePlot(QWidget* parent);
QTableView* makeTable(QWidget* parent);
QSettings studioSettings();
/// Recently opened scenarios, newest first (at most ten).
QStringList recentFiles();
void addRecentFile(const QString& path);
/// The Fusion palette of the light or the dark theme.
QPalette studioPalette(bool dark);
/// Re-applies the palette's plot colours to every QCustomPlot under `root` (queued replot).
void themePlotsUnder(QObject* root);
/// Shows `run` in `view` with `mode` rows: the rows built on the worker thread when there, else from the
/// decision log, else from the job records.
void showRunGantt(ss::GanttView* view, const RunEntry& run, ss::GanttRowMode mode);

/// The export context menus of plots and tables. Captions (scenario, policy, seed) come from `caption`;
/// failures and successes are reported through the signals, so the window decides how to show them.
class ExportMenus : public QObject {
    Q_OBJECT
public:
    explicit ExportMenus(QObject* parent = nullptr);
    std::function<QString()> caption;
    /// Right-click on `w` exports it (or `plot`, drawn at full resolution, when given) as PNG/SVG/PDF.
    void installPlotExport(QWidget* w, QCustomPlot* plot = nullptr);
    /// Ctrl+C copies the selected cells; right-click offers copy and CSV export.
    void installTableExport(QTableView* view);

Q_SIGNALS:
    void error(const QString& message);
    void status(const QString& message);

private:
    QString captionNow() const { return caption ? caption() : QString(); }
};

} // namespace ss::ui
