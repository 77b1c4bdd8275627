#include "oasisview.h"

#include <QObject>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace ss::ui {

bool isOasisPolicy(const QString& policy)
{
    return policy == QStringLiteral("oasis");
}

OasisAdmission parseOasisAdmission(const std::string& reason)
{
    static const QRegularExpression head(QStringLiteral(
        "^utility (\\S+) - worker cost (\\S+) - PS cost (\\S+) = payoff (\\S+); (admitted|rejected)"));
    static const QRegularExpression sched(QStringLiteral("; schedule: (.*)$"));
    OasisAdmission a;
    const QString s = QString::fromStdString(reason);
    const QRegularExpressionMatch m = head.match(s);
    if (!m.hasMatch())
        return a;
    bool ok[4] = {};
    a.utility = m.captured(1).toDouble(&ok[0]);
    a.workerCost = m.captured(2).toDouble(&ok[1]);
    a.psCost = m.captured(3).toDouble(&ok[2]);
    a.payoff = m.captured(4).toDouble(&ok[3]);
    a.admitted = m.captured(5) == QStringLiteral("admitted");
    if (const QRegularExpressionMatch sm = sched.match(s); sm.hasMatch())
        a.schedule = sm.captured(1);
    a.ok = ok[0] && ok[1] && ok[2] && ok[3];
    return a;
}

static QString traceId(const Trace& trace, int j)
{
    return j >= 0 && size_t(j) < trace.jobs.size() ? QString::number(trace.jobs[size_t(j)].id) : QStringLiteral("#%1").arg(j);
}

QStringList admissionLines(const DecisionRecord& r, const Trace& trace)
{
    std::vector<const AdmissionRecord*> order;
    for (const AdmissionRecord& a : r.admissions)
        order.push_back(&a);
    std::stable_sort(order.begin(), order.end(), [](const AdmissionRecord* x, const AdmissionRecord* y) {
        return (x->verdict == Admit::Accept) > (y->verdict == Admit::Accept);
    });
    QStringList lines;
    for (const AdmissionRecord* a : order) {
        QString line = QObject::tr("job %1 %2%3")
                           .arg(traceId(trace, a->job), QString::fromUtf8(toString(a->verdict)),
                                a->reason.empty() ? QString() : QStringLiteral(": %1").arg(QString::fromStdString(a->reason)));
        // an admitted OASiS job: where its workers and PSs per slot are drawn (ui/oasisslots.h)
        if (a->verdict == Admit::Accept) {
            const OasisAdmission p = parseOasisAdmission(a->reason);
            if (p.ok && p.admitted && !p.schedule.isEmpty())
                line += QObject::tr(" (per slot: Gantt, OASiS strip row j%1)").arg(traceId(trace, a->job));
        }
        lines << line;
    }
    return lines;
}

static QString num(double v)
{
    return QString::number(v, 'g', 4).replace(QLatin1Char('-'), QChar(0x2212));
}

QString oasisAdmissionSentence(const AdmissionRecord& a, const Trace& trace)
{
    const QString job = QObject::tr("job %1").arg(traceId(trace, a.job));
    const OasisAdmission p = parseOasisAdmission(a.reason);
    if (!p.ok)
        return QObject::tr("%1: %2, %3").arg(job, QString::fromStdString(a.reason), QString::fromUtf8(toString(a.verdict)));
    static const QRegularExpression dash(QStringLiteral("(\\d)-(\\d)"));
    QString sched = p.schedule;
    sched.replace(dash, QStringLiteral("\\1–\\2"));
    if (const int on = sched.lastIndexOf(QStringLiteral(" on ")); on >= 0)
        sched.insert(on + 4, sched.indexOf(QLatin1Char(','), on) < 0 ? QObject::tr("server ") : QObject::tr("servers "));
    QString s = QObject::tr("%1: utility %2 − worker cost %3 − PS cost %4 = payoff %5 %6")
                    .arg(job, num(p.utility), num(p.workerCost), num(p.psCost), num(p.payoff),
                         p.admitted ? QObject::tr("> 0, admitted") : QObject::tr("≤ 0, rejected"));
    if (!sched.isEmpty())
        s += p.admitted ? QObject::tr("; its schedule: %1").arg(sched)
                        : QObject::tr("; its cheapest schedule would have been %1 (nothing reserved)").arg(sched);
    return s;
}

QString explainOasisAdmissions(const DecisionRecord& r, const Trace& trace)
{
    if (r.admissions.empty())
        return {};
    QString h = QObject::tr(
        "<h4>0. Admission — OASiS's primal-dual test</h4><p>Each arriving job is priced: the cheapest schedule of "
        "its workers and parameter servers over the coming slots at the current resource prices (prices grow "
        "exponentially with what earlier admissions reserved). Its <i>payoff</i> is the utility of finishing at "
        "that schedule's completion minus the cost of the workers and PSs. The job is admitted only if the payoff "
        "is positive; its schedule is then reserved and raises the prices (see the price heatmap). The Gantt's "
        "OASiS strip draws each admitted job's reserved workers y(t) and parameter servers z(t) slot by slot (row "
        "j&lt;job&gt;), with the GPUs it really held below them.</p><ul>");
    const size_t show = std::min<size_t>(r.admissions.size(), 6);
    for (size_t i = 0; i < show; ++i)
        h += QStringLiteral("<li>%1.</li>").arg(oasisAdmissionSentence(r.admissions[i], trace).toHtmlEscaped());
    h += QStringLiteral("</ul>");
    if (r.admissions.size() > show)
        h += QObject::tr("<p>…and %1 more job(s): see the stepper's admission list.</p>").arg(int(r.admissions.size() - show));
    return h;
}

HeatmapData oasisPriceMatrix(const DecisionRecord& r, const QStringList& machineNames)
{
    HeatmapData d;
    const AllocationRecord& a = r.allocation;
    d.rows = int(a.jobs.size());
    d.cols = int(a.types.size());
    d.values.assign(size_t(d.rows) * size_t(d.cols), kNoScore);
    for (int i = 0; i < d.rows; ++i) {
        for (int t = 0; t < d.cols; ++t)
            if (const float v = a.at(size_t(i), size_t(t)); v > 0)
                d.values[size_t(i) * size_t(d.cols) + size_t(t)] = std::log10(v);
        const int m = a.jobs[size_t(i)];
        d.rowLabels << (m >= 0 && m < machineNames.size() ? machineNames[m] : QStringLiteral("server %1").arg(m));
    }
    for (const std::string& t : a.types)
        d.colLabels << QString::fromStdString(t);
    return d;
}

} // namespace ss::ui
