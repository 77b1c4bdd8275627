#include "teaching.h"

#include "chronusview.h"
#include "dasview.h"
#include "oasisview.h"

#include <QObject>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <set>

namespace ss::ui {

static QString jobName(const Trace& t, int j)
{
    if (j < 0 || size_t(j) >= t.jobs.size())
        return QStringLiteral("job #%1").arg(j);
    const Job& job = t.jobs[size_t(j)];
    QString s = QStringLiteral("<b>job %1</b>").arg(job.id);
    if (job.model >= 0 && size_t(job.model) < t.models.size())
        s += QStringLiteral(" (%1)").arg(QString::fromStdString(t.models[size_t(job.model)]).toHtmlEscaped());
    return s;
}

static QString jobList(const Trace& t, const std::vector<int>& jobs, int max = 6)
{
    QStringList parts;
    for (size_t i = 0; i < jobs.size() && int(i) < max; ++i)
        parts << jobName(t, jobs[i]);
    if (int(jobs.size()) > max)
        parts << QStringLiteral("%1 more").arg(int(jobs.size()) - max);
    return parts.join(QStringLiteral(", "));
}

static QString machineName(const ClusterSpec& c, int m)
{
    if (m < 0 || m >= c.machineCount())
        return QStringLiteral("machine %1").arg(m);
    return QStringLiteral("<b>%1</b>").arg(QString::fromStdString(c.machines[size_t(m)].name).toHtmlEscaped());
}

static QString score(float v)
{
    return QString::number(double(v), 'g', 4);
}

QString allocationSentence(const AllocationRecord& a, size_t row, const Trace& trace)
{
    std::vector<std::pair<float, size_t>> parts;
    for (size_t t = 0; t < a.types.size(); ++t)
        if (a.at(row, t) >= 0.005f)
            parts.push_back({a.at(row, t), t});
    std::stable_sort(parts.begin(), parts.end(), [](auto x, auto y) { return x.first > y.first; });
    QStringList shares;
    for (auto& [v, t] : parts)
        shares << (shares.isEmpty() ? QObject::tr("%1 % of its time on %2") : QObject::tr("%1 % on %2"))
                      .arg(std::lround(100.0 * double(v)))
                      .arg(QString::fromStdString(a.types[t]).toHtmlEscaped());
    const QString s = jobName(trace, a.jobs[row]);
    if (shares.isEmpty())
        return QObject::tr("%1 gets no time on any GPU type").arg(s);
    if (shares.size() == 1)
        return QObject::tr("%1 gets %2").arg(s, shares.front());
    const QString last = shares.takeLast();
    return QObject::tr("%1 gets %2 and %3").arg(s, shares.join(QStringLiteral(", ")), last);
}

QString explainAllocation(const AllocationRecord& a, const Trace& trace)
{
    QString h = QObject::tr("<h4>Allocation — how the time of each GPU type is shared</h4><p>The policy solved a linear "
                            "program for the <i>allocation X</i>: the fraction of wall-clock time each job should spend on "
                            "each GPU type. Each round, a job's priority on a type is its share in X divided by the share "
                            "it has received so far, so over many rounds every job gets close to X.</p><ul>");
    const size_t show = std::min<size_t>(a.jobs.size(), 6);
    for (size_t i = 0; i < show; ++i) {
        h += QStringLiteral("<li>") + allocationSentence(a, i, trace);
        if (i < a.estimated.size() && a.estimated[i])
            h += QObject::tr(" (its throughputs are estimated, not measured)");
        h += QStringLiteral(".</li>");
    }
    h += QStringLiteral("</ul>");
    if (a.jobs.size() > show)
        h += QObject::tr("<p>…and %1 more job(s): see the allocation heatmap.</p>").arg(int(a.jobs.size() - show));
    return h;
}

QString explainDecision(const DecisionLog& log, int k, const Trace& trace, const ClusterSpec& cluster,
                        const QString& policy)
{
    if (log.records.empty())
        return QObject::tr("<p>Run the scenario first: teaching mode walks through the decisions of a run.</p>");
    k = std::clamp(k, 0, int(log.records.size()) - 1);
    const DecisionRecord& r = log.records[size_t(k)];
    QString h;
    h += QStringLiteral("<h3>Decision %1 of %2 — t = %3 min</h3>")
             .arg(k + 1).arg(log.records.size()).arg(r.time / 60.0, 0, 'f', 1);
    h += QStringLiteral("<p>Policy: <b>%1</b>.</p>").arg(policy.toHtmlEscaped());

    // What triggered the decision.
    QStringList what;
    if (!r.arrived.empty())
        what << QObject::tr("%1 arrived").arg(jobList(trace, r.arrived));
    if (!r.finished.empty()) {
        double freed = 0;
        for (int j : r.finished)
            if (j >= 0 && size_t(j) < trace.jobs.size())
                freed += trace.jobs[size_t(j)].wholeGpus();
        what << QObject::tr("%1 finished and freed %2 GPU(s)").arg(jobList(trace, r.finished)).arg(freed);
    }
    if (!r.preempted.empty())
        what << QObject::tr("%1 were preempted (stopped and put back in the queue)").arg(jobList(trace, r.preempted));
    h += QStringLiteral("<p><b>What happened:</b> %1.</p>")
             .arg(what.isEmpty() ? QObject::tr("a scheduled wake-up (no arrival or completion)") : what.join(QStringLiteral("; ")));

    // OASiS: the admission test of the jobs that arrived (its prices ride in the allocation record).
    const bool oasis = isOasisPolicy(policy);
    if (oasis)
        h += explainOasisAdmissions(r, trace);
    // Chronus: the lease boundary's plan (it rides in the allocation record) and the admission verdicts.
    const bool chronus = isChronusPolicy(policy);
    if (chronus)
        h += explainChronusDecision(log, k, trace);

    // Ordering.
    h += QStringLiteral("<h4>1. Ordering — who goes first</h4>");
    if (r.queue.empty()) {
        h += QObject::tr("<p>The queue was empty: nothing to order.</p>");
    } else {
        h += QObject::tr("<p>%1 job(s) were waiting. The policy gave each a <i>priority score</i> and sorted "
                         "them, highest first:</p><ol>").arg(r.queueLength);
        const size_t show = std::min<size_t>(r.queue.size(), 6);
        for (size_t i = 0; i < show; ++i) {
            const ScoredJob& s = r.queue[i];
            QString line = QStringLiteral("<li>%1 — priority %2").arg(jobName(trace, s.job), score(s.priority));
            if (!std::isnan(s.priorityStd))
                line += QObject::tr(" (± %1: the model's uncertainty)").arg(score(s.priorityStd));
            if (s.job >= 0 && size_t(s.job) < trace.jobs.size())
                line += QObject::tr(", needs %1 GPU(s)").arg(trace.jobs[size_t(s.job)].gpus);
            h += line + QStringLiteral("</li>");
        }
        h += QStringLiteral("</ol>");
        if (r.queue.size() > show)
            h += QObject::tr("<p>…and %1 more.</p>").arg(int(r.queue.size() - show));
        const ScoredJob& first = r.queue.front();
        if (r.queue.size() >= 2) {
            const ScoredJob& second = r.queue[1];
            if (first.priority == second.priority)
                h += QObject::tr("<p>%1 is first: its score ties with %2, so queue order (who came first) broke "
                                 "the tie.</p>").arg(jobName(trace, first.job), jobName(trace, second.job));
            else
                h += QObject::tr("<p>%1 is first because its priority %2 is higher than the next job's (%3).</p>")
                         .arg(jobName(trace, first.job), score(first.priority), score(second.priority));
        } else {
            h += QObject::tr("<p>%1 is the only job waiting.</p>").arg(jobName(trace, first.job));
        }
    }

    // Round-based policies (Gavel): the allocation X behind the priorities.
    if (!r.allocation.empty() && !oasis && !chronus)
        h += explainAllocation(r.allocation, trace);

    // Placement.
    h += QStringLiteral("<h4>2. Placement — which machines</h4>");
    if (r.placements.empty())
        h += QObject::tr("<p>No placement was attempted at this decision.</p>");
    for (const PlacementRecord& p : r.placements) {
        if (p.slots.empty()) {
            h += QObject::tr("<p>%1 could not be placed%2: it keeps waiting.</p>")
                     .arg(jobName(trace, p.job),
                          p.reason.empty() ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(p.reason).toHtmlEscaped()));
            continue;
        }
        std::set<int> machines;
        for (const GpuSlot& s : p.slots)
            if (s.gpu >= 0 && s.gpu < cluster.totalGpus())
                machines.insert(cluster.machineOfGpu(s.gpu));
        QStringList ms;
        for (int m : machines)
            ms << machineName(cluster, m);
        h += QObject::tr("<p>%1 got %2 GPU(s) on %3.").arg(jobName(trace, p.job)).arg(p.slots.size()).arg(ms.join(QStringLiteral(", ")));
        // Affinity: best-scoring machines vs the chosen one.
        std::vector<std::pair<float, int>> scored;
        for (size_t i = 0; i < p.affinity.size(); ++i) {
            const int m = p.machineOf(i);
            if (!std::isnan(p.affinity[i]))
                scored.push_back({p.affinity[i], m});
        }
        if (!scored.empty()) {
            std::stable_sort(scored.begin(), scored.end(), [](auto a, auto b) { return a.first > b.first; });
            const int chosen = machines.empty() ? -1 : *machines.begin();
            float chosenScore = kNoScore;
            for (auto& [v, m] : scored)
                if (m == chosen)
                    chosenScore = v;
            const bool tiedTop = !std::isnan(chosenScore) && chosenScore == scored.front().first;
            if (tiedTop) {
                int ties = 0;
                for (auto& sm : scored)
                    ties += sm.first == chosenScore;
                h += ties > 1 ? QObject::tr(" Its <i>affinity</i> %1 is the highest, shared with %2 other machine(s); "
                                            "the lowest-numbered one was taken.").arg(score(chosenScore)).arg(ties - 1)
                              : QObject::tr(" Its <i>affinity</i> %1 is the highest of all machines.").arg(score(chosenScore));
            } else if (!std::isnan(chosenScore)) {
                h += QObject::tr(" Its affinity was %1 while %2 scored %3 — the best-scoring machine could not "
                                 "hold the whole job, so it went elsewhere.")
                         .arg(score(chosenScore), machineName(cluster, scored.front().second), score(scored.front().first));
            }
            QStringList top;
            for (size_t i = 0; i < scored.size() && i < 3; ++i)
                top << QStringLiteral("%1 = %2").arg(machineName(cluster, scored[i].second), score(scored[i].first));
            h += QObject::tr(" Top affinities: %1.").arg(top.join(QStringLiteral(", ")));
            if (!p.affinityVar.empty())
                h += QObject::tr(" The learned model also reports how unsure it is (variance), shown as faded cells in the heatmap.");
        }
        if (!p.reason.empty())
            h += QObject::tr(" Reason given by the policy: <i>%1</i>.").arg(QString::fromStdString(p.reason).toHtmlEscaped());
        h += QStringLiteral("</p>");
    }
    h += explainDasDecision(r, trace, cluster); // DAS: the gate δ and the RWGP posterior ("" otherwise)
    return h;
}

} // namespace ss::ui
