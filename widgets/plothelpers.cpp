#include "plothelpers.h"

#include "qcp.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "jobcolors.h"

namespace ss::plots {

namespace {

constexpr const char* kCategoriesProp = "ss.barCategories"; // a bar chart's full category labels

void resetPlot(QCustomPlot* plot)
{
    plot->clearPlottables();
    plot->clearItems();
    plot->xAxis->setScaleType(QCPAxis::stLinear);
    plot->xAxis->setTickLabelRotation(0);
    plot->setProperty(kCategoriesProp, QVariant());
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->yAxis2->setVisible(false);
    plot->legend->setVisible(false);
    // Boxes and steps gain nothing from antialiasing and cost a lot with many points.
    plot->setNotAntialiasedElements(QCP::aePlottables | QCP::aeGrid | QCP::aeAxes);
}

QCPGraph* stepGraph(QCustomPlot* plot, const QVector<double>& x, const QVector<double>& y, const QColor& c,
                    const QString& name, QCPAxis* valueAxis = nullptr)
{
    QCPGraph* g = plot->addGraph(plot->xAxis, valueAxis ? valueAxis : plot->yAxis);
    g->setData(x, y, true); // callers pass sorted keys
    g->setLineStyle(QCPGraph::lsStepLeft);
    g->setPen(QPen(c, 1.6));
    g->setName(name);
    return g;
}

void finish(QCustomPlot* plot)
{
    plot->replot(QCustomPlot::rpQueuedReplot);
}

// Category labels of a bar chart that never overlap: flat when the widest fits its slot, else turned 45° or
// 90° (neighbours then need a slot of height/sin θ), long labels elided in the middle so the bars keep most of
// the height, and only every k-th label kept when even upright ones do not fit. Redone before each replot, so a
// resized pane or an export at another size gets its own fit.
void fitCategoryLabels(QCustomPlot* plot)
{
    const QStringList cats = plot->property(kCategoriesProp).toStringList();
    auto ticker = plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    if (cats.isEmpty() || !ticker)
        return;
    const QFontMetricsF fm(plot->xAxis->tickLabelFont());
    const double range = plot->xAxis->range().size();
    const double slot = range > 0 ? plot->axisRect()->width() / range : 0; // pixels per category
    double widest = 0;
    for (const QString& c : cats)
        widest = std::max(widest, fm.horizontalAdvance(c));
    const double h = fm.height();
    double rotation = 0;
    int every = 1;
    if (widest + 8 > slot) {
        rotation = slot * std::sin(M_PI / 4) >= h + 2 ? 45 : 90;
        if (rotation == 90 && slot < h + 2)
            every = int(std::ceil((h + 2) / std::max(1.0, slot)));
    }
    const double maxLen = std::max(60.0, plot->height() * 0.35);
    ticker->clear();
    for (int c = 0; c < cats.size(); ++c)
        ticker->addTick(c + 1, c % every ? QString() : rotation == 0 ? cats[c] : fm.elidedText(cats[c], Qt::ElideMiddle, maxLen));
    plot->xAxis->setTickLabelRotation(rotation);
}

} // namespace

QColor seriesColor(int i)
{
    // Okabe-Ito: distinguishable for colour-blind readers, on white and on dark grey.
    static const QColor c[] = {QColor(0, 114, 178), QColor(230, 159, 0), QColor(0, 158, 115), QColor(204, 121, 167),
                               QColor(86, 180, 233), QColor(213, 94, 0), QColor(240, 228, 66), QColor(150, 150, 150)};
    return c[((i % 8) + 8) % 8];
}

void applyTheme(QCustomPlot* plot, const QPalette& pal)
{
    const bool dark = isDarkPalette(pal);
    const QColor bg = pal.color(QPalette::Base);
    const QColor fg = pal.color(QPalette::WindowText);
    const QColor grid = dark ? QColor(70, 70, 76) : QColor(225, 225, 230);
    plot->setBackground(QBrush(bg));
    for (QCPAxis* a : {plot->xAxis, plot->yAxis, plot->xAxis2, plot->yAxis2}) {
        a->setBasePen(QPen(fg));
        a->setTickPen(QPen(fg));
        a->setSubTickPen(QPen(fg));
        a->setTickLabelColor(fg);
        a->setLabelColor(fg);
        a->grid()->setPen(QPen(grid, 1, Qt::DotLine));
        a->grid()->setZeroLinePen(QPen(grid));
    }
    plot->legend->setBrush(QBrush(dark ? QColor(45, 45, 50, 220) : QColor(255, 255, 255, 220)));
    plot->legend->setTextColor(fg);
    plot->legend->setBorderPen(QPen(pal.color(QPalette::Mid)));
    finish(plot);
}

std::vector<double> histogramCounts(const std::vector<double>& values, int bins, double lo, double hi)
{
    std::vector<double> counts(size_t(std::max(1, bins)), 0.0);
    if (!(hi > lo))
        hi = lo + 1;
    const double w = (hi - lo) / counts.size();
    for (double v : values) {
        if (!std::isfinite(v) || v < lo || v > hi)
            continue;
        const size_t b = std::min(counts.size() - 1, size_t((v - lo) / w));
        counts[b] += 1;
    }
    return counts;
}

void plotCdf(QCustomPlot* plot, const std::vector<NamedSeries>& series, const QString& xLabel, bool logX)
{
    resetPlot(plot);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t s = 0; s < series.size(); ++s) {
        std::vector<double> v;
        v.reserve(series[s].values.size());
        for (double x : series[s].values)
            if (std::isfinite(x) && (!logX || x > 0))
                v.push_back(x);
        if (!std::is_sorted(v.begin(), v.end())) // runs come with their JCTs sorted off the GUI thread
            std::sort(v.begin(), v.end());
        QVector<double> xs, ys;
        xs.reserve(qsizetype(v.size()) + 1);
        ys.reserve(qsizetype(v.size()) + 1);
        if (!v.empty()) {
            xs << v.front();
            ys << 0.0;
        }
        // A step CDF of n values needs no more points than the plot has pixels: above kCdfPoints, keep every
        // k-th rank (vertical error <= 1/kCdfPoints) and always the last; 100k jobs then cost ~1 ms, not ~20.
        constexpr size_t kCdfPoints = 4096;
        const size_t stride = v.size() > kCdfPoints ? (v.size() + kCdfPoints - 1) / kCdfPoints : 1;
        for (size_t i = 0; i < v.size(); i += stride) {
            xs << v[i];
            ys << double(i + 1) / double(v.size());
        }
        if (!v.empty() && (v.size() - 1) % stride != 0) {
            xs << v.back();
            ys << 1.0;
        }
        if (!v.empty()) {
            lo = std::min(lo, v.front());
            hi = std::max(hi, v.back());
        }
        stepGraph(plot, xs, ys, seriesColor(int(s)), series[s].name);
    }
    if (logX) {
        plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
        plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    } else if (plot->xAxis->scaleType() != QCPAxis::stLinear) { // a plot reused after a log one
        plot->xAxis->setScaleType(QCPAxis::stLinear);
        plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    }
    plot->xAxis->setLabel(xLabel);
    plot->yAxis->setLabel(QObject::tr("fraction of jobs"));
    if (lo <= hi)
        plot->xAxis->setRange(logX ? lo / 1.2 : lo, logX ? hi * 1.2 : hi + (hi - lo) * 0.02 + 1e-9);
    plot->yAxis->setRange(0, 1.02);
    plot->legend->setVisible(series.size() > 1);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    finish(plot);
}

