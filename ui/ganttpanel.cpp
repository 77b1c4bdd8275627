#include "ganttpanel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

#include "chronusview.h"
#include "ganttview.h"
#include "oasisslots.h"
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
    m_chronusLegend = new QLabel(w);
    m_chronusLegend->setObjectName(QStringLiteral("ganttChronusLegend"));
    m_chronusLegend->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed); // one line, never widens the dock
    m_chronusLegend->hide();
    v->addWidget(m_chronusLegend);
    m_gantt = new ss::GanttView(w);
    v->addWidget(m_gantt, 1);
    m_oasis = new OasisSlotStrip(m_gantt, w);
    m_oasis->hide();
    v->addWidget(m_oasis);
    connect(m_oasis, &OasisSlotStrip::jobSelected, this, &GanttPanel::jobSelected);
    // the engine's OASiS schedules are rigid; the seed's elastic ones come from the slotted simulator
    m_oasisSlotted = new QPushButton(tr("Elastic workers/PSs: slotted OASiS scenario…"), w);
    m_oasisSlotted->setObjectName(QStringLiteral("oasisSlottedButton"));
    m_oasisSlotted->setToolTip(tr("Run a slotted OASiS scenario (e.g. sample-traces/oasis-ps.json) and show every job's "
                                  "workers y(t) and PSs z(t) per slot"));
    m_oasisSlotted->hide();
    v->addWidget(hbox({m_oasisSlotted}, w));
    connect(m_oasisSlotted, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Slotted OASiS scenario"), QStringLiteral(SS_SAMPLE_DIR),
                                                          tr("OASiS scenarios (oasis*.json);;JSON (*.json)"));
        if (path.isEmpty())
            return;
        try {
            auto* win = new OasisSlottedWindow(path, this);
            win->setAttribute(Qt::WA_DeleteOnClose);
            win->show();
        } catch (const std::exception& e) {
            QMessageBox::warning(this, tr("Slotted OASiS scenario"), QString::fromUtf8(e.what()));
        }
    });
    exports->installPlotExport(m_gantt);
    connect(fit, &QPushButton::clicked, m_gantt, &ss::GanttView::zoomToFit);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this](int i) {
        const ss::GanttRowMode mode = i == 0 ? ss::GanttRowMode::Gpu : ss::GanttRowMode::Machine;
        if (!m_run) {
            m_gantt->setRowMode(mode);
            return;
        }
        const double v0 = m_gantt->viewStart(), v1 = m_gantt->viewEnd();
        if (!showChronusGantt(m_gantt, *m_run, mode))
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
        m_gantt->setPeriodLines(0); // Chronus's overlays
        m_gantt->setMarks({});
        m_chronusLegend->hide();
        m_oasis->setData({});
        m_oasis->hide();
        m_oasisSlotted->hide();
        m_gantt->setData({});
        return;
    }
    const ss::GanttRowMode mode = m_mode->currentIndex() == 0 ? ss::GanttRowMode::Gpu : ss::GanttRowMode::Machine;
    const bool chronus = showChronusGantt(m_gantt, *m_run, mode);
    if (!chronus)
        showRunGantt(m_gantt, *m_run, mode);
    m_chronusLegend->setVisible(chronus);
    if (chronus)
        m_chronusLegend->setText(tr("Chronus: dashed = lease boundary (every %1 min) · solid = guaranteed · hatched = "
                                    "opportunistic · ▼ deadline (hollow: later level; red: missed)")
                                     .arg(chronusLeaseSeconds(*m_run->out) / 60.0, 0, 'g', 4));
    OasisSlotsData slots = oasisSlotsOf(*m_run);
    m_oasis->setVisible(!slots.jobs.empty());
    m_oasisSlotted->setVisible(!slots.jobs.empty());
    m_oasis->setData(std::move(slots));
    m_gantt->zoomToFit();
}

void GanttPanel::setCursorTime(double t)
{
    m_gantt->setCursorTime(t);
    if (m_oasis->isVisible())
        m_oasis->update();
}

void GanttPanel::selectJob(int job)
{
    m_gantt->setSelectedJob(job);
    m_oasis->setSelectedJob(job);
}

} // namespace ss::ui
