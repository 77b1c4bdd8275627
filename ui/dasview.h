#pragma once
// DAS (policies das, da, da+mc, da+rwgp) inside one learned decision, in the studio (issue 26): the communication
// gate δ of each queued job (a column of the stepper's queue and a heatmap row) and the RWGP posterior per machine,
// the mean and the variance of the machine's performance deviation (observed / predicted speed − 1, the seed case
// study's "potential contention"), beside the affinity rows. No other tool shows these. The policy logs δ in
// ScoredJob::gate and the posterior in PlacementRecord::rwgpMean / rwgpVar (core/learn/das.cpp); logs written
// before them show neither. The critic's value inside the decision (log version 6): with DAS's Q-critic the Q of each
// job that could start as the ordering action (ScoredJob::critic) and of each machine as the placement action
// (PlacementRecord::critic), a stepper column and two heatmap rows; with the V-critic only V(s)
// (DecisionRecord::criticKind/criticValue), which cannot rank alternatives: the views say so.
#include <QAbstractTableModel>
#include <QLabel>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>

#include "heatmapview.h"
#include "model/clusterspec.h"
#include "model/job.h"
#include "sim/decisionlog.h"

namespace ss::ui {

class ExportMenus;
struct RunEntry;

/// Whether some queued job of `r` carries a gate δ (DAS and DA+MC).
bool hasDasGate(const DecisionRecord& r);
/// Whether some placement of `r` carries an RWGP posterior (DAS and DA+RWGP).
bool hasRwgpPosterior(const DecisionRecord& r);

/// Whether `r` carries a learned critic's value (DAS: 'q' or 'v').
bool hasCritic(const DecisionRecord& r);
/// Q of each queued job as the ordering action: one row over the queue in priority order (NaN for jobs that could not
/// start). Empty (rows 0) unless `r` has a Q-critic.
HeatmapData criticJobMatrix(const DecisionRecord& r, const Trace* trace = nullptr);
/// Q of each machine as the placement action, for the placement that carries it (the decision's first): one row over
/// machines (dense, or its logged top-K). Empty unless `r` has a Q-critic.
HeatmapData criticMachineMatrix(const DecisionRecord& r, int machineCount, const QStringList& machineNames,
                                const Trace* trace);
/// One line on the critic of `r`: Q(s, a) of the action taken and the best alternative, or V(s) and why it ranks
/// nothing; "" without a critic.
QString criticSummary(const DecisionRecord& r, const Trace* trace, const QStringList& machineNames);

/// δ of the queued jobs: one row, the queue in the priority map's order (highest priority first); NaN where a
/// job has none.
HeatmapData gateMatrix(const DecisionRecord& r, const Trace* trace = nullptr);
/// The RWGP posterior of the jobs the placement agent scored: rows = those jobs (as in the affinity map), columns =
/// machines (dense, or the union of the logged top-K); the mean, or the variance when `variance` is true.
HeatmapData rwgpMatrix(const DecisionRecord& r, int machineCount, const QStringList& machineNames,
                       const Trace* trace, bool variance);

/// Teaching mode's DAS section for a decision (HTML): what δ and the posterior say about it; "" when the decision
/// carries neither.
QString explainDasDecision(const DecisionRecord& r, const Trace& trace, const ClusterSpec& cluster);

/// The stepper's queue table with a "δ gate" column inserted after `afterColumn` when the decision's queue carries
/// gates (DAS, DA+MC), and after it a "Q critic" column when the decision has a Q-critic (Q of the job as the ordering
/// action; "—" where the job could not start); otherwise the source model's columns unchanged. Rows are the
/// source's (the decision's queue in order); every other column and role is the source's.
class GateColumnModel : public QAbstractTableModel {
    Q_OBJECT
public:
    GateColumnModel(QAbstractItemModel* source, int afterColumn, QObject* parent = nullptr);
    /// The decision whose queue the source shows (null log: none).
    void setDecision(std::shared_ptr<const DecisionLog> log, int record);
    /// The gate column's index, -1 when not shown.
    int gateColumn() const { return m_show ? m_after + 1 : -1; }
    /// The Q-critic column's index, -1 when not shown.
    int criticColumn() const { return m_showCritic ? m_after + 1 + (m_show ? 1 : 0) : -1; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    /// Rows drag out as their job's trace id (ClusterMapView::kJobMime): dropped on a machine of the cluster map,
    /// the run is forked with that job started there.
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QModelIndexList& indexes) const override;

private:
    QAbstractItemModel* m_source;
    int m_after;
    bool m_show = false;
    bool m_showCritic = false;
    std::shared_ptr<const DecisionLog> m_log;
    int m_record = -1;
    int sourceColumn(int column) const; ///< -1 for the gate column, -2 for the critic column
    int extraColumns() const { return (m_show ? 1 : 0) + (m_showCritic ? 1 : 0); }
    const DecisionRecord* rec() const;
};

/// The heatmaps dock's DAS maps for one decision: the gate row, the Q-critic's rows (jobs as the ordering action,
/// machines as the placement action) or the V-critic's value, and the RWGP posterior mean and variance per machine.
/// Hidden for decisions that carry none of them.
class DasHeatmaps : public QWidget {
    Q_OBJECT
public:
    explicit DasHeatmaps(ExportMenus* exports, QWidget* parent = nullptr);
    void showDecision(const RunEntry& run, int k);
    const HeatmapView* gateMap() const { return m_gate; }
    const HeatmapView* meanMap() const { return m_mean; }
    const HeatmapView* varianceMap() const { return m_var; }
    const HeatmapView* criticJobMap() const { return m_qJob; }
    const HeatmapView* criticMachineMap() const { return m_qMachine; }
    const QLabel* criticLabel() const { return m_critic; }

public Q_SLOTS:
    void selectJob(int job);

Q_SIGNALS:
    void jobSelected(int job);

private:
    HeatmapView* m_gate = nullptr;
    HeatmapView* m_mean = nullptr;
    HeatmapView* m_var = nullptr;
    HeatmapView* m_qJob = nullptr;
    HeatmapView* m_qMachine = nullptr;
    QLabel* m_critic = nullptr;
    QWidget* m_criticBox = nullptr;
};

} // namespace ss::ui
