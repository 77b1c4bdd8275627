// The scale structures of issue 20 against their oracles: RunIndex against a plain walk and GittinsRunIndex
// (2D-Gittins's certified bounds) against a sort (SRTF's SrtfDrift: tst_srtfdrift); RunIndex::replaceKey; 2D-LAS
// with the per-decision checks on a loaded cluster; Tetris's logged ranking against its placement scores; machine
// failures and start states under the scaled policies (ShareChecker follows the GPU shares). The 100,000-job runs
// of every scaled policy are in tst_scalepolicies.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "io/traceio.h"
#include "model/tracegen.h"
#include "policy/quadheap.h"
#include "policy/runindex.h"
#include "policy/srtfindex.h"
#include "policy/tiresias.h"
#include "sharechecker.h"
#include "walkoracle.h"
#include "run/forkstart.h"
#include "run/runner.h"

using namespace ss;

namespace {
/// A generated trace of `jobs` jobs at offered load `load` on the cluster's GPUs.
Trace loadedTrace(const ClusterSpec& cluster, int jobs, uint64_t seed, double load)
{
    TraceGenConfig g;
    g.jobs = jobs;
    g.seed = seed;
    g.load = load;
    g.clusterGpus = cluster.totalGpus();
    return generateTrace(g);
}
} // namespace

