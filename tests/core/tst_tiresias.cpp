// Tiresias's discretized 2D-LAS and 2D-Gittins (SymbioticLab/Tiresias simulator semantics): demotion after
// a GPU-time threshold, preemption by a new job, FIFO inside a queue, the starvation knob, Gittins indices on
// a known distribution and Tiresias's tie rule (later submit first).
#include <QtTest>

#include <cstdio>
#include <fstream>
#include <random>

#include "model/clusterspec.h"
#include "model/tracegen.h"
#include "policy/registry.h"
#include "policy/tiresias.h"
#include "sim/engine.h"

using namespace ss;

namespace {

Trace makeTrace(const std::vector<std::tuple<double, double, double>>& jobs) // submit, gpus, duration
{
    Trace t;
    t.name = "hand";
    int64_t id = 0;
    for (auto [s, g, d] : jobs) {
        Job j;
        j.id = id++;
        j.submit = s;
        j.gpus = g;
        j.duration = d;
        t.jobs.push_back(j);
    }
    t.sortBySubmit();
    return t;
}

ClusterSpec oneMachine(int gpus)
{
    ClusterSpec c;
    c.name = "one";
    c.types = {{"A", 1.0, 16, 1.0}};
    c.switches = {{"s0", 100}};
    c.machines.push_back({"m0", 0, gpus, 0, 0, 0, 25});
    c.finalize();
    return c;
}

struct Times {
    std::vector<double> start, end;
    std::vector<int> preemptions;
};

Times run(const ClusterSpec& c, const Trace& t, const std::string& policy, std::map<std::string, std::string> params = {})
{
    PolicyOptions o;
    o.params = std::move(params);
    auto s = makeScheduler(policy, o);
    RunConfig cfg;
    cfg.perf.ideal = true;
    cfg.checkInvariants = true;
    Simulator sim(c, t, *s, cfg);
    sim.run();
    Times r;
    for (size_t j = 0; j < t.jobs.size(); ++j) {
        if (sim.rt(int(j)).status != JobStatus::Done)
            throw std::runtime_error("job did not finish");
        r.start.push_back(sim.rt(int(j)).firstStart);
        r.end.push_back(sim.rt(int(j)).end);
        r.preemptions.push_back(sim.rt(int(j)).preemptions);
    }
    return r;
}

/// A policy that hands every call to another (the tests below change one answer or look at each decision).
class Forwarding : public Scheduler {
public:
    explicit Forwarding(std::unique_ptr<Scheduler> p) : m_p(std::move(p)) {}
    std::string name() const override { return m_p->name(); }
    void reset(const SimSetup& setup) override { m_p->reset(setup); }
    void schedule(SchedContext& ctx) override { m_p->schedule(ctx); }
    void onJobStopped(int job, double now, bool finished, const JobRuntime& rt) override { m_p->onJobStopped(job, now, finished, rt); }
    void onJobStarted(int job, double now, const JobRuntime& rt) override { m_p->onJobStarted(job, now, rt); }
    bool hasAdmission() const override { return m_p->hasAdmission(); }
    AdmissionRecord admit(const SchedContext& ctx, int job) override { return m_p->admit(ctx, job); }
    bool reratesAfterDecision() const override { return m_p->reratesAfterDecision(); }

protected:
    std::unique_ptr<Scheduler> m_p;
};

/// The same policy, with its co-runners re-rated at every start and stop inside the decision (the engine's way for a
/// policy that does not say it reads no rates there).
class RerateAtOnce final : public Forwarding {
public:
    using Forwarding::Forwarding;
    bool reratesAfterDecision() const override { return false; }
};

/// Checks at each decision that the engine's list of retimed jobs holds exactly the jobs whose version changed since
/// the previous decision began, among them every running one (SRTF's index relies on it).
class CheckRetimed final : public Forwarding {
public:
    using Forwarding::Forwarding;
    void schedule(SchedContext& ctx) override
    {
        const int n = ctx.jobCount();
        m_seen.resize(size_t(n), 0);
        m_listed.assign(size_t(n), 0);
        for (int j : ctx.retimedJobs()) {
            if (m_listed[size_t(j)]++)
                m_errors.push_back("job " + std::to_string(j) + " listed twice");
            if (ctx.rt(j).version == m_seen[size_t(j)])
                m_errors.push_back("job " + std::to_string(j) + " listed, not retimed");
        }
        for (int j = 0; j < n; ++j) {
            if (ctx.rt(j).status == JobStatus::Running && ctx.rt(j).version != m_seen[size_t(j)] && !m_listed[size_t(j)])
                m_errors.push_back("running job " + std::to_string(j) + " retimed, not listed");
            m_seen[size_t(j)] = ctx.rt(j).version;
        }
        m_listedTotal += ctx.retimedJobs().size();
        m_p->schedule(ctx);
    }
    std::vector<std::string> m_errors;
    size_t m_listedTotal = 0;

private:
    std::vector<uint32_t> m_seen;
    std::vector<char> m_listed;
};

ClusterSpec mixedMachines()
{
    ClusterSpec c; // four 8-GPU machines and sixteen 2-GPU ones, of two types, on two switches
    c.name = "mixed";
    c.types = {{"A", 1.0, 16, 1.0}, {"B", 0.7, 16, 0.5}};
    c.switches = {{"s0", 100}, {"s1", 100}};
    for (int m = 0; m < 20; ++m)
        c.machines.push_back({"m" + std::to_string(m), m < 4 ? 0 : 1, m < 4 ? 8 : 2, 8.0, 64.0, m / 10, 25});
    c.finalize();
    return c;
}

Trace contendedTrace(const ClusterSpec& c)
{
    TraceGenConfig g;
    g.jobs = 1500;
    g.seed = 7;
    g.load = 1.6;
    g.clusterGpus = c.totalGpus();
    g.fractionalShare = 0.05;
    return generateTrace(g);
}

} // namespace

