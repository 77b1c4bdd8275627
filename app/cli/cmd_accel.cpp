// The accelerator mode (docs/ACCELERATOR.md): `run`/`compare --scenario` on a mode-"accelerator" scenario
// (dispatched here by cmd_sim.cpp), `accel-gen` (a generated scenario), `accel-chip` (an editable chip file)
// and `bench-accel` (decision overhead and simulation speed).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>

#include "cli.h"
#include "io/accelio.h"
#include "io/decisionlogjson.h"
#include "io/ioerror.h"
#include "io/runio.h"
#include "model/rng.h"
#include "policy/relmas/accelpolicies.h"
#include "sim/accel/accelmetrics.h"

namespace ss::cli {

using namespace ss::accel;

namespace {

JsonValue metricsJson(const std::string& policy, const AccelMetrics& m, double lowestEnergy)
{
    auto num = [](double v) { return JsonValue::makeNumber(v); };
    JsonValue o = JsonValue::makeObject();
    o["policy"] = JsonValue::makeString(policy);
    o["requests"] = num(m.requests);
    o["met"] = num(m.met);
    o["sla_satisfaction"] = num(m.slaRate);
    JsonValue tr = JsonValue::makeArray();
    for (double x : m.tenantRate)
        tr.push(num(x));
    o["tenant_satisfaction"] = std::move(tr);
    o["fairness_jain"] = num(m.fairness);
    o["latency_p50_us"] = num(m.p50LatencyUs);
    o["latency_p99_us"] = num(m.p99LatencyUs);
    o["energy_uj"] = num(m.energyUj);
    if (lowestEnergy > 0)
        o["energy_overhead"] = num(m.energyUj / lowestEnergy - 1);
    o["makespan_us"] = num(m.makespanUs);
    JsonValue ut = JsonValue::makeArray();
    for (double x : m.utilization)
        ut.push(num(x));
    o["utilization"] = std::move(ut);
    o["bandwidth_saturated_us"] = num(m.saturatedUs);
    o["bandwidth_saturated_fraction"] = num(m.saturatedFraction);
    o["decisions"] = num(m.decisions);
    o["decision_mean_us"] = num(m.decideMeanUs);
    o["decision_max_us"] = num(m.decideMaxUs);
    return o;
}

std::map<std::string, std::string> paramsOf(Args& a, const AccelScenario& s)
{
    std::map<std::string, std::string> p = s.params;
    for (const std::string& kv : a.getAll("param")) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos)
            throw UsageError("--param: expected KEY=VALUE, got '" + kv + "'");
        p[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    return p;
}

} // namespace

bool isAccelScenario(const std::string& file)
{
    try {
        return readScenario(file).mode == Scenario::Mode::Accelerator;
    } catch (const std::exception&) {
        return false; // the GPU path reports the error
    }
}

int runAccelScenario(Args& a, bool single)
{
    const bool json = a.flag("json");
    AccelScenario s = readAccelScenario(a.require("scenario"));
    const std::string key = single ? "policy" : "policies";
    if (a.has(key))
        s.policies = splitList(a.get(key));
    if (single)
        s.policies.resize(1);
    if (a.has("seed"))
        s.sim.seed = uint64_t(a.getInt("seed", 1));
    if (a.has("period"))
        s.sim.period = a.getDouble("period", s.sim.period);
    if (!(s.sim.period > 0))
        throw UsageError("--period must be > 0");
    const std::map<std::string, std::string> params = paramsOf(a, s);
    // --log-out FILE.jsonl (run only): the decision log, one JSON line per scheduling cycle
    const std::string logOut = single ? a.get("log-out", "") : std::string();
    a.finish();
    std::vector<std::unique_ptr<AccelScheduler>> scheds;
    for (const std::string& p : s.policies) {
        try {
            scheds.push_back(makeAccelScheduler(p, params));
        } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());
        }
    }
    const CostTable cost(s.workload.chip, s.workload.networks);
    SimConfig cfg = s.sim;
    cfg.keepTimeline = false;
    cfg.keepLog = !logOut.empty();
    std::vector<AccelMetrics> ms;
    for (auto& sc : scheds) {
        const SimResult r = simulate(s.workload, cost, *sc, cfg);
        if (r.log)
            writeDecisionLogJsonl(*r.log, logOut);
        ms.push_back(computeMetrics(s.workload, r));
    }
    double lowest = 0;
    for (const AccelMetrics& m : ms)
        lowest = lowest == 0 ? m.energyUj : std::min(lowest, m.energyUj);
    if (json) {
        JsonValue o = JsonValue::makeObject();
        o["scenario"] = JsonValue::makeString(s.name);
        o["chip"] = JsonValue::makeString(s.workload.chip.name);
        o["requests"] = JsonValue::makeNumber(double(s.workload.requests.size()));
        JsonValue runs = JsonValue::makeArray();
        for (size_t i = 0; i < ms.size(); ++i)
            runs.push(metricsJson(s.policies[i], ms[i], ms.size() > 1 ? lowest : 0));
        o["runs"] = std::move(runs);
        std::printf("%s", writeJson(o, 2).c_str());
        return 0;
    }
    std::printf("accelerator scenario %s: chip %s (%zu sub-accelerators, %.1f GB/s), %zu requests, T_s = %g us\n",
                s.name.c_str(), s.workload.chip.name.c_str(), s.workload.chip.subs.size(),
                s.workload.chip.bandwidth / 1000, s.workload.requests.size(), s.sim.period);
    std::printf("%-8s %8s %8s %10s %10s %12s %9s %8s %9s %10s\n", "policy", "SLA", "fairness", "p50 us", "p99 us",
                "energy uJ", "E over", "util", "BW sat", "decide us");
    for (size_t i = 0; i < ms.size(); ++i) {
        const AccelMetrics& m = ms[i];
        double u = 0;
        for (double x : m.utilization)
            u += x / double(m.utilization.size());
        std::printf("%-8s %7.2f%% %8.3f %10.1f %10.1f %12.1f %8.2f%% %7.1f%% %8.1f%% %10.2f\n", s.policies[i].c_str(),
                    100 * m.slaRate, m.fairness, m.p50LatencyUs, m.p99LatencyUs, m.energyUj,
                    100 * (m.energyUj / lowest - 1), 100 * u, 100 * m.saturatedFraction, m.decideMeanUs);
    }
    return 0;
}

