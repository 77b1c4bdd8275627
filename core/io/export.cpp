#include "io/export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <unordered_map>

#include "io/json.h"
#include "io/traceio.h"

#ifndef SCHEDSTUDIO_VERSION
#define SCHEDSTUDIO_VERSION "dev"
#endif

namespace ss {

namespace {

std::string num(double v)
{
    return std::isfinite(v) ? formatNumber(v) : std::string(); // CSV: empty cell for NaN/Inf
}

std::string csvCell(const std::string& s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos)
        return s;
    std::string o = "\"";
    for (char c : s) {
        if (c == '"')
            o += '"';
        o += c;
    }
    return o + "\"";
}

template <class F> void toFile(const std::string& path, F write)
{
    std::ofstream os(path, std::ios::binary | std::ios::trunc);
    if (!os)
        throw IoError(path, 0, "", "cannot open for writing");
    write(os);
    os.flush();
    if (!os)
        throw IoError(path, 0, "", "write failed (disk full?)");
}

// Summary fields in one place so that JSON and CSV list the same names in the same order.
struct SummaryField {
    const char* name;
    std::function<double(const Summary&)> get;
};
const std::vector<SummaryField>& summaryFields()
{
    static const std::vector<SummaryField> f = {
        {"jobs", [](const Summary& s) { return double(s.jobs); }},
        {"finished", [](const Summary& s) { return double(s.finished); }},
        {"unfinished", [](const Summary& s) { return double(s.unfinished); }},
        {"rejected", [](const Summary& s) { return double(s.rejected); }},
        {"mean_jct_min", [](const Summary& s) { return s.meanJctMin; }},
        {"median_jct_min", [](const Summary& s) { return s.medianJctMin; }},
        {"p95_jct_min", [](const Summary& s) { return s.p95JctMin; }},
        {"p99_jct_min", [](const Summary& s) { return s.p99JctMin; }},
        {"mean_queue_min", [](const Summary& s) { return s.meanQueueMin; }},
        {"mean_fee_usd", [](const Summary& s) { return s.meanFeeUsd; }},
        {"total_fee_usd", [](const Summary& s) { return s.totalFeeUsd; }},
        {"makespan_h", [](const Summary& s) { return s.makespanH; }},
        {"utilization", [](const Summary& s) { return s.utilization; }},
        {"deadline_jobs", [](const Summary& s) { return double(s.deadlineJobs); }},
        {"deadline_miss_rate", [](const Summary& s) { return s.deadlineMissRate; }},
        {"weighted_miss_rate", [](const Summary& s) { return s.weightedMissRate; }},
        {"best_effort_jobs", [](const Summary& s) { return double(s.bestEffortJobs); }},
        {"best_effort_mean_jct_min", [](const Summary& s) { return s.bestEffortMeanJctMin; }},
        {"jain_fairness", [](const Summary& s) { return s.jainFairness; }},
        {"preemptions", [](const Summary& s) { return double(s.preemptions); }},
        {"events", [](const Summary& s) { return double(s.events); }},
        {"decisions", [](const Summary& s) { return double(s.decisions); }},
    };
    return f;
}


} // namespace

std::string provenanceLine(const RunOutput& out)
{
    return "policy=" + out.policy + "; seed=" + std::to_string(out.seed) + "; perf=" + out.perf +
           "; cluster=" + out.clusterName + " (" + out.clusterFingerprint + "); trace=" + out.traceName + " (" +
           out.traceFingerprint + "); software=" SCHEDSTUDIO_VERSION;
}

