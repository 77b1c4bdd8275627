#include "trainingpanel.h"

#ifdef SS_UI_HAVE_TRAINING
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include <condition_variable>
#include <mutex>

#include "plothelpers.h"
#include "qcp.h"

namespace ss::ui {

static QString trp(const char* s) { return QCoreApplication::translate("TrainingPanel", s); }

// State shared by the panel and its worker; the worker owns the Trainer while it runs.
struct TrainingPanel::Shared {
    std::mutex mu;
    std::condition_variable cv;
    bool paused = false;
    bool parked = false; ///< the worker waits, paused, between iterations
    bool stop = false;
    std::vector<std::string> saveRequests;
    std::unique_ptr<learn::Trainer> trainer; ///< kept after the run ends, for a later save
    bool running = false;
};

TrainingPanel::TrainingPanel(Source source, QWidget* parent)
    : QWidget(parent), m_source(std::move(source)), m_shared(std::make_shared<Shared>())
{
    buildUi();
    setState(State::Idle);
}

TrainingPanel::~TrainingPanel()
{
    {
        std::lock_guard<std::mutex> lock(m_shared->mu);
        m_shared->stop = true;
        m_shared->paused = false;
    }
    m_shared->cv.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void TrainingPanel::buildUi()
{
    auto* v = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    m_policy = new QComboBox(this);
    m_policy->addItems({QStringLiteral("das"), QStringLiteral("da"), QStringLiteral("da+mc"), QStringLiteral("da+rwgp")});
    m_policy->setToolTip(trp("das: dual agent with RWGP placement scores; da: without; +mc / +rwgp: one part only"));
    m_iterations = new QSpinBox(this);
    m_iterations->setRange(1, 100000);
    m_iterations->setValue(50);
    m_episodes = new QSpinBox(this);
    m_episodes->setRange(1, 64);
    m_episodes->setValue(2);
    m_episodeJobs = new QSpinBox(this);
    m_episodeJobs->setRange(0, 10000000);
    m_episodeJobs->setValue(200);
    m_episodeJobs->setSpecialValueText(trp("whole trace"));
    m_episodeJobs->setToolTip(trp("Jobs per training episode: a random window of the trace (0 = the whole trace)"));
    m_seed = new QSpinBox(this);
    m_seed->setRange(0, 1000000000);
    m_seed->setValue(1);
    m_lr = new QDoubleSpinBox(this);
    m_lr->setDecimals(5);
    m_lr->setRange(1e-5, 1e-1);
    m_lr->setSingleStep(1e-4);
    m_lr->setValue(5e-4);
    m_holdOut = new QCheckBox(trp("Hold out the last 20 % of the trace and evaluate on it every 5 iterations"), this);
    m_holdOut->setChecked(true);
    form->addRow(trp("Policy"), m_policy);
    form->addRow(trp("Iterations"), m_iterations);
    form->addRow(trp("Episodes / iteration"), m_episodes);
    form->addRow(trp("Jobs / episode"), m_episodeJobs);
    form->addRow(trp("Seed"), m_seed);
    form->addRow(trp("Learning rate"), m_lr);
    form->addRow(m_holdOut);
    v->addLayout(form);

    auto* buttons = new QHBoxLayout;
    m_start = new QPushButton(trp("Start"), this);
    m_pause = new QPushButton(trp("Pause"), this);
    m_pause->setCheckable(true);
    m_stop = new QPushButton(trp("Stop"), this);
    m_save = new QPushButton(trp("Save checkpoint…"), this);
    for (QPushButton* b : {m_start, m_pause, m_stop, m_save})
        buttons->addWidget(b);
    buttons->addStretch(1);
    v->addLayout(buttons);
    m_status = new QLabel(trp("Trains on the scenario's cluster and trace (runs on a worker thread)."), this);
    m_status->setWordWrap(true);
    v->addWidget(m_status);

    m_plot = new QCustomPlot(this);
    m_plot->setMinimumHeight(220);
    m_plot->xAxis->setLabel(trp("iteration"));
    m_plot->yAxis->setLabel(trp("mean JCT (min)"));
    m_plot->yAxis2->setLabel(trp("mean reward per decision"));
    m_plot->yAxis2->setVisible(true);
    m_plot->legend->setVisible(true);
    QCPGraph* train = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis);
    train->setName(trp("train JCT"));
    train->setPen(QPen(plots::seriesColor(0), 2));
    QCPGraph* eval = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis);
    eval->setName(trp("held-out JCT"));
    eval->setPen(QPen(plots::seriesColor(1), 2));
    eval->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
    QCPGraph* reward = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
    reward->setName(trp("reward"));
    reward->setPen(QPen(plots::seriesColor(2), 1, Qt::DashLine));
    v->addWidget(m_plot, 1);
    retheme();

