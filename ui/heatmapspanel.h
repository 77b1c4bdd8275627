#pragma once
// The Heatmaps dock: priority of the queued jobs, priority over the last decisions, the job x machine
// affinity of the current decision, and the strip of the last four decisions. OASiS runs show the worker servers'
// GPU prices over the coming slots in place of the priority history.
#include <QWidget>

#include "runentry.h"

class QComboBox;

namespace ss {
class DecisionStripView;
class HeatmapView;
} // namespace ss

namespace ss::ui {

class DasHeatmaps;
class ExportMenus;

class HeatmapsPanel : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapsPanel(ExportMenus* exports, QWidget* parent = nullptr);

    /// A run became current (null: none): the strip follows its log.
    void setRun(const RunEntry* run);
    /// The maps at decision `k` of `run` (which has a decision log).
    void showDecision(const RunEntry& run, int k);
    /// The maps (tests): priority, history (OASiS: prices), affinity (Gavel: allocation).
    const ss::HeatmapView* historyMap() const { return m_historyMap; }

public Q_SLOTS:
    void selectJob(int job);

Q_SIGNALS:
    void jobSelected(int job);

private:
    int m_selectedJob = -1;
    QString m_priorityMeaning; ///< the current run's policy: what its priority means (looked up once per run)
    ss::HeatmapView* m_priorityMap = nullptr;
    ss::HeatmapView* m_historyMap = nullptr;
    ss::HeatmapView* m_affinityMap = nullptr;
    ss::DecisionStripView* m_strip = nullptr;
    QComboBox* m_stripContent = nullptr;
    DasHeatmaps* m_das = nullptr; ///< DAS decisions: gate δ and RWGP posterior (dasview.h)
};

} // namespace ss::ui
