// Engine properties: exact timing under the ideal model, no double booking, every job ends once, fees add
// up, preemption keeps work, interference, fractional sharing, type constraints, determinism, log replay.
#include <QtTest>

#include <cstdio>
#include <map>
#include <set>

#include "metrics/metrics.h"
#include "sim/clusterstate.h"
#include "sim/decisionlog.h"
#include "sim/engine.h"
#include "sim/invariants.h"

using namespace ss;

namespace {

Job jobOf(int64_t id, double submit, double gpus, double duration)
{
    Job j;
    j.id = id;
    j.submit = submit;
    j.gpus = gpus;
    j.duration = duration;
    return j;
}

// A deliberately simple test scheduler: strict FIFO, lowest-id GPUs first. Independent of core/policy.
class TestFifo : public Scheduler {
public:
    std::string name() const override { return "test-fifo"; }
    void schedule(SchedContext& ctx) override
    {
        std::vector<ScoredJob> ranked;
        ctx.forEachPending([&](int j) {
            const Job& job = ctx.job(j);
            std::vector<GpuSlot> slots;
            for (int g = 0; g < ctx.cluster().totalGpus() && int(slots.size()) < job.wholeGpus(); ++g) {
                const int type = ctx.cluster().machines[size_t(ctx.cluster().machineOfGpu(g))].type;
                if (ctx.state().gpuFreeMilli(g) >= job.milli() && ((ctx.rt(j).typeMask >> type) & 1))
                    slots.push_back({g, job.milli()});
            }
            ranked.push_back({j, float(-j)});
            if (int(slots.size()) < job.wholeGpus())
                return false; // strict FIFO: stop at the first job that does not fit
            std::vector<float> aff(size_t(ctx.cluster().machineCount()), 0.f);
            ctx.recordPlacement(j, slots, aff, "test");
            ctx.start(j, slots, "test");
            return true;
        });
        ctx.recordQueue(ranked);
    }
};

// Preempts every running job once at a fixed time (to test preemption bookkeeping).
class PreemptOnce : public TestFifo {
public:
    double at = 50;
    bool done = false;
    void schedule(SchedContext& ctx) override
    {
        if (!done && ctx.now() >= at) {
            done = true;
            for (int j : std::vector<int>(ctx.runningJobs()))
                ctx.preempt(j);
        }
        TestFifo::schedule(ctx);
        if (!done)
            ctx.wakeAt(at);
    }
};

// Starts each job on the GPUs given for it, in the order given, as soon as it waits.
class FixedSlots : public Scheduler {
public:
    std::map<int, std::vector<int>> gpus;
    std::string name() const override { return "fixed-slots"; }
    void schedule(SchedContext& ctx) override
    {
        for (int j : ctx.pendingJobs()) {
            std::vector<GpuSlot> slots;
            for (int g : gpus.at(j))
                slots.push_back({g, 1000});
            ctx.start(j, slots, "fixed");
        }
    }
};

// Tries to double-book GPU 0.
class DoubleBooker : public Scheduler {
public:
    std::string name() const override { return "double-booker"; }
    void schedule(SchedContext& ctx) override
    {
        for (int j : ctx.pendingJobs())
            ctx.start(j, {{0, 1000}});
    }
};

ClusterSpec smallCluster(int machines = 2, int gpus = 2)
{
    ClusterSpec c;
    c.name = "test";
    c.types = {{"A", 2.0, 16, 1.0}, {"B", 1.0, 16, 0.5}};
    c.switches = {{"s0", 100}, {"s1", 100}};
    for (int m = 0; m < machines; ++m)
        c.machines.push_back({"m" + std::to_string(m), m % 2, gpus, 8, 64, m % 2, 25});
    c.finalize();
    return c;
}

Trace trace(const std::vector<std::tuple<double, double, double>>& jobs) // submit, gpus, duration
{
    Trace t;
    t.name = "t";
    int64_t id = 0;
    for (auto [s, g, d] : jobs) {
        Job j;
        j.id = id++;
        j.submit = s;
        j.gpus = g;
        j.duration = d;
        t.jobs.push_back(j);
    }
    return t;
}

RunConfig idealCfg()
{
    RunConfig c;
    c.perf.ideal = true;
    c.checkInvariants = true;
    return c;
}

// Records every start/stop to check "no GPU double-booked" and "every job ends once" independently.
class Auditor : public SimObserver {
public:
    std::map<int, int> gpuHolders; // gpu -> milli held
    std::map<int, int> ends;
    std::string error;
    void onJobStarted(double, int job, const JobRuntime& rt) override
    {
        for (const GpuSlot& s : rt.slots) {
            gpuHolders[s.gpu] += s.milli;
            if (gpuHolders[s.gpu] > 1000)
                error = "GPU " + std::to_string(s.gpu) + " over-booked";
        }
    }
    void onJobStopped(double, int job, const JobRuntime& rt, bool finished) override
    {
        for (const GpuSlot& s : rt.slots)
            gpuHolders[s.gpu] -= s.milli;
        if (finished)
            ++ends[job];
    }
};

} // namespace

