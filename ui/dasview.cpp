#include "dasview.h"

#include <QFont>
#include <QGridLayout>
#include <QMimeData>
#include <QVBoxLayout>
#include <QObject>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "clustermapview.h"
#include "models.h"
#include "runentry.h"
#include "viewhelpers.h"

namespace ss::ui {

namespace {

QString jobLabel(const Trace* trace, int job)
{
    if (trace && job >= 0 && size_t(job) < trace->jobs.size())
        return QString::number(trace->jobs[size_t(job)].id);
    return QStringLiteral("j%1").arg(job);
}

QString num(double v, int digits = 3)
{
    return QString::number(v, 'f', digits);
}

} // namespace

bool hasDasGate(const DecisionRecord& r)
{
    return std::any_of(r.queue.begin(), r.queue.end(), [](const ScoredJob& q) { return !std::isnan(q.gate); });
}

bool hasRwgpPosterior(const DecisionRecord& r)
{
    return std::any_of(r.placements.begin(), r.placements.end(),
                       [](const PlacementRecord& p) { return !p.rwgpMean.empty(); });
}

bool hasCritic(const DecisionRecord& r)
{
    return r.criticKind != 0;
}

namespace {

const PlacementRecord* criticPlacement(const DecisionRecord& r)
{
    for (const PlacementRecord& p : r.placements)
        if (!p.critic.empty())
            return &p;
    return nullptr;
}

// The job the ordering action put first among those that could start: the first of the queue with a Q.
const ScoredJob* chosenJob(const DecisionRecord& r)
{
    for (const ScoredJob& q : r.queue)
        if (!std::isnan(q.critic))
            return &q;
    return nullptr;
}

/// One heatmap row over the decision's queue: `field` of each queued job, columns named by trace id.
HeatmapData queueRow(const DecisionRecord& r, const Trace* trace, const QString& label, float ScoredJob::*field)
{
    HeatmapData d;
    d.rows = 1;
    d.cols = int(r.queue.size());
    d.rowLabels << label;
    for (const ScoredJob& q : r.queue) {
        d.values.push_back(q.*field);
        d.colLabels << jobLabel(trace, q.job);
        d.colJobs.push_back(q.job);
    }
    return d;
}

} // namespace

HeatmapData criticJobMatrix(const DecisionRecord& r, const Trace* trace)
{
    return r.criticKind == 'q' ? queueRow(r, trace, QStringLiteral("Q"), &ScoredJob::critic) : HeatmapData {};
}

HeatmapData criticMachineMatrix(const DecisionRecord& r, int machineCount, const QStringList& machineNames,
                                const Trace* trace)
{
    HeatmapData d;
    const PlacementRecord* p = r.criticKind == 'q' ? criticPlacement(r) : nullptr;
    if (!p)
        return d;
    d.rows = 1;
    d.cols = int(p->critic.size());
    d.values = p->critic;
    d.rowLabels << QObject::tr("Q · %1").arg(jobLabel(trace, p->job));
    d.rowJobs.push_back(p->job);
    for (size_t k = 0; k < p->critic.size(); ++k) {
        const int m = p->machineOf(k);
        d.colLabels << (m >= 0 && m < machineNames.size() ? machineNames[m] : QStringLiteral("m%1").arg(m));
    }
    (void)machineCount;
    return d;
}

QString criticSummary(const DecisionRecord& r, const Trace* trace, const QStringList& machineNames)
{
    if (r.criticKind == 'v')
        return QObject::tr("Critic: V(s) = %1.\nA state-value critic\ncannot rank alternatives\n(train --critic q for Q).")
            .arg(num(r.criticValue));
    if (r.criticKind != 'q')
        return {};
    QString t = QObject::tr("Critic: Q(s, a) = %1, action taken").arg(num(r.criticValue));
    // Short lines (the label does not wrap: a wrapping label's height-for-width would make the dock taller).
    const ScoredJob* first = chosenJob(r);
    const ScoredJob* bestJob = nullptr;
    for (const ScoredJob& q : r.queue)
        if (!std::isnan(q.critic) && (!bestJob || q.critic > bestJob->critic))
            bestJob = &q;
    if (first && bestJob)
        t += QObject::tr(";\nordering: job %1 first\n(best Q: job %2, %3)")
                 .arg(jobLabel(trace, first->job), jobLabel(trace, bestJob->job), num(bestJob->critic));
    if (const PlacementRecord* p = criticPlacement(r)) {
        size_t best = 0;
        for (size_t k = 1; k < p->critic.size(); ++k)
            if (p->critic[k] > p->critic[best])
                best = k;
        const int m = p->machineOf(best);
        t += QObject::tr(";\nplacement: best Q on %1 (%2)")
                 .arg(m >= 0 && m < machineNames.size() ? machineNames[m] : QStringLiteral("m%1").arg(m),
                      num(p->critic[best]));
    }
    return t + QLatin1Char('.');
}

HeatmapData gateMatrix(const DecisionRecord& r, const Trace* trace)
{
    return queueRow(r, trace, QStringLiteral("gate δ"), &ScoredJob::gate);
}

HeatmapData rwgpMatrix(const DecisionRecord& r, int machineCount, const QStringList& machineNames,
                       const Trace* trace, bool variance)
{
    HeatmapData d;
    std::vector<const PlacementRecord*> ps;
    bool sparse = false;
    for (const PlacementRecord& p : r.placements)
        if (!p.rwgpMean.empty()) {
            ps.push_back(&p);
            sparse = sparse || !p.machines.empty();
        }
    // As the affinity map: every machine in a dense log, the union of the listed machines in a top-K one.
    std::vector<int> cols;
    if (sparse) {
        for (const PlacementRecord* p : ps)
            for (uint32_t m : p->machines)
                cols.push_back(int(m));
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    } else {
        int n = machineCount;
        for (const PlacementRecord* p : ps)
            n = std::max(n, int(p->rwgpMean.size()));
        for (int m = 0; m < n; ++m)
            cols.push_back(m);
    }
    std::unordered_map<int, int> colOf;
    for (int i = 0; i < int(cols.size()); ++i)
        colOf[cols[size_t(i)]] = i;
    d.rows = int(ps.size());
    d.cols = int(cols.size());
    d.values.assign(size_t(d.rows) * size_t(d.cols), kNoScore);
    for (int i = 0; i < d.rows; ++i) {
        const PlacementRecord& p = *ps[size_t(i)];
        const std::vector<float>& v = variance ? p.rwgpVar : p.rwgpMean;
        for (size_t k = 0; k < v.size(); ++k) {
            auto it = colOf.find(p.machineOf(k));
            if (it != colOf.end())
                d.values[size_t(i) * size_t(d.cols) + size_t(it->second)] = v[k];
        }
        d.rowLabels << jobLabel(trace, p.job);
        d.rowJobs.push_back(p.job);
    }
    for (int m : cols)
        d.colLabels << (m < machineNames.size() ? machineNames[m] : QStringLiteral("m%1").arg(m));
    return d;
}

QString explainDasDecision(const DecisionRecord& r, const Trace& trace, const ClusterSpec& cluster)
{
    const bool gate = hasDasGate(r), gp = hasRwgpPosterior(r), critic = hasCritic(r);
    if (!gate && !gp && !critic)
        return {};
    QString h = QObject::tr("<h4>Inside the learned decision (DAS)</h4>");
    if (gate) {
        // The gate mixes each job's own embedding with the queue's pooled context ("squeeze and communicate").
        const ScoredJob* hi = nullptr;
        const ScoredJob* lo = nullptr;
        for (const ScoredJob& q : r.queue) {
            if (std::isnan(q.gate))
                continue;
            if (!hi || q.gate > hi->gate)
                hi = &q;
            if (!lo || q.gate < lo->gate)
                lo = &q;
        }
        h += QObject::tr("<p><b>Communication gate δ.</b> Before ranking, the ordering agent pools every queued job into "
                         "one context vector and lets each job take a share δ of it in place of its own features "
                         "(δ = 0: the job is ranked on its own features; δ = 1: on the queue's context). Here δ runs "
                         "from %1 (job %2) to %3 (job %4); the stepper's δ column and the gate row of the heatmaps show "
                         "it for every queued job.</p>")
                 .arg(num(lo->gate), jobLabel(&trace, lo->job), num(hi->gate), jobLabel(&trace, hi->job));
    }
    if (gp) {
        for (const PlacementRecord& p : r.placements) {
            if (p.rwgpMean.empty())
                continue;
            size_t best = 0, unsure = 0;
            for (size_t k = 1; k < p.rwgpMean.size(); ++k) {
                if (p.rwgpMean[k] > p.rwgpMean[best])
                    best = k;
                if (k < p.rwgpVar.size() && p.rwgpVar[k] > p.rwgpVar[unsure])
                    unsure = k;
            }
            auto name = [&](size_t k) {
                const int m = p.machineOf(k);
                return m >= 0 && m < cluster.machineCount() ? QString::fromStdString(cluster.machines[size_t(m)].name)
                                                            : QStringLiteral("m%1").arg(m);
            };
            h += QObject::tr("<p><b>RWGP for job %1.</b> From the speeds the last placements showed, the Gaussian process "
                             "expects <b>%2</b> to run %3 % %4 its nominal speed (the best expectation), and is least "
                             "sure about <b>%5</b> (variance %6: potential contention it has not seen enough of). The "
                             "placement agent's affinity takes both in; the heatmaps show them per machine beside the "
                             "affinity row.</p>")
                     .arg(jobLabel(&trace, p.job), name(best))
                     .arg(num(std::fabs(100.0 * p.rwgpMean[best]), 1))
                     .arg(p.rwgpMean[best] >= 0 ? QObject::tr("above") : QObject::tr("below"))
                     .arg(name(unsure))
                     .arg(unsure < p.rwgpVar.size() ? num(p.rwgpVar[unsure], 4) : QStringLiteral("–"));
            break; // the first scored job: the heatmaps carry the rest
        }
    }
    if (critic) {
        QStringList names;
        for (const Machine& m : cluster.machines)
            names << QString::fromStdString(m.name);
        if (r.criticKind == 'q') {
            // How the critic judged the two actions against their alternatives (the advantage the actors learn from).
            double lo = 0, hi = 0;
            int n = 0;
            for (const ScoredJob& q : r.queue)
                if (!std::isnan(q.critic)) {
                    lo = n ? std::min(lo, double(q.critic)) : q.critic;
                    hi = n ? std::max(hi, double(q.critic)) : q.critic;
                    ++n;
                }
            h += QObject::tr("<p><b>The critic.</b> Training judged each action by the centralised Q-critic "
                             "Q(O<sup>j</sup>, O<sup>c</sup>, a<sup>j</sup>, A<sup>c</sup>): the value of this state with a "
                             "given job first and a given machine first. Here Q of the action taken is %1; putting "
                             "another of the %2 jobs that could start first would score from %3 to %4, and the "
                             "heatmaps' Q rows show every job and every machine. An actor learns from the difference "
                             "between Q of what it did and the Q it expected over its own choices. %5</p>")
                     .arg(num(r.criticValue)).arg(n).arg(num(lo), num(hi), criticSummary(r, &trace, names).toHtmlEscaped());
        } else {
            h += QObject::tr("<p><b>The critic.</b> This policy was trained with a state-value critic: V(s) = %1 is "
                             "what it expects from this state whatever is done, so it cannot say which job or machine "
                             "would have been better. A checkpoint trained with the seed's Q-critic (train --critic q) "
                             "shows Q for every alternative.</p>")
                     .arg(num(r.criticValue));
        }
    }
    return h;
}

// ------------------------------------------------------------------------------------------ GateColumnModel

GateColumnModel::GateColumnModel(QAbstractItemModel* source, int afterColumn, QObject* parent)
    : QAbstractTableModel(parent), m_source(source), m_after(afterColumn)
{
    // The source resets on every decision; follow it (the rows are its rows).
    connect(source, &QAbstractItemModel::modelAboutToBeReset, this, [this] { beginResetModel(); });
    connect(source, &QAbstractItemModel::modelReset, this, [this] { endResetModel(); });
    connect(source, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& a, const QModelIndex& b) {
        Q_EMIT dataChanged(index(a.row(), 0), index(b.row(), columnCount() - 1));
    });
    connect(source, &QAbstractItemModel::layoutChanged, this, [this] { Q_EMIT layoutChanged(); });
}

