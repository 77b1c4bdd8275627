#pragma once
// The Gantt dock: the current run's schedule, one row per GPU or per machine, with the current
// decision's time as a cursor.
#include <QWidget>

#include "runentry.h"

class QComboBox;
class QLabel;
class QPushButton;

namespace ss {
class GanttView;
}

namespace ss::ui {

class ExportMenus;
class OasisSlotStrip;

class GanttPanel : public QWidget {
    Q_OBJECT
public:
    explicit GanttPanel(ExportMenus* exports, QWidget* parent = nullptr);

    void setRun(RunPtr run); ///< null clears the chart
    void setCursorTime(double t);
    ss::GanttView* view() const { return m_gantt; }
    OasisSlotStrip* oasisStrip() const { return m_oasis; }

public Q_SLOTS:
    void selectJob(int job);

Q_SIGNALS:
    void jobSelected(int job);
    void timeClicked(double t);

private:
    RunPtr m_run;
    ss::GanttView* m_gantt = nullptr;
    QComboBox* m_mode = nullptr;
    QLabel* m_chronusLegend = nullptr; ///< what Chronus's overlays mean (Chronus runs only)
    OasisSlotStrip* m_oasis = nullptr; ///< workers / PSs per job and slot (OASiS runs only)
    QPushButton* m_oasisSlotted = nullptr; ///< opens a slotted OASiS scenario (OASiS runs only)
};

} // namespace ss::ui
