#pragma once
// The Fork dock (issue 21): fork the current run at the stepper's decision with one change (another policy
// from here, a job placed on chosen machines, machines failed, drained or added, jobs moved to the queue head, a
// burst of arrivals from a trace file); the
// window has the RunController rerun it off the GUI thread (run/fork.h), and the dock shows the outcome: the
// first diverging decision, metric deltas, a Gantt diff (both schedules of the jobs that moved on one time
// axis) and a sortable per-job JCT / fee delta table.
#include <QWidget>

#include <memory>

#include "run/fork.h"
#include "run/forkdiff.h"
#include "runentry.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableView;

namespace ss::ui {

class GanttDiffView;
class DeltaModel;

class ForkPanel : public QWidget {
    Q_OBJECT
public:
    explicit ForkPanel(QWidget* parent = nullptr);

    enum class Kind { Policy, Place, Fail, Drain, QueueFirst, AddMachines, Burst };
    /// The run and decision (0-based, as the stepper counts) a fork would start from.
    void setContext(RunPtr run, int decision);
    /// Fills the change fields (for the command line and tests): `kind`, the policy or the job id(s) and
    /// machine names (comma-separated); AddMachines: the count and the machine copied; Burst: the burst's trace file.
    void setChange(Kind kind, const QString& policyOrJobs, const QString& machines = {});
    /// The request the fields describe, or an empty optional with `why` set (nothing to fork, bad job/machine).
    bool buildRequest(ForkRequest& req, QString& why) const;

    void showRunning(const QString& description);
    void showError(const QString& message);
    /// `diff`: diffRuns(parent, fork), computed off the GUI thread (null: computed here).
    void showResult(const RunPtr& parent, const RunPtr& fork, std::shared_ptr<const RunDiff> diff = {});
    const RunDiff* diff() const { return m_diff.get(); }
    int deltaRows() const;

public Q_SLOTS:
    void requestFork(); ///< validates the fields and emits forkRequested (or shows why not)

Q_SIGNALS:
    void forkRequested(const ss::ForkRequest& request);

private:
    RunPtr m_run;
    int m_decision = -1;
    std::shared_ptr<const RunDiff> m_diff;
    QLabel* m_context = nullptr;
    QComboBox* m_kind = nullptr;
    QComboBox* m_policy = nullptr;
    QLineEdit* m_jobs = nullptr;
    QLineEdit* m_machines = nullptr;
    QSpinBox* m_count = nullptr;
    QLineEdit* m_burst = nullptr;
    QPushButton* m_go = nullptr;
    QLabel* m_result = nullptr;
    GanttDiffView* m_gantt = nullptr;
    QTableView* m_table = nullptr;
    DeltaModel* m_model = nullptr;
    void updateFields();
};

/// Two schedules on one time axis: for each job that moved (the biggest JCT changes first), its run in A
/// (grey) and in B (green when it finished sooner, red when later), and a line at the fork point.
class GanttDiffView : public QWidget {
    Q_OBJECT
public:
    explicit GanttDiffView(QWidget* parent = nullptr);
    void setDiff(std::shared_ptr<const RunDiff> diff, double forkTime);
    int rows() const { return int(m_rows.size()); }
    QSize sizeHint() const override { return {600, 260}; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    std::shared_ptr<const RunDiff> m_diff;
    std::vector<size_t> m_rows;
    double m_forkTime = -1;
};

} // namespace ss::ui