const DecisionRecord* GateColumnModel::rec() const
{
    if (!m_log || m_record < 0 || size_t(m_record) >= m_log->records.size())
        return nullptr;
    return &m_log->records[size_t(m_record)];
}

void GateColumnModel::setDecision(std::shared_ptr<const DecisionLog> log, int record)
{
    beginResetModel();
    m_log = std::move(log);
    m_record = record;
    const DecisionRecord* r = rec();
    m_show = r && hasDasGate(*r);
    m_showCritic = r && r->criticKind == 'q';
    endResetModel();
}

int GateColumnModel::sourceColumn(int column) const
{
    if (column <= m_after)
        return column;
    if (column == gateColumn())
        return -1;
    if (column == criticColumn())
        return -2;
    return column - extraColumns();
}

int GateColumnModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_source->rowCount();
}

int GateColumnModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_source->columnCount() + extraColumns();
}

QVariant GateColumnModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const int sc = sourceColumn(index.column());
    if (sc >= 0)
        return m_source->data(m_source->index(index.row(), sc), role);
    const DecisionRecord* r = rec();
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return m_source->data(m_source->index(index.row(), 0), role); // job index, bold when placed
    if (!r || size_t(index.row()) >= r->queue.size())
        return {};
    if (sc == -2) {
        const float q = r->queue[size_t(index.row())].critic;
        if (std::isnan(q))
            return role == SortRole    ? QVariant(-1e30)
                   : role == Qt::ToolTipRole ? QVariant(tr("The job could not start at this decision: not an alternative"))
                                             : QVariant(QStringLiteral("—"));
        if (role == SortRole)
            return double(q);
        const ScoredJob* first = chosenJob(*r);
        if (role == Qt::ToolTipRole)
            return first && first->job == r->queue[size_t(index.row())].job
                       ? tr("Q = %1: the critic's value of the action taken (this job first, the placement as made)").arg(num(q))
                       : tr("Q = %1: the critic's value had this job been put first (the placement action held), against "
                            "%2 for the action taken").arg(num(q), num(r->criticValue));
        return first && first->job == r->queue[size_t(index.row())].job ? num(q) + QStringLiteral(" ◀") : num(q);
    }
    const float g = r->queue[size_t(index.row())].gate;
    if (std::isnan(g))
        return role == SortRole ? QVariant(-1.0) : QVariant();
    if (role == SortRole)
        return double(g);
    if (role == Qt::ToolTipRole)
        return tr("δ = %1: the job was ranked on %2 % the queue's pooled context and %3 % its own features")
            .arg(num(g)).arg(std::lround(100.0 * g)).arg(std::lround(100.0 * (1.0 - g)));
    return num(g);
}

