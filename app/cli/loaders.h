#pragma once
// Shared option handling for commands that take a trace and a cluster (run, compare, sweep, inspect...).
#include "cli.h"
#include "io/traceio.h"
#include "io/transforms.h"

namespace ss::cli {

/// Reads --trace FILE with --format, --map, --time-format, --skip-bad-rows and the transforms
/// (--first N, --window A:B, --sample N[:SEED], --load-scale X, --filter-vc V, --filter-gpus A:B, ...).
/// Prints what was skipped to stderr when `verbose`. Throws IoError / UsageError.
/// `raw`, when given, receives the trace as read, before the transforms (for commands that cut it again).
Trace loadTraceFromArgs(Args& args, bool verbose = false, const std::string& key = "trace", Trace* raw = nullptr);
/// The reading options alone (--format, --map, --time-format, --skip-bad-rows, --keep-failed, --throughputs for Gavel durations).
TraceReadOptions traceReadOptionsFromArgs(Args& args);
/// The transform options alone (--first, --window, --sample, --load-scale, --filter-vc, --filter-qos, --filter-gpus).
TraceTransform traceTransformFromArgs(Args& args);
/// One line per skip reason, for stderr ("  skipped 12 rows: zero GPUs").
std::string describeReport(const TraceReadReport& report);
/// Reads --cluster PRESET|FILE.
ClusterSpec loadClusterFromArgs(Args& args, const std::string& key = "cluster");
/// Reads --throughputs FILE (Gavel JSON) when given; empty table otherwise.
ThroughputTable loadThroughputsFromArgs(Args& args);

} // namespace ss::cli
