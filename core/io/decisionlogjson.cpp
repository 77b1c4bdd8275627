#include "io/decisionlogjson.h"

#include <cmath>
#include <cstdio>
#include <fstream>

#include "io/ioerror.h"
#include "io/json.h"

namespace ss {

void writeDecisionLogJsonl(const DecisionLog& log, const std::string& path)
{
    std::ofstream out(path, std::ios::trunc);
    if (!out)
        throw IoError(path, 0, "", "cannot open for writing");
    auto f = [](float v) -> std::string {
        if (std::isnan(v))
            return "null";
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6g", double(v));
        return buf;
    };
    auto ints = [](const std::vector<int>& v) {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i)
            s += (i ? "," : "") + std::to_string(v[i]);
        return s + "]";
    };
    out << "{\"format\":\"schedstudio-decision-log\",\"version\":2,\"machines\":" << log.machineCount
        << ",\"gpus\":" << log.gpuCount << "}\n";
    for (const DecisionRecord& r : log.records) {
        std::string s = "{\"index\":" + std::to_string(r.index);
        char tb[40];
        std::snprintf(tb, sizeof tb, "%.10g", r.time);
        s += ",\"time\":" + std::string(tb) + ",\"arrived\":" + ints(r.arrived) + ",\"finished\":" + ints(r.finished)
            + ",\"queue_length\":" + std::to_string(r.queueLength) + ",\"queue\":[";
        for (size_t i = 0; i < r.queue.size(); ++i) {
            const ScoredJob& q = r.queue[i];
            s += std::string(i ? "," : "") + "{\"job\":" + std::to_string(q.job) + ",\"priority\":" + f(q.priority);
            if (!std::isnan(q.priorityStd))
                s += ",\"priority_std\":" + f(q.priorityStd);
            if (!std::isnan(q.gate))
                s += ",\"gate\":" + f(q.gate);
            s += "}";
        }
        s += "],\"preempted\":" + ints(r.preempted) + ",\"placements\":[";
        for (size_t i = 0; i < r.placements.size(); ++i) {
            const PlacementRecord& p = r.placements[i];
            s += std::string(i ? "," : "") + "{\"job\":" + std::to_string(p.job) + ",\"gpus\":[";
            for (size_t k = 0; k < p.slots.size(); ++k)
                s += (k ? "," : "") + std::to_string(p.slots[k].gpu)
                    + (p.slots[k].milli != 1000 ? ":" + std::to_string(p.slots[k].milli) : "");
            s += "]";
            if (!p.machines.empty()) {
                s += ",\"machines\":[";
                for (size_t k = 0; k < p.machines.size(); ++k)
                    s += (k ? "," : "") + std::to_string(p.machines[k]);
                s += "]";
            }
            s += ",\"affinity\":[";
            for (size_t k = 0; k < p.affinity.size(); ++k)
                s += (k ? "," : "") + f(p.affinity[k]);
            s += "]";
            if (!p.affinityVar.empty()) {
                s += ",\"affinity_var\":[";
                for (size_t k = 0; k < p.affinityVar.size(); ++k)
                    s += (k ? "," : "") + f(p.affinityVar[k]);
                s += "]";
            }
            s += ",\"reason\":" + jsonQuote(p.reason) + "}";
        }
        s += "]";
        if (!r.admissions.empty()) {
            s += ",\"admissions\":[";
            for (size_t i = 0; i < r.admissions.size(); ++i) {
                const AdmissionRecord& a = r.admissions[i];
                s += std::string(i ? "," : "") + "{\"job\":" + std::to_string(a.job) + ",\"verdict\":\""
                    + toString(a.verdict) + "\",\"score\":" + f(a.score) + ",\"reason\":" + jsonQuote(a.reason) + "}";
            }
            s += "]";
        }
        s += "}\n";
        out << s;
    }
}

} // namespace ss