QVariant GateColumnModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal)
        return m_source->headerData(section, o, role);
    const int sc = sourceColumn(section);
    if (sc >= 0)
        return m_source->headerData(sc, o, role);
    if (sc == -2) {
        if (role == Qt::DisplayRole)
            return tr("Q critic");
        if (role == Qt::ToolTipRole)
            return tr("DAS's Q-critic: the value of this decision with the job put first (among the jobs that could "
                      "start; the placement action as made). ◀ marks the action taken");
        return {};
    }
    if (role == Qt::DisplayRole)
        return tr("δ gate");
    if (role == Qt::ToolTipRole)
        return tr("DAS's communication gate δ (squeeze-and-communicate, mean over the embedding): the share of the "
                  "queue's pooled context that replaced the job's own features before the ranking");
    return {};
}

Qt::ItemFlags GateColumnModel::flags(const QModelIndex& index) const
{
    const int sc = index.isValid() ? sourceColumn(index.column()) : -1;
    if (sc >= 0)
        return m_source->flags(m_source->index(index.row(), sc)) | Qt::ItemIsDragEnabled;
    return index.isValid() ? Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled : Qt::NoItemFlags;
}

QStringList GateColumnModel::mimeTypes() const
{
    return {QString::fromLatin1(ClusterMapView::kJobMime)};
}

