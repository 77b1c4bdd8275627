#include "clustermapview.h"

#include <QHelpEvent>
#include <QDragEnterEvent>
#include <QDragMoveEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <map>

#include "jobcolors.h"

namespace ss {

namespace {
constexpr int kPad = 2;       // inside a machine box, around the cells
constexpr int kUtilBar = 3;   // utilization bar under the cells
constexpr int kMachineGap = 3;
constexpr int kFramePad = 4;
constexpr int kFrameGap = 6;

QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t), float(a.greenF() * (1 - t) + b.greenF() * t),
                            float(a.blueF() * (1 - t) + b.blueF() * t));
}
} // namespace

QFont ClusterMapView::smallFont() const
{
    QFont f = font();
    f.setPointSizeF(std::max(6.0, f.pointSizeF() * 0.8));
    return f;
}

ClusterMapView::ClusterMapView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(false);
    setAcceptDrops(true); // a queued job dragged from the stepper (jobDropped)
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ClusterMapView::setCluster(const ClusterSpec* cluster)
{
    m_cluster = cluster;
    m_scores.clear();
    recomputeUtil();
    relayout();
    update();
}

void ClusterMapView::setOccupancy(const std::vector<std::vector<Replayer::Holder>>& holdersPerGpu)
{
    m_holders = holdersPerGpu;
    recomputeUtil();
    update();
}

void ClusterMapView::setMachineScores(std::vector<float> scores)
{
    m_scores = std::move(scores);
    update();
}

void ClusterMapView::setJobLabeler(std::function<QString(int)> labeler)
{
    m_labeler = std::move(labeler);
}

void ClusterMapView::setSelectedJob(int jobIndex)
{
    if (m_selectedJob == jobIndex)
        return;
    m_selectedJob = jobIndex;
    update();
}

void ClusterMapView::recomputeUtil()
{
    m_machineUtil.assign(m_cluster ? size_t(m_cluster->machineCount()) : 0, 0.0);
    if (!m_cluster)
        return;
    for (int m = 0; m < m_cluster->machineCount(); ++m) {
        const int n = m_cluster->machines[size_t(m)].gpus;
        if (n <= 0)
            continue;
        int64_t held = 0;
        const int base = m_cluster->gpuBase(m);
        for (int g = base; g < base + n && g < int(m_holders.size()); ++g)
            for (const auto& h : m_holders[size_t(g)])
                held += h.milli;
        m_machineUtil[size_t(m)] = std::min(1.0, double(held) / (1000.0 * n));
    }
}

void ClusterMapView::ensureLayout() const
{
    if (m_layoutSize != size())
        const_cast<ClusterMapView*>(this)->relayout();
}

