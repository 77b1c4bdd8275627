// The accelerator mode (docs/ACCELERATOR.md): the cost model by hand, proportional bandwidth slowdown by
// hand, layers in order / one sub-accelerator per layer / energy adding up over random scenarios, and the
// files' errors naming file, line and field.
#include <QtTest>

#include <QTemporaryDir>

#include <fstream>

#include "../clirun.h"
#include "io/accelio.h"
#include "io/ioerror.h"
#include "model/rng.h"
#include "policy/relmas/accelpolicies.h"
#include "sim/accel/accelgen.h"
#include "sim/accel/accelmetrics.h"
#include "sim/accel/accelsim.h"

using namespace ss;
using namespace ss::accel;

namespace {

const std::string kNets = std::string(SS_SOURCE_DIR) + "/sample-traces/accel/networks/";

Workload standardNets(const std::string& chip)
{
    Workload w;
    w.chip = chipPreset(chip);
    for (const char* n : {"resnet50", "mobilenetv2", "vgg16", "bert-base", "dlrm-mlp"})
        w.networks.push_back(readNetwork(kNets + n + ".json"));
    return w;
}

/// A chip of `subs` equal weight-stationary sub-accelerators and one fc layer per network, with B set so that
/// each running layer asks for `share` of it.
Workload twoLayerChip(int subs, double share, double& c)
{
    Workload w;
    w.chip.name = "hand";
    w.chip.bandwidth = 1e12;
    for (int i = 0; i < subs; ++i) {
        SubAccel s;
        s.name = "sa" + std::to_string(i);
        s.clusters = 16;
        s.clusterSize = 64;
        s.bufferBytes = 1e9;
        w.chip.subs.push_back(s);
    }
    Network n;
    n.name = "one-fc";
    Layer l;
    l.type = LayerType::Fc;
    l.K = 1024;
    l.C = 1024;
    l.Y = 4;
    n.layers.push_back(l);
    w.networks.push_back(n);
    const LayerCost lc = layerCost(l, w.chip.subs[0], w.chip);
    c = lc.computeUs;
    w.chip.bandwidth = lc.traffic / lc.computeUs / share; // b = traffic / c = share x B
    w.tenants.push_back({"t", 3});
    return w;
}

void writeText(const QString& path, const std::string& text)
{
    std::ofstream f(path.toStdString());
    f << text;
}

} // namespace