QMimeData* GateColumnModel::mimeData(const QModelIndexList& indexes) const
{
    if (indexes.isEmpty() || !indexes.front().isValid())
        return nullptr;
    const QString id = m_source->data(m_source->index(indexes.front().row(), QueueModel::Job), Qt::DisplayRole).toString();
    auto* d = new QMimeData;
    d->setData(QString::fromLatin1(ClusterMapView::kJobMime), id.toUtf8());
    d->setText(id);
    return d;
}

// ------------------------------------------------------------------------------------------ DasHeatmaps

DasHeatmaps::DasHeatmaps(ExportMenus* exports, QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("dasHeatmaps"));
    // Up to five maps and a line share the affinity map's cell of the dock, in two columns: the ordering agent's gate
    // and the RWGP posterior on the left (as before the critic), the critic on the right. Their floors stay low, so
    // that a DAS run does not make the dock (and the window) taller than other runs do.
    auto* g = new QGridLayout(this);
    g->setContentsMargins(0, 0, 0, 0);
    g->setVerticalSpacing(2);
    m_gate = new HeatmapView(this);
    m_qJob = new HeatmapView(this);
    m_qJob->setObjectName(QStringLiteral("dasCriticJobs"));
    m_qMachine = new HeatmapView(this);
    m_qMachine->setObjectName(QStringLiteral("dasCriticMachines"));
    m_critic = new QLabel(this);
    m_critic->setObjectName(QStringLiteral("dasCritic"));
    m_critic->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A few short lines that take the room the maps leave, never more (the dock does not grow for them).
    m_critic->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    m_critic->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_mean = new HeatmapView(this);
    m_var = new HeatmapView(this);
    for (HeatmapView* h : {m_gate, m_qJob, m_qMachine, m_mean, m_var})
        h->setMinimumSize(80, 26);
    m_gate->setMinimumHeight(64); // its title, one row and the job labels
    m_qJob->setMinimumHeight(64);
    m_qMachine->setMinimumHeight(64);
    g->addWidget(m_gate, 0, 0);
    g->addWidget(m_mean, 1, 0);
    g->addWidget(m_var, 2, 0);
    g->setRowStretch(0, 2);
    g->setRowStretch(1, 3);
    g->setRowStretch(2, 3);
    // The critic's maps and line beside them, in their own column that exists only while it has something to show
    // (an empty grid column still made the dock taller).
    m_criticBox = new QWidget(this);
    auto* c = new QVBoxLayout(m_criticBox);
    c->setContentsMargins(0, 0, 0, 0);
    c->setSpacing(2);
    m_qJob->setParent(m_criticBox);
    m_critic->setParent(m_criticBox);
    m_qMachine->setParent(m_criticBox);
    c->addWidget(m_qJob, 2);
    c->addWidget(m_critic, 3);
    c->addWidget(m_qMachine, 3);
    g->addWidget(m_criticBox, 0, 1, 3, 1);
    m_criticBox->hide();
    for (HeatmapView* h : {m_gate, m_qJob, m_qMachine, m_mean, m_var}) {
        connect(h, &HeatmapView::jobSelected, this, &DasHeatmaps::jobSelected);
        if (exports)
            exports->installPlotExport(h);
    }
    hide();
}

