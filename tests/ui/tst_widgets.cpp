// Widgets render the right colours in the right places, select jobs on click, export files, and the Gantt
// chart's visible-range search and sub-pixel merging are exact.
#include <cmath>
#include <QFile>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <random>
#include <set>

#include "clustermapview.h"
#include "exporthelpers.h"
#include "ganttview.h"
#include "heatmapview.h"
#include "jobcolors.h"
#include "plothelpers.h"
#include "topologyeditorview.h"

using namespace ss;

namespace {

ClusterSpec smallCluster()
{
    ClusterSpec c;
    c.name = "test";
    c.types = {{"V100", 2.5, 32, 1.0}, {"K80", 0.7, 12, 0.3}};
    c.switches = {{"rack-a", 100}, {"rack-b", 100}};
    for (int m = 0; m < 4; ++m) {
        Machine mc;
        mc.name = "node" + std::to_string(m);
        mc.type = m < 2 ? 0 : 1;
        mc.gpus = 4;
        mc.sw = m / 2;
        c.machines.push_back(mc);
    }
    c.links = {{0, 1, 40}};
    c.finalize();
    return c;
}

bool near(QRgb a, QRgb b, int tol = 2)
{
    return std::abs(qRed(a) - qRed(b)) <= tol && std::abs(qGreen(a) - qGreen(b)) <= tol && std::abs(qBlue(a) - qBlue(b)) <= tol;
}

QRgb pixelAt(const QImage& img, QPointF p)
{
    return img.pixel(p.toPoint());
}

} // namespace