void plotGroupedBars(QCustomPlot* plot, const QStringList& categories, const QStringList& seriesNames,
                     const std::vector<std::vector<double>>& mean, const std::vector<std::vector<double>>& sd,
                     const QString& yLabel)
{
    resetPlot(plot);
    const int nc = int(categories.size());
    const int ns = int(mean.size());
    auto* group = new QCPBarsGroup(plot);
    group->setSpacingType(QCPBarsGroup::stAbsolute);
    group->setSpacing(1);
    QVector<double> keys;
    for (int c = 0; c < nc; ++c)
        keys << c + 1;
    double top = 0;
    for (int s = 0; s < ns; ++s) {
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setAntialiased(false);
        bars->setAntialiasedFill(false);
        bars->setWidth(0.8 / std::max(1, ns));
        const QColor col = seriesColor(s);
        bars->setBrush(col);
        bars->setPen(QPen(col.darker(130)));
        bars->setName(s < seriesNames.size() ? seriesNames[s] : QStringLiteral("series %1").arg(s + 1));
        QVector<double> vals;
        for (int c = 0; c < nc; ++c)
            vals << (c < int(mean[size_t(s)].size()) ? mean[size_t(s)][size_t(c)] : 0.0);
        bars->setData(keys, vals, true);
        bars->setBarsGroup(group);
        for (int c = 0; c < nc; ++c) {
            const double e = s < int(sd.size()) && c < int(sd[size_t(s)].size()) ? sd[size_t(s)][size_t(c)] : 0.0;
            top = std::max(top, vals[c] + (std::isfinite(e) ? e : 0.0));
        }
        if (s < int(sd.size()) && !sd[size_t(s)].empty()) {
            auto* eb = new QCPErrorBars(plot->xAxis, plot->yAxis);
            eb->removeFromLegend();
            eb->setAntialiased(false);
            eb->setDataPlottable(bars);
            QVector<double> err;
            for (int c = 0; c < nc; ++c)
                err << (c < int(sd[size_t(s)].size()) && std::isfinite(sd[size_t(s)][size_t(c)]) ? sd[size_t(s)][size_t(c)] : 0.0);
            eb->setData(err);
            eb->setPen(QPen(plot->xAxis->basePen().color(), 1.2));
        }
    }
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int c = 0; c < nc; ++c)
        ticker->addTick(c + 1, categories[c]);
    plot->xAxis->setTicker(ticker);
    plot->setProperty(kCategoriesProp, categories);
    if (!plot->property("ss.barFit").toBool()) {
        plot->setProperty("ss.barFit", true);
        QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot] { fitCategoryLabels(plot); });
    }
    plot->xAxis->setSubTicks(false);
    plot->xAxis->setTickLength(0, 4);
    plot->xAxis->setRange(0.4, nc + 0.6);
    plot->yAxis->setRange(0, top > 0 ? top * 1.1 : 1);
    plot->yAxis->setLabel(yLabel);
    plot->legend->setVisible(ns > 1);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    finish(plot);
}

