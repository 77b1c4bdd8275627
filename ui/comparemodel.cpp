// The Compare view's table: runs grouped by everything but the seed, the metrics as mean ± sd over seeds,
// and each policy's own figures (its run statistics) as extra columns.
#include "models.h"

#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "run/aggregate.h"

namespace ss::ui {

QString CompareModel::metricName(int c)
{
    static const char* names[] = {"Run group", "Seeds", "Mean JCT (min)", "p95 JCT (min)", "Fee ($)",
                                  "Makespan (h)", "Utilization (%)", "Deadline miss (%)", "Policy", "Cluster",
                                  "Trace", "Perf model", "Params"};
    return c >= 0 && c < ColumnCount ? tr(names[c]) : QString();
}

namespace {

/// The run's identity without its seed: runs that differ only by seed are one group.
std::string groupKey(const RunSpec& spec)
{
    std::istringstream in(spec.canonical());
    std::string line, key;
    while (std::getline(in, line))
        if (line.rfind("seed=", 0) != 0)
            key += line + '\n';
    return key;
}

QString paramsText(const RunSpec& spec)
{
    QStringList p;
    for (const auto& [k, v] : spec.options.params)
        p << QString::fromStdString(k + "=" + v);
    if (!spec.options.backfill)
        p << QStringLiteral("no backfill");
    return p.join(QStringLiteral(", "));
}

} // namespace

void CompareModel::setRuns(const QVector<RunPtr>& runs)
{
    beginResetModel();
    m_groups.clear();
    m_policyKeys.clear();
    std::map<std::string, int> at;
    std::vector<std::map<uint64_t, int>> seedAt; // per group: seed -> position in runs
    for (const RunPtr& r : runs) {
        const std::string key = groupKey(r->out->spec);
        auto it = at.find(key);
        if (it == at.end()) {
            it = at.emplace(key, int(m_groups.size())).first;
            GroupRow g;
            g.policy = r->policy();
            g.cluster = r->clusterLabel.isEmpty() ? QString::fromStdString(r->out->clusterName) : r->clusterLabel;
            g.trace = QString::fromStdString(r->out->traceName);
            g.perf = QString::fromStdString(r->out->perf);
            g.params = paramsText(r->out->spec);
            m_groups.push_back(g);
            seedAt.emplace_back();
        }
        GroupRow& g = m_groups[it->second];
        auto& seeds = seedAt[size_t(it->second)];
        auto s = seeds.find(r->out->seed);
        if (s == seeds.end()) {
            seeds.emplace(r->out->seed, int(g.runs.size()));
            g.runs << r;
        } else {
            ++g.reruns; // the same seed again: the later run replaces the earlier one
            if (r->id > g.runs[s->second]->id)
                g.runs[s->second] = r;
        }
    }
    // Labels: the policy, plus whatever else tells this group from the others.
    auto differs = [&](QString GroupRow::*field) {
        for (const GroupRow& g : m_groups)
            if (g.*field != m_groups.front().*field)
                return true;
        return false;
    };
    const bool dCluster = differs(&GroupRow::cluster), dTrace = differs(&GroupRow::trace),
               dPerf = differs(&GroupRow::perf), dParams = differs(&GroupRow::params);
    std::map<QString, int> labelUses;
    for (GroupRow& g : m_groups) {
        QStringList parts{g.policy};
        if (dCluster)
            parts << tr("cluster %1").arg(g.cluster);
        if (dTrace)
            parts << tr("trace %1").arg(g.trace);
        if (dPerf)
            parts << tr("perf %1").arg(g.perf);
        if (dParams)
            parts << (g.params.isEmpty() ? tr("default params") : g.params);
        // a user's name for the runs, when every run of the group carries the same one
        const QString name = g.runs.front()->name;
        bool sameName = !name.startsWith(g.policy);
        for (const RunPtr& r : g.runs)
            sameName = sameName && r->name == name;
        g.label = sameName ? name + QStringLiteral(" (") + parts.join(QStringLiteral(" · ")) + QLatin1Char(')')
                           : parts.join(QStringLiteral(" · "));
        ++labelUses[g.label];
    }
    // Groups that still read alike differ in something not shown (a trace or cluster of the same name, a
    // checkpoint, the software version): number them rather than show two identical rows.
    std::map<QString, int> seen;
    for (GroupRow& g : m_groups)
        if (labelUses[g.label] > 1)
            g.label += QStringLiteral(" [%1]").arg(++seen[g.label]);
    for (GroupRow& g : m_groups) {
        for (int c = kFirstMetric; c <= kLastMetric; ++c) {
            std::vector<double> v;
            for (const RunPtr& r : g.runs) {
                const Summary& s = r->out->summary;
                switch (c) {
                case MeanJct: v.push_back(s.meanJctMin); break;
                case P95Jct: v.push_back(s.p95JctMin); break;
                case Fee: v.push_back(s.totalFeeUsd); break;
                case Makespan: v.push_back(s.makespanH); break;
                case Utilization: v.push_back(100 * s.utilization); break;
                case DeadlineMiss: v.push_back(100 * s.deadlineMissRate); break;
                }
            }
            const SeedStat st = seedStat(v); // the core's aggregation, as `compare` prints it
            g.stat[c].mean = st.mean;
            g.stat[c].sd = st.sd;
        }
        g.stat[Runs].mean = g.runs.size();
        for (const RunPtr& r : g.runs)
            for (const auto& kv : r->out->summary.policyStats)
                if (!m_policyKeys.contains(QString::fromStdString(kv.first)))
                    m_policyKeys << QString::fromStdString(kv.first);
    }
    for (GroupRow& g : m_groups) {
        g.policyStat.resize(m_policyKeys.size());
        g.policyRuns.fill(0, m_policyKeys.size());
        for (int k = 0; k < m_policyKeys.size(); ++k) {
            std::vector<double> v;
            for (const RunPtr& r : g.runs)
                for (const auto& kv : r->out->summary.policyStats)
                    if (QString::fromStdString(kv.first) == m_policyKeys[k] && std::isfinite(kv.second))
                        v.push_back(kv.second);
            if (v.empty())
                continue;
            const SeedStat st = seedStat(v);
            g.policyStat[k] = {st.mean, st.sd};
            g.policyRuns[k] = int(v.size());
        }
    }
    endResetModel();
}

int CompareModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_groups.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount + int(m_policyKeys.size());
}

