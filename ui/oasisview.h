#pragma once
// OASiS (policy `oasis`) in the studio: its admission decisions in plain words (the stepper's admission list and
// teaching mode) and its GPU price map (the heatmaps). The policy records the payoff breakdown and the schedule in
// each admission reason ("utility U - worker cost W - PS cost P = payoff M; admitted, completes slot T; schedule:
// ...") and the worker servers' GPU prices in the decision's AllocationRecord (policy/oasis/oasispolicy.h).
#include <QString>
#include <QStringList>

#include "heatmapview.h"
#include "model/job.h"
#include "sim/decisionlog.h"

namespace ss::ui {

/// Whether a run's decision records carry OASiS prices in their AllocationRecord.
bool isOasisPolicy(const QString& policy);

/// The parts of an OASiS admission reason; ok = false when `reason` is not one.
struct OasisAdmission {
    bool ok = false;
    double utility = 0, workerCost = 0, psCost = 0, payoff = 0;
    bool admitted = false;
    QString schedule; ///< "4 workers, 1 PS in slots 10-13 on m0, m3" (empty: none)
};
OasisAdmission parseOasisAdmission(const std::string& reason);

/// One line per admission verdict at decision `r` (job by trace id, verdict, reason), accepted jobs first.
QStringList admissionLines(const DecisionRecord& r, const Trace& trace);

/// "job 12: utility 3.1 − worker cost 1.2 − PS cost 0.4 = payoff 1.5 > 0, admitted; its schedule: ..." (plain
/// text); the reason as given when it is not an OASiS payoff.
QString oasisAdmissionSentence(const AdmissionRecord& a, const Trace& trace);

/// Teaching mode's section for an OASiS decision: how the admission works, then each job's sentence (HTML).
QString explainOasisAdmissions(const DecisionRecord& r, const Trace& trace);

/// The GPU price map of decision `r`: worker servers (rows, machine names) x slots (columns), log10 p_h^gpu(t) (the
/// prices are exponential in the reserved share, so their logarithm is linear in it and spans L..U readably).
HeatmapData oasisPriceMatrix(const DecisionRecord& r, const QStringList& machineNames);

} // namespace ss::ui
