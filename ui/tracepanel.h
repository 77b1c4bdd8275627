#pragma once
// The Trace dock: the searchable job table (with the current run's results when it ran on this trace) and
// the arrivals, GPU-demand and duration plots.
#include <QWidget>

#include <memory>

#include "model/job.h"
#include "run/runner.h"

class QCustomPlot;
class QLabel;
class QTableView;

namespace ss::ui {

class ExportMenus;
class JobFilterProxy;
class JobTableModel;

class TracePanel : public QWidget {
    Q_OBJECT
public:
    explicit TracePanel(ExportMenus* exports, QWidget* parent = nullptr);

    /// Shows `trace`, with `run`'s results in the table (may be null). Plots are redrawn only when the
    /// trace changes (costly on 100k jobs).
    void setTrace(std::shared_ptr<const Trace> trace, std::shared_ptr<const RunOutput> run);

public Q_SLOTS:
    void selectJob(int job); ///< makes the job's row current without emitting jobSelected

Q_SIGNALS:
    void jobSelected(int job);

private:
    std::shared_ptr<const Trace> m_trace;
    std::shared_ptr<const Trace> m_plottedTrace;
    JobTableModel* m_jobModel = nullptr;
    JobFilterProxy* m_jobProxy = nullptr;
    QTableView* m_jobTable = nullptr;
    QLabel* m_traceInfo = nullptr;
    QCustomPlot* m_arrivalsPlot = nullptr;
    QCustomPlot* m_demandPlot = nullptr;
    QCustomPlot* m_durationPlot = nullptr;
};

} // namespace ss::ui