class TstEngine : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void clusterStateIndexesMatchAScan()
    {
        // alibaba-scale mixes 8- and 2-GPU machines of five types, each type a run of machine ids: the level
        // counts and the per-type word ranges behind count/nth/best-fit must agree with a scan of every machine
        // through a long random sequence of allocations and releases
        const ClusterSpec c = makeClusterPreset("alibaba-scale");
        ClusterState s(c);
        const int M = c.machineCount(), T = int(c.types.size());
        std::vector<std::vector<GpuSlot>> held;
        uint64_t x = 12345;
        auto rnd = [&](uint64_t n) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            return int(x % n);
        };
        // the second half also takes shares of GPUs (the largest-free-share index starts then)
        for (int step = 0; step < 6000; ++step) {
            const bool shares = step >= 3000;
            if (held.empty() || rnd(3) != 0) {
                const int m = rnd(uint64_t(M));
                const int k = 1 + rnd(uint64_t(c.machines[size_t(m)].gpus));
                if (s.freeGpus(m) < k)
                    continue;
                std::vector<GpuSlot> slots;
                for (int g = c.gpuBase(m); g < c.gpuBase(m) + c.machines[size_t(m)].gpus && int(slots.size()) < k; ++g)
                    if (s.gpuFreeMilli(g) == 1000)
                        slots.push_back({g, 1000});
                if (shares && rnd(2) == 0) {
                    slots.resize(1);
                    slots[0].milli = 100 * (1 + rnd(9));
                }
                s.allocate(step, slots);
                held.push_back(slots);
            } else {
                const size_t i = size_t(rnd(held.size()));
                s.release(0, held[i]);
                held.erase(held.begin() + std::ptrdiff_t(i));
            }
            if (step % 50 != 0)
                continue;
            QCOMPARE(QString::fromStdString(s.checkConsistency()), QString());
            for (int type = -1; type < T; ++type)
                for (int k = 1; k <= 8; ++k) {
                    std::vector<int> with;
                    int best = -1;
                    for (int m = 0; m < M; ++m) {
                        if (type >= 0 && c.machines[size_t(m)].type != type)
                            continue;
                        if (s.freeGpus(m) >= k) {
                            with.push_back(m);
                            if (best < 0 || s.freeGpus(m) < s.freeGpus(best))
                                best = m;
                        }
                    }
                    QCOMPARE(s.countMachinesWithFree(k, type), int(with.size()));
                    std::vector<int> listed; // one pass over the row's words, in id order
                    s.forMachinesWithFree(k, &type, 1, [&](int m) { listed.push_back(m); });
                    QCOMPARE(listed, with);
                    QCOMPARE(s.bestFitMachine(k, type), best);
                    QCOMPARE(s.firstMachineWithFree(k, 0, type), with.empty() ? -1 : with.front());
                    for (size_t n : {size_t(0), with.size() / 2, with.size() - 1})
                        if (n < with.size())
                            QCOMPARE(s.nthMachineWithFree(k, int(n), type), with[n]);
                    QCOMPARE(s.nthMachineWithFree(k, int(with.size()), type), -1);
                    // first fit from a machine: from each of a few machines with k free, one after, and a random one
                    for (size_t n : {size_t(0), with.size() / 3, with.size() / 2})
                        if (n < with.size()) {
                            QCOMPARE(s.firstMachineWithFree(k, with[n], type), with[n]);
                            QCOMPARE(s.firstMachineWithFree(k, with[n] + 1, type), n + 1 < with.size() ? with[n + 1] : -1);
                        }
                    const int from = rnd(uint64_t(M));
                    const auto after = std::lower_bound(with.begin(), with.end(), from);
                    QCOMPARE(s.firstMachineWithFree(k, from, type), after == with.end() ? -1 : *after);
                }
            if (T >= 3) // several types at once: the union of their machines, in id order
                for (int k = 1; k <= 8; ++k) {
                    const int types[2] = {0, 2};
                    std::vector<int> with, listed;
                    for (int m = 0; m < M; ++m)
                        if ((c.machines[size_t(m)].type == 0 || c.machines[size_t(m)].type == 2) && s.freeGpus(m) >= k)
                            with.push_back(m);
                    s.forMachinesWithFree(k, types, 2, [&](int m) { listed.push_back(m); });
                    QCOMPARE(listed, with);
                }
            for (int type = -1; type < T; ++type) {
                int most = -1, firstOfType = -1;
                std::vector<int> milliAtLeast(10, -1); // first machine with a GPU with at least 100 * i free
                for (int m = 0; m < M; ++m) {
                    if (type >= 0 && c.machines[size_t(m)].type != type)
                        continue;
                    if (firstOfType < 0)
                        firstOfType = m;
                    if (s.freeGpus(m) > 0 && (most < 0 || s.freeGpus(m) > s.freeGpus(most)))
                        most = m;
                    int share = 0;
                    for (int g = c.gpuBase(m); g < c.gpuBase(m) + c.machines[size_t(m)].gpus; ++g)
                        share = std::max(share, s.gpuFreeMilli(g));
                    QCOMPARE(s.maxFreeMilliOn(m), share);
                    for (int i = 1; i < 10; ++i)
                        if (milliAtLeast[size_t(i)] < 0 && share >= 100 * i)
                            milliAtLeast[size_t(i)] = m;
                }
                QCOMPARE(s.mostFreeMachine(type), most);
                QCOMPARE(s.firstMachineWithFree(0, 0, type), firstOfType);
                for (int i = 1; i < 10; ++i)
                    QCOMPARE(s.firstMachineWithFreeMilli(100 * i, 0, type), milliAtLeast[size_t(i)]);
            }
        }
    }

    void idealTimesAreExact()
    {
        // 4 GPUs; job0 takes all 4 for 100 s, job1 (2 GPUs) waits for it, job2 (1 GPU) waits behind job1 (FIFO)
        const ClusterSpec c = smallCluster();
        const Trace t = trace({{0, 4, 100}, {10, 2, 50}, {20, 1, 30}});
        TestFifo p;
        Simulator sim(c, t, p, idealCfg());
        MetricsCollector mc;
        sim.addObserver(&mc);
        QVERIFY(sim.run());
        QCOMPARE(mc.jobs()[0].start, 0.0);
        QCOMPARE(mc.jobs()[0].end, 100.0);
        QCOMPARE(mc.jobs()[1].start, 100.0);
        QCOMPARE(mc.jobs()[1].end, 150.0);
        QCOMPARE(mc.jobs()[2].start, 100.0);
        QCOMPARE(mc.jobs()[2].end, 130.0);
        const Summary s = mc.summary();
        QCOMPARE(s.finished, 3);
        QCOMPARE(s.meanJctMin, ((100.0 - 0) + (150.0 - 10) + (130.0 - 20)) / 3.0 / 60.0);
        QCOMPARE(s.makespanH, 150.0 / 3600.0);
    }

    void feesAddUp()
    {
        // type A ($2/h) on machine 0 (GPUs 0-1), type B ($1/h, speed 0.5) on machine 1 (GPUs 2-3)
        const ClusterSpec c = smallCluster();
        const Trace t = trace({{0, 3, 3600}});
        TestFifo p;
        RunConfig cfg;
        cfg.perf.crossMachine = 0;
        cfg.perf.crossSwitch = 0;
        cfg.perf.interference = 0;
        Simulator sim(c, t, p, cfg);
        MetricsCollector mc;
        sim.addObserver(&mc);
        QVERIFY(sim.run());
        // synchronous job: runs at the pace of its slowest GPU (0.5) => 7200 s; 2 GPUs x $2 + 1 x $1 for 2 h
        QCOMPARE(mc.jobs()[0].end, 7200.0);
        QCOMPARE(mc.jobs()[0].fee, (2 * 2.0 + 1 * 1.0) * 2.0);
        QCOMPARE(mc.summary().totalFeeUsd, 10.0);
        QCOMPARE(mc.jobs()[0].gpuSeconds, 3 * 7200.0);
    }

    void invariantLedgerCatchesEachBrokenPromise()
    {
        // The ledger that every test run carries (SCHEDSTUDIO_CHECK_INVARIANTS) must refuse each broken
        // promise when fed the events of an engine or policy gone wrong.
        const ClusterSpec c = smallCluster();
        const Trace t = trace({{0, 2, 100}, {0, 2, 100}, {5, 1, 10}});
        PerfModel perf(c, t, {}, 1);
        RunConfig cfg;
        const SimSetup setup{c, t, perf, cfg};
        auto rt = [](std::vector<GpuSlot> s) {
            JobRuntime r;
            r.slots = std::move(s);
            return r;
        };
        auto expectViolation = [&](const char* rule, auto events) {
            InvariantChecker k;
            k.onRunStart(setup);
            try {
                events(k);
            } catch (const std::logic_error& e) {
                QVERIFY2(std::string(e.what()).find("invariant violated") == 0, e.what());
                return;
            }
            QFAIL(rule);
        };
        expectViolation("double booking", [&](InvariantChecker& k) {
            k.onJobArrived(0, 0);
            k.onJobArrived(0, 1);
            k.onJobStarted(0, 0, rt({{0, 1000}, {1, 1000}}));
            k.onJobStarted(0, 1, rt({{1, 1000}, {2, 1000}}));
        });
        expectViolation("finished twice", [&](InvariantChecker& k) {
            k.onJobArrived(0, 0);
            k.onJobStarted(0, 0, rt({{0, 1000}, {1, 1000}}));
            k.onJobStopped(100, 0, rt({{0, 1000}, {1, 1000}}), true);
            k.onJobStopped(100, 0, rt({{0, 1000}, {1, 1000}}), true);
        });
        expectViolation("started before arriving", [&](InvariantChecker& k) { k.onJobStarted(0, 2, rt({{0, 1000}})); });
        expectViolation("arrived before its submit time", [&](InvariantChecker& k) { k.onJobArrived(1, 2); });
        expectViolation("clock backwards", [&](InvariantChecker& k) {
            k.onJobArrived(5, 2);
            k.onJobArrived(0, 0);
        });
        expectViolation("wrong GPU count", [&](InvariantChecker& k) {
            k.onJobArrived(0, 0);
            k.onJobStarted(0, 0, rt({{0, 1000}}));
        });
        expectViolation("released other GPUs", [&](InvariantChecker& k) {
            k.onJobArrived(0, 0);
            k.onJobStarted(0, 0, rt({{0, 1000}, {1, 1000}}));
            k.onJobStopped(50, 0, rt({{2, 1000}, {3, 1000}}), false);
        });
        expectViolation("still running at the end", [&](InvariantChecker& k) {
            k.onJobArrived(0, 0);
            k.onJobStarted(0, 0, rt({{0, 1000}, {1, 1000}}));
            k.onRunEnd(10);
        });
        expectViolation("rejected after finishing", [&](InvariantChecker& k) {
            k.onJobArrived(5, 2);
            k.onJobStarted(5, 2, rt({{3, 1000}}));
            k.onJobStopped(15, 2, rt({{3, 1000}}), true);
            k.onJobRejected(15, 2, "late");
        });
        // fees: the ledger's own sum against what metrics report
        InvariantChecker k;
        k.onRunStart(setup);
        k.onJobArrived(5, 2);
        k.onJobStarted(5, 2, rt({{2, 1000}}));  // machine 1: type B, $1/h
        k.onJobStopped(3605, 2, rt({{2, 1000}}), true);
        QCOMPARE(k.fee(2), 1.0);
        QVERIFY(k.compareFees({0, 0, 1.0}, 1.0).empty());
        QVERIFY(!k.compareFees({0, 0, 1.5}, 1.5).empty());
        QVERIFY(!k.compareFees({0, 0, 1.0}, 2.0).empty());
        // and a real run under the engine keeps every rule
        TestFifo p;
        Simulator sim(c, t, p, idealCfg());
        QVERIFY(sim.invariants());
        QVERIFY(sim.run());
        QCOMPARE(sim.invariants()->finished(), 3);
    }

    void commAndInterferenceSlowdown()
    {
        const ClusterSpec c = smallCluster(4, 2);
        RunConfig cfg;
        cfg.perf.typeSpeed = false;
        cfg.perf.crossMachine = 0.5;
        cfg.perf.crossSwitch = 0;
        cfg.perf.interference = 0;
        // 3 GPUs span machines 0 and 1 => 1.5x time
        {
            const Trace t = trace({{0, 3, 100}});
            TestFifo p;
            Simulator sim(c, t, p, cfg);
            MetricsCollector mc;
            sim.addObserver(&mc);
            sim.run();
            QCOMPARE(mc.jobs()[0].end, 150.0);
        }
        // interference: two 1-GPU jobs on machine 0 slow each other by 20% while together
        cfg.perf.crossMachine = 0;
        cfg.perf.interference = 0.25;
        {
            const Trace t = trace({{0, 1, 100}, {0, 1, 100}});
            TestFifo p;
            Simulator sim(c, t, p, cfg);
            MetricsCollector mc;
            sim.addObserver(&mc);
            sim.run();
            QCOMPARE(mc.jobs()[0].end, 125.0);
            QCOMPARE(mc.jobs()[1].end, 125.0);
        }
    }

    void coRunnersFollowEveryMachineOfAPlacement()
    {
        // Co-location interference counts a job's co-runners on the busiest machine of its placement; jobs on
        // several machines follow the counts as jobs start and stop beside them (Simulator::refreshRatesOn), and a
        // placement may list its GPUs in any order (A's are on m0, m1, m0). Three 3-GPU machines:
        //   A: 3 GPUs {0, 3, 1} (m0, m1, m0), 100 s;  B: GPU 4 (m1), 50 s;  E: {5, 6} (m1, m2), 300 s;
        //   F: {2, 7} (m0, m2), 300 s. Jobs per machine: m0 A F, m1 A B E, m2 E F.
        // Co-runners: A, B, E 2 (m1), F 1, so rates 1/1.5 and 0.8. B ends at 75; A and E then have 1 (two
        // machines at two jobs each): rate 0.8, A's 50 s left end at 137.5. A's stop leaves m0 and m1 with one
        // job, but E and F still share m2 (1 each, rate 0.8): F's 190 s left end at 375; E, alone from then,
        // has 10 s left at rate 1: 385.
        const ClusterSpec c = smallCluster(3, 3);
        const Trace t = trace({{0, 3, 100}, {0, 1, 50}, {0, 2, 300}, {0, 2, 300}});
        FixedSlots p;
        p.gpus = {{0, {0, 3, 1}}, {1, {4}}, {2, {5, 6}}, {3, {2, 7}}};
        RunConfig cfg;
        cfg.checkInvariants = true; // every running job's co-runners against a count of its machines, each decision
        cfg.perf.typeSpeed = false;
        cfg.perf.crossMachine = 0;
        cfg.perf.crossSwitch = 0;
        cfg.perf.interference = 0.25;
        Simulator sim(c, t, p, cfg);
        MetricsCollector mc;
        sim.addObserver(&mc);
        QVERIFY(sim.run());
        QCOMPARE(mc.jobs()[1].end, 75.0);
        QCOMPARE(mc.jobs()[0].end, 137.5);
        QCOMPARE(mc.jobs()[3].end, 375.0);
        QCOMPARE(mc.jobs()[2].end, 385.0);
    }

    void coRunnersLeaveOutTheGpusADrainingMachineKeeps()
    {
        // A draining machine keeps the GPUs its jobs give back (held for no job); they are not a co-runner of the
        // jobs still running there. Two 2-GPU machines: A on GPU 0 (m0), 50 s; B on {1, 2} (m0, m1), 300 s; m0
        // drains at 10. Both have one co-runner (m0): rate 0.8, A ends at 62.5 and m0 keeps GPU 0. B, alone on
        // its machines from then, has 250 s left at rate 1: 312.5 (counting the held GPU as a job: 375).
        const ClusterSpec c = smallCluster(2, 2);
        const Trace t = trace({{0, 1, 50}, {0, 2, 300}});
        FixedSlots p;
        p.gpus = {{0, {0}}, {1, {1, 2}}};
        RunConfig cfg;
        cfg.checkInvariants = true;
        cfg.perf.typeSpeed = false;
        cfg.perf.crossMachine = 0;
        cfg.perf.crossSwitch = 0;
        cfg.perf.interference = 0.25;
        Simulator sim(c, t, p, cfg);
        sim.addMachineEvent({10, 0, MachineEventKind::Drain});
        MetricsCollector mc;
        sim.addObserver(&mc);
        QVERIFY(sim.run());
        QCOMPARE(mc.jobs()[0].end, 62.5);
        QCOMPARE(mc.jobs()[1].end, 312.5);
    }

    void preemptionKeepsWorkAndChargesOverhead()
    {
        const ClusterSpec c = smallCluster();
        const Trace t = trace({{0, 1, 100}});
        PreemptOnce p;
        RunConfig cfg = idealCfg();
        cfg.perf.ideal = false;
        cfg.perf.typeSpeed = false;
        cfg.perf.interference = 0;
        cfg.perf.preemptOverhead = 7;
        Simulator sim(c, t, p, cfg);
        MetricsCollector mc;
        sim.addObserver(&mc);
        QVERIFY(sim.run());
        // runs 0..50, preempted, restarts at 50 with 7 s restore, 50 s of work left => ends at 107
        QCOMPARE(mc.jobs()[0].preemptions, 1);
        QCOMPARE(mc.jobs()[0].end, 107.0);
        QCOMPARE(sim.rt(0).executed, 107.0);
    }

    void slotBuffersTravelWithTheJobs()
    {
        // A stopped job's slots go to an engine scratch buffer and it keeps that buffer's previous storage for
        // its next start (SchedContext::start copies into it): every stop must still report the slots of the
        // start before it, each start the slots the policy chose, and a finished job must hold no buffer.
        struct Slots : SimObserver {
            std::map<int, std::vector<GpuSlot>> running;
            int starts = 0, stops = 0, wrong = 0;
            void onJobStarted(double, int job, const JobRuntime& rt) override
            {
                ++starts;
                if (running.count(job) || rt.slots.empty())
                    ++wrong;
                running[job] = rt.slots;
            }
            void onJobStopped(double, int job, const JobRuntime& rt, bool) override
            {
                ++stops;
                if (!running.count(job) || running[job] != rt.slots)
                    ++wrong;
                running.erase(job);
            }
        } obs;
        const ClusterSpec c = smallCluster();
        const Trace t = trace({{0, 2, 100}, {0, 1, 80}, {0, 2, 60}, {10, 1, 40}, {20, 2, 30}});
        PreemptOnce p;
        p.at = 25;
        RunConfig cfg = idealCfg();
        cfg.checkInvariants = true;
        Simulator sim(c, t, p, cfg);
        sim.addObserver(&obs);
        QVERIFY(sim.run());
        QCOMPARE(obs.wrong, 0);
        QVERIFY(obs.stops > int(t.jobs.size())); // some were preempted and started again
        QCOMPARE(obs.starts, obs.stops);
        for (int j = 0; j < int(t.jobs.size()); ++j) {
            QCOMPARE(sim.rt(j).status, JobStatus::Done);
            QCOMPARE(sim.rt(j).slots.capacity(), size_t(0));
        }
    }

    void doubleBookingIsRefused()
    {
        const ClusterSpec c = smallCluster();
        const Trace t = trace({{0, 1, 10}, {0, 1, 10}});
        DoubleBooker p;
        Simulator sim(c, t, p, idealCfg());
        QVERIFY_THROWS_EXCEPTION(PolicyError, sim.run());
    }

    void fractionalJobsShareAGpu()
    {
        const ClusterSpec c = smallCluster(1, 1);
        const Trace t = trace({{0, 0.5, 100}, {0, 0.5, 100}, {0, 0.5, 100}});
        TestFifo p;
        Simulator sim(c, t, p, idealCfg());
        MetricsCollector mc;
        sim.addObserver(&mc);
        QVERIFY(sim.run());
        QCOMPARE(mc.jobs()[0].start, 0.0);
        QCOMPARE(mc.jobs()[1].start, 0.0);
        QCOMPARE(mc.jobs()[2].start, 100.0);
        QCOMPARE(mc.jobs()[0].fee, 0.5 * 2.0 * 100.0 / 3600.0);
    }

    void typeConstraintsAndRejection()
    {
        const ClusterSpec c = smallCluster();
        Trace t = trace({{0, 1, 100}, {0, 1, 100}, {0, 8, 100}});
        t.gpuSpecs = {"B", "Z"};
        t.jobs[0].gpuSpec = 0; // only type B (machine 1, GPUs 2-3)
        t.jobs[1].gpuSpec = 1; // a type the cluster does not have: rejected
        TestFifo p;
        Simulator sim(c, t, p, idealCfg());
        Auditor au;
        MetricsCollector mc;
        sim.addObserver(&au);
        sim.addObserver(&mc);
        QVERIFY(sim.run());
        QCOMPARE(mc.jobs()[0].status, JobStatus::Done);
        QCOMPARE(mc.jobs()[1].status, JobStatus::Rejected);
        QCOMPARE(mc.jobs()[2].status, JobStatus::Rejected); // 8 GPUs > 4 in the cluster
        QCOMPARE(mc.summary().rejected, 2);
    }

    void randomRunsHoldEngineProperties()
    {
        Rng rng(42);
        const ClusterSpec c = smallCluster(6, 4);
        Trace t;
        for (int i = 0; i < 400; ++i) {
            Job j;
            j.id = i;
            j.submit = i * 5.0;
            const double r = rng.uniform();
            j.gpus = r < 0.2 ? 0.5 : r < 0.7 ? 1 : r < 0.9 ? 2 : 4;
            j.duration = 10 + std::floor(rng.uniform() * 300);
            t.jobs.push_back(j);
        }
        PreemptOnce p;
        p.at = 700;
        RunConfig cfg;
        cfg.checkInvariants = true;
        cfg.perf.fluctuationSd = 0.1;
        cfg.perf.machineBiasSd = 0.1;
        cfg.perf.preemptOverhead = 3;
        Simulator sim(c, t, p, cfg);
        Auditor au;
        MetricsCollector mc;
        sim.addObserver(&au);
        sim.addObserver(&mc);
        QVERIFY(sim.run());
        QVERIFY2(au.error.empty(), au.error.c_str());
        QCOMPARE(int(au.ends.size()), 400);
        for (auto [job, n] : au.ends)
            QCOMPARE(n, 1);
        for (auto [gpu, held] : au.gpuHolders)
            QCOMPARE(held, 0);
        double fee = 0;
        for (const JobRecord& r : mc.jobs()) {
            QVERIFY(r.end >= r.start && r.start >= r.submit);
            QVERIFY(r.queueing >= -1e-9 && r.queueing <= r.jct + 1e-9);
            fee += r.fee;
        }
        QVERIFY(std::abs(fee - mc.summary().totalFeeUsd) < 1e-9);
        QVERIFY(mc.summary().utilization > 0 && mc.summary().utilization <= 1.0);
    }

    void sameSeedSameResultsDifferentSeedDiffers()
    {
        const ClusterSpec c = smallCluster(4, 4);
        Trace t;
        for (int i = 0; i < 100; ++i)
            t.jobs.push_back(jobOf(i, i * 20.0, double(1 + i % 4), 100.0 + i));
        auto runWith = [&](uint64_t seed) {
            TestFifo p;
            RunConfig cfg;
            cfg.seed = seed;
            cfg.perf.fluctuationSd = 0.2;
            Simulator sim(c, t, p, cfg);
            MetricsCollector mc;
            sim.addObserver(&mc);
            sim.run();
            std::vector<double> ends;
            for (auto& r : mc.jobs())
                ends.push_back(r.end);
            return ends;
        };
        QCOMPARE(runWith(7), runWith(7));
        QVERIFY(runWith(7) != runWith(8));
    }

    void everyStartIsLogged()
    {
        // 90 jobs start at the first decision: each is in the log, whether the policy records its placements
        // (the first 64 keep their scores, the rest are kept without) or only starts them (no reason given).
        const ClusterSpec c = smallCluster(50, 2);
        Trace t;
        for (int i = 0; i < 90; ++i)
            t.jobs.push_back(jobOf(i, 0.0, 1.0, 10.0 + i));
        struct Silent : Scheduler {
            std::string name() const override { return "silent"; }
            void schedule(SchedContext& ctx) override
            {
                int g = 0;
                for (int j : std::vector<int>(ctx.pendingJobs())) {
                    while (g < ctx.cluster().totalGpus() && ctx.state().gpuFreeMilli(g) < 1000)
                        ++g;
                    if (g < ctx.cluster().totalGpus())
                        ctx.start(j, {{g++, 1000}});
                }
            }
        } silent;
        TestFifo recorded;
        for (Scheduler* p : std::initializer_list<Scheduler*>{&silent, &recorded}) {
            RunConfig cfg = idealCfg();
            cfg.recordDecisions = true;
            Simulator sim(c, t, *p, cfg);
            struct Keep : SimObserver {
                std::vector<DecisionRecord> recs;
                void onDecision(const DecisionRecord& r) override { recs.push_back(r); }
            } keep;
            sim.addObserver(&keep);
            while (sim.step()) {
            }
            QVERIFY(!keep.recs.empty());
            const DecisionRecord& first = keep.recs.front();
            std::set<int> jobs;
            int withScores = 0;
            for (const PlacementRecord& pr : first.placements) {
                QCOMPARE(pr.slots.size(), size_t(1));
                jobs.insert(pr.job);
                withScores += pr.affinity.empty() ? 0 : 1;
            }
            QCOMPARE(first.placements.size(), size_t(90));
            QCOMPARE(jobs.size(), size_t(90));
            QCOMPARE(withScores, p == &recorded ? cfg.logPlacementLimit : 0);
        }
    }

    void decisionLogReplaysAndRoundTrips()
    {
        const ClusterSpec c = smallCluster(3, 2);
        Trace t;
        for (int i = 0; i < 40; ++i)
            t.jobs.push_back(jobOf(i, i * 7.0, double(1 + i % 3), 30.0 + (i * 13) % 50));
        PreemptOnce p;
        p.at = 100;
        RunConfig cfg = idealCfg();
        cfg.recordDecisions = true;
        Simulator sim(c, t, p, cfg);
        struct Keep : SimObserver {
            DecisionLog log;
            std::vector<std::vector<int>> owners; // GPU owner after each decision
            const Simulator* sim = nullptr;
            void onDecision(const DecisionRecord& r) override { log.records.push_back(r); }
        } keep;
        keep.log.machineCount = c.machineCount();
        keep.log.gpuCount = c.totalGpus();
        sim.addObserver(&keep);
        std::vector<std::vector<int>> truth;
        while (sim.step()) {
            std::vector<int> o;
            for (int g = 0; g < c.totalGpus(); ++g)
                o.push_back(sim.state().gpuOwner(g));
            truth.push_back(o);
        }
        QCOMPARE(keep.log.records.size(), truth.size());
        Replayer rp(keep.log);
        for (int k : {0, 5, 17, 3, int(truth.size()) - 1, 10}) {
            rp.seek(k);
            for (int g = 0; g < c.totalGpus(); ++g) {
                const auto& h = rp.holders()[size_t(g)];
                QCOMPARE(h.empty() ? -1 : h.back().job, truth[size_t(k)][size_t(g)]);
            }
        }
        // binary round trip
        const QString path = QDir::temp().filePath("tst_engine_log.bin");
        {
            DecisionLogWriter w(path.toStdString(), c.machineCount(), c.totalGpus());
            for (auto& r : keep.log.records)
                w.write(r);
            w.close();
        }
        const DecisionLog back = readDecisionLog(path.toStdString());
        QCOMPARE(back.records.size(), keep.log.records.size());
        for (size_t i = 0; i < back.records.size(); ++i) {
            const auto& a = back.records[i];
            const auto& b = keep.log.records[i];
            QCOMPARE(a.time, b.time);
            QCOMPARE(a.finished, b.finished);
            QCOMPARE(a.preempted, b.preempted);
            QCOMPARE(a.queue.size(), b.queue.size());
            QCOMPARE(a.placements.size(), b.placements.size());
            for (size_t k = 0; k < a.placements.size(); ++k) {
                QVERIFY(a.placements[k].slots == b.placements[k].slots);
                QCOMPARE(a.placements[k].affinity, b.placements[k].affinity);
                QCOMPARE(a.placements[k].reason, b.placements[k].reason);
            }
        }
        // corrupt file: clear error naming the file
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadWrite));
            f.resize(f.size() - 3);
        }
        try {
            readDecisionLog(path.toStdString());
            QFAIL("truncated log accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY(QString(e.what()).contains("tst_engine_log.bin"));
            QVERIFY(QString(e.what()).contains("corrupt"));
        }
        QFile::remove(path);
    }

    void percentilesAndJain()
    {
        QCOMPARE(percentile({1, 2, 3, 4, 5}, 50), 3.0);
        QCOMPARE(percentile({1, 2, 3, 4}, 50), 2.5);
        QCOMPARE(percentile({10}, 95), 10.0);
        QCOMPARE(jainIndex({1, 1, 1, 1}), 1.0);
        QCOMPARE(jainIndex({1, 0, 0, 0}), 0.25);
    }

    void segmentTreeQueries()
    {
        MaxSegTree t;
        t.init(10);
        for (int i = 0; i < 10; ++i)
            t.set(i, i % 4);
        QCOMPARE(t.firstAtLeast(3), 3);
        QCOMPARE(t.firstAtLeast(3, 4), 7);
        QCOMPARE(t.firstAtLeast(4), -1);
        QCOMPARE(t.argMax(), 3);
        t.set(3, 0);
        QCOMPARE(t.argMax(), 7);
    }
};

QTEST_GUILESS_MAIN(TstEngine)
#include "tst_engine.moc"
