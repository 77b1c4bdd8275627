#pragma once
// The Cluster map dock: who holds each GPU at the current decision, machines shaded by the affinity of
// the job placed there (optional), and a line on the decision.
#include <QWidget>

#include "runentry.h"
#include "sim/decisionlog.h"

class QCheckBox;
class QLabel;

namespace ss {
class ClusterMapView;
}

namespace ss::ui {

class ExportMenus;

class ClusterPanel : public QWidget {
    Q_OBJECT
public:
    explicit ClusterPanel(ExportMenus* exports, QWidget* parent = nullptr);

    ss::ClusterMapView* map() const { return m_map; }
    /// No run: the cluster as edited, empty.
    void showIdleCluster(const ClusterSpec* spec);
    /// A run became current: its cluster and job names.
    void setRun(const RunEntry& run);
    /// The cluster at decision `k` of `run` (replayer already at k).
    void showDecision(const RunEntry& run, const Replayer& replayer, int k);

public Q_SLOTS:
    void selectJob(int job);

Q_SIGNALS:
    void jobSelected(int job);
    void overlayToggled(); ///< the affinity shading was switched: redraw the current decision

private:
    ss::ClusterMapView* m_map = nullptr;
    QLabel* m_info = nullptr;
    QCheckBox* m_affinityOverlay = nullptr;
};

} // namespace ss::ui