void ClusterMapView::relayout()
{
    m_layoutSize = size();
    m_machineRects.clear();
    m_switchBoxes.clear();
    m_cell = 0;
    if (!m_cluster || m_cluster->machineCount() == 0)
        return;
    const int maxGpus = std::max(1, m_cluster->maxGpusPerMachine());
    m_cellsPerRow = std::min(maxGpus, 8);
    const int gpuRows = (maxGpus + m_cellsPerRow - 1) / m_cellsPerRow;
    const int titleH = fontMetrics().height() + 2;

    // Groups in switch order; machines whose switch index is invalid go to a last "no switch" group.
    const int nsw = int(m_cluster->switches.size());
    std::vector<std::vector<int>> groups(size_t(nsw + 1));
    for (int m = 0; m < m_cluster->machineCount(); ++m) {
        const int s = m_cluster->machines[size_t(m)].sw;
        groups[size_t(s >= 0 && s < nsw ? s : nsw)].push_back(m);
    }

    const int W = std::max(width(), 100), H = std::max(height(), 60);
    // Largest cell size whose layout fits the widget (flowing machines inside frames, frames in rows).
    struct Placed {
        int group;
        QRect frame;
        int perLine;
    };
    const int smallH = QFontMetrics(smallFont()).height();
    auto labelFor = [&](int c) { return c >= 14 ? smallH : 0; };
    auto layoutFor = [&](int c, std::vector<Placed>* out) {
        const int gap = c >= 8 ? 1 : 0;
        const int mw = m_cellsPerRow * c + (m_cellsPerRow - 1) * gap + 2 * kPad;
        const int mh = gpuRows * c + (gpuRows - 1) * gap + 2 * kPad + kUtilBar + labelFor(c);
        const int maxPerLine = std::max(1, (W - 2 * kFrameGap - 2 * kFramePad + kMachineGap) / (mw + kMachineGap));
        int x = kFrameGap, y = kFrameGap, rowH = 0;
        for (int gi = 0; gi <= nsw; ++gi) {
            const int n = int(groups[size_t(gi)].size());
            if (n == 0)
                continue;
            const int perLine = std::min(n, maxPerLine);
            const int lines = (n + perLine - 1) / perLine;
            const int fw = 2 * kFramePad + perLine * mw + (perLine - 1) * kMachineGap;
            const int fh = titleH + kFramePad + lines * mh + (lines - 1) * kMachineGap;
            if (x > kFrameGap && x + fw > W - kFrameGap) {
                x = kFrameGap;
                y += rowH + kFrameGap;
                rowH = 0;
            }
            if (out)
                out->push_back({gi, QRect(x, y, fw, fh), perLine});
            x += fw + kFrameGap;
            rowH = std::max(rowH, fh);
        }
        return y + rowH + kFrameGap;
    };
    int c = 40;
    while (c > 3 && layoutFor(c, nullptr) > H)
        --c;
    m_cell = c;
    m_labelH = labelFor(c);
    std::vector<Placed> placed;
    layoutFor(c, &placed);
    const int gap = c >= 8 ? 1 : 0;
    const int mw = m_cellsPerRow * c + (m_cellsPerRow - 1) * gap + 2 * kPad;
    const int mh = gpuRows * c + (gpuRows - 1) * gap + 2 * kPad + kUtilBar + m_labelH;
    m_machineRects.assign(size_t(m_cluster->machineCount()), QRect());
    for (const auto& p : placed) {
        const auto& ms = groups[size_t(p.group)];
        QString label = p.group < nsw ? QString::fromStdString(m_cluster->switches[size_t(p.group)].name) : tr("no switch");
        if (label.isEmpty())
            label = tr("switch %1").arg(p.group);
        m_switchBoxes.push_back({p.group, p.frame, label});
        for (int i = 0; i < int(ms.size()); ++i) {
            const int col = i % p.perLine, line = i / p.perLine;
            m_machineRects[size_t(ms[size_t(i)])] =
                QRect(p.frame.left() + kFramePad + col * (mw + kMachineGap),
                      p.frame.top() + titleH + line * (mh + kMachineGap), mw, mh);
        }
    }
}

QRect ClusterMapView::machineRect(int machine) const
{
    ensureLayout();
    if (machine < 0 || machine >= int(m_machineRects.size()))
        return {};
    return m_machineRects[size_t(machine)];
}

QRect ClusterMapView::gpuCellRect(int gpu) const
{
    ensureLayout();
    if (!m_cluster || gpu < 0 || gpu >= m_cluster->totalGpus() || m_machineRects.empty())
        return {};
    const int m = m_cluster->machineOfGpu(gpu);
    const int i = gpu - m_cluster->gpuBase(m);
    const QRect r = m_machineRects[size_t(m)];
    const int gap = m_cell >= 8 ? 1 : 0;
    return QRect(r.left() + kPad + (i % m_cellsPerRow) * (m_cell + gap), r.top() + kPad + m_labelH + (i / m_cellsPerRow) * (m_cell + gap),
                 m_cell, m_cell);
}

int ClusterMapView::machineAt(const QPoint& pos) const
{
    ensureLayout();
    for (int m = 0; m < int(m_machineRects.size()); ++m)
        if (m_machineRects[size_t(m)].contains(pos))
            return m;
    return -1;
}

int ClusterMapView::gpuAt(const QPoint& pos) const
{
    const int m = machineAt(pos);
    if (m < 0)
        return -1;
    const int base = m_cluster->gpuBase(m);
    for (int g = base; g < base + m_cluster->machines[size_t(m)].gpus; ++g)
        if (gpuCellRect(g).contains(pos))
            return g;
    return -1;
}

QSize ClusterMapView::sizeHint() const
{
    return {640, 420};
}

QSize ClusterMapView::minimumSizeHint() const
{
    return {160, 100};
}

void ClusterMapView::resizeEvent(QResizeEvent*)
{
    relayout();
}

