#include "ganttview.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <climits>
#include <cmath>
#include <queue>
#include <unordered_map>

#include "jobcolors.h"

namespace ss {

namespace {

QString formatTime(double s, double step)
{
    const bool neg = s < 0;
    s = std::fabs(s);
    QString out;
    if (step < 1)
        out = QString::number(s, 'f', step < 0.1 ? 2 : 1) + QStringLiteral("s");
    else if (step < 60)
        out = s < 60 ? QStringLiteral("%1s").arg(qint64(std::llround(s)))
                     : QStringLiteral("%1m%2s").arg(qint64(s) / 60).arg(qint64(std::llround(s)) % 60);
    else if (step < 3600)
        out = s < 3600 ? QStringLiteral("%1m").arg(qint64(std::llround(s / 60)))
                       : QStringLiteral("%1h%2m").arg(qint64(s) / 3600).arg((qint64(std::llround(s)) % 3600) / 60, 2, 10, QLatin1Char('0'));
    else if (step < 86400)
        out = s < 86400 ? QStringLiteral("%1h").arg(qint64(std::llround(s / 3600)))
                        : QStringLiteral("%1d%2h").arg(qint64(s) / 86400).arg((qint64(std::llround(s)) % 86400) / 3600);
    else
        out = QStringLiteral("%1d").arg(s / 86400, 0, 'g', 4);
    return neg ? QStringLiteral("-") + out : out;
}

double niceStep(double span, int maxTicks)
{
    static const double steps[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
                                   3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800, 1209600, 2592000};
    const double want = span / std::max(1, maxTicks);
    for (double s : steps)
        if (s >= want)
            return s;
    return std::pow(10.0, std::ceil(std::log10(want)));
}

} // namespace

// ---- builders ----------------------------------------------------------------------------------------------

static bool segmentBefore(const GanttSegment& a, const GanttSegment& b)
{
    return a.start < b.start || (a.start == b.start && (a.end < b.end || (a.end == b.end && a.job < b.job)));
}

// Builders sort their output by (row, start, end, job), usually on a worker thread, so that a view taking
// the data only buckets it (setSegments skips rows that are already in order).
static void sortByRow(GanttData& d)
{
    std::sort(d.segments.begin(), d.segments.end(), [](const GanttSegment& a, const GanttSegment& b) {
        return a.row < b.row || (a.row == b.row && segmentBefore(a, b));
    });
}

GanttData buildGpuSegments(const DecisionLog& log, const ClusterSpec& cluster, GanttRowMode mode, double endTime)
{
    GanttData d;
    const bool byGpu = mode == GanttRowMode::Gpu;
    d.rowCount = byGpu ? std::max(cluster.totalGpus(), log.gpuCount) : std::max(cluster.machineCount(), log.machineCount);
    d.rowLabels.reserve(d.rowCount);
    if (byGpu) {
        for (int g = 0; g < d.rowCount; ++g) {
            if (g < cluster.totalGpus()) {
                const int m = cluster.machineOfGpu(g);
                d.rowLabels << QStringLiteral("%1/%2").arg(QString::fromStdString(cluster.machines[size_t(m)].name)).arg(g - cluster.gpuBase(m));
            } else
                d.rowLabels << QStringLiteral("gpu %1").arg(g);
        }
    } else {
        for (int m = 0; m < d.rowCount; ++m)
            d.rowLabels << (m < cluster.machineCount() ? QString::fromStdString(cluster.machines[size_t(m)].name) : QStringLiteral("m%1").arg(m));
    }
    struct Open {
        double start;
        std::vector<int> rows;
    };
    std::unordered_map<int, Open> open;
    auto close = [&](int job, double t) {
        auto it = open.find(job);
        if (it == open.end())
            return;
        for (int r : it->second.rows)
            d.segments.push_back({r, it->second.start, t, job});
        open.erase(it);
    };
    // Same order as Replayer::apply: finished, then preempted, then placements (a re-placement restarts).
    for (const DecisionRecord& r : log.records) {
        for (int j : r.finished)
            close(j, r.time);
        for (int j : r.preempted)
            close(j, r.time);
        for (const PlacementRecord& p : r.placements) {
            if (p.slots.empty())
                continue;
            close(p.job, r.time);
            Open o{r.time, {}};
            for (const GpuSlot& s : p.slots) {
                int row = s.gpu;
                if (!byGpu)
                    row = s.gpu >= 0 && s.gpu < cluster.totalGpus() ? cluster.machineOfGpu(s.gpu) : -1;
                if (row >= 0 && row < d.rowCount && std::find(o.rows.begin(), o.rows.end(), row) == o.rows.end())
                    o.rows.push_back(row);
            }
            open[p.job] = std::move(o);
        }
    }
    const double end = std::isnan(endTime) ? (log.records.empty() ? 0.0 : log.records.back().time) : endTime;
    std::vector<int> still;
    for (const auto& [j, o] : open)
        still.push_back(j);
    std::sort(still.begin(), still.end()); // deterministic order
    for (int j : still)
        close(j, std::max(end, open.at(j).start));
    d.t0 = log.records.empty() ? 0.0 : log.records.front().time;
    d.t1 = end;
    sortByRow(d);
    return d;
}

GanttData buildSegmentsFromJobs(const std::vector<JobRecord>& jobs, JobLanes lanes)
{
    GanttData d;
    double maxEnd = 0;
    for (const auto& j : jobs)
        maxEnd = std::max({maxEnd, j.end, j.start});
    std::vector<const JobRecord*> ran;
    for (const auto& j : jobs)
        if (j.start >= 0)
            ran.push_back(&j);
    std::stable_sort(ran.begin(), ran.end(), [](auto* a, auto* b) { return a->start < b->start; });
    d.t0 = ran.empty() ? 0.0 : ran.front()->start;
    d.t1 = maxEnd;
    // Without placements a job shows from first start to end (unfinished jobs: to the last known time).
    if (lanes == JobLanes::PerJob) {
        for (auto* j : ran) {
            d.segments.push_back({d.rowCount++, j->start, j->end >= 0 ? j->end : maxEnd, j->index});
            d.rowLabels << QString::number(j->id); // the trace id, as every view names a job
        }
        sortByRow(d);
    return d;
    }
    // Greedy interval partitioning: the lane that freed up earliest takes the next job, which is optimal.
    using Lane = std::pair<double, int>; // (busy until, lane)
    std::priority_queue<Lane, std::vector<Lane>, std::greater<>> free;
    for (auto* j : ran) {
        const double e = j->end >= 0 ? j->end : maxEnd;
        int lane;
        if (!free.empty() && free.top().first <= j->start) {
            lane = free.top().second;
            free.pop();
        } else
            lane = d.rowCount++;
        d.segments.push_back({lane, j->start, e, j->index});
        free.push({e, lane});
    }
    for (int i = 0; i < d.rowCount; ++i)
        d.rowLabels << QStringLiteral("lane %1").arg(i);
    sortByRow(d);
    return d;
}

// ---- GanttView ---------------------------------------------------------------------------------------------

GanttView::GanttView(QWidget* parent)
    : QWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

GanttRows indexGantt(int rowCount, QStringList rowLabels, const std::vector<GanttSegment>& segs)
{
    GanttRows g;
    g.rowCount = std::max(0, rowCount);
    g.labels = std::move(rowLabels);
    g.rows.assign(size_t(g.rowCount), {});
    std::vector<size_t> count(size_t(g.rowCount), 0);
    for (const auto& s : segs)
        if (s.row >= 0 && s.row < g.rowCount)
            ++count[size_t(s.row)];
    for (int r = 0; r < g.rowCount; ++r)
        g.rows[size_t(r)].reserve(count[size_t(r)]);
    double t0 = INFINITY, t1 = -INFINITY;
    for (const auto& s : segs) {
        if (s.row < 0 || s.row >= g.rowCount || !(s.end >= s.start))
            continue;
        g.rows[size_t(s.row)].push_back(s);
        t0 = std::min(t0, s.start);
        t1 = std::max(t1, s.end);
    }
    g.maxEnd.assign(size_t(g.rowCount), {});
    for (int r = 0; r < g.rowCount; ++r) {
        auto& v = g.rows[size_t(r)];
        if (!std::is_sorted(v.begin(), v.end(), segmentBefore))
            std::sort(v.begin(), v.end(), segmentBefore);
        auto& me = g.maxEnd[size_t(r)];
        me.resize(v.size());
        double m = -INFINITY;
        for (size_t i = 0; i < v.size(); ++i)
            me[i] = m = std::max(m, v[i].end);
    }
    g.t0 = t0;
    g.t1 = t1;
    return g;
}

void GanttView::setSegments(int rowCount, QStringList rowLabels, std::vector<GanttSegment> segs)
{
    setRows(indexGantt(rowCount, std::move(rowLabels), segs));
}

void GanttView::setRows(const GanttRows& g, double t0, double t1)
{
    m_rowCount = g.rowCount;
    m_labels = g.labels;
    m_rows = g.rows;
    m_maxEnd = g.maxEnd;
    m_scrollRow = 0;
    rebuildMarkRows();
    if (g.t0 <= g.t1)
        setTimeRange(g.t0, g.t1 > g.t0 ? g.t1 : g.t0 + 1);
    else
        setTimeRange(0, 1);
    if (t1 > t0)
        setTimeRange(std::min(t0, m_t0), std::max(t1, m_t1));
    zoomToFit();
    update();
}

void GanttView::setData(GanttData d)
{
    setRows(indexGantt(d.rowCount, std::move(d.rowLabels), d.segments), d.t0, d.t1);
}

void GanttView::setDecisionLog(const DecisionLog* log, const ClusterSpec* cluster, double endTime)
{
    m_log = log;
    m_cluster = cluster;
    m_logEnd = endTime;
    if (m_log && m_cluster)
        setData(buildGpuSegments(*m_log, *m_cluster, m_rowMode, m_logEnd));
    else
        setSegments(0, {}, {});
}

void GanttView::setRowMode(GanttRowMode mode)
{
    if (mode == m_rowMode)
        return;
    m_rowMode = mode;
    if (m_log && m_cluster) {
        const double v0 = m_v0, v1 = m_v1;
        setData(buildGpuSegments(*m_log, *m_cluster, m_rowMode, m_logEnd));
        setViewRange(v0, v1); // switching rows keeps the time window
    }
}

void GanttView::setTimeRange(double t0, double t1)
{
    m_t0 = t0;
    m_t1 = t1 > t0 ? t1 : t0 + 1;
}

void GanttView::zoomToFit()
{
    const double pad = (m_t1 - m_t0) * 0.01;
    setViewRange(m_t0 - pad, m_t1 + pad);
}

void GanttView::setViewRange(double t0, double t1)
{
    // No clamping here: linked views pass ranges back and forth, and a clamp would make them ping-pong.
    if (!(t1 > t0) || !std::isfinite(t0) || !std::isfinite(t1))
        return;
    if (t0 == m_v0 && t1 == m_v1)
        return;
    m_v0 = t0;
    m_v1 = t1;
    update();
    Q_EMIT viewRangeChanged(t0, t1);
}

void GanttView::setCursorTime(double t)
{
    if (t == m_cursor || (std::isnan(t) && std::isnan(m_cursor)))
        return;
    m_cursor = t;
    update();
}

void GanttView::setSelectedJob(int jobIndex)
{
    if (jobIndex == m_selectedJob)
        return;
    m_selectedJob = jobIndex;
    update();
}

void GanttView::setRowHeight(int px)
{
    m_rowHeightFixed = std::max(0, px);
    clampScroll();
    update();
}

std::vector<int> GanttView::visibleSegments(int row, double t0, double t1) const
{
    std::vector<int> out;
    if (row < 0 || row >= m_rowCount)
        return out;
    const auto& v = m_rows[size_t(row)];
    const auto& me = m_maxEnd[size_t(row)];
    // Before `lo` every segment ends by t0 (running max of ends is monotone); from `hi` on all start at/after t1.
    const size_t lo = size_t(std::upper_bound(me.begin(), me.end(), t0) - me.begin());
    const size_t hi = size_t(std::lower_bound(v.begin(), v.end(), t1, [](const GanttSegment& s, double t) { return s.start < t; }) - v.begin());
    for (size_t i = lo; i < hi; ++i)
        if (v[i].end > t0)
            out.push_back(int(i));
    return out;
}

int GanttView::labelWidth() const
{
    if (m_labels.isEmpty() || rowHeight() < 2)
        return 0;
    const QFontMetrics fm = fontMetrics();
    int w = 0;
    for (int i = 0; i < m_labels.size() && i < 4096; ++i)
        w = std::max(w, fm.horizontalAdvance(m_labels[i]));
    return std::min(w + 8, std::max(40, width() / 5));
}

int GanttView::axisHeight() const
{
    return fontMetrics().height() + 6;
}

int GanttView::rowHeight() const
{
    if (m_rowHeightFixed > 0)
        return m_rowHeightFixed;
    if (m_rowCount == 0)
        return 16;
    return std::clamp((height() - axisHeight()) / m_rowCount, 2, 22);
}

int GanttView::visibleRowCount() const
{
    return std::max(1, (height() - axisHeight()) / rowHeight());
}

void GanttView::clampScroll()
{
    m_scrollRow = std::clamp(m_scrollRow, 0, std::max(0, m_rowCount - visibleRowCount()));
}

double GanttView::xOf(double t) const
{
    const double x0 = labelWidth();
    return x0 + (t - m_v0) / (m_v1 - m_v0) * (width() - x0);
}

QRectF GanttView::rowRect(int row) const
{
    const int rh = rowHeight();
    return QRectF(labelWidth(), axisHeight() + (row - m_scrollRow) * rh, width() - labelWidth(), rh);
}

QSize GanttView::sizeHint() const
{
    return {700, 300};
}

QSize GanttView::minimumSizeHint() const
{
    return {200, 80};
}

void GanttView::resizeEvent(QResizeEvent*)
{
    clampScroll();
}

void GanttView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette& pal = palette();
    const bool dark = isDarkPalette(pal);
    p.fillRect(rect(), pal.color(QPalette::Base));
    p.setRenderHint(QPainter::Antialiasing, false);
    const QFontMetrics fm = fontMetrics();
    const int lw = labelWidth(), ah = axisHeight(), rh = rowHeight();
    const double plotW = width() - lw;
    const double scale = plotW / (m_v1 - m_v0);

