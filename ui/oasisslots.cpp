#include "oasisslots.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <QComboBox>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include "ganttview.h"
#include "io/oasisio.h"
#include "jobcolors.h"
#include "oasisview.h"
#include "policy/oasis/oasissim.h"
#include "viewhelpers.h"

namespace ss::ui {

OasisScheduleSummary parseOasisSchedule(const QString& summary)
{
    static const QRegularExpression re(QStringLiteral(
        "^(\\d+)(?:-(\\d+))? workers?, (\\d+)(?:-(\\d+))? PSs? in slots? ([0-9, -]+?) on .*$"));
    OasisScheduleSummary s;
    const QRegularExpressionMatch m = re.match(summary);
    if (!m.hasMatch())
        return s;
    s.workersLo = m.captured(1).toInt();
    s.workersHi = m.captured(2).isEmpty() ? s.workersLo : m.captured(2).toInt();
    s.psLo = m.captured(3).toInt();
    s.psHi = m.captured(4).isEmpty() ? s.psLo : m.captured(4).toInt();
    for (const QString& part : m.captured(5).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList ab = part.trimmed().split(QLatin1Char('-'));
        bool ok0 = false, ok1 = true;
        const int a = ab[0].toInt(&ok0);
        const int b = ab.size() > 1 ? ab[1].toInt(&ok1) : a;
        if (!ok0 || !ok1 || ab.size() > 2 || b < a)
            return {};
        for (int t = a; t <= b; ++t)
            s.slots.push_back(t);
    }
    s.ok = !s.slots.empty() && s.workersHi >= s.workersLo && s.workersLo > 0;
    return s;
}

OasisSlotsData oasisSlotsOf(const RunEntry& run)
{
    OasisSlotsData d;
    if (!run.out || !isOasisPolicy(run.policy()) || !run.out->log || !run.cluster)
        return d;
    if (const auto it = run.out->spec.options.params.find("oasis.slot"); it != run.out->spec.options.params.end())
        d.slotSeconds = std::max(1.0, std::stod(it->second));
    const double L = d.slotSeconds;
    std::map<int, OasisJobSlots> jobs;
    std::map<int, std::map<int, OasisSlotCell>> cells; // job -> slot -> cell
    for (const DecisionRecord& r : run.out->log->records)
        for (const AdmissionRecord& a : r.admissions) {
            if (a.verdict != Admit::Accept)
                continue;
            const OasisAdmission p = parseOasisAdmission(a.reason);
            const OasisScheduleSummary s = p.ok ? parseOasisSchedule(p.schedule) : OasisScheduleSummary {};
            if (!s.ok)
                continue;
            OasisJobSlots& j = jobs[a.job];
            j.job = a.job;
            j.workersLo = s.workersLo;
            j.workersHi = s.workersHi;
            j.psLo = s.psLo;
            j.psHi = s.psHi;
            for (int t : s.slots) {
                OasisSlotCell& c = cells[a.job][t];
                c.slot = t;
                c.workersLo = s.workersLo;
                c.workersHi = s.workersHi;
                c.psLo = s.psLo;
                c.psHi = s.psHi;
            }
            d.maxWorkers = std::max(d.maxWorkers, s.workersHi);
        }
    // what ran: distinct GPUs per job and slot, from the Gantt rows (one per GPU)
    GanttData built;
    const GanttData* g = run.gantt[0].get();
    if (!g) {
        built = buildGpuSegments(*run.out->log, *run.cluster, GanttRowMode::Gpu);
        g = &built;
    }
    std::map<std::pair<int, int>, std::set<int>> held;
    for (const GanttSegment& s : g->segments) {
        if (!jobs.count(s.job) || !(s.end > s.start))
            continue;
        const int a = int(std::floor(s.start / L + 1e-9));
        const int b = int(std::ceil(s.end / L - 1e-9)) - 1;
        for (int t = a; t <= b; ++t)
            held[{s.job, t}].insert(s.row);
    }
    for (const auto& [key, rows] : held) {
        OasisSlotCell& c = cells[key.first][key.second];
        c.slot = key.second;
        c.held = int(rows.size());
    }
    for (auto& [job, j] : jobs) {
        j.id = run.trace && job >= 0 && size_t(job) < run.trace->jobs.size() ? (long long)run.trace->jobs[size_t(job)].id : job;
        for (const auto& [t, c] : cells[job])
            j.cells.push_back(c);
        d.jobs.push_back(std::move(j));
    }
    auto first = [](const OasisJobSlots& j) {
        for (const OasisSlotCell& c : j.cells)
            if (c.planned())
                return c.slot;
        return j.cells.empty() ? 0 : j.cells.front().slot;
    };
    std::stable_sort(d.jobs.begin(), d.jobs.end(), [&](const OasisJobSlots& a, const OasisJobSlots& b) {
        return first(a) < first(b) || (first(a) == first(b) && a.job < b.job);
    });
    return d;
}

OasisSlotsData oasisSlotsOf(const ss::oasis::OasisScenario& sc, const ss::oasis::OasisRun& run)
{
    OasisSlotsData d;
    d.slotSeconds = sc.slotSeconds;
    std::vector<const ss::oasis::Schedule*> plans(sc.jobs.size(), nullptr);
    for (const ss::oasis::AdmissionDecision& a : run.decisions)
        if (a.admitted && size_t(a.job) < plans.size() && !a.schedule.slots.empty())
            plans[size_t(a.job)] = &a.schedule;
    for (size_t i = 0; i < run.workersOverTime.size() && i < sc.jobs.size(); ++i) {
        if (run.workersOverTime[i].empty())
            continue;
        OasisJobSlots j;
        j.job = int(i);
        j.id = (long long)sc.jobs[i].id;
        j.workersLo = j.psLo = std::numeric_limits<int>::max();
        for (const auto& [t, y] : run.workersOverTime[i]) {
            OasisSlotCell c;
            c.slot = t;
            c.workersLo = c.workersHi = c.held = y;
            c.psLo = c.psHi = sc.jobs[i].psFor(y);
            if (plans[i])
                for (const ss::oasis::SlotAlloc& a : plans[i]->slots)
                    if (a.slot == t)
                        c.psLo = c.psHi = a.ps;
            j.workersLo = std::min(j.workersLo, y);
            j.workersHi = std::max(j.workersHi, y);
            j.psLo = std::min(j.psLo, c.psLo);
            j.psHi = std::max(j.psHi, c.psHi);
            j.cells.push_back(c);
        }
        d.maxWorkers = std::max(d.maxWorkers, j.workersHi);
        d.jobs.push_back(std::move(j));
    }
    std::stable_sort(d.jobs.begin(), d.jobs.end(), [](const OasisJobSlots& a, const OasisJobSlots& b) {
        return a.cells.front().slot < b.cells.front().slot || (a.cells.front().slot == b.cells.front().slot && a.job < b.job);
    });
    return d;
}

// --- the strip ---------------------------------------------------------------------------------------------

OasisSlotStrip::OasisSlotStrip(ss::GanttView* gantt, QWidget* parent) : QWidget(parent), m_gantt(gantt)
{
    setObjectName(QStringLiteral("oasisSlotStrip"));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    if (gantt)
        connect(gantt, &ss::GanttView::viewRangeChanged, this, qOverload<>(&QWidget::update));
}

double OasisSlotStrip::viewStart() const { return m_gantt ? m_gantt->viewStart() : m_t0; }
double OasisSlotStrip::viewEnd() const { return m_gantt ? m_gantt->viewEnd() : m_t1; }

void OasisSlotStrip::setData(OasisSlotsData d)
{
    m_data = std::move(d);
    // own window: the slots of the data
    int lo = std::numeric_limits<int>::max(), hi = 0;
    for (const OasisJobSlots& j : m_data.jobs)
        for (const OasisSlotCell& c : j.cells) {
            lo = std::min(lo, c.slot);
            hi = std::max(hi, c.slot + 1);
        }
    m_t0 = lo < hi ? lo * m_data.slotSeconds : 0;
    m_t1 = lo < hi ? hi * m_data.slotSeconds : 1;
    updateGeometry();
    update();
}

void OasisSlotStrip::setSelectedJob(int job)
{
    if (job == m_selected)
        return;
    m_selected = job;
    update();
}

int OasisSlotStrip::headerHeight() const { return fontMetrics().height() + 4; }

int OasisSlotStrip::rowHeight() const
{
    const int n = std::max<int>(1, int(m_data.jobs.size()));
    return std::clamp((height() - headerHeight()) / n, 3, 16);
}

QSize OasisSlotStrip::sizeHint() const
{
    const int n = int(m_data.jobs.size());
    return {400, headerHeight() + (m_gantt ? std::clamp(n * 14, 14, 210) : std::max(14, n * 14)) + 2};
}

double OasisSlotStrip::xOf(double t) const
{
    if (!m_gantt) {
        const double x0 = 56;
        return x0 + (t - m_t0) / (m_t1 - m_t0) * (width() - x0 - 4);
    }
    return m_gantt->xOf(t) + m_gantt->mapTo(window(), QPoint(0, 0)).x() - mapTo(window(), QPoint(0, 0)).x();
}

void OasisSlotStrip::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const int hh = headerHeight(), rh = rowHeight();
    const double x0 = std::max(0.0, xOf(viewStart()));
    p.setPen(palette().text().color());
    p.drawText(QRect(4, 0, width() - 8, hh), Qt::AlignVCenter | Qt::AlignLeft,
               m_gantt ? tr("OASiS: workers y(t) / PSs z(t) each admitted job reserved per slot (row j<id>; height: "
                            "workers; label: w workers, p PSs; bar below: GPUs held, red: outside the plan)")
                       : tr("Workers y(t) / PSs z(t) per job and slot (row j<id>; height: workers against the job's "
                            "most; label when wide enough: w workers, p PSs; tooltip: the slot's counts)"));
    m_lastCells = 0;
    const double L = m_data.slotSeconds;
    const double v0 = viewStart(), v1 = viewEnd();
    const QFontMetrics fm = fontMetrics();
    for (size_t i = 0; i < m_data.jobs.size(); ++i) {
        const OasisJobSlots& j = m_data.jobs[i];
        const int y = hh + int(i) * rh;
        if (y >= height())
            break;
        if (rh >= 9 && x0 > 8)
            p.drawText(QRect(2, y, int(x0) - 4, rh), Qt::AlignVCenter | Qt::AlignRight, QStringLiteral("j%1").arg(j.id));
        const QColor col = jobColor(j.job);
        const int maxW = std::max(1, j.workersHi);
        for (const OasisSlotCell& c : j.cells) {
            const double t0 = c.slot * L, t1 = t0 + L;
            if (t1 <= v0 || t0 >= v1)
                continue;
            const double a = std::max(x0, xOf(t0)), b = xOf(t1);
            if (b <= a)
                continue;
            ++m_lastCells;
            const int barH = rh >= 6 ? 2 : 1;
            if (c.planned()) {
                const double hFrac = double(c.workersHi) / maxW;
                const double ch = std::max(1.0, (rh - barH - 1) * hFrac);
                p.fillRect(QRectF(a, y + rh - barH - ch, std::max(1.0, b - a - (b - a > 4 ? 1 : 0)), ch), col);
                const QString label = c.workersLo == c.workersHi ? QStringLiteral("%1w %2p").arg(c.workersHi).arg(c.psHi)
                                                                  : QStringLiteral("%1-%2w").arg(c.workersLo).arg(c.workersHi);
                if (rh >= 11 && b - a >= fm.horizontalAdvance(label) + 2) {
                    p.setPen(Qt::black);
                    p.drawText(QRectF(a, y, b - a, rh - barH), Qt::AlignCenter, label);
                }
            }
            if (c.held > 0 && m_gantt) // a slotted run holds exactly what it planned: no bar
                p.fillRect(QRectF(a, y + rh - barH, std::max(1.0, b - a), barH),
                           c.planned() && c.held <= c.workersHi ? palette().text().color() : QColor(220, 40, 40));
        }
        if (j.job == m_selected) {
            p.setPen(QPen(selectionColor(palette()), 1.5));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(x0, y + 0.5, width() - x0 - 1, rh - 1));
        }
    }
    const double cur = m_gantt ? m_gantt->cursorTime() : NAN;
    if (std::isfinite(cur) && cur >= v0 && cur <= v1) {
        p.setPen(QPen(QColor(200, 30, 30), 1));
        p.drawLine(QPointF(xOf(cur), hh), QPointF(xOf(cur), height()));
    }
}

