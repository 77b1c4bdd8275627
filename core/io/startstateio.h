#pragma once
// Reader of cluster start states (`run --start-state FILE`, docs/FORMATS.md "Start state"): CSV or JSON,
// checked against the cluster (unknown machines, more GPUs than the machines have, machines over-booked by
// the state's own jobs), every error naming the file, the line and the field.
#include <string>

#include "model/clusterspec.h"
#include "run/forkstart.h"

namespace ss {

/// Throws IoError(file, line, field, reason).
StartState readStartState(const std::string& path, const ClusterSpec& cluster);
/// The same from text (`file` names it in errors).
StartState startStateFromText(const std::string& text, const std::string& file, const ClusterSpec& cluster);

} // namespace ss
