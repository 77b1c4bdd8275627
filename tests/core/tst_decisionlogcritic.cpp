// Decision log version 6 (issue 26): a learned critic's values (DecisionRecord::criticKind/criticValue,
// ScoredJob::critic, PlacementRecord::critic) round-trip exactly through the file and the store blob, a version 5
// stream (without them) still reads, and SchedContext::recordCritic lands on the right placement, dense or top-K.
// Version 7 (issue 20): queues written as runs copied from the previous record's queue round-trip exactly, stay
// small when a queue changes little, and a run that points outside the previous queue is corruption; the sparse
// affinity form keeps the same machines as a sort. Version 8: a score that moves with the clock (FIFO's minutes
// waited, EDF's hours past the deadline) is stored as its clock, so such queues copy too, and read back bit for bit.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>

#include "model/clusterspec.h"
#include "model/tracegen.h"
#include "run/runner.h"
#include "sim/decisionlog.h"
#include "sim/engine.h"

using namespace ss;

namespace {

/// The log read back from its store blob and from a --log-out file (written record by record, then removed).
std::vector<DecisionLog> throughBlobAndFile(const DecisionLog& log, const char* fileName)
{
    const std::string blob = encodeDecisionLogBlob(log);
    const std::string path = (std::filesystem::temp_directory_path() / fileName).string();
    {
        DecisionLogWriter w(path, log.machineCount, log.gpuCount);
        for (const DecisionRecord& r : log.records)
            w.write(r);
        w.close();
    }
    std::vector<DecisionLog> out {decodeDecisionLogBlob(blob.data(), blob.size()), readDecisionLog(path)};
    std::filesystem::remove(path);
    return out;
}

DecisionRecord criticRecord()
{
    DecisionRecord r;
    r.index = 3;
    r.time = 120.5;
    r.queueLength = 3;
    ScoredJob a{4, 0.9f, 0.2f, 0.45f};
    a.critic = 1.25f;
    ScoredJob b{7, 0.1f, 0.3f, 0.55f}; // could not start: no Q
    ScoredJob c{9, -0.4f};
    c.critic = -0.75f;
    r.queue = {a, b, c};
    PlacementRecord p;
    p.job = 4;
    p.slots = {GpuSlot{0, 1000}};
    p.affinity = {0.5f, 0.1f, -0.2f};
    p.rwgpMean = {0.f, 0.1f, -0.1f};
    p.rwgpVar = {0.2f, 0.2f, 0.3f};
    p.critic = {1.25f, 0.5f, kNoScore};
    p.reason = "das";
    r.placements = {p};
    r.criticKind = 'q';
    r.criticValue = 1.25f;
    return r;
}

void checkSame(const DecisionRecord& x, const DecisionRecord& y)
{
    QCOMPARE(x.criticKind, y.criticKind);
    QCOMPARE(x.criticValue, y.criticValue);
    QCOMPARE(x.queue.size(), y.queue.size());
    for (size_t i = 0; i < x.queue.size(); ++i) {
        QCOMPARE(std::isnan(x.queue[i].critic), std::isnan(y.queue[i].critic));
        if (!std::isnan(x.queue[i].critic))
            QCOMPARE(x.queue[i].critic, y.queue[i].critic);
        QCOMPARE(x.queue[i].gate, y.queue[i].gate);
    }
    QCOMPARE(x.placements.size(), y.placements.size());
    const auto& a = x.placements[0].critic;
    const auto& b = y.placements[0].critic;
    QCOMPARE(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
        QVERIFY(std::isnan(a[i]) ? std::isnan(b[i]) : a[i] == b[i]);
    QCOMPARE(x.placements[0].rwgpVar, y.placements[0].rwgpVar);
}

// A policy that records a critic: Q per machine for the job it places, as DAS does.
class CriticPolicy : public Scheduler {
public:
    std::string name() const override { return "critic-probe"; }
    void schedule(SchedContext& ctx) override
    {
        std::vector<int> q;
        ctx.forEachPending([&](int j) {
            q.push_back(j);
            return true;
        });
        if (q.empty())
            return;
        const int M = ctx.cluster().machineCount();
        std::vector<float> aff(static_cast<size_t>(M)), qm(static_cast<size_t>(M));
        for (int m = 0; m < M; ++m) {
            aff[size_t(m)] = float(M - m);
            qm[size_t(m)] = 10.f + float(m);
        }
        const std::vector<GpuSlot> slots{GpuSlot{0, 1000}};
        if (ctx.state().gpuOwner(0) != -1)
            return;
        ctx.recordPlacement(q[0], slots, aff, "probe");
        ctx.recordCritic('q', 10.f, q[0], qm);
        ctx.start(q[0], slots, "probe");
    }
};

} // namespace

class TestDecisionLogCritic : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTripFileAndBlob()
    {
        DecisionLog log;
        log.machineCount = 3;
        log.gpuCount = 12;
        log.records = {criticRecord(), DecisionRecord{}};
        log.records[1].index = 4;
        log.records[1].criticKind = 'v';
        log.records[1].criticValue = -2.5f;
        const std::string blob = encodeDecisionLogBlob(log);
        const DecisionLog b = decodeDecisionLogBlob(blob.data(), blob.size());
        checkSame(log.records[0], b.records[0]);
        QCOMPARE(b.records[1].criticKind, 'v');
        QCOMPARE(b.records[1].criticValue, -2.5f);
        const std::string path = (std::filesystem::temp_directory_path() / "ss-tst-critic.sslog").string();
        {
            DecisionLogWriter w(path, log.machineCount, log.gpuCount);
            for (const DecisionRecord& r : log.records)
                w.write(r);
            w.close();
        }
        const DecisionLog f = readDecisionLog(path);
        checkSame(log.records[0], f.records[0]);
        QCOMPARE(f.records[1].criticKind, 'v');
        std::filesystem::remove(path);
    }

