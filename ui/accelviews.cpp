#include "accelviews.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "jobcolors.h"

namespace ss::ui {

using namespace ss::accel;

QString accelTime(double us)
{
    const double a = std::fabs(us);
    if (a >= 1e6)
        return QStringLiteral("%1 s").arg(us / 1e6, 0, 'f', 2);
    if (a >= 1e3)
        return QStringLiteral("%1 ms").arg(us / 1e3, 0, 'f', a >= 1e5 ? 0 : (a >= 1e4 ? 1 : 2));
    return QStringLiteral("%1 us").arg(us, 0, 'f', 0);
}

QColor tenantColor(int tenant)
{
    // Tableau-like qualitative colours first (they read as "categories"), then golden-ratio hues.
    static const QRgb base[] = {0x4e79a7, 0xf28e2b, 0x59a14f, 0xb07aa1, 0x76b7b2, 0xedc948, 0xff9da7, 0x9c755f};
    if (tenant >= 0 && tenant < int(std::size(base)))
        return QColor::fromRgb(base[tenant]);
    return jobColor(tenant);
}

namespace {

double niceStep(double span, int maxTicks)
{
    const double raw = span / std::max(1, maxTicks);
    const double p = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-9))));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw)
            return m * p;
    return 10 * p;
}

constexpr int kAxis = 20, kLegend = 20;

} // namespace

// ---------------------------------------------------------------- Gantt

AccelGanttView::AccelGanttView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumHeight(120);
}

void AccelGanttView::setRun(const Workload* w, const StudioRun* run)
{
    m_w = w;
    m_run = run;
    m_rows.clear();
    m_t0 = 0;
    m_t1 = 1;
    if (!run)
        m_cursor = -1;
    if (w && run) {
        m_rows.assign(w->chip.subs.size(), {});
        const auto& tl = run->result.timeline;
        for (size_t i = 0; i < tl.size(); ++i)
            if (tl[i].sub >= 0 && size_t(tl[i].sub) < m_rows.size())
                m_rows[size_t(tl[i].sub)].push_back(int(i));
        for (auto& r : m_rows)
            std::sort(r.begin(), r.end(), [&](int a, int b) { return tl[size_t(a)].start < tl[size_t(b)].start; });
        m_t1 = std::max(1.0, run->result.makespan);
    }
    m_v0 = m_t0;
    m_v1 = m_t1;
    update();
}

void AccelGanttView::setCursorTime(double us)
{
    m_cursor = us;
    // keep the cursor in view: recentre when it leaves the visible range
    if (m_run && us >= 0 && (us < m_v0 || us > m_v1)) {
        const double span = m_v1 - m_v0;
        setViewRange(us - span / 2, us + span / 2);
        return;
    }
    update();
}

void AccelGanttView::setViewRange(double t0, double t1)
{
    double span = std::clamp(t1 - t0, 1.0, std::max(1.0, m_t1 - m_t0));
    t0 = std::clamp(t0, m_t0, std::max(m_t0, m_t1 - span));
    m_v0 = t0;
    m_v1 = t0 + span;
    update();
}

int AccelGanttView::labelWidth() const
{
    int w = 40;
    if (m_w)
        for (const SubAccel& s : m_w->chip.subs)
            w = std::max(w, fontMetrics().horizontalAdvance(
                                QStringLiteral("%1 %2").arg(QString::fromStdString(s.name), QString::fromLatin1(toString(s.dataflow)))));
    return w + 10;
}

QRectF AccelGanttView::rowRect(int r) const
{
    const int n = std::max(1, rowCount());
    const double rh = std::min(48.0, double(height() - kAxis - kLegend) / n);
    return QRectF(labelWidth(), kAxis + r * rh, width() - labelWidth(), rh);
}

double AccelGanttView::xOf(double t) const
{
    return labelWidth() + (t - m_v0) / std::max(1e-9, m_v1 - m_v0) * std::max(1, width() - labelWidth());
}

double AccelGanttView::tOf(double x) const
{
    return m_v0 + (x - labelWidth()) / std::max(1, width() - labelWidth()) * (m_v1 - m_v0);
}

