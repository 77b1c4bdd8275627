#pragma once
// The status bar's progress bar and Stop button: shown while the RunController loads or runs, hidden
// when it is done; Stop cancels both.
#include <QWidget>

class QProgressBar;

namespace ss::ui {

class RunController;

class JobProgress : public QWidget {
    Q_OBJECT
public:
    explicit JobProgress(RunController* runs, QWidget* parent = nullptr);

private:
    QProgressBar* m_bar;
};

} // namespace ss::ui