void ClusterMapView::paintEvent(QPaintEvent* ev)
{
    ensureLayout();
    QPainter p(this);
    const QPalette& pal = palette();
    const bool dark = isDarkPalette(pal);
    p.fillRect(rect(), pal.color(QPalette::Window));
    if (!m_cluster || m_machineRects.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No cluster"));
        return;
    }
    const QColor frameColor = pal.color(QPalette::Mid);
    const QColor text = pal.color(QPalette::WindowText);
    const QColor boxBase = pal.color(QPalette::Base);
    const QColor busyTint = dark ? QColor(90, 140, 220) : QColor(60, 110, 200);
    const QColor freeCell = dark ? QColor(70, 70, 74) : QColor(222, 222, 226);
    const QColor utilBar = dark ? QColor(120, 190, 255) : QColor(40, 100, 200);

    p.setRenderHint(QPainter::Antialiasing, false);
    for (const auto& sb : m_switchBoxes) {
        if (!sb.frame.intersects(ev->rect()))
            continue;
        p.setPen(frameColor);
        p.setBrush(Qt::NoBrush);
        p.drawRect(sb.frame.adjusted(0, 0, -1, -1));
        p.setPen(text);
        p.drawText(sb.frame.adjusted(kFramePad, 1, -kFramePad, 0), Qt::AlignLeft | Qt::AlignTop,
                   fontMetrics().elidedText(sb.label, Qt::ElideRight, sb.frame.width() - 2 * kFramePad));
    }

    // Score overlay: normalise finite scores to [0,1].
    float smin = INFINITY, smax = -INFINITY;
    for (float s : m_scores)
        if (std::isfinite(s)) {
            smin = std::min(smin, s);
            smax = std::max(smax, s);
        }
    const bool haveScores = smin <= smax;

    const auto& ms = m_cluster->machines;
    for (int m = 0; m < int(ms.size()); ++m) {
        const QRect r = m_machineRects[size_t(m)];
        if (!r.intersects(ev->rect()))
            continue;
        const double util = m_machineUtil[size_t(m)];
        p.fillRect(r, mix(boxBase, busyTint, 0.35 * util));
        if (haveScores && m < int(m_scores.size()) && std::isfinite(m_scores[size_t(m)])) {
            const double t = smax > smin ? (m_scores[size_t(m)] - smin) / (smax - smin) : 1.0;
            p.setPen(QPen(QColor::fromRgb(scoreRgb(t)), 2));
            p.drawRect(r.adjusted(1, 1, -1, -1));
        } else {
            p.setPen(frameColor);
            p.drawRect(r.adjusted(0, 0, -1, -1));
        }
        if (m_labelH > 0) {
            const Machine& mc = ms[size_t(m)];
            const QString type = mc.type >= 0 && mc.type < int(m_cluster->types.size())
                                     ? QString::fromStdString(m_cluster->types[size_t(mc.type)].name)
                                     : QString();
            p.setFont(smallFont());
            p.setPen(text);
            const QRect lr(r.left() + kPad + 1, r.top() + kPad, r.width() - 2 * kPad - 2, m_labelH);
            p.drawText(lr, Qt::AlignLeft | Qt::AlignVCenter,
                       QFontMetrics(p.font()).elidedText(QString::fromStdString(mc.name), Qt::ElideRight, lr.width() * 2 / 3));
            p.drawText(lr, Qt::AlignRight | Qt::AlignVCenter, type);
            p.setFont(font());
        }
        // utilization bar under the cells
        const int bw = int(std::lround((r.width() - 2 * kPad) * util));
        if (bw > 0)
            p.fillRect(QRect(r.left() + kPad, r.bottom() - kPad - kUtilBar + 2, bw, kUtilBar - 1), utilBar);

        const int base = m_cluster->gpuBase(m);
        for (int i = 0; i < ms[size_t(m)].gpus; ++i) {
            const int g = base + i;
            const QRect c = gpuCellRect(g);
            const auto* hs = g < int(m_holders.size()) ? &m_holders[size_t(g)] : nullptr;
            if (!hs || hs->empty()) {
                p.fillRect(c, freeCell);
                continue;
            }
            if (hs->size() == 1 && hs->front().milli >= 1000) {
                p.fillRect(c, QColor::fromRgb(jobRgb(hs->front().job)));
            } else {
                // Fractional shares stack from the bottom, each as tall as its share; the rest stays free.
                p.fillRect(c, freeCell);
                double y = c.bottom() + 1;
                for (const auto& h : *hs) {
                    const double hh = c.height() * std::min(1000, h.milli) / 1000.0;
                    const int top = int(std::lround(y - hh));
                    p.fillRect(QRect(c.left(), top, c.width(), std::max(1, int(std::lround(y)) - top)), QColor::fromRgb(jobRgb(h.job)));
                    y -= hh;
                    if (y <= c.top())
                        break;
                }
            }
            if (m_selectedJob >= 0 && m_cell >= 5) {
                for (const auto& h : *hs)
                    if (h.job == m_selectedJob) {
                        p.setPen(QPen(selectionColor(pal), 2));
                        p.setBrush(Qt::NoBrush);
                        p.drawRect(c.adjusted(1, 1, -1, -1));
                        break;
                    }
            }
        }
        if (ms[size_t(m)].gpus == 0) {
            p.setPen(pal.color(QPalette::PlaceholderText));
            p.drawText(r, Qt::AlignCenter, QStringLiteral("cpu"));
        }
    }
}