void AccelGanttView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    m_lastMiss = 0;
    if (!m_w || !m_run) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Run the accelerator scenario to see its layers on the sub-accelerators."));
        return;
    }
    const auto& tl = m_run->result.timeline;
    const int lw = labelWidth();
    // axis
    const double step = niceStep(m_v1 - m_v0, std::max(2, (width() - lw) / 90));
    p.setPen(pal.color(QPalette::Mid));
    for (double t = std::ceil(m_v0 / step) * step; t <= m_v1; t += step) {
        const double x = xOf(t);
        p.drawLine(QPointF(x, kAxis - 4), QPointF(x, height() - kLegend));
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRectF(x + 2, 0, 90, kAxis - 2), Qt::AlignLeft | Qt::AlignVCenter, accelTime(t));
        p.setPen(pal.color(QPalette::Mid));
    }
    // rows
    for (int r = 0; r < rowCount(); ++r) {
        const QRectF rr = rowRect(r);
        if (r & 1)
            p.fillRect(rr, pal.color(QPalette::AlternateBase));
        const SubAccel& s = m_w->chip.subs[size_t(r)];
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRectF(4, rr.top(), lw - 8, rr.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   QStringLiteral("%1 %2").arg(QString::fromStdString(s.name), QString::fromLatin1(toString(s.dataflow))));
        const auto& runs = m_rows[size_t(r)];
        // runs on a sub-accelerator never overlap, so their ends are sorted too: binary search the visible ones
        auto it = std::lower_bound(runs.begin(), runs.end(), m_v0, [&](int i, double t) { return tl[size_t(i)].end < t; });
        const double gap = rr.height() >= 8 ? 1 : 0;
        for (; it != runs.end() && tl[size_t(*it)].start <= m_v1; ++it) {
            const LayerRun& l = tl[size_t(*it)];
            const double x0 = std::max(double(lw), xOf(l.start)), x1 = std::min(double(width()), xOf(l.end));
            const QRectF box(x0, rr.top() + gap, std::max(1.0, x1 - x0), rr.height() - 2 * gap);
            const Request& q = m_w->requests[size_t(l.request)];
            p.fillRect(box, tenantColor(q.tenant));
            if (!m_run->result.requests[size_t(l.request)].met) {
                // a red band along the bottom: the tenant's colour stays readable even in a 1-px box
                p.fillRect(QRectF(box.left(), box.bottom() - std::max(2.0, box.height() / 5), box.width(),
                                  std::max(2.0, box.height() / 5)),
                           QColor(214, 39, 40));
                ++m_lastMiss;
            }
        }
    }
    // cursor
    if (m_cursor >= m_v0 && m_cursor <= m_v1) {
        p.setPen(QPen(selectionColor(pal), 2));
        p.drawLine(QPointF(xOf(m_cursor), kAxis), QPointF(xOf(m_cursor), height() - kLegend));
    }
    // legend: tenants, then the miss outline
    double x = lw;
    const double y = height() - kLegend + 3;
    p.setPen(pal.color(QPalette::Text));
    for (size_t t = 0; t < m_w->tenants.size() && x < width() - 60; ++t) {
        p.fillRect(QRectF(x, y + 3, 10, 10), tenantColor(int(t)));
        const QString name = QString::fromStdString(m_w->tenants[t].name);
        p.drawText(QPointF(x + 14, y + 12), name);
        x += 24 + fontMetrics().horizontalAdvance(name);
    }
    p.fillRect(QRectF(x, y + 3, 10, 10), pal.color(QPalette::Mid));
    p.fillRect(QRectF(x, y + 10, 10, 3), QColor(214, 39, 40));
    p.setPen(pal.color(QPalette::Text));
    p.drawText(QPointF(x + 14, y + 12), tr("red band: a layer of a request that missed its SLA deadline"));
}

int AccelGanttView::runAt(const QPoint& pos) const
{
    if (!m_run || pos.x() < labelWidth())
        return -1;
    for (int r = 0; r < rowCount(); ++r) {
        if (!rowRect(r).contains(pos))
            continue;
        const double t = tOf(pos.x());
        const double slop = (m_v1 - m_v0) / std::max(1, width() - labelWidth()); // one pixel
        const auto& tl = m_run->result.timeline;
        for (int i : m_rows[size_t(r)])
            if (tl[size_t(i)].start - slop <= t && t <= tl[size_t(i)].end + slop)
                return i;
    }
    return -1;
}

