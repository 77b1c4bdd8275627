#pragma once
// Teaching mode: turns one decision record into plain words — who went first and why (priority scores),
// where each job went and why (affinity scores), what could not be placed. Pure function of the log.
#include <QString>

#include "model/clusterspec.h"
#include "model/job.h"
#include "sim/decisionlog.h"

namespace ss::ui {

/// HTML explanation of record `k` of `log` (policy name for the wording). Empty log gives a hint to run.
QString explainDecision(const DecisionLog& log, int k, const Trace& trace, const ClusterSpec& cluster,
                        const QString& policy);

} // namespace ss::ui