QVariant CompareModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal)
        return {};
    if (section >= ColumnCount && section < ColumnCount + m_policyKeys.size()) {
        if (role == Qt::DisplayRole)
            return m_policyKeys[section - ColumnCount];
        if (role == Qt::ToolTipRole)
            return tr("The policy's own figure '%1' (its run statistics), mean over the group's runs that report it")
                .arg(m_policyKeys[section - ColumnCount]);
        return {};
    }
    return role == Qt::DisplayRole ? QVariant(metricName(section)) : QVariant();
}

QVariant CompareModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const GroupRow& g = m_groups[index.row()];
    const int c = index.column();
    if (c >= ColumnCount) {
        const int k = c - ColumnCount;
        if (k >= g.policyRuns.size() || g.policyRuns[k] == 0)
            return role == SortRole ? QVariant(std::numeric_limits<double>::quiet_NaN()) : QVariant();
        const Stat& st = g.policyStat[k];
        if (role == SortRole)
            return st.mean;
        if (role != Qt::DisplayRole)
            return {};
        const bool whole = st.mean == std::floor(st.mean) && std::abs(st.mean) < 1e15;
        if (g.policyRuns[k] > 1)
            return QStringLiteral("%1 ± %2").arg(st.mean, 0, 'g', 4).arg(st.sd, 0, 'g', 3);
        return whole ? QString::number(qint64(st.mean)) : QString::number(st.mean, 'g', 4);
    }
    if (role == SortRole && (c == Runs || (c >= kFirstMetric && c <= kLastMetric)))
        return QVariant(g.stat[c].mean);
    if (role == Qt::ToolTipRole && (c == Group || c == Runs)) {
        QStringList seeds;
        for (const RunPtr& r : g.runs)
            seeds << QString::number(r->out->seed);
        QString t = tr("seeds: %1").arg(seeds.join(QStringLiteral(", ")));
        if (g.reruns > 0)
            t += tr("\n%n rerun(s) of a seed already in the group left out (the latest run of each seed counts)",
                    nullptr, g.reruns);
        return t;
    }
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (c) {
    case Group: return g.label;
    case Policy: return g.policy;
    case Cluster: return g.cluster;
    case Trace: return g.trace;
    case Perf: return g.perf;
    case Params: return g.params;
    default: break;
    }
    if (c == Runs)
        return QString::number(g.runs.size());
    const int prec = c == Makespan ? 2 : 1;
    if (g.runs.size() > 1)
        return QStringLiteral("%1 ± %2").arg(g.stat[c].mean, 0, 'f', prec).arg(g.stat[c].sd, 0, 'f', prec);
    return QString::number(g.stat[c].mean, 'f', c == Fee ? 2 : prec);
}

} // namespace ss::ui
