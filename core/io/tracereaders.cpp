// Readers for the published trace formats. Each maps the source's columns onto Job fields as documented
// in docs/FORMATS.md; whatever a format lacks stays at its default.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unordered_map>

#include "io/readerbase.h"
#include "io/tracereaderutil.h"

namespace ss::io {


// Philly (adaptdl's philly.csv): timestamp,duration,num_gpus,gpu_time,cluster. Not sorted; dates.
void readPhilly(TraceBuilder& b, LineReader& r)
{
    Header h;
    int cTs = -1, cDur = -1, cGpu = -1, cVc = -1;
    bool init = false;
    const std::string& f = b.file();
    forEachRow(b, r, ',', h, [&](const std::vector<std::string_view>& v, long ln) {
        if (!init) {
            cTs = col(h, b, "timestamp");
            cDur = col(h, b, "duration");
            cGpu = col(h, b, "num_gpus");
            cVc = h.index("cluster");
            init = true;
        }
        Job j;
        j.id = b.nextId++;
        j.submit = parseTime(v[size_t(cTs)], {f, ln, "timestamp"});
        j.duration = parseNumber(v[size_t(cDur)], {f, ln, "duration"});
        j.gpus = double(parseInt(v[size_t(cGpu)], {f, ln, "num_gpus"}));
        if (j.gpus < 0)
            fail({f, ln, "num_gpus"}, "negative GPU count");
        if (cVc >= 0)
            j.vc = b.intern(b.vcs, v[size_t(cVc)]);
        b.add(std::move(j), {f, ln, "duration"});
    });
}

// Helios (SenseTime, SC'21) cluster_log.csv.
void readHelios(TraceBuilder& b, LineReader& r)
{
    Header h;
    int cId = -1, cUser = -1, cVc = -1, cGpu = -1, cCpu = -1, cState = -1, cSubmit = -1, cStart = -1, cEnd = -1,
        cDur = -1;
    bool init = false;
    const std::string& f = b.file();
    forEachRow(b, r, ',', h, [&](const std::vector<std::string_view>& v, long ln) {
        if (!init) {
            cId = h.index("job_id");
            cUser = h.index("user");
            cVc = h.index("vc");
            cGpu = col(h, b, "gpu_num");
            cCpu = h.index("cpu_num");
            cState = h.index("state");
            cSubmit = col(h, b, "submit_time");
            cStart = h.index("start_time");
            cEnd = h.index("end_time");
            cDur = h.index("duration");
            if (cDur < 0 && (cStart < 0 || cEnd < 0))
                throw IoError(f, 1, "duration", "column missing (and no start_time/end_time to derive it)");
            init = true;
        }
        if (cState >= 0 && skipForStatus(b, classifyStatus(v[size_t(cState)])))
            return;
        Job j;
        const int64_t row = b.nextId++;
        j.id = row;
        if (cId >= 0) {
            const std::string_view idText = trim(v[size_t(cId)]);
            j.id = idFromName(idText, row);
        }
        j.submit = parseTime(v[size_t(cSubmit)], {f, ln, "submit_time"});
        if (cStart >= 0 && !trim(v[size_t(cStart)]).empty())
            j.started = parseTime(v[size_t(cStart)], {f, ln, "start_time"});
        if (cDur >= 0 && !trim(v[size_t(cDur)]).empty()) {
            j.duration = parseNumber(v[size_t(cDur)], {f, ln, "duration"});
        } else {
            if (cStart < 0 || cEnd < 0 || trim(v[size_t(cEnd)]).empty()) {
                b.skip("still running");
                return;
            }
            j.duration = parseTime(v[size_t(cEnd)], {f, ln, "end_time"})
                         - parseTime(v[size_t(cStart)], {f, ln, "start_time"});
        }
        j.gpus = double(parseInt(v[size_t(cGpu)], {f, ln, "gpu_num"}));
        if (j.gpus < 0)
            fail({f, ln, "gpu_num"}, "negative GPU count");
        if (cCpu >= 0)
            j.cpu = float(parseNumberOr(v[size_t(cCpu)], 0, {f, ln, "cpu_num"}));
        if (cUser >= 0)
            j.user = b.intern(b.users, v[size_t(cUser)]);
        if (cVc >= 0)
            j.vc = b.intern(b.vcs, v[size_t(cVc)]);
        b.add(std::move(j), {f, ln, "duration"});
    });
}

// Alibaba PAI 2020: the task table (headerless: job_name,task_name,inst_num,status,start_time,end_time,
// plan_cpu,plan_mem,plan_gpu,gpu_type) aggregated per job; users from pai_job_table.csv beside it.
void readPai2020(TraceBuilder& b, LineReader& r)
{
    namespace fs = std::filesystem;
    const std::string& f0 = b.file();
    static const char* kTask[] = {"job_name", "task_name", "inst_num", "status", "start_time",
                                  "end_time", "plan_cpu", "plan_mem", "plan_gpu", "gpu_type"};
    static const char* kJob[] = {"job_name", "inst_id", "user", "status", "start_time", "end_time"};
    // Which table were we given? Probe the first line.
    FieldSplitter sp;
    std::string taskPath = f0, jobPath;
    {
        LineReader probe(f0);
        std::string_view l;
        probe.next(l);
        const auto& v = sp.split(l, ',');
        if (v.size() == 6) {
            jobPath = f0;
            taskPath = (fs::path(f0).parent_path() / "pai_task_table.csv").string();
            if (!fs::exists(taskPath))
                throw IoError(f0, 1, "", "a PAI job table holds no GPU demand; pai_task_table.csv must be next to it");
        } else {
            const auto jp = fs::path(f0).parent_path() / "pai_job_table.csv";
            if (fs::exists(jp))
                jobPath = jp.string();
        }
    }
    std::unordered_map<std::string, int32_t> userOf;
    if (!jobPath.empty()) {
        LineReader jr(jobPath);
        std::string_view l;
        while (jr.next(l)) {
            const auto& v = sp.split(l, ',');
            if (jr.lineNo() == 1 && !v.empty() && trim(v[0]) == "job_name")
                continue;
            if (v.size() != 6) {
                if (b.opts().skipBadRows)
                    continue;
                throw IoError(jobPath, jr.lineNo(), kJob[std::min<size_t>(v.size(), 5)],
                              "row has " + std::to_string(v.size()) + " fields, expected 6");
            }
            userOf.emplace(std::string(trim(v[0])), b.intern(b.users, v[2]));
        }
    }
    struct Agg {
        int64_t id = 0;
        double start = HUGE_VAL, end = -HUGE_VAL;
        double gpus = 0, cpu = 0, mem = 0;
        Status st = Status::Ok;
        std::string spec;
    };
    std::unordered_map<std::string, Agg> jobs;
    std::vector<std::string> order;
    LineReader tr(taskPath);
    std::string_view line;
    Progress prog(b.opts());
    const std::string& f = taskPath;
    while (tr.next(line)) {
        prog.tick(tr);
        if (trim(line).empty())
            continue;
        const auto& v = sp.split(line, ',');
        if (tr.lineNo() == 1 && !v.empty() && trim(v[0]) == "job_name")
            continue;
        const long ln = tr.lineNo();
        b.row([&] {
            if (v.size() != 10)
                throw IoError(f, ln, kTask[std::min<size_t>(v.size(), 9)],
                              "row has " + std::to_string(v.size()) + " fields, expected 10");
            const std::string name(trim(v[0]));
            auto [it, fresh] = jobs.try_emplace(name);
            Agg& a = it->second;
            if (fresh) {
                a.id = b.nextId++;
                order.push_back(name);
            }
            const Status st = classifyStatus(v[3]);
            if (st == Status::Running || trim(v[5]).empty() || trim(v[4]).empty())
                a.st = Status::Running;
            else if (st == Status::Failed && a.st == Status::Ok)
                a.st = Status::Failed;
            if (!trim(v[4]).empty())
                a.start = std::min(a.start, parseNumber(v[4], {f, ln, "start_time"}));
            if (!trim(v[5]).empty())
                a.end = std::max(a.end, parseNumber(v[5], {f, ln, "end_time"}));
            const double inst = parseNumberOr(v[2], 1, {f, ln, "inst_num"});
            // plan_gpu is in percent of one GPU (50 = half a GPU), per instance.
            a.gpus += inst * parseNumberOr(v[8], 0, {f, ln, "plan_gpu"}) / 100.0;
            a.cpu += inst * parseNumberOr(v[6], 0, {f, ln, "plan_cpu"}) / 100.0;
            a.mem += inst * parseNumberOr(v[7], 0, {f, ln, "plan_mem"});
            const std::string_view gt = trim(v[9]);
            if (!gt.empty() && !iequals(gt, "MISC") && a.spec.empty())
                a.spec = std::string(gt);
        });
    }
    b.report.rows = 0; // rows = jobs for this format (tasks are aggregated)
    long rounded = 0;
    for (const auto& name : order) {
        const Agg& a = jobs[name];
        ++b.report.rows;
        if (skipForStatus(b, a.st))
            continue;
        if (!(a.start <= a.end)) {
            b.skip("still running");
            continue;
        }
        Job j;
        j.id = a.id;
        j.submit = a.start; // PAI publishes no submit time; the first task start is the closest
        j.duration = a.end - a.start;
        j.gpus = a.gpus < 1.0 ? std::round(a.gpus * 1000) / 1000 : std::ceil(a.gpus - 1e-9);
        if (a.gpus > 1.0 && j.gpus != a.gpus)
            ++rounded;
        j.cpu = float(a.cpu);
        j.memGb = float(a.mem);
        if (!a.spec.empty())
            j.gpuSpec = b.intern(b.specs, a.spec);
        auto u = userOf.find(name);
        if (u != userOf.end())
            j.user = u->second;
        b.add(std::move(j), {f, 0, "end_time"});
    }
    if (rounded)
        b.trace.notes.push_back(std::to_string(rounded) + " jobs with a fractional demand above 1 GPU rounded up");
    prog.done();
}

namespace {

/// The time columns of one openb pod, as written.
struct OpenbTimes {
    std::string phase, creation, deletion, scheduled;
    long line = 0; ///< in the list they come from
};

/// The times of every pod of an openb list that has them (openb_pod_list_default.csv), by pod name.
std::unordered_map<std::string, OpenbTimes> openbTimesByName(const std::string& path)
{
    const TraceReadOptions opts; // strict: a bad row of the list that gives the times is an error
    TraceBuilder tb(path, opts, "openb");
    LineReader r(path);
    Header h;
    int cName = -1, cCreate = -1, cDel = -1, cSched = -1, cPhase = -1;
    std::unordered_map<std::string, OpenbTimes> out;
    forEachRow(tb, r, ',', h, [&](const std::vector<std::string_view>& v, long ln) {
        if (cName < 0) {
            cName = col(h, tb, "name");
            cCreate = col(h, tb, "creation_time");
            cDel = col(h, tb, "deletion_time");
            cSched = h.index("scheduled_time");
            cPhase = h.index("pod_phase");
        }
        OpenbTimes t{cPhase >= 0 ? std::string(trim(v[size_t(cPhase)])) : std::string(),
                     std::string(trim(v[size_t(cCreate)])), std::string(trim(v[size_t(cDel)])),
                     cSched >= 0 ? std::string(trim(v[size_t(cSched)])) : std::string(), ln};
        if (!out.emplace(std::string(trim(v[size_t(cName)])), std::move(t)).second)
            fail({path, ln, "name"}, "pod '" + std::string(trim(v[size_t(cName)])) + "' listed twice");
    });
    return out;
}

} // namespace

// Alibaba openb 2023 pod lists. A list without time columns (openb_pod_list_multigpu50.csv) takes each pod's
// times from openb_pod_list_default.csv beside it, by pod name ([I], docs/FORMATS.md).
void readOpenb(TraceBuilder& b, LineReader& r)
{
    constexpr double kTraceEnd = 12902960; // deletion_time of pods alive when the trace was cut
    Header h;
    int cName = -1, cCpu = -1, cMem = -1, cNum = -1, cMilli = -1, cSpec = -1, cQos = -1, cPhase = -1, cCreate = -1,
        cDel = -1, cSched = -1, cNode = -1;
    bool init = false;
    const std::string& f = b.file();
    std::unordered_map<std::string, OpenbTimes> timesByName; // empty: the list has its own times
    std::string timesFile;
    forEachRow(b, r, ',', h, [&](const std::vector<std::string_view>& v, long ln) {
        if (!init) {
            cName = h.index("name");
            cCpu = h.index("cpu_milli");
            cMem = h.index("memory_mib");
            cNum = col(h, b, "num_gpu");
            cMilli = col(h, b, "gpu_milli");
            cSpec = h.index("gpu_spec");
            cQos = h.index("qos");
            cPhase = h.index("pod_phase");
            cCreate = h.index("creation_time");
            cDel = h.index("deletion_time");
            cSched = h.index("scheduled_time");
            // The published lists name no node; a list exported with the pods' nodes (a Kubernetes pod's
            // spec.nodeName) keeps them for --start-at.
            cNode = h.index("node_name") >= 0 ? h.index("node_name") : h.index("node");
            if (cCreate < 0 || cDel < 0) {
                namespace fs = std::filesystem;
                const fs::path def = fs::path(f).parent_path() / "openb_pod_list_default.csv";
                std::error_code ec;
                if (cName < 0 || !fs::is_regular_file(def, ec) || fs::equivalent(def, fs::path(f), ec))
                    throw IoError(f, 1, "creation_time",
                                  "column missing: this pod list has no times (a placement snapshot, not a trace), "
                                  "and no openb_pod_list_default.csv beside it to take them from by pod name");
                timesFile = def.string();
                timesByName = openbTimesByName(timesFile);
                b.trace.notes.push_back("times of each pod from " + def.filename().string() + " by pod name");
            }
            init = true;
        }
        // The time columns: this row's, or those of the pod of the same name in the default list.
        std::string_view phase = cPhase >= 0 ? trim(v[size_t(cPhase)]) : std::string_view();
        std::string_view creation, deletion, scheduled;
        long tl = ln; // line of the time fields in their file
        if (!timesFile.empty()) {
            const std::string name(trim(v[size_t(cName)]));
            const auto it = timesByName.find(name);
            if (it == timesByName.end()) {
                if (b.opts().skipBadRows) {
                    b.skip("no times in openb_pod_list_default.csv");
                    return;
                }
                fail({f, ln, "name"}, "pod '" + name + "' is not in " + timesFile
                                          + ", which gives this list its times (--skip-bad-rows leaves such pods out)");
            }
            phase = it->second.phase;
            creation = it->second.creation;
            deletion = it->second.deletion;
            scheduled = it->second.scheduled;
            tl = it->second.line;
        } else {
            creation = v[size_t(cCreate)];
            deletion = v[size_t(cDel)];
            scheduled = cSched >= 0 ? v[size_t(cSched)] : std::string_view();
        }
        const std::string tf = timesFile.empty() ? f : timesFile; // the file the time fields come from
        if (!phase.empty()) {
            const std::string_view ph = phase;
            if (iequals(ph, "Pending")) {
                b.skip("never scheduled");
                return;
            }
            if (iequals(ph, "Failed") && !b.opts().keepFailed) {
                b.skip("failed/killed");
                return;
            }
        }
        const double del = parseNumber(deletion, {tf, tl, "deletion_time"});
        if (del >= kTraceEnd) {
            b.skip("still running");
            return;
        }
        Job j;
        const int64_t row = b.nextId++;
        j.id = cName >= 0 ? idFromName(v[size_t(cName)], row) : row;
        j.submit = parseNumber(creation, {tf, tl, "creation_time"});
        const double start =
            !trim(scheduled).empty() ? parseNumber(scheduled, {tf, tl, "scheduled_time"}) : j.submit;
        j.duration = del - start;
        j.started = start;
        if (cNode >= 0)
            j.machines = b.intern(b.machineSets, v[size_t(cNode)]);
        const double num = parseNumber(v[size_t(cNum)], {f, ln, "num_gpu"});
        const double milli = parseNumber(v[size_t(cMilli)], {f, ln, "gpu_milli"});
        if (num < 0)
            fail({f, ln, "num_gpu"}, "negative GPU count");
        if (milli < 0 || milli > 1000)
            fail({f, ln, "gpu_milli"}, "must be 0..1000");
        // gpu_milli is the share of each GPU; below 1000 only single-GPU pods share a device.
        j.gpus = (num == 1 && milli < 1000) ? milli / 1000.0 : num;
        if (num == 1 && milli == 0)
            j.gpus = 0;
        if (cCpu >= 0)
            j.cpu = float(parseNumberOr(v[size_t(cCpu)], 0, {f, ln, "cpu_milli"}) / 1000.0);
        if (cMem >= 0)
            j.memGb = float(parseNumberOr(v[size_t(cMem)], 0, {f, ln, "memory_mib"}) / 1024.0);
        if (cSpec >= 0)
            j.gpuSpec = b.intern(b.specs, v[size_t(cSpec)]);
        if (cQos >= 0)
            j.qos = b.intern(b.qos, v[size_t(cQos)]);
        b.add(std::move(j), {tf, tl, "deletion_time"});
    });
}

// Gavel: tab-separated, no header; 7 fields (seed0) or 10 fields (physical_cluster).
void readGavel(TraceBuilder& b, LineReader& r)
{
    namespace fs = std::filesystem;
    const std::string& f = b.file();
    std::string tp = b.opts().throughputs;
    if (tp.empty()) {
        const fs::path dir = fs::path(f).parent_path();
        for (const fs::path& c : {dir / "simulation_throughputs.json", dir.parent_path() / "simulation_throughputs.json"})
            if (fs::exists(c)) {
                tp = c.string();
                break;
            }
    }
    const std::map<std::pair<std::string, int>, double>* v100 = nullptr;
    GavelThroughputs table;
    if (!tp.empty()) {
        table = loadGavelThroughputs(tp);
        auto it = table.stepsPerSecond.find("v100");
        if (it == table.stepsPerSecond.end())
            throw IoError(tp, 0, "v100", "the throughput table has no v100 entry");
        v100 = &it->second;
        b.trace.notes.push_back("durations: total_steps / v100 steps/s from " + fs::path(tp).filename().string());
    } else {
        b.trace.notes.push_back("durations: no simulation_throughputs.json found; assumed 1 step/s (duration = total_steps)");
    }
    static const char* k7[] = {"job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps", "arrival_time",
                               "scale_factor"};
    static const char* k10[] = {"job_type",    "command",      "working_directory", "num_steps_arg",
                                "needs_data_dir", "total_steps", "scale_factor",     "priority_weight",
                                "SLO",         "arrival_time"};
    FieldSplitter sp;
    std::string_view line;
    Progress prog(b.opts());
    size_t width = 0;
    long fallback = 0;
    while (r.next(line)) {
        prog.tick(r);
        if (trim(line).empty())
            continue;
        const long ln = r.lineNo();
        b.row([&] {
            const auto& v = sp.split(line, '\t');
            if (width == 0) {
                if (v.size() != 7 && v.size() != 10)
                    throw IoError(f, ln, "", "expected 7 or 10 tab-separated fields, found " + std::to_string(v.size()));
                width = v.size();
            }
            const char* const* names = width == 7 ? k7 : k10;
            if (v.size() != width)
                throw IoError(f, ln, names[std::min(v.size(), width - 1)],
                              "row has " + std::to_string(v.size()) + " fields, expected " + std::to_string(width));
            const size_t iSteps = width == 7 ? 4 : 5, iArr = width == 7 ? 5 : 9, iScale = width == 7 ? 6 : 6;
            Job j;
            j.id = b.nextId++;
            const std::string_view type = trim(v[0]);
            j.model = b.intern(b.models, type);
            j.iterations = parseNumber(v[iSteps], {f, ln, names[iSteps]});
            j.submit = parseNumber(v[iArr], {f, ln, names[iArr]});
            j.gpus = double(parseInt(v[iScale], {f, ln, names[iScale]}));
            if (j.iterations < 0)
                fail({f, ln, names[iSteps]}, "negative step count");
            if (width == 10) {
                // Gavel's priority weight w_m, kept as the QoS class "w<weight>" (Trace::priorityWeight);
                // weight 1 (every public trace) leaves the job without a class
                const double w = parseNumber(v[7], {f, ln, names[7]});
                if (!(w > 0) || !std::isfinite(w))
                    fail({f, ln, names[7]}, "priority weight must be positive");
                if (w != 1) {
                    char buf[32];
                    std::snprintf(buf, sizeof buf, "w%g", w);
                    j.qos = b.intern(b.qos, buf);
                }
            }
            if (j.submit < 0)
                fail({f, ln, names[iArr]}, "negative arrival time");
            if (v100) {
                const std::string key(type);
                auto it = v100->find({key, int(j.gpus)});
                if (it == v100->end()) {
                    it = v100->find({key, 1});
                    ++fallback;
                }
                if (it == v100->end() || !(it->second > 0))
                    fail({f, ln, "job_type"}, "no v100 throughput for '" + key + "' in " + tp);
                j.duration = j.iterations / it->second;
            } else {
                j.duration = j.iterations;
            }
            b.add(std::move(j), {f, ln, names[iSteps]});
        });
    }
    if (fallback)
        b.trace.notes.push_back(std::to_string(fallback)
                                + " jobs used the single-GPU throughput (no entry for their scale factor)");
    prog.done();
}

// Tiresias: job_id,num_gpu,submit_time,iterations,model_name,duration,interval (seconds).
void readTiresias(TraceBuilder& b, LineReader& r)
{
    Header h;
    int cId = -1, cGpu = -1, cSub = -1, cIt = -1, cModel = -1, cDur = -1;
    bool init = false;
    const std::string& f = b.file();
    forEachRow(b, r, ',', h, [&](const std::vector<std::string_view>& v, long ln) {
        if (!init) {
            cId = col(h, b, "job_id");
            cGpu = col(h, b, "num_gpu");
            cSub = col(h, b, "submit_time");
            cIt = h.index("iterations");
            cModel = h.index("model_name");
            cDur = col(h, b, "duration");
            init = true;
        }
        Job j;
        j.id = parseInt(v[size_t(cId)], {f, ln, "job_id"});
        j.gpus = double(parseInt(v[size_t(cGpu)], {f, ln, "num_gpu"}));
        if (j.gpus < 0)
            fail({f, ln, "num_gpu"}, "negative GPU count");
        j.submit = parseNumber(v[size_t(cSub)], {f, ln, "submit_time"});
        j.duration = parseNumber(v[size_t(cDur)], {f, ln, "duration"});
        if (cIt >= 0)
            j.iterations = parseNumberOr(v[size_t(cIt)], 0, {f, ln, "iterations"});
        if (cModel >= 0)
            j.model = b.intern(b.models, v[size_t(cModel)]);
        b.add(std::move(j), {f, ln, "duration"});
    });
}

// Chronus: minutes; deadline levels as '-'-separated lists.
void readChronus(TraceBuilder& b, LineReader& r)
{
    Header h;
    int cId = -1, cUser = -1, cGpu = -1, cSub = -1, cIt = -1, cModel = -1, cDur = -1, cTimes = -1, cVals = -1,
        cBest = -1, cType = -1;
    bool init = false;
    const std::string& f = b.file();
    b.trace.notes.push_back("chronus times are minutes; converted to seconds");
    forEachRow(b, r, ',', h, [&](const std::vector<std::string_view>& v, long ln) {
        if (!init) {
            cId = col(h, b, "job_id");
            cUser = h.index("user");
            cGpu = col(h, b, "num_gpu");
            cSub = col(h, b, "submit_time");
            cIt = h.index("iterations");
            cModel = h.index("model_name");
            cDur = col(h, b, "duration");
            cTimes = h.index("expect_time_list");
            cVals = h.index("expect_value_list");
            cBest = h.index("best_effort");
            cType = h.index("job_type");
            init = true;
        }
        Job j;
        j.id = parseInt(v[size_t(cId)], {f, ln, "job_id"});
        j.gpus = double(parseInt(v[size_t(cGpu)], {f, ln, "num_gpu"}));
        if (j.gpus < 0)
            fail({f, ln, "num_gpu"}, "negative GPU count");
        j.submit = 60.0 * parseNumber(v[size_t(cSub)], {f, ln, "submit_time"});
        j.duration = 60.0 * parseNumber(v[size_t(cDur)], {f, ln, "duration"});
        if (cIt >= 0)
            j.iterations = parseNumberOr(v[size_t(cIt)], 0, {f, ln, "iterations"});
        if (cModel >= 0)
            j.model = b.intern(b.models, v[size_t(cModel)]);
        if (cUser >= 0)
            j.user = b.intern(b.users, v[size_t(cUser)]);
        if (cType >= 0)
            j.qos = b.intern(b.qos, v[size_t(cType)]);
        bool best = cBest >= 0 && parseNumberOr(v[size_t(cBest)], 0, {f, ln, "best_effort"}) != 0;
        if (cType >= 0) {
            const std::string type = lower(trim(v[size_t(cType)]));
            if (type == "best")
                best = true;
            else if (type != "strict" && type != "soft")
                fail({f, ln, "job_type"}, "unknown job type '" + std::string(trim(v[size_t(cType)])) + "' (strict, soft or best)");
        }
        if (!best && cTimes >= 0) {
            parseDeadlineLists(v[size_t(cTimes)], cVals >= 0 ? v[size_t(cVals)] : std::string_view(), cVals >= 0, 60.0,
                               {f, ln, "expect_time_list"}, {f, ln, "expect_value_list"}, j.deadlines);
        }
        b.add(std::move(j), {f, ln, "duration"});
    });
}

// Pollux workloads: name,time,application,num_replicas,batch_size. The file has no duration; see
// docs/FORMATS.md for the per-application estimate used here.
static double polluxGpuSeconds(std::string_view app)
{
    // GPU-hours of work per application: our estimate (Pollux, OSDI'21, Table 1 sizes: imagenet XL,
    // deepspeech2/yolov3 L, bert/cifar10 M/S, ncf S).
    const std::string a = lower(app);
    double h = 2;
    if (a == "imagenet")
        h = 100;
    else if (a == "yolov3")
        h = 30;
    else if (a == "deepspeech2")
        h = 20;
    else if (a == "bert")
        h = 4;
    else if (a == "cifar10")
        h = 2;
    else if (a == "ncf")
        h = 0.5;
    return h * 3600.0;
}

void readPollux(TraceBuilder& b, LineReader& r)
{
    Header h;
    int cName = -1, cTime = -1, cApp = -1, cRep = -1;
    bool init = false;
    const std::string& f = b.file();
    b.trace.notes.push_back("pollux: durations estimated per application (GPU-hours / replicas; docs/FORMATS.md)");
    forEachRow(b, r, ',', h, [&](const std::vector<std::string_view>& v, long ln) {
        if (!init) {
            cName = h.index("name");
            cTime = col(h, b, "time");
            cApp = col(h, b, "application");
            cRep = col(h, b, "num_replicas");
            init = true;
        }
        Job j;
        const int64_t row = b.nextId++;
        j.id = cName >= 0 ? idFromName(v[size_t(cName)], row) : row;
        j.submit = parseNumber(v[size_t(cTime)], {f, ln, "time"});
        j.gpus = double(parseInt(v[size_t(cRep)], {f, ln, "num_replicas"}));
        if (j.gpus < 0)
            fail({f, ln, "num_replicas"}, "negative replica count");
        j.model = b.intern(b.models, v[size_t(cApp)]);
        j.duration = j.gpus > 0 ? polluxGpuSeconds(v[size_t(cApp)]) / j.gpus : 0;
        b.add(std::move(j), {f, ln, "time"});
    });
}

// Standard Workload Format: 18 whitespace-separated fields, ';' comments, -1 = unknown.
void readSwf(TraceBuilder& b, LineReader& r)
{
    static const char* k[] = {"job", "submit", "wait", "run", "procs", "avgcpu", "mem", "req_procs", "req_time",
                              "req_mem", "status", "uid", "gid", "app", "queue", "partition", "prev_job", "think_time"};
    FieldSplitter sp;
    std::string_view line;
    Progress prog(b.opts());
    const std::string& f = b.file();
    while (r.next(line)) {
        prog.tick(r);
        const std::string_view t = trim(line);
        if (t.empty() || t[0] == ';')
            continue;
        const long ln = r.lineNo();
        b.row([&] {
            const auto& v = sp.splitWhitespace(t);
            if (v.size() != 18)
                throw IoError(f, ln, k[std::min<size_t>(v.size(), 17)],
                              "row has " + std::to_string(v.size()) + " fields, SWF has 18");
            auto num = [&](int i) { return parseNumber(v[size_t(i)], {f, ln, k[i]}); };
            const double status = num(10);
            if (status == 0 || status == 5) {
                if (!b.opts().keepFailed) {
                    b.skip("failed/killed");
                    return;
                }
            }
            Job j;
            j.id = parseInt(v[0], {f, ln, "job"});
            j.submit = num(1);
            if (j.submit < 0)
                fail({f, ln, "submit"}, "unknown (-1) submit time");
            const double run = num(3);
            if (run == -1) {
                b.skip("unknown run time");
                return;
            }
            j.duration = run;
            double procs = num(4);
            if (procs == -1)
                procs = num(7);
            if (procs == -1)
                fail({f, ln, "procs"}, "both procs and req_procs unknown (-1)");
            j.gpus = procs;
            const double uid = num(11), queue = num(14), app = num(13);
            if (uid >= 0)
                j.user = b.intern(b.users, v[11]);
            if (queue >= 0)
                j.vc = b.intern(b.vcs, v[14]);
            if (app >= 0)
                j.model = b.intern(b.models, v[13]);
            b.add(std::move(j), {f, ln, "run"});
        });
    }
    prog.done();
}

} // namespace ss::io
