// Job-for-job check of our engine (--perf ideal) against the Tiresias simulator (SymbioticLab/Tiresias,
// simulator/run_sim.py, --scheme=count). The reference end times in data/tiresias_60job_reference.csv come
// from Tiresias's own code paths (see the file's header); this test only reads them.
//
// What is expected to match, and why not everywhere:
// - FIFO (one_queue_fifo_sim_jobs) is strict FIFO: the queue stops at the first job that does not fit. It is
//   our fifo+firstfit with backfill off (--no-backfill). With count placement only the GPU total matters and
//   firstfit spans machines whenever enough GPUs are free, so every job must match (within 1 s, Tiresias
//   keeps whole seconds).
// - 2D-LAS (dlas_sim_jobs(gputime=True), 3 queues, limits 3250/7200 GPU-s) is our las+firstfit with the
//   default las.thresholds=3250,7200. On 60_job.csv no job reaches 3250 GPU-s, so nothing is demoted and
//   every job must match. With durations x10 jobs are demoted and preempted and Tiresias differs by design:
//   its wake-up for the next demotion (run_sim.py dlas_sim_jobs, "what's the closest queue_jump") is
//     int(math.ceil((queue_limit[qid] - executed_time) / num_gpu) + event_time)
//   which subtracts wall seconds (executed_time) from a GPU-second limit and, run_sim.py having no
//   `from __future__ import division`, floors under Python 2. The first wake-up of a fresh 8-GPU job comes at
//   406 s (3248 GPU-s, short of 3250, so no demotion) and later ones come late, so Tiresias demotes at the
//   next arrival/completion or at that late wake-up, while we demote at the exact crossing. With the formula
//   corrected to ceil((limit - executed_time * num_gpu) / num_gpu) the Tiresias code agrees with us within
//   4 s on every job of these runs (the rest is its whole-second clock). The counts below pin that known
//   difference: a change to our LAS that moves them must say why.
#include <QtTest>

#include <map>

#include "io/traceio.h"
#include "run/runner.h"

using namespace ss;

namespace {

struct RefKey {
    std::string scheme;
    int64_t id;
    bool operator<(const RefKey& o) const { return scheme != o.scheme ? scheme < o.scheme : id < o.id; }
};

struct RefTimes {
    double start, end;
};

std::map<RefKey, RefTimes> readReference(QString* error)
{
    std::map<RefKey, RefTimes> ref;
    QFile f(QStringLiteral(SS_SOURCE_DIR "/tests/golden/data/tiresias_60job_reference.csv"));
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        *error = f.fileName() + ": cannot open";
        return ref;
    }
    int line = 0;
    bool header = false;
    while (!f.atEnd()) {
        const QString l = QString::fromUtf8(f.readLine()).trimmed();
        ++line;
        if (l.isEmpty() || l.startsWith('#'))
            continue;
        if (!header) {
            header = true;
            if (l != QLatin1String("job_id,scheme,start,end")) {
                *error = QStringLiteral("line %1: unexpected header '%2'").arg(line).arg(l);
                return {};
            }
            continue;
        }
        const QStringList p = l.split(',');
        bool ok1 = false, ok2 = false, ok3 = false;
        if (p.size() == 4) {
            const int64_t id = p[0].toLongLong(&ok1);
            const double s = p[2].toDouble(&ok2), e = p[3].toDouble(&ok3);
            if (ok1 && ok2 && ok3) {
                ref[{p[1].toStdString(), id}] = {s, e};
                continue;
            }
        }
        *error = QStringLiteral("line %1: expected job_id,scheme,start,end, got '%2'").arg(line).arg(l);
        return {};
    }
    return ref;
}

} // namespace

class TstTiresiasRef : public QObject {
    Q_OBJECT
private:
    std::map<RefKey, RefTimes> m_ref;
    Trace m_trace;
    QTemporaryDir m_dir;

    ClusterSpec cluster(int nodes)
    {
        // Tiresias cluster-spec format, like n32g4.csv: one switch, `nodes` machines of 4 GPUs
        const QString path = m_dir.filePath(QStringLiteral("n%1g4.csv").arg(nodes));
        QFile f(path);
        if (f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            f.write(QStringLiteral("num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,%1,4,40,256\n")
                        .arg(nodes)
                        .toUtf8());
            f.close();
        }
        return readCluster(path.toStdString());
    }

