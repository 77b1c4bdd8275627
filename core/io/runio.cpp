#include "io/runio.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/csvpreview.h"
#include "io/textio.h"
#include "io/traceio.h"
#include "io/transforms.h"

namespace ss {

namespace fs = std::filesystem;

namespace {

JsonValue str(const std::string& s) { return JsonValue::makeString(s); }
JsonValue num(double v) { return std::isfinite(v) ? JsonValue::makeNumber(v) : JsonValue(); }

std::string relativeTo(const std::string& baseDir, const std::string& path)
{
    if (path.empty() || baseDir.empty())
        return path;
    std::error_code ec;
    const fs::path rel = fs::path(path).lexically_relative(fs::absolute(baseDir, ec));
    return rel.empty() ? path : rel.string();
}

std::string absoluteFrom(const std::string& baseDir, const std::string& path)
{
    if (path.empty() || fs::path(path).is_absolute() || baseDir.empty())
        return path;
    return (fs::path(baseDir) / path).lexically_normal().string();
}

uint64_t parseSeed(const JsonReader& r, const JsonValue& at, const std::string& field)
{
    if (at.isNumber()) {
        if (at.number() < 0 || at.number() != std::floor(at.number()) || at.number() > 9.007199254740992e15)
            r.fail(at, field, "must be an unsigned integer");
        return uint64_t(at.number());
    }
    if (at.isString()) {
        const std::string& s = at.string();
        char* end = nullptr;
        const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
        if (s.empty() || *end || s[0] == '-')
            r.fail(at, field, "'" + s + "' is not an unsigned integer");
        return v;
    }
    r.fail(at, field, "expected an unsigned integer");
}

std::map<std::string, std::string> readParams(const JsonReader& r, const JsonValue& o, const std::string& field)
{
    std::map<std::string, std::string> out;
    const JsonValue* p = o.find(field);
    if (!p || p->isNull())
        return out;
    if (!p->isObject())
        r.fail(*p, field, "expected an object of \"key\": \"value\" policy knobs");
    for (const auto& [k, v] : p->object()) {
        if (v.isString())
            out[k] = v.string();
        else if (v.isNumber())
            out[k] = formatNumber(v.number());
        else if (v.isBool())
            out[k] = v.boolean() ? "1" : "0";
        else
            r.fail(v, field + "." + k, "expected a string or a number");
    }
    return out;
}

// Seeds as numbers while JSON numbers hold them exactly (2^53), as strings above.
JsonValue seedJson(uint64_t seed)
{
    return seed <= (uint64_t(1) << 53) ? JsonValue::makeNumber(double(seed)) : JsonValue::makeString(std::to_string(seed));
}

JsonValue paramsJson(const std::map<std::string, std::string>& params)
{
    JsonValue o = JsonValue::makeObject();
    for (const auto& [k, v] : params)
        o[k] = str(v);
    return o;
}

// [{"time": seconds, "machine": name, "kind": "fail"|"drain"|"restore"}, ...]; bad entries name file, line, field.
std::vector<MachineEventSpec> readMachineEvents(const JsonReader& r, const JsonValue& root, const char* key)
{
    std::vector<MachineEventSpec> out;
    const JsonValue* arr = root.find(key);
    if (!arr)
        return out;
    if (!arr->isArray())
        r.fail(*arr, key, "expected an array of {time, machine, kind} objects");
    for (size_t i = 0; i < arr->array().size(); ++i) {
        const JsonValue& v = arr->array()[i];
        const std::string field = std::string(key) + "[" + std::to_string(i) + "]";
        if (!v.isObject())
            r.fail(v, field, "expected an object {time, machine, kind}");
        MachineEventSpec e;
        const JsonValue* t = v.find("time");
        if (!t || !t->isNumber() || !std::isfinite(t->number()) || t->number() < 0)
            r.fail(t ? *t : v, field + ".time", "expected a time in seconds >= 0");
        e.time = t->number();
        const JsonValue* m = v.find("machine");
        if (m && m->isNumber() && m->number() >= 0 && m->number() == std::floor(m->number()))
            e.machine = std::to_string(int64_t(m->number()));
        else if (m && m->isString() && !m->string().empty())
            e.machine = m->string();
        else
            r.fail(m ? *m : v, field + ".machine", "expected a machine name or index");
        const JsonValue* k = v.find("kind");
        if (!k || !k->isString() || !parseMachineEventKind(k->string(), e.kind))
            r.fail(k ? *k : v, field + ".kind", "expected \"fail\", \"drain\" or \"restore\"");
        out.push_back(std::move(e));
    }
    return out;
}

} // namespace

// ------------------------------------------------------------------------------------------------ scenario

Scenario scenarioFromJson(const std::string& text, const std::string& baseDir, const std::string& file)
{
    const JsonValue root = parseJson(text, file);
    const JsonReader r(file);
    if (!root.isObject())
        r.fail(root, "", "expected a JSON object");
    const JsonValue* fmt = root.find("format");
    if (!fmt || !fmt->isString() || fmt->string() != Scenario::kFormat)
        r.fail(fmt ? *fmt : root, "format", std::string("not a SchedStudio scenario (expected \"") + Scenario::kFormat + "\")");
    const JsonValue* ver = root.find("version");
    if (!ver || !ver->isNumber())
        r.fail(ver ? *ver : root, "version", "missing or not a number");
    if (ver->number() > Scenario::kVersion)
        r.fail(*ver, "version", "file version " + formatNumber(ver->number()) + " is newer than this SchedStudio supports ("
                                    + std::to_string(Scenario::kVersion) + "); update SchedStudio");
    if (ver->number() < 1)
        r.fail(*ver, "version", "invalid version " + formatNumber(ver->number()));

    Scenario s;
    s.name = r.string(root, "name", "");
    s.description = r.string(root, "description", "");
    if (const std::string mode = r.string(root, "mode", "gpu"); mode == "accelerator") {
        // the accelerator part (chip, networks, requests) is read by io/accelio.h (readAccelScenario)
        s.mode = Scenario::Mode::Accelerator;
    } else if (mode != "gpu") {
        r.fail(*root.find("mode"), "mode", "unknown mode '" + mode + "' (expected \"gpu\" or \"accelerator\")");
    }
    if (const JsonValue* tr = root.find("trace"); tr && !tr->isNull()) {
        if (tr->isString()) {
            s.tracePath = absoluteFrom(baseDir, tr->string());
        } else if (tr->isObject()) {
            s.tracePath = absoluteFrom(baseDir, r.string(*tr, "path", ""));
            s.traceFormat = r.string(*tr, "format", "auto");
            if (const JsonValue* cols = tr->find("columns"); cols && !cols->isNull()) {
                if (!cols->isObject())
                    r.fail(*cols, "trace.columns", "expected an object {\"submit\": \"column\", ...}");
                for (const auto& [key, v] : cols->object()) {
                    if (!isColumnMapKey(key))
                        r.fail(v, "trace.columns." + key, "unknown column key (known: submit, gpus, duration, end, start, id, user, vc, model, qos, status, cpu, mem, gpu_spec, iterations, deadline, deadline_values)");
                    if (!v.isString() || v.string().empty())
                        r.fail(v, "trace.columns." + key, "expected a column name");
                    s.traceColumns[key] = v.string();
                }
            }
            s.traceTimeFormat = r.string(*tr, "time_format", "");
        } else {
            r.fail(*tr, "trace", "expected a path or {\"path\": ..., \"format\": ...}");
        }
    }
    if (const JsonValue* cl = root.find("cluster"); cl && !cl->isNull()) {
        if (cl->isString()) {
            s.clusterSource = Scenario::ClusterSource::Preset;
            s.clusterPreset = cl->string();
        } else if (cl->isObject()) {
            if (cl->find("preset")) {
                s.clusterSource = Scenario::ClusterSource::Preset;
                s.clusterPreset = r.string(*cl, "preset");
            } else if (cl->find("file")) {
                s.clusterSource = Scenario::ClusterSource::File;
                s.clusterPath = absoluteFrom(baseDir, r.string(*cl, "file"));
            } else if (const JsonValue* in = cl->find("inline"); in && in->isObject()) {
                s.clusterSource = Scenario::ClusterSource::Inline;
                s.clusterJson = writeJson(*in);
            } else {
                r.fail(*cl, "cluster", "expected one of 'preset', 'file' or 'inline'");
            }
        } else {
            r.fail(*cl, "cluster", "expected a preset name or an object");
        }
    }
    s.perf = r.string(root, "perf", "ideal");
    if (const JsonValue* pf = root.find("perf")) {
        try {
            (void)PerfConfig::parse(s.perf); // a bad performance model is the file's error, not the run's
        } catch (const std::exception& e) {
            r.fail(*pf, "perf", e.what());
        }
    }
    if (const JsonValue* p = root.find("policies")) {
        if (!p->isArray())
            r.fail(*p, "policies", "expected an array of policy names");
        s.policies.clear();
        for (const JsonValue& e : p->array()) {
            if (!e.isString())
                r.fail(e, "policies", "every entry must be a string");
            s.policies.push_back(e.string());
        }
    }
    if (const JsonValue* seed = root.find("seed"))
        s.seed = parseSeed(r, *seed, "seed");
    if (const JsonValue* n = root.find("seeds")) {
        if (!n->isNumber() || n->number() != std::floor(n->number()) || n->number() < 1 || n->number() > 1000)
            r.fail(*n, "seeds", "must be an integer between 1 and 1000");
        s.seeds = int(n->number());
    }
    if (const JsonValue* b = root.find("backfill")) {
        if (!b->isBool())
            r.fail(*b, "backfill", "expected true or false");
        s.backfill = b->boolean();
    }
    s.params = readParams(r, root, "params");
    s.checkpoint = absoluteFrom(baseDir, r.string(root, "checkpoint", ""));
    s.throughputs = absoluteFrom(baseDir, r.string(root, "throughputs", ""));
    for (const MachineEventSpec& e : readMachineEvents(r, root, "events"))
        s.events.push_back({e.time, e.machine, toString(e.kind)});
    for (const JsonValue& v : r.array(root, "variants", false)) {
        if (!v.isObject())
            r.fail(v, "variants", "every variant must be an object");
        ScenarioVariant var;
        var.name = r.string(v, "name");
        var.loadScale = r.number(v, "load_scale", 1.0);
        if (!(var.loadScale > 0) || !std::isfinite(var.loadScale))
            r.fail(v, "variants.load_scale", "must be a positive number");
        var.cluster = r.string(v, "cluster", "");
        if (!var.cluster.empty() && var.cluster.find('/') != std::string::npos)
            var.cluster = absoluteFrom(baseDir, var.cluster);
        s.variants.push_back(std::move(var));
    }
    return s;
}

JsonValue scenarioToJson(const Scenario& s, const std::string& baseDir)
{
    JsonValue o = JsonValue::makeObject();
    o["format"] = str(Scenario::kFormat);
    o["version"] = num(Scenario::kVersion);
    o["name"] = str(s.name);
    if (!s.description.empty())
        o["description"] = str(s.description);
    JsonValue trace = JsonValue::makeObject();
    trace["path"] = str(relativeTo(baseDir, s.tracePath));
    trace["format"] = str(s.traceFormat);
    if (!s.traceColumns.empty()) {
        JsonValue cols = JsonValue::makeObject();
        for (const auto& [k, c] : s.traceColumns)
            cols[k] = str(c);
        trace["columns"] = std::move(cols);
    }
    if (!s.traceTimeFormat.empty())
        trace["time_format"] = str(s.traceTimeFormat);
    o["trace"] = std::move(trace);
    JsonValue cluster = JsonValue::makeObject();
    switch (s.clusterSource) {
    case Scenario::ClusterSource::Preset: cluster["preset"] = str(s.clusterPreset); break;
    case Scenario::ClusterSource::File: cluster["file"] = str(relativeTo(baseDir, s.clusterPath)); break;
    case Scenario::ClusterSource::Inline: cluster["inline"] = parseJson(s.clusterJson, "(inline cluster)"); break;
    }
    o["cluster"] = std::move(cluster);
    o["perf"] = str(s.perf);
    JsonValue pol = JsonValue::makeArray();
    for (const std::string& p : s.policies)
        pol.push(str(p));
    o["policies"] = std::move(pol);
    o["seed"] = str(std::to_string(s.seed)); // a string: JSON numbers lose 64-bit integers
    o["seeds"] = num(s.seeds);
    o["backfill"] = JsonValue::makeBool(s.backfill);
    if (!s.params.empty())
        o["params"] = paramsJson(s.params);
    if (!s.checkpoint.empty())
        o["checkpoint"] = str(relativeTo(baseDir, s.checkpoint));
    if (!s.throughputs.empty())
        o["throughputs"] = str(relativeTo(baseDir, s.throughputs));
    if (!s.variants.empty()) {
        JsonValue vars = JsonValue::makeArray();
        for (const ScenarioVariant& v : s.variants) {
            JsonValue e = JsonValue::makeObject();
            e["name"] = str(v.name);
            e["load_scale"] = num(v.loadScale);
            if (!v.cluster.empty())
                e["cluster"] = str(v.cluster.find('/') != std::string::npos ? relativeTo(baseDir, v.cluster) : v.cluster);
            vars.push(std::move(e));
        }
        o["variants"] = std::move(vars);
    }
    if (!s.events.empty()) {
        JsonValue ev = JsonValue::makeArray();
        for (const ScenarioEvent& e : s.events) {
            JsonValue x = JsonValue::makeObject();
            x["time"] = num(e.time);
            x["machine"] = str(e.machine);
            x["kind"] = str(e.kind);
            ev.push(std::move(x));
        }
        o["events"] = std::move(ev);
    }
    return o;
}

Scenario readScenario(const std::string& path)
{
    std::error_code ec;
    const std::string base = fs::absolute(path, ec).parent_path().string();
    Scenario s = scenarioFromJson(io::readWholeFile(path), base, path);
    s.path = fs::absolute(path, ec).string();
    return s;
}

void writeScenario(const Scenario& s, const std::string& path)
{
    std::error_code ec;
    const std::string base = fs::absolute(path, ec).parent_path().string();
    const std::string text = writeJson(scenarioToJson(s, base), 4);
    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f || !(f << text) || !f.flush())
            throw IoError(path, 0, "", "cannot write");
    }
    fs::rename(tmp, path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw IoError(path, 0, "", "cannot write: " + ec.message());
    }
}

