#include "heatmapspanel.h"

#include <QComboBox>
#include <QGridLayout>

#include <algorithm>

#include "chronusview.h"
#include "dasview.h"
#include "heatmapview.h"
#include "models.h"
#include "oasisview.h"
#include "viewhelpers.h"

namespace ss::ui {

static QStringList machineNamesOf(const RunEntry& run)
{
    QStringList names;
    for (const Machine& m : run.cluster->machines)
        names << QString::fromStdString(m.name);
    return names;
}

HeatmapsPanel::HeatmapsPanel(ExportMenus* exports, QWidget* parent) : QWidget(parent)
{
    auto* w = this;
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
    g->addWidget(m_priorityMap, 0, 0, 1, 3);
    g->addWidget(m_historyMap, 1, 0);
    g->addWidget(m_affinityMap, 1, 1);
    m_das = new DasHeatmaps(exports, w); // DAS: gate row and RWGP posterior beside the affinity (hidden otherwise)
    g->addWidget(m_das, 1, 2);
    connect(m_das, &DasHeatmaps::jobSelected, this, &HeatmapsPanel::jobSelected);
    g->addWidget(m_stripContent, 2, 0, 1, 3, Qt::AlignLeft);
    g->addWidget(m_strip, 3, 0, 1, 3);
    g->setRowStretch(0, 1);
    g->setRowStretch(1, 3);
    g->setRowStretch(3, 2);
    for (ss::HeatmapView* h : {m_priorityMap, m_historyMap, m_affinityMap}) {
        connect(h, &ss::HeatmapView::jobSelected, this, &HeatmapsPanel::jobSelected);
        exports->installPlotExport(h);
    }
    exports->installPlotExport(m_strip);
    connect(m_strip, &ss::DecisionStripView::jobSelected, this, &HeatmapsPanel::jobSelected);
}

void HeatmapsPanel::setRun(const RunEntry* run)
{
    m_priorityMeaning = run ? priorityMeaning(run->policy()) : QString();
    if (run && run->out->log)
        m_strip->setLog(run->out->log.get(), machineNamesOf(*run), run->trace.get());
    else
        m_strip->setLog(nullptr);
}

void HeatmapsPanel::showDecision(const RunEntry& run, int k)
{
    const DecisionLog& log = *run.out->log;
    const DecisionRecord& r = log.records[size_t(k)];
    HeatmapData pri = priorityMatrix(r, run.trace.get()); // jobs by trace id, as the stepper names them
    pri.title = tr("Priority of queued jobs at decision %1 (highest first)").arg(k + 1);
    if (!m_priorityMeaning.isEmpty())
        pri.title += QStringLiteral(" · ") + m_priorityMeaning;
    m_priorityMap->setData(pri);
    const bool oasis = isOasisPolicy(run.policy());
    const bool chronus = isChronusPolicy(run.policy());
    if (!r.allocation.empty() && !oasis && !chronus) {
        // round-based policies (Gavel): the allocation X behind the round's priorities, in place of the
        // affinity (which only marks the machines of the chosen type)
        HeatmapData x = allocationMatrix(r, 400, run.trace.get());
        x.title = tr("Allocation X: job × GPU type, share of time, at decision %1 (* = estimated throughputs)").arg(k + 1);
        m_affinityMap->setData(x);
        m_affinityMap->setColorRange(0.0f, 1.0f);
    } else {
        HeatmapData aff = affinityMatrix(r, log.machineCount, machineNamesOf(run), run.trace.get());
        aff.title = tr("Affinity: job × machine at decision %1").arg(k + 1);
        m_affinityMap->setData(aff);
        m_affinityMap->setAutoColorRange();
    }
    if (chronus) {
        // Chronus: in place of the priority history, the lease plan of the last boundary at or before k
        const int at = chronusPlanDecision(log, k);
        HeatmapData p = at >= 0 ? chronusPlanMatrix(log.records[size_t(at)], run.trace.get()) : HeatmapData {};
        p.title = at >= 0 ? tr("Chronus plan of decision %1: SLO job × lease, 1 = guaranteed (g GPUs, L level)").arg(at + 1)
                          : tr("Chronus plan: no accepted SLO job planned yet");
        m_historyMap->setData(p);
        m_historyMap->setColorRange(0.0f, 1.0f);
    } else if (oasis) {
        // OASiS: in place of the priority history, the GPU prices of the worker servers over the coming slots as the
        // last admission at or before k left them (the policy records them at each decision that offered a job)
        int at = k;
        while (at >= 0 && log.records[size_t(at)].allocation.empty())
            --at;
        HeatmapData p = at >= 0 ? oasisPriceMatrix(log.records[size_t(at)], machineNamesOf(run)) : HeatmapData {};
        p.title = at >= 0 ? tr("OASiS GPU price, log10 p_h(t): server × slot after decision %1's admissions").arg(at + 1)
                          : tr("OASiS GPU prices: no job offered yet");
        m_historyMap->setData(p);
        m_historyMap->setAutoColorRange();
    } else {
        HeatmapData hist = priorityHistory(log, std::max(0, k - 39), k, 60, run.trace.get());
        hist.title = tr("Priority over decisions %1–%2 (rows: jobs)").arg(std::max(0, k - 39) + 1).arg(k + 1);
        m_historyMap->setData(hist);
        m_historyMap->setAutoColorRange();
    }
    m_das->showDecision(run, k);
    m_das->selectJob(m_selectedJob);
    m_strip->setCurrentDecision(k);
    for (ss::HeatmapView* h : {m_priorityMap, m_affinityMap, m_historyMap})
        h->setSelectedJob(m_selectedJob);
}

void HeatmapsPanel::selectJob(int job)
{
    m_selectedJob = job;
    for (ss::HeatmapView* h : {m_priorityMap, m_affinityMap, m_historyMap})
        h->setSelectedJob(job);
    m_strip->setSelectedJob(job);
    m_das->selectJob(job);
}

} // namespace ss::ui
