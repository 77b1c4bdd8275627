#include "chronusview.h"

#include <QObject>

#include <algorithm>
#include <cmath>

#include "policy/chronus/chronus.h"

namespace ss::ui {

bool isChronusPolicy(const QString& policy)
{
    return policy == QStringLiteral("chronus");
}

double chronusLeaseSeconds(const RunOutput& out)
{
    const double minutes = out.spec.options.paramD("chronus.lease", 20);
    return (minutes > 0 ? minutes : 20) * 60.0;
}

ChronusVerdict chronusVerdict(const AdmissionRecord& a)
{
    const std::string& s = a.reason;
    auto starts = [&s](const char* p) { return s.rfind(p, 0) == 0; };
    if (starts("accepted SLO"))
        return ChronusVerdict::Accepted;
    if (starts("accepted with a later deadline"))
        return ChronusVerdict::AcceptedLater;
    if (starts("unaccepted SLO"))
        return ChronusVerdict::Unaccepted;
    if (starts("best-effort"))
        return ChronusVerdict::BestEffort;
    return ChronusVerdict::Other;
}

int64_t chronusPlanLease(const DecisionRecord& r)
{
    const AllocationRecord& a = r.allocation;
    if (a.empty() || a.types.empty())
        return -1;
    const std::string& t = a.types.front();
    const std::string prefix = chronus::kPlanLeasePrefix;
    if (t.rfind(prefix, 0) != 0)
        return -1;
    try {
        return std::stoll(t.substr(prefix.size()));
    } catch (const std::exception&) {
        return -1;
    }
}

int chronusPlanDecision(const DecisionLog& log, int k)
{
    for (int at = std::min(k, int(log.records.size()) - 1); at >= 0; --at)
        if (chronusPlanLease(log.records[size_t(at)]) >= 0)
            return at;
    return -1;
}

int chronusPlanLevel(const AllocationRecord& a, size_t row)
{
    return row < a.estimated.size() ? int(a.estimated[row] & uint8_t(~chronus::kPlanKeptFlag)) : 0;
}

bool chronusPlanKept(const AllocationRecord& a, size_t row)
{
    return row < a.estimated.size() && (a.estimated[row] & chronus::kPlanKeptFlag) != 0;
}

std::vector<int> chronusGuaranteedJobs(const AllocationRecord& a)
{
    std::vector<int> out;
    if (a.types.empty())
        return out;
    for (size_t i = 0; i < a.jobs.size(); ++i)
        if (a.at(i, 0) > 0)
            out.push_back(a.jobs[i]);
    return out;
}

static QString traceId(const Trace& trace, int j)
{
    return j >= 0 && size_t(j) < trace.jobs.size() ? QString::number(trace.jobs[size_t(j)].id) : QStringLiteral("#%1").arg(j);
}

QString chronusPlanSummary(const DecisionRecord& r)
{
    const int64_t k = chronusPlanLease(r);
    if (k < 0)
        return {};
    const AllocationRecord& a = r.allocation;
    const int held = int(chronusGuaranteedJobs(a).size());
    return QObject::tr("lease %1 boundary: %2 · %3 accepted SLO job(s) hold plans, %4 guaranteed in lease %1")
        .arg(k)
        .arg(QString::fromStdString(a.note))
        .arg(a.jobs.size())
        .arg(held);
}

QStringList chronusStepperLines(const DecisionRecord& r, const Trace& trace)
{
    QStringList lines;
    if (const QString plan = chronusPlanSummary(r); !plan.isEmpty())
        lines << plan;
    static const ChronusVerdict order[] = {ChronusVerdict::Accepted, ChronusVerdict::AcceptedLater, ChronusVerdict::Unaccepted,
                                           ChronusVerdict::Other};
    static const char* kindName[] = {"accepted SLO", "accepted with a later deadline", "unaccepted SLO", "best-effort", "other"};
    auto idList = [&trace](const std::vector<const AdmissionRecord*>& v, size_t from) {
        QStringList ids;
        for (size_t i = from; i < v.size() && ids.size() < 10; ++i)
            ids << traceId(trace, v[i]->job);
        if (v.size() - from > 10)
            ids << QStringLiteral("…");
        return ids.join(QStringLiteral(", "));
    };
    std::vector<const AdmissionRecord*> by[5];
    for (const AdmissionRecord& a : r.admissions)
        by[int(chronusVerdict(a))].push_back(&a);
    const size_t slo = by[0].size() + by[1].size() + by[2].size() + by[4].size();
    // every verdict with its reason while they fit the stepper's eight lines; else one example of each kind and the
    // rest by job id, so that later-deadline and unaccepted verdicts are never crowded out by plain acceptances
    const bool all = size_t(lines.size()) + slo + (by[3].empty() ? 0 : 1) <= 8;
    for (ChronusVerdict v : order) {
        const auto& list = by[int(v)];
        for (size_t i = 0; i < list.size() && (all || i < 1); ++i)
            lines << QObject::tr("job %1 %2").arg(traceId(trace, list[i]->job), QString::fromStdString(list[i]->reason));
        if (!all && list.size() > 1)
            lines << QObject::tr("   … and %1 more %2: jobs %3").arg(list.size() - 1).arg(QString::fromUtf8(kindName[int(v)]), idList(list, 1));
    }
    if (!by[3].empty())
        lines << QObject::tr("best-effort (no deadline, served on leftover GPUs, shortest remaining GPU-time first): %1 %2")
                     .arg(by[3].size() == 1 ? QObject::tr("job") : QObject::tr("jobs"), idList(by[3], 0));
    return lines;
}

QString chronusAdmissionSummary(const DecisionRecord& r)
{
    if (r.admissions.empty())
        return {};
    int n[5] = {0, 0, 0, 0, 0};
    for (const AdmissionRecord& a : r.admissions)
        ++n[int(chronusVerdict(a))];
    QStringList parts;
    if (n[0])
        parts << QObject::tr("%1 accepted").arg(n[0]);
    if (n[1])
        parts << QObject::tr("%1 with a later deadline").arg(n[1]);
    if (n[2])
        parts << QObject::tr("%1 unaccepted").arg(n[2]);
    if (n[3])
        parts << QObject::tr("%1 best-effort").arg(n[3]);
    if (n[4])
        parts << QObject::tr("%1 other").arg(n[4]);
    return QObject::tr(" · admission: %1").arg(parts.join(QStringLiteral(", ")));
}

HeatmapData chronusPlanMatrix(const DecisionRecord& r, const Trace* trace)
{
    HeatmapData d;
    if (chronusPlanLease(r) < 0)
        return d;
    const AllocationRecord& a = r.allocation;
    d.rows = int(a.jobs.size());
    d.cols = int(a.types.size());
    d.values.reserve(a.share.size());
    for (float v : a.share)
        d.values.push_back(v > 0 ? 1.0f : 0.0f);
    for (size_t i = 0; i < a.jobs.size(); ++i) {
        const int j = a.jobs[i];
        QString label = trace ? QObject::tr("job %1").arg(traceId(*trace, j)) : QStringLiteral("j%1").arg(j);
        float g = 0;
        for (size_t c = 0; c < a.types.size(); ++c)
            g = std::max(g, a.at(i, c));
        if (g > 0)
            label += QStringLiteral(" · %1g").arg(double(g));
        if (const int lv = chronusPlanLevel(a, i); lv > 0)
            label += QStringLiteral(" · L%1").arg(lv);
        if (chronusPlanKept(a, i))
            label += QLatin1Char('*');
        d.rowLabels << label;
        d.rowJobs.push_back(j);
    }
    for (const std::string& t : a.types)
        d.colLabels << QString::fromStdString(t);
    return d;
}

// "leases 3–5, 8" from a plan row's non-zero columns
static QString leaseRanges(const AllocationRecord& a, size_t row, int64_t k)
{
    QStringList parts;
    int n = 0;
    for (size_t c = 0; c < a.types.size();) {
        if (!(a.at(row, c) > 0)) {
            ++c;
            continue;
        }
        size_t e = c;
        while (e + 1 < a.types.size() && a.at(row, e + 1) > 0)
            ++e;
        parts << (e == c ? QString::number(k + int64_t(c)) : QStringLiteral("%1–%2").arg(k + int64_t(c)).arg(k + int64_t(e)));
        n += int(e - c + 1);
        c = e + 1;
    }
    return (n == 1 ? QObject::tr("lease %1") : QObject::tr("leases %1")).arg(parts.join(QStringLiteral(", ")));
}

QString explainChronusDecision(const DecisionLog& log, int k, const Trace& trace)
{
    if (k < 0 || k >= int(log.records.size()))
        return {};
    const DecisionRecord& r = log.records[size_t(k)];
    QString h;
    const int64_t lease = chronusPlanLease(r);
    if (lease >= 0) {
        const AllocationRecord& a = r.allocation;
        const std::vector<int> now = chronusGuaranteedJobs(a);
        h += QObject::tr(
                 "<h4>0. Lease boundary — Chronus plans lease %1 and after</h4><p>Chronus cuts time into <i>leases</i> of "
                 "equal length. At every boundary it re-plans all accepted SLO jobs together: a mixed-integer program "
                 "(COIN-OR CBC) picks, for each job, one of its deadline levels and the leases it will hold before that "
                 "deadline, so that no lease promises more GPUs than the cluster has and the value of the deadlines met "
                 "is as high as possible (a greedy selector stands in when the solver fails). This time: <b>%2</b>.</p>")
                 .arg(lease)
                 .arg(QString::fromStdString(a.note).toHtmlEscaped());
        h += QObject::tr("<p>%1 accepted job(s) hold plans (the plan heatmap shows them, jobs × leases); %2 hold lease %3 "
                         "and run <i>guaranteed</i> in it:</p><ul>")
                 .arg(a.jobs.size())
                 .arg(now.size())
                 .arg(lease);
        size_t shown = 0;
        for (size_t i = 0; i < a.jobs.size() && shown < 5; ++i) {
            if (!(a.at(i, 0) > 0))
                continue;
            ++shown;
            const int j = a.jobs[i];
            QString line = QObject::tr("job %1 gets %2 GPU(s) in %3").arg(traceId(trace, j)).arg(a.at(i, 0)).arg(leaseRanges(a, i, lease));
            if (const int lv = chronusPlanLevel(a, i); lv > 0 && j >= 0 && size_t(j) < trace.jobs.size()
                && size_t(lv - 1) < trace.jobs[size_t(j)].deadlines.size()) {
                const DeadlineLevel& d = trace.jobs[size_t(j)].deadlines[size_t(lv - 1)];
                line += QObject::tr(", which meets its deadline level %1 (%2 min after submission, value %3)")
                            .arg(lv)
                            .arg(d.offset / 60.0, 0, 'f', 0)
                            .arg(d.value, 0, 'g', 3);
            }
            h += QStringLiteral("<li>%1.</li>").arg(line.toHtmlEscaped());
        }
        h += QStringLiteral("</ul>");
        if (now.size() > shown)
            h += QObject::tr("<p>…and %1 more.</p>").arg(int(now.size() - shown));
        h += QObject::tr("<p>Accepted jobs planned for later leases wait (or borrow leftover GPUs). Everything else — "
                         "best-effort jobs and SLO jobs that could not be accepted — runs <i>opportunistically</i> on the "
                         "GPUs the guarantees leave free, shortest remaining GPU-time first, and may be preempted at the "
                         "next boundary. In the Gantt, dashed lines are lease boundaries and hatched bars opportunistic "
                         "time.</p>");
    } else {
        const int at = chronusPlanDecision(log, k);
        if (at >= 0)
            h += QObject::tr("<h4>0. Inside lease %1</h4><p>The plan of lease %1 was made at decision %2. Between "
                             "boundaries Chronus preempts nothing: GPUs freed by finished jobs go to waiting jobs "
                             "opportunistically (jobs that overran their estimate first, then by shortest remaining "
                             "GPU-time).</p>")
                     .arg(chronusPlanLease(log.records[size_t(at)]))
                     .arg(at + 1);
    }
    QString adm;
    int listed = 0;
    for (const QString& line : chronusStepperLines(r, trace)) {
        if (line.startsWith(QStringLiteral("lease ")))
            continue; // the plan summary: said above
        if (listed++ < 6)
            adm += QStringLiteral("<li>%1.</li>").arg(line.toHtmlEscaped());
    }
    if (listed > 0) {
        h += QObject::tr("<h4>Admission — does the job fit on the leases?</h4><p>An arriving SLO job asks for its estimated "
                         "number of leases at its (rounded-up) GPU count before its first deadline, taking the latest "
                         "free leases; if they do not fit, a binary search tries later deadlines up to its loosest "
                         "level; if none fits it is <i>unaccepted</i> and runs without a guarantee.</p><ul>")
             + adm + QStringLiteral("</ul>");
        if (listed > 6)
            h += QObject::tr("<p>…and %1 more: see the stepper's admission list.</p>").arg(listed - 6);
    }
    return h;
}

void styleChronusSegments(GanttData& d, const DecisionLog& log, double leaseSec)
{
    if (!(leaseSec > 0))
        return;
    // per job, the leases it held as guaranteed (sorted: plans are recorded in time order)
    std::vector<std::vector<int64_t>> held;
    for (const DecisionRecord& r : log.records) {
        const int64_t k = chronusPlanLease(r);
        if (k < 0)
            continue;
        for (int j : chronusGuaranteedJobs(r.allocation)) {
            if (j < 0)
                continue;
            if (size_t(j) >= held.size())
                held.resize(size_t(j) + 1);
            if (held[size_t(j)].empty() || held[size_t(j)].back() < k)
                held[size_t(j)].push_back(k);
        }
    }
    auto guaranteedIn = [&](int j, int64_t k) {
        if (j < 0 || size_t(j) >= held.size())
            return false;
        const auto& v = held[size_t(j)];
        return std::binary_search(v.begin(), v.end(), k);
    };
    std::vector<GanttSegment> out;
    out.reserve(d.segments.size());
    for (const GanttSegment& s : d.segments) {
        int64_t k = int64_t(std::floor(s.start / leaseSec + 1e-9));
        const int64_t last = std::max(k, int64_t(std::ceil(s.end / leaseSec - 1e-9)) - 1);
        GanttSegment piece = s;
        piece.style = guaranteedIn(s.job, k) ? 0 : 1;
        for (++k; k <= last; ++k) {
            const uint8_t st = guaranteedIn(s.job, k) ? 0 : 1;
            if (st == piece.style)
                continue;
            piece.end = double(k) * leaseSec;
            out.push_back(piece);
            piece.start = piece.end;
            piece.style = st;
        }
        piece.end = s.end;
        out.push_back(piece);
    }
    std::sort(out.begin(), out.end(), [](const GanttSegment& a, const GanttSegment& b) {
        if (a.row != b.row)
            return a.row < b.row;
        if (a.start != b.start)
            return a.start < b.start;
        if (a.end != b.end)
            return a.end < b.end;
        return a.job < b.job;
    });
    d.segments = std::move(out);
}

std::vector<GanttMark> chronusDeadlineMarks(const Trace& trace, const std::vector<JobRecord>& jobs)
{
    std::vector<GanttMark> marks;
    for (const JobRecord& r : jobs) {
        if (r.start < 0 || r.index < 0 || size_t(r.index) >= trace.jobs.size())
            continue;
        const Job& j = trace.jobs[size_t(r.index)];
        for (size_t v = 0; v < j.deadlines.size(); ++v) {
            const double t = j.submit + j.deadlines[v].offset;
            uint8_t f = v > 0 ? GanttMark::kMarkLater : 0;
            if (r.end < 0 || r.end > t + 1e-6)
                f |= GanttMark::kMarkMissed;
            marks.push_back({r.index, t, f});
        }
    }
    return marks;
}

bool showChronusGantt(GanttView* view, const RunEntry& run, GanttRowMode mode)
{
    if (!isChronusPolicy(run.policy()) || !run.out->log || !run.cluster) {
        view->setPeriodLines(0);
        view->setMarks({});
        return false;
    }
    const int i = mode == GanttRowMode::Gpu ? 0 : 1;
    GanttData d = run.gantt[i] ? *run.gantt[i] : buildGpuSegments(*run.out->log, *run.cluster, mode);
    const double L = chronusLeaseSeconds(*run.out);
    styleChronusSegments(d, *run.out->log, L);
    view->setDecisionLog(nullptr, nullptr);
    view->setRowMode(mode);
    view->setData(std::move(d));
    view->setPeriodLines(L);
    view->setMarks(run.trace ? chronusDeadlineMarks(*run.trace, run.out->jobs) : std::vector<GanttMark> {});
    return true;
}

} // namespace ss::ui