// ------------------------------------------------------------------------------------------------ run config

JsonValue runSpecToJson(const RunSpec& spec)
{
    JsonValue o = JsonValue::makeObject();
    o["format"] = str("schedstudio-run");
    o["version"] = num(1);
    o["id"] = str(spec.id());
    o["software_version"] = str(spec.version);
    o["policy"] = str(spec.policy);
    o["params"] = paramsJson(spec.options.params);
    o["backfill"] = JsonValue::makeBool(spec.options.backfill);
    JsonValue ck = JsonValue::makeObject();
    ck["option"] = str(spec.options.checkpoint);
    ck["file"] = str(spec.checkpointFile);
    ck["sha256"] = str(spec.checkpointHash);
    o["checkpoint"] = std::move(ck);
    o["seed"] = seedJson(spec.config.seed);
    o["perf"] = str(spec.config.perf.toString());
    o["max_time"] = num(spec.config.maxTime); // null = no limit
    JsonValue tr = JsonValue::makeObject();
    tr["name"] = str(spec.traceName);
    tr["fingerprint"] = str(spec.traceFingerprint);
    tr["source"] = str(spec.traceSource);
    o["trace"] = std::move(tr);
    JsonValue cl = JsonValue::makeObject();
    cl["name"] = str(spec.clusterName);
    cl["fingerprint"] = str(spec.clusterFingerprint);
    cl["source"] = str(spec.clusterSource);
    o["cluster"] = std::move(cl);
    o["throughputs_fingerprint"] = str(spec.throughputsFingerprint);
    if (!spec.fork.empty())
        o["fork"] = str(spec.fork); // a what-if fork of another run (run/fork.h)
    if (!spec.machineEvents.empty()) {
        JsonValue ev = JsonValue::makeArray();
        for (const MachineEventSpec& e : spec.machineEvents) {
            JsonValue x = JsonValue::makeObject();
            x["time"] = num(e.time);
            x["machine"] = str(e.machine);
            x["kind"] = str(toString(e.kind));
            ev.push(std::move(x));
        }
        o["machine_events"] = std::move(ev);
    }
    return o;
}

