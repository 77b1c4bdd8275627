// Gavel (OSDI'20): every LP policy on hand-solved 2-job x 2-type cases, constraint and fairness properties on
// random instances, the throughput estimator, the round mechanism on small traces with the engine's
// invariants checked, and the bad inputs (model not estimable, infeasible LP, unparsable throughput file).
#include <QtTest>

#include <cmath>
#include <map>
#include <fstream>
#include <random>

#include "io/traceio.h"
#include "policy/gavel/gavellp.h"
#include "policy/gavel/gavelsched.h"
#include "policy/registry.h"
#include "sim/engine.h"
#include "gavelfixture.h"

using namespace ss;
using namespace ss::gavel;
using namespace gavelfix;

namespace {

JobRow row(std::vector<double> T, double remaining = 100, double arrival = 0)
{
    JobRow r;
    r.T = std::move(T);
    r.remaining = remaining;
    r.arrival = arrival;
    return r;
}

Problem twoByTwo(std::vector<double> t0, std::vector<double> t1)
{
    Problem p;
    p.workers = {1, 1};
    p.price = {1, 1};
    p.jobs = {row(std::move(t0), 100, 0), row(std::move(t1), 100, 1)};
    return p;
}

double thr(const Problem& p, const Solution& s, int m) { return effectiveThroughput(p, s, m); }

} // namespace

