// Paint-time benchmark of the big views (not a test) and the screenshot maker for docs/screenshots.
//   bench_widgets                      ms per paint: ClusterMapView 256x8, HeatmapView 1000x256, GanttView 100k
//   bench_widgets --screenshots DIR    also writes widgets-*.png from a real simulation (das-medium, seed 1)
#include <QApplication>
#include <QElapsedTimer>
#include <QDir>
#include <QPainter>
#include <cstdio>
#include <random>

#include "clustermapview.h"
#include "exporthelpers.h"
#include "ganttview.h"
#include "heatmapview.h"
#include "model/tracegen.h"
#include "plothelpers.h"
#include "run/runner.h"
#include "topologyeditorview.h"

using namespace ss;

namespace {

double msPerPaint(QWidget& w, int n)
{
    QImage img(w.size(), QImage::Format_ARGB32_Premultiplied);
    w.render(&img); // warm-up (layout, caches)
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < n; ++i)
        w.render(&img);
    return t.nsecsElapsed() / 1e6 / n;
}

QPalette darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(37, 37, 40));
    p.setColor(QPalette::WindowText, QColor(225, 225, 225));
    p.setColor(QPalette::Base, QColor(28, 28, 30));
    p.setColor(QPalette::Text, QColor(225, 225, 225));
    p.setColor(QPalette::Mid, QColor(80, 80, 86));
    p.setColor(QPalette::Highlight, QColor(60, 130, 220));
    p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
    return p;
}

void bench()
{
    std::mt19937 rng(7);
    ClusterSpec c;
    c.types = {{"A100", 3, 40, 1}};
    for (int s = 0; s < 16; ++s)
        c.switches.push_back({"sw" + std::to_string(s), 400});
    for (int m = 0; m < 256; ++m) {
        Machine mc;
        mc.name = "m" + std::to_string(m);
        mc.gpus = 8;
        mc.sw = m / 16;
        c.machines.push_back(mc);
    }
    c.finalize();
    std::vector<std::vector<Replayer::Holder>> h(size_t(c.totalGpus()));
    for (auto& g : h) {
        const int k = int(rng() % 10);
        if (k < 6)
            g.push_back({int(rng() % 5000), 1000});
        else if (k < 8)
            g = {{int(rng() % 5000), 500}, {int(rng() % 5000), 250}};
    }
    ClusterMapView map;
    map.resize(1400, 900);
    map.setCluster(&c);
    map.setOccupancy(h);
    map.setSelectedJob(int(h[0].empty() ? 1 : h[0][0].job));
    std::printf("ClusterMapView 256 machines x 8 GPUs, 1400x900: %.2f ms/paint\n", msPerPaint(map, 50));

    std::vector<float> vals(1000 * 256), unc(vals.size());
    std::uniform_real_distribution<float> u(0, 1);
    for (size_t i = 0; i < vals.size(); ++i) {
        vals[i] = (i % 97 == 0) ? NAN : u(rng);
        unc[i] = u(rng) * 0.2f;
    }
    HeatmapView hm;
    hm.resize(1200, 900);
    QElapsedTimer t;
    t.start();
    hm.setMatrix(1000, 256, vals);
    hm.setUncertainty(unc);
    const double setMs = t.nsecsElapsed() / 1e6;
    std::printf("HeatmapView 1000 x 256, 1200x900: %.2f ms/paint (setMatrix+setUncertainty %.2f ms)\n", msPerPaint(hm, 50), setMs);

    std::vector<GanttSegment> segs;
    std::uniform_real_distribution<double> when(0, 30 * 86400.0);
    std::exponential_distribution<double> len(1 / 3600.0);
    for (int i = 0; i < 100000; ++i) {
        const double s = when(rng);
        segs.push_back({int(rng() % 2048), s, s + len(rng), i});
    }
    GanttView g;
    g.resize(1400, 900);
    t.restart();
    g.setSegments(2048, {}, segs);
    const double loadMs = t.nsecsElapsed() / 1e6;
    const double full = msPerPaint(g, 30);
    const int fullRects = g.lastDrawnRectCount();
    g.setRowHeight(3); // all 2048 rows can not fit; this draws ~290 rows of the 100k segments
    g.setViewRange(0, 30 * 86400.0);
    const double rows3 = msPerPaint(g, 30);
    const int rows3Rects = g.lastDrawnRectCount();
    g.setViewRange(10 * 86400.0, 10.5 * 86400.0);
    const double zoom = msPerPaint(g, 30);
    const int zoomRects = g.lastDrawnRectCount();
    std::printf("GanttView 100k segments, 2048 rows, 1400x900: load %.1f ms; full range %.2f ms/paint (%d rects); "
                "3px rows %.2f ms/paint (%d rects); zoomed to 12 h %.2f ms/paint (%d rects)\n",
                loadMs, full, fullRects, rows3, rows3Rects, zoom, zoomRects);
    // The same 100k segments on 64 rows (1,560 per row): stresses merging, not culling.
    for (auto& s : segs)
        s.row %= 64;
    g.setRowHeight(0);
    g.setSegments(64, {}, segs);
    const double rows64 = msPerPaint(g, 30);
    std::printf("GanttView 100k segments, 64 rows: full range %.2f ms/paint (%d rects)\n", rows64, g.lastDrawnRectCount());
}

