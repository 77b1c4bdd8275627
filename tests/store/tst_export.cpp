// Exporters: per-job CSV, summary JSON/CSV, series CSV and the Chrome trace (one event per job segment,
// one track per GPU, no overlapping events on a track), each carrying the seed and the policy.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <map>
#include <sstream>

#include "io/export.h"
#include "model/clusterspec.h"
#include "model/tracegen.h"
#include "run/runner.h"
#include "storetestutil.h"

using namespace ss;

namespace {

std::vector<std::string> lines(const std::string& s)
{
    std::vector<std::string> out;
    std::istringstream is(s);
    std::string l;
    while (std::getline(is, l))
        out.push_back(l);
    return out;
}

// RFC 4180 cells of one line (quoted cells may hold commas, "" is a quote).
QStringList cells(const std::string& line)
{
    QStringList out;
    QString cur;
    bool quoted = false;
    const QString l = QString::fromStdString(line);
    for (int i = 0; i < l.size(); ++i) {
        const QChar c = l[i];
        if (quoted) {
            if (c == '"' && i + 1 < l.size() && l[i + 1] == '"')
                cur += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                cur += c;
        } else if (c == '"')
            quoted = true;
        else if (c == ',')
            out << cur, cur.clear();
        else
            cur += c;
    }
    out << cur;
    return out;
}

// Small cluster: 2 machines x 2 GPUs.
ClusterSpec tinyCluster()
{
    ClusterSpec c;
    c.name = "tiny";
    c.types.push_back({"V100", 3.0, 16, 1.0});
    c.switches.push_back({"sw0", 100});
    c.machines.push_back({"m0", 0, 2, 32, 256, 0, 25});
    c.machines.push_back({"m1", 0, 2, 32, 256, 0, 25});
    c.finalize();
    return c;
}

struct XEvent {
    int pid, tid;
    double ts, dur;
    int index;
    QString end;
};

std::vector<XEvent> parseChrome(const std::string& json, QJsonObject* other = nullptr,
                                std::map<std::pair<int, int>, QString>* threadNames = nullptr)
{
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &err);
    if (err.error != QJsonParseError::NoError)
        qFatal("chrome trace does not parse: %s", qPrintable(err.errorString()));
    if (other)
        *other = doc.object().value("otherData").toObject();
    std::vector<XEvent> res;
    for (const QJsonValue& v : doc.object().value("traceEvents").toArray()) {
        const QJsonObject e = v.toObject();
        if (e.value("ph").toString() == "M") {
            if (threadNames && e.value("name").toString() == "thread_name")
                (*threadNames)[{e.value("pid").toInt(), e.value("tid").toInt()}] =
                    e.value("args").toObject().value("name").toString();
            continue;
        }
        if (e.value("ph").toString() != "X")
            qFatal("unexpected event phase");
        const QJsonObject args = e.value("args").toObject();
        res.push_back({e.value("pid").toInt(), e.value("tid").toInt(), e.value("ts").toDouble(),
                       e.value("dur").toDouble(), args.value("index").toInt(), args.value("end").toString()});
    }
    return res;
}

// Events on one (pid, tid) track must not overlap, or Perfetto nests them as if one job called another.
QString firstOverlap(std::vector<XEvent> ev)
{
    std::sort(ev.begin(), ev.end(), [](const XEvent& a, const XEvent& b) {
        return std::tie(a.pid, a.tid, a.ts) < std::tie(b.pid, b.tid, b.ts);
    });
    for (size_t i = 1; i < ev.size(); ++i)
        if (ev[i].pid == ev[i - 1].pid && ev[i].tid == ev[i - 1].tid && ev[i].ts < ev[i - 1].ts + ev[i - 1].dur)
            return QString("jobs %1 and %2 overlap on pid %3 tid %4")
                .arg(ev[i - 1].index)
                .arg(ev[i].index)
                .arg(ev[i].pid)
                .arg(ev[i].tid);
    return {};
}

