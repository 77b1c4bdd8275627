#pragma once
// Item models of the studio. Each is tested with QAbstractItemModelTester (tests/ui/tst_models.cpp).
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QVector>

#include <memory>
#include <vector>

#include "runentry.h"
#include "sim/decisionlog.h"

namespace ss::ui {

class ClusterDocument;

/// Role giving the raw number (or string) a column sorts by.
constexpr int SortRole = Qt::UserRole + 1;
/// Role giving the job index (row in trace order) for linked selection.
constexpr int JobIndexRole = Qt::UserRole + 2;

/// Jobs of a trace, with the outcome of a run when one is attached.
class JobTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Id, Submit, Gpus, Duration, Model, User, Vc, Deadline, Start, End, Jct, Queueing, Fee,
                  Machines, Status, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;
    void setTrace(std::shared_ptr<const Trace> trace, std::shared_ptr<const RunOutput> run = {});
    const Trace* trace() const { return m_trace.get(); }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
private:
    std::shared_ptr<const Trace> m_trace;
    std::shared_ptr<const RunOutput> m_run;
};

/// Sorts by SortRole and matches the search text against id, model, user and virtual cluster;
/// "gpus>=4" / "gpus<2" style terms filter numerically.
class JobFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit JobFilterProxy(QObject* parent = nullptr);
    void setSearch(const QString& text);
protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override;
    bool lessThan(const QModelIndex& a, const QModelIndex& b) const override;
private:
    QString m_text;
    double m_minGpus = -1, m_maxGpus = -1;
};

/// Runs of the session. The Name column is editable (rename); a check box marks runs for Compare.
class RunHistoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Policy, Seed, Cluster, Trace, Jobs, MeanJct, P95Jct, Fee, Makespan, Utilization,
                  DeadlineMiss, Wall, Finished, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;
    void addRun(RunPtr run, bool checked = true);
    void removeRun(int row);
    /// Swaps the entry of a row for a newer snapshot of the same run (database id set, log loaded).
    void replaceRun(int row, RunPtr run);
    void clear();
    RunPtr run(int row) const { return m_runs.value(row).run; }
    int rowOfId(int id) const;
    QVector<RunPtr> checkedRuns() const;
    QVector<RunPtr> allRuns() const;
    void setChecked(int row, bool on);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
Q_SIGNALS:
    void checkedChanged();
    void runRenamed(int id, const QString& name);
private:
    struct Row {
        RunPtr run;
        bool checked = true;
    };
    QVector<Row> m_runs;
};

/// Runs grouped by everything that decides a result but the seed (policy, params, backfill, trace, cluster,
/// perf model, throughput table, checkpoint, version): mean over distinct seeds with the standard deviation.
/// A seed run twice in a group counts once (the latest run). Labels name what differs between the groups.
class CompareModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Group, Runs, MeanJct, P95Jct, Fee, Makespan, Utilization, DeadlineMiss,
        Policy, Cluster, Trace, Perf, Params, ColumnCount
    };
    static constexpr int kFirstMetric = MeanJct, kLastMetric = DeadlineMiss;
    struct Stat {
        double mean = 0, sd = 0;
    };
    struct GroupRow {
        QString label;
        QVector<RunPtr> runs;      ///< one per distinct seed
        int reruns = 0;            ///< runs left out: a seed the group already has (the latest one is kept)
        QString policy, cluster, trace, perf, params;
        Stat stat[ColumnCount];
        /// per policy figure (policyKeys()): mean and sd over the group's runs that report it; runs = how many did
        QVector<Stat> policyStat;
        QVector<int> policyRuns;
    };
    using QAbstractTableModel::QAbstractTableModel;
    void setRuns(const QVector<RunPtr>& runs);
    const QVector<GroupRow>& groups() const { return m_groups; }
    /// The policies' own figures (Summary::policyStats, e.g. Gavel's ideal_mean_jct_min, Chronus's SLO counts),
    /// one column each after ColumnCount, in the order first met; empty for a group whose runs do not report it.
    const QStringList& policyKeys() const { return m_policyKeys; }
    static QString metricName(int column);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
private:
    QVector<GroupRow> m_groups;
    QStringList m_policyKeys;
};

/// What policy `name`'s recorded priority means ("fifo: minutes waited (ties: arrival order)"), "" when the
/// registry does not say or the name is unknown.
QString priorityMeaning(const QString& name);

/// The queue at one decision: rank, job, priority (± std for learned policies), and whether it was placed.
class QueueModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Rank, Job, Gpus, Priority, PriorityStd, Admitted, Placed, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;
    /// `freeGpus`: whole GPUs free right after the decision (-1 unknown): a queued job the policy did not try
    /// is then said to be waiting for GPUs or held back, never left blank.
    void setDecision(std::shared_ptr<const Trace> trace, std::shared_ptr<const DecisionLog> log, int record,
                     int freeGpus = -1);
    /// What the policy's priority means (the Priority header's tooltip), "" when not stated.
    void setScoreMeaning(const QString& meaning) { m_scoreMeaning = meaning; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
private:
    std::shared_ptr<const Trace> m_trace;
    std::shared_ptr<const DecisionLog> m_log;
    int m_record = -1;
    int m_freeGpus = -1;
    QString m_scoreMeaning;
    struct Outcome {
        int job;
        bool placed;
        QString text; ///< "yes", or why not (the policy's reason)
        QString why;  ///< a placed job: the policy's reason (tooltip)
    };
    std::vector<Outcome> m_outcome; ///< per job tried at this decision
    const DecisionRecord* rec() const;
};

/// Machines of the edited cluster; edits go through the document's undo stack.
class MachineTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Switch, GpuType, Gpus, Cpus, Memory, ColumnCount };
    explicit MachineTableModel(ClusterDocument* doc, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
private:
    ClusterDocument* m_doc;
};

/// Switch-to-switch links of the edited cluster; the bandwidth column is editable (undoable).
class LinkTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { From, To, Bandwidth, ColumnCount };
    explicit LinkTableModel(ClusterDocument* doc, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
private:
    ClusterDocument* m_doc;
};

/// "12.5 min", "3.2 h" style duration text from seconds.
QString formatDuration(double seconds);

} // namespace ss::ui
