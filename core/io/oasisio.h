#pragma once
// OASiS scenarios (core/model/oasisjob.h) as JSON files: format "schedstudio-oasis", version 1. Reading checks
// the structure (IoError naming file, line and field) and then the model (validateScenario: the job id and field
// in the reason, the job's line in the file).
#include <string>

#include "io/json.h"
#include "model/oasisjob.h"
#include "policy/oasis/oasissim.h"

namespace ss::oasis {

JsonValue scenarioToJson(const OasisScenario& sc);
OasisScenario scenarioFromJson(const JsonValue& v, const std::string& fileForErrors);
OasisScenario readScenario(const std::string& path);
void writeScenario(const OasisScenario& sc, const std::string& path);

/// A run's figures, and with `decisions` every admission with its payoff breakdown.
JsonValue runToJson(const OasisScenario& sc, const OasisRun& run, bool decisions);

} // namespace ss::oasis
