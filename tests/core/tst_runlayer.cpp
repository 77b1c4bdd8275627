// The run layer (core/run, io/runio): run identity, the stored config that reruns a run exactly, the
// executor (order, threads, resume, cancel), seed aggregation and scenario files.
#include <QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>

#include "io/runio.h"
#include "io/traceio.h"
#include "run/aggregate.h"
#include "run/executor.h"
#include "run/hash.h"

using namespace ss;

namespace {

std::string src(const char* rel) { return std::string(SS_SOURCE_DIR) + "/" + rel; }

ExperimentPlan smallPlan(const std::vector<std::string>& policies, const std::vector<uint64_t>& seeds)
{
    RunInputs in;
    in.trace = std::make_shared<const Trace>(readTrace(src("sample-traces/das-small-200.csv")));
    ClusterSpec c = readCluster("das-small");
    c.finalize();
    in.cluster = std::make_shared<const ClusterSpec>(std::move(c));
    RunSpec base;
    base.config.perf = PerfConfig::parse("default");
    base.config.checkInvariants = true;
    return expandPlan({in}, policies, seeds, base);
}

void sameSummary(const Summary& a, const Summary& b)
{
    QCOMPARE(a.jobs, b.jobs);
    QCOMPARE(a.finished, b.finished);
    QCOMPARE(a.meanJctMin, b.meanJctMin); // bit-identical, not close
    QCOMPARE(a.p95JctMin, b.p95JctMin);
    QCOMPARE(a.totalFeeUsd, b.totalFeeUsd);
    QCOMPARE(a.makespanH, b.makespanH);
    QCOMPARE(a.preemptions, b.preemptions);
    QCOMPARE(a.events, b.events);
}

} // namespace

