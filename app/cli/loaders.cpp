#include "loaders.h"

#include <cstdio>
#include <stdexcept>

namespace ss::cli {

TraceReadOptions traceReadOptionsFromArgs(Args& args)
{
    TraceReadOptions o;
    o.format = args.get("format", "auto");
    const std::string map = args.get("map");
    for (const auto& item : splitList(map)) {
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            throw UsageError("--map: expected key=column, found '" + item + "'");
        o.columnMap[item.substr(0, eq)] = item.substr(eq + 1);
    }
    o.timeFormat = args.get("time-format");
    o.skipBadRows = args.flag("skip-bad-rows");
    o.keepFailed = args.flag("keep-failed");
    o.throughputs = args.get("throughputs");
    return o;
}

TraceTransform traceTransformFromArgs(Args& args)
{
    TraceTransform t;
    try {
        t.first = args.getInt("first", 0);
        if (t.first < 0)
            throw UsageError("--first must be >= 0");
        if (args.has("window")) {
            const auto [a, b] = TraceTransform::parseRange(args.get("window"));
            t.windowStart = a;
            t.windowEnd = b;
        }
        if (args.has("sample")) {
            const std::string s = args.get("sample");
            const size_t c = s.find(':');
            t.sample = std::stol(s.substr(0, c));
            if (c != std::string::npos)
                t.sampleSeed = std::stoull(s.substr(c + 1));
            if (t.sample <= 0)
                throw UsageError("--sample must be > 0");
        }
        t.loadScale = args.getDouble("load-scale", 1.0);
        if (!(t.loadScale > 0))
            throw UsageError("--load-scale must be > 0");
        for (const auto& v : args.getAll("filter-vc"))
            for (const auto& x : splitList(v))
                t.vcs.push_back(x);
        for (const auto& v : args.getAll("filter-qos"))
            for (const auto& x : splitList(v))
                t.qos.push_back(x);
        if (args.has("filter-gpus")) {
            const std::string g = args.get("filter-gpus");
            const size_t c = g.find(':');
            if (c == std::string::npos) {
                t.minGpus = t.maxGpus = std::stod(g);
            } else {
                t.minGpus = c ? std::stod(g.substr(0, c)) : 0;
                t.maxGpus = c + 1 < g.size() ? std::stod(g.substr(c + 1)) : 0;
            }
        }
    } catch (const UsageError&) {
        throw;
    } catch (const std::exception& e) {
        throw UsageError(std::string("bad transform option: ") + e.what());
    }
    return t;
}

std::string describeReport(const TraceReadReport& r)
{
    std::string s = "read " + std::to_string(r.jobs) + " jobs (" + r.format + ") from " + std::to_string(r.rows) + " rows";
    for (const auto& [why, n] : r.skippedByReason)
        s += "\n  skipped " + std::to_string(n) + ": " + why;
    return s;
}

Trace loadTraceFromArgs(Args& args, bool verbose, const std::string& key, Trace* raw)
{
    const std::string path = args.require(key);
    const TraceReadOptions o = traceReadOptionsFromArgs(args);
    const TraceTransform t = traceTransformFromArgs(args);
    TraceReadReport report;
    Trace trace = readTrace(path, o, &report);
    if (raw)
        *raw = trace;
    if (!t.identity())
        applyTransforms(trace, t, &report);
    if (verbose)
        std::fprintf(stderr, "%s\n", describeReport(report).c_str());
    if (trace.jobs.empty())
        throw IoError(path, 0, "", "no jobs left after reading" + std::string(t.identity() ? "" : " and the transforms"));
    return trace;
}

ClusterSpec loadClusterFromArgs(Args& args, const std::string& key)
{
    return readCluster(args.require(key));
}

ThroughputTable loadThroughputsFromArgs(Args& args)
{
    const std::string p = args.get("throughputs");
    if (p.empty())
        return {};
    return readThroughputTable(p);
}

} // namespace ss::cli
