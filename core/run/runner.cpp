#include "run/runner.h"

#include <chrono>
#include <stdexcept>

#include "sim/invariants.h"

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

} // namespace

RunOutput runSimulation(const ClusterSpec& cluster, const Trace& traceIn, const RunSpec& spec,
                        const std::function<bool(double)>& progress, const ThroughputTable* table,
                        const std::vector<SimObserver*>& extraObservers,
                        const std::function<void(Simulator&)>& prepare, const AfterStep& afterStep,
                        RunResume* resume)
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

    RunOutput out;
    out.spec = spec;
    completeRunSpec(out.spec, cluster, traceIn, table); // the trace as given: sorting is deterministic
    out.spec.decisionLogPath.clear(); // output handling is not part of what the run was
    out.spec.keepDecisionLog = false;

    RunConfig cfg = spec.config;
    const bool wantLog = spec.keepDecisionLog || !spec.decisionLogPath.empty();
    cfg.recordDecisions = cfg.recordDecisions || wantLog;

    std::unique_ptr<Scheduler> policy;
    std::unique_ptr<Simulator> own;
    MetricsCollector fresh;
    if (resume) {
        if (!resume->sim || trace != &traceIn)
            throw std::invalid_argument("a resumed run needs its simulator and its trace sorted by submit time");
        own = std::move(resume->sim);
    } else {
        policy = makeScheduler(spec.policy, spec.options);
        own = std::make_unique<Simulator>(cluster, *trace, *policy, cfg, table);
    }
    Simulator& sim = *own;
    MetricsCollector& metrics = resume ? resume->metrics : fresh;
    sim.addObserver(&metrics);
    std::unique_ptr<LogKeeper> keeper;
    std::unique_ptr<LogStreamer> streamer;
    if (spec.keepDecisionLog) {
        out.log = std::make_shared<DecisionLog>();
        out.log->machineCount = cluster.machineCount();
        out.log->gpuCount = cluster.totalGpus();
        if (resume)
            out.log->records = std::move(resume->logPrefix);
        keeper = std::make_unique<LogKeeper>(out.log);
        sim.addObserver(keeper.get());
    }
    if (!spec.decisionLogPath.empty()) {
        if (resume)
            throw std::invalid_argument("a resumed run cannot stream its decision log to a file");
        streamer = std::make_unique<LogStreamer>(spec.decisionLogPath, cluster);
        sim.addObserver(streamer.get());
    }
    for (SimObserver* o : extraObservers)
        sim.addObserver(o);
    for (const MachineEventSpec& e : spec.machineEvents) {
        if (resume)
            break; // in the snapshot already
        const int m = resolveEventMachine(cluster, e.machine);
        if (m < 0)
            throw std::invalid_argument("machine event at t=" + std::to_string(e.time) + ": no machine '" + e.machine
                                        + "' in cluster " + cluster.name);
        sim.addMachineEvent({e.time, m, e.kind});
    }
    if (prepare)
        prepare(sim);

    const auto t0 = std::chrono::steady_clock::now();
    if (afterStep) {
        afterStep(sim, metrics); // before the first step too (decision 0)
        const double n = std::max<size_t>(1, trace->jobs.size());
        uint64_t k = 0;
        out.cancelled = false;
        while (sim.step()) {
            afterStep(sim, metrics);
            if (progress && (++k & 1023) == 0 && !progress(std::min(1.0, double(sim.completedJobs()) / n))) {
                out.cancelled = true;
                break;
            }
        }
        if (progress && !out.cancelled)
            progress(1.0);
    } else {
        out.cancelled = !sim.run(progress);
    }
    out.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    if (!spec.keepDecisionLog)
        out.log.reset();

    out.policy = sim.policy().name();
    out.seed = cfg.seed;
    out.perf = cfg.perf.toString();
    out.clusterName = cluster.name;
    out.clusterFingerprint = out.spec.clusterFingerprint;
    out.traceName = trace->name;
    out.traceFingerprint = out.spec.traceFingerprint;
    out.summary = metrics.summary();
    out.summary.events = sim.eventsProcessed();
    out.summary.decisions = sim.decisions();
    out.summary.policyStats = sim.policy().runStats();
    if (sim.failureRequeues() > 0) // jobs requeued because their machine failed (machine events, forks)
        out.summary.policyStats.emplace_back("failure_requeues", double(sim.failureRequeues()));
    out.jobs = metrics.takeJobs();
    out.series = metrics.series();
    if (const InvariantChecker* inv = sim.invariants(); inv && !out.cancelled) {
        std::vector<double> fees;
        fees.reserve(out.jobs.size());
        for (const JobRecord& r : out.jobs)
            fees.push_back(r.fee);
        const std::string err = inv->compareFees(fees, out.summary.totalFeeUsd);
        if (!err.empty())
            throw std::logic_error("invariant violated: " + err);
        const int ended = out.summary.finished + out.summary.rejected + out.summary.unfinished;
        if (ended != out.summary.jobs || out.summary.finished != inv->finished() || out.summary.rejected != inv->rejected())
            throw std::logic_error("invariant violated: metrics count " + std::to_string(out.summary.finished) + " finished and "
                                   + std::to_string(out.summary.rejected) + " rejected of " + std::to_string(out.summary.jobs)
                                   + " jobs, the engine's events " + std::to_string(inv->finished()) + " and "
                                   + std::to_string(inv->rejected()));
    }
    return out;
}

} // namespace ss