    // Axis with nice ticks, and faint grid lines.
    p.fillRect(QRect(0, 0, width(), ah), pal.color(QPalette::Window));
    const double step = niceStep(m_v1 - m_v0, std::max(2, int(plotW / 90)));
    const QColor grid = dark ? QColor(60, 60, 64) : QColor(232, 232, 236);
    for (double t = std::ceil(m_v0 / step) * step; t <= m_v1; t += step) {
        const int x = int(lw + (t - m_v0) * scale); // as xOf(t), without measuring the labels again
        p.setPen(grid);
        p.drawLine(x, ah, x, height());
        p.setPen(pal.color(QPalette::WindowText));
        p.drawLine(x, ah - 4, x, ah - 1);
        p.drawText(QRect(x + 2, 0, 90, ah - 3), Qt::AlignLeft | Qt::AlignVCenter, formatTime(t, step));
    }

    const int firstRow = m_scrollRow;
    const int lastRow = std::min(m_rowCount, firstRow + visibleRowCount() + 1);
    const int gap = rh >= 6 ? 1 : 0;
    const double xLeft = lw, xRight = width();

    // Collect rectangles per colour; sub-pixel neighbours merge into one rectangle coloured by the job
    // that covers most of it (what the eye would see).
    std::unordered_map<QRgb, std::vector<QRectF>> batches;
    std::unordered_map<QRgb, std::vector<QRectF>> secondary; // style 1: lighter and hatched
    std::vector<QRectF> selected;
    int rects = 0;
    int lastJob = INT_MIN, lastStyle = -1;
    std::vector<QRectF>* lastBatch = nullptr; // consecutive rectangles are often the same job
    for (int r = firstRow; r < lastRow; ++r) {
        const double y = ah + (r - firstRow) * rh;
        if (rh >= 4 && (r & 1))
            p.fillRect(QRectF(xLeft, y, plotW, rh), dark ? QColor(40, 40, 44) : QColor(246, 246, 248));
        const auto& segs = m_rows[size_t(r)];
        const auto vis = visibleSegments(r, m_v0, m_v1);
        double px0 = 0, px1 = -1e9, bestLen = -1;
        int bestJob = -1, bestStyle = 0;
        bool pending = false;
        auto flush = [&] {
            if (!pending)
                return;
            if (bestJob != lastJob || bestStyle != lastStyle) {
                lastJob = bestJob;
                lastStyle = bestStyle;
                lastBatch = &(bestStyle ? secondary : batches)[jobRgb(bestJob)];
            }
            lastBatch->push_back(QRectF(px0, y, std::max(1.0, px1 - px0), rh - gap));
            ++rects;
            pending = false;
        };
        for (int i : vis) {
            const GanttSegment& s = segs[size_t(i)];
            const double x0 = std::max(xLeft, xLeft + (s.start - m_v0) * scale);
            const double x1 = std::min(xRight, xLeft + (s.end - m_v0) * scale);
            if (m_selectedJob >= 0 && s.job == m_selectedJob)
                selected.push_back(QRectF(x0, y, std::max(1.0, x1 - x0), rh - gap));
            const bool tiny = x1 - x0 < 1.0;
            if (pending && x0 <= px1 + 1.0 && (tiny || px1 - px0 < 1.0 || (s.job == bestJob && s.style == bestStyle))) {
                px1 = std::max(px1, x1);
                if (x1 - x0 > bestLen) {
                    bestLen = x1 - x0;
                    bestJob = s.job;
                    bestStyle = s.style;
                }
                continue;
            }
            flush();
            px0 = x0;
            px1 = x1;
            bestLen = x1 - x0;
            bestJob = s.job;
            bestStyle = s.style;
            pending = true;
        }
        flush();
    }
    p.setPen(Qt::NoPen);
    for (const auto& [rgb, v] : batches) {
        p.setBrush(QColor::fromRgb(rgb));
        p.drawRects(v.data(), int(v.size()));
    }
    const QColor base = pal.color(QPalette::Base);
    for (const auto& [rgb, v] : secondary) {
        // half way to the background, with hatching in the job's colour: the same job, visibly weaker
        const QColor c = QColor::fromRgb(rgb);
        p.setBrush(QColor((c.red() + base.red()) / 2, (c.green() + base.green()) / 2, (c.blue() + base.blue()) / 2));
        p.drawRects(v.data(), int(v.size()));
        p.setBrush(QBrush(c.darker(115), Qt::BDiagPattern));
        p.drawRects(v.data(), int(v.size()));
    }
    m_lastRects = rects;
    if (!selected.empty()) {
        p.setPen(QPen(selectionColor(pal), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRects(selected.data(), int(selected.size()));
    }

    paintOverlays(p, firstRow, lastRow, ah, rh, lw);

    // Row labels.
    if (lw > 0) {
        p.fillRect(QRect(0, ah, lw, height() - ah), pal.color(QPalette::Window));
        p.setPen(pal.color(QPalette::WindowText));
        // Thin rows: label every k-th row (text centred on it), so labels never overlap.
        const int step = std::max(1, (fm.height() + rh - 1) / rh);
        for (int r = firstRow - firstRow % step; r < lastRow && r < m_labels.size(); r += step) {
            if (r < firstRow)
                continue;
            const int cy = ah + (r - firstRow) * rh + rh / 2;
            p.drawText(QRect(2, cy - fm.height() / 2, lw - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                       fm.elidedText(m_labels[r], Qt::ElideMiddle, lw - 6));
            if (step > 1)
                p.drawLine(lw - 3, cy, lw - 1, cy);
        }
    }
    if (std::isfinite(m_cursor) && m_cursor >= m_v0 && m_cursor <= m_v1) {
        p.setPen(QPen(dark ? QColor(255, 90, 90) : QColor(210, 20, 20), 2));
        const int x = int(std::lround(lw + (m_cursor - m_v0) * scale));
        p.drawLine(x, 0, x, height());
    }
    if (m_rowCount == 0) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No schedule"));
    }
}

void GanttView::setPeriodLines(double period)
{
    m_period = period > 0 && std::isfinite(period) ? period : 0;
    update();
}

void GanttView::setMarks(std::vector<GanttMark> marks)
{
    std::stable_sort(marks.begin(), marks.end(), [](const GanttMark& a, const GanttMark& b) { return a.t < b.t; });
    m_marks = std::move(marks);
    rebuildMarkRows();
    update();
}

void GanttView::rebuildMarkRows()
{
    m_markRow.clear();
    if (m_marks.empty())
        return;
    // one pass over the segments: the row of each job's latest-ending segment (the lowest row on ties)
    std::vector<double> lastEnd;
    for (int r = 0; r < m_rowCount; ++r)
        for (const GanttSegment& s : m_rows[size_t(r)]) {
            if (s.job < 0)
                continue;
            if (size_t(s.job) >= m_markRow.size()) {
                m_markRow.resize(size_t(s.job) + 1, -1);
                lastEnd.resize(size_t(s.job) + 1, -INFINITY);
            }
            if (s.end > lastEnd[size_t(s.job)]) {
                lastEnd[size_t(s.job)] = s.end;
                m_markRow[size_t(s.job)] = r;
            }
        }
}

void GanttView::paintOverlays(QPainter& p, int firstRow, int lastRow, int ah, int rh, int lw)
{
    // x from lw and the scale, not xOf(): that measures every row label each call
    const QPalette& pal = palette();
    const bool dark = isDarkPalette(pal);
    const double xLeft = lw;
    const double scale = (width() - xLeft) / (m_v1 - m_v0);
    p.setRenderHint(QPainter::Antialiasing, false);
    if (m_period > 0 && m_period * scale >= 8) {
        // dashes as one batch of 1 x 3 px rectangles in an opaque, pre-blended colour
        const QColor ink = dark ? QColor(230, 230, 240) : QColor(30, 30, 50);
        const QColor bg = pal.color(QPalette::Base);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor((ink.red() * 3 + bg.red() * 2) / 5, (ink.green() * 3 + bg.green() * 2) / 5,
                          (ink.blue() * 3 + bg.blue() * 2) / 5));
        const int yTop = ah, yBottom = ah + (lastRow - firstRow) * rh;
        std::vector<QRect> dashes;
        for (double k = std::ceil(m_v0 / m_period); k * m_period <= m_v1; k += 1) {
            const int x = int(std::lround(xLeft + (k * m_period - m_v0) * scale));
            if (x < xLeft)
                continue;
            for (int y = yTop; y < yBottom; y += 6)
                dashes.emplace_back(x, y, 1, std::min(3, yBottom - y));
        }
        p.drawRects(dashes.data(), int(dashes.size()));
    }
    m_lastMarks = 0;
    if (m_marks.empty() || rh < 3)
        return;
    const QColor met = dark ? QColor(230, 230, 235) : QColor(30, 30, 40);
    const QColor missed = dark ? QColor(255, 90, 90) : QColor(200, 0, 0);
    auto it = std::lower_bound(m_marks.begin(), m_marks.end(), m_v0, [](const GanttMark& m, double t) { return m.t < t; });
    const double tri = std::clamp(rh * 0.25, 1.5, 4.0);
    p.setRenderHint(QPainter::Antialiasing, true);
    for (; it != m_marks.end() && it->t <= m_v1; ++it) {
        const int row = markRow(it->job);
        if (row < firstRow || row >= lastRow)
            continue;
        const double x = xLeft + (it->t - m_v0) * scale;
        const double y = ah + (row - firstRow) * rh;
        const QColor c = (it->flags & GanttMark::kMarkMissed) ? missed : met;
        p.setPen(QPen(c, 1.5));
        p.drawLine(QPointF(x, y), QPointF(x, y + rh - 1));
        const QPointF t[3] = {{x - tri, y}, {x + tri, y}, {x, y + tri * 1.4}};
        p.setBrush((it->flags & GanttMark::kMarkLater) ? QBrush(pal.color(QPalette::Base)) : QBrush(c));
        p.drawPolygon(t, 3);
        ++m_lastMarks;
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

const GanttSegment* GanttView::segmentAt(const QPoint& pos) const
{
    const int rh = rowHeight();
    if (pos.y() < axisHeight() || pos.x() < labelWidth())
        return nullptr;
    const int row = m_scrollRow + (pos.y() - axisHeight()) / rh;
    if (row < 0 || row >= m_rowCount)
        return nullptr;
    const double perPx = (m_v1 - m_v0) / std::max(1, width() - labelWidth());
    const double t = m_v0 + (pos.x() - labelWidth()) * perPx;
    const auto vis = visibleSegments(row, t - perPx, t + perPx);
    if (vis.empty())
        return nullptr;
    // Prefer the segment that really contains t, else the nearest one (within a pixel).
    const auto& segs = m_rows[size_t(row)];
    for (auto it = vis.rbegin(); it != vis.rend(); ++it)
        if (segs[size_t(*it)].start <= t && segs[size_t(*it)].end >= t)
            return &segs[size_t(*it)];
    return &segs[size_t(vis.back())];
}

void GanttView::wheelEvent(QWheelEvent* e)
{
    const double steps = e->angleDelta().y() / 120.0;
    const bool overflow = m_rowCount > visibleRowCount();
    if (e->modifiers() & Qt::ShiftModifier) {
        const double w = m_v1 - m_v0;
        setViewRange(m_v0 - steps * 0.1 * w, m_v1 - steps * 0.1 * w);
    } else if ((e->modifiers() & Qt::ControlModifier) || !overflow) {
        // Zoom around the mouse so the point under it stays put.
        const double plotW = std::max(1, width() - labelWidth());
        const double f = std::clamp((e->position().x() - labelWidth()) / plotW, 0.0, 1.0);
        const double tm = m_v0 + f * (m_v1 - m_v0);
        const double maxW = (m_t1 - m_t0) * 1.2;
        const double w = std::clamp((m_v1 - m_v0) * std::pow(0.8, steps), 1e-3, std::max(maxW, 1e-3));
        setViewRange(tm - f * w, tm + (1 - f) * w);
    } else {
        m_scrollRow -= int(std::lround(steps * 3));
        clampScroll();
        update();
    }
    e->accept();
}

void GanttView::mousePressEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(e);
    m_dragging = true;
    m_dragMoved = false;
    m_pressPos = e->position().toPoint();
    m_pressV0 = m_v0;
    m_pressV1 = m_v1;
    m_pressScroll = m_scrollRow;
}

void GanttView::mouseMoveEvent(QMouseEvent* e)
{
    if (!m_dragging)
        return;
    const QPoint d = e->position().toPoint() - m_pressPos;
    if (!m_dragMoved && d.manhattanLength() < 4)
        return;
    m_dragMoved = true;
    setCursor(Qt::ClosedHandCursor);
    const double perPx = (m_pressV1 - m_pressV0) / std::max(1, width() - labelWidth());
    setViewRange(m_pressV0 - d.x() * perPx, m_pressV1 - d.x() * perPx);
    m_scrollRow = m_pressScroll - d.y() / rowHeight();
    clampScroll();
    update();
}

void GanttView::mouseReleaseEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton || !m_dragging)
        return QWidget::mouseReleaseEvent(e);
    m_dragging = false;
    unsetCursor();
    if (m_dragMoved)
        return;
    const QPoint pos = e->position().toPoint();
    if (pos.x() >= labelWidth())
        Q_EMIT timeClicked(m_v0 + (pos.x() - labelWidth()) * (m_v1 - m_v0) / std::max(1, width() - labelWidth()));
    const GanttSegment* s = segmentAt(pos);
    const int job = s ? s->job : -1;
    if (job != m_selectedJob) {
        setSelectedJob(job);
        Q_EMIT jobSelected(job);
    }
}

bool GanttView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const GanttSegment* s = segmentAt(he->pos());
        if (!s) {
            QToolTip::hideText();
            return true;
        }
        const QString row = s->row < m_labels.size() ? m_labels[s->row] : QString::number(s->row);
        QToolTip::showText(he->globalPos(),
                           tr("job %1 on %2\n%3 \u2192 %4 (%5)")
                               .arg(s->job)
                               .arg(row, formatTime(s->start, 1), formatTime(s->end, 1), formatTime(s->end - s->start, 1))
                               + (s->style == 1 ? tr("\nhatched: secondary (opportunistic) time") : QString()),
                           this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace ss