void save(QWidget& w, const QString& dir, const QString& name, const QString& caption)
{
    QString err;
    const QString path = QDir(dir).filePath(name);
    if (!exporter::exportWidget(&w, path, &err, caption))
        std::fprintf(stderr, "%s\n", qPrintable(err));
    else
        std::printf("wrote %s\n", qPrintable(path));
}

void screenshots(const QString& dir)
{
    QDir().mkpath(dir);
    const ClusterSpec cluster = makeClusterPreset("das-medium");
    TraceGenConfig tg;
    tg.jobs = 300;
    tg.seed = 1;
    tg.load = 1.2;
    tg.clusterGpus = cluster.totalGpus();
    tg.durationScale = 0.3;
    tg.fractionalShare = 0.1;
    const Trace trace = generateTrace(tg);
    auto run = [&](const std::string& policy, uint64_t seed, bool log) {
        RunSpec spec;
        spec.policy = policy;
        spec.config.seed = seed;
        spec.config.recordDecisions = log;
        spec.keepDecisionLog = log;
        return runSimulation(cluster, trace, spec);
    };
    const std::string policy = "las+consolidate";
    const RunOutput out = run(policy, 1, true);
    const QString caption = QStringLiteral("das-medium, %1 jobs, %2, seed 1").arg(trace.jobs.size()).arg(QString::fromStdString(policy));
    const DecisionLog& log = *out.log;
    // A busy moment: the decision with the most running jobs.
    Replayer rp(log);
    int best = 0;
    size_t bestRunning = 0;
    for (int k = 0; k < int(log.records.size()); k += 5) {
        rp.seek(k);
        if (rp.runningJobs().size() > bestRunning) {
            bestRunning = rp.runningJobs().size();
            best = k;
        }
    }
    rp.seek(best);
    QStringList machineNames;
    for (const auto& m : cluster.machines)
        machineNames << QString::fromStdString(m.name);
    const int selected = rp.runningJobs().empty() ? -1 : rp.runningJobs()[rp.runningJobs().size() / 2];

    ClusterMapView map;
    map.resize(900, 520);
    map.setCluster(&cluster);
    map.setOccupancy(rp.holders());
    map.setSelectedJob(selected);
    for (int k = best; k >= 0; --k) // affinity of the latest placement up to here, as the overlay
        if (!log.records[size_t(k)].placements.empty() && !log.records[size_t(k)].placements.back().affinity.empty()) {
            const auto& p = log.records[size_t(k)].placements.back();
            if (p.machines.empty())
                map.setMachineScores(p.affinity);
            break;
        }
    save(map, dir, "widgets-clustermap.png", caption);
    map.setPalette(darkPalette());
    save(map, dir, "widgets-clustermap-dark.png", caption);

    HeatmapView hist;
    hist.resize(900, 520);
    hist.setData(priorityHistory(log, std::max(0, best - 30), best, 60));
    hist.setSelectedJob(selected);
    save(hist, dir, "widgets-heatmap-priority.png", caption);

    int withAff = -1;
    size_t most = 0;
    for (int k = 0; k < int(log.records.size()); ++k) {
        size_t n = 0;
        for (const auto& p : log.records[size_t(k)].placements)
            n += !p.affinity.empty();
        if (n > most) {
            most = n;
            withAff = k;
        }
    }
    if (withAff >= 0) {
        HeatmapView aff;
        aff.resize(900, 360);
        aff.setData(affinityMatrix(log.records[size_t(withAff)], cluster.machineCount(), machineNames));
        save(aff, dir, "widgets-heatmap-affinity.png", caption);
    }

    DecisionStripView strip;
    strip.resize(1100, 260);
    strip.setLog(&log, machineNames);
    strip.setContent(DecisionStripView::Content::Affinity);
    strip.setCurrentDecision(withAff >= 3 ? withAff : best);
    save(strip, dir, "widgets-decisionstrip.png", caption);

    GanttView gantt;
    gantt.resize(1000, 560);
    gantt.setDecisionLog(&log, &cluster);
    gantt.setCursorTime(log.records[size_t(best)].time);
    gantt.setSelectedJob(selected);
    save(gantt, dir, "widgets-gantt-gpus.png", caption);
    gantt.setRowMode(GanttRowMode::Machine);
    save(gantt, dir, "widgets-gantt-machines.png", caption);
    GanttView lanes;
    lanes.resize(1000, 420);
    lanes.setData(buildSegmentsFromJobs(out.jobs, JobLanes::Packed));
    save(lanes, dir, "widgets-gantt-lanes.png", caption);

    // Plots: JCT CDF of three policies; mean JCT over three seeds +- sd.
    const std::vector<std::string> policies = {"fifo+firstfit", "sjf+bestfit", "las+consolidate"};
    std::vector<plots::NamedSeries> cdf;
    QStringList names;
    std::vector<std::vector<double>> mean(policies.size()), sd(policies.size());
    for (size_t i = 0; i < policies.size(); ++i) {
        names << QString::fromStdString(policies[i]);
        std::vector<double> perSeed;
        for (uint64_t seed = 1; seed <= 3; ++seed) {
            const RunOutput o = run(policies[i], seed, false);
            perSeed.push_back(o.summary.meanJctMin);
            if (seed == 1) {
                plots::NamedSeries s{names.back(), {}};
                for (const auto& j : o.jobs)
                    if (j.jct >= 0)
                        s.values.push_back(j.jct / 60.0);
                cdf.push_back(std::move(s));
            }
        }
        double m = 0, v = 0;
        for (double x : perSeed)
            m += x / perSeed.size();
        for (double x : perSeed)
            v += (x - m) * (x - m) / std::max<size_t>(1, perSeed.size() - 1);
        mean[i] = {m};
        sd[i] = {std::sqrt(v)};
    }
    QCustomPlot plot;
    plot.resize(640, 420);
    plots::applyTheme(&plot, plot.palette());
    plots::plotCdf(&plot, cdf, QStringLiteral("JCT (min)"), true);
    save(plot, dir, "widgets-plot-cdf.png", QStringLiteral("das-medium, %1 jobs, seed 1").arg(trace.jobs.size()));
    plots::plotGroupedBars(&plot, {QStringLiteral("das-medium")}, names, mean, sd, QStringLiteral("mean JCT (min)"));
    save(plot, dir, "widgets-plot-bars.png", QStringLiteral("mean +- sd over seeds 1..3"));
    plots::plotDurations(&plot, trace);
    save(plot, dir, "widgets-plot-durations.png", QString::fromStdString(describe(tg)));
    plots::plotArrivals(&plot, trace, 60);
    save(plot, dir, "widgets-plot-arrivals.png", QString::fromStdString(describe(tg)));
    plots::plotUtilization(&plot, out.series);
    save(plot, dir, "widgets-plot-utilization.png", caption);
    plot.setPalette(darkPalette());
    plots::applyTheme(&plot, darkPalette());
    save(plot, dir, "widgets-plot-utilization-dark.png", caption);

    TopologyEditorView topo;
    topo.resize(1000, 520);
    topo.setCluster(cluster);
    topo.show();
    QApplication::processEvents();
    topo.fitAll();
    topo.selectIds({1}, {});
    save(topo, dir, "widgets-topology.png", QString::fromStdString(cluster.name));
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int i = int(args.indexOf(QStringLiteral("--screenshots")));
    if (!args.contains(QStringLiteral("--no-bench")))
        bench();
    if (i >= 0 && i + 1 < args.size())
        screenshots(args[i + 1]);
    return 0;
}