void AccelGanttView::wheelEvent(QWheelEvent* e)
{
    const double f = e->angleDelta().y() > 0 ? 0.8 : 1.25;
    const double at = tOf(e->position().x());
    setViewRange(at - (at - m_v0) * f, at + (m_v1 - at) * f);
}

void AccelGanttView::mousePressEvent(QMouseEvent* e)
{
    m_pressX = int(e->position().x());
    m_pressV0 = m_v0;
    m_pressV1 = m_v1;
    if (e->position().x() >= labelWidth())
        Q_EMIT timeClicked(tOf(e->position().x()));
}

void AccelGanttView::mouseMoveEvent(QMouseEvent* e)
{
    if (!(e->buttons() & Qt::LeftButton) || m_pressX < 0)
        return;
    const double perPx = (m_pressV1 - m_pressV0) / std::max(1, width() - labelWidth());
    const double d = (m_pressX - e->position().x()) * perPx;
    setViewRange(m_pressV0 + d, m_pressV1 + d);
}

bool AccelGanttView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip && m_run) {
        auto* he = static_cast<QHelpEvent*>(e);
        const int i = runAt(he->pos());
        if (i < 0) {
            QToolTip::hideText();
            return true;
        }
        const LayerRun& l = m_run->result.timeline[size_t(i)];
        const Request& q = m_w->requests[size_t(l.request)];
        const Network& n = m_w->networks[size_t(q.network)];
        const RequestOutcome& o = m_run->result.requests[size_t(l.request)];
        QToolTip::showText(he->globalPos(),
                           tr("request %1 (tenant %2), %3 layer %4/%5 '%6'\non %7: %8 \u2192 %9 (%10)\n"
                              "deadline %11, finished %12: %13")
                               .arg(l.request)
                               .arg(QString::fromStdString(m_w->tenants[size_t(q.tenant)].name),
                                    QString::fromStdString(n.name))
                               .arg(l.layer + 1)
                               .arg(n.layers.size())
                               .arg(QString::fromStdString(n.layers[size_t(l.layer)].name),
                                    QString::fromStdString(m_w->chip.subs[size_t(l.sub)].name), accelTime(l.start),
                                    accelTime(l.end), accelTime(l.end - l.start), accelTime(q.deadline),
                                    accelTime(o.finish), o.met ? tr("met") : tr("missed")),
                           this);
        return true;
    }
    return QWidget::event(e);
}

// ---------------------------------------------------------------- chip

ChipView::ChipView(QWidget* parent) : QWidget(parent) { setMinimumWidth(240); }

void ChipView::setRun(const Workload* w, const CostTable* cost, const StudioRun* run)
{
    m_w = w;
    m_cost = cost;
    m_run = run;
    m_rows.clear();
    if (w && run) {
        m_rows.assign(w->chip.subs.size(), {});
        const auto& tl = run->result.timeline;
        for (size_t i = 0; i < tl.size(); ++i)
            if (tl[i].sub >= 0 && size_t(tl[i].sub) < m_rows.size())
                m_rows[size_t(tl[i].sub)].push_back(int(i));
        for (auto& r : m_rows)
            std::sort(r.begin(), r.end(), [&](int a, int b) { return tl[size_t(a)].start < tl[size_t(b)].start; });
    }
    setTime(m_t);
}

void ChipView::setTime(double us)
{
    m_t = us;
    m_running.clear();
    m_demand = 0;
    if (m_w && m_run) {
        m_running.assign(m_w->chip.subs.size(), -1);
        const auto& tl = m_run->result.timeline;
        // a sub-accelerator runs one layer at a time: the last one starting at or before `us`, if still running
        for (size_t s = 0; s < m_rows.size(); ++s) {
            const auto& r = m_rows[s];
            auto it = std::upper_bound(r.begin(), r.end(), us, [&](double t, int i) { return t < tl[size_t(i)].start; });
            if (it == r.begin())
                continue;
            const LayerRun& l = tl[size_t(*(it - 1))];
            if (us < l.end) {
                m_running[s] = *(it - 1);
                m_demand += m_cost->at(m_w->requests[size_t(l.request)].network, l.layer, l.sub).bandwidth;
            }
        }
    }
    update();
}

