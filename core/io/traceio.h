#pragma once
// Reading and writing traces and clusters in the formats of the field. Readers stream, report progress,
// can be cancelled, count what they skip and why, and fail with "file:line: column 'x': reason".
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/clusterspec.h"
#include "model/job.h"
#include "io/ioerror.h"
#include "perf/perfmodel.h"

namespace ss {

struct TraceReadOptions {
    std::string format = "auto";  ///< auto | native | philly | helios | pai2020 | openb | gavel | tiresias | chronus | pollux | swf | csv
    bool skipBadRows = false;     ///< count malformed rows instead of failing on the first
    std::map<std::string, std::string> columnMap; ///< generic CSV: submit=col,gpus=col,duration=col,...
    std::string timeFormat;       ///< generic CSV: "" (seconds), "ms", "min", "h", or a strptime format
    std::function<bool(double)> progress; ///< fraction 0..1; return false to cancel (throws Cancelled)
    bool keepFailed = false;      ///< keep jobs whose status says failed/killed/cancelled (skipped by default)
    std::string throughputs;      ///< Gavel: simulation_throughputs.json ("" = look next to the trace)
};

struct TraceReadReport {
    std::string format;
    long rows = 0;                ///< data rows seen
    long jobs = 0;                ///< jobs kept
    long skipped = 0;
    std::map<std::string, long> skippedByReason; ///< e.g. "zero GPUs", "failed", "malformed row"
    std::vector<std::string> notes;
};

/// Reads a job trace; the result is sorted by submit time with ids kept. Throws IoError / Cancelled.
Trace readTrace(const std::string& path, const TraceReadOptions& opts = {}, TraceReadReport* report = nullptr);
/// Reads a cluster: native JSON, Philly machine list, PAI 2020 machine spec, openb node list, Tiresias spec,
/// Gavel cluster spec. Also accepts a preset name. Throws IoError.
ClusterSpec readCluster(const std::string& pathOrPreset, std::string* formatOut = nullptr);
/// Gavel's simulation_throughputs.json as relative speeds (reference type: the fastest, v100), plus its raw
/// steps/s per (model, scale factor, type) and co-located pairs (ThroughputTable::stepsPerSecond).
ThroughputTable readThroughputTable(const std::string& path);
/// The format readTrace would pick ("" when unknown).
std::string detectTraceFormat(const std::string& path);

/// Cluster formats readCluster understands (for messages and --help).
std::vector<std::string> clusterFormatNames();
/// Trace formats readTrace understands.
std::vector<std::string> traceFormatNames();
/// Writes the jobs as Standard Workload Format (18 fields; GPUs as processors; -1 where unknown).
void writeSwfTrace(const Trace& trace, const std::string& path);

/// Native formats (documented in docs/FORMATS.md).
void writeNativeTrace(const Trace& trace, const std::string& path);
void writeClusterJson(const ClusterSpec& cluster, const std::string& path);
std::string clusterToJson(const ClusterSpec& cluster);
ClusterSpec clusterFromJson(const std::string& text, const std::string& fileNameForErrors);

} // namespace ss
