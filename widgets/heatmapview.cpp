#include "heatmapview.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "jobcolors.h"

namespace ss {

namespace {
constexpr int kBarWidth = 12;
constexpr int kMargin = 4;

QString jobLabel(const Trace* trace, int job)
{
    if (trace && job >= 0 && size_t(job) < trace->jobs.size())
        return QString::number(trace->jobs[size_t(job)].id);
    return QStringLiteral("j%1").arg(job);
}
} // namespace

// ---- builders ----------------------------------------------------------------------------------------------
// Decisions are shown counted from 1, as the stepper title and --goto-decision count them (the log's index is
// 0-based): "#5" is the fifth decision everywhere.

HeatmapData priorityMatrix(const DecisionRecord& r, const Trace* trace)
{
    HeatmapData d;
    d.rows = 1;
    d.cols = int(r.queue.size());
    d.rowLabels << QStringLiteral("priority");
    bool anyStd = false;
    for (const auto& q : r.queue) {
        d.values.push_back(q.priority);
        d.colLabels << jobLabel(trace, q.job);
        d.colJobs.push_back(q.job);
        anyStd = anyStd || std::isfinite(q.priorityStd);
    }
    if (anyStd)
        for (const auto& q : r.queue)
            d.uncertainty.push_back(q.priorityStd);
    d.title = QStringLiteral("#%1  t=%2 s").arg(r.index + 1).arg(r.time, 0, 'f', 0);
    return d;
}

HeatmapData affinityMatrix(const DecisionRecord& r, int machineCount, const QStringList& machineNames, const Trace* trace)
{
    HeatmapData d;
    d.title = QStringLiteral("#%1  t=%2 s").arg(r.index + 1).arg(r.time, 0, 'f', 0);
    std::vector<const PlacementRecord*> ps;
    bool sparse = false;
    for (const auto& p : r.placements)
        if (!p.affinity.empty()) {
            ps.push_back(&p);
            sparse = sparse || !p.machines.empty();
        }
    // Dense logs show every machine; top-K logs show the union of listed machines (a big cluster would
    // otherwise be a wall of NaN).
    std::vector<int> cols;
    if (sparse) {
        for (auto* p : ps)
            for (uint32_t m : p->machines)
                cols.push_back(int(m));
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    } else {
        int n = machineCount;
        for (auto* p : ps)
            n = std::max(n, int(p->affinity.size()));
        for (int m = 0; m < n; ++m)
            cols.push_back(m);
    }
    std::unordered_map<int, int> colOf;
    for (int i = 0; i < int(cols.size()); ++i)
        colOf[cols[size_t(i)]] = i;
    d.rows = int(ps.size());
    d.cols = int(cols.size());
    d.values.assign(size_t(d.rows) * size_t(d.cols), kNoScore);
    bool anyVar = false;
    for (auto* p : ps)
        anyVar = anyVar || !p->affinityVar.empty();
    if (anyVar)
        d.uncertainty.assign(d.values.size(), kNoScore);
    for (int i = 0; i < d.rows; ++i) {
        const PlacementRecord& p = *ps[size_t(i)];
        for (size_t k = 0; k < p.affinity.size(); ++k) {
            const int m = p.machineOf(k);
            auto it = colOf.find(m);
            if (it == colOf.end())
                continue;
            const size_t idx = size_t(i) * size_t(d.cols) + size_t(it->second);
            d.values[idx] = p.affinity[k];
            if (anyVar && k < p.affinityVar.size())
                d.uncertainty[idx] = std::sqrt(std::max(0.f, p.affinityVar[k])); // variance -> std
        }
        d.rowLabels << jobLabel(trace, p.job);
        d.rowJobs.push_back(p.job);
    }
    for (int m : cols)
        d.colLabels << (m < machineNames.size() ? machineNames[m] : QStringLiteral("m%1").arg(m));
    return d;
}

HeatmapData allocationMatrix(const DecisionRecord& r, int maxJobs, const Trace* trace)
{
    HeatmapData d;
    const AllocationRecord& a = r.allocation;
    d.title = QStringLiteral("#%1  t=%2 s").arg(r.index).arg(r.time, 0, 'f', 0);
    d.rows = int(std::min<size_t>(a.jobs.size(), size_t(std::max(0, maxJobs))));
    d.cols = int(a.types.size());
    d.values.assign(size_t(d.rows) * size_t(d.cols), kNoScore);
    for (int i = 0; i < d.rows; ++i) {
        for (int t = 0; t < d.cols; ++t)
            d.values[size_t(i) * size_t(d.cols) + size_t(t)] = a.at(size_t(i), size_t(t));
        const bool est = size_t(i) < a.estimated.size() && a.estimated[size_t(i)];
        d.rowLabels << jobLabel(trace, a.jobs[size_t(i)]) + (est ? QStringLiteral("*") : QString());
        d.rowJobs.push_back(a.jobs[size_t(i)]);
    }
    for (const std::string& t : a.types)
        d.colLabels << QString::fromStdString(t);
    return d;
}

HeatmapData priorityHistory(const DecisionLog& log, int first, int last, int maxJobs, const Trace* trace)
{
    HeatmapData d;
    first = std::max(first, 0);
    last = std::min(last, int(log.records.size()) - 1);
    if (last < first)
        return d;
    std::unordered_map<int, int> rowOf;
    for (int k = first; k <= last; ++k)
        for (const auto& q : log.records[size_t(k)].queue)
            if (!rowOf.count(q.job) && int(rowOf.size()) < maxJobs) {
                rowOf[q.job] = int(d.rowJobs.size());
                d.rowJobs.push_back(q.job);
                d.rowLabels << jobLabel(trace, q.job);
            }
    d.rows = int(d.rowJobs.size());
    d.cols = last - first + 1;
    d.values.assign(size_t(d.rows) * size_t(d.cols), kNoScore);
    for (int k = first; k <= last; ++k) {
        d.colLabels << QStringLiteral("#%1").arg(log.records[size_t(k)].index + 1);
        for (const auto& q : log.records[size_t(k)].queue) {
            auto it = rowOf.find(q.job);
            if (it != rowOf.end())
                d.values[size_t(it->second) * size_t(d.cols) + size_t(k - first)] = q.priority;
        }
    }
    d.title = QStringLiteral("priority, decisions %1..%2").arg(first + 1).arg(last + 1);
    return d;
}

// ---- HeatmapView -------------------------------------------------------------------------------------------

HeatmapView::HeatmapView(QWidget* parent)
    : QWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void HeatmapView::setMatrix(int rows, int cols, std::vector<float> values, QStringList rowLabels, QStringList colLabels)
{
    if (rows < 0 || cols < 0 || values.size() != size_t(rows) * size_t(cols)) {
        rows = cols = 0;
        values.clear();
    }
    m_rows = rows;
    m_cols = cols;
    m_values = std::move(values);
    m_rowLabels = std::move(rowLabels);
    m_colLabels = std::move(colLabels);
    m_unc.clear();
    m_rowJobs.clear();
    m_colJobs.clear();
    rebuildImage();
    relayout();
    update();
}

void HeatmapView::setUncertainty(std::vector<float> values)
{
    m_unc = values.size() == m_values.size() ? std::move(values) : std::vector<float>{};
    rebuildImage();
    update();
}

void HeatmapView::setData(HeatmapData d)
{
    // One image rebuild (setMatrix + setUncertainty would build it twice).
    if (d.rows < 0 || d.cols < 0 || d.values.size() != size_t(d.rows) * size_t(d.cols))
        d = HeatmapData{};
    m_rows = d.rows;
    m_cols = d.cols;
    m_values = std::move(d.values);
    m_unc = d.uncertainty.size() == m_values.size() ? std::move(d.uncertainty) : std::vector<float>{};
    m_rowLabels = std::move(d.rowLabels);
    m_colLabels = std::move(d.colLabels);
    m_rowJobs = std::move(d.rowJobs);
    m_colJobs = std::move(d.colJobs);
    m_title = std::move(d.title);
    rebuildImage();
    relayout();
    update();
}

void HeatmapView::setRowJobs(std::vector<int> jobs)
{
    m_rowJobs = std::move(jobs);
    update();
}

void HeatmapView::setColJobs(std::vector<int> jobs)
{
    m_colJobs = std::move(jobs);
    update();
}

void HeatmapView::setColorRange(float min, float max)
{
    m_autoRange = false;
    m_min = min;
    m_max = max;
    rebuildImage();
    update();
}

int HeatmapView::labelDigits() const
{
    int d = 3;
    while (d < 9 && m_min != m_max
           && QString::number(double(m_min), 'g', d) == QString::number(double(m_max), 'g', d))
        ++d;
    return d;
}

std::pair<QString, QString> HeatmapView::rangeLabels() const
{
    const int d = labelDigits();
    return {QString::number(double(m_min), 'g', d), QString::number(double(m_max), 'g', d)};
}

void HeatmapView::setAutoColorRange()
{
    m_autoRange = true;
    rebuildImage();
    update();
}

void HeatmapView::setTitle(const QString& title)
{
    m_title = title;
    relayout();
    update();
}

void HeatmapView::setLegendVisible(bool visible)
{
    m_legend = visible;
    relayout();
    update();
}

void HeatmapView::setColorBarVisible(bool visible)
{
    m_colorBar = visible;
    relayout();
    update();
}

void HeatmapView::setSelectedJob(int jobIndex)
{
    if (jobIndex == m_selectedJob)
        return;
    m_selectedJob = jobIndex;
    update();
}

QRgb HeatmapView::colorFor(float v) const
{
    const double span = double(m_max) - double(m_min);
    return scoreRgb(span > 0 ? (double(v) - m_min) / span : 1.0);
}

void HeatmapView::rebuildImage()
{
    m_hasNaN = false;
    if (m_autoRange) {
        float lo = INFINITY, hi = -INFINITY;
        for (float v : m_values)
            if (std::isfinite(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        m_min = lo <= hi ? lo : 0.f;
        m_max = lo <= hi ? hi : 1.f;
    }
    if (m_rows == 0 || m_cols == 0) {
        m_image = QImage();
        return;
    }
    m_image = QImage(m_cols, m_rows, QImage::Format_RGB32);
    const bool dark = isDarkPalette(palette());
    const QRgb nanRgb = dark ? qRgb(85, 85, 85) : qRgb(200, 200, 200);
    const double span = double(m_max) - double(m_min);
    const double inv = span > 0 ? 1.0 / span : 0.0;
    for (int r = 0; r < m_rows; ++r) {
        auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(r));
        const size_t off = size_t(r) * size_t(m_cols);
        for (int c = 0; c < m_cols; ++c) {
            const float v = m_values[off + size_t(c)];
            if (!std::isfinite(v)) {
                line[c] = nanRgb;
                m_hasNaN = true;
                continue;
            }
            // The colour is the colour bar's for the value, whatever its uncertainty (drawn as whiskers).
            line[c] = scoreRgb(span > 0 ? std::clamp((double(v) - m_min) * inv, 0.0, 1.0) : 1.0);
        }
    }
}

void HeatmapView::ensureLayout() const
{
    if (m_layoutSize != size())
        const_cast<HeatmapView*>(this)->relayout();
}

void HeatmapView::relayout()
{
    m_layoutSize = size();
    const QFontMetrics fm = fontMetrics();
    const int titleH = (m_title.isEmpty() ? 0 : fm.height() + 2) + (m_unc.empty() || !m_legend ? 0 : fm.height() + 2);
    int labelW = 0;
    for (int i = 0; i < m_rowLabels.size() && i < 2000; ++i)
        labelW = std::max(labelW, fm.horizontalAdvance(m_rowLabels[i]));
    labelW = std::min(labelW + 4, std::max(40, width() / 4));
    int colLabelH = 0;
    for (int i = 0; i < m_colLabels.size() && i < 2000; ++i)
        colLabelH = std::max(colLabelH, fm.horizontalAdvance(m_colLabels[i]));
    colLabelH = std::min(colLabelH + 4, std::max(30, height() / 4));
    const auto [lo, hi] = rangeLabels();
    const int barW = m_colorBar ? kBarWidth + 8
                                      + std::max({fm.horizontalAdvance(QStringLiteral("-0.0000")),
                                                  fm.horizontalAdvance(lo), fm.horizontalAdvance(hi)})
                                : 0;
    m_plot = QRectF(kMargin + labelW, kMargin + titleH, std::max(1, width() - 2 * kMargin - labelW - barW),
                    std::max(1, height() - 2 * kMargin - titleH - colLabelH));
}

QRectF HeatmapView::cellRect(int r, int c) const
{
    ensureLayout();
    if (m_rows == 0 || m_cols == 0)
        return {};
    const double cw = m_plot.width() / m_cols, ch = m_plot.height() / m_rows;
    return QRectF(m_plot.left() + c * cw, m_plot.top() + r * ch, cw, ch);
}

std::pair<int, int> HeatmapView::cellAt(const QPointF& p) const
{
    ensureLayout();
    if (m_rows == 0 || m_cols == 0 || !m_plot.contains(p))
        return {-1, -1};
    const int c = std::clamp(int((p.x() - m_plot.left()) / m_plot.width() * m_cols), 0, m_cols - 1);
    const int r = std::clamp(int((p.y() - m_plot.top()) / m_plot.height() * m_rows), 0, m_rows - 1);
    return {r, c};
}

bool HeatmapView::whiskersVisible() const
{
    ensureLayout();
    if (m_unc.empty() || m_rows == 0 || m_cols == 0)
        return false;
    return m_plot.width() / m_cols >= 5 && m_plot.height() / m_rows >= 8 && size_t(m_rows) * size_t(m_cols) <= 20000;
}

QString HeatmapView::uncertaintyLegend() const
{
    if (m_unc.empty())
        return {};
    const double span = double(m_max) - double(m_min);
    if (!(span > 0))
        return tr("± std in each cell's tooltip (one value: the colour bar has no span to measure it by)");
    if (!whiskersVisible())
        return tr("± std in each cell's tooltip (cells too small for whiskers)");
    return tr("whisker = ± std; a cell's height = the colour bar's span (%1)").arg(span, 0, 'g', 3);
}

QSize HeatmapView::sizeHint() const
{
    return {360, 240};
}

QSize HeatmapView::minimumSizeHint() const
{
    return {120, 80};
}

void HeatmapView::resizeEvent(QResizeEvent*)
{
    relayout();
}

void HeatmapView::paintEvent(QPaintEvent*)
{
    ensureLayout();
    QPainter p(this);
    const QPalette& pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Window));
    const QFontMetrics fm = fontMetrics();
    p.setPen(pal.color(QPalette::WindowText));
    if (!m_title.isEmpty())
        p.drawText(QRect(kMargin, kMargin, width() - 2 * kMargin, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(m_title, Qt::ElideRight, width() - 2 * kMargin));
    if (m_image.isNull()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No data"));
        return;
    }
    // One pixel per cell, scaled without smoothing: the whole matrix costs one drawImage.
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(m_plot, m_image);

    const double cw = m_plot.width() / m_cols, ch = m_plot.height() / m_rows;
    if (m_hasNaN && cw >= 4 && ch >= 4 && size_t(m_rows) * size_t(m_cols) <= 100000) {
        p.setPen(Qt::NoPen);
        p.setBrush(QBrush(isDarkPalette(pal) ? QColor(140, 140, 140) : QColor(130, 130, 130), Qt::BDiagPattern));
        for (int r = 0; r < m_rows; ++r)
            for (int c = 0; c < m_cols; ++c)
                if (!std::isfinite(m_values[size_t(r) * size_t(m_cols) + size_t(c)]))
                    p.drawRect(cellRect(r, c));
    }
    // Values in the cells when they are big enough to read (with the colour bar's digits: "0." and the digits).
    const int digits = labelDigits();
    if (cw >= fm.horizontalAdvance(QString(digits + 2, QLatin1Char('0'))) + 4 && ch >= fm.height() && m_rows * m_cols <= 2000) {
        for (int r = 0; r < m_rows; ++r)
            for (int c = 0; c < m_cols; ++c) {
                const float v = m_values[size_t(r) * size_t(m_cols) + size_t(c)];
                if (!std::isfinite(v))
                    continue;
                const QRgb bgc = m_image.pixel(c, r);
                p.setPen(qGray(bgc) > 140 ? Qt::black : Qt::white);
                p.drawText(cellRect(r, c), Qt::AlignCenter, QString::number(double(v), 'g', digits));
            }
    }
    if (!m_unc.empty()) {
        // Uncertainty on an absolute scale, apart from the colour: a whisker of ± std, the cell's height
        // standing for the colour bar's whole span.
        const bool drawn = whiskersVisible();
        const int y = kMargin + (m_title.isEmpty() ? 0 : fm.height() + 2);
        p.setPen(pal.color(QPalette::WindowText));
        if (m_legend)
            p.drawText(QRect(kMargin, y, width() - 2 * kMargin, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(uncertaintyLegend(), Qt::ElideRight, width() - 2 * kMargin));
        const double span = double(m_max) - double(m_min);
        if (drawn && span > 0) {
            for (int r = 0; r < m_rows; ++r)
                for (int c = 0; c < m_cols; ++c) {
                    const size_t i = size_t(r) * size_t(m_cols) + size_t(c);
                    const float u = m_unc[i];
                    if (!std::isfinite(u) || !std::isfinite(m_values[i]) || u <= 0)
                        continue;
                    const QRectF cr = cellRect(r, c);
                    const double half = std::min(0.5, double(u) / span) * cr.height(); // capped at the cell
                    const double x = cr.center().x(), yc = cr.center().y();
                    p.setPen(QPen(qGray(m_image.pixel(c, r)) > 140 ? Qt::black : Qt::white, 1));
                    p.drawLine(QPointF(x, yc - half), QPointF(x, yc + half));
                    const double cap = std::min(3.0, cr.width() / 4);
                    p.drawLine(QPointF(x - cap, yc - half), QPointF(x + cap, yc - half));
                    p.drawLine(QPointF(x - cap, yc + half), QPointF(x + cap, yc + half));
                }
        }
    }
    // Labels: every k-th so that they never overlap.
    p.setPen(pal.color(QPalette::WindowText));
    if (!m_rowLabels.isEmpty()) {
        const int step = std::max(1, int(std::ceil(fm.height() / ch)));
        for (int r = 0; r < m_rows && r < m_rowLabels.size(); r += step) {
            const QRectF cr = cellRect(r, 0);
            p.drawText(QRectF(kMargin, cr.center().y() - fm.height() / 2.0, m_plot.left() - kMargin - 3, fm.height()),
                       Qt::AlignRight | Qt::AlignVCenter, m_rowLabels[r]);
        }
    }
    if (!m_colLabels.isEmpty()) {
        const int step = std::max(1, int(std::ceil(fm.height() / cw)));
        p.save();
        for (int c = 0; c < m_cols && c < m_colLabels.size(); c += step) {
            const QRectF cr = cellRect(m_rows - 1, c);
            p.save();
            p.translate(cr.center().x() + fm.ascent() / 2.0 - 1, m_plot.bottom() + 3);
            p.rotate(-90);
            p.drawText(QRectF(-(height() - m_plot.bottom()), -fm.ascent(), height() - m_plot.bottom() - 3, fm.height()),
                       Qt::AlignRight | Qt::AlignVCenter, m_colLabels[c]);
            p.restore();
        }
        p.restore();
    }
    // Selection: outline the row or column of the selected job.
    if (m_selectedJob >= 0) {
        p.setPen(QPen(selectionColor(pal), 2));
        p.setBrush(Qt::NoBrush);
        for (int r = 0; r < int(m_rowJobs.size()) && r < m_rows; ++r)
            if (m_rowJobs[size_t(r)] == m_selectedJob)
                p.drawRect(QRectF(m_plot.left(), cellRect(r, 0).top(), m_plot.width(), std::max(2.0, ch)));
        for (int c = 0; c < int(m_colJobs.size()) && c < m_cols; ++c)
            if (m_colJobs[size_t(c)] == m_selectedJob)
                p.drawRect(QRectF(cellRect(0, c).left(), m_plot.top(), std::max(2.0, cw), m_plot.height()));
    }
    // Colour scale bar, max at the top.
    if (m_colorBar) {
        const QRect bar = colorBarRect();
        for (int y = 0; y < bar.height(); ++y)
            p.fillRect(QRect(bar.left(), bar.top() + y, bar.width(), 1),
                       QColor::fromRgb(scoreRgb(1.0 - double(y) / std::max(1, bar.height() - 1))));
        p.setPen(pal.color(QPalette::Mid));
        p.drawRect(bar.adjusted(0, 0, -1, -1));
        p.setPen(pal.color(QPalette::WindowText));
        const auto [lo, hi] = rangeLabels();
        const auto [loAt, hiAt] = rangeLabelRects();
        p.drawText(hiAt, Qt::AlignLeft | Qt::AlignVCenter, hi);
        p.drawText(loAt, Qt::AlignLeft | Qt::AlignVCenter, lo);
    }
}

QRect HeatmapView::colorBarRect() const
{
    return QRect(int(m_plot.right()) + 6, int(m_plot.top()), kBarWidth, int(m_plot.height()));
}

std::pair<QRect, QRect> HeatmapView::rangeLabelRects() const
{
    ensureLayout();
    if (!m_colorBar || m_image.isNull())
        return {};
    const QRect bar = colorBarRect(); // (right of it nothing else is drawn, above or below it)
    const int lineH = fontMetrics().height();
    const int x = bar.right() + 3, w = std::max(1, width() - x);
    const QRect hi(x, bar.top(), w, lineH);
    const int loTop = std::min(std::max(bar.bottom() + 1 - lineH, hi.bottom() + 1), // under the max, if it must
                               std::max(hi.top(), height() - lineH));           // inside the view
    return {QRect(x, loTop, w, lineH), hi};
}

void HeatmapView::mousePressEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(e);
    const auto [r, c] = cellAt(e->position());
    if (r < 0)
        return;
    Q_EMIT cellClicked(r, c);
    int job = -1;
    if (r < int(m_rowJobs.size()))
        job = m_rowJobs[size_t(r)];
    else if (c < int(m_colJobs.size()))
        job = m_colJobs[size_t(c)];
    if (job >= 0 && job != m_selectedJob) {
        setSelectedJob(job);
        Q_EMIT jobSelected(job);
    }
}

bool HeatmapView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const auto [r, c] = cellAt(he->pos());
        if (r < 0) {
            QToolTip::hideText();
            return true;
        }
        const float v = value(r, c);
        QString t = QStringLiteral("%1 / %2: %3")
                        .arg(r < m_rowLabels.size() ? m_rowLabels[r] : QString::number(r),
                             c < m_colLabels.size() ? m_colLabels[c] : QString::number(c),
                             std::isfinite(v) ? QString::number(double(v), 'g', 5) : tr("no value"));
        if (!m_unc.empty()) {
            const float u = m_unc[size_t(r) * size_t(m_cols) + size_t(c)];
            if (std::isfinite(u))
                t += QStringLiteral(" \u00b1 %1").arg(double(u), 0, 'g', 3);
        }
        QToolTip::showText(he->globalPos(), t, this);
        return true;
    }
    if (e->type() == QEvent::PaletteChange) {
        rebuildImage();
        update();
    }
    return QWidget::event(e);
}

