#pragma once
// The Scenario dock: name, trace, cluster (label), perf model, policies, seeds and backfill of the
// scenario being edited, and the Run button. It holds the scenario as last set and edited; the cluster
// itself lives in the ClusterDocument, which scenario() writes inline once edited.
#include <QWidget>

#include "policy/registry.h"
#include "scenario.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace ss::ui {

class ClusterDocument;

class ScenarioPanel : public QWidget {
    Q_OBJECT
public:
    explicit ScenarioPanel(ClusterDocument* cluster, QWidget* parent = nullptr);

    /// Shows `s` (read from `path`, empty when new).
    void setScenario(const Scenario& s, const QString& path);
    /// The scenario as edited in the panel (and the cluster inline when edited in the topology editor).
    Scenario scenario() const;
    QString path() const { return m_path; }
    void setPath(const QString& path) { m_path = path; }
    /// `s` (as scenario() returned it) was saved to `path`: it becomes the scenario the panel edits.
    void markSaved(const Scenario& s, const QString& path);
    void setTracePath(const QString& path);
    /// The trace the scenario names from now on and how to read it (format, column map and time format for a
    /// CSV no reader recognises; empty map = the format's own columns).
    void setTraceInput(const QString& path, const QString& format, const std::map<std::string, std::string>& columns,
                       const QString& timeFormat);
    const std::map<std::string, std::string>& traceColumns() const { return m_scenario.core.traceColumns; }
    QString traceTimeFormat() const { return QString::fromStdString(m_scenario.core.traceTimeFormat); }
    QString tracePath() const { return m_scenario.tracePath; }
    QString traceFormat() const { return m_scenario.traceFormat; }
    void setClusterSource(const QString& pathOrPreset, bool isFile);
    bool hasPolicy(const QString& name) const;
    QStringList missingPolicies(const Scenario& s) const; ///< policies of `s` this build does not have
    /// "name — N machines, M GPUs" plus " (edited)" when the topology editor changed it.
    QString clusterLabel() const;
    /// The policy count beside the list, e.g. "Policies\n2 of 52 ticked".
    QString tickedCountText() const;

public Q_SLOTS:
    void refreshClusterLabel();

Q_SIGNALS:
    void traceChosen(const QString& path);
    void runRequested();
    /// A field, the trace or the cluster source changed (also when set programmatically).
    void edited();

private:
    void fieldEdited(); ///< edited(), unless setScenario() is filling the fields
    /// Fills the policy list: `first` (ticked, in that order) under "In this scenario", then every other
    /// policy unticked under its heading.
    void rebuildPolicyList(const QStringList& first);
    void refreshPolicyCount();
    std::vector<PolicyInfo> m_catalog;
    QLabel* m_policyCountLabel = nullptr;
    ClusterDocument* m_clusterDoc;
    bool m_filling = false;
    mutable Scenario m_scenario;
    QString m_path;
    QLineEdit* m_nameEdit = nullptr;
    QLineEdit* m_traceEdit = nullptr;
    QLabel* m_clusterLabel = nullptr;
    QLineEdit* m_perfEdit = nullptr;
    QListWidget* m_policyList = nullptr;
    QLineEdit* m_policyFilter = nullptr;
    QSpinBox* m_seedSpin = nullptr;
    QSpinBox* m_seedsSpin = nullptr;
    QCheckBox* m_backfillCheck = nullptr;
};

} // namespace ss::ui