class TstTiresias : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void lasDemotesThenNewJobPreempts()
    {
        // 1 GPU, threshold 100 GPU-s: job0 leaves Q0 at t=100; job1 arrives at 150 in Q0 and preempts it
        const ClusterSpec c = oneMachine(1);
        const Trace t = makeTrace({{0, 1, 300}, {150, 1, 50}});
        const Times r = run(c, t, "las+firstfit", {{"las.thresholds", "100"}});
        QCOMPARE(r.start[1], 150.0);
        QCOMPARE(r.end[1], 200.0);
        QCOMPARE(r.preemptions[0], 1);
        QCOMPARE(r.end[0], 350.0); // 150 s done before, 150 s after
        // with a threshold job0 never reaches, both stay in Q0 and the running job keeps its place (FIFO)
        const Times q = run(c, t, "las+firstfit", {{"las.thresholds", "1000"}});
        QCOMPARE(q.preemptions[0], 0);
        QCOMPARE(q.end[0], 300.0);
        QCOMPARE(q.start[1], 300.0);
    }

    void attainedServiceIsGpuTime()
    {
        // 2 GPUs x 50 s = 100 GPU-s: job0 (2 GPUs) is demoted at t=50, so job1 at t=60 preempts it
        const ClusterSpec c = oneMachine(2);
        const Trace t = makeTrace({{0, 2, 300}, {60, 1, 50}});
        const Times r = run(c, t, "las+firstfit", {{"las.thresholds", "100"}});
        QCOMPARE(r.start[1], 60.0);
        QCOMPARE(r.end[1], 110.0);
        QCOMPARE(r.preemptions[0], 1);
        QCOMPARE(r.end[0], 350.0); // 240 s left at t=110
        // the default thresholds (3250, 7200) keep it in Q0 here
        const Times d = run(c, t, "las+firstfit");
        QCOMPARE(d.preemptions[0], 0);
        QCOMPARE(d.start[1], 300.0);
    }

    void demotedJobsQueueBehindWaitingOnes()
    {
        // 1 GPU, threshold 100: job0 runs 0-100 and is demoted to Q1. job1 (Q0) arrives at 150, preempts it
        // and is demoted itself at t=250, behind job0 in Q1: job0 runs again at 250
        const ClusterSpec c = oneMachine(1);
        const Trace t = makeTrace({{0, 1, 300}, {150, 1, 400}});
        const Times r = run(c, t, "las+firstfit", {{"las.thresholds", "100"}});
        QCOMPARE(r.start[1], 150.0);
        QCOMPARE(r.end[0], 400.0);  // 150 before, 150 from t=250
        QCOMPARE(r.end[1], 700.0);  // 100 before, 300 from t=400
        QCOMPARE(r.preemptions[0], 1);
        QCOMPARE(r.preemptions[1], 1);
    }

    void starvationKnobPromotes()
    {
        // 1 GPU, one threshold at 100 GPU-s. job0 is demoted at t=100 and preempted at t=150 by job1; then
        // short jobs keep arriving in Q0 (90 s each, never demoted).
        const ClusterSpec c = oneMachine(1);
        const Trace t = makeTrace({{0, 1, 300}, {150, 1, 90}, {200, 1, 90}, {260, 1, 90}});
        // without the knob job0 waits for every newcomer
        const Times off = run(c, t, "las+firstfit", {{"las.thresholds", "100"}});
        QCOMPARE(off.end[1], 240.0);
        QCOMPARE(off.end[2], 330.0);
        QCOMPARE(off.start[3], 330.0);
        QCOMPARE(off.end[3], 420.0);
        QCOMPARE(off.end[0], 570.0);
        // knob 0.5: having run 150 s, job0 is promoted after waiting 75 s (t=225) to the back of Q0 with its
        // executed time reset: it runs after job2 (queued before the promotion) but before job3, from 330
        // until its 100 GPU-s in Q0 are used up (t=430), when job3 preempts it again
        const Times on = run(c, t, "las+firstfit", {{"las.thresholds", "100"}, {"las.knob", "0.5"}});
        QCOMPARE(on.end[1], 240.0);
        QCOMPARE(on.end[2], 330.0);
        QCOMPARE(on.start[3], 430.0);
        QCOMPARE(on.end[3], 520.0);
        QCOMPARE(on.end[0], 570.0);
        QCOMPARE(on.preemptions[0], 2);
    }

    void starvationHeapMatchesAScan()
    {
        // a contended random trace on 8 GPUs with the knob: under checkInvariants every decision also tests every
        // waiting job for starvation and takes the earliest starvation time over all of them, and throws when the
        // heap's promotions or wake-up differ
        std::mt19937_64 rng(11);
        std::vector<std::tuple<double, double, double>> jobs;
        double at = 0;
        for (int i = 0; i < 300; ++i) {
            at += double(rng() % 60);
            jobs.push_back({at, double(1 << (rng() % 3)), double(10 + rng() % 1500)});
        }
        const Trace t = makeTrace(jobs);
        for (const char* policy : {"las+firstfit", "gittins+firstfit"})
            for (const char* knob : {"0.3", "1", "4"}) {
                const Times r = run(oneMachine(8), t, policy, {{"las.thresholds", "200,2000"}, {"las.knob", knob}});
                int preempted = 0;
                for (int p : r.preemptions)
                    preempted += p;
                QVERIFY2(preempted > 50, qPrintable(QStringLiteral("%1 knob %2: %3 preemptions").arg(QLatin1String(policy), QLatin1String(knob)).arg(preempted)));
            }
    }

    void gittinsIndexOnKnownDistribution()
    {
        // sizes 100, 200, 10000; delta 150
        const GittinsTable g({200, 10000, 100}, 150);
        // a=0: P(S<=150)=1/3, E[min(S,150)] = (100+150+150)/3  -> 1e6 * (1/3) / (400/3) = 2500
        QCOMPARE(g.index(0), 2500.0);
        // a=100: survivors 200, 10000; P(S-100<=150)=1/2; E = (100 + 150)/2 -> 0.5e6/125 = 4000
        QCOMPARE(g.index(100), 4000.0);
        QCOMPARE(g.index(5000), 0.0); // no survivor ends within delta
        QCOMPARE(g.index(10000), 0.0); // beyond the largest sample (Tiresias returns 0)
        QVERIFY(g.index(100) > g.index(0)); // the rank grows as the job nears a likely end
    }

    void gittinsTiesGoToLaterSubmit()
    {
        // 1 GPU. job0 runs 0-10; job1 (t=1) and job2 (t=2) wait with zero attained service, equal indices:
        // Tiresias sorts (rank, -submit) descending, so job2 goes first. LAS keeps FIFO.
        const ClusterSpec c = oneMachine(1);
        const Trace t = makeTrace({{0, 1, 10}, {1, 1, 5}, {2, 1, 5}});
        const Times g = run(c, t, "gittins+firstfit");
        QCOMPARE(g.start[2], 10.0);
        QCOMPARE(g.start[1], 15.0);
        QCOMPARE(g.preemptions[0], 0); // job0's index at a>0 is higher than the newcomers' at a=0
        const Times l = run(c, t, "las+firstfit");
        QCOMPARE(l.start[1], 10.0);
        QCOMPARE(l.start[2], 15.0);
    }

    void reratingAfterTheDecisionChangesNothing()
    {
        // Under co-location interference, a preemptive policy's decision stops and starts jobs on machines that
        // other jobs share (2-GPU machines put most multi-GPU jobs on several). Re-rating those
        // jobs once after the decision must leave every job's times bit for bit as re-rating at each change.
        const ClusterSpec c = mixedMachines();
        const Trace t = contendedTrace(c);
        for (const char* policy : {"srtf+firstfit", "srtf+random", "las+consolidate", "gittins+bestfit"}) {
            RunConfig cfg;
            cfg.seed = 3;
            cfg.checkInvariants = true; // (also checks every re-rated job's co-runners against its machines)
            QVERIFY(cfg.perf.interference > 0 && !cfg.perf.ideal);
            std::unique_ptr<Scheduler> later = makeScheduler(policy, {});
            QVERIFY(later->reratesAfterDecision());
            RerateAtOnce atOnce(makeScheduler(policy, {}));
            Simulator a(c, t, *later, cfg), b(c, t, atOnce, cfg);
            QVERIFY(a.run());
            QVERIFY(b.run());
            QCOMPARE(a.decisions(), b.decisions());
            int preempted = 0;
            for (int j = 0; j < int(t.jobs.size()); ++j) {
                const JobRuntime &x = a.rt(j), &y = b.rt(j);
                QCOMPARE(int(x.status), int(y.status));
                QCOMPARE(x.preemptions, y.preemptions);
                preempted += x.preemptions;
                if (x.end != y.end || x.firstStart != y.firstStart)
                    QFAIL(qPrintable(QString("%1: job %2 ends at %3 against %4").arg(policy).arg(j).arg(x.end, 0, 'g', 17).arg(y.end, 0, 'g', 17)));
            }
            QVERIFY2(preempted > 100, policy);
        }
    }

    void loggedQueueIsInPriorityOrderAndCapped()
    {
        // The decision record's queue is a merge of the waiting jobs' shape buckets (PreemptiveScheduler::
        // recordRanking), cut at logQueueLimit: in priority order (the scores never rise along it: -queue for
        // 2D-LAS, -hours left for SRTF, -queue plus the index for 2D-Gittins), each waiting job once, the full
        // length kept, and a capped record the first jobs of the full one.
        const ClusterSpec c = mixedMachines();
        const Trace t = contendedTrace(c);
        struct Keep : SimObserver {
            std::vector<DecisionRecord> recs;
            void onDecision(const DecisionRecord& r) override { recs.push_back(r); }
        };
        for (const char* policy : {"las+consolidate", "srtf+firstfit", "gittins+bestfit"}) {
            std::vector<DecisionRecord> full, capped;
            for (const int limit : {100000, 5}) {
                RunConfig cfg;
                cfg.recordDecisions = true;
                cfg.logQueueLimit = limit;
                std::unique_ptr<Scheduler> p = makeScheduler(policy, {});
                Simulator sim(c, t, *p, cfg);
                Keep keep;
                sim.addObserver(&keep);
                QVERIFY(sim.run());
                (limit == 5 ? capped : full) = std::move(keep.recs);
            }
            QCOMPARE(capped.size(), full.size());
            size_t long_ = 0;
            for (size_t k = 0; k < full.size(); ++k) {
                const DecisionRecord &f = full[k], &cp = capped[k];
                QCOMPARE(f.queueLength, int(f.queue.size()));
                QCOMPARE(cp.queueLength, f.queueLength);
                QCOMPARE(cp.queue.size(), std::min<size_t>(5, f.queue.size()));
                std::vector<char> seen(t.jobs.size(), 0);
                for (size_t i = 0; i < f.queue.size(); ++i) {
                    QVERIFY2(!seen[size_t(f.queue[i].job)]++, policy);
                    if (i > 0 && f.queue[i].priority > f.queue[i - 1].priority)
                        QFAIL(qPrintable(QString("%1: decision %2, queue place %3 scores %4 after %5").arg(policy).arg(k).arg(i)
                                             .arg(f.queue[i].priority).arg(f.queue[i - 1].priority)));
                    if (i < cp.queue.size())
                        QCOMPARE(cp.queue[i].job, f.queue[i].job);
                }
                long_ += f.queue.size() > 20 ? 1 : 0;
            }
            QVERIFY2(long_ > 100, policy); // queues of several shapes to merge
        }
    }

    void retimedJobsAreListed()
    {
        const ClusterSpec c = mixedMachines();
        const Trace t = contendedTrace(c);
        for (const char* policy : {"srtf+firstfit", "fifo+firstfit"}) { // (re-rated after the decision, and not)
            RunConfig cfg;
            cfg.perf.preemptOverhead = 20; // (a resumed job's progress starts later)
            CheckRetimed p(makeScheduler(policy, {}));
            Simulator sim(c, t, p, cfg);
            QVERIFY(sim.run());
            QVERIFY2(p.m_errors.empty(), p.m_errors.empty() ? "" : p.m_errors.front().c_str());
            QVERIFY(p.m_listedTotal > t.jobs.size()); // every start, and re-rates besides
        }
    }

    void gittinsDistributionFile()
    {
        const QString path = QDir::temp().filePath("ss_gittins_dist.csv");
        {
            std::ofstream f(path.toStdString());
            f << "duration\n100\n200\n10000\n";
        }
        const auto v = readSizeDistribution(path.toStdString());
        QCOMPARE(int(v.size()), 3);
        PolicyOptions o;
        o.params["gittins.dist"] = path.toStdString();
        QVERIFY(makeScheduler("gittins+firstfit", o) != nullptr);
        {
            std::ofstream f(path.toStdString());
            f << "duration\n100\nabc\n";
        }
        try {
            readSizeDistribution(path.toStdString());
            QFAIL("expected an error");
        } catch (const std::runtime_error& e) {
            const QString msg = QString::fromUtf8(e.what());
            QVERIFY2(msg.contains(":3:") && msg.contains("duration"), e.what());
        }
        std::remove(path.toStdString().c_str());
        // the Tiresias distribution itself, when the shared traces are around
        const QString yarn = QString(SS_SHARED_TRACES) + "/tiresias/yarn-gput1000.csv";
        if (!QFile::exists(yarn))
            QSKIP("shared traces not available");
        const auto y = readSizeDistribution(yarn.toStdString());
        QVERIFY(y.size() >= 900);
        const GittinsTable g(y, 3250);
        QVERIFY(g.index(0) > 0);
    }
};

QTEST_GUILESS_MAIN(TstTiresias)
#include "tst_tiresias.moc"
