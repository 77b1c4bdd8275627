#pragma once
// The cluster topology as a graph: switches on top, their machines below, switch-to-switch links labelled
// with bandwidth. Items are selectable (rubber band, ctrl+click); edits are requested through signals and
// applied by the controller (undo commands live in ui/), which then calls setCluster() again.
#include <QGraphicsView>
#include <QList>

#include "model/clusterspec.h"

class QGraphicsScene;
class QGraphicsItem;

namespace ss {

class TopologyEditorView : public QGraphicsView {
    Q_OBJECT
public:
    explicit TopologyEditorView(QWidget* parent = nullptr);
    ~TopologyEditorView() override;

    /// Rebuilds the scene from the spec (copied). Keeps the selection of ids that still exist.
    void setCluster(const ss::ClusterSpec& cluster);
    QList<int> selectedMachines() const;
    QList<int> selectedSwitches() const;
    void selectIds(const QList<int>& machines, const QList<int>& switches);
    /// Scene items, for tests and for the controller to centre on (nullptr if out of range).
    QGraphicsItem* machineItem(int m) const;
    QGraphicsItem* switchItem(int s) const;
    int linkCount() const { return m_linkCount; }
    /// Fit the whole topology into the view (never magnified beyond 1.5x); resumes fitting on resize.
    void fitAll();

public Q_SLOTS:
    /// Emits requestConnect when exactly two switches are selected.
    void connectSelectedSwitches();

Q_SIGNALS:
    void selectionChangedIds(QList<int> machines, QList<int> switches);
    /// The user shift-dragged from one switch to another (or used connectSelectedSwitches()).
    void requestConnect(int swA, int swB);
    void machineDoubleClicked(int machine);
    void switchDoubleClicked(int sw);
    /// Delete/Backspace with items selected.
    void requestDelete(QList<int> machines, QList<int> switches);

protected:
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void resizeEvent(QResizeEvent*) override;

private:
    QGraphicsScene* m_scene;
    ss::ClusterSpec m_cluster;
    std::vector<QGraphicsItem*> m_machineItems, m_switchItems;
    int m_linkCount = 0;
    bool m_rebuilding = false;
    bool m_autoFit = true; // fit the scene to the view until the user zooms
    int m_connectFrom = -1;
    QGraphicsItem* m_rubberLine = nullptr;
    void onSceneSelectionChanged();
    int switchAt(const QPoint& viewPos) const;
};

} // namespace ss
