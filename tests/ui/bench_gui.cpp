// GUI benchmark of the studio window (not a test; prints figures):
//  (a) replays a generated 100k-job run (decision log kept, up to 1,000 queued jobs per record) on a
//      256-machine x 8-GPU cluster and times one decision step at the records with the longest queues:
//      MainWindow::setDecision (models, replayer, heatmap data) plus painting the three heatmaps and the
//      cluster map. Target: < 16 ms per step.
//  (b) runs a 100k-job simulation through the window's own background worker while a 5 ms QTimer on the
//      GUI thread records the longest gap between its ticks (result hand-over and first views included).
//      Target: no stall over 50 ms.
//  (d) with --fork: then forks that run at its middle decision with another policy through the Fork dock
//      (replay to K, the change, the rest, the diff and its table), timing the GUI thread the same way.
//      Target: no stall over 50 ms.
//  (c) with --train N in a LibTorch build: N training iterations through the window's training panel.
//   bench_gui [--jobs N] [--load X] [--steps K] [--skip-a] [--skip-b] [--fork] [--train N]
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QImage>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "clustermapview.h"
#include "heatmapview.h"
#include "io/traceio.h"
#include "mainwindow.h"
#include "model/tracegen.h"
#include "runentry.h"
#include "scenario.h"
#include "trainingpanel.h"
#include "run/runner.h"

using namespace ss;
using namespace ss::ui;

namespace {

// 256 machines of 8 GPUs (three GPU generations, 16 switches): the cluster size the targets are set for.
ClusterSpec bigCluster()
{
    ClusterSpec c = makeClusterPreset("das-large"); // V100 / P100 / T4 types and prices
    c.name = "das-256";
    std::vector<Machine> base = c.machines;
    c.machines.clear();
    c.switches.clear();
    for (int s = 0; s < 16; ++s)
        c.switches.push_back({"sw" + std::to_string(s), 400});
    for (int m = 0; m < 256; ++m) {
        Machine mc = base[size_t(m) % base.size()];
        mc.name = "m" + std::to_string(m);
        mc.sw = m / 16;
        c.machines.push_back(mc);
    }
    c.finalize();
    return c;
}

QString g_shot; ///< --screenshot FILE: the window after training
bool g_fork = false; ///< --fork: part (d)

double ms(const QElapsedTimer& t) { return t.nsecsElapsed() / 1e6; }

struct Stat {
    std::vector<double> v;
    double mean() const { return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size()); }
    double max() const { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }
};

void benchStep(const ClusterSpec& cluster, int jobs, double load, int steps)
{
    TraceGenConfig g;
    g.jobs = jobs;
    g.seed = 1;
    g.load = load;
    g.clusterGpus = cluster.totalGpus();
    auto trace = std::make_shared<const Trace>(generateTrace(g));
    RunSpec spec;
    spec.policy = "sjf+bestfit";
    spec.config.recordDecisions = true;
    spec.config.logQueueLimit = 1000;
    spec.keepDecisionLog = true;
    QElapsedTimer t;
    t.start();
    auto out = std::make_shared<const RunOutput>(runSimulation(cluster, *trace, spec));
    const auto& recs = out->log->records;
    std::printf("(a) simulated %d jobs on %d machines x 8 GPUs (load %.2f, sjf+bestfit): %.1f s, %zu decisions\n",
                jobs, cluster.machineCount(), load, ms(t) / 1000, recs.size());

    // Step forward through consecutive decisions from the first record with the longest logged queue
    // (1,000 once the queue is at least that long): what pressing → does in the stepper.
    size_t k0 = 0;
    for (size_t k = 0; k < recs.size(); ++k)
        if (recs[k].queue.size() > recs[k0].queue.size())
            k0 = k;
    std::vector<int> order;
    for (size_t k = k0; k < recs.size() && order.size() < size_t(steps); ++k)
        order.push_back(int(k));
    size_t minQueue = SIZE_MAX, maxQueue = 0;
    for (int k : order) {
        minQueue = std::min(minQueue, recs[size_t(k)].queue.size());
        maxQueue = std::max(maxQueue, recs[size_t(k)].queue.size());
    }

    auto e = std::make_shared<RunEntry>();
    e->id = 1;
    e->name = QStringLiteral("bench");
    e->trace = trace;
    e->cluster = std::make_shared<const ClusterSpec>(cluster);
    e->out = out;
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    w.showView(QStringLiteral("heatmaps"));
    QApplication::processEvents();
    t.restart();
    w.setCurrentRun(e);
    std::printf("    opening the run in the window (Gantt, strip, first step): %.1f ms\n", ms(t));

    const QList<HeatmapView*> maps = w.findChildren<HeatmapView*>();
    ClusterMapView* map = w.clusterMap();
    std::vector<QImage> imgs;
    for (HeatmapView* h : maps)
        imgs.emplace_back(h->size(), QImage::Format_ARGB32_Premultiplied);
    QImage mapImg(map->size(), QImage::Format_ARGB32_Premultiplied);
    auto paint = [&](Stat& heat, Stat& cm) {
        QElapsedTimer p;
        p.start();
        for (int i = 0; i < maps.size(); ++i)
            maps[i]->render(&imgs[size_t(i)]);
        heat.v.push_back(ms(p));
        p.restart();
        map->render(&mapImg);
        cm.v.push_back(ms(p));
    };
    Stat warmH, warmC;
    w.setDecision(order.front() > 0 ? order.front() - 1 : 0);
    paint(warmH, warmC);

    Stat set, heat, cm, total;
    for (int k : order) {
        QElapsedTimer s;
        s.start();
        w.setDecision(k);
        set.v.push_back(ms(s));
        paint(heat, cm);
        total.v.push_back(ms(s));
    }
    std::printf("    %zu steps from decision %zu, queues of %zu..%zu logged jobs x %d machines (heatmaps %dx%d px, "
                "cluster map %dx%d px)\n",
                order.size(), k0 + 1, minQueue, maxQueue, cluster.machineCount(), maps.isEmpty() ? 0 : maps[0]->width(),
                maps.isEmpty() ? 0 : maps[0]->height(), map->width(), map->height());
    std::printf("    setDecision (models, replayer, heatmap data): mean %.2f ms, max %.2f ms\n", set.mean(), set.max());
    std::printf("    paint %lld heatmaps:                          mean %.2f ms, max %.2f ms\n", (long long)maps.size(),
                heat.mean(), heat.max());
    std::printf("    paint cluster map:                           mean %.2f ms, max %.2f ms\n", cm.mean(), cm.max());
    std::printf("    one step in all (target < 16 ms):            mean %.2f ms, max %.2f ms  %s\n", total.mean(),
                total.max(), total.mean() < 16 ? "OK" : "OVER");
}

