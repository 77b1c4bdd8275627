#pragma once
// A decision log as JSON lines (a header line, then one record per line), for people and scripts; strings go
// through the one JSON writer's quoting (io/json.h).
#include <string>

#include "sim/decisionlog.h"

namespace ss {

/// Throws IoError when the file cannot be written.
void writeDecisionLogJsonl(const DecisionLog& log, const std::string& path);

} // namespace ss
