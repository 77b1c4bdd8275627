// Every policy made to scale in issue 20 keeps its invariants on 100,000 jobs of the bench's kind (Gavel-style
// jobs at load 0.8 on alibaba-scale): no GPU share is ever granted beyond the GPU, every job ends exactly once,
// nothing is held at the end, and each stop before a job's end is followed by a start (starts = jobs + stops).
// The non-preemptive orderings never stop a job. RunConfig::checkInvariants rechecks the whole state after every
// decision, which is too slow here, so ShareChecker follows the shares as jobs start and stop; the engine's
// ledger (SCHEDSTUDIO_CHECK_INVARIANTS, on for the suite) checks each event. One row per ordering family and per
// placement, the Tiresias policies, Tetris and Chronus. Under the sanitizers (a Debug build ten times slower) the
// rows run on 20,000 jobs.
#include <QtTest>

#include <vector>

#include "io/traceio.h"
#include "model/tracegen.h"
#include "run/runner.h"
#include "sharechecker.h"

using namespace ss;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr int kJobs = 20000;
#else
constexpr int kJobs = 100000;
#endif

} // namespace

class TstScalePolicies : public QObject {
    Q_OBJECT
private:
    ClusterSpec m_cluster;
    Trace m_trace;

private Q_SLOTS:
    void initTestCase()
    {
        m_cluster = readCluster("alibaba-scale");
        TraceGenConfig g;
        g.jobs = kJobs;
        g.seed = 7;
        g.load = 0.8;
        g.clusterGpus = m_cluster.totalGpus();
        m_trace = generateTrace(g);
    }

    void policiesAt100k_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<bool>("preemptive");
        // the non-preemptive orderings, each placement once (the placements' free-level bitsets)
        for (const char* p : {"fifo+random", "fifo+bestfit", "sjf+consolidate", "edf+loadbalance", "drf+firstfit"})
            QTest::newRow(p) << QString::fromLatin1(p) << false;
        // 2D-LAS's running-job index with four placements, SRTF's drift bounds with two, 2D-Gittins's certified bounds
        for (const char* p : {"las+consolidate", "las+firstfit", "las+bestfit", "las+random", "srtf+firstfit",
                              "srtf+loadbalance", "gittins+firstfit"})
            QTest::newRow(p) << QString::fromLatin1(p) << true;
        // the joint policies: Tetris's fit tests and queue mirror, Chronus's placement bitsets and lease heap
        QTest::newRow("tetris") << QStringLiteral("tetris") << false;
        QTest::newRow("chronus") << QStringLiteral("chronus") << true;
    }

    void policiesAt100k()
    {
        QFETCH(QString, policy);
        QFETCH(bool, preemptive);
        ShareChecker check(m_cluster, m_trace.jobs.size());
        RunSpec spec;
        spec.policy = policy.toStdString();
        spec.config.seed = 3;
        const RunOutput out = runSimulation(m_cluster, m_trace, spec, {}, nullptr, {&check});
        QCOMPARE(check.overbooked(), 0);
        QCOMPARE(check.endedTwice(), 0);
        QCOMPARE(check.startAfterEnd(), 0);
        QVERIFY(check.allReleased());
        QCOMPARE(check.ended(), kJobs); // no time limit: every job runs to its end
        QCOMPARE(check.starts(), long(kJobs) + check.stops());
        qInfo("%s: %ld starts, %ld stops, %.2f s", qPrintable(policy), check.starts(), check.stops(), out.wallSeconds);
        if (preemptive)
            QVERIFY(check.stops() > 0); // the stop-and-restart path is exercised
        else
            QCOMPARE(check.stops(), 0L);
        QCOMPARE(int(out.jobs.size()), kJobs);
        std::vector<char> seen(m_trace.jobs.size(), 0);
        long preemptions = 0;
        for (const JobRecord& r : out.jobs) {
            QVERIFY(r.index >= 0 && size_t(r.index) < seen.size());
            QVERIFY2(!seen[size_t(r.index)], "a job is recorded twice");
            seen[size_t(r.index)] = 1;
            QCOMPARE(r.status, JobStatus::Done);
            QVERIFY(r.end >= r.start && r.start >= r.submit);
            preemptions += r.preemptions;
        }
        QCOMPARE(preemptions, check.stops()); // the records count the stops the observer saw
    }
};

QTEST_GUILESS_MAIN(TstScalePolicies)
#include "tst_scalepolicies.moc"