void benchStall(const ClusterSpec& cluster, int jobs, double load)
{
    QTemporaryDir dir;
    TraceGenConfig g;
    g.jobs = jobs;
    g.seed = 2;
    g.load = load;
    g.clusterGpus = cluster.totalGpus();
    const QString tracePath = dir.filePath(QStringLiteral("bench.trace.csv"));
    const QString clusterPath = dir.filePath(QStringLiteral("bench.cluster.json"));
    writeNativeTrace(generateTrace(g), tracePath.toStdString());
    writeClusterJson(cluster, clusterPath.toStdString());

    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    ui::Scenario s;
    s.name = QStringLiteral("bench");
    s.tracePath = tracePath;
    s.traceFormat = QStringLiteral("native");
    s.clusterSource = ui::Scenario::ClusterSource::File;
    s.clusterPath = clusterPath;
    s.policies = {QStringLiteral("sjf+bestfit")};
    w.setScenario(s);
    if (!w.waitForIdle(600000) || !w.trace()) {
        std::printf("(b) cannot load the trace: %s\n", qPrintable(w.bannerText()));
        return;
    }
    w.showView(QStringLiteral("cluster"));

    QElapsedTimer clock, wall;
    double maxGap = 0, maxGapAt = 0, maxRunGap = 0;
    int over50 = 0, ticks = 0;
    bool finished = false;
    double finishedAt = 0;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    tick.setInterval(5);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const double gap = ms(clock);
        clock.restart();
        ++ticks;
        if (gap > maxGap)
            maxGap = gap, maxGapAt = ms(wall);
        if (!finished)
            maxRunGap = std::max(maxRunGap, gap);
        if (gap > 50)
            ++over50;
    });
    QEventLoop loop;
    QObject::connect(&w, &MainWindow::runsFinished, &loop, [&] {
        finished = true;
        finishedAt = ms(wall);
        QTimer::singleShot(500, &loop, &QEventLoop::quit); // the views' first repaint after the hand-over
    });
    wall.start();
    clock.start();
    tick.start();
    if (!w.runScenario()) {
        std::printf("(b) cannot run: %s\n", qPrintable(w.bannerText()));
        return;
    }
    loop.exec();
    tick.stop();
    std::printf("(b) %d-job simulation in the window's worker (sjf+bestfit, decision log kept): finished after %.1f s\n",
                jobs, finishedAt / 1000);
    std::printf("    GUI thread, 5 ms timer, %d ticks: longest gap while simulating %.1f ms; overall %.1f ms at %.2f s "
                "(%s the result hand-over); %d gaps over 50 ms  %s\n",
                ticks, maxRunGap, maxGap, maxGapAt / 1000, maxGapAt >= finishedAt ? "after" : "before", over50,
                maxGap <= 50 ? "OK" : "OVER");
    if (!g_fork)
        return;
    // (d) fork the run at its middle decision with another policy, through the Fork dock
    w.setDecision(w.decisionCount() / 2);
    const int k = w.currentDecision() + 1;
    maxGap = 0;
    over50 = 0;
    ticks = 0;
    wall.restart();
    clock.restart();
    tick.start();
    if (!w.forkHere(QStringLiteral("policy=fifo+firstfit"))) {
        std::printf("(d) cannot fork: %s\n", qPrintable(w.bannerText()));
        return;
    }
    QEventLoop forkLoop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &forkLoop, [&] {
        if (!w.isBusy()) {
            poll.stop();
            finishedAt = ms(wall);
            QTimer::singleShot(500, &forkLoop, &QEventLoop::quit);
        }
    });
    poll.start(10);
    forkLoop.exec();
    tick.stop();
    std::printf("(d) fork at decision %d of %d (policy fifo+firstfit from there) in the window's worker: done after %.2f s%s\n",
                k, w.decisionCount(), finishedAt / 1000,
                w.bannerText().isEmpty() ? "" : qPrintable(QStringLiteral(" (banner: %1)").arg(w.bannerText())));
    std::printf("    GUI thread, 5 ms timer, %d ticks: longest gap %.1f ms at %.2f s; %d gaps over 50 ms  %s\n", ticks, maxGap,
                maxGapAt / 1000, over50, maxGap <= 50 ? "OK" : "OVER");
}