bool OasisSlotStrip::cellAt(const QPoint& pos, int& row, int& cell) const
{
    const int hh = headerHeight(), rh = rowHeight();
    if (pos.y() < hh || pos.x() < xOf(viewStart()))
        return false;
    row = (pos.y() - hh) / rh;
    if (row < 0 || row >= int(m_data.jobs.size()))
        return false;
    const OasisJobSlots& j = m_data.jobs[size_t(row)];
    cell = -1;
    for (size_t k = 0; k < j.cells.size(); ++k) {
        const double t0 = j.cells[k].slot * m_data.slotSeconds;
        if (pos.x() >= xOf(t0) && pos.x() < xOf(t0 + m_data.slotSeconds))
            cell = int(k);
    }
    return true;
}

QString OasisSlotStrip::tipAt(const QPoint& pos) const
{
    int row = 0, k = -1;
    if (!cellAt(pos, row, k))
        return {};
    const OasisJobSlots& j = m_data.jobs[size_t(row)];
    auto range = [](int lo, int hi) { return lo == hi ? QString::number(lo) : QStringLiteral("%1–%2").arg(lo).arg(hi); };
    if (k < 0)
        return tr("job %1: %2 workers, %3 PSs in each of its %4 planned slot(s)")
            .arg(j.id)
            .arg(range(j.workersLo, j.workersHi), range(j.psLo, j.psHi))
            .arg(std::count_if(j.cells.begin(), j.cells.end(), [](const OasisSlotCell& c) { return c.planned(); }));
    const OasisSlotCell& c = j.cells[size_t(k)];
    const double L = m_data.slotSeconds / 60.0;
    QString s = tr("job %1, slot %2 (%3–%4 min): ").arg(j.id).arg(c.slot).arg(c.slot * L, 0, 'g', 6).arg((c.slot + 1) * L, 0, 'g', 6);
    s += c.planned() ? tr("reserved %1 worker(s) y(t) and %2 PS(s) z(t)").arg(range(c.workersLo, c.workersHi), range(c.psLo, c.psHi))
                     : tr("nothing reserved");
    s += c.held > 0 ? tr("; held %1 GPU(s)").arg(c.held) : tr("; held no GPU");
    if (c.held > 0 && !c.planned())
        s += tr(" (outside its plan: an overrun)");
    return s;
}

