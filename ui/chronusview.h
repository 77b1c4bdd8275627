#pragma once
// Chronus (policy `chronus`) in the studio: its admission verdicts in plain words (the stepper's admission list and
// teaching mode), the lease plan of each boundary as a jobs x leases heatmap, and in the Gantt the lease boundaries,
// guaranteed vs opportunistic GPU time and a deadline mark per level. The policy records the verdict and its reason
// in each AdmissionRecord ("accepted SLO: ...", "accepted with a later deadline: ...", "unaccepted SLO: ...") and the
// plan in force after each boundary in the decision's AllocationRecord (policy/chronus/chronus.h, kPlanLeasePrefix).
#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

#include "ganttview.h"
#include "heatmapview.h"
#include "model/job.h"
#include "runentry.h"
#include "sim/decisionlog.h"

namespace ss::ui {

/// Whether a run's decision records carry Chronus's lease plans in their AllocationRecord.
bool isChronusPolicy(const QString& policy);
/// The run's lease length L in seconds (param chronus.lease, minutes; 20 by default).
double chronusLeaseSeconds(const RunOutput& out);

enum class ChronusVerdict { Accepted, AcceptedLater, Unaccepted, BestEffort, Other };
/// The verdict an admission reason states (Chronus accepts every job into the engine: unaccepted SLO jobs still run,
/// without guarantees, so the engine's verdict is always "accept").
ChronusVerdict chronusVerdict(const AdmissionRecord& a);

/// The lease K whose boundary recorded r's plan (types[0] = "lease K"); -1 when r carries no Chronus plan.
int64_t chronusPlanLease(const DecisionRecord& r);
/// The last decision at or before k that recorded a plan; -1 when none.
int chronusPlanDecision(const DecisionLog& log, int k);
/// The plan's deadline level for row i (1-based, 0 = none) and whether the job kept its cached plan out of the MILP.
int chronusPlanLevel(const AllocationRecord& a, size_t row);
bool chronusPlanKept(const AllocationRecord& a, size_t row);
/// Jobs of the plan that hold the boundary's own lease: they run guaranteed in it.
std::vector<int> chronusGuaranteedJobs(const AllocationRecord& a);

/// "lease 3 boundary: MILP optimal (5 jobs, 120 binaries) · 5 accepted SLO jobs hold plans, 2 guaranteed in lease 3";
/// empty when r recorded no plan.
QString chronusPlanSummary(const DecisionRecord& r);
/// The stepper's list at decision r: the boundary's plan summary (if any), then each SLO admission ("job 12 accepted
/// SLO: 2 leases of 4 GPUs by lease 5 ..."), accepted first, then unaccepted; best-effort arrivals in one line.
QStringList chronusStepperLines(const DecisionRecord& r, const Trace& trace);
/// " · admission: 2 accepted, 1 with a later deadline, 1 unaccepted, 3 best-effort" (empty without admissions).
QString chronusAdmissionSummary(const DecisionRecord& r);

/// The plan of decision r: accepted SLO jobs (rows, "job <id> · <g>g · L<level>": its rounded-up GPUs and the deadline
/// level the plan meets; '*' = cached plan kept out of the MILP) x leases (columns): 1 = the job holds the lease (runs
/// guaranteed in it), 0 = not. (Binary: GPU counts from 1 to 64 on one colour scale would hide the small jobs.)
HeatmapData chronusPlanMatrix(const DecisionRecord& r, const Trace* trace);

/// Teaching mode's section for a Chronus decision (HTML): at a lease boundary, how the plan was made and who runs
/// guaranteed vs opportunistically; inside a lease, what happens there; then the admission verdicts.
QString explainChronusDecision(const DecisionLog& log, int k, const Trace& trace);

/// Splits the segments of `d` where a job's lease status changes and marks the opportunistic parts (style 1): a job
/// runs guaranteed in lease K when the plan recorded at K's boundary gives it GPUs in K.
void styleChronusSegments(GanttData& d, const DecisionLog& log, double leaseSec);
/// One mark per deadline level of every SLO job that ran: at submit + offset; red when the job ended after it, hollow
/// for the later (soft) levels.
std::vector<GanttMark> chronusDeadlineMarks(const Trace& trace, const std::vector<JobRecord>& jobs);
/// Shows a Chronus run in `view` with its lease lines, styles and deadline marks and returns true; any other run:
/// clears those overlays and returns false (the caller shows it as usual).
bool showChronusGantt(GanttView* view, const RunEntry& run, GanttRowMode mode);

} // namespace ss::ui
