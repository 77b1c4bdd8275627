#include "forkpanel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QPushButton>
#include <QSplitter>
#include <QAbstractTableModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "io/traceio.h"
#include "policy/registry.h"
#include "viewhelpers.h"

namespace ss::ui {

/// The jobs that moved (or are in one run only), one row each; sorts itself (no item per cell, so a
/// 100k-job diff shows at once).
class DeltaModel : public QAbstractTableModel {
public:
    using QAbstractTableModel::QAbstractTableModel;
    void setDiff(std::shared_ptr<const RunDiff> d)
    {
        beginResetModel();
        m_diff = std::move(d);
        m_rows.clear();
        if (m_diff)
            for (size_t i = 0; i < m_diff->jobs.size(); ++i)
                if (m_diff->jobs[i].moved || m_diff->jobs[i].indexA < 0 || m_diff->jobs[i].indexB < 0)
                    m_rows.push_back(i);
        endResetModel();
    }
    int rowCount(const QModelIndex& p = {}) const override { return p.isValid() ? 0 : int(m_rows.size()); }
    int columnCount(const QModelIndex& p = {}) const override { return p.isValid() ? 0 : 8; }
    QVariant headerData(int section, Qt::Orientation o, int role) const override
    {
        static const char* names[] = {"job", "JCT A (min)", "JCT B (min)", "Δ JCT (min)", "fee A ($)", "fee B ($)", "Δ fee ($)", "moved"};
        if (o == Qt::Horizontal && role == Qt::DisplayRole && section >= 0 && section < 8)
            return QString::fromUtf8(names[section]);
        return {};
    }
    double value(size_t i, int c) const
    {
        const JobDelta& j = m_diff->jobs[i];
        switch (c) {
        case 0: return double(j.id);
        case 1: return j.jctA >= 0 ? j.jctA / 60 : NAN;
        case 2: return j.jctB >= 0 ? j.jctB / 60 : NAN;
        case 3: return j.jctDelta() / 60;
        case 4: return j.feeA;
        case 5: return j.feeB;
        case 6: return j.feeDelta();
        default: return j.indexA < 0 ? 1 : j.indexB < 0 ? 2 : 0;
        }
    }
    QVariant data(const QModelIndex& idx, int role) const override
    {
        if (!idx.isValid() || size_t(idx.row()) >= m_rows.size())
            return {};
        const size_t i = m_rows[size_t(idx.row())];
        const int c = idx.column();
        if (role == Qt::TextAlignmentRole)
            return c == 7 ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
        if (role != Qt::DisplayRole)
            return {};
        if (c == 0)
            return qlonglong(m_diff->jobs[i].id);
        if (c == 7) {
            const JobDelta& j = m_diff->jobs[i];
            return j.indexA < 0 ? QObject::tr("only in B") : j.indexB < 0 ? QObject::tr("only in A") : QObject::tr("yes");
        }
        const double v = value(i, c);
        return std::isfinite(v) ? QString::number(v, 'f', c >= 4 ? 2 : 1) : QString();
    }
    void sort(int column, Qt::SortOrder order) override
    {
        if (!m_diff)
            return;
        beginResetModel(); // (a reset: no persistent indices to keep)
        std::vector<double> key(m_diff->jobs.size());
        for (size_t i : m_rows)
            key[i] = value(i, column);
        std::stable_sort(m_rows.begin(), m_rows.end(), [&](size_t a, size_t b) {
            const double x = key[a], y = key[b];
            if (std::isnan(x) || std::isnan(y))
                return !std::isnan(x) && std::isnan(y); // blanks last either way
            return order == Qt::AscendingOrder ? x < y : x > y;
        });
        endResetModel();
    }

private:
    std::shared_ptr<const RunDiff> m_diff;
    std::vector<size_t> m_rows;
};


ForkPanel::ForkPanel(QWidget* parent) : QWidget(parent)
{
    auto* v = new QVBoxLayout(this);
    m_context = new QLabel(tr("Open a run and step to a decision to fork it there."), this);
    m_context->setWordWrap(true);
    v->addWidget(m_context);
    auto* form = new QFormLayout;
    m_kind = new QComboBox(this);
    m_kind->addItem(tr("Another policy from here"));
    m_kind->addItem(tr("Place a job on machines"));
    m_kind->addItem(tr("Fail machines"));
    m_kind->addItem(tr("Drain machines"));
    m_kind->addItem(tr("Move jobs to the queue head"));
    m_kind->addItem(tr("Add machines like one"));
    m_kind->addItem(tr("A burst of arrivals"));
    m_policy = new QComboBox(this);
    for (const std::string& n : schedulerNames())
        m_policy->addItem(QString::fromStdString(n));
    m_policy->setCurrentText(QStringLiteral("sjf+bestfit"));
    m_jobs = new QLineEdit(this);
    m_jobs->setPlaceholderText(tr("job id(s) as in the trace, e.g. 131 or 12,40"));
    m_machines = new QLineEdit(this);
    m_machines->setPlaceholderText(tr("machine names, e.g. m3,m4"));
    m_count = new QSpinBox(this);
    m_count->setRange(1, 1000);
    m_count->setToolTip(tr("Machines added at this decision, each a copy of the machine named above (added-1, added-2, …)"));
    m_burst = new QLineEdit(this);
    m_burst->setPlaceholderText(tr("trace file: its jobs arrive from this decision on"));
    form->addRow(tr("Change"), m_kind);
    form->addRow(tr("Policy"), m_policy);
    form->addRow(tr("Job"), m_jobs);
    form->addRow(tr("Machines"), m_machines);
    form->addRow(tr("Add"), m_count);
    form->addRow(tr("Burst"), m_burst);
    v->addLayout(form);
    m_go = new QPushButton(icon("run"), tr("Fork here and compare"), this);
    m_go->setObjectName(QStringLiteral("forkButton"));
    v->addWidget(m_go, 0, Qt::AlignLeft);
    m_result = new QLabel(this);
    m_result->setWordWrap(true);
    m_result->setTextFormat(Qt::RichText);
    v->addWidget(m_result);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_gantt = new GanttDiffView(split);
    m_table = new QTableView(split);
    m_model = new DeltaModel(this);
    m_table->setModel(m_model);
    m_table->setSortingEnabled(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    split->addWidget(m_gantt);
    split->addWidget(m_table);
    v->addWidget(split, 1);
    connect(m_kind, &QComboBox::currentIndexChanged, this, &ForkPanel::updateFields);
    connect(m_go, &QPushButton::clicked, this, &ForkPanel::requestFork);
    updateFields();
    setContext({}, -1);
}

void ForkPanel::updateFields()
{
    const Kind k = Kind(m_kind->currentIndex());
    m_policy->setEnabled(k == Kind::Policy);
    m_jobs->setEnabled(k == Kind::Place || k == Kind::QueueFirst);
    m_machines->setEnabled(k == Kind::Place || k == Kind::Fail || k == Kind::Drain || k == Kind::AddMachines);
    m_count->setEnabled(k == Kind::AddMachines);
    m_burst->setEnabled(k == Kind::Burst);
}

void ForkPanel::setContext(RunPtr run, int decision)
{
    m_run = std::move(run);
    m_decision = decision;
    const bool isFork = m_run && m_run->out && !m_run->out->spec.fork.empty();
    const bool fromState = isFork && m_run->out->spec.fork.rfind("start-state=", 0) == 0;
    const uint64_t forkPoint = isFork ? m_run->out->forkDecision : 0;
    const bool beforeForkPoint = isFork && uint64_t(m_decision + 1) < forkPoint;
    const bool ok = m_run && m_run->out && m_decision >= 0 && !m_run->out->spec.traceFingerprint.empty() && !fromState
        && !beforeForkPoint;
    m_go->setEnabled(ok);
    const QString at = m_run && m_run->out && m_run->out->log && m_decision >= 0 && size_t(m_decision) < m_run->out->log->records.size()
        ? QString::number(m_run->out->log->records[size_t(m_decision)].time, 'f', 1)
        : QStringLiteral("0.0");
    if (!m_run || m_decision < 0)
        m_context->setText(tr("Open a run and step to a decision to fork it there."));
    else if (fromState)
        m_context->setText(tr("“%1” started from a cluster state: forking it is not supported yet.").arg(m_run->name));
    else if (beforeForkPoint)
        m_context->setText(tr("“%1” is a fork at decision %2: its decisions before it are its parent's. Step to decision %2 "
                              "or later to fork this fork, or fork its parent.").arg(m_run->name).arg(forkPoint));
    else if (isFork)
        m_context->setText(tr("Fork “%1” (itself a fork at decision %2, whose change it keeps) at decision %3 (t = %4 s): "
                              "decisions 1–%5 stay as they were.")
                               .arg(m_run->name).arg(forkPoint).arg(m_decision + 1).arg(at).arg(m_decision));
    else
        m_context->setText(tr("Fork “%1” at decision %2 (t = %3 s): decisions 1–%4 stay as they were.")
                               .arg(m_run->name)
                               .arg(m_decision + 1)
                               .arg(at)
                               .arg(m_decision));
}

void ForkPanel::setChange(Kind kind, const QString& policyOrJobs, const QString& machines)
{
    m_kind->setCurrentIndex(int(kind));
    if (kind == Kind::Policy)
        m_policy->setCurrentText(policyOrJobs);
    else if (kind == Kind::AddMachines)
        m_count->setValue(policyOrJobs.toInt());
    else if (kind == Kind::Burst)
        m_burst->setText(policyOrJobs);
    else
        m_jobs->setText(policyOrJobs);
    m_machines->setText(machines);
}

bool ForkPanel::buildRequest(ForkRequest& req, QString& why) const
{
    if (!m_run || m_decision < 0 || !m_run->trace || !m_run->cluster) {
        why = tr("Fork: open a run and step to a decision first.");
        return false;
    }
    req = ForkRequest {};
    req.atDecision = uint64_t(m_decision + 1);
    req.parentRunId = m_run->dbId;
    const ClusterSpec& c = *m_run->cluster;
    const Trace ordered = engineTrace(*m_run->trace);
    auto machines = [&](std::vector<int>& out) {
        for (const QString& s : m_machines->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const std::string name = s.trimmed().toStdString();
            int m = -1;
            for (int i = 0; i < c.machineCount() && m < 0; ++i)
                if (c.machines[size_t(i)].name == name)
                    m = i;
            if (m < 0) {
                why = tr("Fork: no machine “%1” in cluster %2.").arg(s.trimmed(), QString::fromStdString(c.name));
                return false;
            }
            out.push_back(m);
        }
        if (out.empty()) {
            why = tr("Fork: name at least one machine.");
            return false;
        }
        return true;
    };
    auto jobs = [&](std::vector<int>& out) {
        for (const QString& s : m_jobs->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            const qlonglong id = s.trimmed().toLongLong(&ok);
            const int j = ok ? jobIndexById(ordered, id) : -1;
            if (j < 0) {
                why = tr("Fork: no job “%1” in the trace.").arg(s.trimmed());
                return false;
            }
            out.push_back(j);
        }
        if (out.empty()) {
            why = tr("Fork: give a job id.");
            return false;
        }
        return true;
    };
    switch (Kind(m_kind->currentIndex())) {
    case Kind::Policy:
        req.change.policy = m_policy->currentText().toStdString();
        req.change.policyOptions.backfill = m_run->out->spec.options.backfill;
        return true;
    case Kind::Place: {
        std::vector<int> js;
        if (!jobs(js) || !machines(req.change.placeMachines))
            return false;
        req.change.placeJob = js.front();
        return true;
    }
    case Kind::Fail:
        return machines(req.change.failMachines);
    case Kind::Drain:
        return machines(req.change.drainMachines);
    case Kind::QueueFirst:
        return jobs(req.change.queueFront);
    case Kind::AddMachines: {
        std::vector<int> like;
        if (!machines(like))
            return false;
        if (like.size() != 1) {
            why = tr("Fork: name the one machine the added ones copy.");
            return false;
        }
        req.change.addMachines = m_count->value();
        req.change.addLike = like.front();
        return true;
    }
    case Kind::Burst: {
        const QString path = m_burst->text().trimmed();
        if (path.isEmpty()) {
            why = tr("Fork: give the trace file of the burst.");
            return false;
        }
        try {
            req.change.burst = readTrace(path.toStdString());
        } catch (const std::exception& e) {
            why = tr("Fork: %1").arg(QString::fromUtf8(e.what()));
            return false;
        }
        if (req.change.burst.jobs.empty()) {
            why = tr("Fork: the burst file %1 has no jobs.").arg(path);
            return false;
        }
        if (req.change.burst.name.empty())
            req.change.burst.name = path.toStdString();
        return true;
    }
    }
    return false;
}

void ForkPanel::requestFork()
{
    ForkRequest req;
    QString why;
    if (!buildRequest(req, why)) {
        showError(why);
        return;
    }
    Q_EMIT forkRequested(req);
}

void ForkPanel::showRunning(const QString& description)
{
    m_result->setText(tr("Forking: %1…").arg(description.toHtmlEscaped()));
}

void ForkPanel::showError(const QString& message)
{
    m_result->setText(QStringLiteral("<span style='color:#c0392b'>%1</span>").arg(message.toHtmlEscaped()));
}

int ForkPanel::deltaRows() const { return m_model->rowCount(); }

void ForkPanel::showResult(const RunPtr& parent, const RunPtr& fork, std::shared_ptr<const RunDiff> diff)
{
    m_diff = diff ? std::move(diff) : std::make_shared<const RunDiff>(diffRuns(*parent->out, *fork->out));
    const RunDiff& d = *m_diff;
    auto metric = [&](const char* name) {
        for (const MetricDelta& m : d.metrics)
            if (m.name == name)
                return m;
        return MetricDelta {};
    };
    const MetricDelta jct = metric("mean_jct_min"), fee = metric("total_fee_usd"), mk = metric("makespan_h");
    QString div = d.logsCompared ? (d.firstDivergence > 0 ? tr("first divergence at decision %1 (t = %2 s): %3")
                                                                 .arg(d.firstDivergence)
                                                                 .arg(d.divergenceTime, 0, 'f', 1)
                                                                 .arg(QString::fromStdString(d.divergenceWhat).toHtmlEscaped())
                                                           : tr("no decision differs"))
                                 : tr("first divergence unknown (no decision log)");
    m_result->setText(tr("<b>%1</b> (A) vs <b>%2</b> (B), seeds %3 / %4<br>%5<br>%6 job(s) moved · mean JCT %7 → %8 min "
                         "(%9) · total fee $%10 → $%11 · makespan %12 → %13 h")
                          .arg(parent->name.toHtmlEscaped(), fork->name.toHtmlEscaped())
                          .arg(d.seedA)
                          .arg(d.seedB)
                          .arg(div)
                          .arg(d.moved)
                          .arg(jct.a, 0, 'f', 1)
                          .arg(jct.b, 0, 'f', 1)
                          .arg(jct.delta() >= 0 ? QStringLiteral("+%1").arg(jct.delta(), 0, 'f', 1) : QString::number(jct.delta(), 'f', 1))
                          .arg(fee.a, 0, 'f', 0)
                          .arg(fee.b, 0, 'f', 0)
                          .arg(mk.a, 0, 'f', 2)
                          .arg(mk.b, 0, 'f', 2));
    double forkTime = -1;
    if (fork->out->log && fork->out->forkDecision > 0 && fork->out->forkDecision <= fork->out->log->records.size())
        forkTime = fork->out->log->records[size_t(fork->out->forkDecision - 1)].time;
    m_gantt->setDiff(m_diff, forkTime);
    // every job that moved, biggest JCT gains first; the table sorts by any column
    m_model->setDiff(m_diff);
    m_model->sort(3, Qt::AscendingOrder);
    QSignalBlocker block(m_table->horizontalHeader()); // the rows are in that order already: no second sort
    m_table->horizontalHeader()->setSortIndicator(3, Qt::AscendingOrder);
}

// ------------------------------------------------------------------------------------------- GanttDiffView
GanttDiffView::GanttDiffView(QWidget* parent) : QWidget(parent)
{
    setMinimumHeight(120);
}

void GanttDiffView::setDiff(std::shared_ptr<const RunDiff> diff, double forkTime)
{
    m_diff = std::move(diff);
    m_forkTime = forkTime;
    m_rows.clear();
    if (m_diff) {
        for (size_t i = 0; i < m_diff->jobs.size(); ++i)
            if (m_diff->jobs[i].moved)
                m_rows.push_back(i);
        const auto& jobs = m_diff->jobs;
        auto bigger = [&](size_t a, size_t b) {
            const double x = std::abs(jobs[a].jctDelta()), y = std::abs(jobs[b].jctDelta());
            const double xa = std::isnan(x) ? -1 : x, ya = std::isnan(y) ? -1 : y;
            return xa != ya ? xa > ya : a < b;
        };
        const size_t top = std::min<size_t>(60, m_rows.size());
        std::partial_sort(m_rows.begin(), m_rows.begin() + long(top), m_rows.end(), bigger);
        m_rows.resize(top);
        // then by submit time, so the picture reads left to right
        std::stable_sort(m_rows.begin(), m_rows.end(), [&](size_t a, size_t b) { return jobs[a].submit < jobs[b].submit; });
    }
    update();
}

void GanttDiffView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QColor text = palette().text().color();
    if (!m_diff || m_rows.empty()) {
        p.setPen(text);
        p.drawText(rect(), Qt::AlignCenter, m_diff ? tr("No job moved.") : tr("Fork a run to see both schedules here."));
        return;
    }
    double t0 = 1e300, t1 = -1e300;
    for (size_t i : m_rows) {
        const JobDelta& j = m_diff->jobs[i];
        for (double t : {j.submit, j.startA, j.startB, j.endA, j.endB})
            if (t >= 0) {
                t0 = std::min(t0, t);
                t1 = std::max(t1, t);
            }
    }
    if (!(t1 > t0))
        t1 = t0 + 1;
    const int left = 70, right = 10, top = 18, bottom = 18;
    const double W = std::max(10, width() - left - right);
    const double rowH = std::max(3.0, double(height() - top - bottom) / double(m_rows.size()));
    auto x = [&](double t) { return left + (t - t0) / (t1 - t0) * W; };
    p.setPen(text);
    QFont f = p.font();
    f.setPointSizeF(std::max(6.0, std::min(9.0, rowH * 0.7)));
    p.setFont(f);
    p.drawText(QRectF(0, 0, width(), top), Qt::AlignLeft | Qt::AlignVCenter,
               tr("  %1 moved job(s), biggest JCT changes first: A grey; B green = sooner, red = later, blue = same JCT").arg(m_rows.size()));
    for (size_t r = 0; r < m_rows.size(); ++r) {
        const JobDelta& j = m_diff->jobs[m_rows[r]];
        const double y = top + double(r) * rowH;
        if (rowH >= 8)
            p.drawText(QRectF(0, y, left - 4, rowH), Qt::AlignRight | Qt::AlignVCenter, QString::number(j.id));
        auto bar = [&](double s, double e, double y0, double h, const QColor& c) {
            if (s < 0)
                return;
            const double end = e >= 0 ? e : t1;
            p.fillRect(QRectF(x(s), y0, std::max(1.0, x(end) - x(s)), h), c);
        };
        const double h = std::max(1.0, rowH * 0.42);
        bar(j.startA, j.endA, y + rowH * 0.06, h, QColor(150, 150, 150));
        const double dj = j.jctDelta();
        const double eps = 1e-6 * std::max(1.0, std::abs(j.jctA));
        bar(j.startB, j.endB, y + rowH * 0.52, h,
            std::isnan(dj) || std::abs(dj) <= eps ? QColor(80, 120, 200) : dj < 0 ? QColor(46, 160, 67) : QColor(200, 60, 50));
    }
    if (m_forkTime >= t0 && m_forkTime <= t1) {
        p.setPen(QPen(QColor(230, 126, 34), 2, Qt::DashLine));
        p.drawLine(QPointF(x(m_forkTime), top), QPointF(x(m_forkTime), height() - bottom));
        p.drawText(QPointF(x(m_forkTime) + 3, height() - 4), tr("fork"));
    }
    p.setPen(text);
    p.drawText(QRectF(left, height() - bottom, W, bottom), Qt::AlignLeft | Qt::AlignVCenter, QString::number(t0 / 3600, 'f', 1) + QStringLiteral(" h"));
    p.drawText(QRectF(left, height() - bottom, W, bottom), Qt::AlignRight | Qt::AlignVCenter, QString::number(t1 / 3600, 'f', 1) + QStringLiteral(" h"));
}

} // namespace ss::ui