    void version5StillReads()
    {
        // A record without a critic costs no byte more in version 6 (its allocation header is 0 either way), and an
        // empty queue is the same bytes in version 7 (its length, 0, and no run) as before: the same bytes
        // relabelled as version 6 and 5 read the same.
        DecisionLog log;
        log.machineCount = 2;
        log.gpuCount = 8;
        DecisionRecord r;
        r.index = 1;
        r.time = 5;
        r.queueLength = 4; // (a log that keeps no queued job still says how many wait)
        r.preempted = {3};
        log.records = {r};
        const std::string blob = encodeDecisionLogBlob(log);
        QCOMPARE(int(blob[4]), 8); // "SSLB", then the version varint
        for (const char version : {char(6), char(5)}) {
            std::string older = blob;
            older[4] = version;
            const DecisionLog old = decodeDecisionLogBlob(older.data(), older.size());
            QCOMPARE(old.records.size(), size_t(1));
            QCOMPARE(old.records[0].criticKind, char(0));
            QVERIFY(std::isnan(old.records[0].criticValue));
            QCOMPARE(old.records[0].queueLength, 4);
            QCOMPARE(old.records[0].preempted, std::vector<int> {3});
            QCOMPARE(old.records[0].allocation->types.size(), size_t(0));
        }
        // With a critic, the flag and the critic section follow: [header 1]['v'][f32][placements 0]. Read as
        // version 5 that header is one allocation type, whose name length ('v' = 118) runs past the data.
        log.records[0].criticKind = 'v';
        log.records[0].criticValue = -2.5f;
        std::string withCritic = encodeDecisionLogBlob(log);
        QCOMPARE(withCritic.size(), blob.size() + 6);
        QCOMPARE(decodeDecisionLogBlob(withCritic.data(), withCritic.size()).records[0].criticValue, -2.5f);
        std::string relabelled = withCritic;
        relabelled[4] = 5;
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, decodeDecisionLogBlob(relabelled.data(), relabelled.size()));
        // A bad critic kind is corruption.
        std::string bad = withCritic;
        QCOMPARE(bad[bad.size() - 6], 'v');
        bad[bad.size() - 6] = 'x';
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, decodeDecisionLogBlob(bad.data(), bad.size()));
    }

    void queueRunsRoundTrip()
    {
        // Records whose queues change as queues do (jobs leave from the front and the middle, arrive at the back
        // and in between, a priority or a flag changes, two jobs swap, a queue empties and fills again), through
        // the file writer and the blob: every queue reads back bit for bit.
        std::mt19937 rng(7);
        DecisionLog log;
        log.machineCount = 4;
        log.gpuCount = 16;
        std::vector<ScoredJob> q;
        int nextJob = 0;
        for (int k = 0; k < 400; ++k) {
            const int op = int(rng() % 9);
            if (op == 0 && !q.empty())
                q.erase(q.begin());
            else if (op == 1 && q.size() > 2)
                q.erase(q.begin() + long(rng() % q.size()));
            else if (op == 2 && !q.empty())
                q[rng() % q.size()].priority += 0.25f;
            else if (op == 3 && q.size() > 1)
                std::swap(q[rng() % q.size()], q[rng() % q.size()]);
            else if (op == 4 && !q.empty())
                q[rng() % q.size()].gate = (rng() % 2) ? 0.5f : kNoScore;
            else if (op == 5 && k % 50 == 0)
                q.clear();
            else if (op == 6 && !q.empty())
                q.insert(q.begin() + long(rng() % q.size()), ScoredJob {nextJob++, float(rng() % 100) / 7.0f});
            for (int a = int(rng() % 3); a > 0; --a)
                q.push_back(ScoredJob {nextJob++, float(rng() % 100) / 7.0f});
            DecisionRecord r;
            r.index = uint32_t(k);
            r.time = k;
            r.queue = q;
            r.queueLength = int(q.size()) + 5;
            log.records.push_back(r);
        }
        QCOMPARE(int(encodeDecisionLogBlob(log)[4]), 8);
        for (const DecisionLog& back : throughBlobAndFile(log, "tst_queueruns.sslog")) {
            QCOMPARE(back.records.size(), log.records.size());
            for (size_t k = 0; k < log.records.size(); ++k) {
                const std::vector<ScoredJob>& a = log.records[k].queue;
                const std::vector<ScoredJob>& b = back.records[k].queue;
                QCOMPARE(b.size(), a.size());
                QCOMPARE(back.records[k].queueLength, log.records[k].queueLength);
                for (size_t i = 0; i < a.size(); ++i) {
                    QCOMPARE(b[i].job, a[i].job);
                    QVERIFY(std::memcmp(&a[i].priority, &b[i].priority, sizeof(float)) == 0);
                    QVERIFY(std::memcmp(&a[i].gate, &b[i].gate, sizeof(float)) == 0);
                    QVERIFY(std::memcmp(&a[i].priorityStd, &b[i].priorityStd, sizeof(float)) == 0);
                }
            }
        }
    }

    void clockedQueuesRoundTripAndCopy()
    {
        // FIFO-like items (minutes waited since a job joined), EDF-like ones (hours past a deadline, negative),
        // plain scores among them, and items whose clock does not give their priority (it must not be trusted),
        // over records whose times move on: through the file and the blob every priority reads back bit for bit,
        // and a clock is kept exactly where it holds.
        std::mt19937 rng(11);
        DecisionLog log;
        log.machineCount = 2;
        log.gpuCount = 8;
        std::vector<ScoredJob> q;
        int nextJob = 0;
        double t = 0;
        auto fresh = [&](double now) {
            ScoredJob s {nextJob++, 0.0f};
            const int kind = int(rng() % 4);
            if (kind == 0) { // plain
                s.priority = float(rng() % 1000) / 9.0f;
            } else {
                s.clockPer = kind == 1 ? 60.0f : 3600.0f;
                s.clockFrom = kind == 1 ? now - double(rng() % 5000) / 7.0 : now + double(rng() % 90000) / 3.0;
            }
            return s;
        };
        long wrong = 0;
        for (int k = 0; k < 500; ++k) {
            t += double(rng() % 400) / 3.0;
            const int op = int(rng() % 6);
            if (op == 0 && !q.empty())
                q.erase(q.begin());
            else if (op == 1 && q.size() > 2)
                q.erase(q.begin() + long(rng() % q.size()));
            else if (op == 2 && q.size() > 1)
                std::swap(q[rng() % q.size()], q[rng() % q.size()]);
            for (int a = int(rng() % 3); a > 0; --a)
                q.push_back(fresh(t));
            DecisionRecord r;
            r.index = uint32_t(k);
            r.time = t;
            r.queue = q;
            for (ScoredJob& s : r.queue)
                if (!std::isnan(s.clockFrom))
                    s.priority = float((t - s.clockFrom) / double(s.clockPer));
            if (!r.queue.empty() && rng() % 5 == 0) { // a clock that does not give the priority
                r.queue[rng() % r.queue.size()].priority += 0.5f;
                ++wrong;
            }
            r.queueLength = int(r.queue.size());
            log.records.push_back(r);
        }
        QVERIFY(wrong > 20);
        long clocked = 0;
        for (const DecisionLog& back : throughBlobAndFile(log, "tst_clocked.sslog")) {
            QCOMPARE(back.records.size(), log.records.size());
            for (size_t k = 0; k < log.records.size(); ++k) {
                const std::vector<ScoredJob>& a = log.records[k].queue;
                const std::vector<ScoredJob>& b = back.records[k].queue;
                QCOMPARE(b.size(), a.size());
                for (size_t i = 0; i < a.size(); ++i) {
                    QCOMPARE(b[i].job, a[i].job);
                    QVERIFY2(std::memcmp(&a[i].priority, &b[i].priority, sizeof(float)) == 0,
                             qPrintable(QStringLiteral("record %1 item %2: %3 read as %4").arg(k).arg(i).arg(a[i].priority).arg(b[i].priority)));
                    const bool holds = !std::isnan(a[i].clockFrom)
                        && float((log.records[k].time - a[i].clockFrom) / double(a[i].clockPer)) == a[i].priority;
                    QCOMPARE(!std::isnan(b[i].clockFrom), holds);
                    if (holds) {
                        QCOMPARE(b[i].clockFrom, a[i].clockFrom);
                        QCOMPARE(b[i].clockPer, a[i].clockPer);
                        ++clocked;
                    }
                }
            }
        }
        QVERIFY(clocked > 1000);

        // A FIFO queue of 1,000 jobs, one leaving and one joining per decision, the clock moving on: each record
        // copies the queue (version 7 wrote every item again, its minutes having changed: 5 MB for these records).
        DecisionLog fifo;
        std::vector<ScoredJob> fq;
        for (int j = 0; j < 1000; ++j) {
            ScoredJob s {j, 0.0f};
            s.clockFrom = 3.0 * j;
            s.clockPer = 60.0f;
            fq.push_back(s);
        }
        for (int k = 0; k < 1000; ++k) {
            DecisionRecord r;
            r.index = uint32_t(k);
            r.time = 3000.0 + 3.0 * k + 0.25;
            r.queue = fq;
            for (ScoredJob& s : r.queue)
                s.priority = float((r.time - s.clockFrom) / 60.0);
            r.queueLength = int(fq.size());
            fifo.records.push_back(r);
            fq.erase(fq.begin());
            ScoredJob s {1000 + k, 0.0f};
            s.clockFrom = 3.0 * (1000 + k);
            s.clockPer = 60.0f;
            fq.push_back(s);
        }
        const std::string fb = encodeDecisionLogBlob(fifo);
        QVERIFY2(fb.size() < 60000, std::to_string(fb.size()).c_str());
        const DecisionLog fback = decodeDecisionLogBlob(fb.data(), fb.size());
        QCOMPARE(fback.records[999].queue.back().priority, fifo.records[999].queue.back().priority);
        QCOMPARE(fback.records[500].queue[10].priority, fifo.records[500].queue[10].priority);
        // Relabelled as version 7, a clocked item is corruption, not a score read from the clock's bytes.
        std::string older = fb;
        older[4] = 7;
        try {
            decodeDecisionLogBlob(older.data(), older.size());
            QFAIL("a clocked item was read as version 7");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("clocked") != std::string::npos, e.what());
        }
    }

    void fifoAndEdfLogsCopyTheirQueues()
    {
        // FIFO and EDF runs on a loaded alibaba-scale: their queues read back bit for bit through the blob, and
        // storing the clocks makes the log several times smaller than the same records with plain scores
        const ClusterSpec cluster = makeClusterPreset("alibaba-scale");
        TraceGenConfig g;
        g.jobs = 8000;
        g.seed = 4;
        g.load = 3;
        g.deadlineShare = 0.7;
        g.clusterGpus = cluster.totalGpus();
        const Trace t = generateTrace(g);
        for (const char* policy : {"fifo+firstfit", "edf+consolidate"}) {
            struct Keep : SimObserver {
                DecisionLog log;
                void onDecision(const DecisionRecord& r) override { log.records.push_back(r); }
            } keep;
            RunSpec spec;
            spec.policy = policy;
            spec.config.recordDecisions = true;
            runSimulation(cluster, t, spec, {}, nullptr, {&keep});
            keep.log.machineCount = cluster.machineCount();
            keep.log.gpuCount = cluster.totalGpus();
            long items = 0;
            for (const DecisionRecord& r : keep.log.records)
                items += long(r.queue.size());
            QVERIFY2(items > 100000, qPrintable(QStringLiteral("%1: %2 queued items").arg(policy).arg(items)));
            const std::string blob = encodeDecisionLogBlob(keep.log);
            const DecisionLog back = decodeDecisionLogBlob(blob.data(), blob.size());
            QCOMPARE(back.records.size(), keep.log.records.size());
            for (size_t k = 0; k < back.records.size(); ++k) {
                const std::vector<ScoredJob>& a = keep.log.records[k].queue;
                const std::vector<ScoredJob>& b = back.records[k].queue;
                QCOMPARE(b.size(), a.size());
                for (size_t i = 0; i < a.size(); ++i)
                    QVERIFY(b[i].job == a[i].job && std::memcmp(&a[i].priority, &b[i].priority, sizeof(float)) == 0);
            }
            DecisionLog plain = keep.log;
            for (DecisionRecord& r : plain.records)
                for (ScoredJob& q : r.queue)
                    q.clockFrom = std::numeric_limits<double>::quiet_NaN();
            const size_t plainSize = encodeDecisionLogBlob(plain).size();
            // (EDF's jobs without a deadline score below the lowest of the others, a plain score that moves with
            // it: only its jobs with deadlines copy)
            const double factor = std::string(policy).rfind("fifo", 0) == 0 ? 3.0 : 1.2;
            QVERIFY2(double(plainSize) > factor * double(blob.size()),
                     qPrintable(QStringLiteral("%1: %2 bytes, %3 with plain scores").arg(policy).arg(blob.size()).arg(plainSize)));
            qInfo("%s: %ld queued items, log blob %zu bytes, %zu with plain scores", policy, items, blob.size(), plainSize);
        }
    }

    void queueRunsAreSmallAndChecked()
    {
        // A queue of 1,000 jobs of which one starts and one arrives per decision: each record is a few bytes
        // (the version 6 layout took at least 6 per item, 6 MB for these 1,000 records)
        DecisionLog log;
        log.machineCount = 1;
        log.gpuCount = 1;
        std::vector<ScoredJob> q;
        for (int j = 0; j < 1000; ++j)
            q.push_back(ScoredJob {j, -float(j)});
        for (int k = 0; k < 1000; ++k) {
            DecisionRecord r;
            r.index = uint32_t(k);
            r.queue = q;
            r.queueLength = int(q.size());
            log.records.push_back(r);
            q.erase(q.begin());
            q.push_back(ScoredJob {1000 + k, -float(1000 + k)});
        }
        const std::string blob = encodeDecisionLogBlob(log);
        QVERIFY2(blob.size() < 40000, std::to_string(blob.size()).c_str());
        const DecisionLog back = decodeDecisionLogBlob(blob.data(), blob.size());
        QCOMPARE(back.records[999].queue.front().job, 999);
        QCOMPARE(back.records[999].queue.back().job, 1998);
        // Corruption: the first record's queue copied from a previous queue that does not exist.
        DecisionLog two;
        two.records = {log.records[0], log.records[1]};
        std::string b2 = encodeDecisionLogBlob(two);
        const DecisionLog ok = decodeDecisionLogBlob(b2.data(), b2.size());
        QCOMPARE(ok.records[1].queue.size(), size_t(1000));
        DecisionLog second;
        second.records = {log.records[1]};
        // the second record alone, as the encoder writes it after the first: drop the first record's bytes
        DecisionLog first;
        first.records = {log.records[0]};
        const std::string b1 = encodeDecisionLogBlob(first);
        const std::string header = b1.substr(0, 7); // "SSLB", version, machines, GPUs (one byte each here)
        std::string orphan = header + char(1) + b2.substr(b1.size());
        try {
            decodeDecisionLogBlob(orphan.data(), orphan.size());
            QFAIL("a queue run outside the previous queue was read");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("queue") != std::string::npos, e.what());
        }
    }

    void topAffinityMatchesASort()
    {
        std::mt19937 rng(3);
        for (int trial = 0; trial < 300; ++trial) {
            std::vector<float> v(size_t(1 + rng() % 300));
            for (float& x : v)
                x = (rng() % 3 == 0) ? -1.0f : float(rng() % 20) / 4.0f; // many ties
            const size_t k = rng() % 40;
            std::vector<uint32_t> idx(v.size());
            for (size_t i = 0; i < idx.size(); ++i)
                idx[i] = uint32_t(i);
            std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) { return v[a] > v[b]; });
            idx.resize(std::min(k, idx.size()));
            std::sort(idx.begin(), idx.end());
            QCOMPARE(topAffinity(v, k), idx);
        }
        // rows as long as a big cluster's (the scan passes blocks of 16 machines with one test when none is above
        // the least kept), and a NaN anywhere, also in such a block: then the partial sort it has always been
        for (int trial = 0; trial < 400; ++trial) {
            std::vector<float> v(size_t(1 + rng() % 2000));
            for (float& x : v)
                x = (rng() % 3 == 0) ? -1.0f : float(rng() % 20) / 4.0f;
            const size_t k = std::min(size_t(rng() % 65), v.size());
            const bool nan = trial % 2 == 1;
            if (nan)
                v[trial % 4 == 1 ? v.size() - 1 : rng() % v.size()] = std::numeric_limits<float>::quiet_NaN();
            std::vector<uint32_t> idx(v.size());
            for (size_t i = 0; i < idx.size(); ++i)
                idx[i] = uint32_t(i);
            if (nan)
                std::partial_sort(idx.begin(), idx.begin() + long(k), idx.end(), [&](uint32_t a, uint32_t b) {
                    if (v[a] != v[b])
                        return v[a] > v[b];
                    return a < b;
                });
            else
                std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) { return v[a] > v[b]; });
            idx.resize(k);
            std::sort(idx.begin(), idx.end());
            QCOMPARE(topAffinity(v, k), idx);
        }
        // scores that mostly rise with the id (many machines above the least kept: the candidates pass 4K and are
        // cut back to the K best, more than once), falling, and spread, with ties and machines with no room; and
        // ties between 0 and -0 (equal scores: the lower id wins)
        for (int trial = 0; trial < 400; ++trial) {
            std::vector<float> v(size_t(1 + rng() % 2000));
            const int shape = trial % 4;
            for (size_t i = 0; i < v.size(); ++i) {
                const float noise = float(rng() % 8) / 8.0f;
                v[i] = rng() % 5 == 0 ? -1.0f
                       : shape == 0   ? float(i / 4) + noise
                       : shape == 1   ? float(v.size() - i) + noise
                       : shape == 2   ? float(rng() % 1000) / 7.0f
                                      : (rng() % 20 == 0 ? 0.5f : rng() % 2 ? 0.0f : -0.0f);
            }
            const size_t k = std::min(size_t(1 + rng() % 64), v.size());
            std::vector<uint32_t> idx(v.size());
            for (size_t i = 0; i < idx.size(); ++i)
                idx[i] = uint32_t(i);
            std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) { return v[a] > v[b]; });
            idx.resize(k);
            std::sort(idx.begin(), idx.end());
            QCOMPARE(topAffinity(v, k), idx);
        }
    }

    void learnedPlacementFieldsCopyDeepAndHoldNothingEmpty()
    {
        // a placement's learned-only values (RareFloats): 8 bytes where nothing is held, read as the vector they
        // stand for, copies deep, an empty value holds nothing
        static_assert(sizeof(RareFloats) == sizeof(void*));
        PlacementRecord a;
        QVERIFY(a.rwgpMean.empty() && a.rwgpMean.size() == 0 && a.rwgpMean.get().empty());
        a.rwgpMean = {0.5f, -0.25f};
        a.critic.push_back(1.5f);
        PlacementRecord b = a;
        a.rwgpMean.edit()[0] = 9.f; // the copy keeps its own
        QCOMPARE(b.rwgpMean.size(), size_t(2));
        QCOMPARE(b.rwgpMean[0], 0.5f);
        QCOMPARE(b.rwgpMean[1], -0.25f);
        QVERIFY(a.rwgpMean != b.rwgpMean);
        QCOMPARE(b.critic.size(), size_t(1));
        QCOMPARE(b.critic[0], 1.5f);
        const std::vector<float>& asVector = b.rwgpMean; // the vector it stands for, where one is needed
        QCOMPARE(asVector.size(), size_t(2));
        QCOMPARE(asVector.data(), b.rwgpMean.get().data());
        b.rwgpMean = std::vector<float> {};
        QVERIFY(b.rwgpMean.empty());
        QVERIFY(b.rwgpMean == RareFloats {});
        b.critic.clear();
        QVERIFY(b.critic.empty());
        QCOMPARE(a.critic.size(), size_t(1)); // (the original's untouched)
    }

    void recordCriticLandsOnThePlacement()
    {
        for (int denseMax : {1000, 2}) {
            ClusterSpec c = makeClusterPreset("das-case");
            Trace t;
            for (int i = 0; i < 3; ++i) {
                Job j;
                j.id = i;
                j.gpus = 1;
                j.submit = i;
                j.duration = 100;
                t.jobs.push_back(j);
            }
            CriticPolicy pol;
            RunConfig rc;
            rc.recordDecisions = true;
            rc.denseAffinityMaxMachines = denseMax; // 2: the top-K form
            rc.sparseAffinityTopK = 3;
            Simulator sim(c, t, pol, rc);
            struct Keep : SimObserver {
                std::vector<DecisionRecord> recs;
                void onDecision(const DecisionRecord& r) override { recs.push_back(r); }
            } keep;
            sim.addObserver(&keep);
            sim.run();
            const DecisionRecord* hit = nullptr;
            for (const DecisionRecord& r : keep.recs)
                if (r.criticKind == 'q' && !r.placements.empty())
                    hit = hit ? hit : &r;
            QVERIFY(hit);
            QCOMPARE(hit->criticValue, 10.f);
            const PlacementRecord& p = hit->placements[0];
            QCOMPARE(p.critic.size(), p.affinity.size());
            for (size_t k = 0; k < p.critic.size(); ++k)
                QCOMPARE(p.critic[k], 10.f + float(p.machineOf(int(k))));
            if (denseMax == 2)
                QCOMPARE(p.critic.size(), size_t(3));
            else
                QCOMPARE(int(p.critic.size()), c.machineCount());
        }
    }
};

QTEST_GUILESS_MAIN(TestDecisionLogCritic)
#include "tst_decisionlogcritic.moc"