#ifdef SS_UI_HAVE_TRAINING
// (c) LibTorch builds: trains das for a few iterations through the window's training panel on the DAS
// sample scenario and reports the learning curve and the longest GUI-thread gap meanwhile.
void benchTraining(int iterations)
{
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    if (!w.openScenario(QStringLiteral(SS_SOURCE_DIR "/sample-traces/das-case.scenario.json")) || !w.waitForIdle(60000)) {
        std::printf("(c) cannot open the sample scenario: %s\n", qPrintable(w.bannerText()));
        return;
    }
    w.showView(QStringLiteral("training"));
    auto* panel = static_cast<TrainingPanel*>(w.trainingPanel());
    panel->setIterations(iterations);
    QElapsedTimer clock, wall;
    double maxGap = 0;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    tick.setInterval(5);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        maxGap = std::max(maxGap, ms(clock));
        clock.restart();
    });
    wall.start();
    clock.start();
    tick.start();
    if (!panel->start()) {
        std::printf("(c) cannot start training: %s\n", qPrintable(panel->statusText()));
        return;
    }
    // Pause after two iterations, check that nothing moves, resume, then stop early when N > 6.
    auto waitFor = [&](size_t n) {
        QElapsedTimer t;
        t.start();
        while (panel->history().size() < n && panel->state() != TrainingPanel::State::Idle && t.elapsed() < 120000)
            QApplication::processEvents(QEventLoop::AllEvents, 10);
    };
    waitFor(2);
    panel->setPaused(true);
    const size_t atPause = panel->history().size();
    QElapsedTimer p;
    p.start();
    while (p.elapsed() < 1000)
        QApplication::processEvents(QEventLoop::AllEvents, 10);
    // One iteration may have been under way when Pause was pressed.
    std::printf("(c) paused at %zu iterations; %zu after 1 s of pause\n", atPause, panel->history().size());
    panel->setPaused(false);
    if (iterations > 6) {
        waitFor(6);
        panel->stop();
    }
    panel->waitForIdle(600000);
    tick.stop();
    if (!g_shot.isEmpty())
        w.grab().save(g_shot);
    std::printf("(c) training panel: %zu iterations in %.1f s; %s\n", panel->history().size(), ms(wall) / 1000,
                qPrintable(panel->statusText()));
    for (const learn::TrainStats& st : panel->history())
        std::printf("    iteration %d: train mean JCT %.1f min, reward %.4f, held-out %.1f min\n", st.iteration,
                    st.trainMeanJctMin, st.meanReward, st.evalMeanJctMin);
    std::printf("    longest GUI-thread gap while training: %.1f ms\n", maxGap);
}
#endif

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("SchedStudioBench")); // keep the user's settings out
    int jobs = 100000, steps = 30;
    double load = 1.1;
    bool a = true, b = true;
    int train = 0;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--jobs") && i + 1 < args.size())
            jobs = args[++i].toInt();
        else if (args[i] == QLatin1String("--load") && i + 1 < args.size())
            load = args[++i].toDouble();
        else if (args[i] == QLatin1String("--steps") && i + 1 < args.size())
            steps = args[++i].toInt();
        else if (args[i] == QLatin1String("--train") && i + 1 < args.size())
            train = args[++i].toInt();
        else if (args[i] == QLatin1String("--screenshot") && i + 1 < args.size())
            g_shot = args[++i];
        else if (args[i] == QLatin1String("--skip-a"))
            a = false;
        else if (args[i] == QLatin1String("--skip-b"))
            b = false;
        else if (args[i] == QLatin1String("--fork"))
            g_fork = true;
        else {
            std::fprintf(stderr, "usage: bench_gui [--jobs N] [--load X] [--steps K] [--skip-a] [--skip-b] [--train ITERATIONS]\n");
            return 2;
        }
    }
    const ClusterSpec cluster = bigCluster();
    if (a)
        benchStep(cluster, jobs, load, steps);
    if (b)
        benchStall(cluster, jobs, load);
#ifdef SS_UI_HAVE_TRAINING
    if (train > 0)
        benchTraining(train);
#else
    if (train > 0)
        std::printf("(c) this build has no LibTorch: no training panel\n");
#endif
    return 0;
}
