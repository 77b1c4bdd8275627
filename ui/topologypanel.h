#pragma once
// The Topology editor dock: the switch/machine graph and the machine and link tables over the
// ClusterDocument (every edit is an undoable command there), a toolbar to add, duplicate, remove, retype
// and connect, and the validation line.
#include <QStringList>
#include <QWidget>

#include <vector>

#include "model/clusterspec.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QTableView;

namespace ss {
class TopologyEditorView;
}

namespace ss::ui {

class ClusterDocument;
class ExportMenus;
class LinkTableModel;
class MachineTableModel;

/// GPU types the editor offers: the cluster's, then the catalogue's (gpuTypeCatalog) it lacks.
QStringList gpuTypeChoices(const ClusterSpec& spec);

class TopologyPanel : public QWidget {
    Q_OBJECT
public:
    TopologyPanel(ClusterDocument* doc, ExportMenus* exports, QWidget* parent = nullptr);

public Q_SLOTS:
    /// Redraws the graph, the validation line and the GPU-type list from the document.
    void refresh();

Q_SIGNALS:
    /// A preset or a file was picked: the window loads it (and records it in the scenario).
    void loadClusterRequested(const QString& pathOrPreset);
    void error(const QString& message);

private:
    std::vector<int> selectedMachineRows() const;
    int firstSelectedSwitch() const;

    ClusterDocument* m_doc;
    ss::TopologyEditorView* m_topology = nullptr;
    MachineTableModel* m_machineModel = nullptr;
    LinkTableModel* m_linkModel = nullptr;
    QTableView* m_machineTable = nullptr;
    QLabel* m_validationLabel = nullptr;
    QComboBox* m_typeCombo = nullptr;
    QSpinBox* m_gpuCountSpin = nullptr;
    QSpinBox* m_addCountSpin = nullptr;
    QDoubleSpinBox* m_linkGbpsSpin = nullptr;
    QComboBox* m_presetCombo = nullptr;
};

} // namespace ss::ui
