// inspect, convert, bench-io: look at a trace or cluster file, convert it, measure the readers.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli.h"
#include "io/json.h"
#include "io/traceio.h"
#include "io/transforms.h"
#include "loaders.h"
#include "model/rng.h"

namespace ss::cli {
namespace {

std::string fmtNum(double v, int prec = 3)
{
    char b[64];
    std::snprintf(b, sizeof b, "%.*g", prec, v);
    return b;
}

std::string humanSpan(double s)
{
    if (s >= 2 * 86400)
        return fmtNum(s / 86400, 4) + " days";
    if (s >= 2 * 3600)
        return fmtNum(s / 3600, 4) + " h";
    if (s >= 120)
        return fmtNum(s / 60, 4) + " min";
    return fmtNum(s, 4) + " s";
}

double quantile(std::vector<double>& sorted, double q)
{
    if (sorted.empty())
        return 0;
    const double pos = q * double(sorted.size() - 1);
    const size_t i = size_t(pos);
    const double f = pos - double(i);
    return i + 1 < sorted.size() ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[i];
}

/// Peak resident set size in MiB (VmHWM), or -1 where /proc is not available.
double peakRssMiB()
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::atof(line.c_str() + 6) / 1024.0;
    return -1;
}

// The GPU-demand buckets inspect prints.
const std::vector<std::pair<std::string, double>> kBuckets = {
    {"<1", 0.999999}, {"1", 1}, {"2", 2}, {"3-4", 4}, {"5-8", 8}, {"9-16", 16}, {"17-32", 32}, {"33-64", 64}, {">64", 1e300}};

int inspectCluster(const std::string& path, bool json)
{
    std::string fmt;
    const ClusterSpec c = readCluster(path, &fmt);
    std::map<std::string, int> gpusByType;
    for (const auto& m : c.machines)
        gpusByType[c.types[size_t(m.type)].name] += m.gpus;
    if (json) {
        JsonValue o = JsonValue::makeObject();
        o["kind"] = JsonValue::makeString("cluster");
        o["file"] = JsonValue::makeString(path);
        o["format"] = JsonValue::makeString(fmt);
        o["name"] = JsonValue::makeString(c.name);
        o["machines"] = JsonValue::makeNumber(c.machineCount());
        o["gpus"] = JsonValue::makeNumber(c.totalGpus());
        o["switches"] = JsonValue::makeNumber(double(c.switches.size()));
        JsonValue t = JsonValue::makeObject();
        for (const auto& [k, v] : gpusByType)
            t[k] = JsonValue::makeNumber(v);
        o["gpus_by_type"] = std::move(t);
        o["fingerprint"] = JsonValue::makeString(c.fingerprint());
        std::fputs(writeJson(o).c_str(), stdout);
        return 0;
    }
    std::printf("file:      %s\nkind:      cluster\nformat:    %s\nname:      %s\nmachines:  %d\nGPUs:      %d\n"
                "switches:  %zu\nlinks:     %zu\n",
                path.c_str(), fmt.c_str(), c.name.c_str(), c.machineCount(), c.totalGpus(), c.switches.size(),
                c.links.size());
    for (const auto& [k, v] : gpusByType)
        std::printf("  %-10s %d GPUs\n", k.c_str(), v);
    return 0;
}

int cmdInspect(Args& args)
{
    const bool json = args.flag("json");
    const bool asCluster = args.flag("cluster");
    TraceReadOptions o = traceReadOptionsFromArgs(args);
    const TraceTransform t = traceTransformFromArgs(args);
    args.finish();
    if (args.positionals().size() != 1)
        throw UsageError("usage: schedstudio-cli inspect FILE [--format F] [--json] [--cluster] [transforms]");
    const std::string path = args.positionals()[0];
    if (asCluster)
        return inspectCluster(path, json);
    if (o.format == "auto" && o.columnMap.empty() && std::filesystem::is_regular_file(path)
        && detectTraceFormat(path).empty()) {
        // Not a trace we recognise: maybe a cluster file.
        try {
            return inspectCluster(path, json);
        } catch (const IoError&) {
        }
    }
    TraceReadReport rep;
    Trace tr = readTrace(path, o, &rep);
    if (!t.identity())
        applyTransforms(tr, t, &rep);

    std::vector<long> hist(kBuckets.size(), 0);
    std::vector<double> durs;
    durs.reserve(tr.jobs.size());
    const double gpuHours = tr.gpuSeconds() / 3600.0;
    long withDeadline = 0;
    for (const Job& j : tr.jobs) {
        for (size_t b = 0; b < kBuckets.size(); ++b)
            if (j.gpus <= kBuckets[b].second) {
                ++hist[b];
                break;
            }
        durs.push_back(j.duration);
        withDeadline += !j.deadlines.empty();
    }
    std::sort(durs.begin(), durs.end());
    const double qs[] = {0.1, 0.5, 0.9, 0.99};
    if (json) {
        JsonValue out = JsonValue::makeObject();
        out["kind"] = JsonValue::makeString("trace");
        out["file"] = JsonValue::makeString(path);
        out["format"] = JsonValue::makeString(rep.format);
        out["rows"] = JsonValue::makeNumber(double(rep.rows));
        out["jobs"] = JsonValue::makeNumber(double(tr.jobs.size()));
        out["span_s"] = JsonValue::makeNumber(tr.span());
        out["gpu_hours"] = JsonValue::makeNumber(gpuHours);
        out["jobs_with_deadlines"] = JsonValue::makeNumber(double(withDeadline));
        JsonValue h = JsonValue::makeObject();
        for (size_t b = 0; b < kBuckets.size(); ++b)
            h[kBuckets[b].first] = JsonValue::makeNumber(double(hist[b]));
        out["gpu_histogram"] = std::move(h);
        JsonValue d = JsonValue::makeObject();
        d["p10"] = JsonValue::makeNumber(quantile(durs, 0.1));
        d["p50"] = JsonValue::makeNumber(quantile(durs, 0.5));
        d["p90"] = JsonValue::makeNumber(quantile(durs, 0.9));
        d["p99"] = JsonValue::makeNumber(quantile(durs, 0.99));
        d["max"] = JsonValue::makeNumber(durs.empty() ? 0 : durs.back());
        out["duration_s"] = std::move(d);
        JsonValue s = JsonValue::makeObject();
        for (const auto& [k, v] : rep.skippedByReason)
            s[k] = JsonValue::makeNumber(double(v));
        out["skipped"] = std::move(s);
        JsonValue n = JsonValue::makeArray();
        for (const auto& x : tr.notes)
            n.push(JsonValue::makeString(x));
        out["notes"] = std::move(n);
        JsonValue tables = JsonValue::makeObject();
        tables["models"] = JsonValue::makeNumber(double(tr.models.size()));
        tables["users"] = JsonValue::makeNumber(double(tr.users.size()));
        tables["vcs"] = JsonValue::makeNumber(double(tr.vcs.size()));
        tables["qos"] = JsonValue::makeNumber(double(tr.qosClasses.size()));
        tables["gpu_specs"] = JsonValue::makeNumber(double(tr.gpuSpecs.size()));
        out["distinct"] = std::move(tables);
        std::fputs(writeJson(out).c_str(), stdout);
        return 0;
    }
    std::printf("file:      %s\nformat:    %s\nrows:      %ld\njobs:      %zu\nskipped:   %ld\n", path.c_str(),
                rep.format.c_str(), rep.rows, tr.jobs.size(), rep.skipped);
    for (const auto& [k, v] : rep.skippedByReason)
        std::printf("  %-22s %ld\n", k.c_str(), v);
    std::printf("time span: %s (%s s)\nGPU-hours: %s\n", humanSpan(tr.span()).c_str(), fmtNum(tr.span(), 10).c_str(),
                fmtNum(gpuHours, 6).c_str());
    std::printf("distinct:  %zu models, %zu users, %zu VCs, %zu QoS classes, %zu GPU specs; %ld jobs with deadlines\n",
                tr.models.size(), tr.users.size(), tr.vcs.size(), tr.qosClasses.size(), tr.gpuSpecs.size(),
                withDeadline);
    std::printf("GPU demand:\n");
    const double n = std::max<double>(1, double(tr.jobs.size()));
    for (size_t b = 0; b < kBuckets.size(); ++b)
        if (hist[b])
            std::printf("  %-6s %8ld  %5.1f%%\n", kBuckets[b].first.c_str(), hist[b], 100.0 * double(hist[b]) / n);
    std::printf("duration (s):");
    for (double q : qs)
        std::printf(" p%g=%s", q * 100, fmtNum(quantile(durs, q), 5).c_str());
    std::printf(" max=%s\n", fmtNum(durs.empty() ? 0 : durs.back(), 6).c_str());
    if (!tr.notes.empty()) {
        std::printf("notes:\n");
        for (const auto& x : tr.notes)
            std::printf("  %s\n", x.c_str());
    }
    return 0;
}

int cmdConvert(Args& args)
{
    const std::string to = args.get("to", "native");
    const bool asCluster = args.flag("cluster");
    TraceReadOptions o = traceReadOptionsFromArgs(args);
    const TraceTransform t = traceTransformFromArgs(args);
    args.finish();
    if (args.positionals().size() != 2)
        throw UsageError("usage: schedstudio-cli convert IN OUT [--to native|swf] [--format F] [--cluster] [transforms]");
    const std::string in = args.positionals()[0], out = args.positionals()[1];
    if (to != "native" && to != "swf")
        throw UsageError("--to: expected native or swf, found '" + to + "'");
    const bool cluster = asCluster
                         || (o.format == "auto" && o.columnMap.empty()
                             && (!std::filesystem::exists(in) || detectTraceFormat(in).empty()));
    if (cluster) {
        if (to != "native")
            throw UsageError("clusters convert to native JSON only");
        std::string fmt;
        const ClusterSpec c = readCluster(in, &fmt);
        writeClusterJson(c, out);
        std::fprintf(stderr, "wrote cluster %s (%d machines, %d GPUs, from %s) to %s\n", c.name.c_str(),
                     c.machineCount(), c.totalGpus(), fmt.c_str(), out.c_str());
        return 0;
    }
    TraceReadReport rep;
    Trace tr = readTrace(in, o, &rep);
    if (!t.identity())
        applyTransforms(tr, t, &rep);
    if (to == "swf")
        writeSwfTrace(tr, out);
    else
        writeNativeTrace(tr, out);
    std::fprintf(stderr, "%s\nwrote %zu jobs to %s (%s)\n", describeReport(rep).c_str(), tr.jobs.size(), out.c_str(),
                 to.c_str());
    return 0;
}

// Writes `rows` synthetic native rows straight to a file (no Trace held, so RSS measures the reader).
void writeSyntheticNative(const std::string& path, long rows, uint64_t seed)
{
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        throw IoError(path, 0, "", "cannot write");
    Rng rng(seed);
    static const char* models[] = {"resnet50", "vgg16", "bert", "gpt2", "ncf", "deepspeech2", "yolov3", "lstm"};
    static const int gpus[] = {1, 1, 1, 1, 1, 1, 1, 2, 2, 4, 4, 8, 16};
    std::string buf;
    buf.reserve(1 << 20);
    buf += "# schedstudio-trace v1\n# bench-io synthetic rows, seed " + std::to_string(seed) + "\n";
    buf += "id,submit,gpus,duration,model,user,vc,qos,gpu_spec,deadlines,cpu,mem_gb,iterations\n";
    double t = 0;
    char line[256];
    for (long i = 0; i < rows; ++i) {
        t += std::round(-std::log(1 - rng.uniform()) * 30.0);
        const double dur = std::round(60 + std::exp(rng.uniform(0, 10)));
        const int g = gpus[rng.below(13)];
        const int n = std::snprintf(line, sizeof line, "%ld,%.0f,%d,%.0f,%s,u%d,vc%d,,,%s,%d,%d,\n", i, t, g, dur,
                                    models[rng.below(8)], int(rng.below(500)), int(rng.below(12)),
                                    rng.below(10) == 0 ? "3600:10|7200:5" : "", g * 4, g * 16);
        buf.append(line, size_t(n));
        if (buf.size() > (1 << 20) - 512) {
            std::fwrite(buf.data(), 1, buf.size(), f);
            buf.clear();
        }
    }
    std::fwrite(buf.data(), 1, buf.size(), f);
    std::fclose(f);
}

int cmdBenchIo(Args& args)
{
    const long rows = args.getInt("rows", 1000000);
    std::string philly = args.get("philly");
    const bool keep = args.flag("keep");
    args.finish();
    if (rows <= 0)
        throw UsageError("--rows must be > 0");
    if (philly.empty())
        for (const char* c : {"../shared/traces/philly/philly.csv", "/work/shared/traces/philly/philly.csv"})
            if (std::filesystem::exists(c)) {
                philly = c;
                break;
            }
    using clock = std::chrono::steady_clock;
    auto secs = [](clock::time_point a) { return std::chrono::duration<double>(clock::now() - a).count(); };
    std::printf("bench-io: peak RSS before reading %.1f MiB\n", peakRssMiB());
    if (!philly.empty() && std::filesystem::exists(philly)) {
        const auto t0 = clock::now();
        TraceReadReport rep;
        const Trace tr = readTrace(philly, {}, &rep);
        const double s = secs(t0);
        std::printf("philly   %-40s %8ld rows %7.3f s %10.0f rows/s  %zu jobs  peak RSS %.1f MiB\n", philly.c_str(),
                    rep.rows, s, double(rep.rows) / s, tr.jobs.size(), peakRssMiB());
    } else {
        std::printf("philly   (not found; pass --philly PATH)\n");
    }
    char tmpl[] = "/tmp/schedstudio-bench-XXXXXX";
    const char* dir = ::mkdtemp(tmpl);
    if (!dir)
        throw IoError("/tmp", 0, "", "cannot create a temporary directory");
    const std::string path = std::string(dir) + "/synthetic.csv";
    auto t0 = clock::now();
    writeSyntheticNative(path, rows, 1);
    const double genS = secs(t0);
    const auto bytes = std::filesystem::file_size(path);
    t0 = clock::now();
    TraceReadReport rep;
    Trace tr = readTrace(path, {}, &rep);
    const double readS = secs(t0);
    std::printf("native   %-40s %8ld rows %7.3f s %10.0f rows/s  %.1f MB  peak RSS %.1f MiB  (generated in %.2f s)\n",
                path.c_str(), rep.rows, readS, double(rep.rows) / readS, double(bytes) / 1e6, peakRssMiB(), genS);
    const std::string outPath = std::string(dir) + "/written.csv";
    t0 = clock::now();
    writeNativeTrace(tr, outPath);
    const double writeS = secs(t0);
    std::printf("write    %-40s %8zu rows %7.3f s %10.0f rows/s\n", outPath.c_str(), tr.jobs.size(), writeS,
                double(tr.jobs.size()) / writeS);
    std::printf("target: 1M native rows read in < 2 s: %s\n",
                rows >= 1000000 ? (readS * 1e6 / double(rows) < 2.0 ? "met" : "NOT met") : "(fewer rows than 1M)");
    if (!keep) {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    } else {
        std::printf("kept %s\n", dir);
    }
    return 0;
}

CliCommand inspectCmd("inspect", "FILE: format, jobs, span, GPU histogram, durations, skips (--json)", &cmdInspect);
CliCommand convertCmd("convert", "IN OUT [--to native|swf]: convert a trace (or a cluster to native JSON)", &cmdConvert);
CliCommand benchIoCmd("bench-io", "measure trace reading speed and peak memory (--rows N, --philly PATH)", &cmdBenchIo);

} // namespace
} // namespace ss::cli
