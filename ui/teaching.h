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

/// "job 7 gets 60 % on V100 and 40 % on P100 of its time" for row `row` of a round-based policy's allocation.
QString allocationSentence(const AllocationRecord& a, size_t row, const Trace& trace);
/// The allocation X of a decision in plain words (the first rows), as HTML.
QString explainAllocation(const AllocationRecord& a, const Trace& trace);

} // namespace ss::ui
