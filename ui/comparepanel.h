#pragma once
// The Compare dock: the runs ticked in Run history side by side: the metrics table (grouped by everything but
// the seed, ± over seeds), JCT CDFs (log-x optional, for long tails), bars with error bars, and two Gantt charts
// on one time axis (two different runs by default).
#include <QVector>
#include <QWidget>

#include "runentry.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QTableView;

namespace ss {
class GanttView;
}

namespace ss::ui {

class CompareModel;
class ExportMenus;

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparePanel(ExportMenus* exports, QWidget* parent = nullptr);

public Q_SLOTS:
    void setRuns(const QVector<ss::ui::RunPtr>& runs);
    void selectJob(int job);

Q_SIGNALS:
    void jobSelected(int job);

private:
    void refresh();
    void refreshGantts();
    RunPtr runFor(const QComboBox* c) const; ///< the run a Gantt pane's list has chosen

public:
    /// The caption an export of `view` (one of this panel's) gets: the runs it shows.
    QString captionOf(const QWidget* view) const;

private:
    ExportMenus* m_exports = nullptr;

    QVector<RunPtr> m_runs;
    CompareModel* m_model = nullptr;
    QTableView* m_table = nullptr;
    QCustomPlot* m_cdfPlot = nullptr;
    QCustomPlot* m_barPlot = nullptr;
    QComboBox* m_barMetric = nullptr;
    QCheckBox* m_cdfLogX = nullptr;
    QComboBox* m_ganttACombo = nullptr;
    QComboBox* m_ganttBCombo = nullptr;
    ss::GanttView* m_ganttA = nullptr;
    ss::GanttView* m_ganttB = nullptr;
};

} // namespace ss::ui
