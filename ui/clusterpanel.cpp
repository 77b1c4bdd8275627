#include "clusterpanel.h"

#include <QCheckBox>
#include <QLabel>
#include <QVBoxLayout>

#include "clustermapview.h"
#include "models.h"
#include "viewhelpers.h"

namespace ss::ui {

ClusterPanel::ClusterPanel(ExportMenus* exports, QWidget* parent) : QWidget(parent)
{
    auto* w = this;
    auto* v = new QVBoxLayout(w);
    m_info = new QLabel(w);
    m_info->setObjectName(QStringLiteral("clusterInfo"));
    m_affinityOverlay = new QCheckBox(tr("Shade machines by affinity of the job placed"), w);
    m_affinityOverlay->setChecked(true);
    v->addWidget(hbox({m_info, m_affinityOverlay}, w));
    m_map = new ss::ClusterMapView(w);
    v->addWidget(m_map, 1);
    exports->installPlotExport(m_map);
    connect(m_map, &ss::ClusterMapView::jobSelected, this, &ClusterPanel::jobSelected);
    connect(m_affinityOverlay, &QCheckBox::toggled, this, &ClusterPanel::overlayToggled);
}

void ClusterPanel::showIdleCluster(const ClusterSpec* spec)
{
    m_map->setCluster(spec);
    m_map->setOccupancy({});
    m_info->setText(tr("%1 — no run yet: run the scenario to see who holds each GPU")
                        .arg(QString::fromStdString(spec->name)));
}

void ClusterPanel::setRun(const RunEntry& run)
{
    m_map->setCluster(run.cluster.get());
    auto trace = run.trace;
    m_map->setJobLabeler([trace](int j) {
        if (j < 0 || size_t(j) >= trace->jobs.size())
            return QStringLiteral("job #%1").arg(j);
        const Job& job = trace->jobs[size_t(j)];
        QString s = QStringLiteral("job %1").arg(job.id);
        if (job.model >= 0 && size_t(job.model) < trace->models.size())
            s += QStringLiteral(" (%1)").arg(QString::fromStdString(trace->models[size_t(job.model)]));
        return s;
    });
}

void ClusterPanel::showDecision(const RunEntry& run, const Replayer& replayer, int k)
{
    const DecisionLog& log = *run.out->log;
    const DecisionRecord& r = log.records[size_t(k)];
    m_map->setOccupancy(replayer.holders());
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
    m_map->setMachineScores(scores);
    const int running = int(replayer.runningJobs().size());
    m_info->setText(tr("%1 · decision %2/%3 · t = %4 · %5 · %6 queued")
                        .arg(run.name).arg(k + 1).arg(log.records.size()).arg(formatDuration(r.time))
                        .arg(running == 1 ? tr("1 job running") : tr("%1 jobs running").arg(running))
                        .arg(r.queueLength));
}

void ClusterPanel::selectJob(int job)
{
    m_map->setSelectedJob(job);
}

} // namespace ss::ui
