#pragma once
// OASiS's workers and parameter servers per job over time (issue 19: "worker/PS counts per job over time in the
// Gantt"): under the Gantt of an `oasis` run, one row per admitted job and one cell per slot of its committed
// schedule, the cell's height the slot's worker count y_i(t) against the job's largest, labelled "4w 1p" (workers,
// PSs) when wide enough, with a tooltip. A bar under each cell marks the GPUs the job really held in that slot
// (from the decision log); a red bar marks GPUs held outside the plan (an overrun). The counts come from the
// admission reasons the policy records ("...; schedule: 4 workers, 1 PS in slots 10-13, 15 on m0, m3",
// policy/oasis/oasispolicy.h). In the engine the schedules are rigid (a job has all N workers or none in a slot);
// a summary with a range ("1-4 workers") is shown as that range, as the reason gives no per-slot split.
#include <QString>
#include <QWidget>

#include <vector>

#include "runentry.h"

class QComboBox;
class QLabel;

namespace ss {
class GanttView;
}
namespace ss::oasis {
struct OasisScenario;
struct OasisRun;
}

namespace ss::ui {

/// One slot of one job: what its schedule reserved and what it held.
struct OasisSlotCell {
    int slot = 0;
    int workersLo = 0, workersHi = 0; ///< planned workers (lo < hi: the summary gives a range)
    int psLo = 0, psHi = 0;           ///< planned PSs
    int held = 0;                     ///< GPUs the job held during the slot (distinct GPUs)
    bool planned() const { return workersHi > 0; }
};

struct OasisJobSlots {
    int job = -1;                     ///< job index
    long long id = -1;                ///< the job's trace id (labels, tooltips)
    int workersLo = 0, workersHi = 0, psLo = 0, psHi = 0;
    std::vector<OasisSlotCell> cells; ///< ascending slots: the planned ones and any held outside the plan
};

struct OasisSlotsData {
    double slotSeconds = 600;
    std::vector<OasisJobSlots> jobs;  ///< admitted jobs, by first planned slot then job index
    int maxWorkers = 0;
};

/// A parsed schedule summary ("4 workers, 1 PS in slots 10-13, 15 on m0, m3"); ok = false when not one.
struct OasisScheduleSummary {
    bool ok = false;
    int workersLo = 0, workersHi = 0, psLo = 0, psHi = 0;
    std::vector<int> slots;
};
OasisScheduleSummary parseOasisSchedule(const QString& summary);

/// The per-slot counts of an `oasis` run (empty when it is not one or has no decision log). Slot length: the run's
/// `oasis.slot` parameter (600 s by default).
OasisSlotsData oasisSlotsOf(const RunEntry& run);
/// The per-slot counts of a slotted run (runOasisPolicy with keepSchedules): the elastic y_i(t), z_i(t) of every
/// admitted job that ran (z from the decisions' schedules for oasis, from the bandwidth rule psFor(y) for the
/// baselines); the slotted simulator runs every plan as made, so held = the workers.
OasisSlotsData oasisSlotsOf(const ss::oasis::OasisScenario& sc, const ss::oasis::OasisRun& run);

/// The strip under the Gantt; follows the Gantt's time window, cursor and selected job. Without a Gantt (null) it
/// has its own time axis over the data's slots (the slotted-run window).
class OasisSlotStrip : public QWidget {
    Q_OBJECT
public:
    explicit OasisSlotStrip(ss::GanttView* gantt, QWidget* parent = nullptr);
    void setData(OasisSlotsData d);
    const OasisSlotsData& data() const { return m_data; }
    void setSelectedJob(int job);
    /// Tooltip text of the cell under a widget point ("" = none).
    QString tipAt(const QPoint& pos) const;
    int lastDrawnCells() const { return m_lastCells; } ///< cells the last paint drew (tests)
    QSize sizeHint() const override;

Q_SIGNALS:
    void jobSelected(int job);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    bool event(QEvent* e) override;

private:
    ss::GanttView* m_gantt;
    OasisSlotsData m_data;
    double m_t0 = 0, m_t1 = 1; // own time window (no Gantt)
    double viewStart() const;
    double viewEnd() const;
    int m_selected = -1;
    int m_lastCells = 0;
    int headerHeight() const;
    int rowHeight() const;
    double xOf(double t) const; ///< the Gantt's x of time t, in this widget's coordinates
    bool cellAt(const QPoint& pos, int& row, int& cell) const;
};

/// A slotted OASiS scenario (`schedstudio-oasis` file, e.g. sample-traces/oasis-ps.json) run in the studio under a
/// chosen policy, with the strip of its elastic workers and PSs per slot (GanttPanel's "Slotted OASiS…" button).
class OasisSlottedWindow : public QWidget {
    Q_OBJECT
public:
    /// Reads `path` (throws ss::IoError / std::exception with the file's error) and runs OASiS on it.
    explicit OasisSlottedWindow(const QString& path, QWidget* parent = nullptr);
    ~OasisSlottedWindow() override;
    void setPolicy(const QString& policy); ///< oasis, fifo, drf, dorm, greedy, riskreward
    OasisSlotStrip* strip() const { return m_strip; }
    QString summary() const; ///< the line above the strip

private:
    std::unique_ptr<ss::oasis::OasisScenario> m_sc;
    QComboBox* m_policy = nullptr;
    QLabel* m_summary = nullptr;
    OasisSlotStrip* m_strip = nullptr;
};

} // namespace ss::ui
