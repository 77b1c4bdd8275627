#include "models.h"

#include <QColor>
#include <QFont>
#include <QRegularExpression>
#include <QUndoStack>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "clusterdocument.h"
#include "policy/registry.h"
#include "run/aggregate.h"

namespace ss::ui {

QString formatDuration(double s)
{
    if (s < 0)
        return QStringLiteral("–");
    if (s < 120)
        return QStringLiteral("%1 s").arg(s, 0, 'f', 0);
    if (s < 2 * 3600)
        return QStringLiteral("%1 min").arg(s / 60, 0, 'f', 1);
    return QStringLiteral("%1 h").arg(s / 3600, 0, 'f', 2);
}

static QString tableString(const std::vector<std::string>& table, int32_t i)
{
    return i >= 0 && size_t(i) < table.size() ? QString::fromStdString(table[size_t(i)]) : QString();
}

// ---------------------------------------------------------------- JobTableModel

void JobTableModel::setTrace(std::shared_ptr<const Trace> trace, std::shared_ptr<const RunOutput> run)
{
    if (run && (!trace || run->jobs.size() != trace->jobs.size()))
        run = nullptr;
    if (trace && trace == m_trace) {
        // Same trace, another run: only the result columns change. A model reset would make the sorted
        // proxy above re-sort every row (~90 ms on 100k jobs, a visible stall when a run finishes).
        if (run == m_run)
            return;
        m_run = std::move(run);
        if (!m_trace->jobs.empty())
            Q_EMIT dataChanged(index(0, Start), index(int(m_trace->jobs.size()) - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_trace = std::move(trace);
    m_run = std::move(run);
    endResetModel();
}

int JobTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_trace ? 0 : int(m_trace->jobs.size());
}

int JobTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant JobTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[] = {"Id", "Submit", "GPUs", "Duration", "Model", "User", "VC", "Deadline",
                                  "Start", "End", "JCT (min)", "Queued (min)", "Fee ($)", "Machines", "Status"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

QVariant JobTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_trace)
        return {};
    const int r = index.row();
    const Job& j = m_trace->jobs[size_t(r)];
    const JobRecord* rec = m_run ? &m_run->jobs[size_t(r)] : nullptr;
    if (role == JobIndexRole)
        return r;
    if (role == Qt::TextAlignmentRole)
        return index.column() == Model || index.column() == User || index.column() == Vc || index.column() == Status
                   ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                   : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    const bool sort = role == SortRole;
    auto num = [&](double v, int prec) -> QVariant { return sort ? QVariant(v) : QVariant(QString::number(v, 'f', prec)); };
    switch (index.column()) {
    case Id: return sort ? QVariant(qlonglong(j.id)) : QVariant(QString::number(j.id));
    case Submit: return sort ? QVariant(j.submit) : QVariant(formatDuration(j.submit));
    case Gpus: return num(j.gpus, j.fractional() ? 2 : 0);
    case Duration: return sort ? QVariant(j.duration) : QVariant(formatDuration(j.duration));
    case Model: return tableString(m_trace->models, j.model);
    case User: return tableString(m_trace->users, j.user);
    case Vc: return tableString(m_trace->vcs, j.vc);
    case Deadline:
        if (j.deadlines.empty())
            return sort ? QVariant(-1.0) : QVariant();
        return sort ? QVariant(j.deadlines.front().offset) : QVariant(formatDuration(j.deadlines.front().offset));
    default: break;
    }
    if (!rec)
        return sort ? QVariant(-1.0) : QVariant();
    switch (index.column()) {
    case Start: return sort ? QVariant(rec->start) : QVariant(rec->start < 0 ? QString() : formatDuration(rec->start));
    case End: return sort ? QVariant(rec->end) : QVariant(rec->end < 0 ? QString() : formatDuration(rec->end));
    case Jct: return rec->jct < 0 ? (sort ? QVariant(-1.0) : QVariant()) : num(rec->jct / 60, 1);
    case Queueing: return rec->queueing < 0 ? (sort ? QVariant(-1.0) : QVariant()) : num(rec->queueing / 60, 1);
    case Fee: return num(rec->fee, 2);
    case Machines: return sort ? QVariant(rec->machines) : QVariant(QString::number(rec->machines));
    case Status: return QString::fromLatin1(toString(rec->status));
    }
    return {};
}

// ---------------------------------------------------------------- JobFilterProxy

JobFilterProxy::JobFilterProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(SortRole);
}

void JobFilterProxy::setSearch(const QString& text)
{
    // Qt 6.4 has no beginFilterChange(); invalidateFilter() after the terms change.
    m_minGpus = m_maxGpus = -1;
    QStringList words;
    static const QRegularExpression gpuTerm(QStringLiteral("^gpus\\s*(>=|<=|>|<|=)\\s*([0-9.]+)$"));
    for (const QString& w : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const auto m = gpuTerm.match(w.toLower());
        if (m.hasMatch()) {
            const double v = m.captured(2).toDouble();
            const QString op = m.captured(1);
            if (op == QLatin1String(">=")) m_minGpus = v;
            else if (op == QLatin1String(">")) m_minGpus = v + 1e-9;
            else if (op == QLatin1String("<=")) m_maxGpus = v;
            else if (op == QLatin1String("<")) m_maxGpus = v - 1e-9;
            else m_minGpus = m_maxGpus = v;
        } else {
            words << w;
        }
    }
    m_text = words.join(QLatin1Char(' '));
    invalidateFilter();
}

bool JobFilterProxy::filterAcceptsRow(int row, const QModelIndex& parent) const
{
    auto* m = sourceModel();
    if (m_minGpus >= 0 || m_maxGpus >= 0) {
        const double g = m->index(row, JobTableModel::Gpus, parent).data(SortRole).toDouble();
        if ((m_minGpus >= 0 && g < m_minGpus) || (m_maxGpus >= 0 && g > m_maxGpus))
            return false;
    }
    if (m_text.isEmpty())
        return true;
    for (int c : {int(JobTableModel::Id), int(JobTableModel::Model), int(JobTableModel::User), int(JobTableModel::Vc),
                  int(JobTableModel::Status)})
        if (m->index(row, c, parent).data(Qt::DisplayRole).toString().contains(m_text, Qt::CaseInsensitive))
            return true;
    return false;
}

bool JobFilterProxy::lessThan(const QModelIndex& a, const QModelIndex& b) const
{
    const QVariant va = a.data(SortRole), vb = b.data(SortRole);
    if (va.typeId() == QMetaType::QString || vb.typeId() == QMetaType::QString)
        return QString::localeAwareCompare(va.toString(), vb.toString()) < 0;
    return va.toDouble() < vb.toDouble();
}

// ---------------------------------------------------------------- RunHistoryModel

void RunHistoryModel::addRun(RunPtr run, bool checked)
{
    beginInsertRows({}, int(m_runs.size()), int(m_runs.size()));
    m_runs.push_back({std::move(run), checked});
    endInsertRows();
    Q_EMIT checkedChanged();
}

void RunHistoryModel::removeRun(int row)
{
    if (row < 0 || row >= m_runs.size())
        return;
    beginRemoveRows({}, row, row);
    m_runs.removeAt(row);
    endRemoveRows();
    Q_EMIT checkedChanged();
}

void RunHistoryModel::replaceRun(int row, RunPtr run)
{
    if (row < 0 || row >= m_runs.size() || !run)
        return;
    m_runs[row].run = std::move(run);
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void RunHistoryModel::clear()
{
    beginResetModel();
    m_runs.clear();
    endResetModel();
    Q_EMIT checkedChanged();
}

int RunHistoryModel::rowOfId(int id) const
{
    for (int i = 0; i < m_runs.size(); ++i)
        if (m_runs[i].run->id == id)
            return i;
    return -1;
}

QVector<RunPtr> RunHistoryModel::checkedRuns() const
{
    QVector<RunPtr> v;
    for (const Row& r : m_runs)
        if (r.checked)
            v << r.run;
    return v;
}

QVector<RunPtr> RunHistoryModel::allRuns() const
{
    QVector<RunPtr> v;
    for (const Row& r : m_runs)
        v << r.run;
    return v;
}

void RunHistoryModel::setChecked(int row, bool on)
{
    if (row < 0 || row >= m_runs.size() || m_runs[row].checked == on)
        return;
    m_runs[row].checked = on;
    Q_EMIT dataChanged(index(row, Name), index(row, Name), {Qt::CheckStateRole});
    Q_EMIT checkedChanged();
}

int RunHistoryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_runs.size());
}

int RunHistoryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunHistoryModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[] = {"Run", "Policy", "Seed", "Cluster", "Trace", "Jobs", "Mean JCT (min)",
                                  "p95 JCT (min)", "Fee ($)", "Makespan (h)", "Utilization", "Deadline miss",
                                  "Wall (s)", "Finished"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

QVariant RunHistoryModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Row& row = m_runs[index.row()];
    const RunEntry& e = *row.run;
    const Summary& s = e.out->summary;
    if (role == Qt::CheckStateRole && index.column() == Name)
        return row.checked ? Qt::Checked : Qt::Unchecked;
    if (role == Qt::UserRole)
        return e.id;
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && role != Qt::EditRole && !sort)
        return {};
    auto num = [&](double v, int prec) -> QVariant { return sort ? QVariant(v) : QVariant(QString::number(v, 'f', prec)); };
    switch (index.column()) {
    case Name: return e.name;
    case Policy: return e.policy();
    case Seed: return sort ? QVariant(qulonglong(e.out->seed)) : QVariant(QString::number(e.out->seed));
    case Cluster: return e.clusterLabel;
    case Trace: return QString::fromStdString(e.out->traceName);
    case Jobs: return sort ? QVariant(s.jobs) : QVariant(QString::number(s.jobs));
    case MeanJct: return num(s.meanJctMin, 1);
    case P95Jct: return num(s.p95JctMin, 1);
    case Fee: return num(s.totalFeeUsd, 2);
    case Makespan: return num(s.makespanH, 2);
    case Utilization: return sort ? QVariant(s.utilization) : QVariant(QStringLiteral("%1 %").arg(100 * s.utilization, 0, 'f', 1));
    case DeadlineMiss:
        return s.deadlineJobs == 0 ? (sort ? QVariant(0.0) : QVariant(QStringLiteral("–")))
                                   : (sort ? QVariant(s.deadlineMissRate) : QVariant(QStringLiteral("%1 %").arg(100 * s.deadlineMissRate, 0, 'f', 1)));
    case Wall: return num(e.out->wallSeconds, 2);
    case Finished: // local time; today's runs by the clock alone
        if (sort)
            return e.finished.toMSecsSinceEpoch();
        return e.finished.toLocalTime().date() == QDate::currentDate()
                   ? e.finished.toLocalTime().toString(QStringLiteral("HH:mm:ss"))
                   : e.finished.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"));
    }
    return {};
}

