// SRTF's running order (SrtfDrift, srtfdrift.h) against a plain sort: the index keeps estimates of the work left
// and reads exact positions only near each boundary, so every answer is compared with a sort of all running
// jobs by their exact work left now and the tie-break, and a plain walk. Directly, on work lines with many exact
// ties, shared and changing rates, lines floored at 0 and jobs whose progress starts later (restoring), with
// estimates renewed often and hardly ever; and inside the scheduler, on contended runs with
// RunConfig::checkInvariants, where SrtfDrift compares each answer with a sort of its own (and throws).
#include <QtTest>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include "io/traceio.h"
#include "model/tracegen.h"
#include "policy/srtfdrift.h"
#include "policy/srtftree.h"
#include "run/runner.h"
#include "walkoracle.h"

using namespace ss;

class TstSrtfDrift : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesASort_data()
    {
        QTest::addColumn<double>("factor");
        QTest::newRow("renewed often") << 0.05;
        QTest::newRow("as built") << 3.0;
        QTest::newRow("hardly renewed") << 1e9; // the bounds grow with time: wide zones near each boundary
    }

    void matchesASort()
    {
        QFETCH(double, factor);
        std::mt19937_64 rng(17);
        const size_t T = 2, N = 300;
        std::vector<SrtfLine> line(N);
        std::vector<double> seq(N);
        std::vector<std::array<int64_t, 2>> use(N);
        std::vector<char> in(N, 0);
        double now = 0;
        auto pos = [&](int j) { return SrtfDrift::Pos {{line[size_t(j)].at(now), 0, seq[size_t(j)], 0, 0}, j}; };
        SrtfDrift idx;
        idx.reset(N, T);
        idx.setRebuildFactor(factor);
        const double rates[] = {1.0, 0.5, 1.0 / 3.0, 0.0634, 0.95};
        int order0 = 0;
        long nonFitting = 0;
        for (int round = 0; round < 3000; ++round) {
            now += double(rng() % 4) * 0.75;
            // lines change between decisions (reported before begin()); jobs start and stop
            std::vector<int> relined;
            for (int k = 0; k < 3; ++k) {
                const int j = int(rng() % N);
                if (in[size_t(j)] && rng() % 2 == 0 && line[size_t(j)].from <= now) {
                    line[size_t(j)] = {line[size_t(j)].at(now), now, rates[rng() % 5]}; // re-rated: goes on from here
                    relined.push_back(j);
                }
            }
            for (int j : relined)
                idx.reline(j, line[size_t(j)]);
            idx.begin(now, pos);
            for (int k = 0; k < 2; ++k) {
                const int j = int(rng() % N);
                if (in[size_t(j)]) {
                    if (rng() % 3 == 0) {
                        idx.erase(j);
                        in[size_t(j)] = 0;
                    }
                    continue;
                }
                // whole numbers and shared rates: many exact ties; some restore first (flat until `from`)
                line[size_t(j)] = {double(1 + rng() % 400), now + (rng() % 5 == 0 ? double(1 + rng() % 6) : 0.0),
                                   rates[rng() % 5]};
                if (rng() % 4 == 0 && j > 0 && in[size_t(j - 1)]) // the same line as another job: a tie for ever
                    line[size_t(j)] = line[size_t(j - 1)];
                seq[size_t(j)] = double(++order0);
                use[size_t(j)] = {int64_t(rng() % 3) * 1000, int64_t(rng() % 2) * 500};
                idx.insert(j, use[size_t(j)].data(), line[size_t(j)]);
                in[size_t(j)] = 1;
            }
            std::vector<SrtfDrift::Pos> order;
            for (size_t k = 0; k < N; ++k)
                if (in[k])
                    order.push_back(pos(int(k)));
            std::sort(order.begin(), order.end());
            QCOMPARE(idx.size(), int(order.size()));
            if (order.empty())
                continue;
            const SrtfDrift::Pos last = idx.last();
            QCOMPARE(last.job, order.back().job);
            QCOMPARE(last.key[0], order.back().key[0]);
            // several walks per decision, as the scheduler makes them: from a running job (a preempted one) or
            // a waiting job's key, up to a waiting job's key, with budgets that run out somewhere in between
            for (int q = 0; q < 4; ++q) {
                const SrtfDrift::Pos from = rng() % 2 ? order[rng() % order.size()]
                                                      : SrtfDrift::Pos {{double(rng() % 400), 0, 0.5, 0, 0}, int(N)};
                const SrtfDrift::Pos to {{double(rng() % 450), 0, 0.5, 0, 0}, int(N)};
                const bool useFrom = rng() % 2, useTo = rng() % 2;
                std::array<int64_t, 2> bud {int64_t(rng() % 60000), int64_t(rng() % 30000)};
                std::array<int64_t, 2> left = bud;
                const int expect = walkoracle::firstNotFitting(order, useFrom ? &from : nullptr, useTo ? &to : nullptr,
                                                               left, [&](int j) { return use[size_t(j)].data(); });
                nonFitting += expect >= 0 ? 1 : 0;
                QCOMPARE(idx.firstNotFitting(useFrom ? &from : nullptr, useTo ? &to : nullptr, bud.data()), expect);
                QVERIFY(bud == left);
            }
        }
        QVERIFY(nonFitting > 1000);
        QVERIFY(idx.windows() > 0); // the exact search near the first job that does not fit did run
        if (factor < 1)
            QVERIFY(idx.rebuilds() > 100);
        if (factor > 1e6)
            QCOMPARE(idx.rebuilds(), uint64_t(0));
    }

    void treeIsShallowAfterRebuild()
    {
        // 3,000 jobs inserted at random keys (a treap: depth about 2 ln n on average, more at the deepest), then
        // rebuilt at new keys: at most log2(n + 1) levels, 12 here; later inserts and erases keep every sum right
        const size_t types = 2;
        SrtfTree t;
        t.reset(4000, types);
        std::mt19937_64 rng(7);
        std::uniform_real_distribution<double> key(0, 1000);
        std::vector<double> u(4000, -1);
        std::vector<std::array<int64_t, 2>> use(4000);
        for (int j = 0; j < 3000; ++j) {
            u[size_t(j)] = key(rng);
            use[size_t(j)] = {int64_t(rng() % 4000), int64_t(rng() % 2000)};
            t.insert(j, u[size_t(j)], use[size_t(j)].data(), SrtfLine {});
        }
        QVERIFY2(t.height() > 12, "a treap of 3,000 random keys is deeper than a balanced tree");
        std::vector<SrtfTree::Entry> order;
        for (int j = 0; j < 3000; ++j) {
            u[size_t(j)] = key(rng);
            order.push_back({u[size_t(j)], j, t.nodeOf(j)});
        }
        std::sort(order.begin(), order.end());
        t.rebuild(order);
        QCOMPARE(t.height(), 12);
        for (int j = 3000; j < 3300; ++j) {
            u[size_t(j)] = key(rng);
            use[size_t(j)] = {int64_t(rng() % 4000), int64_t(rng() % 2000)};
            t.insert(j, u[size_t(j)], use[size_t(j)].data(), SrtfLine {});
        }
        for (int j = 0; j < 300; ++j) {
            t.erase(j * 7);
            u[size_t(j * 7)] = -1;
        }
        for (int q = 0; q < 200; ++q) {
            double lo = key(rng), hi = key(rng);
            if (hi < lo)
                std::swap(lo, hi);
            std::array<int64_t, 2> got {0, 0}, want {0, 0};
            t.sum(lo, hi, got.data());
            for (size_t j = 0; j < u.size(); ++j)
                if (u[j] >= lo && u[j] < hi)
                    for (size_t k = 0; k < types; ++k)
                        want[k] += use[j][k];
            QCOMPARE(got, want);
        }
        QCOMPARE(t.size(), 3000);
    }

    void contendedRunsMatchASort_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<QString>("cluster");
        QTest::addColumn<int>("jobs");
        QTest::addColumn<double>("overhead");
        QTest::newRow("srtf+firstfit") << QStringLiteral("srtf+firstfit") << QStringLiteral("das-large") << 4000 << 0.0;
        QTest::newRow("srtf+bestfit") << QStringLiteral("srtf+bestfit") << QStringLiteral("das-large") << 4000 << 0.0;
        QTest::newRow("srtf+consolidate, restoring")
            << QStringLiteral("srtf+consolidate") << QStringLiteral("das-large") << 4000 << 30.0;
        // thousands of running jobs: wide zones between renewals
        QTest::newRow("srtf+firstfit, alibaba-scale")
            << QStringLiteral("srtf+firstfit") << QStringLiteral("alibaba-scale") << 6000 << 0.0;
    }

    void contendedRunsMatchASort()
    {
        // with checkInvariants every last() and firstNotFitting() of the scheduler is compared with a sort of the
        // running jobs by their exact work left (SrtfDrift throws on a difference, and the run fails)
        QFETCH(QString, policy);
        QFETCH(QString, cluster);
        QFETCH(int, jobs);
        QFETCH(double, overhead);
        const ClusterSpec c = readCluster(cluster.toStdString());
        TraceGenConfig g;
        g.jobs = jobs;
        g.seed = 5;
        g.maxGpus = 8;
        if (c.totalGpus() < 1000) {
            g.load = 2.0;
            g.clusterGpus = c.totalGpus();
        } else {
            g.arrivalsPerHour = 20000; // more than the GPUs hold from the first hours on
        }
        const Trace t = generateTrace(g);
        RunSpec spec;
        spec.policy = policy.toStdString();
        spec.config.seed = 2;
        spec.config.checkInvariants = true;
        spec.config.perf.preemptOverhead = overhead;
        const RunOutput out = runSimulation(c, t, spec);
        int done = 0, preempted = 0;
        for (const JobRecord& r : out.jobs) {
            done += r.status == JobStatus::Done ? 1 : 0;
            preempted += r.preemptions > 0 ? 1 : 0;
        }
        QCOMPARE(done, g.jobs);
        QVERIFY(preempted > 200); // contended: the order decided many preemptions
    }
};

QTEST_GUILESS_MAIN(TstSrtfDrift)
#include "tst_srtfdrift.moc"