    // Runs one scheme and returns how many of the 60 jobs end within 1 s of Tiresias; also checks that the
    // reference has exactly this trace's jobs, and (when every job must match) the start times too.
    int matches(const QString& scheme, const std::string& policy, bool backfill, int nodes, int scale,
                bool expectAll)
    {
        Trace t = m_trace;
        for (Job& j : t.jobs)
            j.duration *= scale;
        RunSpec spec;
        spec.policy = policy;
        spec.options.backfill = backfill;
        spec.config.perf = PerfConfig::parse("ideal");
        spec.config.checkInvariants = true;
        const RunOutput out = runSimulation(cluster(nodes), t, spec);
        const std::string key = scheme.toStdString();
        int n = 0, seen = 0;
        for (const JobRecord& r : out.jobs) {
            const auto it = m_ref.find({key, r.id});
            if (it == m_ref.end()) {
                QTest::qFail(qPrintable(QStringLiteral("%1: job %2 missing from the reference").arg(scheme).arg(r.id)),
                             __FILE__, __LINE__);
                return -1;
            }
            ++seen;
            const bool endOk = std::abs(r.end - it->second.end) <= 1.0;
            n += endOk;
            if (expectAll && (!endOk || std::abs(r.start - it->second.start) > 1.0)) {
                QTest::qFail(qPrintable(QStringLiteral("%1: job %2 start %3 end %4, Tiresias start %5 end %6")
                                            .arg(scheme)
                                            .arg(r.id)
                                            .arg(r.start)
                                            .arg(r.end)
                                            .arg(it->second.start)
                                            .arg(it->second.end)),
                             __FILE__, __LINE__);
                return -1;
            }
        }
        if (seen != 60) {
            QTest::qFail(qPrintable(QStringLiteral("%1: %2 jobs, expected 60").arg(scheme).arg(seen)), __FILE__,
                         __LINE__);
            return -1;
        }
        return n;
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QString tracePath = QStringLiteral(SS_SHARED_TRACES "/tiresias/60_job.csv");
        if (!QFileInfo::exists(tracePath))
            QSKIP("SS_SHARED_TRACES/tiresias/60_job.csv is absent");
        QVERIFY(m_dir.isValid());
        QString err;
        m_ref = readReference(&err);
        QVERIFY2(err.isEmpty(), qPrintable(err));
        QCOMPARE(int(m_ref.size()), 12 * 60);
        m_trace = readTrace(tracePath.toStdString());
        QCOMPARE(int(m_trace.jobs.size()), 60);
    }

    void fifoMatchesEveryJob_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("scale");
        for (int scale : {1, 10})
            for (int nodes : scale == 1 ? std::vector<int> {32, 4, 2} : std::vector<int> {32, 8, 4})
                QTest::addRow("n%dg4 x%d", nodes, scale) << nodes << scale;
    }
    void fifoMatchesEveryJob()
    {
        QFETCH(int, nodes);
        QFETCH(int, scale);
        const QString scheme = QStringLiteral("fifo:n%1g4:x%2").arg(nodes).arg(scale);
        QCOMPARE(matches(scheme, "fifo+firstfit", false, nodes, scale, true), 60);
    }

    void fifoWithBackfillIsNotTiresiasFifo()
    {
        // our default FIFO skips ahead; Tiresias's "fifo" does not (its skip-ahead variant is "fjf"), so on a
        // contended cluster the two must differ: this guards the test against a no-op backfill flag
        const int n = matches(QStringLiteral("fifo:n4g4:x1"), "fifo+firstfit", true, 4, 1, false);
        QVERIFY2(n >= 0 && n < 60, qPrintable(QString::number(n)));
    }

    void lasMatchesWithoutDemotion_data()
    {
        QTest::addColumn<int>("nodes");
        for (int nodes : {32, 4, 2})
            QTest::addRow("n%dg4", nodes) << nodes;
    }
    void lasMatchesWithoutDemotion()
    {
        QFETCH(int, nodes);
        const QString scheme = QStringLiteral("dlas-gpu:n%1g4:x1").arg(nodes);
        QCOMPARE(matches(scheme, "las+firstfit", true, nodes, 1, true), 60);
    }

    void lasKnownDifferenceWithDemotion_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("expected");
        // jobs (of 60) ending within 1 s of Tiresias; the rest differ because of Tiresias's demotion wake-up
        // (see the top of this file)
        QTest::addRow("n32g4") << 32 << 58;
        QTest::addRow("n8g4") << 8 << 16;
        QTest::addRow("n4g4") << 4 << 10;
    }
    void lasKnownDifferenceWithDemotion()
    {
        QFETCH(int, nodes);
        QFETCH(int, expected);
        const QString scheme = QStringLiteral("dlas-gpu:n%1g4:x10").arg(nodes);
        QCOMPARE(matches(scheme, "las+firstfit", true, nodes, 10, false), expected);
    }
};

QTEST_GUILESS_MAIN(TstTiresiasRef)
#include "tst_tiresias_ref.moc"