std::string runConfigJson(const RunSpec& spec) { return writeJson(runSpecToJson(spec), -1); }

RunSpec runSpecFromJson(const std::string& text, const std::string& file)
{
    const JsonValue root = parseJson(text, file);
    const JsonReader r(file);
    if (!root.isObject() || r.string(root, "format", "") != "schedstudio-run")
        r.fail(root, "format", "not a SchedStudio run config (expected \"schedstudio-run\")");
    if (r.number(root, "version") > 1)
        r.fail(root, "version", "run config version is newer than this SchedStudio supports");
    RunSpec s;
    s.version = r.string(root, "software_version");
    s.policy = r.string(root, "policy");
    s.options.params = readParams(r, root, "params");
    const JsonValue& bf = r.member(root, "backfill");
    if (!bf.isBool())
        r.fail(bf, "backfill", "expected true or false");
    s.options.backfill = bf.boolean();
    const JsonValue& ck = r.member(root, "checkpoint");
    s.options.checkpoint = r.string(ck, "option", "");
    s.checkpointFile = r.string(ck, "file", "");
    s.checkpointHash = r.string(ck, "sha256", "");
    s.config.seed = parseSeed(r, r.member(root, "seed"), "seed");
    try {
        s.config.perf = PerfConfig::parse(r.string(root, "perf"));
    } catch (const std::exception& e) {
        r.fail(r.member(root, "perf"), "perf", e.what());
    }
    const JsonValue* mt = root.find("max_time");
    s.config.maxTime = mt && mt->isNumber() ? mt->number() : kInf;
    const JsonValue& tr = r.member(root, "trace");
    s.traceName = r.string(tr, "name", "");
    s.traceFingerprint = r.string(tr, "fingerprint", "");
    s.traceSource = r.string(tr, "source", "");
    const JsonValue& cl = r.member(root, "cluster");
    s.clusterName = r.string(cl, "name", "");
    s.clusterFingerprint = r.string(cl, "fingerprint", "");
    s.clusterSource = r.string(cl, "source", "");
    s.throughputsFingerprint = r.string(root, "throughputs_fingerprint", "");
    s.fork = r.string(root, "fork", "");
    s.machineEvents = readMachineEvents(r, root, "machine_events");
    const std::string id = r.string(root, "id", "");
    if (!id.empty() && id != s.id())
        r.fail(root, "id", "does not match the config (the file was edited or is damaged)");
    return s;
}