class TstGavel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // ---------------------------------------------------------------- hand-solved LPs (2 jobs x 2 types)
    void maxMinHeterogeneityAware()
    {
        // T0 = (3, 1), T1 = (1, 3): thr(X^equal) = 2 each; the unique optimum gives each job its fast type,
        // normalized throughput 3 / 2 = 1.5 each
        const Problem p = twoByTwo({3, 1}, {1, 3});
        const Solution s = solve(p, Objective::MaxMinFairness);
        QCOMPARE(checkConstraints(p, s), std::string());
        QVERIFY(std::fabs(s.objective - 1.5) < 1e-6);
        QVERIFY(std::fabs(s.X[0][0] - 1) < 1e-5 && s.X[0][1] < 1e-5);
        QVERIFY(std::fabs(s.X[1][1] - 1) < 1e-5 && s.X[1][0] < 1e-5);
    }

    void maxMinAgnosticLandsInTheCentre()
    {
        // with every T = 1 any X with full rows is optimal (level 1); the barrier returns the centre of that
        // face, 1/2 everywhere (as Gavel's ECOS), so the real normalized throughput of each job is
        // (3 x 0.5 + 1 x 0.5) / 2 = 1 < 1.5 of the heterogeneity-aware LP
        const Problem p = twoByTwo({3, 1}, {1, 3});
        Options o;
        o.agnostic = true;
        const Solution s = solve(p, Objective::MaxMinFairness, o);
        QCOMPARE(checkConstraints(p, s), std::string());
        QVERIFY(std::fabs(s.objective - 1) < 1e-6);
        for (int m = 0; m < 2; ++m)
            for (int j = 0; j < 2; ++j)
                QVERIFY2(std::fabs(s.X[size_t(m)][size_t(j)] - 0.5) < 1e-3, qPrintable(QString::number(s.X[size_t(m)][size_t(j)])));
        QVERIFY(std::fabs(thr(p, s, 0) / equalShareThroughput(p, 0) - 1.0) < 1e-3);
        // a vertex (simplex) is as optimal for the LP but puts each job on one type
        o.method = LpMethod::Simplex;
        const Solution v = solve(p, Objective::MaxMinFairness, o);
        QVERIFY(std::fabs(v.objective - 1) < 1e-6);
        QCOMPARE(checkConstraints(p, v), std::string());
    }

    void maxMinWeightsAndScale()
    {
        // one type of 2 GPUs; job0 needs 2 GPUs, job1 one, weights 1 and 2; T = 1: level t with
        // 2 x0 / 1 >= t, x1 / 2 >= t... normalized z thr / (w thr_eq): job0 2 x0, job1 x1 / 2;
        // capacity 2 x0 + x1 <= 2, rows <= 1: t = 2 x0 = x1 / 2 -> x1 = 4 x0, 6 x0 = 2 -> x0 = 1/3, x1 = 4/3 > 1,
        // so row 1 binds: x1 = 1, t = 1/2, x0 >= 1/4
        Problem p;
        p.workers = {2};
        p.jobs = {row({1}), row({1})};
        p.jobs[0].scale = 2;
        p.jobs[1].weight = 2;
        const Solution s = solve(p, Objective::MaxMinFairness);
        QCOMPARE(checkConstraints(p, s), std::string());
        QVERIFY2(std::fabs(s.objective - 0.5) < 1e-6, qPrintable(QString::number(s.objective)));
        QVERIFY(std::fabs(s.X[1][0] - 1) < 1e-5);
        QVERIFY(s.X[0][0] >= 0.25 - 1e-6);
    }

    void fifoGivesTheEarlierJobTheFastType()
    {
        // T = (2, 1) for both; FIFO weights 2 (earlier) and 1: job0 on A + job1 on B scores 2 + 0.5 = 2.5,
        // the swap 1 + 1 = 2
        const Problem p = twoByTwo({2, 1}, {2, 1});
        const Solution s = solve(p, Objective::Fifo);
        QCOMPARE(checkConstraints(p, s), std::string());
        QVERIFY(std::fabs(s.objective - 2.5) < 1e-5);
        QVERIFY(std::fabs(s.X[0][0] - 1) < 1e-4 && std::fabs(s.X[1][1] - 1) < 1e-4);
    }

    void sjfGivesTheShorterJobTheFastType()
    {
        Problem p = twoByTwo({2, 1}, {2, 1});
        p.jobs[0].remaining = 1000; // job1 (later, shorter) comes first
        p.jobs[1].remaining = 10;
        const Solution s = solve(p, Objective::Sjf);
        QCOMPARE(checkConstraints(p, s), std::string());
        QVERIFY(std::fabs(s.X[1][0] - 1) < 1e-4 && std::fabs(s.X[0][1] - 1) < 1e-4);
    }

    void finishTimeFairness()
    {
        // T = (2, 1) both, nothing done yet: X^isolated = 1/2 of each type -> 1.5 steps/s, D = 100 / 1.5;
        // rho_m = 1.5 / thr_m; the best is thr = 1.5 each (capacity 2 + 1 = 3), rho = 1
        const Problem p = twoByTwo({2, 1}, {2, 1});
        QVERIFY(std::fabs(isolatedThroughput(p, 0) - 1.5) < 1e-12);
        const Solution s = solve(p, Objective::FinishTimeFairness);
        QCOMPARE(checkConstraints(p, s), std::string());
        QVERIFY2(std::fabs(s.objective - 1.0) < 2e-3, qPrintable(QString::number(s.objective)));
        QVERIFY(thr(p, s, 0) >= 1.5 * (1 - 2e-3) && thr(p, s, 1) >= 1.5 * (1 - 2e-3));
        // job0 has already waited 50 s with nothing done: it must get more than job1 now
        Problem q = p;
        q.jobs[0].age = 50;
        const Solution w = solve(q, Objective::FinishTimeFairness);
        QVERIFY(thr(q, w, 0) > thr(q, w, 1));
    }

    void makespanBisection()
    {
        // remaining 400 and 200 steps, capacity 3 steps/s in all (A: 2, B: 1): T = 600 / 3 = 200 s; the
        // bisection stops within 5 % above it
        Problem p = twoByTwo({2, 1}, {2, 1});
        p.jobs[0].remaining = 400;
        p.jobs[1].remaining = 200;
        const Solution s = solve(p, Objective::Makespan);
        QCOMPARE(checkConstraints(p, s), std::string());
        QVERIFY2(s.objective >= 200 - 1e-6 && s.objective <= 210, qPrintable(QString::number(s.objective)));
        QVERIFY(thr(p, s, 0) >= 400 / s.objective - 1e-6 && thr(p, s, 1) >= 200 / s.objective - 1e-6);
    }

    void costWithAndWithoutSlos()
    {
        // prices A 3, B 1; T = (3, 2): a unit of time is worth 3/3 = 1 on A, 2/1 = 2 on B; both types full: 3
        Problem p = twoByTwo({3, 2}, {3, 2});
        p.price = {3, 1};
        p.jobs[0].remaining = 250;
        p.jobs[0].sloLeft = 100; // needs 2.5 steps/s: feasible
        Solution s = solve(p, Objective::CostThroughput);
        QCOMPARE(checkConstraints(p, s), std::string());
        QVERIFY(std::fabs(s.objective - 3) < 1e-5);
        QVERIFY(!s.fellBack);
        QVERIFY(thr(p, s, 0) >= 2.5 - 1e-5);
        p.jobs[0].remaining = 500; // 5 steps/s: more than the job can ever get -> solved without SLOs
        s = solve(p, Objective::CostThroughput);
        QVERIFY(s.fellBack);
        QVERIFY(std::fabs(s.objective - 3) < 1e-5);
    }

    void hierarchicalWaterFilling()
    {
        // one GPU; job0 alone in entity 0, jobs 1 and 2 in entity 1: fairness across entities gives
        // 1/2 to each entity (plain max-min would give 1/3 to each job)
        Problem p;
        p.workers = {1};
        p.jobs = {row({1}, 100, 0), row({1}, 100, 1), row({1}, 100, 2)};
        p.jobs[1].entity = p.jobs[2].entity = 1;
        Solution s = solve(p, Objective::Hierarchical);
        QCOMPARE(checkConstraints(p, s), std::string());
        QVERIFY(std::fabs(s.X[0][0] - 0.5) < 1e-4 && std::fabs(s.X[1][0] - 0.25) < 1e-4 && std::fabs(s.X[2][0] - 0.25) < 1e-4);
        // FIFO inside the entity: its half goes 2:1 to the earlier job (weights halve by arrival): 1/2, 1/3, 1/6
        Options o;
        o.fifoInside = true;
        s = solve(p, Objective::Hierarchical, o);
        QVERIFY(std::fabs(s.X[0][0] - 0.5) < 1e-4 && std::fabs(s.X[1][0] - 1.0 / 3) < 1e-4 && std::fabs(s.X[2][0] - 1.0 / 6) < 1e-4);
        // a job capped by its type frees capacity for the next level: job0 runs only on B (1 GPU)
        // and is frozen at its level while jobs 1 and 2 share A
        Problem q;
        q.workers = {1, 1};
        q.jobs = {row({0, 1}, 100, 0), row({1, 0}, 100, 1), row({1, 0}, 100, 2)};
        s = solve(q, Objective::Hierarchical);
        QCOMPARE(checkConstraints(q, s), std::string());
        QVERIFY(std::fabs(s.X[0][1] - 1) < 1e-4 && std::fabs(s.X[1][0] - 0.5) < 1e-4 && std::fabs(s.X[2][0] - 0.5) < 1e-4);
    }

    void spaceSharingPairRows()
    {
        // one GPU, T = 2 alone, 1.5 each when sharing: alone the best is 1/2 of the time each (level 0.5);
        // sharing all the time gives each 1.5 / 2 = 0.75
        Problem p;
        p.workers = {1};
        p.jobs = {row({2}), row({2})};
        Solution s = solve(p, Objective::MaxMinFairness);
        QVERIFY(std::fabs(s.objective - 0.5) < 1e-6);
        p.pairs.push_back({0, 1, {1.5}, {1.5}});
        s = solve(p, Objective::MaxMinFairness);
        QCOMPARE(checkConstraints(p, s), std::string());
        QVERIFY2(std::fabs(s.objective - 0.75) < 1e-6, qPrintable(QString::number(s.objective)));
        QVERIFY(std::fabs(s.X[2][0] - 1) < 1e-4);
        // FIFO with pairs: the pair row carries 1.5 normalized, more than either job alone
        s = solve(p, Objective::Fifo);
        QCOMPARE(checkConstraints(p, s), std::string());
        QVERIFY(std::fabs(s.X[2][0] - 1) < 1e-4);
    }

    // ---------------------------------------------------------------- properties on random instances
    void propertiesOnRandomInstances()
    {
        std::mt19937_64 rng(7);
        std::uniform_real_distribution<double> U(0.2, 5.0);
        const Objective all[] = {Objective::MaxMinFairness, Objective::Fifo, Objective::Sjf, Objective::FinishTimeFairness,
                                 Objective::Makespan, Objective::CostThroughput, Objective::Hierarchical};
        for (int inst = 0; inst < 12; ++inst) {
            Problem p;
            p.workers = {double(1 + rng() % 6), double(1 + rng() % 6), double(1 + rng() % 6)};
            p.price = {3, 1.5, 0.5};
            const int n = 2 + int(rng() % 12);
            for (int m = 0; m < n; ++m) {
                JobRow r = row({U(rng), U(rng), U(rng)}, 100 * U(rng), m);
                r.scale = double(1 << (rng() % 2));
                r.entity = int(rng() % 3);
                r.done = 10 * U(rng);
                r.age = 20 * U(rng);
                if (rng() % 3 == 0)
                    r.sloLeft = 200 * U(rng);
                p.jobs.push_back(r);
            }
            for (Objective o : all) {
                const Solution s = solve(p, o);
                QVERIFY2(checkConstraints(p, s).empty(), qPrintable(QString::fromStdString(std::string(toString(o)) + ": " + checkConstraints(p, s))));
            }
            // the heterogeneity-aware LAS maximizes the least normalized throughput with the real T: the
            // agnostic allocation, judged with the real T, can only be worse or equal
            const Solution aware = solve(p, Objective::MaxMinFairness);
            Options ag;
            ag.agnostic = true;
            const Solution agn = solve(p, Objective::MaxMinFairness, ag);
            double minAware = 1e300, minAgn = 1e300;
            for (int m = 0; m < n; ++m) {
                const double norm = p.jobs[size_t(m)].scale / equalShareThroughput(p, m);
                minAware = std::min(minAware, norm * thr(p, aware, m));
                minAgn = std::min(minAgn, norm * thr(p, agn, m));
            }
            QVERIFY2(minAware >= minAgn - 1e-6, qPrintable(QString("%1 < %2").arg(minAware).arg(minAgn)));
            QVERIFY(std::fabs(minAware - aware.objective) < 1e-5 * std::max(1.0, aware.objective));
        }
    }

    // ---------------------------------------------------------------- estimator
    void estimatorFillsMissingTypes()
    {
        ThroughputTable t;
        t.setReferenceType("v100");
        // references measured everywhere; "new" only on v100 and p100, shaped like ref1 (x2)
        t.setStepsPerSecond("ref1", 1, "v100", 10);
        t.setStepsPerSecond("ref1", 1, "p100", 5);
        t.setStepsPerSecond("ref1", 1, "k80", 2);
        t.setStepsPerSecond("ref2", 1, "v100", 10);
        t.setStepsPerSecond("ref2", 1, "p100", 9);
        t.setStepsPerSecond("ref2", 1, "k80", 8);
        t.setStepsPerSecond("new", 1, "v100", 20);
        t.setStepsPerSecond("new", 1, "p100", 10);
        const ThroughputRow r = throughputRow(t, "new", 1, {"V100", "P100", "K80"});
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(int(r.estimated[0]), 0);
        QCOMPARE(int(r.estimated[2]), 1);
        // k = 3 closest, only 2 references here: geometric mean of 2 x 2 (ref1, exact shape) and ref2's
        // 8 x exp(mean(log(20/10), log(10/9)))
        const double fromRef2 = 8 * std::exp(0.5 * (std::log(2.0) + std::log(10.0 / 9)));
        QVERIFY(std::fabs(r.sps[2] - std::sqrt(4.0 * fromRef2)) < 1e-9);
        QVERIFY(r.how.find("ref1") != std::string::npos);
        // an unmeasured scale: scale 1 x the references' median scale-out
        t.setStepsPerSecond("ref1", 2, "v100", 18);
        t.setStepsPerSecond("ref1", 2, "p100", 9);
        t.setStepsPerSecond("ref1", 2, "k80", 3.6);
        const ThroughputRow s = throughputRow(t, "new", 2, {"v100", "p100", "k80"});
        QVERIFY2(s.error.empty(), s.error.c_str());
        QVERIFY(std::fabs(s.sps[0] - 36) < 1e-9 && s.estimated[0]);
        // a measured 0 (does not fit that GPU) stays 0 and is not estimated
        t.setStepsPerSecond("big", 1, "v100", 5);
        t.setStepsPerSecond("big", 1, "p100", 0);
        const ThroughputRow z = throughputRow(t, "big", 1, {"v100", "p100", "k80"});
        QVERIFY2(z.error.empty(), z.error.c_str());
        QCOMPARE(z.sps[1], 0.0);
        QCOMPARE(int(z.estimated[1]), 0);
        QVERIFY(z.sps[2] > 0 && z.estimated[2]);
        // nothing measured for the model at all: not estimable, a one-line error naming it
        const ThroughputRow u = throughputRow(t, "ghost", 1, {"v100"});
        QVERIFY(u.error.find("'ghost'") != std::string::npos && u.error.find("not estimable") != std::string::npos);
        QVERIFY(u.error.find('\n') == std::string::npos);
    }

    // ---------------------------------------------------------------- round mechanism in the engine
    void aloneAJobRunsOnItsFastTypeAtItsThroughput()
    {
        // fastB: 1 step/s on A (the reference), 2 on B; 1000 reference-seconds = 1000 steps -> 500 s on B
        const ClusterSpec c = twoTypes(1, 1);
        const Trace t = abTrace({{0, "fastB", 1000}});
        const ThroughputTable tab = abTable();
        auto s = makeScheduler("gavel-las");
        Simulator sim(c, t, *s, gavelConfig(), &tab);
        sim.run();
        QCOMPARE(sim.rt(0).status, JobStatus::Done);
        QVERIFY2(std::fabs(sim.rt(0).end - 500) < 1e-6, qPrintable(QString::number(sim.rt(0).end)));
        QCOMPARE(sim.rt(0).preemptions, 0);
    }

    void roundsShareAndRecordTheAllocation()
    {
        // four jobs on one A and one B GPU: time-shared in 360 s rounds; every job finishes, the engine's
        // invariants hold at every decision, each round records X (rows sum <= 1) and a ranked queue
        const ClusterSpec c = twoTypes(1, 1);
        const Trace t = abTrace({{0, "fastA", 2000}, {0, "fastB", 1500}, {10, "fastA", 800}, {20, "fastB", 3000}});
        const ThroughputTable tab = abTable();
        auto s = makeScheduler("gavel-las");
        Recorder rec;
        Simulator sim(c, t, *s, gavelConfig(), &tab);
        sim.addObserver(&rec);
        sim.run();
        for (int j = 0; j < 4; ++j)
            QCOMPARE(sim.rt(j).status, JobStatus::Done);
        int withX = 0;
        for (const DecisionRecord& r : rec.records) {
            if (r.allocation.empty())
                continue;
            ++withX;
            QCOMPARE(r.allocation->types.size(), size_t(2));
            for (size_t i = 0; i < r.allocation->jobs.size(); ++i)
                QVERIFY(r.allocation->at(i, 0) + r.allocation->at(i, 1) <= 1 + 1e-5);
            for (const PlacementRecord& p : r.placements)
                QVERIFY(p.reason.find("gavel round") != std::string::npos);
        }
        QVERIFY(withX >= 3);
        // job 2 (fastA: 800 s of work on A, the reference type, 4x that on B) only ever runs on A's GPU 0,
        // and runs exactly 800 s there: jobs progress at T of the type they hold
        for (const DecisionRecord& r : rec.records)
            for (const PlacementRecord& p : r.placements)
                if (p.job == 2)
                    QCOMPARE(p.slots.front().gpu, 0);
        QVERIFY2(std::fabs(sim.rt(2).executed - 800) < 1e-6, qPrintable(QString::number(sim.rt(2).executed)));
        QVERIFY(sim.rt(2).preemptions >= 1); // time-shared with job 0 in alternate rounds
        // the same inputs give the same run
        auto s2 = makeScheduler("gavel-las");
        Simulator again(c, t, *s2, gavelConfig(), &tab);
        again.run();
        for (int j = 0; j < 4; ++j)
            QCOMPARE(again.rt(j).end, sim.rt(j).end);
    }

    void priorityWeightsReachTheLp()
    {
        // Two identical fastA jobs on a cluster of one A GPU: max-min fairness with weights 5 and 1 gives
        // X = 5/6 and 1/6 (the weighted job's normalized throughput is 5x the other's). The weight comes from
        // the QoS class "w5", as Gavel's priority_weight column and its generator's weighted jobs are read.
        ClusterSpec c;
        c.name = "a1";
        c.types = {{"A", 1.0, 16, 1.0}};
        c.switches = {{"s0", 100}};
        c.machines.push_back({"a0", 0, 1, 0, 0, 0, 25});
        c.finalize();
        Trace t = abTrace({{0, "fastA", 20000}, {0, "fastA", 20000}});
        t.qosClasses = {"w1", "w5", "gold"};
        t.jobs[0].qos = 1;
        t.jobs[1].qos = 0;
        QCOMPARE(t.priorityWeight(t.jobs[0]), 5.0);
        QCOMPARE(t.priorityWeight(t.jobs[1]), 1.0);
        Job other = t.jobs[1];
        other.qos = 2;
        QCOMPARE(t.priorityWeight(other), 1.0); // a class that is not "w<number>" carries no weight
        const ThroughputTable tab = abTable();
        auto s = makeScheduler("gavel-las");
        Recorder rec;
        Simulator sim(c, t, *s, gavelConfig(), &tab);
        sim.addObserver(&rec);
        sim.run();
        const DecisionRecord* first = nullptr;
        for (const DecisionRecord& r : rec.records)
            if (!r.allocation.empty()) {
                first = &r;
                break;
            }
        QVERIFY(first);
        QCOMPARE(first->allocation->jobs.size(), size_t(2));
        for (size_t i = 0; i < 2; ++i) {
            const double want = first->allocation->jobs[i] == 0 ? 5.0 / 6 : 1.0 / 6;
            QVERIFY2(std::fabs(first->allocation->at(i, 0) - want) < 2e-3,
                     qPrintable(QString::number(first->allocation->at(i, 0))));
        }
        // and the weighted job finishes first
        QVERIFY(sim.rt(0).end < sim.rt(1).end);
    }

    void everyGavelPolicyRunsASmallTrace()
    {
        const ClusterSpec c = twoTypes(2, 2);
        const Trace t = abTrace({{0, "fastA", 2000}, {0, "fastB", 1500}, {10, "fastA", 800}, {20, "fastB", 3000},
                                 {400, "fastA", 100}, {900, "fastB", 700}});
        const ThroughputTable tab = abTable();
        for (const std::string& name : schedulerNames()) {
            if (name.rfind("gavel-", 0) != 0)
                continue;
            auto s = makeScheduler(name);
            Simulator sim(c, t, *s, gavelConfig(), &tab);
            sim.run();
            for (int j = 0; j < int(t.jobs.size()); ++j)
                QVERIFY2(sim.rt(j).status == JobStatus::Done, qPrintable(QString::fromStdString(name)));
        }
    }

    void idealModeRunsAtTheEffectiveThroughput()
    {
        // two fastB jobs (1 step/s on A, 2 on B), 1000 steps each, one A and one B GPU: max-min shares both
        // types equally, 0.5 x 1 + 0.5 x 2 = 1.5 steps/s each, so both finish at 1000 / 1.5 s
        const ClusterSpec c = twoTypes(1, 1);
        const Trace t = abTrace({{0, "fastB", 1000}, {0, "fastB", 1000}});
        const ThroughputTable tab = abTable();
        PerfConfig perf;
        perf.crossMachine = perf.crossSwitch = perf.interference = 0;
        const std::vector<double> end = simulateGavelIdeal(c, t, &tab, Objective::MaxMinFairness, false, perf);
        QVERIFY2(std::fabs(end[0] - 1000 / 1.5) < 1e-3 && std::fabs(end[1] - 1000 / 1.5) < 1e-3,
                 qPrintable(QString("%1 %2").arg(end[0], 0, 'g', 12).arg(end[1], 0, 'g', 12)));
        // a later arrival: job 1 comes at 300 when job 0 (alone: all of B, 2 steps/s) has 400 steps left
        const Trace u = abTrace({{0, "fastB", 1000}, {300, "fastB", 1000}});
        const std::vector<double> e2 = simulateGavelIdeal(c, u, &tab, Objective::MaxMinFairness, false, perf);
        QVERIFY(e2[0] > 300 && e2[0] < e2[1]);
    }

    void idealModeBesideTheMechanismInRunStats()
    {
        // gavel.ideal=1: the run's own figures carry the ideal mode on the same jobs (what the studio's Compare
        // shows beside the mechanism): the ideal mean JCT is the fluid simulation's, the mechanism's is the run's
        const ClusterSpec c = twoTypes(1, 1);
        const Trace t = abTrace({{0, "fastB", 1000}, {0, "fastB", 1000}});
        const ThroughputTable tab = abTable();
        PolicyOptions o;
        o.params["gavel.ideal"] = "1";
        auto s = makeScheduler("gavel-las", o);
        Simulator sim(c, t, *s, gavelConfig(), &tab);
        sim.run();
        std::map<std::string, double> st;
        for (const auto& [k, v] : s->runStats())
            st[k] = v;
        QCOMPARE(st.at("ideal_jobs"), 2.0);
        QVERIFY2(std::fabs(st.at("ideal_mean_jct_min") - 1000 / 1.5 / 60) < 1e-4, qPrintable(QString::number(st.at("ideal_mean_jct_min"))));
        const double mech = (sim.rt(0).end + sim.rt(1).end) / 2 / 60;
        QVERIFY(std::fabs(st.at("mechanism_mean_jct_min") - mech) < 1e-9);
        QVERIFY(std::fabs(st.at("mechanism_over_ideal") - mech / (1000 / 1.5 / 60)) < 1e-4);
        QVERIFY(st.at("rounds") >= 1 && st.at("lp_solves") >= 1);
        // off by default: no ideal figures
        auto plain = makeScheduler("gavel-las");
        Simulator sim2(c, t, *plain, gavelConfig(), &tab);
        sim2.run();
        for (const auto& kv : plain->runStats())
            QVERIFY(kv.first.rfind("ideal", 0) != 0 && kv.first.rfind("mechanism", 0) != 0);
    }

    void realGavelTraceExcerpt()
    {
        const std::string dir = std::string(SS_SHARED_TRACES) + "/gavel";
        if (!std::ifstream(dir + "/simulation_throughputs.json"))
            QSKIP("../shared/traces/gavel is absent");
        TraceReadOptions o;
        const Trace full = readTrace(dir + "/seed0/6214e9.trace", o);
        Trace t = full;
        t.jobs.resize(60);
        const ThroughputTable tab = readThroughputTable(dir + "/simulation_throughputs.json");
        const ClusterSpec c = makeClusterPreset("gavel-108");
        auto s = makeScheduler("gavel-las");
        RunConfig cfg = gavelConfig();
        cfg.recordDecisions = false;
        Simulator sim(c, t, *s, cfg, &tab);
        sim.run();
        for (int j = 0; j < 60; ++j)
            QCOMPARE(sim.rt(j).status, JobStatus::Done);
    }

    void allocationSurvivesEveryLogEncoding()
    {
        DecisionLog log;
        log.machineCount = 2;
        log.gpuCount = 2;
        DecisionRecord r;
        r.time = 360;
        r.allocation.edit().types = {"V100", "K80"};
        r.allocation.edit().jobs = {4, 2, 9};
        r.allocation.edit().share = {0.6f, 0.4f, 0.0f, 1.0f, 0.25f, 0.0f};
        r.allocation.edit().estimated = {0, 1, 0};
        log.records.push_back(r);
        log.records.push_back(DecisionRecord {}); // a record without an allocation between
        log.records.back().index = 1;
        log.records.push_back(r);
        auto same = [](const AllocationRecord& a, const AllocationRecord& b) {
            return a.types == b.types && a.jobs == b.jobs && a.share == b.share && a.estimated == b.estimated;
        };
        const std::string blob = encodeDecisionLogBlob(log);
        const DecisionLog back = decodeDecisionLogBlob(blob.data(), blob.size());
        QVERIFY(same(back.records[0].allocation, r.allocation));
        QVERIFY(back.records[1].allocation.empty());
        QVERIFY(same(back.records[2].allocation, r.allocation));
        QTemporaryDir dir;
        const std::string path = dir.filePath("log.ssdlog").toStdString();
        DecisionLogWriter w(path, 2, 2);
        for (const DecisionRecord& x : log.records)
            w.write(x);
        w.close();
        const DecisionLog file = readDecisionLog(path);
        QVERIFY(same(file.records[2].allocation, r.allocation));
        // a store blob of version 2 (admissions, no allocation) still reads
        const unsigned char v2[] = {'S', 'S', 'L', 'B', 2, 2, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0x24, 0x40, 1, 6, 0, 1,
                                    1, 6, 0, 0, 0, 0x80, 0x3f, 0, 0, 0};
        const DecisionLog old = decodeDecisionLogBlob(v2, sizeof v2);
        QCOMPARE(old.records.at(0).queue.at(0).job, 3);
        QVERIFY(old.records.at(0).allocation.empty());
    }

    void recordAllocationCopiesDeepAndFreesWhenBlank()
    {
        // DecisionRecord::allocation is a pointer (RareField): a copied record owns its own allocation, a blank one
        // reads as an empty AllocationRecord, and assigning a blank one frees what was there.
        DecisionRecord a;
        QVERIFY(a.allocation.empty());
        QVERIFY(a.allocation->types.empty());
        AllocationRecord x;
        x.types = {"V100"};
        x.jobs = {7};
        x.share = {0.5f};
        x.estimated = {0};
        a.allocation = x;
        DecisionRecord b = a;
        QCOMPARE(b.allocation->jobs, std::vector<int>({7}));
        b.allocation.edit().jobs = {8};
        QCOMPARE(a.allocation->jobs, std::vector<int>({7}));
        QCOMPARE(b.allocation->jobs, std::vector<int>({8}));
        DecisionRecord c;
        c = b;
        QCOMPARE(c.allocation->types, std::vector<std::string>({"V100"}));
        b.allocation = AllocationRecord {};
        QVERIFY(b.allocation.empty() && b.allocation->types.empty());
        QCOMPARE(c.allocation->jobs, std::vector<int>({8}));
        AllocationRecord noteOnly; // no jobs, but not blank: kept
        noteOnly.note = "plan";
        c.allocation = noteOnly;
        QCOMPARE(c.allocation->note, std::string("plan"));
    }

    // ---------------------------------------------------------------- bad input
    void modelNotEstimableIsAOneLineError()
    {
        const ClusterSpec c = twoTypes(1, 1);
        const Trace t = abTrace({{0, "unknown-model", 100}});
        const ThroughputTable tab = abTable();
        auto s = makeScheduler("gavel-las");
        Simulator sim(c, t, *s, gavelConfig(), &tab);
        try {
            sim.run();
            QFAIL("expected an error");
        } catch (const std::runtime_error& e) {
            const std::string w = e.what();
            QVERIFY2(w.find("'unknown-model'") != std::string::npos && w.find("not estimable") != std::string::npos, e.what());
            QVERIFY(w.find('\n') == std::string::npos);
        }
        // with gavel.missing=typespeed it runs at the cluster's type speeds
        PolicyOptions o;
        o.params["gavel.missing"] = "typespeed";
        auto s2 = makeScheduler("gavel-las", o);
        Simulator sim2(c, t, *s2, gavelConfig(), &tab);
        sim2.run();
        QCOMPARE(sim2.rt(0).status, JobStatus::Done);
    }

    void infeasibleLpIsAOneLineError()
    {
        // a job that cannot run on any type: no makespan is feasible
        Problem p;
        p.workers = {1, 1};
        p.jobs = {row({0, 0}, 100)};
        for (Objective o : {Objective::Makespan, Objective::MaxMinFairness, Objective::FinishTimeFairness}) {
            try {
                solve(p, o);
                QFAIL("expected LpError");
            } catch (const LpError& e) {
                const std::string w = e.what();
                QVERIFY2(w.rfind("gavel ", 0) == 0 && w.find('\n') == std::string::npos, e.what());
            }
        }
    }

    void unparsableThroughputFileIsAOneLineError()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("bad.json").toStdString();
        {
            std::ofstream f(path);
            f << "{\"v100\": {\"('A3C', 1)\": {\"null\": \"fast\"}}}\n";
        }
        try {
            readThroughputTable(path);
            QFAIL("expected an error");
        } catch (const std::exception& e) {
            const std::string w = e.what();
            QVERIFY2(w.find("bad.json") != std::string::npos && w.find("null") != std::string::npos, e.what());
            QVERIFY(w.find('\n') == std::string::npos);
        }
        {
            std::ofstream f(path);
            f << "{\"v100\": {\"('A3C', 1)\": {\"null\": 3.0, \n";
        }
        try {
            readThroughputTable(path);
            QFAIL("expected an error");
        } catch (const std::exception& e) {
            QVERIFY2(std::string(e.what()).find("bad.json") != std::string::npos, e.what());
        }
    }

    void policiesAreListedWithTheirParams()
    {
        for (const char* n : {"gavel-las", "gavel-las-agnostic", "gavel-ftf", "gavel-fifo", "gavel-sjf", "gavel-makespan",
                              "gavel-cost", "gavel-hierarchical", "gavel-las-ss", "gavel-fifo-ss"}) {
            const PolicyInfo info = policyInfo(n);
            QCOMPARE(info.group, std::string("joint"));
            bool round = false;
            for (const ParamSpec& p : info.params)
                round = round || p.key == "gavel.round";
            QVERIFY(round);
        }
        QVERIFY(!validatePolicyParams("gavel-las", {{"gavel.round", "0"}}).empty());
        QVERIFY(!validatePolicyParams("gavel-las", {{"gavel.solver", "ecos"}}).empty());
    }
};

QTEST_GUILESS_MAIN(TstGavel)
#include "tst_gavel.moc"