bool RunHistoryModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || index.column() != Name)
        return false;
    if (role == Qt::CheckStateRole) {
        setChecked(index.row(), value.toInt() == Qt::Checked);
        return true;
    }
    if (role == Qt::EditRole) {
        const QString name = value.toString().trimmed();
        if (name.isEmpty())
            return false;
        // Entries are shared immutable snapshots; a rename makes a new one.
        auto copy = std::make_shared<RunEntry>(*m_runs[index.row()].run);
        copy->name = name;
        m_runs[index.row()].run = copy;
        Q_EMIT dataChanged(index, index);
        Q_EMIT runRenamed(copy->id, name);
        Q_EMIT checkedChanged();
        return true;
    }
    return false;
}

Qt::ItemFlags RunHistoryModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == Name)
        f |= Qt::ItemIsEditable | Qt::ItemIsUserCheckable;
    return f;
}

// ---------------------------------------------------------------- QueueModel

const DecisionRecord* QueueModel::rec() const
{
    if (!m_log || m_record < 0 || m_record >= int(m_log->records.size()))
        return nullptr;
    return &m_log->records[size_t(m_record)];
}

QString priorityMeaning(const QString& name)
{
    try {
        const PolicyInfo info = policyInfo(name.toStdString());
        return info.score.empty() ? QString() : name + QStringLiteral(": ") + QString::fromStdString(info.score);
    } catch (const std::exception&) {
        return {};
    }
}

void QueueModel::setDecision(std::shared_ptr<const Trace> trace, std::shared_ptr<const DecisionLog> log, int record,
                             int freeGpus)
{
    beginResetModel();
    m_trace = std::move(trace);
    m_log = std::move(log);
    m_record = record;
    m_freeGpus = freeGpus;
    m_outcome.clear();
    if (const DecisionRecord* r = rec())
        for (const PlacementRecord& p : r->placements) {
            // A job may be tried more than once in a decision; a placement wins over a failed try.
            auto it = std::find_if(m_outcome.begin(), m_outcome.end(), [&](const Outcome& o) { return o.job == p.job; });
            const bool ok = !p.slots.empty();
            // a whole-GPU job holding half shares: space sharing (Gavel's pairs)
            const bool shared = ok && p.slots.front().milli < 1000 && m_trace && p.job >= 0
                                && size_t(p.job) < m_trace->jobs.size() && m_trace->jobs[size_t(p.job)].gpus >= 1;
            Outcome o{p.job, ok,
                      shared             ? tr("yes, sharing its GPUs with another job")
                      : ok               ? tr("yes")
                      : p.reason.empty() ? tr("no")
                                         : tr("no: %1").arg(QString::fromStdString(p.reason)),
                      ok ? QString::fromStdString(p.reason) : QString()};
            if (it == m_outcome.end())
                m_outcome.push_back(std::move(o));
            else if (ok)
                *it = std::move(o);
        }
    endResetModel();
}

