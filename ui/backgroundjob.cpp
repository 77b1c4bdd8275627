#include "backgroundjob.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>
#include <QThreadPool>

#include <exception>

namespace ss::ui {

BackgroundJob::BackgroundJob(QObject* parent) : QObject(parent) {}

BackgroundJob::~BackgroundJob()
{
    if (m_state)
        m_state->cancel = true;
}

quint64 BackgroundJob::start(const QString& title, Task task)
{
    if (m_state)
        m_state->cancel = true;
    auto state = std::make_shared<State>();
    m_state = state;
    const quint64 gen = ++m_generation;
    m_running = true;
    m_title = title;
    Q_EMIT started(title);
    Q_EMIT progressChanged(0);

    QPointer<BackgroundJob> self(this);
    auto lastPermille = std::make_shared<std::atomic<int>>(-1);
    // Progress is throttled to whole permille steps so a fast loop cannot flood the event queue.
    Progress progress = [self, state, gen, lastPermille](double f) {
        const int pm = int(f * 1000);
        if (pm != lastPermille->exchange(pm) && self) {
            QMetaObject::invokeMethod(self.data(), [self, gen, f] {
                if (self && self->m_generation == gen && self->m_running)
                    Q_EMIT self->progressChanged(f);
            }, Qt::QueuedConnection);
        }
        return !state->cancel.load();
    };
    QThreadPool::globalInstance()->start([self, state, gen, task = std::move(task), progress] {
        std::function<void()> apply;
        QString error;
        try {
            apply = task(progress);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        } catch (...) {
            error = QStringLiteral("unknown error");
        }
        const bool wasCancelled = state->cancel.load();
        if (!self)
            return;
        QMetaObject::invokeMethod(self.data(), [self, gen, apply, error, wasCancelled] {
            if (!self || self->m_generation != gen)
                return; // stale: a newer job replaced this one
            self->m_running = false;
            if (wasCancelled) {
                Q_EMIT self->cancelled();
            } else if (!error.isEmpty()) {
                Q_EMIT self->failed(error);
            } else {
                if (apply)
                    apply();
                Q_EMIT self->finished();
            }
        }, Qt::QueuedConnection);
    });
    return gen;
}

void BackgroundJob::cancel()
{
    if (!m_state || !m_running)
        return;
    m_state->cancel = true;
}

bool BackgroundJob::waitForIdle(int ms)
{
    QElapsedTimer t;
    t.start();
    while (m_running && t.elapsed() < ms) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (m_running)
            QThread::msleep(2);
    }
    return !m_running;
}

} // namespace ss::ui
