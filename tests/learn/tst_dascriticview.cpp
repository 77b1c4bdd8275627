// The critic inside a DAS decision, in the studio (issue 26, ui/dasview.h): with a Q-critic the stepper's "Q critic"
// column and the heatmaps' Q rows (each job as the ordering action, each machine as the placement action) show the
// logged values; with the V-critic the view says V(s) and that it cannot rank alternatives; teaching mode explains it.
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

std::shared_ptr<RunEntry> runOf(const char* critic)
{
    return dasviewfix::runOf("das", {{"das.untrained", "1"}, {"das.critic", critic}}); // an untrained agent with that critic
}

// The first decision where at least two queued jobs could start (two ordering alternatives with a Q).
int decisionWithAlternatives(const DecisionLog& log)
{
    for (size_t k = 0; k < log.records.size(); ++k) {
        int n = 0;
        for (const ScoredJob& q : log.records[k].queue)
            n += !std::isnan(q.critic);
        if (n >= 2)
            return int(k);
    }
    return -1;
}

} // namespace

class TestDasCriticView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void qCriticColumnAndRows()
    {
        const auto das = runOf("q");
        const DecisionLog& log = *das->out->log;
        const int k = decisionWithAlternatives(log);
        QVERIFY(k >= 0);
        const DecisionRecord& r = log.records[size_t(k)];
        QCOMPARE(r.criticKind, 'q');

        // Stepper: a "Q critic" column after the δ gate, the logged Q per queued job, "—" where it could not start.
        QueueModel queue;
        GateColumnModel m(&queue, QueueModel::PriorityStd);
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setDecision(das->out->log, k);
        queue.setDecision(das->trace, das->out->log, k);
        QCOMPARE(m.gateColumn(), int(QueueModel::PriorityStd) + 1);
        QCOMPARE(m.criticColumn(), m.gateColumn() + 1);
        QCOMPARE(m.columnCount(), queue.columnCount() + 2);
        QCOMPARE(m.headerData(m.criticColumn(), Qt::Horizontal, Qt::DisplayRole).toString(), QStringLiteral("Q critic"));
        bool sawChosen = false;
        for (int row = 0; row < m.rowCount(); ++row) {
            const float q = r.queue[size_t(row)].critic;
            const QString cell = m.index(row, m.criticColumn()).data().toString();
            if (std::isnan(q)) {
                QCOMPARE(cell, QStringLiteral("—"));
                continue;
            }
            QVERIFY2(cell.startsWith(QString::number(q, 'f', 3)), qPrintable(cell));
            QCOMPARE(m.index(row, m.criticColumn()).data(SortRole).toDouble(), double(q));
            if (cell.endsWith(QStringLiteral("◀"))) {
                QVERIFY(!sawChosen); // one action taken
                sawChosen = true;
                QVERIFY(std::fabs(q - r.criticValue) < 1e-4f);
            }
        }
        QVERIFY(sawChosen);
        // The column after the critic is the source's next one.
        QCOMPARE(m.index(0, m.criticColumn() + 1).data(), queue.index(0, QueueModel::PriorityStd + 1).data());

        // Heatmaps: the Q row over the queue and the Q row over machines, and the one-line summary.
        const HeatmapData qj = criticJobMatrix(r, das->trace.get());
        QCOMPARE(qj.rows, 1);
        QCOMPARE(qj.cols, int(r.queue.size()));
        const HeatmapData qm = criticMachineMatrix(r, 8, {}, das->trace.get());
        QCOMPARE(qm.rows, 1);
        QCOMPARE(qm.cols, 8);
        DasHeatmaps maps(nullptr);
        maps.showDecision(*das, k);
        QVERIFY(!maps.isHidden());
        QVERIFY(!maps.criticJobMap()->isHidden());
        QVERIFY(!maps.criticMachineMap()->isHidden());
        QCOMPARE(maps.criticJobMap()->cols(), int(r.queue.size()));
        QCOMPARE(maps.criticMachineMap()->cols(), 8);
        QVERIFY(maps.criticMachineMap()->title().contains(QLatin1String("placement action")));
        QVERIFY2(maps.criticLabel()->text().contains(QLatin1String("Q(s, a) = ")), qPrintable(maps.criticLabel()->text()));
        const QString text = explainDasDecision(r, *das->trace, *das->cluster);
        QVERIFY2(text.contains(QLatin1String("The critic.")) && text.contains(QLatin1String("Q of the action taken")),
                 qPrintable(text));
    }

    void vCriticSaysItCannotRank()
    {
        const auto das = runOf("v");
        const DecisionLog& log = *das->out->log;
        int k = -1;
        for (size_t i = 0; i < log.records.size() && k < 0; ++i)
            if (log.records[i].criticKind == 'v' && log.records[i].queue.size() >= 2)
                k = int(i);
        QVERIFY(k >= 0);
        const DecisionRecord& r = log.records[size_t(k)];
        QueueModel queue;
        GateColumnModel m(&queue, QueueModel::PriorityStd);
        m.setDecision(das->out->log, k);
        queue.setDecision(das->trace, das->out->log, k);
        QCOMPARE(m.criticColumn(), -1); // nothing to rank
        QCOMPARE(criticJobMatrix(r, das->trace.get()).rows, 0);
        DasHeatmaps maps(nullptr);
        maps.showDecision(*das, k);
        QVERIFY(maps.criticJobMap()->isHidden());
        QVERIFY(maps.criticMachineMap()->isHidden());
        QVERIFY(!maps.criticLabel()->isHidden());
        QVERIFY2(maps.criticLabel()->text().contains(QLatin1String("V(s) = ")) &&
                     maps.criticLabel()->text().contains(QLatin1String("cannot rank")),
                 qPrintable(maps.criticLabel()->text()));
        QVERIFY(explainDasDecision(r, *das->trace, *das->cluster).contains(QLatin1String("state-value critic")));
    }
};

QTEST_MAIN(TestDasCriticView)
#include "tst_dascriticview.moc"