void DasHeatmaps::showDecision(const RunEntry& run, int k)
{
    const DecisionLog& log = *run.out->log;
    const DecisionRecord& r = log.records[size_t(k)];
    const bool gate = hasDasGate(r), gp = hasRwgpPosterior(r), critic = hasCritic(r);
    setVisible(gate || gp || critic);
    if (!gate && !gp && !critic)
        return;
    QStringList names;
    for (const Machine& m : run.cluster->machines)
        names << QString::fromStdString(m.name);
    // The critic: Q rows (the chosen action against the alternatives) or, for a V-critic, one line.
    const bool q = r.criticKind == 'q';
    HeatmapData qj = criticJobMatrix(r, run.trace.get());
    qj.title = tr("Q-critic: each job first (ordering action), decision %1").arg(k + 1);
    m_qJob->setData(qj);
    m_qJob->setAutoColorRange();
    m_qJob->setVisible(q && qj.rows > 0);
    HeatmapData qm = criticMachineMatrix(r, log.machineCount, names, run.trace.get());
    qm.title = tr("Q-critic: each machine first (placement action)");
    m_qMachine->setData(qm);
    m_qMachine->setAutoColorRange();
    m_qMachine->setVisible(q && qm.rows > 0);
    m_critic->setText(criticSummary(r, run.trace.get(), names));
    m_critic->setToolTip(m_critic->text());
    m_critic->setVisible(critic);
    m_criticBox->setVisible(critic);
    // The critic's column takes half the width with its Q maps, 2/5 with V's line alone (the line has no width of
    // its own: Ignored), none when hidden.
    if (auto* g = qobject_cast<QGridLayout*>(layout())) {
        g->setColumnStretch(0, critic ? 3 : 0);
        g->setColumnStretch(1, critic ? (q ? 3 : 2) : 0);
    }
    HeatmapData g = gateMatrix(r, run.trace.get());
    g.title = tr("Gate δ, decision %1 (0 own features, 1 queue context)").arg(k + 1);
    m_gate->setData(g);
    // The range of this decision's gates (the colour bar says it): trained gates sit close together, and a fixed
    // 0..1 scale would paint them one colour.
    m_gate->setAutoColorRange();
    m_gate->setVisible(gate);
    HeatmapData mean = rwgpMatrix(r, log.machineCount, names, run.trace.get(), false);
    mean.title = tr("RWGP mean: expected speed deviation, job × machine");
    m_mean->setData(mean);
    // Symmetric about 0, so that the colour says faster or slower than nominal.
    float a = 1e-3f;
    for (float v : mean.values)
        if (std::isfinite(v))
            a = std::max(a, std::fabs(v));
    m_mean->setColorRange(-a, a);
    HeatmapData var = rwgpMatrix(r, log.machineCount, names, run.trace.get(), true);
    var.title = tr("RWGP variance (potential contention), job × machine");
    m_var->setData(var);
    m_var->setAutoColorRange();
    m_mean->setVisible(gp);
    m_var->setVisible(gp);
}

void DasHeatmaps::selectJob(int job)
{
    for (HeatmapView* h : {m_gate, m_qJob, m_qMachine, m_mean, m_var})
        h->setSelectedJob(job);
}

} // namespace ss::ui
