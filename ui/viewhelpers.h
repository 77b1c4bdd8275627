#pragma once
// Small pieces every dock shares: widget factories with the studio's look, the Gantt hand-over of a run,
// and ExportMenus, the right-click export (PNG/SVG/PDF, CSV, copy) that every plot and table offers.
#include <QHash>
#include <QObject>
#include <QVector>
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

/// "1 run", "2 runs": a count with its noun in the right number (the studio ships no translations, so Qt's
/// "%n run(s)" would stay "(s)").
QString countOf(qsizetype n, const QString& one, const QString& many);
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

/// What made a run, in one line: "name — policy P · seed S · trace T · cluster C · perf X · run <id>".
QString runProvenance(const RunEntry& run);
/// One runProvenance() line per run (at most `limit`, then "… and N more").
QString runsProvenance(const QVector<RunPtr>& runs, int limit = 12);

/// The export context menus of plots and tables. An export's caption (the image footer, the CSV's "# " header)
/// says what the view shows: by default the run in the stepper (`caption`), or the view's own (the runs a
/// Compare view shows, the scenario's trace and cluster). Failures and successes are reported through the
/// signals, so the window decides how to show them.
class ExportMenus : public QObject {
    Q_OBJECT
public:
    using Caption = std::function<QString()>;
    explicit ExportMenus(QObject* parent = nullptr);
    Caption caption;         ///< the run the stepper shows (the default)
    Caption scenarioCaption; ///< the scenario being edited: its trace and cluster
    /// Right-click on `w` exports it (or `plot`, drawn at full resolution, when given) as PNG/SVG/PDF, with
    /// `viewCaption` as its footer (default: `caption`).
    void installPlotExport(QWidget* w, QCustomPlot* plot = nullptr, Caption viewCaption = {});
    /// Ctrl+C copies the selected cells; right-click offers copy and CSV export (`viewCaption` as its header).
    void installTableExport(QTableView* view, Caption viewCaption = {});
    /// The caption an export of `w` gets now.
    QString captionFor(const QWidget* w) const;
    /// A Caption that calls `scenarioCaption` when asked.
    Caption scenario() const;

Q_SIGNALS:
    void error(const QString& message);
    void status(const QString& message);

private:
    void remember(QWidget* w, Caption c);
    QHash<const QWidget*, Caption> m_captions;
};

} // namespace ss::ui
