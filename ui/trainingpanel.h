#pragma once
// Training panel (in builds with the LibTorch module, which loads when training starts): trains a DAS policy on the
// scenario's cluster and trace on a worker thread (start / pause / stop, checkpoint save) and draws the learning
// curve as iterations finish.
// No Q_OBJECT: the panel talks to its worker through queued lambdas, so moc never has to see the guard.
#if defined(SCHEDSTUDIO_HAVE_TORCH) && __has_include("learn/trainer.h")
#define SS_UI_HAVE_TRAINING 1
#include <QWidget>

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "learn/trainer.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace ss::ui {

class TrainingPanel : public QWidget {
public:
    /// What to train on, asked for when Start is pressed: fills cluster and trace, or returns an error line.
    using Source = std::function<QString(ss::ClusterSpec& cluster, std::shared_ptr<const ss::Trace>& trace)>;

    explicit TrainingPanel(Source source, QWidget* parent = nullptr);
    ~TrainingPanel() override; ///< stops the worker and waits for its current iteration

    enum class State { Idle, Running, Paused, Stopping };
    State state() const { return m_state; }
    bool start();          ///< false (and the reason in statusText) when it cannot start
    void setPaused(bool paused);
    void stop();           ///< asks the worker to stop after its current iteration
    /// Saves a checkpoint of the current policy (on the worker between iterations, or right away when idle).
    void saveCheckpoint(const QString& path);
    /// Blocks (processing events) until the worker is done or `ms` passed; for tests and benchmarks.
    bool waitForIdle(int ms);
    /// Paused and the worker is waiting between iterations (the one under way at Pause has ended and posted).
    bool workerParked() const;
    const std::vector<ss::learn::TrainStats>& history() const { return m_stats; }
    QString statusText() const;
    QCustomPlot* plot() const { return m_plot; }
    void setIterations(int n);
    void setEpisodeJobs(int n);
    void retheme();

    /// Called on the GUI thread after each iteration, and when training ends (for tests and the window).
    std::function<void(const ss::learn::TrainStats&)> onIteration;
    std::function<void(const QString& message)> onFinished;

private:
    struct Shared;
    void buildUi();
    void setState(State s);
    void addStats(const ss::learn::TrainStats& s);
    void finished(const QString& message);
    void replot();

    Source m_source;
    std::shared_ptr<Shared> m_shared;
    std::thread m_thread;
    State m_state = State::Idle;
    bool m_hasTrainer = false; ///< a finished or stopped run left a trainer to save
    std::vector<ss::learn::TrainStats> m_stats;

    QComboBox* m_policy = nullptr;
    QSpinBox* m_iterations = nullptr;
    QSpinBox* m_episodes = nullptr;
    QSpinBox* m_episodeJobs = nullptr;
    QSpinBox* m_seed = nullptr;
    QDoubleSpinBox* m_lr = nullptr;
    QCheckBox* m_holdOut = nullptr;
    QPushButton* m_start = nullptr;
    QPushButton* m_pause = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_save = nullptr;
    QLabel* m_status = nullptr;
    QCustomPlot* m_plot = nullptr;
};

} // namespace ss::ui
#endif