int QueueModel::rowCount(const QModelIndex& parent) const
{
    const DecisionRecord* r = rec();
    return parent.isValid() || !r ? 0 : int(r->queue.size());
}

int QueueModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant QueueModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o == Qt::Horizontal && role == Qt::ToolTipRole && section == Priority && !m_scoreMeaning.isEmpty())
        return tr("Priority recorded by %1").arg(m_scoreMeaning);
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[] = {"#", "Job", "GPUs", "Priority", "± std", "Admitted", "Placed"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

QVariant QueueModel::data(const QModelIndex& index, int role) const
{
    const DecisionRecord* r = rec();
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !r)
        return {};
    const ScoredJob& sj = r->queue[size_t(index.row())];
    auto outcome = std::find_if(m_outcome.begin(), m_outcome.end(), [&](const Outcome& o) { return o.job == sj.job; });
    const bool placed = outcome != m_outcome.end() && outcome->placed;
    if (role == JobIndexRole)
        return sj.job;
    if (role == Qt::FontRole && placed) {
        QFont f;
        f.setBold(true);
        return f;
    }
    const bool sort = role == SortRole;
    if (role == Qt::ToolTipRole && index.column() == Admitted) {
        for (const AdmissionRecord& a : r->admissions)
            if (a.job == sj.job)
                return tr("admission stage: %1 (the job %2)%3")
                    .arg(QString::fromUtf8(toString(a.verdict)),
                         a.verdict == Admit::Accept ? tr("joins the queue")
                             : a.verdict == Admit::Reject ? tr("leaves, rejected") : tr("waits for a later verdict"),
                         a.reason.empty() ? QString() : QStringLiteral("\n") + QString::fromStdString(a.reason));
        return {};
    }
    if (role == Qt::ToolTipRole && index.column() == Placed && placed && !outcome->why.isEmpty())
        return outcome->why;
    if (role != Qt::DisplayRole && !sort)
        return {};
    switch (index.column()) {
    case Rank: return index.row() + 1;
    case Job:
        if (m_trace && sj.job >= 0 && size_t(sj.job) < m_trace->jobs.size())
            return sort ? QVariant(qlonglong(m_trace->jobs[size_t(sj.job)].id))
                        : QVariant(QString::number(m_trace->jobs[size_t(sj.job)].id));
        return sj.job;
    case Gpus:
        if (m_trace && sj.job >= 0 && size_t(sj.job) < m_trace->jobs.size())
            return m_trace->jobs[size_t(sj.job)].gpus;
        return {};
    case Priority: // NaN: the policy did not score the queue at this decision (Gavel between its rounds)
        if (std::isnan(sj.priority))
            return sort ? QVariant(-std::numeric_limits<double>::infinity()) : QVariant(QStringLiteral("–"));
        return sort ? QVariant(double(sj.priority)) : QVariant(QString::number(sj.priority, 'g', 4));
    case PriorityStd:
        return std::isnan(sj.priorityStd) ? QVariant() : QVariant(QString::number(sj.priorityStd, 'g', 3));
    case Admitted: // the admission stage's verdict when the job arrived at this decision (else blank)
        // In the policy's own words when it gave any: Chronus "accepts" into the queue a job it calls an
        // "unaccepted SLO job" (it runs as best-effort), so "accept: unaccepted SLO ..." read as a contradiction.
        // The engine's verdict is in the tooltip.
        for (const AdmissionRecord& a : r->admissions)
            if (a.job == sj.job)
                return a.reason.empty() ? QString::fromUtf8(toString(a.verdict)) : QString::fromStdString(a.reason);
        return QString();
    case Placed: {
        if (outcome != m_outcome.end())
            return outcome->text;
        // Not tried at this decision: say what held it, from the cluster as the decision left it.
        const double need = m_trace && sj.job >= 0 && size_t(sj.job) < m_trace->jobs.size()
                                ? m_trace->jobs[size_t(sj.job)].gpus : 0;
        if (m_freeGpus < 0 || need <= 0)
            return tr("no (not tried)");
        if (need > m_freeGpus)
            return tr("no: waits for GPUs (needs %1, %2 free)").arg(need).arg(m_freeGpus);
        if (std::isnan(sj.priority))
            return tr("no: not scored at this decision: the policy decides at its next round (needs %1, %2 free)")
                .arg(need).arg(m_freeGpus);
        return tr("no: held back by the policy (needs %1, %2 free)").arg(need).arg(m_freeGpus);
    }
    }
    return {};
}