// A run whose decision log has a preemption, a restart elsewhere, and two jobs sharing one GPU.
RunOutput handmadeRun()
{
    RunOutput o;
    o.policy = "handmade";
    o.seed = 99;
    o.perf = "ideal";
    o.clusterName = "tiny";
    for (int j = 0; j < 4; ++j) {
        JobRecord r;
        r.index = j;
        r.id = 500 + j;
        r.start = j < 2 ? 0 : 10;
        r.end = j == 0 ? 20 : j == 1 ? 50 : 30;
        r.status = JobStatus::Done;
        o.jobs.push_back(r);
    }
    auto log = std::make_shared<DecisionLog>();
    log->machineCount = 2;
    log->gpuCount = 4;
    auto rec = [&](double t) -> DecisionRecord& {
        log->records.emplace_back();
        log->records.back().time = t;
        log->records.back().index = uint32_t(log->records.size() - 1);
        return log->records.back();
    };
    auto place = [](DecisionRecord& r, int job, std::vector<GpuSlot> slots) {
        PlacementRecord p;
        p.job = job;
        p.slots = std::move(slots);
        r.placements.push_back(p);
    };
    DecisionRecord& r0 = rec(0);
    place(r0, 0, {{0, 1000}});
    place(r0, 1, {{1, 1000}, {2, 1000}});
    place(r0, 3, {}); // a failed attempt is not a segment
    DecisionRecord& r1 = rec(10);
    r1.preempted = {1};
    place(r1, 2, {{1, 500}});
    place(r1, 3, {{1, 500}});
    DecisionRecord& r2 = rec(20);
    r2.finished = {0};
    place(r2, 1, {{3, 1000}, {0, 1000}});
    DecisionRecord& r3 = rec(30);
    r3.finished = {2, 3};
    o.log = log; // job 1 finishes at 50 with no later record: its end comes from the job record
    return o;
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void jobsCsv()
    {
        const RunOutput run = sstest::fakeRun(100, 5, 0, 7);
        std::ostringstream os;
        writeJobsCsv(run, os);
        const auto ls = lines(os.str());
        QCOMPARE(ls.size(), size_t(102));
        QVERIFY2(ls[0].rfind("# SchedStudio jobs; policy=fifo+firstfit; seed=7;", 0) == 0, ls[0].c_str());
        const QStringList header = cells(ls[1]);
        QCOMPARE(header.first(), QString("index"));
        QCOMPARE(header.size(), 16);
        for (size_t i = 2; i < ls.size(); ++i)
            QCOMPARE(cells(ls[i]).size(), header.size());
        const QStringList row = cells(ls[2 + 37]);
        const JobRecord& r = run.jobs[37];
        QCOMPARE(row[0].toInt(), 37);
        QCOMPARE(row[1].toLongLong(), r.id);
        QCOMPARE(row[header.indexOf("submit")].toDouble(), r.submit); // shortest round-trip text: exact
        QCOMPARE(row[header.indexOf("end")].toDouble(), r.end);
        QCOMPARE(row[header.indexOf("gpu_seconds")].toDouble(), r.gpuSeconds);
        QCOMPARE(row[header.indexOf("preemptions")].toInt(), r.preemptions);
        QCOMPARE(row[header.indexOf("status")], QString("done"));
        QCOMPARE(cells(ls[2])[header.indexOf("status")], QString("rejected")); // job 0 never started
    }

    void summaryJsonAndCsv()
    {
        const RunOutput a = sstest::fakeRun(10, 2, 0, 3, "fifo+firstfit");
        const RunOutput b = sstest::fakeRun(10, 2, 0, 11, "las+bestfit");
        std::ostringstream js;
        writeSummaryJson(a, js);
        QJsonParseError err;
        const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(js.str()), &err).object();
        QCOMPARE(err.error, QJsonParseError::NoError);
        QCOMPARE(o.value("seed").toInteger(), qint64(3));
        QCOMPARE(o.value("policy").toString(), QString("fifo+firstfit"));
        QCOMPARE(o.value("trace_fingerprint").toString(), QString::fromStdString(a.traceFingerprint));
        const QJsonObject s = o.value("summary").toObject();
        QCOMPARE(s.value("mean_jct_min").toDouble(), a.summary.meanJctMin);
        QCOMPARE(s.value("total_fee_usd").toDouble(), a.summary.totalFeeUsd);
        QCOMPARE(s.value("events").toDouble(), double(a.summary.events));
        QVERIFY(s.value("p99_jct_min").isNull()); // NaN is written as null, keeping the JSON valid

        std::ostringstream cs;
        writeSummaryCsv({&a, &b}, cs);
        const auto ls = lines(cs.str());
        QCOMPARE(ls.size(), size_t(4));
        QVERIFY(ls[0].rfind("# SchedStudio summary; 2 runs", 0) == 0);
        const QStringList header = cells(ls[1]);
        QCOMPARE(cells(ls[2]).size(), header.size());
        QCOMPARE(cells(ls[3])[header.indexOf("policy")], QString("las+bestfit"));
        QCOMPARE(cells(ls[3])[header.indexOf("seed")], QString("11"));
        QCOMPARE(cells(ls[3])[header.indexOf("perf")], QString::fromStdString(b.perf)); // quoted: it has commas
        QCOMPARE(cells(ls[2])[header.indexOf("mean_jct_min")].toDouble(), a.summary.meanJctMin);
        QCOMPARE(cells(ls[2])[header.indexOf("p99_jct_min")], QString()); // NaN: empty cell
    }

    void seriesCsv()
    {
        const RunOutput run = sstest::fakeRun(3, 50, 0, 5);
        std::ostringstream os;
        writeSeriesCsv(run, os);
        const auto ls = lines(os.str());
        QCOMPARE(ls.size(), size_t(52));
        QVERIFY(ls[0].find("seed=5") != std::string::npos);
        QCOMPARE(ls[1], std::string("t,utilization,fragmentation,queue,running"));
        const QStringList row = cells(ls[2 + 10]);
        QCOMPARE(row[0].toDouble(), run.series[10].t);
        QCOMPARE(row[1].toFloat(), run.series[10].utilization);
        QCOMPARE(row[3].toInt(), run.series[10].queue);
    }

    void segmentsFromDecisionLog()
    {
        const RunOutput run = handmadeRun();
        const auto segs = scheduleSegments(run);
        QCOMPARE(segs.size(), size_t(7));
        int preempted = 0;
        for (const JobSegment& s : segs) {
            if (s.job == 1 && s.start == 0) {
                QCOMPARE(s.end, 10.0);
                QVERIFY(s.how == JobSegment::End::Preempted);
                ++preempted;
            }
            if (s.job == 1 && s.start == 20) {
                QCOMPARE(s.end, 50.0); // from the job record
                QVERIFY(s.how == JobSegment::End::Finished);
            }
            if (s.job == 0)
                QCOMPARE(s.end, 20.0);
            if (s.job == 2 || s.job == 3) {
                QCOMPARE(s.gpu, 1);
                QCOMPARE(s.milli, 500);
                QCOMPARE(s.end, 30.0);
            }
        }
        QCOMPARE(preempted, 2);
    }

    void chromeTraceFromLog()
    {
        const RunOutput run = handmadeRun();
        const ClusterSpec cluster = tinyCluster();
        std::ostringstream os;
        writeChromeTrace(run, &cluster, os);
        QJsonObject other;
        std::map<std::pair<int, int>, QString> names;
        const auto ev = parseChrome(os.str(), &other, &names);
        QCOMPARE(ev.size(), size_t(7)); // one event per job segment
        QCOMPARE(other.value("seed").toString(), QString("99"));
        QCOMPARE(other.value("policy").toString(), QString("handmade"));
        const QString overlap = firstOverlap(ev);
        QVERIFY2(overlap.isEmpty(), qPrintable(overlap));
        std::map<int, std::vector<std::pair<int, int>>> tracksOf;
        for (const XEvent& e : ev) {
            tracksOf[e.index].push_back({e.pid, e.tid});
            QVERIFY2(names.count({e.pid, e.tid}), "every track is named");
        }
        // Job 0 on GPU 0 = machine 0, GPU 0, from 0 s to 20 s (microseconds in the trace).
        QCOMPARE(tracksOf[0], (std::vector<std::pair<int, int>>{{0, 0}}));
        for (const XEvent& e : ev)
            if (e.index == 0) {
                QCOMPARE(e.ts, 0.0);
                QCOMPARE(e.dur, 20e6);
                QCOMPARE(e.end, QString("finished"));
            }
        // Jobs 2 and 3 share GPU 1: two lanes of machine 0's GPU 1.
        QCOMPARE(tracksOf[2].size(), size_t(1));
        QCOMPARE(tracksOf[3].size(), size_t(1));
        QCOMPARE(tracksOf[2][0].first, 0);
        QCOMPARE(tracksOf[3][0].first, 0);
        QVERIFY(tracksOf[2][0].second != tracksOf[3][0].second);
        QCOMPARE(std::min(tracksOf[2][0].second, tracksOf[3][0].second), 1);
        QVERIFY(names[tracksOf[3][0]].startsWith("GPU 1"));
        // Job 1: GPUs 1, 2 (machine 0 GPU 1, machine 1 GPU 0), then GPUs 3 and 0.
        auto t1 = tracksOf[1];
        std::sort(t1.begin(), t1.end());
        QCOMPARE(t1, (std::vector<std::pair<int, int>>{{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
        // Without the cluster every GPU is a thread of one process, still one event per segment.
        std::ostringstream flat;
        writeChromeTrace(run, nullptr, flat);
        const auto fev = parseChrome(flat.str());
        QCOMPARE(fev.size(), size_t(7));
        QVERIFY(firstOverlap(fev).isEmpty());
    }

    void chromeTraceFromJobRecords()
    {
        const RunOutput run = sstest::fakeRun(300, 0, 0, 8);
        std::ostringstream os;
        writeChromeTrace(run, nullptr, os);
        QJsonObject other;
        const auto ev = parseChrome(os.str(), &other);
        size_t started = 0;
        for (const JobRecord& r : run.jobs)
            started += r.start >= 0;
        QCOMPARE(ev.size(), started);
        QCOMPARE(other.value("segments_from").toString(), QString("job records"));
        QVERIFY(firstOverlap(ev).isEmpty());
    }

    void chromeTraceOfRealRun()
    {
        ClusterSpec cluster = makeClusterPreset("das-case");
        TraceGenConfig g;
        g.jobs = 300;
        g.seed = 5;
        g.clusterGpus = cluster.totalGpus();
        g.load = 1.5; // queueing, so placements interleave
        const Trace trace = generateTrace(g);
        RunSpec spec;
        spec.policy = "fifo+firstfit";
        spec.config.seed = 3;
        spec.keepDecisionLog = true;
        const RunOutput out = runSimulation(cluster, trace, spec);
        QVERIFY(out.log);
        size_t expected = 0, preemptions = 0;
        for (const DecisionRecord& r : out.log->records) {
            for (const PlacementRecord& p : r.placements)
                expected += p.slots.size();
            preemptions += r.preempted.size();
        }
        std::ostringstream os;
        writeChromeTrace(out, &cluster, os);
        const auto ev = parseChrome(os.str());
        QCOMPARE(ev.size(), expected);
        const QString overlap = firstOverlap(ev);
        QVERIFY2(overlap.isEmpty(), qPrintable(overlap));
        // Whole-GPU jobs never need a second lane: every tid is a real GPU of its machine.
        for (const XEvent& e : ev) {
            QVERIFY(e.pid >= 0 && e.pid < cluster.machineCount());
            QVERIFY(e.tid >= 0 && e.tid < cluster.machines[size_t(e.pid)].gpus);
        }
        // Every job that ran appears, ending at its recorded end when it finished without preemption.
        std::map<int, double> lastEnd;
        for (const XEvent& e : ev)
            lastEnd[e.index] = std::max(lastEnd[e.index], (e.ts + e.dur) / 1e6);
        for (const JobRecord& r : out.jobs) {
            if (r.start < 0)
                continue;
            QVERIFY2(lastEnd.count(r.index), qPrintable(QString("job %1 missing").arg(r.index)));
            if (r.end >= 0)
                QVERIFY(std::abs(lastEnd[r.index] - r.end) <= 1e-6 * std::max(1.0, r.end));
        }
        Q_UNUSED(preemptions);
    }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