void OasisSlotStrip::mousePressEvent(QMouseEvent* e)
{
    int row = 0, k = 0;
    if (e->button() == Qt::LeftButton && cellAt(e->position().toPoint(), row, k))
        Q_EMIT jobSelected(m_data.jobs[size_t(row)].job);
}

bool OasisSlotStrip::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const QString tip = tipAt(he->pos());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(he->globalPos(), tip, this);
        return true;
    }
    return QWidget::event(e);
}

// --- a slotted run ------------------------------------------------------------------------------------------

OasisSlottedWindow::OasisSlottedWindow(const QString& path, QWidget* parent)
    : QWidget(parent, Qt::Window), m_sc(std::make_unique<ss::oasis::OasisScenario>(ss::oasis::readScenario(path.toStdString())))
{
    setObjectName(QStringLiteral("oasisSlottedWindow"));
    setWindowTitle(tr("Slotted OASiS run — %1").arg(path));
    auto* v = new QVBoxLayout(this);
    m_policy = new QComboBox(this);
    for (const std::string& p : ss::oasis::oasisPolicyNames())
        m_policy->addItem(QString::fromStdString(p));
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    v->addWidget(hbox({new QLabel(tr("Policy"), this), m_policy}, this));
    v->addWidget(m_summary);
    m_strip = new OasisSlotStrip(nullptr, this);
    auto* area = new QScrollArea(this);
    area->setWidgetResizable(true);
    area->setWidget(m_strip);
    v->addWidget(area, 1);
    connect(m_policy, &QComboBox::currentTextChanged, this, &OasisSlottedWindow::setPolicy);
    resize(1100, 640);
    setPolicy(QStringLiteral("oasis"));
}