// ---- DecisionStripView -------------------------------------------------------------------------------------

DecisionStripView::DecisionStripView(QWidget* parent)
    : QWidget(parent)
{
    auto* lay = new QHBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(4);
    for (int i = 0; i < 4; ++i) {
        auto* h = new HeatmapView(this);
        h->setColorBarVisible(i == 3);
        h->setLegendVisible(false); // small multiples: the whiskers read as in the big views, whose legend says how
        lay->addWidget(h, 1);
        connect(h, &HeatmapView::jobSelected, this, [this](int j) {
            setSelectedJob(j);
            Q_EMIT jobSelected(j);
        });
        m_maps.push_back(h);
    }
}

void DecisionStripView::setLog(const DecisionLog* log, const QStringList& machineNames, const Trace* trace)
{
    m_log = log;
    m_trace = trace;
    m_machineNames = machineNames;
    m_current = -1;
    refresh();
}

void DecisionStripView::setContent(Content c)
{
    m_content = c;
    refresh();
}

void DecisionStripView::setCurrentDecision(int index)
{
    m_current = index;
    refresh();
}

void DecisionStripView::setSelectedJob(int jobIndex)
{
    for (auto* h : m_maps)
        h->setSelectedJob(jobIndex);
}

void DecisionStripView::refresh()
{
    const int n = m_log ? int(m_log->records.size()) : 0;
    const int cur = std::min(m_current, n - 1);
    float lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < 4; ++i) {
        const int k = cur - 3 + i;
        HeatmapData d;
        if (k >= 0 && cur >= 0) {
            const auto& r = m_log->records[size_t(k)];
            d = m_content == Content::Priority ? priorityMatrix(r, m_trace)
                                                : affinityMatrix(r, m_log->machineCount, m_machineNames, m_trace);
            for (float v : d.values)
                if (std::isfinite(v)) {
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
        }
        m_maps[size_t(i)]->setData(std::move(d));
    }
    // One colour scale for the four steps, so that colours compare across them.
    if (lo <= hi)
        for (auto* h : m_maps)
            h->setColorRange(lo, hi);
}

} // namespace ss
