#include "io/transforms.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "io/textio.h"
#include "model/rng.h"

namespace ss {

bool TraceTransform::identity() const
{
    return vcs.empty() && qos.empty() && minGpus <= 0 && maxGpus <= 0 && windowStart <= 0 && windowEnd < 0
           && first <= 0 && sample <= 0 && loadScale == 1;
}

double TraceTransform::parseDuration(const std::string& text)
{
    std::string t(io::trim(text));
    if (t.empty())
        throw std::invalid_argument("empty duration");
    double mult = 1;
    switch (t.back()) {
    case 's': mult = 1; t.pop_back(); break;
    case 'm': mult = 60; t.pop_back(); break;
    case 'h': mult = 3600; t.pop_back(); break;
    case 'd': mult = 86400; t.pop_back(); break;
    default: break;
    }
    size_t pos = 0;
    double v = 0;
    try {
        v = std::stod(t, &pos);
    } catch (...) {
        throw std::invalid_argument("not a duration: '" + text + "'");
    }
    if (pos != t.size() || !std::isfinite(v))
        throw std::invalid_argument("not a duration: '" + text + "'");
    return v * mult;
}

std::pair<double, double> TraceTransform::parseRange(const std::string& text)
{
    const size_t c = text.find(':');
    if (c == std::string::npos)
        throw std::invalid_argument("expected A:B, found '" + text + "'");
    const std::string a = text.substr(0, c), b = text.substr(c + 1);
    const double lo = io::trim(a).empty() ? 0 : parseDuration(a);
    const double hi = io::trim(b).empty() ? -1 : parseDuration(b);
    if (hi >= 0 && hi <= lo)
        throw std::invalid_argument("empty range '" + text + "'");
    return {lo, hi};
}

void applyTransforms(Trace& trace, const TraceTransform& t, TraceReadReport* report)
{
    auto count = [&](const std::string& why, size_t n) {
        if (!n)
            return;
        if (report) {
            report->skipped += long(n);
            report->skippedByReason[why] += long(n);
        }
        trace.notes.push_back(why + ": removed " + std::to_string(n) + " jobs");
    };
    auto keepIf = [&](const std::string& why, auto pred) {
        const size_t before = trace.jobs.size();
        trace.jobs.erase(std::remove_if(trace.jobs.begin(), trace.jobs.end(), [&](const Job& j) { return !pred(j); }),
                         trace.jobs.end());
        count(why, before - trace.jobs.size());
    };
    auto inSet = [](const std::vector<std::string>& table, const std::vector<std::string>& wanted) {
        std::vector<char> ok(table.size(), 0);
        for (size_t i = 0; i < table.size(); ++i)
            ok[i] = std::find(wanted.begin(), wanted.end(), table[i]) != wanted.end();
        return ok;
    };
    if (!t.vcs.empty()) {
        const auto ok = inSet(trace.vcs, t.vcs);
        keepIf("filtered: vc", [&](const Job& j) { return j.vc >= 0 && ok[size_t(j.vc)]; });
    }
    if (!t.qos.empty()) {
        const auto ok = inSet(trace.qosClasses, t.qos);
        keepIf("filtered: qos", [&](const Job& j) { return j.qos >= 0 && ok[size_t(j.qos)]; });
    }
    if (t.minGpus > 0 || t.maxGpus > 0)
        keepIf("filtered: gpus", [&](const Job& j) {
            return j.gpus >= t.minGpus - 1e-12 && (t.maxGpus <= 0 || j.gpus <= t.maxGpus + 1e-12);
        });
    trace.sortBySubmit();
    if (t.windowStart > 0 || t.windowEnd >= 0) {
        const double base = trace.jobs.empty() ? 0 : trace.jobs.front().submit;
        keepIf("out of window", [&](const Job& j) {
            const double s = j.submit - base;
            return s >= t.windowStart && (t.windowEnd < 0 || s < t.windowEnd);
        });
    }
    if (t.first > 0 && trace.jobs.size() > size_t(t.first)) {
        const size_t n = trace.jobs.size() - size_t(t.first);
        trace.jobs.resize(size_t(t.first));
        count("beyond --first", n);
    }
    if (t.sample > 0 && trace.jobs.size() > size_t(t.sample)) {
        // Partial Fisher-Yates on indices, then restore submit order: deterministic for a seed.
        Rng rng(t.sampleSeed);
        std::vector<size_t> idx(trace.jobs.size());
        for (size_t i = 0; i < idx.size(); ++i)
            idx[i] = i;
        const size_t k = size_t(t.sample);
        for (size_t i = 0; i < k; ++i)
            std::swap(idx[i], idx[i + size_t(rng.below(idx.size() - i))]);
        idx.resize(k);
        std::sort(idx.begin(), idx.end());
        std::vector<Job> kept;
        kept.reserve(k);
        for (size_t i : idx)
            kept.push_back(std::move(trace.jobs[i]));
        const size_t n = trace.jobs.size() - k;
        trace.jobs = std::move(kept);
        count("not sampled (seed " + std::to_string(t.sampleSeed) + ")", n);
    }
    if (t.loadScale != 1) {
        if (!(t.loadScale > 0) || !std::isfinite(t.loadScale))
            throw std::invalid_argument("load scale must be > 0");
        const double base = trace.jobs.empty() ? 0 : trace.jobs.front().submit;
        for (auto& j : trace.jobs) {
            j.submit = base + (j.submit - base) / t.loadScale;
            // the recorded start times belong to the unscaled arrivals: a state at a time cannot be taken
            j.started = std::numeric_limits<double>::quiet_NaN();
        }
        trace.notes.push_back("load scaled x" + io::formatDouble(t.loadScale) + " (inter-arrival times divided)");
    }
    if (t.rebase && !trace.jobs.empty() && trace.jobs.front().submit != 0) {
        const double off = trace.jobs.front().submit;
        for (auto& j : trace.jobs) {
            j.submit -= off;
            j.started -= off;
        }
        trace.notes.push_back("times rebased by -" + io::formatDouble(off) + " s after transforms");
    }
    if (report)
        report->jobs = long(trace.jobs.size());
}

} // namespace ss