class TestWidgets : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void jobColorsAreStableAndDistinct()
    {
        QCOMPARE(jobRgb(17), jobRgb(17));
        QCOMPARE(jobColor(17).rgb(), jobRgb(17));
        // Neighbouring indices must not look alike: golden-ratio hues stay far apart.
        for (int i = 0; i < 200; ++i) {
            const QColor a = jobColor(i), b = jobColor(i + 1);
            const int d = std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
            QVERIFY2(d > 60, qPrintable(QStringLiteral("jobs %1 and %2 too similar").arg(i).arg(i + 1)));
        }
        QCOMPARE(jobColor(-1), QColor(150, 150, 150));
        QVERIFY(scoreRgb(0) != scoreRgb(1));
        QCOMPARE(scoreRgb(2.0), scoreRgb(1.0)); // clamped
        QCOMPARE(scoreRgb(std::nan("")), scoreRgb(0.0));
    }

    void clusterMapColoursCellsByJob()
    {
        const ClusterSpec c = smallCluster();
        ClusterMapView v;
        v.resize(500, 300);
        v.setCluster(&c);
        std::vector<std::vector<Replayer::Holder>> h(size_t(c.totalGpus()));
        h[0] = {{3, 1000}};
        h[1] = {{3, 1000}};
        h[9] = {{7, 500}};
        v.setOccupancy(h);
        const QImage img = v.grab().toImage();
        const QRect c0 = v.gpuCellRect(0), c9 = v.gpuCellRect(9), c2 = v.gpuCellRect(2);
        QVERIFY(c0.width() >= 8);
        QVERIFY(near(pixelAt(img, c0.center()), jobRgb(3)));
        QVERIFY(near(pixelAt(img, v.gpuCellRect(1).center()), jobRgb(3)));
        // Half share: the lower half has the job's colour, the upper half is free.
        const QRgb lower = img.pixel(c9.center().x(), c9.bottom() - c9.height() / 4);
        const QRgb upper = img.pixel(c9.center().x(), c9.top() + c9.height() / 4);
        QVERIFY(near(lower, jobRgb(7)));
        QVERIFY(!near(upper, jobRgb(7), 20));
        QCOMPARE(upper, img.pixel(c2.center())); // the same as a free cell
        // Cells of different machines and switches do not overlap and stay inside the widget.
        for (int g = 0; g < c.totalGpus(); ++g) {
            QVERIFY(v.rect().contains(v.gpuCellRect(g)));
            for (int k = g + 1; k < c.totalGpus(); ++k)
                QVERIFY(!v.gpuCellRect(g).intersects(v.gpuCellRect(k)));
        }
        QCOMPARE(v.gpuAt(c9.center()), 9);
        QCOMPARE(v.machineAt(c9.center()), 2);
    }

    void clusterMapClickSelectsJob()
    {
        const ClusterSpec c = smallCluster();
        ClusterMapView v;
        v.resize(500, 300);
        v.setCluster(&c);
        std::vector<std::vector<Replayer::Holder>> h(size_t(c.totalGpus()));
        h[5] = {{11, 1000}};
        v.setOccupancy(h);
        QSignalSpy spy(&v, &ClusterMapView::jobSelected);
        QSignalSpy mspy(&v, &ClusterMapView::machineClicked);
        QTest::mouseClick(&v, Qt::LeftButton, {}, v.gpuCellRect(5).center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 11);
        QCOMPARE(mspy.at(0).at(0).toInt(), 1);
        QCOMPARE(v.selectedJob(), 11);
        // The selected job's cells get an outline in the selection colour.
        const QImage img = v.grab().toImage();
        const QRect r = v.gpuCellRect(5);
        QCOMPARE(QColor(img.pixel(r.left() + 1, r.center().y())), selectionColor(v.palette()));
        QTest::mouseClick(&v, Qt::LeftButton, {}, v.gpuCellRect(0).center()); // a free GPU clears it
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(1).at(0).toInt(), -1);
    }

    void clusterMapLaysOutLargeClusters()
    {
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
        ClusterMapView v;
        v.resize(1200, 800);
        v.setCluster(&c);
        std::set<std::pair<int, int>> seen;
        for (int g = 0; g < c.totalGpus(); ++g) {
            const QRect r = v.gpuCellRect(g);
            QVERIFY(!r.isEmpty());
            QVERIFY(v.rect().contains(r));
            QVERIFY(seen.insert({r.x(), r.y()}).second);
        }
        QVERIFY(v.gpuCellRect(0).width() >= 4);
    }

    void clusterMapScoreOverlay()
    {
        const ClusterSpec c = smallCluster();
        ClusterMapView v;
        v.resize(500, 300);
        v.setCluster(&c);
        v.setMachineScores({0.f, 1.f, NAN, 0.5f});
        const QImage img = v.grab().toImage();
        const QRect best = v.machineRect(1), worst = v.machineRect(0);
        QVERIFY(near(img.pixel(best.left() + 1, best.center().y()), scoreRgb(1.0)));
        QVERIFY(near(img.pixel(worst.left() + 1, worst.center().y()), scoreRgb(0.0)));
    }

    void heatmapMaxCellUsesTopColour()
    {
        HeatmapView v;
        v.resize(400, 300);
        std::vector<float> vals = {0, 1, 2, 3, 4, 11, 6, 7, NAN, 9, 10, 5};
        v.setMatrix(3, 4, vals, {"a", "b", "c"}, {"w", "x", "y", "z"});
        QCOMPARE(v.rangeMin(), 0.f);
        QCOMPARE(v.rangeMax(), 11.f);
        const QImage img = v.grab().toImage();
        // Sample near a cell's corner: big cells print their value in the middle.
        auto at = [&](int r, int c) { return (v.cellRect(r, c).topLeft() + QPointF(3, 3)).toPoint(); };
        QCOMPARE(img.pixel(at(1, 1)), scoreRgb(1.0)); // value 11
        QCOMPARE(img.pixel(at(0, 0)), scoreRgb(0.0)); // value 0
        QCOMPARE(img.pixel(at(1, 3)), v.colorFor(7));
        // NaN: grey (hatched), never a colour of the scale.
        const QRectF nanCell = v.cellRect(2, 0);
        int grey = 0;
        for (int dx = -3; dx <= 3; ++dx) {
            const QRgb px = img.pixel(nanCell.center().toPoint() + QPoint(dx, 0));
            grey += qRed(px) == qGreen(px) && qGreen(px) == qBlue(px);
        }
        QCOMPARE(grey, 7);
        QCOMPARE(v.cachedImage().size(), QSize(4, 3)); // one pixel per cell
        // A fixed range clamps: 11 and 10 both saturate.
        v.setColorRange(0, 5);
        const QImage img2 = v.grab().toImage();
        QCOMPARE(img2.pixel(at(2, 2)), scoreRgb(1.0));
    }

    void heatmapColourBarEndsReadDifferently()
    {
        // Priorities close together (2D-Gittins on a small trace: 0.9965 to 0.9974) must not label both ends of
        // the scale "0.997".
        HeatmapView v;
        v.resize(500, 300);
        v.setMatrix(1, 3, {0.99652f, 0.9969f, 0.99741f}, {"a"}, {"x", "y", "z"});
        auto [lo, hi] = v.rangeLabels();
        QCOMPARE(lo, QStringLiteral("0.9965"));
        QCOMPARE(hi, QStringLiteral("0.9974"));
        QCOMPARE(v.labelDigits(), 4);
        // the common case keeps three digits
        v.setMatrix(1, 2, {0.25f, 0.75f}, {"a"}, {"x", "y"});
        std::tie(lo, hi) = v.rangeLabels();
        QCOMPARE(lo, QStringLiteral("0.25"));
        QCOMPARE(hi, QStringLiteral("0.75"));
        QCOMPARE(v.labelDigits(), 3);
        // one value: no span to tell apart
        v.setMatrix(1, 2, {0.5f, 0.5f}, {"a"}, {"x", "y"});
        QCOMPARE(v.labelDigits(), 3);
        // ends a float step apart still read differently
        const float a = 1.0f, b = std::nextafter(1.0f, 2.0f);
        v.setMatrix(1, 2, {a, b}, {"a"}, {"x", "y"});
        std::tie(lo, hi) = v.rangeLabels();
        QVERIFY2(lo != hi, qPrintable(lo + " / " + hi));
    }

    void heatmapColourBarLabelsNeverOverlap()
    {
        // A one-row map in a short view (DAS's gate δ: 64 px for its title, one row and the job labels) has a bar
        // shorter than two lines: its end labels were drawn over each other.
        HeatmapView v;
        v.setTitle(QStringLiteral("Gate δ"));
        v.resize(360, 64);
        v.setMatrix(1, 8, {0.485f, 0.486f, 0.489f, 0.487f, 0.486f, 0.487f, 0.486f, 0.488f}, {"gate"},
                    {"8", "23", "18", "13", "17", "16", "19", "15"});
        const QRectF plot = v.cellRect(0, 0).united(v.cellRect(0, 7));
        QVERIFY2(plot.height() < 2 * v.fontMetrics().height(), qPrintable(QString::number(plot.height())));
        auto [lo, hi] = v.rangeLabelRects();
        QVERIFY(!lo.isEmpty() && !hi.isEmpty());
        QVERIFY2(!lo.intersects(hi),
                 qPrintable(QStringLiteral("lo top %1, hi bottom %2").arg(lo.top()).arg(hi.bottom())));
        QCOMPARE(hi.top(), int(plot.top())); // the max at the bar's top
        QVERIFY(lo.bottom() < v.height());
        QVERIFY(lo.left() > plot.right() && hi.left() == lo.left()); // right of the bar, where nothing else is drawn
        // a tall bar: the min at its bottom, as before
        v.resize(360, 300);
        const QRectF tall = v.cellRect(0, 0);
        std::tie(lo, hi) = v.rangeLabelRects();
        QCOMPARE(hi.top(), int(tall.top()));
        QCOMPARE(lo.bottom(), int(tall.top()) + int(tall.height()) - 1);
        // no colour bar, no labels
        v.setColorBarVisible(false);
        std::tie(lo, hi) = v.rangeLabelRects();
        QVERIFY(lo.isEmpty() && hi.isEmpty());
    }

    void heatmapUncertaintyIsAbsoluteAndApartFromColour()
    {
        // Issue 22 point 7: a tiny std must not wash a cell out, and a cell's colour is always the colour bar's.
        HeatmapView v;
        v.resize(130, 200); // cells too narrow for the value text, wide enough for whiskers
        v.setMatrix(1, 3, {5, 5, 5});
        v.setColorRange(0, 10);
        const QRgb plain = v.cachedImage().pixel(0, 0);
        QVERIFY(v.uncertaintyLegend().isEmpty());
        v.setUncertainty({0.f, 0.019f, 4.f});
        for (int c = 0; c < 3; ++c)
            QCOMPARE(v.cachedImage().pixel(c, 0), plain); // the colour is the value's, uncertain or not
        QCOMPARE(plain, v.colorFor(5));
        QVERIFY(v.whiskersVisible());
        QVERIFY2(v.uncertaintyLegend().contains(QStringLiteral("span (10)")), qPrintable(v.uncertaintyLegend()));
        // The whisker of ± 4 on a span of 10 covers 0.8 of the cell's height; ± 0.019 is a dot; 0 draws nothing.
        const QImage img = v.grab().toImage();
        auto inked = [&](int c) {
            const QRectF cell = v.cellRect(0, c);
            int n = 0;
            for (int y = int(cell.top()) + 1; y < int(cell.bottom()) - 1; ++y)
                n += img.pixel(int(cell.center().x()), y) != plain;
            return double(n) / cell.height();
        };
        QCOMPARE(inked(0), 0.0);
        QVERIFY2(inked(1) < 0.05, qPrintable(QString::number(inked(1))));
        QVERIFY2(inked(2) > 0.7 && inked(2) < 0.9, qPrintable(QString::number(inked(2))));
        // Cells too small for whiskers: the legend says where the std is.
        HeatmapView big;
        big.resize(300, 200);
        big.setMatrix(100, 200, std::vector<float>(20000, 1.f));
        big.setUncertainty(std::vector<float>(20000, 0.5f));
        QVERIFY(!big.whiskersVisible());
        QVERIFY(big.uncertaintyLegend().contains(QStringLiteral("tooltip")));
    }

    void affinityUncertaintyIsAStandardDeviation()
    {
        ss::DecisionRecord r;
        ss::PlacementRecord p;
        p.job = 3;
        p.affinity = {1.f, 2.f};
        p.affinityVar = {0.25f, 4.f};
        r.placements.push_back(p);
        const HeatmapData d = affinityMatrix(r, 2);
        QCOMPARE(d.uncertainty.size(), size_t(2));
        QCOMPARE(d.uncertainty[0], 0.5f);
        QCOMPARE(d.uncertainty[1], 2.f);
    }

    void heatmapClickSelectsRowJob()
    {
        HeatmapView v;
        v.resize(300, 200);
        v.setMatrix(3, 2, {1, 2, 3, 4, 5, 6});
        v.setRowJobs({40, 41, 42});
        QSignalSpy spy(&v, &HeatmapView::jobSelected);
        QSignalSpy cells(&v, &HeatmapView::cellClicked);
        QTest::mouseClick(&v, Qt::LeftButton, {}, v.cellRect(1, 1).center().toPoint());
        QCOMPARE(cells.count(), 1);
        QCOMPARE(cells.at(0).at(0).toInt(), 1);
        QCOMPARE(cells.at(0).at(1).toInt(), 1);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 41);
    }

    void heatmapBuildersFromDecisions()
    {
        DecisionRecord r;
        r.index = 7;
        r.time = 100;
        r.queue = {{5, 0.9f, 0.1f, NAN}, {2, 0.4f, 0.3f, NAN}};
        PlacementRecord dense;
        dense.job = 5;
        dense.affinity = {0.1f, 0.7f, 0.2f};
        r.placements.push_back(dense);
        HeatmapData p = priorityMatrix(r);
        QCOMPARE(p.rows, 1);
        QCOMPARE(p.cols, 2);
        QCOMPARE(p.values[1], 0.4f);
        QCOMPARE(p.uncertainty.size(), size_t(2));
        QCOMPARE(p.colJobs, (std::vector<int>{5, 2}));
        HeatmapData a = affinityMatrix(r, 3, {"x", "y", "z"});
        QCOMPARE(a.rows, 1);
        QCOMPARE(a.cols, 3);
        QCOMPARE(a.values[1], 0.7f);
        QCOMPARE(a.colLabels.at(2), QStringLiteral("z"));
        QVERIFY(a.uncertainty.empty());
        // Top-K affinity: columns are the union of listed machines; unlisted cells are NaN.
        DecisionRecord s;
        PlacementRecord p1, p2;
        p1.job = 1;
        p1.machines = {9, 3};
        p1.affinity = {0.5f, 0.25f};
        p2.job = 2;
        p2.machines = {4};
        p2.affinity = {1.f};
        p2.affinityVar = {0.2f};
        s.placements = {p1, p2};
        HeatmapData sp = affinityMatrix(s, 100);
        QCOMPARE(sp.cols, 3); // machines 3, 4, 9
        QCOMPARE(sp.colLabels, (QStringList{"m3", "m4", "m9"}));
        QCOMPARE(sp.values[0], 0.25f);
        QVERIFY(std::isnan(sp.values[1]));
        QCOMPARE(sp.values[2], 0.5f);
        QCOMPARE(sp.values[4], 1.f);
        QCOMPARE(sp.uncertainty[4], std::sqrt(0.2f)); // a variance, shown as a std
        // History: jobs x decisions, NaN where a job was not queued.
        DecisionLog log;
        for (int k = 0; k < 3; ++k) {
            DecisionRecord d;
            d.index = uint32_t(k);
            d.queue.push_back({1, float(k), NAN, NAN});
            if (k == 1)
                d.queue.push_back({2, 9.f, NAN, NAN});
            log.records.push_back(d);
        }
        HeatmapData hist = priorityHistory(log, 0, 2);
        QCOMPARE(hist.rows, 2);
        QCOMPARE(hist.cols, 3);
        QCOMPARE(hist.values[2], 2.f);
        QVERIFY(std::isnan(hist.values[3]));
        QCOMPARE(hist.values[4], 9.f);
    }

    void decisionStripShowsLastFour()
    {
        DecisionLog log;
        log.machineCount = 2;
        for (int k = 0; k < 6; ++k) {
            DecisionRecord d;
            d.index = uint32_t(k);
            d.time = k * 10;
            d.queue.push_back({k, float(k), NAN, NAN});
            log.records.push_back(d);
        }
        DecisionStripView strip;
        strip.resize(800, 200);
        strip.setLog(&log);
        strip.setCurrentDecision(5);
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(strip.heatmap(i)->cols(), 1);
            QCOMPARE(strip.heatmap(i)->value(0, 0), float(2 + i));
            // One shared scale across the four steps.
            QCOMPARE(strip.heatmap(i)->rangeMin(), 2.f);
            QCOMPARE(strip.heatmap(i)->rangeMax(), 5.f);
        }
        strip.setCurrentDecision(1); // fewer than four: leading maps empty
        QCOMPARE(strip.heatmap(0)->rows(), 0);
        QCOMPARE(strip.heatmap(1)->rows(), 0);
        QCOMPARE(strip.heatmap(3)->value(0, 0), 1.f);
    }

    void ganttVisibleRangeMatchesBruteForce()
    {
        std::mt19937 rng(12345);
        std::uniform_real_distribution<double> u(0, 1000);
        std::exponential_distribution<double> len(1 / 30.0);
        std::vector<GanttSegment> segs;
        for (int i = 0; i < 5000; ++i) {
            const double s = u(rng);
            // Overlapping segments in a row (shared GPUs, per-machine rows), including some very long ones.
            const double l = (i % 50 == 0) ? 400 : len(rng);
            segs.push_back({int(rng() % 7), s, s + l, i});
        }
        GanttView v;
        v.setSegments(7, {}, segs);
        for (int q = 0; q < 2000; ++q) {
            double a = u(rng), b = u(rng);
            if (a > b)
                std::swap(a, b);
            if (q % 10 == 0)
                b = a; // empty interval
            const int row = int(rng() % 7);
            std::set<int> expect;
            for (const auto& s : segs)
                if (s.row == row && s.start < b && s.end > a)
                    expect.insert(s.job);
            std::set<int> got;
            for (int i : v.visibleSegments(row, a, b))
                QVERIFY(got.insert(v.rowSegments(row)[size_t(i)].job).second);
            QCOMPARE(got, expect);
        }
    }

    void ganttMergesSubPixelSegments()
    {
        std::vector<GanttSegment> segs;
        for (int i = 0; i < 20000; ++i)
            segs.push_back({0, double(i), double(i) + 0.8, i % 5});
        GanttView v;
        v.resize(420, 120);
        v.setSegments(1, {}, segs);
        v.setViewRange(0, 20000);
        v.grab();
        const int plotWidth = 420; // no labels: the whole width is the plot
        QVERIFY2(v.lastDrawnRectCount() <= plotWidth, qPrintable(QString::number(v.lastDrawnRectCount())));
        QVERIFY(v.lastDrawnRectCount() >= 1);
        // Zoomed in so that every segment is several pixels wide: nothing merges.
        v.setViewRange(100, 140);
        v.grab();
        QCOMPARE(v.lastDrawnRectCount(), int(v.visibleSegments(0, 100, 140).size()));
    }

    void ganttPaintsJobColoursAndCursor()
    {
        GanttView v;
        v.resize(400, 150);
        v.setSegments(2, {}, {{0, 0, 50, 5}, {1, 50, 100, 9}});
        v.setViewRange(0, 100);
        v.setCursorTime(75);
        const QImage img = v.grab().toImage();
        const QRectF r0 = v.rowRect(0), r1 = v.rowRect(1);
        QCOMPARE(img.pixel(int(v.xOf(25)), int(r0.center().y())), jobRgb(5));
        QCOMPARE(img.pixel(int(v.xOf(60)), int(r1.center().y())), jobRgb(9));
        QVERIFY(img.pixel(int(v.xOf(60)), int(r0.center().y())) != jobRgb(5)); // empty there
        const QRgb cur = img.pixel(int(std::lround(v.xOf(75))), int(r0.center().y()));
        QVERIFY(qRed(cur) > 150 && qGreen(cur) < 100);
    }

    void ganttClickSelectsAndViewsLink()
    {
        GanttView a, b;
        a.resize(400, 150);
        b.resize(400, 150);
        a.setSegments(1, {"gpu0"}, {{0, 10, 20, 3}});
        b.setSegments(1, {}, {{0, 0, 1000, 1}});
        QObject::connect(&a, &GanttView::viewRangeChanged, &b, &GanttView::setViewRange);
        QObject::connect(&b, &GanttView::viewRangeChanged, &a, &GanttView::setViewRange);
        QSignalSpy ranges(&a, &GanttView::viewRangeChanged);
        a.setViewRange(0, 40);
        QCOMPARE(b.viewStart(), 0.0);
        QCOMPARE(b.viewEnd(), 40.0);
        QCOMPARE(ranges.count(), 1); // no ping-pong
        QSignalSpy sel(&a, &GanttView::jobSelected);
        QTest::mouseClick(&a, Qt::LeftButton, {}, QPoint(int(a.xOf(15)), int(a.rowRect(0).center().y())));
        QCOMPARE(sel.count(), 1);
        QCOMPARE(sel.at(0).at(0).toInt(), 3);
        QCOMPARE(a.selectedJob(), 3);
        // Dragging pans (and is not a click).
        QTest::mousePress(&a, Qt::LeftButton, {}, QPoint(200, 60));
        QTest::mouseMove(&a, QPoint(300, 60));
        QTest::mouseRelease(&a, Qt::LeftButton, {}, QPoint(300, 60));
        QVERIFY(a.viewStart() < 0);
        QCOMPARE(b.viewStart(), a.viewStart());
        QCOMPARE(sel.count(), 1);
    }

    void ganttBuildersFollowTheLog()
    {
        const ClusterSpec c = smallCluster();
        DecisionLog log;
        log.machineCount = c.machineCount();
        log.gpuCount = c.totalGpus();
        auto rec = [&](double t) {
            DecisionRecord r;
            r.index = uint32_t(log.records.size());
            r.time = t;
            log.records.push_back(r);
            return &log.records.back();
        };
        auto place = [](DecisionRecord* r, int job, std::vector<int> gpus) {
            PlacementRecord p;
            p.job = job;
            for (int g : gpus)
                p.slots.push_back({g, 1000});
            r->placements.push_back(p);
        };
        place(rec(0), 0, {0, 1});
        place(rec(5), 1, {2});
        rec(8)->preempted = {1};
        rec(10)->finished = {0};
        place(rec(12), 1, {4}); // resumes elsewhere, still running at the end
        const GanttData g = buildGpuSegments(log, c, GanttRowMode::Gpu, 20);
        QCOMPARE(g.rowCount, 16);
        QCOMPARE(g.rowLabels.at(5), QStringLiteral("node1/1"));
        std::multiset<std::tuple<int, double, double, int>> got;
        for (const auto& s : g.segments)
            got.insert({s.row, s.start, s.end, s.job});
        const std::multiset<std::tuple<int, double, double, int>> expect = {
            {0, 0, 10, 0}, {1, 0, 10, 0}, {2, 5, 8, 1}, {4, 12, 20, 1}};
        QCOMPARE(got, expect);
        const GanttData m = buildGpuSegments(log, c, GanttRowMode::Machine, 20);
        QCOMPARE(m.rowCount, 4);
        got.clear();
        for (const auto& s : m.segments)
            got.insert({s.row, s.start, s.end, s.job});
        const std::multiset<std::tuple<int, double, double, int>> expectM = {{0, 0, 10, 0}, {0, 5, 8, 1}, {1, 12, 20, 1}};
        QCOMPARE(got, expectM);

        std::vector<JobRecord> jobs(4);
        const double iv[4][2] = {{0, 10}, {5, 15}, {10, 20}, {-1, -1}};
        for (int i = 0; i < 4; ++i) {
            jobs[size_t(i)].index = i;
            jobs[size_t(i)].start = iv[i][0];
            jobs[size_t(i)].end = iv[i][1];
        }
        const GanttData lanes = buildSegmentsFromJobs(jobs, JobLanes::Packed);
        QCOMPARE(lanes.rowCount, 2); // [0,10] and [10,20] share a lane
        QCOMPARE(int(lanes.segments.size()), 3);
        QCOMPARE(buildSegmentsFromJobs(jobs, JobLanes::PerJob).rowCount, 3);
    }

    void barLabelsNeverOverlap()
    {
        // Issue 22 point 11: compare bar labels ("fifo+firstfit · trace … · perf …") overlapped on a narrow pane.
        // Flat labels get a slot as wide as the widest; turned ones need slot·sin(θ) ≥ their height; when even
        // upright ones do not fit, only every k-th label is written.
        QCustomPlot plot;
        QStringList cats;
        for (int c = 0; c < 8; ++c)
            cats << QStringLiteral("fifo+firstfit · trace philly-%1.csv · perf default").arg(c);
        std::vector<std::vector<double>> mean(1), sd(1);
        for (int c = 0; c < 8; ++c) {
            mean[0].push_back(10 + c);
            sd[0].push_back(1);
        }
        auto check = [&](int width, bool expectFlat) {
            plot.resize(width, 320);
            plots::plotGroupedBars(&plot, cats, {"JCT"}, mean, sd, "JCT (min)");
            plot.replot(QCustomPlot::rpImmediateRefresh);
            const QFontMetricsF fm(plot.xAxis->tickLabelFont());
            const double slot = plot.axisRect()->width() / plot.xAxis->range().size();
            const double rot = plot.xAxis->tickLabelRotation();
            auto ticker = plot.xAxis->ticker().dynamicCast<QCPAxisTickerText>();
            QVERIFY(ticker);
            const QMap<double, QString> labels = ticker->ticks();
            QCOMPARE(labels.size(), cats.size());
            double widest = 0;
            int shown = 0;
            for (const QString& l : labels) {
                widest = std::max(widest, fm.horizontalAdvance(l));
                shown += !l.isEmpty();
            }
            QVERIFY(shown >= 1);
            const double gap = slot * double(cats.size()) / shown; // distance between two written labels
            if (rot == 0)
                QVERIFY2(widest + 4 <= gap, qPrintable(QStringLiteral("flat labels %1 px in %2 px").arg(widest).arg(gap)));
            else
                QVERIFY2(gap * std::sin(rot * M_PI / 180) >= fm.height(),
                         qPrintable(QStringLiteral("turned %1°: %2 px apart, %3 px high").arg(rot).arg(gap).arg(fm.height())));
            QCOMPARE(rot == 0, expectFlat);
        };
        check(520, false);  // long labels, narrow pane: turned
        check(260, false);  // very narrow: upright and thinned out
        cats = {"fifo", "das"};
        mean[0].resize(2);
        sd[0].resize(2);
        check(700, true);   // two short labels stay flat
    }

    void exportsWriteFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const ClusterSpec c = smallCluster();
        ClusterMapView v;
        v.resize(320, 200);
        v.setCluster(&c);
        QCustomPlot plot;
        plot.resize(320, 240);
        plots::plotCdf(&plot, {{"a", {1, 2, 3, 4}}, {"b", {2, 3, 8}}}, "JCT (min)");
        for (QWidget* w : {static_cast<QWidget*>(&v), static_cast<QWidget*>(&plot)}) {
            for (const char* ext : {"png", "svg", "pdf"}) {
                const QString path = dir.filePath(QStringLiteral("%1.%2").arg(w == &v ? "map" : "plot", ext));
                QString err;
                QVERIFY2(exporter::exportWidget(w, path, &err, "policy fifo, seed 42"), qPrintable(err));
                QFile f(path);
                QVERIFY(f.open(QIODevice::ReadOnly));
                const QByteArray head = f.read(4096);
                QVERIFY(f.size() > 200);
                if (QByteArray(ext) == "png") {
                    // a plot is laid out again at no less than minPlotExportSize(); both at pngScale() px/pt
                    QImage img(path);
                    const QSize logical = w == &plot ? w->size().expandedTo(exporter::minPlotExportSize()) : w->size();
                    QCOMPARE(img.width(), logical.width() * exporter::pngScale());
                    QVERIFY(img.height() > logical.height() * exporter::pngScale()); // caption strip under the view
                } else if (QByteArray(ext) == "svg") {
                    QVERIFY(head.contains("<svg"));
                } else {
                    QVERIFY(head.startsWith("%PDF"));
                }
            }
        }
        // Issue 22 point 11: a docked plot of 384 x 221 exported at 384 x 221 with its caption cut off. The export is
        // at least 960 x 600 points at 2 px per point, the plot on screen keeps its size, and a caption longer than
        // the width wraps onto as many lines as it needs, each drawn.
        {
            QCustomPlot small;
            small.resize(384, 221);
            plots::plotCdf(&small, {{"a", {1, 2, 3, 4}}}, "JCT (min)");
            QString caption;
            for (int r = 0; r < 6; ++r)
                caption += QStringLiteral("run %1: fifo+firstfit seed %1 · trace philly.csv · cluster philly-552 · perf default\n").arg(r);
            const QString path = dir.filePath(QStringLiteral("small.png"));
            QString err;
            QVERIFY2(exporter::exportPlot(&small, path, &err, caption.trimmed()), qPrintable(err));
            QCOMPARE(small.size(), QSize(384, 221));
            const QImage img(path);
            QCOMPARE(img.width(), 960 * exporter::pngScale());
            const int lineH = QFontMetrics(small.font()).height();
            QVERIFY2(img.height() >= (600 + 6 * lineH) * exporter::pngScale(), qPrintable(QString::number(img.height())));
            // the last caption line has ink: its band under the plot is not all background
            const int y0 = (600 + 4 + 5 * lineH) * exporter::pngScale(), y1 = y0 + lineH * exporter::pngScale();
            const QRgb bg = img.pixel(img.width() - 1, img.height() - 1);
            bool ink = false;
            for (int y = y0; y < y1 && y < img.height() && !ink; ++y)
                for (int x = 0; x < img.width() / 2 && !ink; ++x)
                    ink = img.pixel(x, y) != bg;
            QVERIFY2(ink, "the sixth caption line is drawn");
        }
        QString err;
        QVERIFY(!exporter::exportWidget(&v, dir.filePath("x.bmpx"), &err));
        QVERIFY(err.contains("x.bmpx"));
        QVERIFY(!exporter::exportWidget(&v, dir.filePath("no/such/dir/x.png"), &err));
        QVERIFY(err.contains("cannot write"));
    }

    void tableExportCsvAndTsv()
    {
        QStandardItemModel m(3, 3);
        m.setHorizontalHeaderLabels({"id", "name", "jct"});
        const char* cells[3][3] = {{"1", "plain", "2.5"}, {"2", "a,b", "3"}, {"3", "say \"hi\"", "4"}};
        for (int r = 0; r < 3; ++r)
            for (int col = 0; col < 3; ++col)
                m.setItem(r, col, new QStandardItem(QString::fromUtf8(cells[r][col])));
        const QString csv = TableExport::toCsv(&m, "seed 7");
        QCOMPARE(csv, QStringLiteral("# seed 7\nid,name,jct\n1,plain,2.5\n2,\"a,b\",3\n3,\"say \"\"hi\"\"\",4\n"));
        QTemporaryDir dir;
        QVERIFY(TableExport::writeCsv(&m, dir.filePath("t.csv")));
        QFile f(dir.filePath("t.csv"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()), TableExport::toCsv(&m));
        QTableView view;
        view.setModel(&m);
        view.selectionModel()->select(m.index(0, 1), QItemSelectionModel::Select);
        view.selectionModel()->select(m.index(1, 2), QItemSelectionModel::Select);
        QCOMPARE(TableExport::selectionToTsv(view.selectionModel()), QStringLiteral("plain\t\n\t3\n"));
    }

    void plotHelpersBuildCharts()
    {
        QCOMPARE(plots::histogramCounts({0, 0.5, 1, 1.5, 2, 5}, 2, 0, 2), (std::vector<double>{2, 3}));
        QCustomPlot plot;
        plot.resize(400, 300);
        plots::plotCdf(&plot, {{"fifo", {3, 1, 2}}, {"das", {5}}}, "JCT");
        QCOMPARE(plot.graphCount(), 2);
        QCPGraph* g = plot.graph(0);
        QCOMPARE(g->data()->size(), 4); // start at 0 plus one step per value
        QCOMPARE((g->data()->constEnd() - 1)->value, 1.0);
        QCOMPARE((g->data()->constEnd() - 1)->key, 3.0);
        QVERIFY(plot.legend->visible());
        // 100k values: a bounded number of points, still a CDF from the minimum to (max, 1), within 1/4096.
        std::vector<double> many(100000);
        for (size_t i = 0; i < many.size(); ++i)
            many[i] = double((i * 7919) % many.size()); // a permutation of 0..99999
        plots::plotCdf(&plot, {{"big", many}}, "JCT");
        g = plot.graph(0);
        QVERIFY(g->data()->size() <= 4100 && g->data()->size() > 1000);
        QCOMPARE(g->data()->constBegin()->key, 0.0);
        QCOMPARE((g->data()->constEnd() - 1)->key, 99999.0);
        QCOMPARE((g->data()->constEnd() - 1)->value, 1.0);
        for (auto it = g->data()->constBegin() + 1; it != g->data()->constEnd(); ++it)
            QVERIFY(std::abs(it->value - (it->key + 1) / 100000.0) < 1e-12); // F(x) exact at every kept point
        plots::plotGroupedBars(&plot, {"small", "large"}, {"fifo", "das"}, {{10, 20}, {8, 15}}, {{1, 2}, {0.5, 1}}, "JCT (min)");
        int bars = 0, errs = 0;
        for (int i = 0; i < plot.plottableCount(); ++i) {
            bars += qobject_cast<QCPBars*>(plot.plottable(i)) != nullptr;
            errs += qobject_cast<QCPErrorBars*>(plot.plottable(i)) != nullptr;
        }
        QCOMPARE(bars, 2);
        QCOMPARE(errs, 2);
        QVERIFY(plot.yAxis->range().upper >= 22);
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(30, 30, 30));
        dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
        dark.setColor(QPalette::Base, QColor(20, 20, 20));
        plots::applyTheme(&plot, dark);
        QCOMPARE(plot.xAxis->tickLabelColor(), QColor(230, 230, 230));
        Trace t;
        for (int i = 0; i < 50; ++i) {
            Job j;
            j.submit = i * 60;
            j.gpus = (i % 3 == 0) ? 4 : 1;
            j.duration = 60 * (1 + i);
            t.jobs.push_back(j);
        }
        plots::plotGpuDemand(&plot, t);
        auto* gb = qobject_cast<QCPBars*>(plot.plottable(0));
        QVERIFY(gb);
        QCOMPARE(gb->data()->size(), 2);
        QCOMPARE(gb->data()->at(1)->value, 17.0); // demand 4: i = 0, 3, ..., 48
        plots::plotDurations(&plot, t);
        QCOMPARE(plot.xAxis->scaleType(), QCPAxis::stLogarithmic);
    }

    void topologyEditorSelectsAndRequests()
    {
        const ClusterSpec c = smallCluster();
        TopologyEditorView v;
        v.resize(600, 400);
        v.setCluster(c);
        QCOMPARE(v.linkCount(), 1);
        QVERIFY(v.machineItem(3));
        QVERIFY(v.switchItem(1));
        QVERIFY(!v.machineItem(4));
        QSignalSpy sel(&v, &TopologyEditorView::selectionChangedIds);
        v.selectIds({1, 3}, {0});
        QCOMPARE(sel.count(), 1);
        QCOMPARE(sel.at(0).at(0).value<QList<int>>(), (QList<int>{1, 3}));
        QCOMPARE(sel.at(0).at(1).value<QList<int>>(), (QList<int>{0}));
        // Rebuilding keeps the selection by id.
        v.setCluster(c);
        QCOMPARE(v.selectedMachines(), (QList<int>{1, 3}));
        QSignalSpy del(&v, &TopologyEditorView::requestDelete);
        QTest::keyClick(&v, Qt::Key_Delete);
        QCOMPARE(del.count(), 1);
        QSignalSpy conn(&v, &TopologyEditorView::requestConnect);
        v.selectIds({}, {0, 1});
        v.connectSelectedSwitches();
        QCOMPARE(conn.count(), 1);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.fitAll();
        const QPoint a = v.mapFromScene(v.switchItem(0)->sceneBoundingRect().center());
        const QPoint b = v.mapFromScene(v.switchItem(1)->sceneBoundingRect().center());
        QTest::mousePress(v.viewport(), Qt::LeftButton, Qt::ShiftModifier, a);
        QTest::mouseMove(v.viewport(), b);
        QTest::mouseRelease(v.viewport(), Qt::LeftButton, Qt::ShiftModifier, b);
        QCOMPARE(conn.count(), 2);
        QCOMPARE(conn.at(1).at(0).toInt(), 0);
        QCOMPARE(conn.at(1).at(1).toInt(), 1);
        QSignalSpy dbl(&v, &TopologyEditorView::machineDoubleClicked);
        QTest::mouseDClick(v.viewport(), Qt::LeftButton, {}, v.mapFromScene(v.machineItem(2)->sceneBoundingRect().center()));
        QCOMPARE(dbl.count(), 1);
        QCOMPARE(dbl.at(0).at(0).toInt(), 2);
        // Clicking a machine selects it alone.
        QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, v.mapFromScene(v.machineItem(0)->sceneBoundingRect().center()));
        QCOMPARE(v.selectedMachines(), (QList<int>{0}));
        QVERIFY(v.selectedSwitches().isEmpty());
    }
};

QTEST_MAIN(TestWidgets)
#include "tst_widgets.moc"