void ChipView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Window));
    if (!m_w) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, tr("No accelerator scenario."));
        return;
    }
    const Chip& chip = m_w->chip;
    const QFontMetrics fm = fontMetrics();
    const int lh = fm.height();
    p.setPen(pal.color(QPalette::Text));
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(QRectF(6, 4, width() - 12, lh), Qt::AlignLeft,
               tr("Chip %1 at %2").arg(QString::fromStdString(chip.name), accelTime(m_t)));
    p.setFont(font());
    // the shared bandwidth bar: demand against B_sys (the bar's full width is max(demand, B_sys))
    const double B = chip.bandwidth;
    const double full = std::max(B, m_demand);
    const QRectF bar(6, 10 + lh * 3, width() - 12, 14);
    p.drawText(QRectF(6, 6 + lh, width() - 12, lh), Qt::AlignLeft,
               tr("Off-chip bandwidth asked: %1 of %2 GB/s").arg(m_demand / 1000, 0, 'f', 1).arg(B / 1000, 0, 'f', 1));
    p.drawText(QRectF(6, 6 + 2 * lh, width() - 12, lh), Qt::AlignLeft,
               m_demand > B ? tr("oversubscribed: every running layer at %1% speed").arg(int(std::lround(100 * B / m_demand)))
                            : tr("within the budget: every layer at full speed"));
    p.fillRect(bar, pal.color(QPalette::AlternateBase));
    p.fillRect(QRectF(bar.left(), bar.top(), bar.width() * std::min(m_demand, B) / full, bar.height()), QColor(89, 161, 79));
    if (m_demand > B)
        p.fillRect(QRectF(bar.left() + bar.width() * B / full, bar.top(), bar.width() * (m_demand - B) / full, bar.height()),
                   QColor(214, 39, 40));
    p.setPen(pal.color(QPalette::Text));
    p.drawLine(QPointF(bar.left() + bar.width() * B / full, bar.top() - 3), QPointF(bar.left() + bar.width() * B / full, bar.bottom() + 3));
    // one box per sub-accelerator
    const int n = int(chip.subs.size());
    const double top = bar.bottom() + 10;
    const double bh = std::clamp((height() - top - 4) / std::max(1, n) - 6, double(lh * 2 + 8), double(lh * 3 + 14));
    for (int s = 0; s < n; ++s) {
        const SubAccel& sa = chip.subs[size_t(s)];
        const QRectF box(6, top + s * (bh + 6), width() - 12, bh);
        const int li = s < int(m_running.size()) ? m_running[size_t(s)] : -1;
        p.setPen(pal.color(QPalette::Mid));
        p.setBrush(li >= 0 ? tenantColor(m_w->requests[size_t(m_run->result.timeline[size_t(li)].request)].tenant).lighter(160)
                           : pal.color(QPalette::Base));
        p.drawRoundedRect(box, 4, 4);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(box.adjusted(6, 3, -6, 0), Qt::AlignLeft | Qt::AlignTop,
                   tr("%1 · %2 · %3 PEs · %4 KiB buffer")
                       .arg(QString::fromStdString(sa.name), QString::fromLatin1(toString(sa.dataflow)))
                       .arg(sa.pes())
                       .arg(int(sa.bufferBytes / 1024)));
        QString what = tr("idle");
        if (li >= 0) {
            const LayerRun& l = m_run->result.timeline[size_t(li)];
            const Request& q = m_w->requests[size_t(l.request)];
            const Network& net = m_w->networks[size_t(q.network)];
            what = tr("request %1 (%2): %3 layer %4/%5 '%6', %7% done")
                       .arg(l.request)
                       .arg(QString::fromStdString(m_w->tenants[size_t(q.tenant)].name), QString::fromStdString(net.name))
                       .arg(l.layer + 1)
                       .arg(net.layers.size())
                       .arg(QString::fromStdString(net.layers[size_t(l.layer)].name))
                       .arg(int(std::lround(100 * (m_t - l.start) / std::max(1e-9, l.end - l.start))));
        }
        p.drawText(box.adjusted(6, 3 + lh, -6, 0), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, what);
    }
}

} // namespace ss::ui