OasisSlottedWindow::~OasisSlottedWindow() = default;

void OasisSlottedWindow::setPolicy(const QString& policy)
{
    if (m_policy->currentText() != policy) {
        m_policy->setCurrentText(policy); // re-enters through currentTextChanged
        return;
    }
    ss::oasis::RunOptions o;
    o.keepSchedules = true;
    const ss::oasis::OasisRun run = ss::oasis::runOasisPolicy(*m_sc, policy.toStdString(), o);
    QString s = tr("%1 jobs, %2 worker servers, %3 PS servers, %4 slots of %5 s. %6: total utility %7, %8 admitted, %9 "
                   "completed, mean JCT %10 slots")
                    .arg(m_sc->jobs.size())
                    .arg(m_sc->workers.size())
                    .arg(m_sc->psServers.size())
                    .arg(m_sc->horizon)
                    .arg(m_sc->slotSeconds)
                    .arg(policy)
                    .arg(run.totalUtility, 0, 'f', 2)
                    .arg(run.admitted)
                    .arg(run.completed)
                    .arg(run.meanJctSlots, 0, 'f', 2);
    if (policy == QStringLiteral("oasis"))
        s += tr(", α %1").arg(run.alpha, 0, 'f', 3);
    m_summary->setText(s + tr(". Rows: the jobs that ran, their workers y(t) and PSs z(t) in every slot (elastic)."));
    m_strip->setData(oasisSlotsOf(*m_sc, run));
    m_strip->setMinimumHeight(m_strip->sizeHint().height());
}

QString OasisSlottedWindow::summary() const { return m_summary->text(); }

} // namespace ss::ui