// ------------------------------------------------------------------------------------------------ summary

std::string summaryJson(const RunOutput& o, int indent)
{
    const Summary& s = o.summary;
    JsonValue j = JsonValue::makeObject();
    j["policy"] = str(o.policy);
    j["seed"] = seedJson(o.seed);
    j["run_id"] = str(o.spec.id());
    j["cluster"] = str(o.clusterName);
    j["cluster_fingerprint"] = str(o.clusterFingerprint);
    j["trace"] = str(o.traceName);
    j["trace_fingerprint"] = str(o.traceFingerprint);
    j["perf"] = str(o.perf);
    j["backfill"] = JsonValue::makeBool(o.spec.options.backfill);
    if (!o.spec.options.params.empty())
        j["params"] = paramsJson(o.spec.options.params);
    if (!o.spec.checkpointFile.empty())
        j["checkpoint"] = str(o.spec.checkpointFile);
    j["jobs"] = num(s.jobs);
    j["finished"] = num(s.finished);
    j["unfinished"] = num(s.unfinished);
    j["rejected"] = num(s.rejected);
    j["mean_jct_min"] = num(s.meanJctMin);
    j["median_jct_min"] = num(s.medianJctMin);
    j["p95_jct_min"] = num(s.p95JctMin);
    j["p99_jct_min"] = num(s.p99JctMin);
    j["mean_queue_min"] = num(s.meanQueueMin);
    j["mean_fee_usd"] = num(s.meanFeeUsd);
    j["total_fee_usd"] = num(s.totalFeeUsd);
    j["makespan_h"] = num(s.makespanH);
    j["utilization"] = num(s.utilization);
    j["deadline_jobs"] = num(s.deadlineJobs);
    j["deadline_miss_rate"] = num(s.deadlineMissRate);
    j["weighted_miss_rate"] = num(s.weightedMissRate);
    j["best_effort_jobs"] = num(s.bestEffortJobs);
    j["best_effort_mean_jct_min"] = num(s.bestEffortMeanJctMin);
    if (!s.policyStats.empty()) {
        JsonValue ps = JsonValue::makeObject();
        for (const auto& [k, v] : s.policyStats)
            ps[k] = num(v);
        j["policy_stats"] = std::move(ps);
    }
    j["jain_fairness"] = num(s.jainFairness);
    j["preemptions"] = num(s.preemptions);
    j["events"] = num(double(s.events));
    j["decisions"] = num(double(s.decisions));
    if (o.cancelled)
        j["cancelled"] = JsonValue::makeBool(true);
    std::string out = writeJson(j, indent);
    if (!out.empty() && out.back() == '\n')
        out.pop_back();
    return out;
}

