#pragma once
// The Decision stepper dock: which run is current, where in its decision log the studio stands (the
// replayer), and the controls to move: play/pause, step, first/last, slider, go to time or job, and the
// queue at the current decision. Every move emits decisionChanged(); the window passes it to the views.
#include <QWidget>

#include <memory>

#include "runentry.h"
#include "sim/decisionlog.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;
class QTableView;
class QTimer;

namespace ss::ui {

class ExportMenus;
class GateColumnModel;
class QueueModel;

class StepperPanel : public QWidget {
    Q_OBJECT
public:
    /// Whether decision `r` decided anything beyond recording arrivals and finishes.
    static bool decidedSomething(const DecisionRecord& r);
    static constexpr int kMinQueueRows = 3; ///< the queue table never shows fewer rows (the default layout: more)
    explicit StepperPanel(ExportMenus* exports, QWidget* parent = nullptr);
    ~StepperPanel() override;

    /// The panel's height that shows `rows` rows of the queue (everything above the table as laid out now).
    int heightForRows(int rows) const;
    /// Asks the dock layout for eight queue rows.
    QSize sizeHint() const override;
    RunPtr currentRun() const { return m_current; }
    /// Makes `run` current (null: none) and rewinds; runChanged() then decisionChanged().
    void setRun(RunPtr run);
    /// Swaps in a new entry for the current run (same output, e.g. now with a database id); nothing moves.
    void replaceRun(const RunPtr& run);
    int decisionCount() const;
    int currentDecision() const { return m_decision; }
    const Replayer* replayer() const { return m_replayer.get(); }
    /// The runs offered in the Run combo.
    void setRunList(const QVector<RunPtr>& runs);

public Q_SLOTS:
    void setDecision(int k);        ///< clamped; -1 with no run
    void step(int delta);           ///< k + delta (never below the first decision)
    /// The next (dir > 0) or previous (dir < 0) decision that decided something: placed or preempted a job,
    /// gave an allocation (a Gavel round) or rejected/deferred a job. Stays put when there is none.
    void stepScheduled(int dir);
    void first() { setDecision(0); }
    void last() { setDecision(decisionCount() - 1); }
    void togglePlay();
    void gotoTime(double seconds);  ///< the first decision at or after `seconds`
    void gotoJob(qint64 jobId);     ///< the decision that placed the job (else where it arrived)

Q_SIGNALS:
    void runChanged();
    void decisionChanged(int k);
    void runActivated(int runId); ///< picked in the Run combo
    void jobSelected(int job);
    void error(const QString& message);

private:
    RunPtr m_current;
    std::unique_ptr<Replayer> m_replayer;
    int m_decision = -1;

    QSlider* m_slider = nullptr;
    QLabel* m_decisionLabel = nullptr;
    QLabel* m_admissionLabel = nullptr; ///< one line per admission verdict at this decision
    QPushButton* m_playButton = nullptr;
    QComboBox* m_speedCombo = nullptr;
    QComboBox* m_runCombo = nullptr;
    QLineEdit* m_gotoTimeEdit = nullptr;
    QLineEdit* m_gotoJobEdit = nullptr;
    QTimer* m_playTimer = nullptr;
    QueueModel* m_queueModel = nullptr;
    GateColumnModel* m_gateColumn = nullptr; ///< m_queueModel with DAS's δ column (the table's model)
    QTableView* m_queueTable = nullptr;
};

} // namespace ss::ui
