#include "tracepanel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "models.h"
#include "plothelpers.h"
#include "qcp.h"
#include "viewhelpers.h"

namespace ss::ui {

TracePanel::TracePanel(ExportMenus* exports, QWidget* parent) : QWidget(parent)
{
    auto* w = this;
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
    m_jobTable->setObjectName(QStringLiteral("traceJobs"));
    m_jobTable->setModel(m_jobProxy);
    m_jobTable->setSortingEnabled(true);
    m_jobTable->sortByColumn(JobTableModel::Submit, Qt::AscendingOrder);
    m_jobTable->horizontalHeader()->setDefaultSectionSize(82);
    exports->installTableExport(m_jobTable, exports->scenario());
    connect(m_jobTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& cur) {
                if (cur.isValid())
                    Q_EMIT jobSelected(cur.data(JobIndexRole).toInt());
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
        exports->installPlotExport(p, p, exports->scenario());
    }
    split->addWidget(plots);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    v->addWidget(split, 1);
}

void TracePanel::setTrace(std::shared_ptr<const Trace> trace, std::shared_ptr<const RunOutput> run)
{
    m_trace = std::move(trace);
    m_jobModel->setTrace(m_trace, run);
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
    themePlotsUnder(this);
}

void TracePanel::selectJob(int job)
{
    // Map the job's source row through the proxy without re-emitting jobSelected.
    if (m_trace && job >= 0 && job < m_jobModel->rowCount()) {
        const QModelIndex pi = m_jobProxy->mapFromSource(m_jobModel->index(job, 0));
        if (pi.isValid() && m_jobTable->currentIndex().row() != pi.row()) {
            QSignalBlocker b(m_jobTable->selectionModel());
            m_jobTable->selectionModel()->setCurrentIndex(pi, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_jobTable->scrollTo(pi);
            m_jobTable->viewport()->update();
        }
    }
}

} // namespace ss::ui