// ------------------------------------------------------------------------------------------------ plan

ExperimentPlan planScenario(const Scenario& s, std::shared_ptr<const ThroughputTable> table)
{
    if (s.mode == Scenario::Mode::Accelerator)
        throw IoError(s.path.empty() ? s.name : s.path, 0, "mode",
                      "an accelerator scenario: run it with schedstudio-cli run/compare --scenario (docs/ACCELERATOR.md)");
    if (s.tracePath.empty())
        throw IoError(s.name.empty() ? "scenario" : s.name, 0, "trace", "the scenario names no trace");
    if (s.policies.empty())
        throw IoError(s.name.empty() ? "scenario" : s.name, 0, "policies", "the scenario names no policy");
    TraceReadOptions ro;
    ro.format = s.traceFormat.empty() ? "auto" : s.traceFormat;
    ro.columnMap = s.traceColumns;
    ro.timeFormat = s.traceTimeFormat;
    if (!table && !s.throughputs.empty()) // the scenario's own table, unless the caller gave one
        table = std::make_shared<const ThroughputTable>(readThroughputTable(s.throughputs));
    ro.throughputs = s.throughputs;
    auto trace = std::make_shared<Trace>(readTrace(s.tracePath, ro));
    auto loadCluster = [](const std::string& ref) {
        ClusterSpec c = readCluster(ref);
        c.finalize();
        const std::string bad = c.validate();
        if (!bad.empty())
            throw IoError(ref, 0, "", "invalid cluster: " + bad);
        return std::make_shared<ClusterSpec>(std::move(c));
    };
    std::shared_ptr<ClusterSpec> cluster;
    if (s.clusterSource == Scenario::ClusterSource::Inline) {
        ClusterSpec c = clusterFromJson(s.clusterJson, s.name + " (inline cluster)");
        c.finalize();
        cluster = std::make_shared<ClusterSpec>(std::move(c));
    } else {
        cluster = loadCluster(s.clusterRef());
    }
    std::vector<RunInputs> inputs;
    const std::string clusterSource = s.clusterSource == Scenario::ClusterSource::Inline ? "inline" : s.clusterRef();
    inputs.push_back({"", trace, cluster, table, s.tracePath, clusterSource});
    for (const ScenarioVariant& v : s.variants) {
        RunInputs in{v.name, trace, cluster, table, s.tracePath, clusterSource};
        if (v.loadScale != 1) {
            auto scaled = std::make_shared<Trace>(*trace);
            TraceTransform t;
            t.loadScale = v.loadScale;
            applyTransforms(*scaled, t);
            in.trace = scaled;
        }
        if (!v.cluster.empty()) {
            in.cluster = loadCluster(v.cluster);
            in.clusterSource = v.cluster;
        }
        inputs.push_back(std::move(in));
    }
    RunSpec base;
    base.options.backfill = s.backfill;
    base.options.params = s.params;
    base.options.checkpoint = s.checkpoint;
    base.config.perf = PerfConfig::parse(s.perf);
    for (size_t i = 0; i < s.events.size(); ++i) {
        const ScenarioEvent& e = s.events[i];
        MachineEventSpec m;
        m.time = e.time;
        m.machine = e.machine;
        const std::string field = "events[" + std::to_string(i) + "]";
        if (!parseMachineEventKind(e.kind, m.kind))
            throw IoError(s.name.empty() ? "scenario" : s.name, 0, field + ".kind", "expected fail, drain or restore, got '" + e.kind + "'");
        for (const RunInputs& in : inputs)
            if (resolveEventMachine(*in.cluster, e.machine) < 0)
                throw IoError(s.name.empty() ? "scenario" : s.name, 0, field + ".machine",
                              "no machine '" + e.machine + "' in cluster " + in.cluster->name);
        base.machineEvents.push_back(std::move(m));
    }
    return expandPlan(std::move(inputs), s.policies, s.seedList(), base);
}

} // namespace ss