void plotHistogram(QCustomPlot* plot, const std::vector<double>& values, int bins, const QString& xLabel, bool logX,
                   const QString& name)
{
    resetPlot(plot);
    std::vector<double> v;
    for (double x : values)
        if (std::isfinite(x) && (!logX || x > 0))
            v.push_back(logX ? std::log10(x) : x);
    if (v.empty()) {
        finish(plot);
        return;
    }
    const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
    const double lo = *mn, hi = *mx > *mn ? *mx : *mn + 1;
    const auto counts = histogramCounts(v, bins, lo, hi);
    const double w = (hi - lo) / double(counts.size());
    // A filled step line draws bars as one polygon and works on a log axis too (QCPBars widths do not).
    QVector<double> xs, ys;
    for (size_t i = 0; i < counts.size(); ++i) {
        const double e = lo + double(i) * w;
        xs << (logX ? std::pow(10.0, e) : e);
        ys << counts[i];
    }
    xs << (logX ? std::pow(10.0, hi) : hi);
    ys << counts.back();
    QCPGraph* g = stepGraph(plot, xs, ys, seriesColor(0), name);
    QColor fill = seriesColor(0);
    fill.setAlpha(120);
    g->setBrush(fill);
    if (logX) {
        plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
        plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        plot->xAxis->setRange(std::pow(10.0, lo) / 1.1, std::pow(10.0, hi) * 1.1);
    } else
        plot->xAxis->setRange(lo - w * 0.5, hi + w * 0.5);
    plot->yAxis->setRange(0, *std::max_element(counts.begin(), counts.end()) * 1.08 + 1e-9);
    plot->xAxis->setLabel(xLabel);
    plot->yAxis->setLabel(QObject::tr("jobs"));
    finish(plot);
}

