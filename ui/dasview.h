#pragma once
// DAS (policies das, da, da+mc, da+rwgp) inside one learned decision, in the studio (issue 26): the communication
// gate δ of each queued job (a column of the stepper's queue and a heatmap row) and the RWGP posterior per machine,
// the mean and the variance of the machine's performance deviation (observed / predicted speed − 1, the seed case
// study's "potential contention"), beside the affinity rows. No other tool shows these. The policy logs δ in
// ScoredJob::gate and the posterior in PlacementRecord::rwgpMean / rwgpVar (core/learn/das.cpp); logs written
// before them show neither.
#include <QAbstractTableModel>
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
/// gates (DAS, DA+MC); otherwise the source model's columns unchanged. Rows are the source's (the decision's queue
/// in order); every other column and role is the source's.
class GateColumnModel : public QAbstractTableModel {
    Q_OBJECT
public:
    GateColumnModel(QAbstractItemModel* source, int afterColumn, QObject* parent = nullptr);
    /// The decision whose queue the source shows (null log: none).
    void setDecision(std::shared_ptr<const DecisionLog> log, int record);
    /// The gate column's index, -1 when not shown.
    int gateColumn() const { return m_show ? m_after + 1 : -1; }
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
    std::shared_ptr<const DecisionLog> m_log;
    int m_record = -1;
    int sourceColumn(int column) const; ///< -1 for the gate column
    const DecisionRecord* rec() const;
};

/// The heatmaps dock's DAS maps for one decision: the gate row and the RWGP posterior mean and variance per
/// machine. Hidden for decisions that carry neither.
class DasHeatmaps : public QWidget {
    Q_OBJECT
public:
    explicit DasHeatmaps(ExportMenus* exports, QWidget* parent = nullptr);
    void showDecision(const RunEntry& run, int k);
    const HeatmapView* gateMap() const { return m_gate; }
    const HeatmapView* meanMap() const { return m_mean; }
    const HeatmapView* varianceMap() const { return m_var; }

public Q_SLOTS:
    void selectJob(int job);

Q_SIGNALS:
    void jobSelected(int job);

private:
    HeatmapView* m_gate = nullptr;
    HeatmapView* m_mean = nullptr;
    HeatmapView* m_var = nullptr;
};

} // namespace ss::ui
