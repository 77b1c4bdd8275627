#include "io/decisionlogjson.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "io/ioerror.h"
#include "io/json.h"

namespace ss {

namespace {

// A float score as its shortest text (0.1f is "0.1", not 0.10000000149011612); NaN ("no score") is null.
JsonValue score(float v)
{
    if (std::isnan(v))
        return JsonValue();
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return JsonValue::makeNumber(std::strtod(std::string(buf, r.ptr).c_str(), nullptr));
}

JsonValue ints(const std::vector<int>& v)
{
    JsonValue a = JsonValue::makeArray();
    for (int x : v)
        a.push(JsonValue::makeNumber(x));
    return a;
}

JsonValue scores(const std::vector<float>& v)
{
    JsonValue a = JsonValue::makeArray();
    for (float x : v)
        a.push(score(x));
    return a;
}

JsonValue recordJson(const DecisionRecord& r)
{
    JsonValue o = JsonValue::makeObject();
    o["index"] = JsonValue::makeNumber(r.index);
    o["time"] = JsonValue::makeNumber(r.time);
    o["arrived"] = ints(r.arrived);
    o["finished"] = ints(r.finished);
    o["queue_length"] = JsonValue::makeNumber(r.queueLength);
    JsonValue queue = JsonValue::makeArray();
    for (const ScoredJob& q : r.queue) {
        JsonValue e = JsonValue::makeObject();
        e["job"] = JsonValue::makeNumber(q.job);
        e["priority"] = score(q.priority);
        if (!std::isnan(q.priorityStd))
            e["priority_std"] = score(q.priorityStd);
        if (!std::isnan(q.gate))
            e["gate"] = score(q.gate);
        if (!std::isnan(q.critic))
            e["critic"] = score(q.critic);
        queue.push(std::move(e));
    }
    o["queue"] = std::move(queue);
    o["preempted"] = ints(r.preempted);
    JsonValue placements = JsonValue::makeArray();
    for (const PlacementRecord& p : r.placements) {
        JsonValue e = JsonValue::makeObject();
        e["job"] = JsonValue::makeNumber(p.job);
        JsonValue gpus = JsonValue::makeArray(); // "g", or "g:milli" for a share of GPU g
        for (const GpuSlot& g : p.slots)
            gpus.push(g.milli != 1000 ? JsonValue::makeString(std::to_string(g.gpu) + ":" + std::to_string(g.milli))
                                      : JsonValue::makeNumber(g.gpu));
        e["gpus"] = std::move(gpus);
        if (!p.machines.empty()) {
            JsonValue m = JsonValue::makeArray();
            for (uint32_t x : p.machines)
                m.push(JsonValue::makeNumber(x));
            e["machines"] = std::move(m);
        }
        e["affinity"] = scores(p.affinity);
        if (!p.affinityVar.empty())
            e["affinity_var"] = scores(p.affinityVar);
        e["reason"] = JsonValue::makeString(p.reason);
        if (!p.rwgpMean.empty())
            e["rwgp_mean"] = scores(p.rwgpMean);
        if (!p.rwgpVar.empty())
            e["rwgp_var"] = scores(p.rwgpVar);
        if (!p.critic.empty())
            e["critic"] = scores(p.critic);
        placements.push(std::move(e));
    }
    o["placements"] = std::move(placements);
    if (r.criticKind) {
        o["critic_kind"] = JsonValue::makeString(std::string(1, r.criticKind));
        o["critic_value"] = score(r.criticValue);
    }
    if (!r.admissions.empty()) {
        JsonValue adm = JsonValue::makeArray();
        for (const AdmissionRecord& a : r.admissions) {
            JsonValue e = JsonValue::makeObject();
            e["job"] = JsonValue::makeNumber(a.job);
            e["verdict"] = JsonValue::makeString(toString(a.verdict));
            e["score"] = score(a.score);
            e["reason"] = JsonValue::makeString(a.reason);
            adm.push(std::move(e));
        }
        o["admissions"] = std::move(adm);
    }
    if (!r.allocation.empty()) {
        // Gavel's X: {"types": [...], "jobs": [{"job": j, "share": [per type], "estimated": bool}]}
        const AllocationRecord& al = r.allocation;
        JsonValue a = JsonValue::makeObject();
        JsonValue types = JsonValue::makeArray();
        for (const std::string& t : al.types)
            types.push(JsonValue::makeString(t));
        a["types"] = std::move(types);
        JsonValue rows = JsonValue::makeArray();
        for (size_t i = 0; i < al.jobs.size(); ++i) {
            JsonValue e = JsonValue::makeObject();
            e["job"] = JsonValue::makeNumber(al.jobs[i]);
            std::vector<float> share(al.share.begin() + long(i * al.types.size()), al.share.begin() + long((i + 1) * al.types.size()));
            e["share"] = scores(share);
            e["estimated"] = JsonValue::makeBool(i < al.estimated.size() && al.estimated[i] != 0);
            if (i < al.estimated.size() && al.estimated[i] > 1)
                e["flag"] = JsonValue::makeNumber(al.estimated[i]); // a policy's own per-job mark (Chronus: level)
            rows.push(std::move(e));
        }
        a["jobs"] = std::move(rows);
        if (!al.note.empty())
            a["note"] = JsonValue::makeString(al.note);
        o["allocation"] = std::move(a);
    }
    return o;
}

} // namespace

void writeDecisionLogJsonl(const DecisionLog& log, const std::string& path)
{
    std::ofstream out(path, std::ios::trunc);
    if (!out)
        throw IoError(path, 0, "", "cannot open for writing");
    JsonValue head = JsonValue::makeObject();
    head["format"] = JsonValue::makeString("schedstudio-decision-log");
    head["version"] = JsonValue::makeNumber(2);
    head["machines"] = JsonValue::makeNumber(log.machineCount);
    head["gpus"] = JsonValue::makeNumber(log.gpuCount);
    out << writeJson(head, -1) << '\n';
    for (const DecisionRecord& r : log.records)
        out << writeJson(recordJson(r), -1) << '\n';
    if (!out)
        throw IoError(path, 0, "", "cannot write");
}

} // namespace ss
