#pragma once
// The studio's accelerator mode (RELMAS, docs/ACCELERATOR.md §8): a window of its own, opened when a
// scenario of mode "accelerator" is opened (File ▸ Open scenario, the command line). It runs every scheduler
// the scenario lists off the GUI thread and shows the chosen one: a Gantt per sub-accelerator (layers coloured
// by tenant, SLA misses outlined), the chip at the current cycle (what each sub-accelerator runs, the shared
// bandwidth bar), the cycle stepper (ready layers and the score of every (layer, sub-accelerator) pair as a
// heatmap), the compare table and bars across schedulers, and teaching mode's walk through one cycle.
#include <QMainWindow>
#include <memory>
#include <vector>

#include "io/accelio.h"
#include "sim/accel/accelrecord.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QTabWidget;
class QTableWidget;
class QTextBrowser;
class QCustomPlot;

namespace ss {
class HeatmapView;
}

namespace ss::ui {

class AccelGanttView;
class BackgroundJob;
class ChipView;
class ExportMenus;

class AccelWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit AccelWindow(QWidget* parent = nullptr);
    ~AccelWindow() override;

    /// Whether `path` is a scenario file of mode "accelerator" (false for anything unreadable).
    static bool isAcceleratorScenario(const QString& path);
    static QStringList viewNames(); ///< gantt, chip, cycle, compare, teaching

    /// Reads the scenario (chip, networks, requests); on an error keeps what was open and returns false
    /// with errorText() set (file, line and field).
    bool openScenario(const QString& path);
    /// Runs every listed scheduler in the background; results replace the previous ones when all are done.
    void runAll();
    bool waitForIdle(int ms);
    bool isRunning() const;

    void setPolicyIndex(int i);     ///< which finished run the views show
    void setCycle(int k);           ///< 0-based index into the shown run's recorded cycles
    bool showView(const QString& name);

    QString errorText() const { return m_error; }
    const accel::AccelScenario* scenario() const { return m_scenario.get(); }
    const std::vector<std::unique_ptr<accel::StudioRun>>& runs() const { return m_runs; }
    int policyIndex() const { return m_policy; }
    int cycle() const { return m_cycle; }
    AccelGanttView* gantt() const { return m_gantt; }
    ChipView* chip() const { return m_chip; }
    QTableWidget* readyTable() const { return m_ready; }
    QTableWidget* compareTable() const { return m_compare; }
    ss::HeatmapView* scoreHeatmap() const { return m_heat; }
    QString teachingText() const;

private:
    std::unique_ptr<accel::AccelScenario> m_scenario;
    std::unique_ptr<accel::CostTable> m_cost;
    std::vector<std::unique_ptr<accel::StudioRun>> m_runs;
    int m_policy = -1, m_cycle = -1;
    QString m_error;

    BackgroundJob* m_job = nullptr;
    ExportMenus* m_exports = nullptr;
    QLabel* m_banner = nullptr;
    QLabel* m_summary = nullptr;
    QComboBox* m_policyBox = nullptr;
    QSpinBox* m_cycleBox = nullptr;
    QLabel* m_cycleLabel = nullptr;
    AccelGanttView* m_gantt = nullptr;
    ChipView* m_chip = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTableWidget* m_ready = nullptr;
    ss::HeatmapView* m_heat = nullptr;
    QTableWidget* m_compare = nullptr;
    QCustomPlot* m_bars = nullptr;
    QTextBrowser* m_teaching = nullptr;

    void showError(const QString& text);
    void fillCompare();
    void showRun();
    void showCycle();
    QString provenance() const;
};

} // namespace ss::ui
