#pragma once
// Ready-made QCustomPlot charts for the studio: JCT CDFs, grouped bars with error bars, histograms and time
// series. All use rpQueuedReplot, sorted data, no antialiasing for boxes, and colours from the palette.
#include <QColor>
#include <QPalette>
#include <QString>
#include <QStringList>
#include <vector>

#include "model/job.h"
#include "metrics/metrics.h"

#include "qcp.h" // QCustomPlot (use this, not <qcustomplot.h>: see qcp.h)

namespace ss::plots {

/// Distinct colours for series (runs/policies), not job colours. Index wraps.
QColor seriesColor(int i);
/// Background, axes, grid and legend colours from the palette (light or dark). Call before or after plotting.
void applyTheme(QCustomPlot* plot, const QPalette& palette);

struct NamedSeries {
    QString name;
    std::vector<double> values;
};

/// Empirical CDF of each series (e.g. JCT in minutes per run): y in [0,1]. logX for heavy tails.
void plotCdf(QCustomPlot* plot, const std::vector<NamedSeries>& series, const QString& xLabel, bool logX = false);
/// Grouped bars: mean[s][c] with +-sd[s][c] error bars (sd may be empty = no bars), one group per category.
void plotGroupedBars(QCustomPlot* plot, const QStringList& categories, const QStringList& seriesNames,
                     const std::vector<std::vector<double>>& mean, const std::vector<std::vector<double>>& sd,
                     const QString& yLabel);
/// Histogram with `bins` equal bins over [min,max] of the values (log10 bins when logX, values <= 0 dropped).
void plotHistogram(QCustomPlot* plot, const std::vector<double>& values, int bins, const QString& xLabel,
                   bool logX = false, const QString& name = {});
/// Step-wise time series (x sorted by the helper). xs in seconds are shown as hours when hours = true.
void plotTimeSeries(QCustomPlot* plot, const std::vector<NamedSeries>& ys, const std::vector<double>& xs,
                    const QString& yLabel, bool hours = true);

/// Trace views: arrivals per bin over time, jobs per GPU demand, duration distribution (log10 minutes).
void plotArrivals(QCustomPlot* plot, const ss::Trace& trace, int bins = 100);
void plotGpuDemand(QCustomPlot* plot, const ss::Trace& trace);
void plotDurations(QCustomPlot* plot, const ss::Trace& trace, int bins = 40);
/// Run view: utilization and queue length over time (two y axes).
void plotUtilization(QCustomPlot* plot, const std::vector<ss::TimePoint>& series);

/// Helper the charts use: histogram counts over [lo,hi) with `bins` bins (last bin closed). Exposed for tests.
std::vector<double> histogramCounts(const std::vector<double>& values, int bins, double lo, double hi);

} // namespace ss::plots
