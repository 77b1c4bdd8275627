// The studio's view inside a DAS decision (issue 26, ui/dasview.h): the stepper's δ gate column, the gate heatmap
// row, the RWGP posterior maps beside the affinity, and teaching mode's DAS section, from a real DAS run's log.
#include <QAbstractItemModelTester>
#include <QTest>

#include <cmath>

#include "dasview.h"
#include "model/tracegen.h"
#include "models.h"
#include "run/runner.h"
#include "runentry.h"
#include "dasviewfixture.h"

using namespace ss;
using namespace ss::ui;

namespace {

std::shared_ptr<RunEntry> runOf(const char* policy)
{
    std::map<std::string, std::string> params;
    if (std::string(policy).rfind("da", 0) == 0)
        params["das.untrained"] = "1";
    return dasviewfix::runOf(policy, params);
}

// The first decision with a queue of at least two jobs and a scored placement.
int busyDecision(const DecisionLog& log)
{
    for (size_t k = 0; k < log.records.size(); ++k)
        if (log.records[k].queue.size() >= 2 && hasRwgpPosterior(log.records[k]))
            return int(k);
    qWarning("no busy decision among %d records", int(log.records.size()));
    return -1;
}

} // namespace

class TestDasView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void gateColumnInTheStepper()
    {
        const auto das = runOf("das");
        const int k = busyDecision(*das->out->log);
        QVERIFY(k >= 0);
        const DecisionRecord& r = das->out->log->records[size_t(k)];
        QueueModel queue;
        GateColumnModel m(&queue, QueueModel::PriorityStd);
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setDecision(das->out->log, k);
        queue.setDecision(das->trace, das->out->log, k);
        QCOMPARE(m.gateColumn(), int(QueueModel::PriorityStd) + 1);
        QCOMPARE(m.columnCount(), int(QueueModel::ColumnCount) + 1);
        QCOMPARE(m.rowCount(), int(r.queue.size()));
        QCOMPARE(m.headerData(m.gateColumn(), Qt::Horizontal, Qt::DisplayRole).toString(), QStringLiteral("δ gate"));
        for (int row = 0; row < m.rowCount(); ++row) {
            const float g = r.queue[size_t(row)].gate;
            QVERIFY(g >= 0 && g <= 1);
            QCOMPARE(m.index(row, m.gateColumn()).data().toString(), QString::number(g, 'f', 3));
            QCOMPARE(m.index(row, m.gateColumn()).data(JobIndexRole).toInt(), r.queue[size_t(row)].job);
            // the columns around it are the queue model's
            QCOMPARE(m.index(row, QueueModel::Job).data(), queue.index(row, QueueModel::Job).data());
            QCOMPARE(m.index(row, m.gateColumn() + 1).data(), queue.index(row, QueueModel::Admitted).data());
        }
        // DA+RWGP has no gate: no column; the queue model's columns as they are.
        const auto rw = runOf("da+rwgp");
        const int k2 = busyDecision(*rw->out->log);
        QVERIFY(k2 >= 0);
        m.setDecision(rw->out->log, k2);
        queue.setDecision(rw->trace, rw->out->log, k2);
        QCOMPARE(m.gateColumn(), -1);
        QCOMPARE(m.columnCount(), int(QueueModel::ColumnCount));
        QCOMPARE(m.index(0, QueueModel::Placed).data(), queue.index(0, QueueModel::Placed).data());
        m.setDecision(nullptr, -1);
        queue.setDecision(nullptr, nullptr, -1);
        QCOMPARE(m.rowCount(), 0);
    }

    void gateRowAndPosteriorMaps()
    {
        const auto das = runOf("das");
        const int k = busyDecision(*das->out->log);
        QVERIFY(k >= 0);
        const DecisionRecord& r = das->out->log->records[size_t(k)];
        const HeatmapData g = gateMatrix(r, das->trace.get());
        QCOMPARE(g.rows, 1);
        QCOMPARE(g.cols, int(r.queue.size()));
        QCOMPARE(g.values[0], r.queue[0].gate);
        QCOMPARE(g.colJobs[0], r.queue[0].job);
        QCOMPARE(g.colLabels[0], QString::number(das->trace->jobs[size_t(r.queue[0].job)].id));
        const HeatmapData mean = rwgpMatrix(r, 8, {}, das->trace.get(), false);
        const HeatmapData var = rwgpMatrix(r, 8, {}, das->trace.get(), true);
        QCOMPARE(mean.cols, 8);
        QVERIFY(mean.rows >= 1);
        QCOMPARE(var.rows, mean.rows);
        const PlacementRecord* p = nullptr;
        for (const PlacementRecord& x : r.placements)
            if (!x.rwgpMean.empty() && !p)
                p = &x;
        QCOMPARE(mean.rowJobs[0], p->job);
        for (int m = 0; m < 8; ++m) {
            QCOMPARE(mean.values[size_t(m)], p->rwgpMean[size_t(m)]);
            QCOMPARE(var.values[size_t(m)], p->rwgpVar[size_t(m)]);
            QVERIFY(var.values[size_t(m)] > 0);
        }
        DasHeatmaps maps(nullptr);
        maps.showDecision(*das, k);
        QVERIFY(!maps.isHidden());
        QCOMPARE(maps.gateMap()->cols(), int(r.queue.size()));
        QCOMPARE(maps.meanMap()->rows(), mean.rows);
        QVERIFY(maps.meanMap()->title().contains(QLatin1String("RWGP mean")));
        QVERIFY(maps.varianceMap()->title().contains(QLatin1String("variance")));
        // The mean's colour scale is symmetric about 0: a deviation of 0 is the middle colour.
        QCOMPARE(maps.meanMap()->rangeMin(), -maps.meanMap()->rangeMax());
        // A baseline's decision carries neither: the maps hide.
        const auto fifo = runOf("fifo+firstfit");
        maps.showDecision(*fifo, 0);
        QVERIFY(maps.isHidden());
        QVERIFY(explainDasDecision(fifo->out->log->records[0], *fifo->trace, *fifo->cluster).isEmpty());
        const QString text = explainDasDecision(r, *das->trace, *das->cluster);
        QVERIFY2(text.contains(QStringLiteral("gate δ")) && text.contains(QLatin1String("RWGP for job")), qPrintable(text));
    }
};

QTEST_MAIN(TestDasView)
#include "tst_dasview.moc"
