// Cluster presets, the trace generator and the performance-model settings.
#include <QtTest>

#include <cmath>

#include "model/clusterspec.h"
#include "model/tracegen.h"
#include "perf/perfmodel.h"

using namespace ss;

class TstModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void presetsAreValidWithDocumentedSizes()
    {
        const std::map<std::string, std::pair<int, int>> expected = {
            {"das-case", {8, 32}},       {"das-small", {8, 32}},       {"das-medium", {16, 128}},
            {"das-large", {32, 256}},    {"gavel-108", {27, 108}},     {"tiresias-n32g4", {32, 128}},
            {"alibaba-scale", {1814, 6742}}, {"chronus-120x8", {120, 960}}};
        QCOMPARE(clusterPresetNames().size(), expected.size());
        for (const std::string& n : clusterPresetNames()) {
            const ClusterSpec c = makeClusterPreset(n);
            QVERIFY2(c.validate().empty(), c.validate().c_str());
            QCOMPARE(c.name, n);
            QCOMPARE(c.machineCount(), expected.at(n).first);
            QCOMPARE(c.totalGpus(), expected.at(n).second);
            QVERIFY(!clusterPresetDescription(n).empty());
        }
        const ClusterSpec g = makeClusterPreset("gavel-108");
        int v100 = 0;
        for (const Machine& m : g.machines)
            if (g.types[size_t(m.type)].name == "V100")
                v100 += m.gpus;
        QCOMPARE(v100, 36);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeClusterPreset("nope"));
    }

    void gpuNumberingAndFingerprint()
    {
        ClusterSpec c = makeClusterPreset("das-small");
        QCOMPARE(c.gpuBase(0), 0);
        QCOMPARE(c.gpuBase(3), 12);
        QCOMPARE(c.machineOfGpu(13), 3);
        const std::string f = c.fingerprint();
        QCOMPARE(makeClusterPreset("das-small").fingerprint(), f);
        c.machines[0].gpus = 8;
        c.finalize();
        QVERIFY(c.fingerprint() != f);
        c.machines[0].type = 99;
        QVERIFY(c.validate().find("unknown GPU type") != std::string::npos);
    }

    void biggestMachinePerTypeMask()
    {
        // Alibaba mix: V100 machines have 8 GPUs, P100 and T4 machines 2 (Tetris and DAS decide by this which
        // jobs must span machines).
        const ClusterSpec c = makeClusterPreset("alibaba-scale");
        const uint64_t v100 = 1ULL << c.typeIndex("V100"), p100 = 1ULL << c.typeIndex("P100"),
                       t4 = 1ULL << c.typeIndex("T4");
        QCOMPARE(c.maxGpusPerMachineOf(v100), 8);
        QCOMPARE(c.maxGpusPerMachineOf(p100 | t4), 2);
        QCOMPARE(c.maxGpusPerMachineOf(p100 | t4 | v100), 8);
        QCOMPARE(c.maxGpusPerMachineOf(0), 0);
        ClusterSpec d = makeClusterPreset("das-small");
        d.machines[0].gpus = 6; // a V100 machine
        d.finalize();
        QCOMPARE(d.maxGpusPerMachineOf(1ULL << d.typeIndex("V100")), 6);
        QCOMPARE(d.maxGpusPerMachineOf(1ULL << d.typeIndex("T4")), 4);
    }

    void referenceGpusCountEachGpuAtItsTypesSpeed()
    {
        // alibaba-scale: 832 V100 + 1,080 V100M32 at 1.0, 2,240 MISC at 0.7, 1,596 P100 at 0.55, 994 T4 at 0.4
        QCOMPARE(makeClusterPreset("alibaba-scale").referenceGpus(), 832 + 1080 + 2240 * 0.7 + 1596 * 0.55 + 994 * 0.4);
        ClusterSpec d = makeClusterPreset("das-small"); // 3 V100, 3 P100, 2 T4 machines of 4
        QCOMPARE(d.referenceGpus(), 12 * 1.0 + 12 * 0.55 + 8 * 0.4);
        d.types[size_t(d.typeIndex("T4"))].speed = 1.0;
        d.machines[0].gpus = 0; // a machine without GPUs counts nothing
        d.finalize();
        QCOMPARE(d.referenceGpus(), 8 * 1.0 + 12 * 0.55 + 8 * 1.0);
        QCOMPARE(makeClusterPreset("tiresias-n32g4").referenceGpus(), 128 * 0.55);
        // what a trace asks of them: its work in GPU-seconds (generate's and inspect's figure)
        Trace t;
        QCOMPARE(t.gpuSeconds(), 0.0);
        Job a, b;
        a.gpus = 2;
        a.duration = 100;
        b.gpus = 0.5;
        b.duration = 10;
        t.jobs = {a, b};
        QCOMPARE(t.gpuSeconds(), 205.0);
    }

    void generatorIsDeterministicAndHitsLoad()
    {
        TraceGenConfig g;
        g.jobs = 20000;
        g.seed = 5;
        g.load = 0.8;
        g.clusterGpus = 128;
        const Trace a = generateTrace(g), b = generateTrace(g);
        QCOMPARE(a.jobs.size(), size_t(20000));
        QVERIFY(a.validate().empty());
        for (size_t i = 0; i < a.jobs.size(); i += 97) {
            QCOMPARE(a.jobs[i].submit, b.jobs[i].submit);
            QCOMPARE(a.jobs[i].duration, b.jobs[i].duration);
            QCOMPARE(a.jobs[i].gpus, b.jobs[i].gpus);
        }
        g.seed = 6;
        QVERIFY(generateTrace(g).jobs[10].submit != a.jobs[10].submit);
        // offered load = sum(gpus x duration) / (span x GPUs) should be near 0.8
        double work = 0;
        int ones = 0;
        for (const Job& j : a.jobs) {
            work += j.gpus * j.duration;
            ones += j.gpus == 1;
        }
        const double load = work / (a.span() * 128);
        QVERIFY2(load > 0.65 && load < 0.95, qPrintable(QString::number(load)));
        QVERIFY(std::abs(ones / 20000.0 - 0.70) < 0.02);
    }

    void perfConfigParses()
    {
        const PerfConfig c = PerfConfig::parse("cross_machine=0.2,fluctuation_sd=0.1,preempt_overhead=30");
        QCOMPARE(c.crossMachine, 0.2);
        QCOMPARE(c.fluctuationSd, 0.1);
        QCOMPARE(c.preemptOverhead, 30.0);
        QVERIFY(PerfConfig::parse("ideal").ideal);
        QCOMPARE(PerfConfig::parse(c.toString()).toString(), c.toString());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, PerfConfig::parse("cross_machine=abc"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, PerfConfig::parse("nonsense=1"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, PerfConfig::parse("interference=-1"));
    }

    void perfModelSlowestGpuAndTable()
    {
        const ClusterSpec c = makeClusterPreset("das-small"); // V100 machines 0-2, P100 3-5, T4 6-7
        Trace t;
        t.models = {"ResNet-50"};
        Job j;
        j.model = 0;
        PerfConfig cfg;
        cfg.crossMachine = 0;
        cfg.crossSwitch = 0;
        PerfModel pm(c, t, cfg, 1);
        QCOMPARE(pm.expectedRate(j, {0}, 1, 0), 1.0);
        QCOMPARE(pm.expectedRate(j, {0, 3}, 1, 0), 0.55); // paced by the P100
        ThroughputTable tab;
        tab.set("ResNet-50", "P100", 0.4);
        PerfModel pm2(c, t, cfg, 1, &tab);
        QCOMPARE(pm2.expectedRate(j, {3}, 1, 0), 0.4);
        QCOMPARE(pm2.expectedRate(j, {6}, 1, 0), 0.40); // T4 not in table: type speed
    }
};

QTEST_GUILESS_MAIN(TstModel)
#include "tst_model.moc"
