#pragma once
// The cluster being edited in the topology editor, with an undo stack. Every command names machines,
// switches and links by index (never by pointer) and stores exactly what it needs to restore the spec.
#include <QObject>
#include <QString>
#include <QUndoCommand>
#include <QUndoStack>

#include <functional>
#include <vector>

#include "model/clusterspec.h"

namespace ss::ui {

class ClusterDocument : public QObject {
    Q_OBJECT
public:
    explicit ClusterDocument(QObject* parent = nullptr);
    /// Its undo stack, destroyed with it, would announce "clean" once more to listeners that may be going too.
    ~ClusterDocument() override;

    const ClusterSpec& spec() const { return m_spec; }
    QUndoStack* undoStack() { return &m_undo; }
    /// Empty when the cluster is valid, else the first problem (shown inline in the editor).
    QString validationMessage() const { return m_validation; }

    /// Replace the whole cluster (load preset/file) as one undoable step; `clearUndo` for a fresh document.
    void replace(const ClusterSpec& spec, const QString& what, bool clearUndo = false);

    // Editing operations, each one undoable command.
    void addMachines(int count, int type, int gpus, int sw);
    void removeMachines(std::vector<int> indices);
    void duplicateMachines(std::vector<int> indices);
    void setMachinesType(const std::vector<int>& indices, int type);
    void setMachinesGpus(const std::vector<int>& indices, int gpus);
    void setMachinesSwitch(const std::vector<int>& indices, int sw);
    void renameMachine(int index, const QString& name);
    void addSwitch(const QString& name, double uplinkGbps);
    /// Fails (returns false, sets validation message) when machines still hang off the switch.
    bool removeSwitch(int index);
    void duplicateSwitch(int index); ///< the switch and all its machines
    void addLink(int a, int b, double gbps);
    void removeLink(int index);
    void setLinkBandwidth(int index, double gbps);
    void addGpuType(const GpuType& type);
    /// The index of GPU type `name` in the cluster, adding it from the catalogue (gpuTypeCatalog) as an undoable
    /// step when the cluster lacks it; -1 when the name is neither.
    int ensureGpuType(const QString& name);

    // Used by the commands; not for direct use (no undo entry).
    ClusterSpec& mutableSpec() { return m_spec; }
    void changed();

Q_SIGNALS:
    void clusterChanged();
    void validationChanged(const QString& message);

private:
    ClusterSpec m_spec;
    QUndoStack m_undo;
    QString m_validation;
};

/// Generic command: applies `redo`/`undo` functions on the document's spec. The functions capture only
/// indices and values.
class ClusterCommand : public QUndoCommand {
public:
    using Fn = std::function<void(ClusterSpec&)>;
    ClusterCommand(ClusterDocument* doc, const QString& text, Fn redo, Fn undo);
    void redo() override;
    void undo() override;
private:
    ClusterDocument* m_doc;
    Fn m_redo, m_undo;
};

} // namespace ss::ui
