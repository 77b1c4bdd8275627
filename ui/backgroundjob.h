#pragma once
// Long work off the GUI thread. Each start() bumps a generation id; results and progress of an older
// generation are dropped, so a superseded or cancelled job can never overwrite newer state.
#include <QObject>
#include <QPointer>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

namespace ss::ui {

class BackgroundJob : public QObject {
    Q_OBJECT
public:
    /// progress(fraction) returns false once the job was cancelled; the task should then stop.
    using Progress = std::function<bool(double)>;
    /// Runs on a pool thread; returns a closure that is applied on the GUI thread (only if still current).
    using Task = std::function<std::function<void()>(const Progress&)>;

    explicit BackgroundJob(QObject* parent = nullptr);
    ~BackgroundJob() override;

    /// Cancels any running job and starts `task`. Returns the new generation id.
    quint64 start(const QString& title, Task task);
    void cancel();
    bool isRunning() const { return m_running; }
    /// cancel() was asked for the job still running (its result will be dropped).
    bool isCancelling() const { return m_running && m_state && m_state->cancel.load(); }
    quint64 generation() const { return m_generation; }
    QString title() const { return m_title; }
    /// Blocks (processing events) until idle or `ms` passed; for tests and the headless hooks.
    bool waitForIdle(int ms);

Q_SIGNALS:
    void started(const QString& title);
    void progressChanged(double fraction);
    /// Finished normally (after the result closure ran) or with an error message / cancelled.
    void finished();
    void failed(const QString& message);
    void cancelled();

private:
    struct State {
        std::atomic<bool> cancel{false};
    };
    std::shared_ptr<State> m_state;
    quint64 m_generation = 0;
    bool m_running = false;
    QString m_title;
};

} // namespace ss::ui