    QObject::connect(m_start, &QPushButton::clicked, this, [this] { start(); });
    QObject::connect(m_pause, &QPushButton::toggled, this, [this](bool on) { setPaused(on); });
    QObject::connect(m_stop, &QPushButton::clicked, this, [this] { stop(); });
    QObject::connect(m_save, &QPushButton::clicked, this, [this] {
        const QString p = QFileDialog::getSaveFileName(this, trp("Save checkpoint"), m_policy->currentText() + QStringLiteral(".pt"),
                                                       trp("Checkpoints (*.pt);;All files (*)"));
        if (!p.isEmpty())
            saveCheckpoint(p);
    });
}

void TrainingPanel::retheme()
{
    plots::applyTheme(m_plot, palette());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TrainingPanel::setIterations(int n) { m_iterations->setValue(n); }
void TrainingPanel::setEpisodeJobs(int n) { m_episodeJobs->setValue(n); }

QString TrainingPanel::statusText() const { return m_status->text(); }

void TrainingPanel::setState(State s)
{
    m_state = s;
    const bool busy = s != State::Idle;
    m_start->setEnabled(!busy);
    m_pause->setEnabled(s == State::Running || s == State::Paused);
    m_stop->setEnabled(s == State::Running || s == State::Paused);
    m_save->setEnabled(s != State::Stopping && (busy || m_hasTrainer));
    for (QWidget* w : std::initializer_list<QWidget*>{m_policy, m_iterations, m_episodes, m_episodeJobs, m_seed, m_lr, m_holdOut})
        w->setEnabled(!busy);
    if (!busy) {
        QSignalBlocker b(m_pause);
        m_pause->setChecked(false);
    }
}

bool TrainingPanel::start()
{
    if (m_state != State::Idle)
        return false;
    if (m_thread.joinable())
        m_thread.join(); // the previous worker has reported its end already
    learn::TrainConfig cfg;
    std::shared_ptr<const Trace> trace;
    const QString err = m_source ? m_source(cfg.cluster, trace) : trp("no scenario");
    if (!err.isEmpty() || !trace || trace->jobs.empty()) {
        m_status->setText(trp("Cannot train: %1").arg(err.isEmpty() ? trp("no trace loaded") : err));
        return false;
    }
    cfg.policy = m_policy->currentText().toStdString();
    cfg.iterations = m_iterations->value();
    cfg.episodesPerIteration = m_episodes->value();
    cfg.seed = uint64_t(m_seed->value());
    cfg.lr = m_lr->value();
    // The held-out part is the end of the trace in time: the policy is judged on jobs it never saw.
    const size_t n = trace->jobs.size();
    const bool holdOut = m_holdOut->isChecked() && n >= 10;
    const size_t cut = holdOut ? n - n / 5 : n;
    cfg.trace = *trace;
    cfg.trace.jobs.resize(cut);
    if (holdOut) {
        cfg.evalTrace = *trace;
        cfg.evalTrace.jobs.erase(cfg.evalTrace.jobs.begin(), cfg.evalTrace.jobs.begin() + long(cut));
        cfg.evalEvery = 5;
    } else {
        cfg.evalEvery = 0;
    }
    cfg.episodeJobs = std::min<int>(m_episodeJobs->value(), int(cut));
    cfg.command = "schedstudio training panel";

    m_stats.clear();
    m_hasTrainer = false;
    for (int i = 0; i < m_plot->graphCount(); ++i)
        m_plot->graph(i)->data()->clear();
    replot();
    {
        std::lock_guard<std::mutex> lock(m_shared->mu);
        m_shared->stop = false;
        m_shared->paused = false;
        m_shared->saveRequests.clear();
        m_shared->trainer.reset();
        m_shared->running = true;
    }
    setState(State::Running);
    m_status->setText(trp("Starting %1 on %2 jobs (%3 held out)…")
                          .arg(m_policy->currentText()).arg(cut).arg(n - cut));

    // Results come back as queued calls; QPointer drops them if the panel is gone meanwhile (it joins the
    // worker in its destructor, so this is belt and braces).
    QPointer<TrainingPanel> self(this);
    auto shared = m_shared;
    m_thread = std::thread([self, shared, cfg = std::move(cfg)]() mutable {
        auto post = [self](std::function<void(TrainingPanel*)> f) {
            QMetaObject::invokeMethod(qApp, [self, f = std::move(f)] {
                if (self)
                    f(self.data());
            }, Qt::QueuedConnection);
        };
        auto doSaves = [&](learn::Trainer& t) {
            std::vector<std::string> paths;
            {
                std::lock_guard<std::mutex> lock(shared->mu);
                paths.swap(shared->saveRequests);
            }
            for (const std::string& p : paths) {
                QString msg;
                try {
                    t.save(p);
                    msg = trp("Saved checkpoint %1").arg(QString::fromStdString(p));
                } catch (const std::exception& e) {
                    msg = trp("Cannot save checkpoint: %1").arg(QString::fromUtf8(e.what()));
                }
                post([msg](TrainingPanel* p) { p->m_status->setText(msg); });
            }
        };
        QString end;
        try {
            auto trainer = std::make_unique<learn::Trainer>(std::move(cfg));
            for (;;) {
                {
                    std::unique_lock<std::mutex> lock(shared->mu);
                    shared->parked = shared->paused; // the last iteration's stats are posted already
                    shared->cv.wait(lock, [&] { return !shared->paused || shared->stop || !shared->saveRequests.empty(); });
                    shared->parked = false;
                    if (shared->stop)
                        break;
                }
                doSaves(*trainer);
                {
                    std::lock_guard<std::mutex> lock(shared->mu);
                    if (shared->paused)
                        continue;
                }
                if (!trainer->step()) {
                    end = trp("Training finished after %1 iterations.").arg(trainer->iteration());
                    break;
                }
                const learn::TrainStats st = trainer->lastStats();
                post([st](TrainingPanel* p) { p->addStats(st); });
            }
            doSaves(*trainer);
            if (end.isEmpty())
                end = trp("Training stopped after %1 iterations.").arg(trainer->iteration());
            std::lock_guard<std::mutex> lock(shared->mu);
            shared->trainer = std::move(trainer);
            shared->running = false;
        } catch (const std::exception& e) {
            end = trp("Training failed: %1").arg(QString::fromUtf8(e.what()));
            std::lock_guard<std::mutex> lock(shared->mu);
            shared->running = false;
        }
        post([end](TrainingPanel* p) { p->finished(end); });
    });
    return true;
}

bool TrainingPanel::workerParked() const
{
    std::lock_guard<std::mutex> lock(m_shared->mu);
    return m_shared->parked;
}

void TrainingPanel::setPaused(bool paused)
{
    if (m_state != State::Running && m_state != State::Paused)
        return;
    {
        std::lock_guard<std::mutex> lock(m_shared->mu);
        m_shared->paused = paused;
    }
    m_shared->cv.notify_all();
    {
        QSignalBlocker b(m_pause);
        m_pause->setChecked(paused);
    }
    m_pause->setText(paused ? trp("Resume") : trp("Pause"));
    setState(paused ? State::Paused : State::Running);
    m_status->setText(paused ? trp("Paused after iteration %1.").arg(m_stats.size()) : trp("Resumed."));
}

void TrainingPanel::stop()
{
    if (m_state != State::Running && m_state != State::Paused)
        return;
    {
        std::lock_guard<std::mutex> lock(m_shared->mu);
        m_shared->stop = true;
        m_shared->paused = false;
    }
    m_shared->cv.notify_all();
    setState(State::Stopping);
    m_status->setText(trp("Stopping after the current iteration…"));
}

void TrainingPanel::saveCheckpoint(const QString& path)
{
    bool queued = false;
    {
        std::lock_guard<std::mutex> lock(m_shared->mu);
        if (m_shared->running) {
            m_shared->saveRequests.push_back(path.toStdString());
            queued = true;
        }
    }
    if (queued) {
        m_shared->cv.notify_all();
        m_status->setText(trp("Saving after the current iteration…"));
        return;
    }
    if (!m_shared->trainer) {
        m_status->setText(trp("Nothing to save: start training first."));
        return;
    }
    try {
        m_shared->trainer->save(path.toStdString()); // the worker is gone: the trainer is ours now
        m_status->setText(trp("Saved checkpoint %1").arg(path));
    } catch (const std::exception& e) {
        m_status->setText(trp("Cannot save checkpoint: %1").arg(QString::fromUtf8(e.what())));
    }
}

bool TrainingPanel::waitForIdle(int ms)
{
    QElapsedTimer t;
    t.start();
    while (m_state != State::Idle && t.elapsed() < ms) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (m_state != State::Idle)
            QThread::msleep(2);
    }
    return m_state == State::Idle;
}

