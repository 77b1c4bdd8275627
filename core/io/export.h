#pragma once
// Exporters of run results: per-job CSV, summary JSON/CSV, time series CSV and the schedule as Chrome
// trace-event JSON (opens in Perfetto / chrome://tracing). Every export names the seed and the policy
// (a leading "# ..." comment line in CSV files, fields in JSON files) so a result can be reproduced.
#include <ostream>
#include <string>
#include <vector>

#include "io/json.h"
#include "model/clusterspec.h"
#include "run/runner.h"

namespace ss {

/// One stretch of time a job held one GPU (or a share of it), from start to preemption or completion.
struct JobSegment {
    int job = 0;          ///< job index (JobRecord::index)
    int gpu = -1;         ///< global GPU index; -1 when unknown (no decision log)
    int milli = 1000;     ///< share of the GPU held
    double start = 0, end = 0;
    enum class End : uint8_t { Finished, Preempted, Open } how = End::Finished;
};

/// Segments of the schedule: from the decision log (starts, preemptions, completions) when present,
/// else one segment per job that ran (JobRecord start..end, gpu = -1). Sorted by (gpu, start, job).
std::vector<JobSegment> scheduleSegments(const RunOutput& out);

/// "policy=P; seed=S; perf=...; cluster=...; trace=..." for export headers.
std::string provenanceLine(const RunOutput& out);

/// Per-job results: a "# SchedStudio ..." provenance line, then a header row and one row per job.
void writeJobsCsv(const RunOutput& out, std::ostream& os);
/// One JSON object: provenance fields plus "summary" with every Summary field (NaN -> null).
JsonValue summaryToJson(const RunOutput& out);
void writeSummaryJson(const RunOutput& out, std::ostream& os);
/// One row per run (several runs -> one CSV), with policy, seed, perf, cluster and trace as columns.
void writeSummaryCsv(const std::vector<const RunOutput*>& runs, std::ostream& os);
/// The time series: provenance line, header, one row per sample.
void writeSeriesCsv(const RunOutput& out, std::ostream& os);
/// Chrome trace-event JSON: one process per machine ("pid"), one thread per GPU ("tid"), an "X" event
/// per job segment; jobs sharing a GPU get extra lanes so events on one track never overlap. `cluster`
/// (optional) names machines and maps GPUs to machines; without it every GPU is a thread of one process.
/// Without a decision log, jobs are packed into lanes of a "jobs" process (no GPU is known).
void writeChromeTrace(const RunOutput& out, const ClusterSpec* cluster, std::ostream& os);

/// File variants: throw IoError(path, ...) when the file cannot be written.
void writeJobsCsv(const RunOutput& out, const std::string& path);
void writeSummaryJson(const RunOutput& out, const std::string& path);
void writeSummaryCsv(const std::vector<const RunOutput*>& runs, const std::string& path);
void writeSeriesCsv(const RunOutput& out, const std::string& path);
void writeChromeTrace(const RunOutput& out, const ClusterSpec* cluster, const std::string& path);

} // namespace ss