class TstRunLayer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sha256KnownVectors()
    {
        QCOMPARE(sha256Hex(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QCOMPARE(sha256Hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        // two blocks, and a message that ends exactly where the length would go
        QCOMPARE(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                 std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
        Sha256 h;
        h.update("ab");
        h.update("c");
        QCOMPARE(h.hex(), sha256Hex("abc"));
    }

    void identityCoversEveryField()
    {
        RunSpec a;
        a.traceFingerprint = "t";
        a.clusterFingerprint = "c";
        const std::string id = a.id();
        QCOMPARE(id.size(), size_t(64));
        auto differs = [&](auto change, const char* what) {
            RunSpec b = a;
            change(b);
            QVERIFY2(b.id() != id, what);
        };
        differs([](RunSpec& s) { s.options.backfill = false; }, "backfill");
        differs([](RunSpec& s) { s.options.params["las.knob"] = "2"; }, "a --param");
        differs([](RunSpec& s) { s.checkpointHash = "ab"; }, "the checkpoint's bytes");
        differs([](RunSpec& s) { s.config.seed = 2; }, "seed");
        differs([](RunSpec& s) { s.config.perf = PerfConfig::parse("ideal"); }, "perf");
        differs([](RunSpec& s) { s.config.maxTime = 3600; }, "time limit");
        differs([](RunSpec& s) { s.policy = "fifo+bestfit"; }, "policy");
        differs([](RunSpec& s) { s.traceFingerprint = "u"; }, "trace");
        differs([](RunSpec& s) { s.clusterFingerprint = "d"; }, "cluster");
        differs([](RunSpec& s) { s.throughputsFingerprint = "x"; }, "throughput table");
        differs([](RunSpec& s) { s.version = "0.0.0"; }, "software version");
        // what does not decide results does not change the identity
        RunSpec b = a;
        b.policy = "FIFO+FirstFit";
        b.keepDecisionLog = true;
        b.decisionLogPath = "/tmp/x.log";
        b.traceSource = "elsewhere.csv";
        b.config.checkInvariants = true;
        QCOMPARE(b.id(), id);
        // a param value that smuggles a newline cannot collide with two params
        RunSpec c = a, d = a;
        c.options.params["a"] = "1\nparam.b=2";
        d.options.params["a"] = "1";
        d.options.params["b"] = "2";
        QVERIFY(c.id() != d.id());
    }

    void storedConfigRerunsTheRunExactly()
    {
        ExperimentPlan plan = smallPlan({"las+consolidate"}, {5});
        plan.runs[0].spec.options.params["las.knob"] = "2";
        plan.runs[0].spec.options.backfill = false;
        RunOutput first;
        ExecOptions ex;
        ex.onResult = [&](size_t, RunOutput& o) { first = std::move(o); };
        executePlan(plan, ex);
        QCOMPARE(first.spec.id(), plan.runs[0].spec.id()); // the plan knew the identity before running

        const std::string config = runConfigJson(first.spec);
        const RunSpec back = runSpecFromJson(config, "config");
        QCOMPARE(back.id(), first.spec.id());
        QCOMPARE(back.options.params.at("las.knob"), std::string("2"));
        QVERIFY(!back.options.backfill);
        const RunInputs& in = plan.inputs[0];
        const RunOutput again = runSimulation(*in.cluster, *in.trace, back);
        QCOMPARE(again.spec.id(), first.spec.id());
        sameSummary(again.summary, first.summary);

        // an edited config is refused, naming the field
        std::string edited = config;
        edited.replace(edited.find("\"las.knob\":\"2\""), 14, "\"las.knob\":\"3\"");
        try {
            runSpecFromJson(edited, "cfg.json");
            QFAIL("an edited config was accepted");
        } catch (const IoError& e) {
            QVERIFY2(std::string(e.what()).find("'id'") != std::string::npos, e.what());
        }
    }

    void executorDeliversInPlanOrderWhateverTheThreads()
    {
        const ExperimentPlan plan = smallPlan({"fifo+firstfit", "srtf+bestfit", "tetris"}, {1, 2});
        QCOMPARE(plan.runs.size(), size_t(6));
        std::vector<std::pair<size_t, Summary>> one, three;
        ExecOptions ex;
        ex.onResult = [&](size_t i, RunOutput& o) { one.push_back({i, o.summary}); };
        ExecReport r = executePlan(plan, ex);
        QCOMPARE(r.ran, size_t(6));
        ex.threads = 3;
        ex.onResult = [&](size_t i, RunOutput& o) { three.push_back({i, o.summary}); };
        r = executePlan(plan, ex);
        QCOMPARE(r.ran, size_t(6));
        QCOMPARE(three.size(), one.size());
        for (size_t k = 0; k < one.size(); ++k) {
            QCOMPARE(one[k].first, k);
            QCOMPARE(three[k].first, k);
            sameSummary(three[k].second, one[k].second);
        }
    }

    void executorReportsTheLiveRun()
    {
        // The studio's progress line: which run, how far in simulated time, jobs arrived and ended; the
        // fraction handed to progress moves with arrivals and ends and never goes back.
        const ExperimentPlan plan = smallPlan({"fifo+firstfit", "sjf+bestfit"}, {1});
        std::vector<LiveRun> seen;
        std::vector<double> fractions;
        std::vector<Summary> summaries;
        ExecOptions ex;
        ex.progress = [&](size_t, size_t, double f) {
            fractions.push_back(f);
            return true;
        };
        ex.live = [&](const LiveRun& l) { seen.push_back(l); };
        ex.onResult = [&](size_t, RunOutput& o) { summaries.push_back(o.summary); };
        QCOMPARE(executePlan(plan, ex).ran, size_t(2));
        QVERIFY(seen.size() >= 2);
        for (size_t run = 0; run < 2; ++run) {
            const LiveRun* last = nullptr;
            for (const LiveRun& l : seen)
                if (l.index == run)
                    last = &l;
            QVERIFY(last);
            QCOMPARE(last->policy, plan.runs[run].spec.policy);
            QCOMPARE(last->seed, uint64_t(1));
            QCOMPARE(last->jobs, 200);
            QCOMPARE(last->arrived, 200);
            QCOMPARE(last->ended, summaries[run].finished + summaries[run].rejected);
            QVERIFY(last->simTime > 0);
            QCOMPARE(last->fraction(), 1.0);
        }
        for (size_t i = 1; i < fractions.size(); ++i)
            QVERIFY(fractions[i] >= fractions[i - 1] || fractions[i] == 0); // 0: the next run starts
    }

    void executorResumesAndCancels()
    {
        const ExperimentPlan plan = smallPlan({"fifo+firstfit", "sjf+bestfit"}, {1, 2});
        const std::string done = plan.runs[1].spec.id();
        std::vector<size_t> got;
        ExecOptions ex;
        ex.skip = [&](const PlannedRun& p) { return p.spec.id() == done; };
        ex.onResult = [&](size_t i, RunOutput&) { got.push_back(i); };
        ExecReport r = executePlan(plan, ex);
        QCOMPARE(r.skipped, size_t(1));
        QCOMPARE(got, (std::vector<size_t>{0, 2, 3}));

        for (int threads : {1, 2}) {
            got.clear();
            std::atomic<bool> cancel{false};
            ExecOptions c;
            c.threads = threads;
            c.cancel = &cancel;
            c.onResult = [&](size_t i, RunOutput&) {
                got.push_back(i);
                cancel = true; // cancel after the first result
            };
            r = executePlan(plan, c);
            QVERIFY(r.cancelled);
            QCOMPARE(got, (std::vector<size_t>{0}));
        }

        // an unknown policy reaches onError in order, and the other runs still run
        ExperimentPlan bad = smallPlan({"fifo+firstfit", "nosuch+policy", "sjf+bestfit"}, {1});
        std::vector<std::string> errors;
        got.clear();
        ExecOptions e;
        e.onResult = [&](size_t i, RunOutput&) { got.push_back(i); };
        e.onError = [&](size_t i, const std::string& what) { errors.push_back(std::to_string(i) + ": " + what); };
        r = executePlan(bad, e);
        QCOMPARE(r.failed, size_t(1));
        QCOMPARE(got, (std::vector<size_t>{0, 2}));
        QVERIFY2(errors.size() == 1 && errors[0].rfind("1: unknown policy", 0) == 0, errors.empty() ? "" : errors[0].c_str());
    }

    void seedStatistics()
    {
        const SeedStat s = seedStat({1, 2, 3});
        QCOMPARE(s.n, 3);
        QCOMPARE(s.mean, 2.0);
        QCOMPARE(s.sd, 1.0);
        QVERIFY(std::abs(s.ci95 - 4.3027 / std::sqrt(3.0)) < 1e-4);
        QCOMPARE(s.min, 1.0);
        QCOMPARE(s.max, 3.0);
        const SeedStat one = seedStat({7, std::nan("")}); // NaN (e.g. no deadline jobs) is skipped
        QCOMPARE(one.n, 1);
        QCOMPARE(one.mean, 7.0);
        QCOMPARE(one.sd, 0.0);
        QVERIFY(std::isnan(seedStat({}).mean));
        QVERIFY(std::abs(tQuantile975(30) - 2.0423) < 1e-4);
        QVERIFY(std::abs(tQuantile975(31) - 2.0395) < 1e-3); // past the table
        QVERIFY(std::abs(tQuantile975(1000) - 1.9623) < 1e-3);
    }

    void scenarioRoundTripAndPlan()
    {
        const Scenario s = readScenario(src("sample-traces/das-case.scenario.json"));
        QCOMPARE(s.name, std::string("das-case"));
        QVERIFY(std::filesystem::path(s.tracePath).is_absolute());
        QVERIFY(std::filesystem::exists(s.tracePath));
        QCOMPARE(s.clusterRef(), std::string("das-case"));

        Scenario w = s;
        w.policies = {"fifo+firstfit", "sjf+bestfit"};
        w.seeds = 2;
        w.params["las.knob"] = "2";
        w.variants.push_back({"2x load", 2.0, ""});
        w.variants.push_back({"small", 1.0, "das-small"});
        const std::string path = QDir::tempPath().toStdString() + "/tst_runlayer.scenario.json";
        writeScenario(w, path);
        const Scenario r = readScenario(path);
        QCOMPARE(r.policies, w.policies);
        QCOMPARE(r.seeds, 2);
        QCOMPARE(r.params, w.params);
        QCOMPARE(r.variants.size(), size_t(2));
        QCOMPARE(r.variants[0].loadScale, 2.0);
        QCOMPARE(r.variants[1].cluster, std::string("das-small"));
        QCOMPARE(std::filesystem::path(r.tracePath), std::filesystem::path(s.tracePath));

        const ExperimentPlan plan = planScenario(r);
        QCOMPARE(plan.inputs.size(), size_t(3));
        QCOMPARE(plan.runs.size(), size_t(3 * 2 * 2));
        // the 2x-load variant submits every job twice as early
        const Trace& base = *plan.inputs[0].trace;
        const Trace& fast = *plan.inputs[1].trace;
        QCOMPARE(fast.jobs.back().submit - fast.jobs.front().submit,
                 (base.jobs.back().submit - base.jobs.front().submit) / 2);
        QCOMPARE(plan.inputs[2].cluster->name, std::string("das-small"));
        std::set<std::string> ids;
        for (const PlannedRun& p : plan.runs)
            ids.insert(p.spec.id());
        QCOMPARE(ids.size(), plan.runs.size()); // every run of the plan is a different run
        std::filesystem::remove(path);
    }

    void scenarioErrorsNameFileLineAndField()
    {
        auto error = [](const std::string& text) -> std::string {
            try {
                scenarioFromJson(text, "", "bad.scenario.json");
            } catch (const IoError& e) {
                return e.what();
            }
            return "accepted";
        };
        QVERIFY(error("{\"format\": \"other\", \"version\": 1}").find("bad.scenario.json:1: column 'format'") == 0);
        const std::string v = error("{\"format\": \"schedstudio-scenario\",\n \"version\": 99}");
        QVERIFY2(v.find("bad.scenario.json:2: column 'version'") == 0 && v.find("newer") != std::string::npos, v.c_str());
        const std::string p = error("{\"format\": \"schedstudio-scenario\", \"version\": 1,\n\n \"policies\": \"fifo\"}");
        QVERIFY2(p.find(":3: column 'policies'") != std::string::npos, p.c_str());
        const std::string s = error("{\"format\": \"schedstudio-scenario\", \"version\": 1, \"seeds\": 0}");
        QVERIFY2(s.find("column 'seeds'") != std::string::npos, s.c_str());
        const std::string j = error("{\"format\": \"schedstudio-scenario\",\n\n\n \"version\": }");
        QVERIFY2(j.find("bad.scenario.json:4") == 0, j.c_str());
        const std::string l = error("{\"format\": \"schedstudio-scenario\", \"version\": 1, \"variants\": [{\"name\": \"x\", \"load_scale\": -1}]}");
        QVERIFY2(l.find("load_scale") != std::string::npos, l.c_str());
    }
};

QTEST_GUILESS_MAIN(TstRunLayer)
#include "tst_runlayer.moc"
