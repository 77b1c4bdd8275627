// SRTF's running order (SrtfDrift, srtfdrift.h) against a plain sort: the index keeps estimates of the work left
// and reads exact positions only near each boundary, so every answer is compared with a sort of all running
// jobs by their exact work left now and the tie-break, and a plain walk. Directly, on work lines with many exact
// ties, shared and changing rates, lines floored at 0 and jobs whose progress starts later (restoring), with
// estimates renewed often and hardly ever; and inside the scheduler, on contended runs with
// RunConfig::checkInvariants, where SrtfDrift compares each answer with a sort of its own (and throws).
#include <QtTest>

#include <algorithm>
#include <cmath>
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
                    line[size_t(j)] = {line[size_t(j)].at(now), now, rates[rng() % 5], seq[size_t(j)]}; // re-rated: goes on from here
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
                line[size_t(j)].tie = seq[size_t(j)]; // (the tie-break travels with the line)
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

    void aLineTheSchedulerDisagreesWithIsCaught()
    {
        // positions are read from the lines; with the check on, each is compared with the callback, so a line that
        // is not the scheduler's (a rate reported to the index that the scheduler does not have, or a tie-break
        // that is not the job's) stops the run instead of ordering the jobs by it
        for (int mismatch = 0; mismatch < 3; ++mismatch) {
            const size_t N = 6;
            std::vector<SrtfLine> line(N), truth(N);
            double now = 0;
            auto pos = [&](int j) { return SrtfDrift::Pos {{truth[size_t(j)].at(now), 0, truth[size_t(j)].tie, 0, 0}, j}; };
            SrtfDrift idx;
            idx.reset(N, 1);
            idx.setCheck(true);
            idx.begin(now, pos);
            const int64_t one = 1000;
            for (size_t j = 0; j < N; ++j) {
                line[j] = truth[j] = {double(100 + 7 * j), 0, 1.0, double(j)};
                idx.insert(int(j), &one, line[j]);
            }
            // job 5 (the most work left) re-rated at t=30; the scheduler's copy (truth) has it only where mismatch == 0
            now = 30;
            line[5] = {line[5].at(now), now, 0.25, line[5].tie};
            if (mismatch == 0)
                truth[5] = line[5];
            if (mismatch == 2) { // the rate both have, a tie-break the scheduler does not
                truth[5] = line[5];
                line[5].tie = 99;
            }
            idx.reline(5, line[5]);
            idx.begin(now, pos);
            now = 60;
            idx.begin(now, pos);
            std::array<int64_t, 1> bud {3 * one};
            if (mismatch == 0) {
                // the lines agree with the scheduler: the answers are a sort's
                std::vector<SrtfDrift::Pos> order;
                for (size_t j = 0; j < N; ++j)
                    order.push_back(pos(int(j)));
                std::sort(order.begin(), order.end());
                std::array<int64_t, 1> left = bud;
                const int expect = walkoracle::firstNotFitting(order, static_cast<const SrtfDrift::Pos*>(nullptr),
                                                               static_cast<const SrtfDrift::Pos*>(nullptr), left,
                                                               [&](int) { return &one; });
                QCOMPARE(expect, 3);
                QCOMPARE(idx.firstNotFitting(nullptr, nullptr, bud.data()), expect);
                QVERIFY(bud == left);
                const SrtfDrift::Pos last = idx.last();
                QCOMPARE(last.job, 5);
                QCOMPARE(last.key[0], 97.5);
            } else {
                bool caught = false;
                try {
                    idx.last(); // job 5's position is read from its line
                } catch (const std::logic_error&) {
                    caught = true;
                }
                QVERIFY2(caught, mismatch == 1 ? "a rate the scheduler does not have" : "a tie-break it does not have");
            }
        }
        // the position itself is checked where it is read, whatever answer it feeds: a job entering with a
        // tie-break the scheduler does not give it stops at the insert
        SrtfDrift idx;
        idx.reset(2, 1);
        idx.setCheck(true);
        idx.begin(0, [](int j) { return SrtfDrift::Pos {{50, 0, double(j), 0, 0}, j}; });
        const int64_t one = 1000;
        idx.insert(0, &one, SrtfLine {50, 0, 1, 0});
        QVERIFY_THROWS_EXCEPTION(std::logic_error, idx.insert(1, &one, SrtfLine {50, 0, 1, 7}));
    }

    void treeMatchesAScan()
    {
        // jobs inserted at random keys (many ties), erased, renewed: after every step the leaves, their prefix sums,
        // the group sums and the last keys agree with the entries (checkLayout), and every query agrees with a scan
        // of the jobs by (u, job). Leaves split as they fill and leave the order as they empty; a rebuild lays out
        // ceil(n / kFill) leaves.
        const size_t types = 2, jobs = 3000;
        SrtfTree t;
        t.reset(jobs, types);
        std::mt19937_64 rng(7);
        std::vector<double> u(jobs, -1);
        std::vector<std::array<int64_t, 2>> use(jobs);
        auto scan = [&] {
            std::vector<std::pair<double, int>> in;
            for (size_t j = 0; j < jobs; ++j)
                if (u[j] >= 0)
                    in.push_back({u[j], int(j)});
            std::sort(in.begin(), in.end());
            return in;
        };
        auto key = [&] { return rng() % 3 == 0 ? double(rng() % 50) : double(rng() % 100000) / 97.0; };
        auto holding = [&]() -> std::array<int64_t, 2> { // in both types, in one (the walk reads its one entry) or none
            const int64_t a = int64_t(rng() % 4000), b = int64_t(rng() % 2000);
            switch (rng() % 8) {
            case 0: return {a, 0};
            case 1: return {0, b};
            case 2: return {0, 0};
            default: return {a, b};
            }
        };
        long splits = 0, drops = 0, notFitting = 0;
        double lastA = 0; // where the last walk began
        for (int round = 0; round < 400; ++round) {
            const int before = t.leaves();
            const int ops = int(rng() % 40);
            for (int k = 0; k < ops; ++k) {
                const int j = int(rng() % jobs);
                if (u[size_t(j)] >= 0 && rng() % 3 != 0) {
                    t.erase(j);
                    u[size_t(j)] = -1;
                } else {
                    u[size_t(j)] = key();
                    use[size_t(j)] = holding();
                    t.insert(j, u[size_t(j)], use[size_t(j)].data(), SrtfLine {});
                }
            }
            if (round == 200) // a stretch of keys emptied: its leaves leave the order
                for (size_t j = 0; j < jobs; ++j)
                    if (u[j] >= 0 && u[j] < 400) {
                        t.erase(int(j));
                        u[j] = -1;
                    }
            splits += t.leaves() > before ? 1 : 0;
            drops += t.leaves() < before ? 1 : 0;
            if (round % 50 == 49) {
                std::vector<SrtfTree::Entry> order;
                for (size_t j = 0; j < jobs; ++j)
                    if (u[j] >= 0) {
                        u[j] = key();
                        order.push_back({u[j], int(j), t.nodeOf(int(j))});
                    }
                std::sort(order.begin(), order.end());
                t.rebuild(order);
                QCOMPARE(t.leaves(), int((order.size() + SrtfTree::kFill - 1) / SrtfTree::kFill));
            }
            QVERIFY2(t.checkLayout().empty(), t.checkLayout().c_str());
            auto in = scan();
            QCOMPARE(t.size(), int(in.size()));
            if (in.empty())
                continue;
            QCOMPARE(t.jobAt(t.maxNode()), in.back().second);
            std::vector<int> all;
            t.nodes(all);
            QCOMPARE(all.size(), in.size());
            for (size_t i = 0; i < in.size(); ++i)
                QCOMPARE(t.jobAt(all[i]), in[i].second);
            for (int q = 0; q < 20; ++q) {
                if (q % 4 == 3) {
                    // changes between two questions where the first began (the index keeps its last answer while
                    // nothing changes): the jobs just below it leave, jobs just above it arrive; the next question
                    // begins there again
                    std::vector<std::pair<double, int>> below;
                    for (const auto& [x, j] : in)
                        if (x < lastA)
                            below.push_back({x, j});
                    for (size_t k = 0; k < 3 && k < below.size(); ++k) {
                        const int j = below[below.size() - 1 - k].second;
                        t.erase(j);
                        u[size_t(j)] = -1;
                    }
                    for (int k = 0; k < 40; ++k) {
                        const int j = int(rng() % jobs);
                        if (u[size_t(j)] >= 0)
                            continue;
                        u[size_t(j)] = lastA + double(k + 1) * 1e-6;
                        use[size_t(j)] = holding();
                        t.insert(j, u[size_t(j)], use[size_t(j)].data(), SrtfLine {});
                    }
                    in = scan();
                    if (in.empty())
                        break;
                }
                double lo = key(), hi = key();
                if (hi < lo)
                    std::swap(lo, hi);
                if (q % 4 == 3)
                    lo = std::min(lastA, hi);
                std::array<int64_t, 2> got {0, 0}, want {0, 0};
                t.sum(lo, hi, got.data());
                std::vector<int> col, wantCol;
                t.collect(lo, hi, col);
                for (const auto& [x, j] : in)
                    if (x >= lo && x < hi) {
                        for (size_t k = 0; k < types; ++k)
                            want[k] += use[size_t(j)][k];
                        wantCol.push_back(j);
                    }
                QCOMPARE(got, want);
                QCOMPARE(col.size(), wantCol.size());
                for (size_t i = 0; i < col.size(); ++i)
                    QCOMPARE(t.jobAt(col[i]), wantCol[i]);
                // walk: [a, b) and [c, d) handed to `near` (which keeps odd jobs that fit, stops at a job that
                // does not fit when it is a multiple of 5), [b, c) kept while it fits
                double cut[4] = {key(), key(), key(), key()};
                std::sort(cut, cut + 4);
                lastA = cut[0];
                std::array<int64_t, 2> bud {int64_t(rng() % 400000), int64_t(rng() % 200000)}, left = bud;
                int expect = -1;
                for (const auto& [x, j] : in) {
                    if (x < cut[0])
                        continue;
                    if (!(x < cut[3]))
                        break;
                    const int64_t* v = use[size_t(j)].data();
                    const bool fit = v[0] <= left[0] && v[1] <= left[1];
                    if (x >= cut[1] && x < cut[2]) {
                        if (!fit) {
                            expect = j;
                            break;
                        }
                    } else if (j % 2 == 0) {
                        continue;
                    } else if (!fit) {
                        if (j % 5 == 0) {
                            expect = j;
                            break;
                        }
                        continue;
                    }
                    left[0] -= v[0];
                    left[1] -= v[1];
                }
                const int got2 = t.walk(cut[0], cut[1], cut[2], cut[3], bud.data(), t.noneNegative(bud.data()), [&](int n, int64_t* b) {
                    const int j = t.jobAt(n);
                    const int64_t* v = t.useAt(n);
                    if (j % 2 == 0)
                        return 0;
                    if (v[0] > b[0] || v[1] > b[1])
                        return j % 5 == 0 ? 2 : 0;
                    b[0] -= v[0];
                    b[1] -= v[1];
                    return 1;
                });
                notFitting += expect >= 0 ? 1 : 0;
                QCOMPARE(got2 >= 0 ? t.jobAt(got2) : -1, expect);
                QCOMPARE(bud, left);
                // one job's holding against budgets that may be negative: the answer of a test type by type
                // (with a negative budget the one-entry shortcut is not taken: a holding of nothing there fails)
                for (int k = 0; k < 8; ++k) {
                    const int j = in[size_t(rng() % in.size())].second;
                    const std::array<int64_t, 2> b0 {int64_t(rng() % 5000) - 600, int64_t(rng() % 2500) - 300};
                    std::array<int64_t, 2> b1 = b0;
                    const int64_t* v = use[size_t(j)].data();
                    const bool fit = v[0] <= b0[0] && v[1] <= b0[1];
                    QCOMPARE(t.takeIfFits(t.nodeOf(j), b1.data(), t.noneNegative(b1.data())), fit);
                    const std::array<int64_t, 2> after {fit ? b0[0] - v[0] : b0[0], fit ? b0[1] - v[1] : b0[1]};
                    QCOMPARE(b1, after);
                }
            }
        }
        QVERIFY(splits > 10);
        QVERIFY(drops > 0);
        QVERIFY(notFitting > 500);
    }

    void sortEntriesMatchesASort()
    {
        // the renewal's bucket sort against std::sort by (u, job): ties in u (broken by job), zeros, values over
        // many octaves and ones differing in their lowest bits only (crowded buckets); short lists, and a negative
        // u (a comparison sort then)
        std::mt19937_64 rng(3);
        std::vector<SrtfTree::Entry> v, want, tmp;
        std::vector<size_t> counts;
        for (int round = 0; round < 300; ++round) {
            const size_t n = round % 10 == 0 ? rng() % 64 : 64 + rng() % 3000;
            v.clear();
            for (size_t i = 0; i < n; ++i) {
                double u;
                switch (rng() % 4) {
                case 0: u = double(rng() % 20); break; // ties
                case 1: u = 0.0; break;
                case 2: u = std::ldexp(double(rng() % 1000000), int(rng() % 40) - 20); break;
                default: u = std::nextafter(1234.5, 1e9) + double(rng() % 3) * 1e-13; break;
                }
                if (round == 7 && i == n / 2)
                    u = -1.0;
                v.push_back({u, int(rng() % 100000), int(i)});
            }
            want = v;
            std::sort(want.begin(), want.end());
            SrtfTree::sortEntries(v, tmp, counts);
            QCOMPARE(v.size(), want.size());
            for (size_t i = 0; i < n; ++i) {
                QCOMPARE(v[i].u, want[i].u);
                QCOMPARE(v[i].job, want[i].job);
            }
        }
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