void ClusterMapView::dragEnterEvent(QDragEnterEvent* e)
{
    if (e->mimeData()->hasFormat(QString::fromLatin1(kJobMime)))
        e->acceptProposedAction();
}

void ClusterMapView::dragMoveEvent(QDragMoveEvent* e)
{
    // only over a machine's box
    if (e->mimeData()->hasFormat(QString::fromLatin1(kJobMime)) && machineAt(e->position().toPoint()) >= 0)
        e->acceptProposedAction();
    else
        e->ignore();
}

void ClusterMapView::dropEvent(QDropEvent* e)
{
    const int m = machineAt(e->position().toPoint());
    if (m < 0 || !e->mimeData()->hasFormat(QString::fromLatin1(kJobMime))) {
        e->ignore();
        return;
    }
    e->acceptProposedAction();
    Q_EMIT jobDropped(QString::fromUtf8(e->mimeData()->data(QString::fromLatin1(kJobMime))), m);
}

void ClusterMapView::mousePressEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton || !m_cluster)
        return QWidget::mousePressEvent(e);
    const QPoint pos = e->position().toPoint();
    const int m = machineAt(pos);
    if (m < 0)
        return;
    Q_EMIT machineClicked(m);
    const int g = gpuAt(pos);
    int job = -1;
    if (g >= 0 && g < int(m_holders.size()) && !m_holders[size_t(g)].empty()) {
        const auto& hs = m_holders[size_t(g)];
        // Pick the stacked share under the mouse (shares stack from the bottom).
        const QRect c = gpuCellRect(g);
        double y = c.bottom() + 1;
        job = hs.back().job;
        for (const auto& h : hs) {
            const double hh = c.height() * std::min(1000, h.milli) / 1000.0;
            if (pos.y() >= y - hh) {
                job = h.job;
                break;
            }
            y -= hh;
        }
    }
    if (job != m_selectedJob) {
        setSelectedJob(job);
        Q_EMIT jobSelected(job);
    }
}

QString ClusterMapView::tooltipFor(const QPoint& pos) const
{
    const int m = machineAt(pos);
    if (m < 0 || !m_cluster)
        return {};
    const Machine& mc = m_cluster->machines[size_t(m)];
    const QString type = mc.type >= 0 && mc.type < int(m_cluster->types.size())
                             ? QString::fromStdString(m_cluster->types[size_t(mc.type)].name)
                             : QStringLiteral("?");
    QString s = QStringLiteral("<b>%1</b> (machine %2)<br>%3 x %4, %5% busy")
                    .arg(QString::fromStdString(mc.name).toHtmlEscaped())
                    .arg(m)
                    .arg(mc.gpus)
                    .arg(type.toHtmlEscaped())
                    .arg(int(std::lround(m_machineUtil[size_t(m)] * 100)));
    if (m < int(m_scores.size()) && std::isfinite(m_scores[size_t(m)]))
        s += QStringLiteral("<br>score %1").arg(double(m_scores[size_t(m)]), 0, 'g', 4);
    auto label = [&](int j) { return m_labeler ? m_labeler(j) : tr("job %1").arg(j); };
    const int g = gpuAt(pos);
    if (g >= 0) {
        s += QStringLiteral("<br>GPU %1 (global %2): ").arg(g - m_cluster->gpuBase(m)).arg(g);
        if (g >= int(m_holders.size()) || m_holders[size_t(g)].empty())
            s += tr("free");
        else {
            QStringList parts;
            for (const auto& h : m_holders[size_t(g)])
                parts << (h.milli >= 1000 ? label(h.job) : QStringLiteral("%1 (%2%)").arg(label(h.job)).arg(h.milli / 10.0));
            s += parts.join(QStringLiteral(", ")).toHtmlEscaped();
        }
    }
    // Jobs on the whole machine, in first-GPU order, capped so the tooltip stays readable.
    std::vector<int> jobs;
    const int base = m_cluster->gpuBase(m);
    for (int gg = base; gg < base + mc.gpus && gg < int(m_holders.size()); ++gg)
        for (const auto& h : m_holders[size_t(gg)])
            if (std::find(jobs.begin(), jobs.end(), h.job) == jobs.end())
                jobs.push_back(h.job);
    if (!jobs.empty()) {
        QStringList names;
        for (size_t i = 0; i < jobs.size() && i < 8; ++i)
            names << label(jobs[i]).toHtmlEscaped();
        if (jobs.size() > 8)
            names << tr("+%1 more").arg(jobs.size() - 8);
        s += QStringLiteral("<br>jobs: ") + names.join(QStringLiteral(", "));
    }
    return s;
}

bool ClusterMapView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const QString t = tooltipFor(he->pos());
        if (t.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(he->globalPos(), t, this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace ss