class TstScale : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void quadHeapPopsInSortedOrder()
    {
        // 2D-Gittins's certificate expiries: pushes, pops and removeIf mixed, with many equal times (ties broken
        // by the job) and duplicate items; every pop must give the least of what a sorted list holds.
        struct Item {
            double at;
            int job;
        };
        struct Less {
            bool operator()(const Item& x, const Item& y) const { return x.at != y.at ? x.at < y.at : x.job < y.job; }
        };
        std::mt19937_64 rng(11);
        QuadHeap<Item, Less> heap;
        std::vector<Item> ref;
        long pops = 0;
        for (int step = 0; step < 20000; ++step) {
            const int op = int(rng() % 10);
            if (op < 5 || ref.empty()) {
                const Item x {double(rng() % 50), int(rng() % 40)};
                heap.push(x);
                ref.push_back(x);
            } else if (op < 9) {
                const auto least = std::min_element(ref.begin(), ref.end(), Less {});
                QCOMPARE(heap.top().at, least->at);
                QCOMPARE(heap.top().job, least->job);
                heap.pop();
                ref.erase(least);
                ++pops;
            } else {
                const int drop = int(rng() % 40);
                heap.removeIf([&](const Item& x) { return x.job == drop; });
                ref.erase(std::remove_if(ref.begin(), ref.end(), [&](const Item& x) { return x.job == drop; }), ref.end());
            }
            QCOMPARE(heap.size(), ref.size());
            QVERIFY(heap.valid());
        }
        QVERIFY(pops > 5000);
    }

    void tetrisLoggedRankingMatchesItsPlacementScores()
    {
        // Tetris ranks its window for the log by each job's best score over the machines it fits on, scoring one
        // machine per machine state for a group of jobs that fit on the same machines; a started job's affinity
        // row scores every machine it fits on. At a decision's first start nothing has changed since the
        // ranking, so the job's logged priority is the best of its row. Typed and fractional jobs, CPU and memory
        // on alibaba-scale's machines, with load enough to keep a window.
        const ClusterSpec cluster = readCluster("alibaba-scale");
        TraceGenConfig g;
        g.jobs = 4000;
        g.seed = 5;
        g.load = 10;
        g.fractionalShare = 0.1;
        g.clusterGpus = cluster.totalGpus();
        Trace t = generateTrace(g);
        t.gpuSpecs = {"V100", "T4", "P100|T4"};
        for (size_t j = 0; j < t.jobs.size(); j += 3) // every third job asks for GPU types
            t.jobs[j].gpuSpec = int32_t((j / 3) % 3);
        for (size_t j = 1; j < t.jobs.size(); j += 4) { // and every fourth CPUs and memory that 2-GPU machines lack
            t.jobs[j].cpu = float(40 + j % 40);
            t.jobs[j].memGb = float(200 + j % 100);
        }
        struct Rec : SimObserver {
            long checked = 0, ranked = 0;
            QString failure;
            void onDecision(const DecisionRecord& r) override
            {
                for (size_t i = 1; i < r.queue.size(); ++i) {
                    const float a = r.queue[i - 1].priority, b = r.queue[i].priority;
                    if (!std::isnan(b) && (std::isnan(a) || a < b) && failure.isEmpty())
                        failure = QStringLiteral("queue out of order at t=%1").arg(r.time);
                }
                ranked += long(r.queue.size());
                if (r.placements.empty())
                    return;
                const PlacementRecord& p = r.placements.front();
                if (p.slots.empty() || p.affinity.empty() || p.reason.rfind("tetris: best packing", 0) != 0)
                    return;
                const auto q = std::find_if(r.queue.begin(), r.queue.end(), [&](const ScoredJob& s) { return s.job == p.job; });
                if (q == r.queue.end())
                    return;
                const float best = *std::max_element(p.affinity.begin(), p.affinity.end());
                if (q->priority != best && failure.isEmpty())
                    failure = QStringLiteral("job %1 at t=%2: logged %3, best of its row %4").arg(p.job).arg(r.time).arg(q->priority).arg(best);
                ++checked;
            }
        } rec;
        RunSpec spec;
        spec.policy = "tetris";
        spec.config.seed = 1;
        spec.config.recordDecisions = true;
        runSimulation(cluster, t, spec, {}, nullptr, {&rec});
        QVERIFY2(rec.failure.isEmpty(), qPrintable(rec.failure));
        QVERIFY2(rec.checked > 1000, qPrintable(QString::number(rec.checked)));
        QVERIFY2(rec.ranked > 50 * rec.checked, qPrintable(QString("%1 ranked, %2 checked").arg(rec.ranked).arg(rec.checked))); // a window, not one job
    }

    void failuresRequeue_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::newRow("tetris") << QStringLiteral("tetris"); // its queue mirror is read again after a requeue
        QTest::newRow("srtf+firstfit") << QStringLiteral("srtf+firstfit"); // re-rated and requeued jobs
    }

    void failuresRequeue()
    {
        // machines fail and come back while queues are long: jobs are requeued from running, and the invariants
        // still hold
        QFETCH(QString, policy);
        const ClusterSpec cluster = readCluster("alibaba-scale");
        const Trace t = loadedTrace(cluster, 10000, 9, 0.9);
        RunSpec spec;
        spec.policy = policy.toStdString();
        spec.config.seed = 1;
        for (int i = 0; i < 80; ++i) {
            const std::string m = cluster.machines[size_t((i * 97) % cluster.machineCount())].name;
            spec.machineEvents.push_back({20000.0 + 2500.0 * i, m, i % 4 == 3 ? MachineEventKind::Drain : MachineEventKind::Fail});
            spec.machineEvents.push_back({24000.0 + 2500.0 * i, m, MachineEventKind::Restore});
        }
        ShareChecker check(cluster, t.jobs.size());
        const RunOutput out = runSimulation(cluster, t, spec, {}, nullptr, {&check});
        QCOMPARE(check.overbooked(), 0);
        QCOMPARE(check.endedTwice(), 0);
        QCOMPARE(check.startAfterEnd(), 0);
        QVERIFY(check.allReleased());
        int done = 0, requeued = 0;
        for (const JobRecord& r : out.jobs) {
            done += r.status == JobStatus::Done ? 1 : 0;
            requeued += r.preemptions > 0 ? 1 : 0;
        }
        QCOMPARE(done, int(t.jobs.size()));
        QVERIFY(requeued > 0); // the failures did hit running jobs
    }

    void preemptiveStartState_data()
    {
        QTest::addColumn<QString>("policy");
        for (const char* p : {"srtf+firstfit", "las+firstfit", "gittins+firstfit"})
            QTest::newRow(p) << QString::fromLatin1(p);
    }

    void preemptiveStartState()
    {
        // jobs already running at the start (run --start-state) are held and ordered like the policy's own (the
        // engine refuses a start on a GPU that is taken): every job ends, and under SRTF the state's long jobs
        // make way (2D-LAS keeps them: they reach the last queue first, so they are the last to go there)
        QFETCH(QString, policy);
        const ClusterSpec cluster = readCluster("das-large");
        const Trace t = loadedTrace(cluster, 400, 3, 1.2);
        StartState state;
        state.source = "test";
        for (int i = 0; i < 24; ++i) {
            StartStateJob s;
            s.id = 900000 + i;
            s.running = true;
            s.gpus = double(1 << (i % 4));
            s.work = 200000.0 + 977.0 * i;
            s.machines = {i};
            state.jobs.push_back(s);
        }
        RunSpec spec;
        spec.policy = policy.toStdString();
        const Trace merged = traceWithStartState(t, state);
        const RunOutput out = runFromStartState(cluster, t, state, spec, nullptr, {});
        int done = 0, statePreempted = 0;
        for (const JobRecord& r : out.jobs) {
            done += r.status == JobStatus::Done ? 1 : 0;
            if (r.index < 24)
                statePreempted += r.preemptions > 0 ? 1 : 0;
        }
        QCOMPARE(done, int(merged.jobs.size()));
        if (policy.startsWith(QLatin1String("srtf")))
            QVERIFY(statePreempted > 0);
    }

    void runIndexMatchesAPlainWalk()
    {
        // random keys and holdings over 3 types; firstNotFitting must equal keeping jobs in key order while
        // each fits, over random ranges and budgets, while jobs come and go
        std::mt19937_64 rng(11);
        const size_t T = 3, N = 400;
        RunIndex idx;
        idx.reset(N, T);
        std::vector<RunIndex::Key> key(N);
        std::vector<std::array<int64_t, 3>> use(N);
        std::vector<char> in(N, 0);
        for (int round = 0; round < 3000; ++round) {
            const int j = int(rng() % N);
            if (in[size_t(j)] && rng() % 3 == 0) {
                idx.erase(j);
                in[size_t(j)] = 0;
            } else {
                key[size_t(j)] = {double(rng() % 4), double(rng() % 16), double(int(rng() % 5) - 2), 0, 0};
                use[size_t(j)] = {int64_t(rng() % 3) * 1000, int64_t(rng() % 2) * 500, int64_t(rng() % 2) * 1000};
                idx.insert(j, key[size_t(j)], use[size_t(j)].data());
                in[size_t(j)] = 1;
            }
            if (round % 10)
                continue;
            std::vector<RunIndex::Pos> order;
            for (size_t k = 0; k < N; ++k)
                if (in[k])
                    order.push_back({key[k], int(k)});
            std::sort(order.begin(), order.end());
            std::vector<int> inOrder;
            for (const auto& p : order)
                inOrder.push_back(p.job);
            QCOMPARE(idx.inOrder(), inOrder);
            QCOMPARE(idx.size(), int(order.size()));
            QVERIFY(idx.ordered(true));
            // a random range and budget
            // (from: half the time a running job's own position, as the walk goes on from a job it preempted; the
            // budget: now and then short in a type already, where only a job holding none of it is kept)
            RunIndex::Pos from {{double(rng() % 4), double(rng() % 16), double(int(rng() % 5) - 2), 0, 0}, int(rng() % N)};
            if (!order.empty() && rng() % 2)
                from = order[rng() % order.size()];
            const RunIndex::Pos to {{double(rng() % 5), 0, 0, 0, 0}, 0};
            const bool useFrom = rng() % 2, useTo = rng() % 2;
            std::array<int64_t, 3> bud {int64_t(rng() % 40000), int64_t(rng() % 20000), int64_t(rng() % 40000)};
            if (rng() % 8 == 0)
                bud[1] = -1;
            std::array<int64_t, 3> want = bud;
            const int expect = walkoracle::firstNotFitting(order, useFrom ? &from : nullptr, useTo ? &to : nullptr, want,
                                                           [&](int j) { return use[size_t(j)].data(); });
            const int got = idx.firstNotFitting(useFrom ? &from : nullptr, useTo ? &to : nullptr, bud.data());
            QCOMPARE(got, expect);
            QVERIFY(bud == want);
        }
    }

    void runIndexReplaceKey()
    {
        // new keys that keep every job's place leave the tree as it is; the walk then compares the new keys
        RunIndex idx;
        idx.reset(20, 1);
        const int64_t one = 1000;
        for (int j = 0; j < 10; ++j)
            idx.insert(j, {1, 1, double(j), 0, 0}, &one);
        for (int j = 0; j < 10; ++j)
            idx.replaceKey(j, {1, 0, double(100 + j), 0, 0});
        QVERIFY(idx.ordered());
        QCOMPARE(idx.inOrder(), (std::vector<int> {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
        const RunIndex::Pos from {{1, 0, 103, 0, 0}, 3};
        int64_t bud = 2500;
        QCOMPARE(idx.firstNotFitting(&from, nullptr, &bud), 6); // jobs 4 and 5 fit, job 6 does not
        QCOMPARE(bud, int64_t(500));
        // a key of another (queue, zone) moves the job there, searched
        idx.replaceKey(9, {0, 0, 0, 0, 0});
        QVERIFY(idx.ordered());
        QCOMPARE(idx.inOrder(), (std::vector<int> {9, 0, 1, 2, 3, 4, 5, 6, 7, 8}));
        QCOMPARE(idx.last().job, 8);
        // a key that moves a job among its group's is caught by the invariant check
        idx.replaceKey(3, {1, 0, 150, 0, 0});
        QVERIFY(!idx.ordered());
    }

    void runIndexRefusesWhatItCannotSum()
    {
        // sums are 32-bit thousandths of a GPU per (queue, zone): a second job that would pass 2,147,483 GPUs of a
        // type there is refused, and nothing of it is kept; in another queue it goes in. A key holding NaN is refused.
        RunIndex idx;
        idx.reset(4, 1);
        const int64_t big = 1500000000; // 1.5M GPUs
        idx.insert(0, {0, 0, 1, 0, 0}, &big);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, idx.insert(1, {0, 0, 2, 0, 0}, &big));
        QVERIFY(!idx.contains(1));
        QCOMPARE(idx.size(), 1);
        QVERIFY(idx.ordered());
        idx.insert(1, {1, 0, 2, 0, 0}, &big);
        int64_t bud = 2 * big;
        QCOMPARE(idx.firstNotFitting(nullptr, nullptr, &bud), -1);
        QCOMPARE(bud, int64_t(0));
        const int64_t one = 1000;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, idx.insert(2, {0, std::nan(""), 0, 0, 0}, &one));
        QVERIFY(!idx.contains(2));
        QVERIFY(idx.ordered());
    }

    void lasRunningOrderCheckedEveryDecision()
    {
        // 2D-LAS re-keys the jobs demoted at a decision in place when they join the running zone; with
        // RunConfig::checkInvariants the scheduler checks its running order after every decision (and
        // throws when it is out of order), on a loaded cluster where jobs are demoted and preempted
        const ClusterSpec cluster = readCluster("alibaba-scale");
        const Trace t = loadedTrace(cluster, 10000, 3, 1.5);
        RunSpec spec;
        spec.policy = "las+consolidate";
        spec.config.seed = 2;
        spec.config.checkInvariants = true;
        const RunOutput out = runSimulation(cluster, t, spec);
        int preempted = 0, done = 0;
        for (const JobRecord& r : out.jobs) {
            preempted += r.preemptions > 0 ? 1 : 0;
            done += r.status == JobStatus::Done ? 1 : 0;
        }
        QCOMPARE(done, int(t.jobs.size()));
        QVERIFY(preempted > 0);
    }

    void loggedRankingKeptBetweenDecisions()
    {
        // The preemptive schedulers keep the log's ranking (the first waiting jobs in priority order) as jobs join
        // and leave the queue, merging in only what is missing after the last kept; with checkInvariants every
        // record's ranking is compared with a merge of the whole queue (and throws when they differ). A short
        // limit makes the kept list fill, overflow and run short often; the starvation knob moves jobs between
        // queues while they wait.
        const ClusterSpec cluster = readCluster("gavel-108");
        const Trace t = loadedTrace(cluster, 1000, 5, 2);
        for (const char* policy : {"las+consolidate", "srtf+firstfit", "gittins+bestfit"}) {
            RunSpec spec;
            spec.policy = policy;
            spec.config.seed = 2;
            spec.config.checkInvariants = true;
            spec.config.logQueueLimit = 7;
            spec.options.params["las.knob"] = "1";
            spec.keepDecisionLog = true;
            const RunOutput out = runSimulation(cluster, t, spec);
            QVERIFY(out.log);
            size_t full = 0;
            for (const DecisionRecord& r : out.log->records) {
                QVERIFY(r.queue.size() == std::min<size_t>(7, size_t(r.queueLength)));
                full += r.queueLength > 7 ? 1 : 0;
            }
            QVERIFY2(full > 100, qPrintable(QString("%1: %2 of %3 records").arg(policy).arg(full).arg(out.log->records.size())));
        }
    }

    void gallopUpperBoundMatchesUpperBound()
    {
        // The search a running job's piece is found by (2D-Gittins's index, its table's sizes): from any start,
        // on by a few places, by a block, past a block's end, far (the doubling bracket), back, at the array's
        // ends, among repeated values, and for values equal to one held.
        std::mt19937_64 rng(11);
        for (int round = 0; round < 4000; ++round) {
            const size_t n = round < 200 ? size_t(round) : size_t(rng() % 700);
            std::vector<double> v(n);
            double at = 0;
            for (double& x : v) {
                if (rng() % 4 != 0) // a quarter repeat the value before
                    at += double(1 + rng() % 5);
                x = at;
            }
            for (int q = 0; q < 20; ++q) {
                double x;
                if (n > 0 && rng() % 2 == 0)
                    x = v[size_t(rng() % n)] + (rng() % 3 == 0 ? 0.5 : 0.0);
                else
                    x = double(int64_t(rng() % uint64_t(at + 12)) - 6);
                const size_t from = size_t(rng() % (n + 3));
                const size_t want = size_t(std::upper_bound(v.begin(), v.end(), x) - v.begin());
                QCOMPARE(gallopUpperBound(v, x, from), want);
            }
        }
    }

    void gittinsKeysAtPieceBoundaries()
    {
        // GittinsRunIndex evaluates a running job from its piece's record (search positions confirmed by the
        // samples either side of attained + delta): the index must be GittinsTable::index's, bit for bit, at every
        // piece start, just before and after it, and where attained + delta rounds across a sample, whichever
        // piece the job was in before (a job's piece is where the search starts).
        std::mt19937_64 rng(11);
        std::vector<double> sizes;
        for (int i = 0; i < 300; ++i)
            sizes.push_back(0.1 * double(1 + rng() % 400000) / 3.0);
        const double delta = 3250.3;
        const GittinsTable table(sizes, delta);
        std::sort(sizes.begin(), sizes.end());
        std::vector<double> at, low, high;
        table.pieceStarts(at, low, high);
        std::vector<double> points;
        for (const double b : at)
            for (const double x : {b, std::nextafter(b, -1e300), std::nextafter(b, 1e300), std::nextafter(std::nextafter(b, 1e300), 1e300)})
                if (x >= 0)
                    points.push_back(x);
        for (const double s : sizes)
            for (const double x : {s - delta, std::nextafter(s - delta, 1e300), std::nextafter(s - delta, -1e300), s})
                if (x >= 0)
                    points.push_back(x);
        std::sort(points.begin(), points.end());
        const size_t T = 1, N = 3;
        std::vector<int64_t> use(N * T, 1000);
        std::vector<char> zone(N, 0);
        std::vector<double> seq(N, 0);
        GittinsRunIndex idx;
        idx.reset(table, N, T, 1, &use);
        idx.bind(table, &use, &zone, &seq);
        // job 0 walks up through the points, job 1 down, job 2 jumps at random
        const size_t P = points.size();
        int roundingCases = 0;
        for (size_t i = 0; i < P; ++i) {
            const double pick[N] = {points[i], points[P - 1 - i], points[size_t(rng() % P)]};
            idx.sync(double(i));
            for (size_t j = 0; j < N; ++j) {
                const double a = pick[j];
                idx.insert(int(j), 0, double(i), {1, a, double(i), 0, 0});
                const double want = table.index(a);
                const double got = -idx.keyNow(int(j))[1];
                if (std::memcmp(&want, &got, sizeof want) != 0)
                    QFAIL(qPrintable(QString("index at attained %1: %2, the table gives %3").arg(a, 0, 'g', 17).arg(got, 0, 'g', 17).arg(want, 0, 'g', 17)));
            }
            // how often a + delta lands on the other side of a sample than the piece start's + delta does
            const auto pieceStart = std::upper_bound(at.begin(), at.end(), points[i]);
            if (pieceStart != at.begin()) {
                const double b = *(pieceStart - 1);
                roundingCases += std::upper_bound(sizes.begin(), sizes.end(), b + delta) != std::upper_bound(sizes.begin(), sizes.end(), points[i] + delta) ? 1 : 0;
            }
        }
        QVERIFY(idx.evaluations() >= 3 * P);
        QVERIFY(roundingCases > 0); // the confirmation was needed
    }

    void gittinsCertificateBoundsHold()
    {
        // A certificate's bounds are the index's bounds over the pieces its job passes before the band is left,
        // gathered through the tree over blocks when that is far; the walk places jobs by them without evaluating
        // them. On a smooth size distribution with many pieces certificates span many blocks: the index now must
        // lie within its job's bounds at every decision, and the walk's answers must stay a plain walk's.
        std::mt19937_64 rng(11);
        std::lognormal_distribution<double> size(8.0, 1.2);
        std::vector<double> sizes;
        for (int i = 0; i < 6000; ++i)
            sizes.push_back(std::round(size(rng)));
        const GittinsTable table(sizes, 3250);
        const size_t T = 1, N = 300;
        std::vector<GittinsRunIndex::Service> svc(N);
        std::vector<char> zone(N, 0);
        std::vector<double> seq(N);
        std::vector<int64_t> use(N * T, 1000);
        std::iota(seq.begin(), seq.end(), 0.0);
        GittinsRunIndex idx;
        idx.reset(table, N, T, 1, &use);
        idx.bind(table, &use, &zone, &seq);
        double now = 0;
        auto attained = [&](int j) {
            const auto& s = svc[size_t(j)];
            return s.gpus * ((s.executed + std::max(0.0, now - s.lastStart)) - s.exec0);
        };
        std::vector<RunIndex::Pos> order;
        for (int j = 0; j < int(N); ++j) {
            svc[size_t(j)] = {double(1 + rng() % 4) / 4.0, double(rng() % 20000), 0, 0, double(j)};
            idx.insert(j, 0, now, svc[size_t(j)]);
        }
        uint64_t certs = 0;
        for (int round = 0; round < 400; ++round) {
            now += 20.0 + double(rng() % 40);
            idx.sync(now);
            QVERIFY(idx.certificatesHold());
            order.clear();
            for (int j = 0; j < int(N); ++j)
                order.push_back({{0.0, -table.index(attained(j)), -svc[size_t(j)].submit, 0.0, seq[size_t(j)]}, j});
            std::sort(order.begin(), order.end());
            // stretches ending at running jobs' levels: the cells around them are placed by the bounds
            for (int q = 0; q < 3; ++q) {
                const RunIndex::Pos to = order[size_t(rng() % order.size())];
                std::array<int64_t, 1> bud {int64_t(rng() % (N * 1000))};
                std::array<int64_t, 1> left = bud;
                const int expect = walkoracle::firstNotFitting(order, static_cast<const RunIndex::Pos*>(nullptr), &to, left, [&](int j) { return &use[size_t(j) * T]; });
                QCOMPARE(idx.firstNotFitting(nullptr, &to, bud.data()), expect);
                QCOMPARE(bud, left);
            }
            certs = idx.certificates();
        }
        QVERIFY(certs > N); // renewed over and over
    }

    void gittinsIndexMatchesASort_data()
    {
        QTest::addColumn<bool>("defer");
        QTest::newRow("budget exact at every answer") << false;
        QTest::newRow("set-aside jobs deferred (the scheduler's walk)") << true;
    }

    void gittinsIndexMatchesASort()
    {
        // With deferSetAside, an answer may leave in the budget jobs that hold none of the types their stretch is
        // short of: the answers must not change, the budget must be exact once the stretch ends (or after
        // settleSetAside), and never below the plain walk's in between.
        QFETCH(bool, defer);
        // 2D-Gittins keys (queue, -index(attained now), -submit, zone, seq) over a size distribution with gaps
        // wider than delta (index 0 there) and many equal sizes; attained service grows at each job's GPU count.
        // At every decision, last(), anyAfter() and firstNotFitting() must equal a sort by the exact keys and a
        // plain walk, for positions from the whole range of indexes (waiting jobs) and from running jobs (preempted
        // ones), while jobs start, stop and change queue, and the levels asked about (what the zone follows) move.
        std::mt19937_64 rng(7);
        std::vector<double> sizes;
        for (int i = 0; i < 400; ++i)
            sizes.push_back(double(50 * (1 + rng() % 200)));
        for (int i = 0; i < 30; ++i)
            sizes.push_back(double(20000 + 9000 * (rng() % 40)));
        const GittinsTable table(sizes, 3250);
        const size_t T = 2, N = 200, Q = 3;
        std::vector<GittinsRunIndex::Service> svc(N);
        std::vector<char> zone(N);
        std::vector<double> seq(N);
        std::vector<int> queue(N, -1);
        std::vector<int64_t> use(N * T);
        double now = 0;
        // as PreemptiveScheduler::lasAttained
        auto attained = [&](int j) {
            const auto& s = svc[size_t(j)];
            return s.gpus * ((s.executed + std::max(0.0, now - s.lastStart)) - s.exec0);
        };
        auto key = [&](int j) {
            return RunIndex::Key {double(queue[size_t(j)]), -table.index(attained(j)), -svc[size_t(j)].submit,
                                  double(zone[size_t(j)]), seq[size_t(j)]};
        };
        GittinsRunIndex idx;
        idx.reset(table, N, T, Q, &use);
        idx.bind(table, &use, &zone, &seq);
        idx.deferSetAside(defer);
        const double gpuChoices[] = {1, 2, 4, 8, 0.5};
        // the walk's levels drift (the zone follows them), with now and then one far off
        double focus = table.index(double(rng() % 30000));
        auto level = [&] {
            if (rng() % 8 == 0)
                return rng() % 5 == 0 ? 0.0 : table.index(double(rng() % 40000));
            return focus * (0.9 + 0.2 * double(rng() % 1000) / 1000.0);
        };
        for (int round = 0; round < 3000; ++round) {
            now += double(rng() % 400);
            if (rng() % 200 == 0)
                focus = table.index(double(rng() % 30000));
            idx.sync(now);
            for (int k = 0; k < 3; ++k) {
                const int j = int(rng() % N);
                if (queue[size_t(j)] >= 0 && rng() % 3 == 0) {
                    idx.erase(j);
                    auto& s = svc[size_t(j)];
                    s.executed += std::max(0.0, now - s.lastStart);
                    queue[size_t(j)] = -1;
                } else if (queue[size_t(j)] >= 0 && rng() % 3 == 0) {
                    queue[size_t(j)] = int(rng() % Q);
                    idx.setQueue(j, queue[size_t(j)]);
                } else if (queue[size_t(j)] < 0) {
                    auto& s = svc[size_t(j)];
                    if (rng() % 4 == 0)
                        s.exec0 = s.executed - double(rng() % 3) * 100; // promoted: service counted again from near 0
                    s.lastStart = now;
                    s.gpus = gpuChoices[rng() % 5];
                    s.submit = double(rng() % 50);
                    zone[size_t(j)] = char(rng() % 2);
                    seq[size_t(j)] = double(rng() % 1000);
                    use[size_t(j) * T] = int64_t(rng() % 3) * 1000;
                    use[size_t(j) * T + 1] = int64_t(rng() % 2) * 500;
                    queue[size_t(j)] = int(rng() % Q);
                    idx.insert(j, queue[size_t(j)], now, s);
                }
            }
            // the certificates' bounds (which place jobs around a stretch's ends without evaluating them) hold
            QVERIFY(idx.certificatesHold());
            std::vector<RunIndex::Pos> order;
            for (size_t j = 0; j < N; ++j)
                if (queue[j] >= 0)
                    order.push_back({key(int(j)), int(j)});
            std::sort(order.begin(), order.end());
            if (order.empty())
                continue;
            for (int probe = 0; probe < 3; ++probe) {
                // anyAfter(p) is p < last(), at keys of running jobs (ties) and at keys between them
                const RunIndex::Pos& o = order[rng() % order.size()];
                RunIndex::Pos p {o.key, rng() % 2 ? o.job : std::numeric_limits<int>::max()};
                if (rng() % 2)
                    p.key[1] = -level();
                QCOMPARE(idx.anyAfter(p), p < order.back());
            }
            QCOMPARE(idx.last().job, order.back().job);
            for (int query = 0; query < 4; ++query) {
                RunIndex::Pos from = order[rng() % order.size()];
                if (rng() % 2)
                    from = {{double(rng() % Q), -level(), 0, 0, 0}, std::numeric_limits<int>::max()};
                const RunIndex::Pos to {{double(rng() % Q), -level(), -double(rng() % 50), 0, 0}, std::numeric_limits<int>::max()};
                bool useFrom = rng() % 2;
                const bool useTo = rng() % 3 != 0;
                std::array<int64_t, 2> bud {int64_t(rng() % 60000), int64_t(rng() % 30000)};
                std::array<int64_t, 2> left = bud;
                auto plainWalk = [&] {
                    return walkoracle::firstNotFitting(order, useFrom ? &from : nullptr, useTo ? &to : nullptr, left,
                                                       [&](int j) { return &use[size_t(j) * T]; });
                };
                // the budget after an answer: the plain walk's, or (deferred, a job returned) at least that
                auto budgetHolds = [&](int answer) {
                    if (defer && answer >= 0 && rng() % 2 == 0)
                        idx.settleSetAside(bud.data());
                    else if (defer && answer >= 0)
                        return bud[0] >= left[0] && bud[1] >= left[1];
                    return bud == left;
                };
                int expect = plainWalk();
                QCOMPARE(idx.firstNotFitting(useFrom ? &from : nullptr, useTo ? &to : nullptr, bud.data()), expect);
                QVERIFY(budgetHolds(expect));
                // and on from the job that did not fit, up to the same position, as the walk asks next
                for (int next = 0; next < 40 && expect >= 0; ++next) {
                    from = {key(expect), expect};
                    useFrom = true;
                    expect = plainWalk();
                    QCOMPARE(idx.firstNotFitting(&from, useTo ? &to : nullptr, bud.data()), expect);
                    QVERIFY(budgetHolds(expect));
                }
                if (defer && expect >= 0) {
                    idx.settleSetAside(bud.data()); // the walk stops here: what is before the job returned
                    QVERIFY(bud == left);
                }
            }
        }
        // certificates were renewed as attained service moved on, a zone formed, and not every job was evaluated
        // at every query
        QVERIFY(idx.certificates() > 3000);
        QVERIFY(idx.evaluations() > 0);
        QVERIFY(idx.zoneLevel(0) >= 0 || idx.zoneLevel(1) >= 0 || idx.zoneLevel(2) >= 0);
    }
};

QTEST_GUILESS_MAIN(TstScale)
#include "tst_scale.moc"