// ---------------------------------------------------------------- MachineTableModel

MachineTableModel::MachineTableModel(ClusterDocument* doc, QObject* parent) : QAbstractTableModel(parent), m_doc(doc)
{
    connect(doc, &ClusterDocument::clusterChanged, this, [this] {
        beginResetModel();
        endResetModel();
    });
}

int MachineTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_doc->spec().machineCount();
}

int MachineTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MachineTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (o == Qt::Vertical)
        return section;
    static const char* names[] = {"Machine", "Switch", "GPU type", "GPUs", "CPUs", "Memory (GB)"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

QVariant MachineTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    const ClusterSpec& s = m_doc->spec();
    const Machine& m = s.machines[size_t(index.row())];
    switch (index.column()) {
    case Name: return QString::fromStdString(m.name);
    case Switch:
        if (role == Qt::EditRole)
            return m.sw;
        return m.sw >= 0 && size_t(m.sw) < s.switches.size() ? QString::fromStdString(s.switches[size_t(m.sw)].name)
                                                              : QStringLiteral("?%1").arg(m.sw);
    case GpuType:
        return m.type >= 0 && size_t(m.type) < s.types.size() ? QString::fromStdString(s.types[size_t(m.type)].name)
                                                               : QStringLiteral("?%1").arg(m.type);
    case Gpus: return m.gpus;
    case Cpus: return m.cpus;
    case Memory: return m.memoryGb;
    }
    return {};
}

bool MachineTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || role != Qt::EditRole)
        return false;
    const int r = index.row();
    switch (index.column()) {
    case Name: m_doc->renameMachine(r, value.toString()); return true;
    case Switch: m_doc->setMachinesSwitch({r}, value.toInt()); return true;
    case GpuType: {
        // by name (the editor offers the cluster's types and the catalogue's); a catalogue type joins the
        // cluster in the same undoable step
        m_doc->undoStack()->beginMacro(tr("Set GPU type"));
        const int t = m_doc->ensureGpuType(value.toString());
        if (t >= 0)
            m_doc->setMachinesType({r}, t);
        m_doc->undoStack()->endMacro();
        return t >= 0;
    }
    case Gpus: m_doc->setMachinesGpus({r}, value.toInt()); return true;
    default: return false;
    }
}

Qt::ItemFlags MachineTableModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() <= Gpus)
        f |= Qt::ItemIsEditable;
    return f;
}

// ---------------------------------------------------------------- LinkTableModel

LinkTableModel::LinkTableModel(ClusterDocument* doc, QObject* parent) : QAbstractTableModel(parent), m_doc(doc)
{
    connect(doc, &ClusterDocument::clusterChanged, this, [this] {
        beginResetModel();
        endResetModel();
    });
}

int LinkTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_doc->spec().links.size());
}

int LinkTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LinkTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[] = {"From switch", "To switch", "Bandwidth (Gb/s)"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

QVariant LinkTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || (role != Qt::DisplayRole && role != Qt::EditRole))
        return {};
    const ClusterSpec& s = m_doc->spec();
    const Link& l = s.links[size_t(index.row())];
    auto swName = [&](int i) {
        return i >= 0 && size_t(i) < s.switches.size() ? QString::fromStdString(s.switches[size_t(i)].name)
                                                        : QStringLiteral("?%1").arg(i);
    };
    switch (index.column()) {
    case From: return swName(l.a);
    case To: return swName(l.b);
    case Bandwidth: return l.gbps;
    }
    return {};
}

bool LinkTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || role != Qt::EditRole || index.column() != Bandwidth)
        return false;
    bool ok = false;
    const double v = value.toDouble(&ok);
    if (!ok || v <= 0)
        return false;
    m_doc->setLinkBandwidth(index.row(), v);
    return true;
}

Qt::ItemFlags LinkTableModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == Bandwidth)
        f |= Qt::ItemIsEditable;
    return f;
}

} // namespace ss::ui