std::vector<JobSegment> scheduleSegments(const RunOutput& out)
{
    std::vector<JobSegment> segs;
    std::unordered_map<int, const JobRecord*> byIndex;
    byIndex.reserve(out.jobs.size());
    double lastEnd = 0;
    for (const JobRecord& r : out.jobs) {
        byIndex[r.index] = &r;
        lastEnd = std::max(lastEnd, r.end);
    }
    if (out.log) {
        struct Open {
            double start;
            std::vector<GpuSlot> slots;
        };
        std::unordered_map<int, Open> open;
        std::unordered_map<int, bool> seen;
        auto close = [&](int job, double t, JobSegment::End how) {
            auto it = open.find(job);
            if (it == open.end())
                return;
            for (const GpuSlot& g : it->second.slots)
                segs.push_back({job, g.gpu, g.milli, it->second.start, t, how});
            open.erase(it);
        };
        for (const DecisionRecord& r : out.log->records) {
            lastEnd = std::max(lastEnd, r.time);
            for (int j : r.finished)
                close(j, r.time, JobSegment::End::Finished);
            for (int j : r.preempted)
                close(j, r.time, JobSegment::End::Preempted);
            for (const PlacementRecord& p : r.placements) {
                if (p.slots.empty())
                    continue;
                close(p.job, r.time, JobSegment::End::Preempted); // restarted without a logged preemption
                open[p.job] = {r.time, p.slots};
                seen[p.job] = true;
            }
        }
        // Still holding GPUs when the log ends: completed later (the record has its end) or still running.
        for (auto& [job, o] : open) {
            auto it = byIndex.find(job);
            const bool done = it != byIndex.end() && it->second->end >= o.start;
            for (const GpuSlot& g : o.slots)
                segs.push_back({job, g.gpu, g.milli, o.start, done ? it->second->end : lastEnd,
                                done ? JobSegment::End::Finished : JobSegment::End::Open});
        }
        // Starts the log did not keep (placement cap): known only from the job record, GPU unknown.
        for (const JobRecord& r : out.jobs)
            if (r.start >= 0 && !seen.count(r.index))
                segs.push_back({r.index, -1, int(std::lround(std::min(1.0, r.gpus) * 1000)), r.start,
                                r.end >= 0 ? r.end : lastEnd,
                                r.end >= 0 ? JobSegment::End::Finished : JobSegment::End::Open});
    } else {
        for (const JobRecord& r : out.jobs)
            if (r.start >= 0)
                segs.push_back({r.index, -1, 1000, r.start, r.end >= 0 ? r.end : lastEnd,
                                r.end >= 0 ? JobSegment::End::Finished : JobSegment::End::Open});
    }
    std::sort(segs.begin(), segs.end(), [](const JobSegment& a, const JobSegment& b) {
        if (a.gpu != b.gpu)
            return a.gpu < b.gpu;
        if (a.start != b.start)
            return a.start < b.start;
        return a.job < b.job;
    });
    return segs;
}

void writeJobsCsv(const RunOutput& out, std::ostream& os)
{
    os << "# SchedStudio jobs; " << provenanceLine(out) << "\n";
    os << "index,id,submit,start,end,jct,queueing,gpus,machines,fee,gpu_seconds,preemptions,deadline_met,"
          "deadline_value,duration,status\n";
    std::string line;
    for (const JobRecord& r : out.jobs) {
        line.clear();
        line += std::to_string(r.index) + ',' + std::to_string(r.id) + ',' + num(r.submit) + ',' + num(r.start) +
                ',' + num(r.end) + ',' + num(r.jct) + ',' + num(r.queueing) + ',' + num(r.gpus) + ',' +
                std::to_string(r.machines) + ',' + num(r.fee) + ',' + num(r.gpuSeconds) + ',' +
                std::to_string(r.preemptions) + ',' + std::to_string(r.deadlineMet) + ',' + num(r.deadlineValue) +
                ',' + num(r.duration) + ',' + toString(r.status) + '\n';
        os << line;
    }
}

JsonValue summaryToJson(const RunOutput& out)
{
    JsonValue o = JsonValue::makeObject();
    auto t = [](const std::string& v) { return JsonValue::makeString(v); };
    o["software"] = t(SCHEDSTUDIO_VERSION);
    o["policy"] = t(out.policy);
    o["seed"] = JsonValue::makeNumber(double(out.seed));
    o["perf"] = t(out.perf);
    o["cluster"] = t(out.clusterName);
    o["cluster_fingerprint"] = t(out.clusterFingerprint);
    o["trace"] = t(out.traceName);
    o["trace_fingerprint"] = t(out.traceFingerprint);
    o["wall_seconds"] = JsonValue::makeNumber(out.wallSeconds);
    o["cancelled"] = JsonValue::makeBool(out.cancelled);
    JsonValue sum = JsonValue::makeObject();
    for (const SummaryField& f : summaryFields())
        sum[f.name] = JsonValue::makeNumber(f.get(out.summary)); // NaN/Inf are written as null
    o["summary"] = std::move(sum);
    return o;
}

