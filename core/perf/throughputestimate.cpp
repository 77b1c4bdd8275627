// Gavel's throughput estimator, for (model, scale) rows the table does not fully measure.
//
// Gavel (OSDI'20 §5) profiles a new job on a few (worker type, co-located job) combinations, completes the
// matrix against a set of fully profiled reference jobs, and uses the throughputs of the closest reference.
// Here the measurements are the table's own (no online profiling), so the estimate works on what the table
// has for the row (ALGORITHMS.md §4.2, [I] for the details):
// - measured on some of the wanted types: the references are the rows of the same scale measured on every
//   wanted type; the distance to a reference is the spread of log(T_row / T_ref) over the measured types
//   (its shape; with one measured type, the absolute gap); the k = 3 closest references each predict the
//   missing types as T_ref(type) x the row's mean ratio to it, and the estimate is their geometric mean;
// - not measured at this scale but at scale 1: T(scale, type) = T(1, type) x the median over references
//   measured at both scales of T_ref(scale, type) / T_ref(1, type) (how the measured jobs scale out); when
//   no job is measured at this scale (Gavel's table stops at 8 GPUs), linear scale-out from the model's
//   widest measured scale;
// - nothing measured for the model at all: not estimable (error).
// A measured 0 (Gavel's table has them: the job does not fit that GPU) is kept as 0: the job cannot run there.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "perf/perfmodel.h"

namespace ss {

bool ThroughputRow::anyEstimated() const
{
    return std::any_of(estimated.begin(), estimated.end(), [](char c) { return c != 0; });
}

namespace {

std::string lowerName(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

/// Fills the types `row` has not measured from the closest reference rows of the same scale.
bool estimateFromReferences(const ThroughputTable& table, const std::string& model, int scale,
                            const std::vector<std::string>& types, ThroughputRow& row)
{
    std::vector<size_t> have, miss; // a measured 0 (cannot run there) is neither: it stays 0
    for (size_t t = 0; t < types.size(); ++t)
        if (row.sps[t] > 0)
            have.push_back(t);
        else if (row.sps[t] < 0)
            miss.push_back(t);
    if (have.empty() || miss.empty())
        return miss.empty();
    struct Ref {
        double dist;
        std::string name;
        double logRatio;
        const std::map<std::string, double>* sps;
    };
    std::vector<Ref> refs;
    for (const auto& [key, sps] : table.measurements()) {
        if (key.second != scale || key.first == model)
            continue;
        bool full = true;
        for (const std::string& t : types)
            full = full && sps.count(t) && sps.at(t) > 0;
        if (!full)
            continue;
        double mean = 0;
        std::vector<double> lr;
        for (size_t t : have) {
            lr.push_back(std::log(row.sps[t] / sps.at(types[t])));
            mean += lr.back();
        }
        mean /= double(lr.size());
        double var = 0;
        for (double x : lr)
            var += (x - mean) * (x - mean);
        const double dist = lr.size() == 1 ? std::fabs(mean) : std::sqrt(var / double(lr.size()));
        refs.push_back({dist, key.first, mean, &sps});
    }
    if (refs.empty())
        return false;
    std::sort(refs.begin(), refs.end(), [](const Ref& a, const Ref& b) { return a.dist != b.dist ? a.dist < b.dist : a.name < b.name; });
    const size_t k = std::min<size_t>(3, refs.size());
    for (size_t t : miss) {
        double lg = 0;
        for (size_t i = 0; i < k; ++i)
            lg += std::log(refs[i].sps->at(types[t])) + refs[i].logRatio;
        row.sps[t] = std::exp(lg / double(k));
        row.estimated[t] = 1;
    }
    std::ostringstream how;
    how << "estimated from the closest reference jobs on ";
    for (size_t i = 0; i < have.size(); ++i)
        how << (i ? "+" : "") << types[have[i]];
    how << ":";
    for (size_t i = 0; i < k; ++i)
        how << (i ? "," : "") << " " << refs[i].name;
    row.how = how.str();
    return true;
}

} // namespace

ThroughputRow throughputRow(const ThroughputTable& table, const std::string& model, int scale,
                            const std::vector<std::string>& gpuTypes)
{
    std::vector<std::string> types;
    for (const std::string& t : gpuTypes)
        types.push_back(lowerName(t));
    ThroughputRow row;
    row.sps.assign(types.size(), -1.0);
    row.estimated.assign(types.size(), 0);
    bool any = false;
    for (size_t t = 0; t < types.size(); ++t) {
        row.sps[t] = table.stepsPerSecond(model, scale, types[t]);
        any = any || row.sps[t] > 0;
    }
    if (!any && scale != 1) {
        // not measured at this scale: scale the single-GPU row as the measured jobs scale out
        std::vector<double> one(types.size(), -1.0);
        bool anyOne = false;
        for (size_t t = 0; t < types.size(); ++t) {
            one[t] = table.stepsPerSecond(model, 1, types[t]);
            anyOne = anyOne || one[t] > 0;
        }
        if (anyOne) {
            for (size_t t = 0; t < types.size(); ++t) {
                if (one[t] == 0) {
                    row.sps[t] = 0; // cannot run there at scale 1: not at a larger scale either
                    continue;
                }
                if (!(one[t] > 0))
                    continue;
                std::vector<double> ratios;
                for (const auto& [key, sps] : table.measurements()) {
                    if (key.second != scale)
                        continue;
                    const auto a = sps.find(types[t]);
                    const double b = table.stepsPerSecond(key.first, 1, types[t]);
                    if (a != sps.end() && a->second > 0 && b > 0)
                        ratios.push_back(a->second / b);
                }
                if (ratios.empty()) {
                    // no measured job at this scale: linear scale-out from the model's widest measured scale
                    int from = 0;
                    double v = -1;
                    for (const auto& [key, sps] : table.measurements())
                        if (key.first == model && key.second < scale && key.second > from) {
                            const auto a = sps.find(types[t]);
                            if (a != sps.end() && a->second > 0) {
                                from = key.second;
                                v = a->second;
                            }
                        }
                    if (v > 0) {
                        row.sps[t] = v * double(scale) / double(from);
                        row.estimated[t] = 1;
                        any = true;
                    }
                    continue;
                }
                std::sort(ratios.begin(), ratios.end());
                const size_t n = ratios.size();
                const double med = n % 2 ? ratios[n / 2] : 0.5 * (ratios[n / 2 - 1] + ratios[n / 2]);
                row.sps[t] = one[t] * med;
                row.estimated[t] = 1;
                any = true;
            }
            row.how = "scale " + std::to_string(scale) + " estimated from scale 1 (median scale-out of the measured jobs)";
        }
    }
    if (!any) {
        row.error = "model '" + model + "' (scale " + std::to_string(scale)
            + ") is missing from the throughput table and not estimable (no measurement on any GPU type)";
        return row;
    }
    const std::string before = row.how;
    if (!estimateFromReferences(table, model, scale, types, row)) {
        std::string missing;
        for (size_t t = 0; t < types.size(); ++t)
            if (row.sps[t] < 0)
                missing += (missing.empty() ? "" : ", ") + types[t];
        row.error = "model '" + model + "' (scale " + std::to_string(scale) + "): no throughput on " + missing
            + " and no reference job measured on every type to estimate it from";
        return row;
    }
    if (!before.empty() && row.how != before)
        row.how = before + "; " + row.how;
    return row;
}

} // namespace ss
