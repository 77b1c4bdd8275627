#include "sim/runner.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ss {

namespace {
// Keeps every decision record in memory.
class LogKeeper : public SimObserver {
public:
    explicit LogKeeper(std::shared_ptr<DecisionLog> log) : m_log(std::move(log)) {}
    void onDecision(const DecisionRecord& r) override { m_log->records.push_back(r); }
private:
    std::shared_ptr<DecisionLog> m_log;
};

// Streams decision records to a file as they happen.
class LogStreamer : public SimObserver {
public:
    LogStreamer(const std::string& path, const ClusterSpec& c) : m_writer(path, c.machineCount(), c.totalGpus()) {}
    void onDecision(const DecisionRecord& r) override { m_writer.write(r); }
    void onRunEnd(double) override { m_writer.close(); }
private:
    DecisionLogWriter m_writer;
};

bool endsWith(const std::string& s, const std::string& suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string num(double v)
{
    if (!std::isfinite(v))
        return "null";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

std::string esc(const std::string& s)
{
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            o += buf;
        } else {
            o += c;
        }
    }
    return o;
}
} // namespace

std::string traceFingerprint(const Trace& trace)
{
    uint64_t h = 1469598103934665603ULL;
    auto mix = [&](const void* p, size_t n) {
        auto c = static_cast<const unsigned char*>(p);
        for (size_t i = 0; i < n; ++i) {
            h ^= c[i];
            h *= 1099511628211ULL;
        }
    };
    for (const Job& j : trace.jobs) {
        mix(&j.id, sizeof j.id);
        mix(&j.submit, sizeof j.submit);
        mix(&j.gpus, sizeof j.gpus);
        mix(&j.duration, sizeof j.duration);
        const std::string& model = trace.modelName(j);
        mix(model.data(), model.size());
        mix(&j.user, sizeof j.user);
        if (j.gpuSpec >= 0)
            mix(trace.gpuSpecs[size_t(j.gpuSpec)].data(), trace.gpuSpecs[size_t(j.gpuSpec)].size());
        for (const DeadlineLevel& d : j.deadlines) {
            mix(&d.offset, sizeof d.offset);
            mix(&d.value, sizeof d.value);
        }
    }
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

RunOutput runSimulation(const ClusterSpec& cluster, const Trace& traceIn, const RunSpec& spec,
                        const std::function<bool(double)>& progress, const ThroughputTable* table,
                        const std::vector<SimObserver*>& extraObservers)
{
    const std::string bad = cluster.validate();
    if (!bad.empty())
        throw std::invalid_argument("invalid cluster: " + bad);
    // the engine needs jobs sorted by submit time; sort a copy only when needed
    const Trace* trace = &traceIn;
    Trace sorted;
    for (size_t i = 1; i < traceIn.jobs.size(); ++i)
        if (traceIn.jobs[i].submit < traceIn.jobs[i - 1].submit) {
            sorted = traceIn;
            sorted.sortBySubmit();
            trace = &sorted;
            break;
        }

    auto policy = makeScheduler(spec.policy, spec.options);
    RunConfig cfg = spec.config;
    const bool wantLog = spec.keepDecisionLog || !spec.decisionLogPath.empty();
    cfg.recordDecisions = cfg.recordDecisions || wantLog;

    Simulator sim(cluster, *trace, *policy, cfg, table);
    MetricsCollector metrics;
    sim.addObserver(&metrics);
    RunOutput out;
    std::unique_ptr<LogKeeper> keeper;
    std::unique_ptr<LogStreamer> streamer;
    if (spec.keepDecisionLog || (!spec.decisionLogPath.empty() && endsWith(spec.decisionLogPath, ".jsonl"))) {
        out.log = std::make_shared<DecisionLog>();
        out.log->machineCount = cluster.machineCount();
        out.log->gpuCount = cluster.totalGpus();
        keeper = std::make_unique<LogKeeper>(out.log);
        sim.addObserver(keeper.get());
    }
    if (!spec.decisionLogPath.empty() && !endsWith(spec.decisionLogPath, ".jsonl")) {
        streamer = std::make_unique<LogStreamer>(spec.decisionLogPath, cluster);
        sim.addObserver(streamer.get());
    }
    for (SimObserver* o : extraObservers)
        sim.addObserver(o);

    const auto t0 = std::chrono::steady_clock::now();
    out.cancelled = !sim.run(progress);
    out.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    if (!spec.decisionLogPath.empty() && endsWith(spec.decisionLogPath, ".jsonl") && out.log)
        writeDecisionLogJsonl(*out.log, spec.decisionLogPath);
    if (!spec.keepDecisionLog)
        out.log.reset();

    out.policy = policy->name();
    out.seed = cfg.seed;
    out.perf = cfg.perf.toString();
    out.clusterName = cluster.name;
    out.clusterFingerprint = cluster.fingerprint();
    out.traceName = trace->name;
    out.traceFingerprint = traceFingerprint(*trace);
    out.summary = metrics.summary();
    out.summary.events = sim.eventsProcessed();
    out.summary.decisions = sim.decisions();
    out.jobs = metrics.takeJobs();
    out.series = metrics.series();
    return out;
}

std::string summaryJson(const RunOutput& o, int indent)
{
    const Summary& s = o.summary;
    const std::string nl = indent >= 0 ? "\n" : "";
    const std::string pad = indent >= 0 ? std::string(size_t(indent), ' ') : "";
    const std::string sep = indent >= 0 ? ": " : ":";
    std::ostringstream j;
    bool first = true;
    auto kv = [&](const std::string& k, const std::string& v) {
        j << (first ? "" : ",") << nl << pad << '"' << k << '"' << sep << v;
        first = false;
    };
    j << "{";
    kv("policy", "\"" + esc(o.policy) + "\"");
    kv("seed", std::to_string(o.seed));
    kv("cluster", "\"" + esc(o.clusterName) + "\"");
    kv("cluster_fingerprint", "\"" + o.clusterFingerprint + "\"");
    kv("trace", "\"" + esc(o.traceName) + "\"");
    kv("trace_fingerprint", "\"" + o.traceFingerprint + "\"");
    kv("perf", "\"" + esc(o.perf) + "\"");
    kv("jobs", std::to_string(s.jobs));
    kv("finished", std::to_string(s.finished));
    kv("unfinished", std::to_string(s.unfinished));
    kv("rejected", std::to_string(s.rejected));
    kv("mean_jct_min", num(s.meanJctMin));
    kv("median_jct_min", num(s.medianJctMin));
    kv("p95_jct_min", num(s.p95JctMin));
    kv("p99_jct_min", num(s.p99JctMin));
    kv("mean_queue_min", num(s.meanQueueMin));
    kv("mean_fee_usd", num(s.meanFeeUsd));
    kv("total_fee_usd", num(s.totalFeeUsd));
    kv("makespan_h", num(s.makespanH));
    kv("utilization", num(s.utilization));
    kv("deadline_jobs", std::to_string(s.deadlineJobs));
    kv("deadline_miss_rate", num(s.deadlineMissRate));
    kv("jain_fairness", num(s.jainFairness));
    kv("preemptions", std::to_string(s.preemptions));
    kv("events", std::to_string(s.events));
    kv("decisions", std::to_string(s.decisions));
    if (o.cancelled)
        kv("cancelled", "true");
    j << nl << "}";
    return j.str();
}

} // namespace ss
