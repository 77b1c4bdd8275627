#pragma once
// The status bar's progress bar, the run's live line and the Stop button: shown while the RunController
// loads or runs, hidden when it is done; Stop cancels both.
#include <QWidget>

class QLabel;
class QProgressBar;

namespace ss::ui {

class RunController;

class JobProgress : public QWidget {
    Q_OBJECT
public:
    explicit JobProgress(RunController* runs, QWidget* parent = nullptr);

private:
    QProgressBar* m_bar;
    QLabel* m_live; ///< inside a run: policy, simulated time, jobs done and arrived
};

} // namespace ss::ui
