#include "run/forkdiff.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace ss {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool differs(double x, double y) { return std::abs(x - y) > 1e-9 * std::max(1.0, std::abs(x)); }

std::vector<std::pair<int, std::vector<GpuSlot>>> starts(const DecisionRecord& r)
{
    std::vector<std::pair<int, std::vector<GpuSlot>>> s;
    for (const PlacementRecord& p : r.placements)
        if (!p.slots.empty())
            s.push_back({p.job, p.slots});
    return s;
}

std::string jobs(const std::vector<int>& v)
{
    std::string s;
    for (int j : v)
        s += (s.empty() ? "" : ",") + std::to_string(j);
    return "[" + s + "]";
}
} // namespace

double JobDelta::jctDelta() const
{
    return jctA >= 0 && jctB >= 0 ? jctB - jctA : kNaN;
}

uint64_t firstDivergence(const DecisionLog& a, const DecisionLog& b, double* time, std::string* what)
{
    const size_t n = std::min(a.records.size(), b.records.size());
    auto say = [&](size_t i, double t, std::string w) {
        if (time)
            *time = t;
        if (what)
            *what = std::move(w);
        return uint64_t(i + 1);
    };
    for (size_t i = 0; i < n; ++i) {
        const DecisionRecord& x = a.records[i];
        const DecisionRecord& y = b.records[i];
        if (x.time != y.time)
            return say(i, std::min(x.time, y.time), "decision time " + std::to_string(x.time) + " vs " + std::to_string(y.time));
        if (x.arrived != y.arrived)
            return say(i, x.time, "arrivals (job indices) " + jobs(x.arrived) + " vs " + jobs(y.arrived));
        if (x.finished != y.finished)
            return say(i, x.time, "completions (job indices) " + jobs(x.finished) + " vs " + jobs(y.finished));
        if (x.preempted != y.preempted)
            return say(i, x.time, "preemptions (job indices) " + jobs(x.preempted) + " vs " + jobs(y.preempted));
        const auto sx = starts(x), sy = starts(y);
        if (sx != sy) {
            std::vector<int> jx, jy;
            for (const auto& p : sx)
                jx.push_back(p.first);
            for (const auto& p : sy)
                jy.push_back(p.first);
            return say(i, x.time, jx == jy ? "same jobs started " + jobs(jx) + " on other GPUs"
                                            : "jobs started (indices) " + jobs(jx) + " vs " + jobs(jy));
        }
    }
    if (a.records.size() != b.records.size()) {
        const double t = n < a.records.size() ? a.records[n].time : b.records[n].time;
        return say(n, t, "one run has " + std::to_string(a.records.size()) + " decisions, the other "
                             + std::to_string(b.records.size()));
    }
    return 0;
}

RunDiff diffRuns(const RunOutput& a, const RunOutput& b)
{
    RunDiff d;
    d.seedA = a.seed;
    d.seedB = b.seed;
    d.policyA = a.policy;
    d.policyB = b.policy;
    std::unordered_map<int64_t, size_t> inB;
    inB.reserve(b.jobs.size());
    for (size_t i = 0; i < b.jobs.size(); ++i)
        inB.emplace(b.jobs[i].id, i);
    std::vector<char> matched(b.jobs.size(), 0);
    auto fillA = [](JobDelta& j, const JobRecord& r) {
        j.indexA = r.index;
        j.startA = r.start;
        j.endA = r.end;
        j.jctA = r.status == JobStatus::Done ? r.jct : -1;
        j.feeA = r.fee;
        j.statusA = r.status;
    };
    auto fillB = [](JobDelta& j, const JobRecord& r) {
        j.indexB = r.index;
        j.startB = r.start;
        j.endB = r.end;
        j.jctB = r.status == JobStatus::Done ? r.jct : -1;
        j.feeB = r.fee;
        j.statusB = r.status;
    };
    for (const JobRecord& ra : a.jobs) {
        JobDelta j;
        j.id = ra.id;
        j.submit = ra.submit;
        fillA(j, ra);
        if (auto it = inB.find(ra.id); it != inB.end()) {
            matched[it->second] = 1;
            fillB(j, b.jobs[it->second]);
            j.moved = differs(j.startA, j.startB) || differs(j.endA, j.endB) || j.statusA != j.statusB;
        } else {
            ++d.onlyA;
        }
        d.jobs.push_back(j);
    }
    for (size_t i = 0; i < b.jobs.size(); ++i)
        if (!matched[i]) {
            JobDelta j;
            j.id = b.jobs[i].id;
            j.submit = b.jobs[i].submit;
            fillB(j, b.jobs[i]);
            ++d.onlyB;
            d.jobs.push_back(j);
        }
    for (const JobDelta& j : d.jobs)
        if (j.moved) {
            ++d.moved;
            double t = kNaN;
            if (differs(j.startA, j.startB))
                t = std::min(j.startA < 0 ? kInf : j.startA, j.startB < 0 ? kInf : j.startB);
            else
                t = std::min(j.endA < 0 ? kInf : j.endA, j.endB < 0 ? kInf : j.endB);
            if (std::isfinite(t) && (d.firstMoveTime < 0 || t < d.firstMoveTime))
                d.firstMoveTime = t;
        }
    const Summary& x = a.summary;
    const Summary& y = b.summary;
    d.metrics = {
        {"finished", double(x.finished), double(y.finished)},
        {"unfinished", double(x.unfinished), double(y.unfinished)},
        {"rejected", double(x.rejected), double(y.rejected)},
        {"mean_jct_min", x.meanJctMin, y.meanJctMin},
        {"median_jct_min", x.medianJctMin, y.medianJctMin},
        {"p95_jct_min", x.p95JctMin, y.p95JctMin},
        {"p99_jct_min", x.p99JctMin, y.p99JctMin},
        {"mean_queue_min", x.meanQueueMin, y.meanQueueMin},
        {"mean_fee_usd", x.meanFeeUsd, y.meanFeeUsd},
        {"total_fee_usd", x.totalFeeUsd, y.totalFeeUsd},
        {"makespan_h", x.makespanH, y.makespanH},
        {"utilization", x.utilization, y.utilization},
        {"deadline_miss_rate", x.deadlineMissRate, y.deadlineMissRate},
        {"jain_fairness", x.jainFairness, y.jainFairness},
        {"preemptions", double(x.preemptions), double(y.preemptions)},
        {"decisions", double(x.decisions), double(y.decisions)},
    };
    if (a.log && b.log) {
        d.logsCompared = true;
        d.firstDivergence = firstDivergence(*a.log, *b.log, &d.divergenceTime, &d.divergenceWhat);
    }
    return d;
}

std::vector<size_t> sortedDeltas(const RunDiff& d, DeltaSort by)
{
    std::vector<size_t> idx(d.jobs.size());
    for (size_t i = 0; i < idx.size(); ++i)
        idx[i] = i;
    auto key = [&](size_t i) { return by == DeltaSort::Jct ? d.jobs[i].jctDelta() : d.jobs[i].feeDelta(); };
    std::stable_sort(idx.begin(), idx.end(), [&](size_t p, size_t q) {
        if (by == DeltaSort::Id)
            return d.jobs[p].id < d.jobs[q].id;
        const double a = key(p), b = key(q);
        if (std::isnan(a) || std::isnan(b))
            return !std::isnan(a) && std::isnan(b);
        return a < b;
    });
    return idx;
}

} // namespace ss