void writeSummaryJson(const RunOutput& out, std::ostream& os)
{
    os << writeJson(summaryToJson(out));
}

void writeSummaryCsv(const std::vector<const RunOutput*>& runs, std::ostream& os)
{
    os << "# SchedStudio summary; " << runs.size() << " runs; software=" SCHEDSTUDIO_VERSION "\n";
    os << "policy,seed,perf,cluster,cluster_fingerprint,trace,trace_fingerprint";
    for (const SummaryField& f : summaryFields())
        os << ',' << f.name;
    os << ",wall_seconds\n";
    for (const RunOutput* r : runs) {
        os << csvCell(r->policy) << ',' << r->seed << ',' << csvCell(r->perf) << ',' << csvCell(r->clusterName) << ','
           << r->clusterFingerprint << ',' << csvCell(r->traceName) << ',' << r->traceFingerprint;
        for (const SummaryField& f : summaryFields())
            os << ',' << num(f.get(r->summary));
        os << ',' << num(r->wallSeconds) << '\n';
    }
}

void writeSeriesCsv(const RunOutput& out, std::ostream& os)
{
    os << "# SchedStudio time series; " << provenanceLine(out) << "\n";
    os << "t,utilization,fragmentation,queue,running\n";
    for (const TimePoint& p : out.series)
        os << num(p.t) << ',' << num(p.utilization) << ',' << num(p.fragmentation) << ',' << p.queue << ','
           << p.running << '\n';
}