void TrainingPanel::addStats(const learn::TrainStats& s)
{
    m_stats.push_back(s);
    m_plot->graph(0)->addData(s.iteration, s.trainMeanJctMin);
    if (s.evalMeanJctMin >= 0)
        m_plot->graph(1)->addData(s.iteration, s.evalMeanJctMin);
    m_plot->graph(2)->addData(s.iteration, s.meanReward);
    replot();
    QString text = trp("Iteration %1 / %2 · %3 decisions · %4 decisions/s · train mean JCT %5 min")
                       .arg(s.iteration).arg(m_iterations->value()).arg(s.envSteps)
                       .arg(s.stepsPerSecond, 0, 'f', 0).arg(s.trainMeanJctMin, 0, 'f', 1);
    text += trp(" · critic error %1").arg(s.criticError, 0, 'f', 4);
    if (s.evalMeanJctMin >= 0)
        text += trp(" · held-out %1 min").arg(s.evalMeanJctMin, 0, 'f', 1);
    if (m_state == State::Running || m_state == State::Stopping)
        m_status->setText(m_state == State::Stopping ? text + trp(" · stopping…") : text);
    if (onIteration)
        onIteration(s);
}

void TrainingPanel::replot()
{
    m_plot->rescaleAxes();
    // Some air around the curves so the end points are not drawn on the frame.
    for (QCPAxis* a : {m_plot->yAxis, m_plot->yAxis2})
        a->scaleRange(1.15, a->range().center());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TrainingPanel::finished(const QString& message)
{
    if (m_thread.joinable())
        m_thread.join(); // it posted this as its last act
    m_hasTrainer = m_shared->trainer != nullptr;
    setState(State::Idle);
    m_pause->setText(trp("Pause"));
    // What the run changed: the critic's error on fresh episodes (first iteration against last) and the
    // held-out JCT at the first and last evaluations, as `train` closes its output.
    QString text = message;
    if (m_stats.size() >= 2)
        text += trp(" Critic error %1 → %2.").arg(m_stats.front().criticError, 0, 'f', 4)
                    .arg(m_stats.back().criticError, 0, 'f', 4);
    const learn::TrainStats* firstEval = nullptr;
    const learn::TrainStats* lastEval = nullptr;
    for (const learn::TrainStats& st : m_stats)
        if (st.evalMeanJctMin >= 0) {
            if (!firstEval)
                firstEval = &st;
            lastEval = &st;
        }
    if (firstEval && lastEval != firstEval)
        text += trp(" Held-out JCT %1 min (iteration %2) → %3 min (iteration %4).")
                    .arg(firstEval->evalMeanJctMin, 0, 'f', 1).arg(firstEval->iteration)
                    .arg(lastEval->evalMeanJctMin, 0, 'f', 1).arg(lastEval->iteration);
    m_status->setText(text);
    if (onFinished)
        onFinished(message);
}

} // namespace ss::ui
#endif