namespace {

int cmdAccelGen(Args& a)
{
    AccelScenario s;
    s.name = a.get("name", "generated");
    s.chipRef = a.get("chip", "magma-s5");
    s.networkRefs = splitList(a.require("networks"));
    GenParams& g = s.gen;
    s.generated = true;
    g.requests = int(a.getInt("requests", g.requests));
    g.tenants = int(a.getInt("tenants", g.tenants));
    const std::string mix = a.get("mix", "mixed");
    if (mix != "mixed" && mix != "homogeneous")
        throw UsageError("--mix: expected mixed or homogeneous");
    g.mixed = mix == "mixed";
    const std::string load = a.get("load", "0.5");
    if (!GenParams::loadPreset(load, g.load)) {
        char* end = nullptr;
        g.load = std::strtod(load.c_str(), &end);
        if (load.empty() || *end || !(g.load > 0))
            throw UsageError("--load: expected light, heavy or a number > 0");
    }
    g.bursty = a.flag("bursty");
    g.burstSize = a.getDouble("burst-size", g.burstSize);
    g.qosMin = a.getDouble("qos-min", g.qosMin);
    g.qosMax = a.getDouble("qos-max", g.qosMax);
    g.seed = uint64_t(a.getInt("seed", 1));
    s.seed = g.seed;
    s.sim.period = a.getDouble("period", s.sim.period);
    if (a.has("policies"))
        s.policies = splitList(a.get("policies"));
    else
        s.policies = accelPolicyNames();
    const std::string out = a.require("out");
    a.finish();
    writeAccelScenario(s, out);
    const AccelScenario back = readAccelScenario(out); // validates what was written (and the networks)
    std::fprintf(stderr, "wrote %s: %zu requests of %zu tenants\n", out.c_str(), back.workload.requests.size(),
                 back.workload.tenants.size());
    return 0;
}
CliCommand c1("accel-gen",
              "--networks A.json,B.json --out FILE [--chip PRESET|FILE] [--requests N] [--tenants T] "
              "[--mix mixed|homogeneous] [--load light|heavy|X] [--bursty] [--burst-size B] [--qos-min Q] "
              "[--qos-max Q] [--period US] [--seed S] : an accelerator-mode scenario",
              &cmdAccelGen);

int cmdAccelChip(Args& a)
{
    const std::string preset = a.get("preset", "magma-s5");
    const std::string out = a.require("out");
    a.finish();
    Chip c;
    try {
        c = chipPreset(preset);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    std::ofstream f(out, std::ios::binary | std::ios::trunc);
    if (!f || !(f << writeJson(chipToJson(c), 2)) || !f.flush())
        throw IoError(out, 0, "", "cannot write");
    return 0;
}
CliCommand c2("accel-chip", "--preset magma-s3|magma-s5|magma-s6|magma-s7 --out FILE : an editable chip file",
              &cmdAccelChip);

// bench-accel: (1) one scheduling decision at 64 ready layers x 16 sub-accelerators, per policy;
// (2) a whole run of --requests (default 100000) generated requests with a heuristic.
int cmdBenchAccel(Args& a)
{
    const std::string netDir = a.get("networks-dir", "sample-traces/accel/networks");
    const long n = a.getInt("requests", 100000);
    const std::string policy = a.get("policy", "hetero");
    const long reps = a.getInt("reps", 2000);
    const double load = a.getDouble("load", 0.4);
    a.finish();
    Workload w;
    w.chip = chipPreset("magma-s6");
    for (const char* f : {"resnet50", "mobilenetv2", "vgg16", "bert-base", "dlrm-mlp"})
        w.networks.push_back(readNetwork(netDir + "/" + f + ".json"));
    const CostTable cost(w.chip, w.networks);
    GenParams g;
    g.requests = 64;
    g.tenants = 8;
    generateRequests(w, cost, g);
    CycleView v;
    v.workload = &w;
    v.cost = &cost;
    v.budget = w.chip.bandwidth;
    v.now = w.requests.back().arrival;
    Rng rng(7);
    for (const Request& q : w.requests) {
        ReadyLayer r;
        r.request = q.id;
        r.tenant = q.tenant;
        r.network = q.network;
        r.layer = int(rng.below(uint64_t(cost.layerCount(q.network))));
        r.layersLeft = cost.layerCount(q.network) - r.layer;
        r.arrival = q.arrival;
        r.deadline = q.deadline;
        r.remainingBest = cost.remainingBest(q.network, r.layer);
        r.slack = q.deadline - v.now - r.remainingBest;
        v.ready.push_back(r);
    }
    v.subs.assign(w.chip.subs.size(), {}); // all 16 idle: the largest decision
    std::printf("decision at %zu ready layers x %zu sub-accelerators (all idle), %ld repetitions:\n", v.ready.size(),
                v.subs.size(), reps);
    std::vector<Assignment> out;
    std::vector<std::string> timed = accelPolicyNames();
    timed.push_back("relmas"); // the learned actor's cost does not depend on its weights: timed untrained
    for (const std::string& p : timed) {
        std::unique_ptr<AccelScheduler> sc;
        try {
            sc = makeAccelScheduler(p, p == "relmas" ? std::map<std::string, std::string>{{"relmas.untrained", "1"}}
                                                     : std::map<std::string, std::string>{});
        } catch (const std::invalid_argument& e) {
            std::printf("  %-8s not timed: %s\n", p.c_str(), e.what());
            continue;
        }
        sc->reset(1);
        std::vector<double> times;
        double total = 0;
        for (long i = 0; i < reps; ++i) {
            out.clear();
            const auto t0 = std::chrono::steady_clock::now();
            sc->schedule(v, out, nullptr);
            times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
            total += times.back();
        }
        std::sort(times.begin(), times.end());
        const double p99 = times[std::min(times.size() - 1, size_t(0.99 * double(times.size())))];
        std::printf("  %-8s mean %8.2f us  p99 %8.2f us  max %8.2f us  (%zu assigned)  %s\n", p.c_str(),
                    total / double(reps), p99, times.back(), out.size(), p99 < 1000 ? "p99 < 1 ms" : "p99 OVER 1 ms");
    }
    Workload big;
    big.chip = w.chip;
    big.networks = w.networks;
    GenParams bg;
    bg.requests = int(n);
    bg.tenants = 8;
    bg.load = load;
    generateRequests(big, cost, bg);
    auto sc = makeAccelScheduler(policy);
    SimConfig cfg;
    cfg.keepTimeline = false;
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    const SimResult r = simulate(big, cost, *sc, cfg);
    const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const AccelMetrics m = computeMetrics(big, r);
    std::printf("%ld requests (load %.2f; %llu layers, %llu decisions) with %s on magma-s6: %.2f s wall, %.2f s CPU (%s), SLA %.2f%%\n", n, load,
                static_cast<unsigned long long>(r.layersRun), static_cast<unsigned long long>(r.decisions),
                policy.c_str(), sec, cpu, sec < 30 ? "< 30 s" : "OVER 30 s", 100 * m.slaRate);
    return 0;
}
CliCommand c3("bench-accel", "[--requests N] [--load X] [--policy NAME] [--reps R] [--networks-dir DIR] : accelerator-mode decision and run speed",
              &cmdBenchAccel);

} // namespace

} // namespace ss::cli
