#pragma once
// A matrix heatmap (rows x cols) drawn from a cached one-pixel-per-cell QImage, with labels, a colour scale,
// NaN as hatched grey and optional per-cell uncertainty, drawn apart from the colour as ± std whiskers on an
// absolute scale (a cell's height = the colour bar's span), with its legend in the view.
#include <QImage>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <vector>

#include "model/job.h"
#include "sim/decisionlog.h"

namespace ss {

/// Everything a heatmap shows. rowJobs/colJobs link rows/columns to job indices (for linked selection).
struct HeatmapData {
    int rows = 0, cols = 0;
    std::vector<float> values;      ///< row-major, rows*cols; NaN = no value
    std::vector<float> uncertainty; ///< empty or rows*cols: a standard deviation, in the values' unit
    QStringList rowLabels, colLabels;
    std::vector<int> rowJobs, colJobs;
    QString title;
};

/// Jobs are labelled by their trace id (as the stepper and the trace table name them) when `trace` is given,
/// else "j<index>".
/// Priority of the queued jobs of one decision: 1 row x queue (highest priority first); uncertainty = priorityStd.
HeatmapData priorityMatrix(const ss::DecisionRecord& record, const ss::Trace* trace = nullptr);
/// Affinity of one decision: placed jobs x machines (dense or top-K), uncertainty = sqrt(affinityVar).
/// machineNames may be empty (labels become "m<index>").
HeatmapData affinityMatrix(const ss::DecisionRecord& record, int machineCount, const QStringList& machineNames = {},
                           const ss::Trace* trace = nullptr);
/// A round-based policy's allocation X (Gavel): jobs x GPU types, the share of time; rows of jobs whose
/// throughputs were estimated are labelled with '*'. At most maxJobs rows.
HeatmapData allocationMatrix(const ss::DecisionRecord& record, int maxJobs = 400, const ss::Trace* trace = nullptr);
/// Priority of jobs over decisions [first, last]: rows = jobs seen in any queue (by first appearance,
/// at most maxJobs), cols = decisions; NaN where a job was not queued.
HeatmapData priorityHistory(const ss::DecisionLog& log, int first, int last, int maxJobs = 1000,
                            const ss::Trace* trace = nullptr);

class HeatmapView : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapView(QWidget* parent = nullptr);

    void setMatrix(int rows, int cols, std::vector<float> values, QStringList rowLabels = {}, QStringList colLabels = {});
    /// Same shape as the matrix; empty removes it.
    void setUncertainty(std::vector<float> values);
    void setData(HeatmapData data);
    void setRowJobs(std::vector<int> jobs);
    void setColJobs(std::vector<int> jobs);
    /// Fixed colour range; autoColorRange() goes back to min..max of the finite values.
    void setColorRange(float min, float max);
    void setAutoColorRange();
    void setTitle(const QString& title);
    /// Hide the colour bar (small multiples in DecisionStripView share one scale).
    void setColorBarVisible(bool visible);
    /// Hide the uncertainty legend line (small multiples; the whiskers stay).
    void setLegendVisible(bool visible);

    int rows() const { return m_rows; }
    int cols() const { return m_cols; }
    QString title() const { return m_title; }
    QStringList rowLabels() const { return m_rowLabels; }
    QStringList colLabels() const { return m_colLabels; }
    float value(int r, int c) const { return m_values[size_t(r) * size_t(m_cols) + size_t(c)]; }
    float rangeMin() const { return m_min; }
    float rangeMax() const { return m_max; }
    /// The colour bar's end labels, {bottom (min), top (max)}: three significant digits, or as many more (up to a
    /// float's nine) as it takes for two different ends to read differently.
    std::pair<QString, QString> rangeLabels() const;
    /// Where the colour bar's end labels are drawn, {bottom (min), top (max)}, one line each: the max at the bar's
    /// top, the min at its bottom or, on a bar shorter than two lines (a one-row map), just under the max label,
    /// below the bar's end. Empty without a colour bar.
    std::pair<QRect, QRect> rangeLabelRects() const;
    /// Significant digits of the values written in the cells: as the colour bar's labels.
    int labelDigits() const;
    /// Widget-coordinate rectangle of a cell (may be sub-pixel for big matrices).
    QRectF cellRect(int r, int c) const;
    /// Cell at a point, {-1,-1} outside.
    std::pair<int, int> cellAt(const QPointF& p) const;
    /// The colour a value is drawn with, whatever its uncertainty. Scale: min -> scoreRgb(0), max -> scoreRgb(1).
    QRgb colorFor(float v) const;
    /// The uncertainty legend shown under the title ("" without uncertainty).
    QString uncertaintyLegend() const;
    /// Whether cells are big enough for the ± std whiskers (else the legend points to the tooltips).
    bool whiskersVisible() const;
    const QImage& cachedImage() const { return m_image; }
    int selectedJob() const { return m_selectedJob; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public Q_SLOTS:
    void setSelectedJob(int jobIndex);

Q_SIGNALS:
    void jobSelected(int jobIndex);
    void cellClicked(int row, int col);

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    bool event(QEvent* e) override;

private:
    int m_rows = 0, m_cols = 0;
    std::vector<float> m_values, m_unc;
    QStringList m_rowLabels, m_colLabels;
    std::vector<int> m_rowJobs, m_colJobs;
    QString m_title;
    bool m_autoRange = true;
    bool m_colorBar = true;
    bool m_legend = true;
    float m_min = 0, m_max = 1;
    int m_selectedJob = -1;
    QImage m_image;       // one pixel per cell
    bool m_hasNaN = false;
    QRectF m_plot;        // cell area in widget coordinates
    QSize m_layoutSize;
    void ensureLayout() const;
    QRect colorBarRect() const; // beside the cells, as tall as they are (after ensureLayout)
    void rebuildImage();
    void relayout();
};

/// The DAS paper's four-step view: the last four decisions up to the current one, side by side.
class DecisionStripView : public QWidget {
    Q_OBJECT
public:
    enum class Content { Priority, Affinity };
    explicit DecisionStripView(QWidget* parent = nullptr);
    /// Not owned (nor is `trace`, whose ids label the jobs). machineNames label affinity columns.
    void setLog(const ss::DecisionLog* log, const QStringList& machineNames = {}, const ss::Trace* trace = nullptr);
    void setContent(Content c);
    /// Show decisions current-3 .. current (fewer at the start).
    void setCurrentDecision(int index);
    HeatmapView* heatmap(int i) const { return m_maps[size_t(i)]; } ///< 0 = oldest

public Q_SLOTS:
    void setSelectedJob(int jobIndex);

Q_SIGNALS:
    void jobSelected(int jobIndex);

private:
    const ss::DecisionLog* m_log = nullptr;
    const ss::Trace* m_trace = nullptr;
    QStringList m_machineNames;
    Content m_content = Content::Priority;
    int m_current = -1;
    std::vector<HeatmapView*> m_maps;
    void refresh();
};

} // namespace ss
