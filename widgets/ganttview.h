#pragma once
// A timeline with one row per GPU (or machine, or job lane). Draws only what is visible: segments are kept
// per row sorted by start with a running max of ends, so the visible range is two binary searches; sub-pixel
// neighbours are merged and rectangles are batched by colour (as Qt Creator's tracing library does).
#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <cmath>
#include <vector>

#include "metrics/metrics.h"
#include "model/clusterspec.h"
#include "sim/decisionlog.h"

class QPainter;

namespace ss {

struct GanttSegment {
    int row = 0;
    double start = 0, end = 0;
    int job = -1;
    uint8_t style = 0; ///< 0 solid; 1 secondary (lighter and hatched: e.g. Chronus's opportunistic GPU time)
};

/// A tick on the row of a job's last segment at time t (e.g. a deadline level), drawn over the segments.
struct GanttMark {
    int job = -1;
    double t = 0;
    uint8_t flags = 0; ///< kMarkMissed: drawn red (the job ended after t); kMarkLater: a later level (hollow)
    static constexpr uint8_t kMarkMissed = 1, kMarkLater = 2;
};

enum class GanttRowMode { Gpu, Machine };

/// Rows and segments ready for GanttView::setSegments().
struct GanttData {
    int rowCount = 0;
    QStringList rowLabels;
    std::vector<GanttSegment> segments;
    double t0 = 0, t1 = 0; ///< extent of all segments
};

/// Segments split into rows, each sorted by start with its running maximum of end: what the view paints from.
/// Building it sorts every row, so big runs build it off the GUI thread (indexGantt) and hand it over (setRows).
struct GanttRows {
    int rowCount = 0;
    QStringList labels;
    std::vector<std::vector<GanttSegment>> rows;
    std::vector<std::vector<double>> maxEnd;
    double t0 = 0, t1 = 0; ///< extent of the segments kept (t0 > t1: none)
};
GanttRows indexGantt(int rowCount, QStringList rowLabels, const std::vector<GanttSegment>& segs);

/// Segments from a decision log: a job occupies its GPUs from its placement until it finishes or is
/// preempted. Jobs still running at the end are closed at endTime (NaN = time of the last record).
GanttData buildGpuSegments(const ss::DecisionLog& log, const ss::ClusterSpec& cluster,
                           GanttRowMode mode = GanttRowMode::Gpu, double endTime = NAN);
/// Segments from job records (no placement known): Packed puts jobs into as few lanes as possible
/// (greedy interval partitioning by start); PerJob gives every job that ran its own row.
enum class JobLanes { Packed, PerJob };
GanttData buildSegmentsFromJobs(const std::vector<ss::JobRecord>& jobs, JobLanes lanes = JobLanes::Packed);

class GanttView : public QWidget {
    Q_OBJECT
public:
    explicit GanttView(QWidget* parent = nullptr);

    void setSegments(int rowCount, QStringList rowLabels, std::vector<GanttSegment> segs);
    void setData(GanttData data);
    /// Rows already indexed (indexGantt, e.g. on a worker thread): copies them and zooms to fit; t0 < t1 widens
    /// the time range as GanttData's extent does. setData(d) is setRows(indexGantt(d...), d.t0, d.t1).
    void setRows(const GanttRows& rows, double t0 = 0, double t1 = 0);
    /// Optional: keep a log so the view can switch between GPU and machine rows itself (setRowMode).
    void setDecisionLog(const ss::DecisionLog* log, const ss::ClusterSpec* cluster, double endTime = NAN);
    void setRowMode(GanttRowMode mode);
    GanttRowMode rowMode() const { return m_rowMode; }

    /// The full extent the user can pan/zoom within (set automatically from the segments).
    void setTimeRange(double t0, double t1);
    double viewStart() const { return m_v0; }
    double viewEnd() const { return m_v1; }
    double cursorTime() const { return m_cursor; }
    int selectedJob() const { return m_selectedJob; }
    int rowCount() const { return m_rowCount; }

    /// Indices (into the row's start-sorted segment list) of the segments of `row` overlapping the open
    /// interval (t0, t1), i.e. start < t1 && end > t0. Binary search + scan of candidates only.
    std::vector<int> visibleSegments(int row, double t0, double t1) const;
    /// The row's segments sorted by start (what visibleSegments indexes).
    const std::vector<GanttSegment>& rowSegments(int row) const { return m_rows[size_t(row)]; }
    /// Number of rectangles the last paint issued (after sub-pixel merging); for tests and benchmarks.
    int lastDrawnRectCount() const { return m_lastRects; }
    /// Segment under a widget point, or nullptr.
    const GanttSegment* segmentAt(const QPoint& pos) const;
    /// x pixel of time t and row rectangle of row r, in widget coordinates.
    double xOf(double t) const;
    QRectF rowRect(int row) const;
    void setRowHeight(int px); ///< 0 = fit rows into the height (between 2 and 22 px)
    /// Faint dashed vertical lines at every multiple of `period` seconds (0 = none), e.g. Chronus's lease
    /// boundaries; only those in view are drawn, and none when they would be closer than 8 px.
    void setPeriodLines(double period);
    double periodLines() const { return m_period; }
    /// Marks drawn on the row of each job's last segment (only those in view); empty = none.
    void setMarks(std::vector<GanttMark> marks);
    const std::vector<GanttMark>& marks() const { return m_marks; }
    /// The row a job's marks are drawn on (its last segment's), -1 when it has no segment.
    int markRow(int job) const { return job >= 0 && size_t(job) < m_markRow.size() ? m_markRow[size_t(job)] : -1; }
    /// Marks the last paint drew (tests, benchmarks).
    int lastDrawnMarkCount() const { return m_lastMarks; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public Q_SLOTS:
    void setViewRange(double t0, double t1);
    void setCursorTime(double t);
    void setSelectedJob(int jobIndex);
    void zoomToFit();

Q_SIGNALS:
    void viewRangeChanged(double t0, double t1);
    void jobSelected(int jobIndex);
    void timeClicked(double t);

protected:
    void paintEvent(QPaintEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    bool event(QEvent* e) override;

private:
    int m_rowCount = 0;
    QStringList m_labels;
    std::vector<std::vector<GanttSegment>> m_rows; // per row, sorted by start
    std::vector<std::vector<double>> m_maxEnd;     // per row, running max of end (monotone)
    double m_t0 = 0, m_t1 = 1, m_v0 = 0, m_v1 = 1;
    double m_cursor = NAN;
    int m_selectedJob = -1;
    int m_rowHeightFixed = 0;
    int m_scrollRow = 0; // first visible row
    int m_lastRects = 0;
    double m_period = 0;
    std::vector<GanttMark> m_marks; // sorted by t
    std::vector<int> m_markRow;     // per job index: row of its last segment (-1 none); built when marks exist
    int m_lastMarks = 0;
    void rebuildMarkRows();
    void paintOverlays(QPainter& p, int firstRow, int lastRow, int ah, int rh, int lw);
    GanttRowMode m_rowMode = GanttRowMode::Gpu;
    const ss::DecisionLog* m_log = nullptr;
    const ss::ClusterSpec* m_cluster = nullptr;
    double m_logEnd = NAN;
    // interaction
    bool m_dragging = false, m_dragMoved = false;
    QPoint m_pressPos;
    double m_pressV0 = 0, m_pressV1 = 0;
    int m_pressScroll = 0;
    int labelWidth() const;
    int axisHeight() const;
    int rowHeight() const;
    int visibleRowCount() const;
    void clampScroll();
};

} // namespace ss