void plotTimeSeries(QCustomPlot* plot, const std::vector<NamedSeries>& ys, const std::vector<double>& xs,
                    const QString& yLabel, bool hours)
{
    resetPlot(plot);
    std::vector<size_t> order(xs.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return xs[a] < xs[b]; });
    const double k = hours ? 1.0 / 3600.0 : 1.0;
    for (size_t s = 0; s < ys.size(); ++s) {
        QVector<double> x, y;
        for (size_t i : order)
            if (i < ys[s].values.size()) {
                x << xs[i] * k;
                y << ys[s].values[i];
            }
        stepGraph(plot, x, y, seriesColor(int(s)), ys[s].name);
    }
    plot->rescaleAxes();
    plot->yAxis->setRangeLower(std::min(0.0, plot->yAxis->range().lower));
    plot->xAxis->setLabel(hours ? QObject::tr("time (h)") : QObject::tr("time (s)"));
    plot->yAxis->setLabel(yLabel);
    plot->legend->setVisible(ys.size() > 1);
    finish(plot);
}

void plotArrivals(QCustomPlot* plot, const Trace& trace, int bins)
{
    std::vector<double> t;
    t.reserve(trace.jobs.size());
    for (const Job& j : trace.jobs)
        t.push_back(j.submit / 3600.0);
    plotHistogram(plot, t, bins, QObject::tr("submit time (h)"), false, QObject::tr("arrivals"));
    plot->yAxis->setLabel(QObject::tr("arrivals per bin"));
    finish(plot);
}

void plotGpuDemand(QCustomPlot* plot, const Trace& trace)
{
    resetPlot(plot);
    std::map<double, int> count;
    for (const Job& j : trace.jobs)
        ++count[j.gpus];
    QVector<double> keys, vals;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    int i = 0;
    double top = 0;
    for (const auto& [g, n] : count) {
        keys << ++i;
        vals << n;
        top = std::max(top, double(n));
        ticker->addTick(i, QString::number(g, 'g', 3));
    }
    auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
    bars->setAntialiased(false);
    bars->setAntialiasedFill(false);
    bars->setWidth(0.7);
    bars->setBrush(seriesColor(0));
    bars->setPen(QPen(seriesColor(0).darker(130)));
    bars->setData(keys, vals, true);
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setSubTicks(false);
    plot->xAxis->setRange(0.4, i + 0.6);
    plot->yAxis->setRange(0, top * 1.08 + 1);
    plot->xAxis->setLabel(QObject::tr("GPUs demanded"));
    plot->yAxis->setLabel(QObject::tr("jobs"));
    finish(plot);
}

void plotDurations(QCustomPlot* plot, const Trace& trace, int bins)
{
    std::vector<double> d;
    d.reserve(trace.jobs.size());
    for (const Job& j : trace.jobs)
        d.push_back(j.duration / 60.0);
    plotHistogram(plot, d, bins, QObject::tr("duration (min, log scale)"), true, QObject::tr("durations"));
}

void plotUtilization(QCustomPlot* plot, const std::vector<TimePoint>& series)
{
    resetPlot(plot);
    QVector<double> x, u, q;
    for (const TimePoint& p : series) {
        x << p.t / 3600.0;
        u << p.utilization * 100.0;
        q << p.queue;
    }
    // Samples come in time order from the collector; sort anyway because setData(sorted=true) trusts us.
    bool sorted = std::is_sorted(x.begin(), x.end());
    auto* gu = plot->addGraph(plot->xAxis, plot->yAxis);
    gu->setData(x, u, sorted);
    gu->setLineStyle(QCPGraph::lsStepLeft);
    gu->setPen(QPen(seriesColor(0), 1.6));
    gu->setName(QObject::tr("utilization (%)"));
    auto* gq = plot->addGraph(plot->xAxis, plot->yAxis2);
    gq->setData(x, q, sorted);
    gq->setLineStyle(QCPGraph::lsStepLeft);
    gq->setPen(QPen(seriesColor(1), 1.2));
    gq->setName(QObject::tr("queue length"));
    plot->yAxis2->setVisible(true);
    plot->rescaleAxes();
    plot->yAxis->setRange(0, 105);
    plot->yAxis2->setRangeLower(0);
    plot->xAxis->setLabel(QObject::tr("time (h)"));
    plot->yAxis->setLabel(QObject::tr("GPU utilization (%)"));
    plot->yAxis2->setLabel(QObject::tr("queued jobs"));
    plot->legend->setVisible(true);
    finish(plot);
}

} // namespace ss::plots
