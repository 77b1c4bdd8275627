#pragma once
// The accelerator mode's own views (RELMAS, docs/ACCELERATOR.md §8): a Gantt chart with one row per
// sub-accelerator, layers coloured by tenant and the layers of requests that missed their SLA outlined in red;
// and a chip view: every sub-accelerator with the layer it runs at the cursor and the shared bandwidth bar.
#include <QWidget>
#include <vector>

#include "sim/accel/accelrecord.h"

namespace ss::ui {

/// Microseconds as the accelerator views write them: "850 us", "12.4 ms", "1.20 s".
QString accelTime(double us);
/// The colour of tenant `t` (stable, distinct for neighbouring indices).
QColor tenantColor(int tenant);

class AccelGanttView : public QWidget {
    Q_OBJECT
public:
    explicit AccelGanttView(QWidget* parent = nullptr);
    /// Both must outlive the view or be replaced; nullptr clears it.
    void setRun(const accel::Workload* w, const accel::StudioRun* run);
    void setCursorTime(double us);
    double cursorTime() const { return m_cursor; }
    void setViewRange(double t0, double t1);
    double viewStart() const { return m_v0; }
    double viewEnd() const { return m_v1; }
    int rowCount() const { return int(m_rows.size()); }
    /// Layer runs of row `sub`, by start time (indices into the run's timeline).
    const std::vector<int>& rowRuns(int sub) const { return m_rows[size_t(sub)]; }
    /// Layer runs drawn with the SLA-miss outline at the last paint.
    int lastMissOutlines() const { return m_lastMiss; }
    /// Index into the timeline of the layer run under a widget point, -1 when none.
    int runAt(const QPoint& pos) const;
    QSize sizeHint() const override { return {900, 260}; }

Q_SIGNALS:
    void timeClicked(double us);

protected:
    void paintEvent(QPaintEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    bool event(QEvent* e) override;

private:
    const accel::Workload* m_w = nullptr;
    const accel::StudioRun* m_run = nullptr;
    std::vector<std::vector<int>> m_rows;
    double m_t0 = 0, m_t1 = 1, m_v0 = 0, m_v1 = 1, m_cursor = -1;
    int m_lastMiss = 0;
    int m_pressX = -1;
    double m_pressV0 = 0, m_pressV1 = 0;
    int labelWidth() const;
    QRectF rowRect(int r) const;
    double xOf(double t) const;
    double tOf(double x) const;
};

class ChipView : public QWidget {
    Q_OBJECT
public:
    explicit ChipView(QWidget* parent = nullptr);
    void setRun(const accel::Workload* w, const accel::CostTable* cost, const accel::StudioRun* run);
    void setTime(double us);
    /// What the view shows at the current time (for tests): per sub-accelerator the timeline index of the
    /// layer it runs (-1 idle), and the bandwidth asked for.
    const std::vector<int>& running() const { return m_running; }
    double demand() const { return m_demand; }
    QSize sizeHint() const override { return {320, 420}; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    const accel::Workload* m_w = nullptr;
    const accel::CostTable* m_cost = nullptr;
    const accel::StudioRun* m_run = nullptr;
    double m_t = 0, m_demand = 0;
    std::vector<int> m_running;
    std::vector<std::vector<int>> m_rows; ///< per sub-accelerator: timeline indices by start (runs never overlap)
};

} // namespace ss::ui
