#pragma once
// Runs and scenarios as files: the scenario reader/writer (*.scenario.json), the config JSON stored with
// every run (a complete RunSpec, read back to rerun it exactly), the summary JSON of `run --json`, and
// scenario -> experiment plan (reading the trace and cluster it names). All through io/json.
#include <string>

#include "io/json.h"
#include "run/plan.h"
#include "run/runner.h"
#include "run/scenario.h"

namespace ss {

/// Throws IoError naming the file, line and field (bad JSON, wrong format, newer version, bad field).
/// Paths in the file are relative to it; the result holds absolute ones.
Scenario readScenario(const std::string& path);
/// Parses scenario JSON text; `baseDir` resolves relative paths ("" keeps them as written).
Scenario scenarioFromJson(const std::string& text, const std::string& baseDir, const std::string& fileForErrors);
JsonValue scenarioToJson(const Scenario& s, const std::string& baseDir);
/// Writes atomically (temporary file + rename). Throws IoError.
void writeScenario(const Scenario& s, const std::string& path);

/// The config stored with a run: every RunSpec field that decides it, plus its sources and id.
JsonValue runSpecToJson(const RunSpec& spec);
std::string runConfigJson(const RunSpec& spec); ///< compact one-line form of runSpecToJson
/// Reads a stored config back. Throws IoError(fileForErrors, line, field, reason) when it is not one.
RunSpec runSpecFromJson(const std::string& text, const std::string& fileForErrors);

/// The summary as one JSON object (keys: policy, seed, run_id, jobs, mean_jct_min, p95_jct_min,
/// mean_fee_usd, makespan_h, utilization, ...). indent < 0: one line.
std::string summaryJson(const RunOutput& out, int indent = -1);

/// Reads the scenario's trace and cluster (and each variant's) and expands policies x seeds into a plan.
/// `table` (optional) is the per-model speed table every run uses. Throws IoError / std::invalid_argument.
ExperimentPlan planScenario(const Scenario& s, std::shared_ptr<const ThroughputTable> table = {});

} // namespace ss
