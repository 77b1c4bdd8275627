// Chronus (ALGORITHMS.md §5): hand-checked lease cases. A job that fits only with a later deadline, a soft
// job meeting its second level, a lease boundary where the MILP and the greedy selector agree (and the
// fallback when CBC finds the MILP infeasible), the overrun demotion, a small run with the engine's
// invariants checked, and Chronus's weighted miss rate.
#include <QtTest>

#include <QTemporaryDir>

#include <cmath>
#include <fstream>
#include <functional>

#include "io/ioerror.h"
#include "io/runio.h"
#include "io/traceio.h"
#include "run/runner.h"
#include "metrics/metrics.h"
#include "model/rng.h"
#include "model/tracegen.h"
#include "policy/chronus/chronus.h"
#include "policy/registry.h"
#include "sim/engine.h"

using namespace ss;
using namespace ss::chronus;

namespace {

Job sloJob(int64_t id, double submit, double gpus, double duration, std::vector<DeadlineLevel> levels)
{
    Job j;
    j.id = id;
    j.submit = submit;
    j.gpus = gpus;
    j.duration = duration;
    j.deadlines = std::move(levels);
    return j;
}

/// Two GPU types, A (0) and B (1), one switch; `machines`: (type, GPUs) per machine, in id order.
ClusterSpec twoTypeCluster(const std::vector<std::pair<int, int>>& machines)
{
    ClusterSpec c;
    c.name = "two types";
    c.types = {{"A", 1.0, 16, 1.0}, {"B", 1.0, 16, 1.0}};
    c.switches = {{"s0", 100}};
    for (size_t m = 0; m < machines.size(); ++m)
        c.machines.push_back({"m" + std::to_string(m), machines[m].first, machines[m].second, 0, 0, 0, 25});
    c.finalize();
    return c;
}

ClusterSpec cluster(int machines, int gpus, double speed = 1.0)
{
    ClusterSpec c;
    c.name = "hand";
    c.types = {{"A", 1.0, 16, speed}};
    c.switches = {{"s0", 100}};
    for (int m = 0; m < machines; ++m)
        c.machines.push_back({"m" + std::to_string(m), 0, gpus, 0, 0, 0, 25});
    c.finalize();
    return c;
}

struct Log : SimObserver {
    std::vector<AdmissionRecord> admissions;
    void onDecision(const DecisionRecord& r) override
    {
        admissions.insert(admissions.end(), r.admissions.begin(), r.admissions.end());
    }
};

std::string writeFile(const QTemporaryDir& dir, const std::string& name, const std::string& text)
{
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    std::ofstream(path) << text;
    return path;
}

// The error readTrace throws for `text` in `format` (empty when it reads).
std::string readError(const std::string& path, const TraceReadOptions& o)
{
    try {
        readTrace(path, o);
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

const char* kChronusHeader =
    "job_id,user,num_gpu,submit_time,iterations,model_name,duration,interval,expect_time_list,expect_value_list,best_effort,job_type\n";

} // namespace

class TstChronus : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Local search's machine choice (ALGORITHMS.md §5.4): a machine with exactly the GPUs needed, else the
    // smallest free count that fits, ties to the lowest id, only machines of the job's GPU types; failing one
    // machine, the best 2-node split over two different machines. Hand-checked cases, and on random clusters
    // the properties every answer keeps.
    void localSearchPicksTheSmallestFittingMachine()
    {
        const ClusterSpec c = twoTypeCluster({{0, 8}, {1, 8}, {0, 8}, {1, 8}, {0, 8}, {1, 8}});
        const SplitSpeed speed;
        auto one = [&](int gpus, std::vector<int> fr, uint64_t mask = ~0ULL) {
            return localSearchPlace({{7, gpus, "resnet50", mask}}, fr, c, speed).parts.at(0);
        };
        using P = Parts;
        QCOMPARE(one(2, {4, 2, 8, 2, 0, 0}), (P {{1, 2}}));            // exact match, lowest id of two
        QCOMPARE(one(2, {4, 3, 8, 0, 5, 0}), (P {{1, 2}}));            // no exact match: the smallest that fits
        QCOMPARE(one(2, {3, 3, 3, 3, 3, 3}), (P {{0, 2}}));            // ties: the lowest id
        QCOMPARE(one(2, {2, 4, 2, 3, 2, 8}, 0b10), (P {{3, 2}}));      // type B only: machines 1, 3, 5
        QCOMPARE(one(4, {1, 0, 3, 0, 0, 0}), (P {{2, 3}, {0, 1}}));    // split [3, 1] over two machines
        QCOMPARE(one(4, {0, 0, 2, 0, 0, 0}), P {});                    // [2, 2] would need machine 2 twice
        QCOMPARE(one(4, {0, 3, 2, 1, 0, 0}, 0b10), (P {{1, 3}, {3, 1}})); // split within type B
        QCOMPARE(one(3, {0, 8, 0, 8, 0, 8}, 0b01), P {});              // type A has nothing free

        // random batches: every placed job gets its GPUs on machines of its types, one or two distinct machines,
        // and no machine gives more than it has free
        Rng rng(11);
        for (int round = 0; round < 300; ++round) {
            std::vector<int> fr(c.machines.size());
            for (int& f : fr)
                f = int(rng.uniform() * 9);
            std::vector<PlaceRequest> reqs;
            const int n = 1 + int(rng.uniform() * 6);
            for (int i = 0; i < n; ++i)
                reqs.push_back({i, 1 + int(rng.uniform() * 8), "vgg16", rng.uniform() < 0.3 ? uint64_t(1 + int(rng.uniform() * 3)) : ~0ULL});
            const BatchPlacement bp = localSearchPlace(reqs, fr, c, speed);
            QCOMPARE(bp.parts.size(), reqs.size());
            std::vector<int> left = fr;
            for (size_t i = 0; i < reqs.size(); ++i) {
                const Parts& p = bp.parts[i];
                if (p.empty())
                    continue;
                QVERIFY(p.size() <= 2);
                if (p.size() == 2)
                    QVERIFY(p[0].first != p[1].first);
                int got = 0;
                for (const auto& [m, g] : p) {
                    QVERIFY(g > 0);
                    QVERIFY((reqs[i].typeMask >> c.machines[size_t(m)].type) & 1ULL);
                    left[size_t(m)] -= g;
                    QVERIFY2(left[size_t(m)] >= 0, "a machine gave more GPUs than it had free");
                    got += g;
                }
                QCOMPARE(got, reqs[i].gpus);
            }
        }
    }

    void roundUpAndEstimate()
    {
        QCOMPARE(roundUpGpus(1), 1);
        QCOMPARE(roundUpGpus(3), 4);
        QCOMPARE(roundUpGpus(5), 8);
        QCOMPARE(roundUpGpus(7), 8);
        QCOMPARE(roundUpGpus(12), 12);
        // est = duration x (1 + (1 + log2 8) x 0.5 / 20) x 1.1 = 900 x 1.1 x 1.1
        Trace t;
        t.jobs.push_back(sloJob(0, 0, 8, 900, {}));
        const ClusterSpec c = cluster(1, 8);
        ChronusScheduler s(ChronusParams {});
        RunConfig cfg;
        PerfModel perf(c, t, cfg.perf, 1);
        s.reset({c, t, perf, cfg});
        QVERIFY(std::fabs(s.estimate(0) - 900 * 1.1 * 1.1) < 1e-9);
    }

    void admissionBinarySearchOnDeadlines()
    {
        CapacityTable cap(8);
        cap.take(0, 8); // the first lease is full
        // the tightest level (1 lease) cannot be met; the second (2 leases) can: accepted later, lease 1
        const AdmissionResult r = admitGreedy(cap, 8, 1, {1, 2});
        QCOMPARE(int(r.kind), int(AdmissionResult::AcceptedLater));
        QCOMPARE(r.maxLease, 2);
        QCOMPARE(r.level, 1);
        QCOMPARE(r.leases, std::vector<int>({1}));
        // the binary search finds the smallest feasible deadline: leases 0..2 full, level ends at 6 -> 4
        CapacityTable busy(8);
        for (int l = 0; l < 3; ++l)
            busy.take(l, 8);
        const AdmissionResult b = admitGreedy(busy, 4, 1, {2, 6});
        QCOMPARE(b.maxLease, 4);
        QCOMPARE(b.leases, std::vector<int>({3}));
        // a strict job (one level) that does not fit: unaccepted
        const AdmissionResult u = admitGreedy(cap, 8, 1, {1});
        QCOMPARE(int(u.kind), int(AdmissionResult::Unaccepted));
        QVERIFY(u.leases.empty());
    }

    void softJobFitsOnlyWithLaterDeadlineAndMeetsSecondLevel()
    {
        // 8 GPUs, L = 20 min. A (strict, 20 min) and B (soft: 20 min value 10, 40 min value 8) each need the
        // whole cluster for one lease (est 900 x 1.21 = 1089 s). A takes lease 0; B fits only by 40 min
        // (accepted with a later deadline), runs when A ends (900 s) and ends at 1800 s: its second level.
        Trace t;
        t.jobs.push_back(sloJob(0, 0, 8, 900, {{1200, 10}}));
        t.jobs.push_back(sloJob(1, 0, 8, 900, {{1200, 10}, {2400, 8}}));
        const ClusterSpec c = cluster(1, 8);
        ChronusScheduler s(ChronusParams {});
        RunConfig cfg;
        cfg.perf.ideal = true;
        cfg.checkInvariants = true;
        cfg.recordDecisions = true;
        Simulator sim(c, t, s, cfg);
        MetricsCollector m;
        Log log;
        sim.addObserver(&m);
        sim.addObserver(&log);
        sim.run();
        QCOMPARE(int(s.jobClass(0)), int(JobClass::AcceptedSlo));
        QVERIFY(!s.acceptedLater(0));
        QVERIFY(s.acceptedLater(1));
        QCOMPARE(log.admissions.size(), size_t(2));
        QVERIFY2(log.admissions[1].reason.find("later deadline") != std::string::npos, log.admissions[1].reason.c_str());
        QCOMPARE(sim.rt(0).end, 900.0);
        QCOMPARE(sim.rt(1).firstStart, 900.0);
        QCOMPARE(sim.rt(1).end, 1800.0);
        QCOMPARE(m.jobs()[1].deadlineMet, 1);
        QCOMPARE(m.jobs()[1].deadlineValue, 8.0);
        const Summary sum = m.summary();
        QCOMPARE(sum.deadlineMissRate, 0.0);
        QVERIFY(std::fabs(sum.weightedMissRate - 0.1) < 1e-12); // (0 + (1 - 8/10)) / 2
        QCOMPARE(s.sloAccepted(), 2);
        QCOMPARE(s.sloAcceptedLater(), 1);
    }

    void milpAndGreedyAgree()
    {
        // A must take lease 0; B loses its first level either way (value 8 by lease 2); C fits late.
        std::vector<PlanJob> jobs = {{0, 8, 1, {{0, 1, 10}}}, {1, 8, 1, {{0, 1, 10}, {1, 2, 8}}}, {2, 8, 1, {{0, 3, 10}}}};
        const std::vector<int> cap = {8, 8, 8};
        MilpOptions mo;
        mo.minusCurrent = true;
        const MilpResult r = solveLeaseMilp(jobs, cap, mo, true);
        QVERIFY2(r.solved && r.optimal, r.status.c_str());
        QVERIFY(!r.byBound);
        const LeasePlan g = greedyPlan(jobs, cap);
        QVERIFY(g.complete);
        QCOMPARE(r.plan.level, g.level);
        QCOMPARE(r.plan.level, std::vector<int>({0, 1, 0}));
        QCOMPARE(planObjective(jobs, g, mo), r.plan.objective);
        QCOMPARE(r.plan.objective, 10.0 + 8.0 + 10.0 - 1.0); // A holds the current lease: -8/8
        QCOMPARE(g.leases[0], std::vector<int>({0}));
        QCOMPARE(g.leases[1], std::vector<int>({1}));
        // no complete plan (A and D both need lease 0 alone): the greedy selector leaves D out; the MILP solves
        // the three it placed exactly and leaves D unplanned
        jobs.push_back({3, 8, 1, {{0, 1, 10}}});
        QVERIFY(!greedyPlan(jobs, cap).complete);
        const MilpResult part = solveLeaseMilp(jobs, cap, mo, true);
        QVERIFY2(part.solved && part.optimal, part.status.c_str());
        QVERIFY(!part.plan.complete);
        QCOMPARE(part.plan.level, std::vector<int>({0, 1, 0, -1}));
        QVERIFY2(part.status.find("1 of 4 jobs unplanned") != std::string::npos, part.status.c_str());
        QCOMPARE(part.plan.objective, 10.0 + 8.0 + 10.0 - 1.0);
    }

    void milpOptimumEqualsBruteForce()
    {
        // Random small boundaries (3 jobs of 1-2 levels over 5 leases, tight capacities): the MILP's proven optimum
        // equals the best plan found by enumerating every (level, lease set) of every job, and its plan is
        // feasible (capacity, need, level window) with the objective it reports; where the greedy selector
        // cannot place every job, the same over the jobs it placed.
        ss::Rng rng(7);
        int checked = 0, incomplete = 0;
        for (int round = 0; round < 60; ++round) {
            const int L = 5;
            std::vector<PlanJob> jobs;
            for (int j = 0; j < 3; ++j) {
                PlanJob p;
                p.job = j;
                p.gpus = 1 << int((int(0) + int(rng.below(4)))); // 1, 2, 4 or 8
                p.need = int((int(1) + int(rng.below(2))));
                const int levels = int((int(1) + int(rng.below(2))));
                int ml = p.need + int((int(0) + int(rng.below(2))));
                const double values[] = {10, 8, 5};
                for (int v = 0; v < levels && ml <= L; ++v) {
                    p.levels.push_back({v, ml, values[v]});
                    ml += 1 + int((int(0) + int(rng.below(2))));
                }
                jobs.push_back(p);
            }
            std::vector<int> cap(L);
            for (int& c : cap)
                c = int((int(4) + int(rng.below(7))));
            MilpOptions mo;
            mo.minusCurrent = round % 2 == 0;
            mo.gMax = 8;
            const MilpResult r = solveLeaseMilp(jobs, cap, mo, true);
            // brute force: each job picks a level and a subset of leases in its window of size need
            // brute force: each job picks a level and a subset of leases in its window of size need; where the
            // greedy selector cannot place every job, over the jobs it placed (the others stay unplanned)
            const LeasePlan greedy = greedyPlan(jobs, cap, !mo.minusCurrent);
            double best = -1e18;
            int bestPlanned = -1;
            std::function<void(size_t, std::vector<int>&, double, int)> rec = [&](size_t i, std::vector<int>& load,
                                                                                  double o, int planned) {
                if (i == jobs.size()) {
                    if (planned > bestPlanned || (planned == bestPlanned && o > best)) {
                        bestPlanned = planned;
                        best = o;
                    }
                    return;
                }
                const PlanJob& p = jobs[i];
                if (!greedy.complete && greedy.level[i] < 0) {
                    rec(i + 1, load, o, planned);
                    return;
                }
                for (const PlanLevel& lv : p.levels)
                    for (int mask = 0; mask < (1 << lv.maxLease); ++mask) {
                        if (__builtin_popcount(unsigned(mask)) != p.need)
                            continue;
                        bool fits = true;
                        for (int l = 0; l < lv.maxLease; ++l)
                            fits = fits && (!(mask >> l & 1) || load[size_t(l)] + p.gpus <= cap[size_t(l)]);
                        if (!fits)
                            continue;
                        for (int l = 0; l < lv.maxLease; ++l)
                            if (mask >> l & 1)
                                load[size_t(l)] += p.gpus;
                        const double cur = (mask & 1) ? (mo.minusCurrent ? -1.0 : 1.0) * p.gpus / mo.gMax : 0.0;
                        rec(i + 1, load, o + lv.value + cur, planned + 1);
                        for (int l = 0; l < lv.maxLease; ++l)
                            if (mask >> l & 1)
                                load[size_t(l)] -= p.gpus;
                    }
            };
            std::vector<int> load(L, 0);
            rec(0, load, 0.0, 0);
            QVERIFY2(r.solved && r.optimal, r.status.c_str());
            const int planned = int(std::count_if(r.plan.level.begin(), r.plan.level.end(), [](int v) { return v >= 0; }));
            QCOMPARE(planned, bestPlanned);
            QCOMPARE(r.plan.complete, greedy.complete);
            for (size_t i = 0; i < jobs.size(); ++i)
                QCOMPARE(r.plan.level[i] >= 0, greedy.complete || greedy.level[i] >= 0);
            incomplete += r.plan.complete ? 0 : 1;
            QVERIFY2(std::fabs(r.plan.objective - best) < 1e-9,
                     qPrintable(QString("round %1: MILP %2, brute force %3").arg(round).arg(r.plan.objective).arg(best)));
            std::vector<int> used(L, 0);
            for (size_t i = 0; i < jobs.size(); ++i) {
                if (r.plan.level[i] < 0) {
                    QVERIFY(r.plan.leases[i].empty());
                    continue;
                }
                QCOMPARE(int(r.plan.leases[i].size()), jobs[i].need);
                for (int l : r.plan.leases[i]) {
                    QVERIFY(l < jobs[i].levels[size_t(r.plan.level[i])].maxLease);
                    used[size_t(l)] += jobs[i].gpus;
                }
            }
            for (int l = 0; l < L; ++l)
                QVERIFY(used[size_t(l)] <= cap[size_t(l)]);
            QCOMPARE(planObjective(jobs, r.plan, mo), r.plan.objective);
            ++checked;
        }
        QVERIFY(checked == 60);
        QVERIFY(incomplete >= 10 && incomplete <= 50); // both kinds are exercised
        qInfo("%d boundaries equal to brute force, %d of them with jobs the greedy selector could not place", checked,
              incomplete);
    }

    void boundaryWithMilpAndGreedySelectorGiveTheSameRun()
    {
        TraceGenConfig g;
        g.jobs = 120;
        g.seed = 5;
        g.clusterGpus = 32;
        g.load = 1.2;
        g.deadlineShare = 0.7;
        g.durationScale = 0.05; // deadlines within a few hours: small MILPs
        const Trace t = generateTrace(g);
        const ClusterSpec c = cluster(4, 8);
        auto runWith = [&](const std::string& solver) {
            PolicyOptions o;
            o.params["chronus.solver"] = solver;
            auto s = makeScheduler("chronus", o);
            RunConfig cfg;
            cfg.perf.ideal = true;
            Simulator sim(c, t, *s, cfg);
            MetricsCollector m;
            sim.addObserver(&m);
            sim.run();
            Summary sum = m.summary();
            sum.policyStats = s->runStats();
            return sum;
        };
        const Summary a = runWith("cbc"), b = runWith("greedy");
        QCOMPARE(a.finished, int(t.jobs.size()));
        QCOMPARE(b.finished, int(t.jobs.size()));
        // both plan every boundary; their objective may differ, the run's shape may not be identical, but
        // the MILP never does worse on Chronus's own measure here
        QVERIFY(a.weightedMissRate <= b.weightedMissRate + 1e-12);
        QVERIFY(a.policyStat("lease_milps") > 0);
        QCOMPARE(a.policyStat("lease_fallbacks"), 0.0);
    }

    void overrunDemotion()
    {
        // GPUs at half speed: a 900 s job takes 1800 s wall, past its estimate (1089 s). It is demoted to
        // unaccepted SLO (first in line for opportunistic GPUs) at 1089 s and still finishes.
        Trace t;
        t.jobs.push_back(sloJob(0, 0, 8, 900, {{36000, 10}}));
        const ClusterSpec c = cluster(1, 8, 0.5);
        ChronusScheduler s(ChronusParams {});
        RunConfig cfg;
        cfg.perf.crossMachine = cfg.perf.crossSwitch = cfg.perf.interference = 0;
        cfg.checkInvariants = true;
        Simulator sim(c, t, s, cfg);
        double demotedAt = -1;
        while (sim.step())
            if (demotedAt < 0 && s.demoted(0))
                demotedAt = sim.now();
        QCOMPARE(sim.rt(0).status, JobStatus::Done);
        QCOMPARE(sim.rt(0).end, 1800.0);
        QVERIFY(s.demoted(0));
        QCOMPARE(int(s.jobClass(0)), int(JobClass::UnacceptedSlo));
        QCOMPARE(s.demotions(), 1);
        QVERIFY2(std::fabs(demotedAt - 900 * 1.21) < 1e-6, std::to_string(demotedAt).c_str());
        QVERIFY(s.planOf(0).empty());
    }

    // A job of at most 8 GPUs that two machines of its GPU types cannot hold (8 GPUs of a type whose machines
    // have 2) is consolidated like a large one: local search alone never placed it, and with a job waiting
    // Chronus wakes at every lease, so the run never ended.
    void jobTooBigForTwoMachinesOfItsTypeIsConsolidated()
    {
        const ClusterSpec c = twoTypeCluster({{0, 8}, {0, 8}, {1, 2}, {1, 2}, {1, 2}, {1, 2}, {1, 2}, {1, 2}});
        Trace t;
        t.gpuSpecs = {"B"};
        t.jobs = {sloJob(0, 0, 8, 600, {}), sloJob(1, 0, 4, 600, {}), sloJob(2, 10, 8, 600, {})};
        t.jobs[0].gpuSpec = 0; // 8 GPUs of B: four 2-GPU machines
        t.jobs[1].gpuSpec = 0; // 4 GPUs of B: a 2-node split, as before
        PolicyOptions o;
        auto s = makeScheduler("chronus", o);
        RunConfig cfg;
        cfg.checkInvariants = true;
        cfg.maxTime = 1e6; // the old code would run to here, the job waiting
        Simulator sim(c, t, *s, cfg);
        sim.run();
        for (int j = 0; j < 3; ++j)
            QVERIFY2(sim.rt(j).status == JobStatus::Done, qPrintable(QString("job %1 did not finish").arg(j)));
        // (the engine refuses a start on a GPU type the job may not use)
    }

    void smallRunKeepsEngineInvariantsAndIsDeterministic()
    {
        TraceGenConfig g;
        g.jobs = 100;
        g.seed = 11;
        g.clusterGpus = 32;
        g.load = 1.2;
        g.deadlineShare = 0.6;
        g.maxGpus = 16; // some jobs over 8 GPUs: consolidation
        g.durationScale = 0.05;
        const Trace t = generateTrace(g);
        const ClusterSpec c = cluster(4, 8);
        auto once = [&]() {
            PolicyOptions o;
            o.params["chronus.time_limit"] = "0.2"; // the bound, not the solver's speed, keeps this short
            auto s = makeScheduler("chronus", o);
            RunConfig cfg;
            cfg.checkInvariants = true;
            cfg.recordDecisions = true;
            Simulator sim(c, t, *s, cfg);
            sim.run();
            std::vector<double> ends;
            for (size_t j = 0; j < t.jobs.size(); ++j) {
                if (sim.rt(int(j)).status != JobStatus::Done)
                    throw std::runtime_error("job " + std::to_string(j) + " did not finish");
                ends.push_back(sim.rt(int(j)).end);
            }
            return ends;
        };
        const std::vector<double> a = once();
        QCOMPARE(a, once());
    }

    // A decision inside a lease takes the waiting jobs in rank order from the order it keeps between decisions (per
    // GPU count, the SLO jobs of short leases ranked anew), reading it only until nothing left fits; a recorded
    // decision ranks every waiting job by a sort instead (the log has the whole ranking). Both must make the same
    // run: contended traces with jobs of 1-8 GPUs, half with deadlines, leases of 20 and 60 minutes.
    void keptOrderPicksAsAFullSort()
    {
        for (const double lease : {20.0, 60.0})
            for (const uint64_t seed : {3u, 4u}) {
                TraceGenConfig g;
                g.jobs = 700;
                g.seed = seed;
                g.clusterGpus = 48;
                g.load = 1.6;
                g.deadlineShare = 0.5;
                g.maxGpus = 8;
                g.durationScale = 0.05;
                const Trace t = generateTrace(g);
                const ClusterSpec c = cluster(6, 8);
                auto run = [&](bool record) {
                    PolicyOptions o;
                    o.params["chronus.lease"] = std::to_string(lease);
                    o.params["chronus.time_limit"] = "0.2";
                    auto s = makeScheduler("chronus", o);
                    RunConfig cfg;
                    cfg.recordDecisions = record;
                    Simulator sim(c, t, *s, cfg);
                    sim.run();
                    std::vector<double> out;
                    for (size_t j = 0; j < t.jobs.size(); ++j)
                        out.push_back(sim.rt(int(j)).firstStart);
                    return out;
                };
                const std::vector<double> kept = run(false), sorted = run(true);
                QVERIFY2(kept == sorted, qPrintable(QString("lease %1, seed %2").arg(lease).arg(seed)));
            }
    }

    void chronusReaderErrorsNameFileLineAndField()
    {
        QTemporaryDir dir;
        TraceReadOptions o;
        o.format = "chronus";
        struct Case {
            std::string row, field, what;
        };
        const std::vector<Case> cases = {
            {"1,u,1,5,10,vgg16,30,1,159-189-229,10-8,0,soft", "expect_value_list", "differ in length"},
            {"1,u,1,5,10,vgg16,30,1,159-189,10-8-5,0,soft", "expect_value_list", "differ in length"},
            {"1,u,1,5,10,vgg16,30,1,189-159,10-8,0,soft", "expect_time_list", "not increasing"},
            {"1,u,1,5,10,vgg16,30,1,-159,10,0,strict", "expect_time_list", "negative deadline"},
            {"1,u,1,5,10,vgg16,30,1,159,10,0,urgent", "job_type", "unknown job type 'urgent'"},
        };
        for (const Case& c : cases) {
            const std::string path = writeFile(dir, "bad.csv", std::string(kChronusHeader) + "0,u,1,1,10,vgg16,30,1,60,10,0,strict\n" + c.row + "\n");
            const std::string e = readError(path, o);
            QVERIFY2(e.find(path + ":3") != std::string::npos, e.c_str());
            QVERIFY2(e.find(c.field) != std::string::npos, e.c_str());
            QVERIFY2(e.find(c.what) != std::string::npos, e.c_str());
        }
        // rows with num_gpu == 0 are counted and reported, not dropped silently
        const std::string ok = writeFile(dir, "ok.csv", std::string(kChronusHeader) + "0,u,1,1,10,vgg16,30,1,60,10,0,strict\n"
                                                       "1,u,0,2,10,vgg16,30,1,159-189,10-8,0,soft\n"
                                                       "2,u,2,3,10,vgg16,30,1,3,10,1,best\n");
        TraceReadReport rep;
        const Trace t = readTrace(ok, o, &rep);
        QCOMPARE(t.jobs.size(), size_t(2));
        QCOMPARE(rep.skipped, 1L);
        QCOMPARE(rep.skippedByReason.at("zero GPUs"), 1L);
        QCOMPARE(t.jobs[0].deadlines.size(), size_t(1));
        QCOMPARE(t.jobs[0].deadlines[0].offset, 3600.0);
        QVERIFY(t.jobs[1].deadlines.empty()); // best effort: its lists are ignored
    }

    void mappedCsvDeadlines()
    {
        QTemporaryDir dir;
        TraceReadOptions o;
        o.format = "csv";
        o.columnMap = {{"submit", "t"}, {"gpus", "g"}, {"duration", "d"}, {"deadline", "dl"}, {"deadline_values", "val"}};
        o.timeFormat = "min";
        const std::string path = writeFile(dir, "map.csv", "t,g,d,dl,val\n0,1,10,30-60,10-5\n1,2,10,,\n");
        const Trace t = readTrace(path, o);
        QCOMPARE(t.jobs.size(), size_t(2));
        QCOMPARE(t.jobs[0].deadlines.size(), size_t(2));
        QCOMPARE(t.jobs[0].deadlines[1].offset, 3600.0);
        QCOMPARE(t.jobs[0].deadlines[1].value, 5.0);
        QVERIFY(t.jobs[1].deadlines.empty());
        // absolute deadlines with a strptime format: offset from submit
        TraceReadOptions a = o;
        a.timeFormat = "%Y-%m-%d %H:%M:%S";
        a.columnMap.erase("deadline_values");
        const std::string abs = writeFile(dir, "abs.csv", "t,g,d,dl\n2020-01-01 00:00:00,1,60,2020-01-01 02:00:00\n");
        const Trace ta = readTrace(abs, a);
        QCOMPARE(ta.jobs[0].deadlines.size(), size_t(1));
        QCOMPARE(ta.jobs[0].deadlines[0].offset, 7200.0);
        QCOMPARE(ta.jobs[0].deadlines[0].value, 10.0);
        // lists of different lengths: file, line and the values column
        const std::string bad = writeFile(dir, "badmap.csv", "t,g,d,dl,val\n0,1,10,30-60,10\n");
        const std::string e = readError(bad, o);
        QVERIFY2(e.find(bad + ":2") != std::string::npos && e.find("val") != std::string::npos
                     && e.find("differ in length") != std::string::npos,
                 e.c_str());
        const std::string neg = writeFile(dir, "negmap.csv", "t,g,d,dl,val\n0,1,10,60-30,10-5\n");
        const std::string e2 = readError(neg, o);
        QVERIFY2(e2.find("dl") != std::string::npos && e2.find("not increasing") != std::string::npos, e2.c_str());
    }

    void bundledScenarioRuns()
    {
        const Scenario s = readScenario(SS_SOURCE_DIR "/sample-traces/chronus.scenario.json");
        const ExperimentPlan plan = planScenario(s);
        QCOMPARE(plan.runs.at(0).spec.policy, std::string("chronus"));
        const RunInputs& in = plan.inputs.at(0);
        QCOMPARE(in.trace->jobs.size(), size_t(283)); // 300 rows, 17 with num_gpu 0
        const RunOutput out = runSimulation(*in.cluster, *in.trace, plan.runs[0].spec);
        QCOMPARE(out.summary.finished, 283);
        QVERIFY(out.summary.policyStat("slo_accepted") > 100);
        QVERIFY(out.summary.policyStat("lease_boundaries") > 0);
        QVERIFY(out.summary.bestEffortJobs > 0);
    }

    void leasePlansRideInTheLog()
    {
        // Every boundary that has accepted jobs with plans logs the plan (policy/chronus/chronus.h,
        // kPlanLeasePrefix): jobs x leases from the boundary's lease, each cell 0 or the job's rounded GPUs,
        // capped at kPlanRecordJobs x kPlanRecordLeases (the note says so), and the same log for the same inputs.
        const Scenario s = readScenario(SS_SOURCE_DIR "/sample-traces/chronus.scenario.json");
        const ExperimentPlan plan = planScenario(s);
        const RunInputs& in = plan.inputs.at(0);
        RunSpec spec = plan.runs.at(0).spec;
        spec.config.recordDecisions = true;
        spec.keepDecisionLog = true;
        const RunOutput out = runSimulation(*in.cluster, *in.trace, spec);
        QVERIFY(out.log);
        int plans = 0, capped = 0;
        for (const DecisionRecord& r : out.log->records) {
            const AllocationRecord& a = r.allocation;
            if (a.empty())
                continue;
            ++plans;
            QVERIFY(a.types.front().rfind(kPlanLeasePrefix, 0) == 0);
            const int64_t k = std::stoll(a.types.front().substr(std::string(kPlanLeasePrefix).size()));
            QCOMPARE(k, int64_t(std::floor(r.time / 1200.0 + 1e-9))); // planned in its own lease
            QVERIFY(int(a.jobs.size()) <= kPlanRecordJobs && int(a.types.size()) <= kPlanRecordLeases);
            QCOMPARE(a.share.size(), a.jobs.size() * a.types.size());
            QVERIFY(!a.note.empty());
            capped += a.note.find("planned jobs logged") != std::string::npos ? 1 : 0;
            for (size_t i = 0; i < a.jobs.size(); ++i) {
                const Job& jb = in.trace->jobs[size_t(a.jobs[i])];
                QVERIFY(!jb.deadlines.empty());
                QVERIFY((a.estimated[i] & ~kPlanKeptFlag) >= 1 && size_t(a.estimated[i] & ~kPlanKeptFlag) <= jb.deadlines.size());
                int held = 0;
                for (size_t c = 0; c < a.types.size(); ++c) {
                    const float v = a.at(i, c);
                    QVERIFY(v == 0.0f || v == float(roundUpGpus(jb.wholeGpus())));
                    held += v > 0 ? 1 : 0;
                }
                QVERIFY(held > 0 || int(a.types.size()) == kPlanRecordLeases); // its leases may lie past the cap
            }
        }
        QVERIFY(plans > 10);
        QVERIFY(capped > 0); // the burst's second boundary plans more than 200 jobs
        const RunOutput again = runSimulation(*in.cluster, *in.trace, spec);
        QVERIFY(encodeDecisionLogBlob(*again.log) == encodeDecisionLogBlob(*out.log));
    }
};

QTEST_GUILESS_MAIN(TstChronus)
#include "tst_chronus.moc"