void writeChromeTrace(const RunOutput& out, const ClusterSpec* cluster, std::ostream& os)
{
    std::vector<JobSegment> segs = scheduleSegments(out);
    std::unordered_map<int, const JobRecord*> byIndex;
    for (const JobRecord& r : out.jobs)
        byIndex[r.index] = &r;

    const bool useCluster = cluster && cluster->totalGpus() > 0;
    // Lanes: segments of one GPU that overlap in time (shared GPUs) go to extra lanes of that GPU, and
    // segments with no known GPU are packed greedily; lane 0 of GPU g is thread g.
    constexpr int kLaneStride = 100000;
    constexpr int kNoGpuPid = 999999; // after every machine
    struct Track {
        int pid, tid;
    };
    std::vector<Track> tracks(segs.size());
    std::vector<double> laneEnd;
    int curGpu = -2;
    // Segments are sorted by (gpu, start): one sweep per GPU.
    for (size_t i = 0; i < segs.size(); ++i) {
        const JobSegment& s = segs[i];
        if (s.gpu != curGpu) {
            curGpu = s.gpu;
            laneEnd.clear();
        }
        size_t lane = 0;
        while (lane < laneEnd.size() && laneEnd[lane] > s.start)
            ++lane;
        if (lane == laneEnd.size())
            laneEnd.push_back(s.end);
        else
            laneEnd[lane] = s.end;
        if (s.gpu < 0)
            tracks[i] = {kNoGpuPid, int(lane)};
        else if (useCluster && s.gpu < cluster->totalGpus()) {
            const int m = cluster->machineOfGpu(s.gpu);
            tracks[i] = {m, s.gpu - cluster->gpuBase(m) + int(lane) * kLaneStride};
        } else
            tracks[i] = {0, s.gpu + int(lane) * kLaneStride};
    }

    JsonValue other = JsonValue::makeObject();
    other["software"] = JsonValue::makeString(SCHEDSTUDIO_VERSION);
    other["policy"] = JsonValue::makeString(out.policy);
    other["seed"] = JsonValue::makeString(std::to_string(out.seed));
    other["perf"] = JsonValue::makeString(out.perf);
    other["cluster"] = JsonValue::makeString(out.clusterName);
    other["cluster_fingerprint"] = JsonValue::makeString(out.clusterFingerprint);
    other["trace"] = JsonValue::makeString(out.traceName);
    other["trace_fingerprint"] = JsonValue::makeString(out.traceFingerprint);
    other["segments_from"] = JsonValue::makeString(out.log ? "decision log" : "job records");
    // The event array is streamed (a big run has millions of events); each event goes through the JSON writer.
    os << "{\"displayTimeUnit\":\"ms\",\"otherData\":" << writeJson(other, -1) << ",\n\"traceEvents\":[\n";
    bool first = true;
    auto emit = [&](const JsonValue& ev) {
        if (!first)
            os << ",\n";
        first = false;
        os << writeJson(ev, -1);
    };
    auto meta = [](const char* name, int pid, const char* key, JsonValue value) {
        JsonValue e = JsonValue::makeObject();
        e["name"] = JsonValue::makeString(name);
        e["ph"] = JsonValue::makeString("M");
        e["pid"] = JsonValue::makeNumber(pid);
        JsonValue args = JsonValue::makeObject();
        args[key] = std::move(value);
        e["args"] = std::move(args);
        return e;
    };
    // Metadata: name processes (machines) and threads (GPUs); keep processes in machine order.
    std::vector<std::pair<int, int>> named;
    for (const Track& t : tracks)
        named.emplace_back(t.pid, t.tid);
    std::sort(named.begin(), named.end());
    named.erase(std::unique(named.begin(), named.end()), named.end());
    int lastPid = -3;
    for (auto [pid, tid] : named) {
        if (pid != lastPid) {
            std::string pname = pid == kNoGpuPid ? std::string("jobs (GPU not recorded)")
                              : useCluster ? cluster->machines[size_t(pid)].name
                                           : std::string("GPUs");
            emit(meta("process_name", pid, "name", JsonValue::makeString(pname)));
            emit(meta("process_sort_index", pid, "sort_index", JsonValue::makeNumber(pid)));
            lastPid = pid;
        }
        const int lane = tid / kLaneStride, local = tid % kLaneStride;
        std::string tname = pid == kNoGpuPid ? "lane " + std::to_string(tid)
                                    : "GPU " + std::to_string(local) +
                                          (lane ? " (share " + std::to_string(lane + 1) + ")" : std::string());
        JsonValue e = meta("thread_name", pid, "name", JsonValue::makeString(tname));
        e["tid"] = JsonValue::makeNumber(tid);
        emit(e);
    }
    for (size_t i = 0; i < segs.size(); ++i) {
        const JobSegment& s = segs[i];
        auto it = byIndex.find(s.job);
        const long long id = it != byIndex.end() ? (long long)it->second->id : (long long)s.job;
        const char* how = s.how == JobSegment::End::Finished ? "finished"
                          : s.how == JobSegment::End::Preempted ? "preempted" : "running";
        // Whole microseconds: back-to-back segments then meet exactly instead of overlapping by a rounding.
        const long long ts = std::llround(s.start * 1e6);
        const long long dur = std::max(0LL, std::llround(s.end * 1e6) - ts);
        JsonValue e = JsonValue::makeObject();
        e["name"] = JsonValue::makeString("job " + std::to_string(id));
        e["cat"] = JsonValue::makeString("job");
        e["ph"] = JsonValue::makeString("X");
        e["ts"] = JsonValue::makeNumber(double(ts));
        e["dur"] = JsonValue::makeNumber(double(dur));
        e["pid"] = JsonValue::makeNumber(tracks[i].pid);
        e["tid"] = JsonValue::makeNumber(tracks[i].tid);
        JsonValue args = JsonValue::makeObject();
        args["job"] = JsonValue::makeNumber(double(id));
        args["index"] = JsonValue::makeNumber(s.job);
        args["gpu"] = JsonValue::makeNumber(s.gpu);
        args["milli"] = JsonValue::makeNumber(s.milli);
        args["end"] = JsonValue::makeString(how);
        e["args"] = std::move(args);
        emit(e);
    }
    os << "\n]}\n";
}

void writeJobsCsv(const RunOutput& out, const std::string& path)
{
    toFile(path, [&](std::ostream& os) { writeJobsCsv(out, os); });
}
void writeSummaryJson(const RunOutput& out, const std::string& path)
{
    toFile(path, [&](std::ostream& os) { writeSummaryJson(out, os); });
}
void writeSummaryCsv(const std::vector<const RunOutput*>& runs, const std::string& path)
{
    toFile(path, [&](std::ostream& os) { writeSummaryCsv(runs, os); });
}
void writeSeriesCsv(const RunOutput& out, const std::string& path)
{
    toFile(path, [&](std::ostream& os) { writeSeriesCsv(out, os); });
}
void writeChromeTrace(const RunOutput& out, const ClusterSpec* cluster, const std::string& path)
{
    toFile(path, [&](std::ostream& os) { writeChromeTrace(out, cluster, os); });
}

} // namespace ss
