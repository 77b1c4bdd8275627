#include "ganttpanel.h"

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "ganttview.h"
#include "viewhelpers.h"

namespace ss::ui {

GanttPanel::GanttPanel(ExportMenus* exports, QWidget* parent) : QWidget(parent)
{
    auto* w = this;
    auto* v = new QVBoxLayout(w);
    m_mode = new QComboBox(w);
    m_mode->addItem(tr("One row per GPU"));
    m_mode->addItem(tr("One row per machine"));
    auto* fit = new QPushButton(tr("Zoom to fit"), w);
    auto* hint = new QLabel(tr("Wheel: zoom · drag: pan · click: select job"), w);
    v->addWidget(hbox({m_mode, fit, hint}, w));
    m_gantt = new ss::GanttView(w);
    v->addWidget(m_gantt, 1);
    exports->installPlotExport(m_gantt);
    connect(fit, &QPushButton::clicked, m_gantt, &ss::GanttView::zoomToFit);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this](int i) {
        const ss::GanttRowMode mode = i == 0 ? ss::GanttRowMode::Gpu : ss::GanttRowMode::Machine;
        if (!m_run) {
            m_gantt->setRowMode(mode);
            return;
        }
        const double v0 = m_gantt->viewStart(), v1 = m_gantt->viewEnd();
        showRunGantt(m_gantt, *m_run, mode);
        m_gantt->setViewRange(v0, v1); // switching rows keeps the time window
    });
    connect(m_gantt, &ss::GanttView::jobSelected, this, &GanttPanel::jobSelected);
    connect(m_gantt, &ss::GanttView::timeClicked, this, &GanttPanel::timeClicked);
}

void GanttPanel::setRun(RunPtr run)
{
    m_run = std::move(run);
    if (!m_run) {
        m_gantt->setData({});
        return;
    }
    showRunGantt(m_gantt, *m_run, m_mode->currentIndex() == 0 ? ss::GanttRowMode::Gpu : ss::GanttRowMode::Machine);
    m_gantt->zoomToFit();
}

void GanttPanel::setCursorTime(double t)
{
    m_gantt->setCursorTime(t);
}

void GanttPanel::selectJob(int job)
{
    m_gantt->setSelectedJob(job);
}

} // namespace ss::ui