class TestAccel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void costModelByHand()
    {
        Chip chip = chipPreset("magma-s5");
        const SubAccel& ws = chip.subs[0]; // 128 clusters x 64, weight-stationary
        QCOMPARE(ws.pes(), 8192);
        Layer l;
        l.type = LayerType::Conv;
        l.K = 64;
        l.C = 64;
        l.Y = l.X = 56;
        l.R = l.S = 3;
        const LayerCost c = layerCost(l, ws, chip);
        QCOMPARE(c.macs, 56.0 * 56 * 64 * 64 * 9);
        QCOMPARE(c.weightBytes, 64.0 * 64 * 9);
        QCOMPARE(c.inputBytes, 64.0 * 56 * 56);
        QCOMPARE(c.utilization, 0.5); // 64 output channels over 128 clusters, 64 input channels over 64 lanes
        QCOMPARE(c.traffic, c.weightBytes + c.inputBytes + c.outputBytes); // fits the buffer: no re-fetch
        QVERIFY(qAbs(c.computeUs - c.macs / (8192 * 0.5 * 1000)) < 1e-9);
        QCOMPARE(c.latency, std::max(c.computeUs, c.traffic / chip.bandwidth));
        QVERIFY(qAbs(c.bandwidth * c.latency - c.traffic) < 1e-6);
        const double e = c.macs * 0.5 + (c.traffic + 2 * c.macs / 16) * 2.0 + c.traffic * 100.0;
        QVERIFY(qAbs(c.dynamicPj - e) < 1e-6 * e);
        // heterogeneity: depthwise maps badly on weight-stationary, a batch-1 fc badly on row-stationary
        Layer dw = l;
        dw.type = LayerType::DwConv;
        dw.K = dw.C = 128; // 128 channels over 128 clusters; rows: 3 x 56 over 64 lanes = 0.875
        const SubAccel& rs = chip.subs[3];
        QCOMPARE(rs.dataflow, Dataflow::RowStationary);
        QVERIFY(layerCost(dw, ws, chip).utilization < 0.2);
        QVERIFY(layerCost(dw, rs, chip).utilization > 0.8);
        Layer fc;
        fc.type = LayerType::Fc;
        fc.K = 4096;
        fc.C = 4096;
        fc.Y = 1;
        QVERIFY(layerCost(fc, ws, chip).utilization > 0.9);
        QVERIFY(layerCost(fc, rs, chip).utilization < 0.05);
        // a weight tile that does not fit re-reads the inputs (weight-stationary)
        SubAccel tiny = ws;
        tiny.bufferBytes = c.weightBytes; // half of it holds half the weights: 2 tiles
        QCOMPARE(layerCost(l, tiny, chip).traffic, c.weightBytes + 2 * c.inputBytes + c.outputBytes);
    }

    void networksLoadWithRealShapes()
    {
        Workload w = standardNets("magma-s5");
        QCOMPARE(w.networks[0].layers.size(), size_t(54));
        double macs = 0;
        for (const Layer& l : w.networks[0].layers)
            macs += layerCost(l, w.chip.subs[0], w.chip).macs;
        QVERIFY(macs > 4.0e9 && macs < 4.2e9); // ResNet-50: about 4.1 GMACs
        macs = 0;
        for (const Layer& l : w.networks[2].layers)
            macs += layerCost(l, w.chip.subs[0], w.chip).macs;
        QVERIFY(macs > 15.3e9 && macs < 15.6e9); // VGG-16: about 15.5 GMACs
        macs = 0;
        for (const Layer& l : w.networks[1].layers)
            macs += layerCost(l, w.chip.subs[0], w.chip).macs;
        QVERIFY(macs > 0.29e9 && macs < 0.31e9); // MobileNet-V2: about 300 MMACs
        const CostTable cost(w.chip, w.networks);
        for (size_t n = 0; n < w.networks.size(); ++n)
            qInfo("%s: isolated latency %.1f us", w.networks[n].name.c_str(), cost.isolatedLatency(int(n)));
    }

    void twoLayersOverBudgetSlowDownByTheRatio()
    {
        double c = 0;
        Workload w = twoLayerChip(2, 0.75, c); // each asks 0.75 B: demand 1.5 B, rate 1 / 1.5
        w.requests = {{0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}};
        const CostTable cost(w.chip, w.networks);
        QVERIFY(qAbs(cost.at(0, 0, 0).latency - c) < 1e-9 * c);
        finalizeRequests(w, cost);
        auto fcfs = makeAccelScheduler("fcfs");
        SimConfig cfg;
        cfg.period = 1000 * c;
        const SimResult r = simulate(w, cost, *fcfs, cfg);
        QCOMPARE(r.timeline.size(), size_t(2));
        for (const LayerRun& lr : r.timeline) {
            QCOMPARE(lr.start, 0.0);
            QVERIFY(qAbs(lr.end - 1.5 * c) < 1e-9 * c);
        }
        QVERIFY(qAbs(r.saturatedUs - 1.5 * c) < 1e-9 * c);
        const LayerCost& lc = cost.at(0, 0, 0);
        QVERIFY(qAbs(r.energyPj - 2 * (lc.dynamicPj + lc.staticPjPerUs * 1.5 * c)) < 1e-9 * r.energyPj);
        // deadline = arrival + QoS x isolated latency; 1.5 c <= 3 c
        QVERIFY(qAbs(w.requests[0].deadline - 3 * c) < 1e-9 * c);
        QVERIFY(r.requests[0].met && r.requests[1].met);
    }

    void slowdownRecomputedAtEveryStartAndFinish()
    {
        double c = 0;
        Workload w = twoLayerChip(2, 0.75, c);
        w.requests = {{0, 0, 0, 0, 0}, {1, 0, 0, 0.5 * c, 0}};
        const CostTable cost(w.chip, w.networks);
        finalizeRequests(w, cost);
        auto fcfs = makeAccelScheduler("fcfs");
        SimConfig cfg;
        cfg.period = 0.5 * c; // a cycle when the second arrives
        cfg.keepLog = true;
        const SimResult r = simulate(w, cost, *fcfs, cfg);
        // the decision log: one record per deciding cycle, the started layer's sub-accelerator as its slot
        QVERIFY(r.log);
        QCOMPARE(r.log->records.size(), size_t(2));
        QCOMPARE(r.log->records[1].time, 0.5 * c);
        QCOMPARE(r.log->records[1].placements.at(0).job, 1);
        QCOMPARE(r.log->records[1].placements.at(0).slots.at(0).gpu, 1); // sub 0 is busy with request 0
        QCOMPARE(r.log->records[1].placements.at(0).affinity.size(), size_t(2));
        // 0 .. 0.5c alone at full rate; then both at 2/3: the first's 0.5c left takes 0.75c (ends 1.25c);
        // the second did 0.5c of work by then and finishes its last 0.5c alone (ends 1.75c)
        QVERIFY(qAbs(r.requests[0].finish - 1.25 * c) < 1e-9 * c);
        QVERIFY(qAbs(r.requests[1].finish - 1.75 * c) < 1e-9 * c);
        QVERIFY(qAbs(r.saturatedUs - 0.75 * c) < 1e-9 * c);
        // far from time 0 a remainder below the clock's resolution still finishes (it once stalled the loop)
        Workload late = w;
        late.requests = {{0, 0, 0, 3e9 + 0.1, 0}, {1, 0, 0, 3e9 + 0.1 + 0.5 * c, 0}};
        for (Request& q : late.requests)
            q.deadline = 0;
        finalizeRequests(late, cost);
        const SimResult rl = simulate(late, cost, *fcfs, cfg);
        QVERIFY(rl.requests[0].finish > 3e9 && rl.requests[1].finish > rl.requests[0].finish);
        // under the budget nothing slows down
        Workload u = twoLayerChip(2, 0.5, c);
        u.requests = {{0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}};
        const CostTable cu(u.chip, u.networks);
        finalizeRequests(u, cu);
        const SimResult ru = simulate(u, cu, *fcfs, cfg);
        QVERIFY(qAbs(ru.requests[1].finish - c) < 1e-9 * c);
        QCOMPARE(ru.saturatedUs, 0.0);
    }

    void propertyLayersInOrderOnOneSubAndEnergyAddsUp()
    {
        Rng rng(11);
        const std::vector<std::string> chips = chipPresetNames();
        for (int trial = 0; trial < 12; ++trial) {
            Workload w = standardNets(chips[size_t(trial) % chips.size()]);
            // short networks keep the suite fast: MobileNet-V2, the DLRM MLP, and sometimes ResNet-50
            std::vector<Network> nets {w.networks[4], w.networks[1]};
            if (trial % 3 == 0)
                nets.push_back(w.networks[0]);
            w.networks = nets;
            const CostTable cost(w.chip, w.networks);
            GenParams g;
            g.requests = 10 + int(rng.below(20));
            g.tenants = 1 + int(rng.below(4));
            g.load = rng.uniform(0.2, 1.2);
            g.bursty = rng.below(2) == 1;
            g.seed = rng.next();
            generateRequests(w, cost, g);
            for (const std::string& p : accelPolicyNames()) {
                auto sc = makeAccelScheduler(p, {{"search.iterations", "40"}});
                SimConfig cfg;
                cfg.period = rng.uniform(5, 50);
                cfg.onIdle = rng.below(2) == 1;
                const SimResult r = simulate(w, cost, *sc, cfg);
                double e = 0;
                std::vector<std::vector<const LayerRun*>> perReq(w.requests.size());
                std::vector<std::vector<const LayerRun*>> perSub(w.chip.subs.size());
                for (const LayerRun& lr : r.timeline) {
                    e += lr.energyPj;
                    perReq[size_t(lr.request)].push_back(&lr);
                    perSub[size_t(lr.sub)].push_back(&lr);
                    QVERIFY(lr.end >= lr.start);
                }
                QVERIFY(qAbs(e - r.energyPj) <= 1e-9 * r.energyPj);
                for (size_t q = 0; q < w.requests.size(); ++q) {
                    const auto& runs = perReq[q];
                    QCOMPARE(int(runs.size()), cost.layerCount(w.requests[q].network)); // each layer once
                    for (size_t i = 0; i < runs.size(); ++i) {
                        QCOMPARE(runs[i]->layer, int(i)); // in order
                        QVERIFY(runs[i]->start >= w.requests[q].arrival);
                        if (i > 0)
                            QVERIFY(runs[i]->start >= runs[i - 1]->end);
                    }
                    QCOMPARE(r.requests[q].finish, runs.back()->end);
                }
                for (auto& runs : perSub) { // a sub-accelerator runs one layer at a time
                    std::sort(runs.begin(), runs.end(), [](auto* a, auto* b) { return a->start < b->start; });
                    for (size_t i = 1; i < runs.size(); ++i)
                        QVERIFY(runs[i]->start >= runs[i - 1]->end);
                }
            }
        }
    }

    void deterministicAndRoundTrips()
    {
        QTemporaryDir dir;
        AccelScenario s;
        s.name = "rt";
        s.chipRef = "magma-s3";
        s.networkRefs = {kNets + "mobilenetv2.json", kNets + "dlrm-mlp.json"};
        s.generated = true;
        s.gen.requests = 60;
        s.gen.tenants = 3;
        s.gen.bursty = true;
        s.gen.load = 0.8;
        s.gen.seed = 5;
        s.policies = {"search"};
        const QString path = dir.filePath("g.scenario.json");
        writeAccelScenario(s, path.toStdString());
        const AccelScenario a = readAccelScenario(path.toStdString());
        const AccelScenario b = readAccelScenario(path.toStdString());
        QCOMPARE(a.workload.requests.size(), size_t(60));
        QCOMPARE(a.gen.seed, uint64_t(5));
        QVERIFY(a.gen.bursty);
        const CostTable cost(a.workload.chip, a.workload.networks);
        auto s1 = makeAccelScheduler("search"), s2 = makeAccelScheduler("search");
        const AccelMetrics m1 = computeMetrics(a.workload, simulate(a.workload, cost, *s1, a.sim));
        const AccelMetrics m2 = computeMetrics(b.workload, simulate(b.workload, cost, *s2, b.sim));
        QCOMPARE(m1.met, m2.met);
        QCOMPARE(m1.energyUj, m2.energyUj);
        QCOMPARE(m1.p99LatencyUs, m2.p99LatencyUs);
        // bursty arrivals share timestamps
        int same = 0;
        for (size_t i = 1; i < a.workload.requests.size(); ++i)
            same += a.workload.requests[i].arrival == a.workload.requests[i - 1].arrival;
        QVERIFY(same > 10);
    }

    void metricsDefinitions()
    {
        double c = 0;
        Workload w = twoLayerChip(1, 0.5, c); // one sub: the second request waits for the first
        w.tenants.push_back({"u", 1.5});
        w.requests = {{0, 0, 0, 0, 0}, {1, 1, 0, 0, 0}};
        const CostTable cost(w.chip, w.networks);
        finalizeRequests(w, cost);
        auto fcfs = makeAccelScheduler("fcfs");
        SimConfig cfg;
        cfg.period = 1000 * c;
        cfg.onIdle = true; // the second starts as the first frees the sub-accelerator
        const AccelMetrics m = computeMetrics(w, simulate(w, cost, *fcfs, cfg));
        QCOMPARE(m.met, 1); // the second (tenant u, deadline 1.5 c) finishes at 2 c
        QCOMPARE(m.slaRate, 0.5);
        QCOMPARE(m.tenantRate, (std::vector<double> {1.0, 0.0}));
        QCOMPARE(m.fairness, 0.5); // Jain: (1 + 0)^2 / (2 x 1)
        QVERIFY(qAbs(m.utilization[0] - 1.0) < 1e-9);
    }

    void badInputNamesFileLineField()
    {
        QTemporaryDir dir;
        auto expectError = [&](const QString& name, const std::string& text, const std::string& field, long line,
                               auto reader) {
            const QString p = dir.filePath(name);
            writeText(p, text);
            try {
                reader(p.toStdString());
                QFAIL(qPrintable("no error for " + name));
            } catch (const IoError& e) {
                QCOMPARE(e.file(), p.toStdString());
                QCOMPARE(e.field(), field);
                QCOMPARE(e.line(), line);
            }
        };
        const std::string head = "{\"format\": \"schedstudio-network\", \"version\": 1, \"name\": \"n\",\n\"layers\": [\n";
        expectError("t.json", head + "{\"type\": \"conv\", \"K\": 4},\n{\"type\": \"lstm\", \"K\": 4}]}", "type", 4,
                    [](const std::string& p) { readNetwork(p); });
        expectError("neg.json", head + "{\"type\": \"conv\",\n \"C\": -3}]}", "C", 4,
                    [](const std::string& p) { readNetwork(p); });
        expectError("nobw.json", "{\"format\": \"schedstudio-chip\", \"version\": 1,\n\"bandwidth_gbps\": 0,\n"
                                 "\"subs\": [{\"dataflow\": \"ws\"}]}",
                    "bandwidth_gbps", 2, [](const std::string& p) { readChip(p); });
        expectError("nosub.json", "{\"format\": \"schedstudio-chip\", \"version\": 1, \"bandwidth_gbps\": 8,\n"
                                  "\"subs\": []}",
                    "subs", 2, [](const std::string& p) { readChip(p); });
        const std::string net = kNets + "dlrm-mlp.json";
        expectError("s.scenario.json",
                    "{\"format\": \"schedstudio-scenario\", \"version\": 1, \"mode\": \"accelerator\",\n"
                    "\"networks\": [\"" + net + "\"], \"tenants\": [{\"name\": \"a\", \"qos\": 2}],\n"
                    "\"requests\": [{\"tenant\": \"a\", \"network\": \"dlrm-mlp\", \"arrival_us\": 0},\n"
                    "{\"tenant\": \"a\", \"network\": \"resnet\", \"arrival_us\": 3}]}",
                    "network", 4, [](const std::string& p) { readAccelScenario(p); });
    }

    void bundledScenarioRuns()
    {
        const AccelScenario s = readAccelScenario(std::string(SS_SOURCE_DIR) + "/sample-traces/relmas.scenario.json");
        QVERIFY(s.workload.requests.size() >= 100);
        const CostTable cost(s.workload.chip, s.workload.networks);
        auto sc = makeAccelScheduler("hetero");
        const AccelMetrics m = computeMetrics(s.workload, simulate(s.workload, cost, *sc, s.sim));
        QCOMPARE(m.completed, m.requests);
        QVERIFY(m.slaRate > 0);
    }

    void studioRecordMatchesTheLogAndTheRun()
    {
        // The studio's recorder (sim/accel/accelrecord.h) sees every cycle the simulator decides, changes nothing,
        // and its assignments are the decision log's placements; a capped record still counts every cycle.
        const AccelScenario s = readAccelScenario(std::string(SS_SOURCE_DIR) + "/sample-traces/relmas.scenario.json");
        const CostTable cost(s.workload.chip, s.workload.networks);
        SimConfig cfg = s.sim;
        cfg.keepLog = true;
        auto plain = makeAccelScheduler("hetero");
        const SimResult ref = simulate(s.workload, cost, *plain, cfg);
        const StudioRun r = runPolicyForStudio(s.workload, cost, "hetero", {}, cfg, 1000000);
        QCOMPARE(r.cycles.size(), size_t(ref.decisions));
        QCOMPARE(r.cyclesTotal, size_t(ref.decisions));
        QCOMPARE(r.result.energyPj, ref.energyPj);
        QCOMPARE(r.metrics.met, computeMetrics(s.workload, ref).met);
        QCOMPARE(r.result.timeline.size(), size_t(ref.layersRun));
        const size_t S = s.workload.chip.subs.size();
        for (size_t k = 0; k < r.cycles.size(); ++k) {
            const CycleRecord& c = r.cycles[k];
            const DecisionRecord& d = ref.log->records[k];
            QCOMPARE(c.now, d.time);
            QCOMPARE(c.ready.size(), size_t(d.queueLength));
            QCOMPARE(c.scores.size(), c.ready.size() * S);
            QCOMPARE(c.assignments.size(), d.placements.size());
            for (size_t i = 0; i < c.assignments.size(); ++i) {
                QCOMPARE(c.ready[size_t(c.assignments[i].ready)].request, d.placements[i].job);
                QCOMPARE(c.assignments[i].sub, d.placements[i].slots[0].gpu);
            }
            double demand = 0; // the demand the cycle saw is what the layers running at that moment ask for
            for (const SubState& sub : c.subs)
                demand += sub.busy ? sub.bandwidth : 0;
            QVERIFY(std::fabs(demand - c.demand) <= 1e-9 * std::max(1.0, demand));
        }
        const StudioRun capped = runPolicyForStudio(s.workload, cost, "hetero", {}, cfg, 10);
        QCOMPARE(capped.cycles.size(), size_t(10));
        QCOMPARE(capped.cyclesTotal, size_t(ref.decisions));
        QCOMPARE(capped.result.energyPj, ref.energyPj);
    }

    void cliRunsTheBundledScenario()
    {
        const std::string file = std::string(SS_SOURCE_DIR) + "/sample-traces/relmas.scenario.json";
        const sstest::CliResult r = sstest::runCli(
            {"run", "--scenario", "sample-traces/relmas.scenario.json", "--policy", "llf", "--json"});
        QVERIFY2(r.code == 0, r.err.constData());
        const JsonValue v = parseJson(r.out.toStdString(), "stdout");
        const JsonValue& run = v.find("runs")->array().at(0);
        QCOMPARE(run.find("policy")->string(), std::string("llf"));
        const AccelScenario s = readAccelScenario(file);
        const CostTable cost(s.workload.chip, s.workload.networks);
        auto llf = makeAccelScheduler("llf");
        const AccelMetrics m = computeMetrics(s.workload, simulate(s.workload, cost, *llf, s.sim));
        QCOMPARE(run.find("met")->number(), double(m.met)); // the CLI runs what the library runs
        QCOMPARE(run.find("sla_satisfaction")->number(), m.slaRate);
        const sstest::CliResult c = sstest::runCli(
            {"compare", "--scenario", "sample-traces/relmas.scenario.json", "--policies", "fcfs,hetero", "--json"});
        QVERIFY2(c.code == 0, c.err.constData());
        const JsonValue cv = parseJson(c.out.toStdString(), "stdout");
        QCOMPARE(cv.find("runs")->array().size(), size_t(2));
        double lowest = 1;
        for (const JsonValue& x : cv.find("runs")->array())
            lowest = std::min(lowest, x.find("energy_overhead")->number());
        QCOMPARE(lowest, 0.0);
        const sstest::CliResult bad =
            sstest::runCli({"run", "--scenario", "sample-traces/relmas.scenario.json", "--policy", "nope"});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.contains("unknown accelerator policy 'nope'"));
    }
};

QTEST_GUILESS_MAIN(TestAccel)
#include "tst_accel.moc"
