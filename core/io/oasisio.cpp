#include "io/oasisio.h"

#include <fstream>
#include <sstream>

#include "io/ioerror.h"
#include "io/textio.h"

namespace ss::oasis {

namespace {

JsonValue amountsJson(const Amounts& a)
{
    JsonValue o = JsonValue::makeObject();
    for (int r = 0; r < kResources; ++r)
        o[resourceName(r)] = JsonValue::makeNumber(a[size_t(r)]);
    return o;
}

Amounts amountsFrom(const JsonReader& rd, const JsonValue& obj, const std::string& key)
{
    const JsonValue& v = rd.member(obj, key);
    Amounts a {0, 0, 0, 0};
    for (int r = 0; r < kResources; ++r)
        a[size_t(r)] = rd.number(v, resourceName(r), 0.0);
    for (const auto& [k, _] : v.object()) {
        bool known = false;
        for (int r = 0; r < kResources; ++r)
            known = known || k == resourceName(r);
        if (!known)
            rd.fail(v, key + "." + k, "unknown resource (gpu, cpu, mem, bw)");
    }
    return a;
}

std::vector<OasisServer> serversFrom(const JsonReader& rd, const JsonValue& root, const std::string& key)
{
    std::vector<OasisServer> out;
    for (const JsonValue& s : rd.array(root, key, true)) {
        OasisServer srv;
        srv.name = rd.string(s, "name");
        srv.cap = amountsFrom(rd, s, "capacity");
        out.push_back(srv);
    }
    return out;
}

int intFrom(const JsonReader& rd, const JsonValue& obj, const std::string& key, double dflt)
{
    const double v = rd.number(obj, key, dflt);
    if (v != double(int64_t(v)) || v < -2e9 || v > 2e9)
        rd.fail(*obj.find(key), key, "expected an integer");
    return int(v);
}

} // namespace

JsonValue scenarioToJson(const OasisScenario& sc)
{
    JsonValue root = JsonValue::makeObject();
    root["format"] = JsonValue::makeString("schedstudio-oasis");
    root["version"] = JsonValue::makeNumber(1);
    root["name"] = JsonValue::makeString(sc.name);
    root["slot_seconds"] = JsonValue::makeNumber(sc.slotSeconds);
    root["horizon"] = JsonValue::makeNumber(sc.horizon);
    JsonValue notes = JsonValue::makeArray();
    for (const auto& n : sc.notes)
        notes.push(JsonValue::makeString(n));
    root["notes"] = notes;
    for (const auto& [key, set] : {std::pair {"workers", &sc.workers}, std::pair {"ps_servers", &sc.psServers}}) {
        JsonValue arr = JsonValue::makeArray();
        for (const OasisServer& s : *set) {
            JsonValue o = JsonValue::makeObject();
            o["name"] = JsonValue::makeString(s.name);
            o["capacity"] = amountsJson(s.cap);
            arr.push(o);
        }
        root[key] = arr;
    }
    JsonValue jobs = JsonValue::makeArray();
    for (const OasisJob& j : sc.jobs) {
        JsonValue o = JsonValue::makeObject();
        o["id"] = JsonValue::makeNumber(double(j.id));
        o["arrival"] = JsonValue::makeNumber(j.arrival);
        o["epochs"] = JsonValue::makeNumber(j.epochs);
        o["chunks"] = JsonValue::makeNumber(j.chunks);
        o["minibatches"] = JsonValue::makeNumber(j.minibatches);
        o["tau"] = JsonValue::makeNumber(j.tau);
        o["e"] = JsonValue::makeNumber(j.gradMb);
        o["b"] = JsonValue::makeNumber(j.workerBw);
        o["B"] = JsonValue::makeNumber(j.psBw);
        o["w"] = amountsJson(j.w);
        o["s"] = amountsJson(j.s);
        JsonValue u = JsonValue::makeObject();
        u["kind"] = JsonValue::makeString(toString(j.f.kind));
        u["g1"] = JsonValue::makeNumber(j.f.g1);
        u["g2"] = JsonValue::makeNumber(j.f.g2);
        u["g3"] = JsonValue::makeNumber(j.f.g3);
        o["utility"] = u;
        jobs.push(o);
    }
    root["jobs"] = jobs;
    return root;
}

OasisScenario scenarioFromJson(const JsonValue& root, const std::string& file)
{
    JsonReader rd(file);
    if (rd.string(root, "format") != "schedstudio-oasis")
        rd.fail(root, "format", "expected \"schedstudio-oasis\"");
    if (rd.number(root, "version") != 1)
        rd.fail(root, "version", "unsupported version (this build reads 1)");
    OasisScenario sc;
    sc.name = rd.string(root, "name", "oasis");
    sc.slotSeconds = rd.number(root, "slot_seconds");
    sc.horizon = intFrom(rd, root, "horizon", 0);
    for (const JsonValue& n : rd.array(root, "notes", false))
        if (n.isString())
            sc.notes.push_back(n.string());
    sc.workers = serversFrom(rd, root, "workers");
    sc.psServers = serversFrom(rd, root, "ps_servers");
    std::vector<long> lines;
    for (const JsonValue& o : rd.array(root, "jobs", true)) {
        OasisJob j;
        j.id = int64_t(rd.number(o, "id"));
        j.arrival = intFrom(rd, o, "arrival", 0);
        j.epochs = intFrom(rd, o, "epochs", 1);
        j.chunks = intFrom(rd, o, "chunks", 1);
        j.minibatches = intFrom(rd, o, "minibatches", 1);
        j.tau = rd.number(o, "tau");
        j.gradMb = rd.number(o, "e", 0.0);
        j.workerBw = rd.number(o, "b");
        j.psBw = rd.number(o, "B");
        j.w = amountsFrom(rd, o, "w");
        j.s = amountsFrom(rd, o, "s");
        const JsonValue& u = rd.member(o, "utility");
        try {
            j.f.kind = utilityKindFrom(rd.string(u, "kind"));
        } catch (const std::invalid_argument& e) {
            rd.fail(u, "utility.kind", e.what());
        }
        j.f.g1 = rd.number(u, "g1");
        j.f.g2 = rd.number(u, "g2", 0.0);
        j.f.g3 = rd.number(u, "g3", 0.0);
        lines.push_back(o.line());
        sc.jobs.push_back(j);
    }
    try {
        validateScenario(sc);
    } catch (const OasisModelError& e) {
        long line = root.line();
        const JsonValue* jobs = root.find("jobs");
        for (const JsonValue& o : jobs->array())
            if (const JsonValue* id = o.find("id"); id && id->isNumber() && int64_t(id->number()) == e.job())
                line = o.line();
        throw IoError(file, line, e.job() >= 0 ? "job " + std::to_string(e.job()) + " " + e.field() : e.field(),
                      e.reason());
    }
    return sc;
}

OasisScenario readScenario(const std::string& path)
{
    return scenarioFromJson(parseJson(io::readWholeFile(path), path), path);
}

void writeScenario(const OasisScenario& sc, const std::string& path)
{
    std::ofstream out(path, std::ios::binary);
    if (!out)
        throw IoError(path, 0, "", "cannot write");
    out << writeJson(scenarioToJson(sc), 1);
}

JsonValue runToJson(const OasisScenario& sc, const OasisRun& run, bool decisions)
{
    JsonValue o = JsonValue::makeObject();
    o["policy"] = JsonValue::makeString(run.policy);
    o["jobs"] = JsonValue::makeNumber(double(sc.jobs.size()));
    for (const auto& [k, v] : run.stats())
        o[k] = JsonValue::makeNumber(v);
    o["wall_seconds"] = JsonValue::makeNumber(run.wallSeconds);
    if (decisions && !run.decisions.empty()) {
        JsonValue arr = JsonValue::makeArray();
        for (const AdmissionDecision& d : run.decisions) {
            JsonValue a = JsonValue::makeObject();
            a["job"] = JsonValue::makeNumber(double(sc.jobs[size_t(d.job)].id));
            a["arrival"] = JsonValue::makeNumber(sc.jobs[size_t(d.job)].arrival);
            a["admitted"] = JsonValue::makeBool(d.admitted);
            a["utility"] = JsonValue::makeNumber(d.utility);
            a["worker_cost"] = JsonValue::makeNumber(d.workerCost);
            a["ps_cost"] = JsonValue::makeNumber(d.psCost);
            a["payoff"] = JsonValue::makeNumber(d.payoff());
            a["completion"] = JsonValue::makeNumber(d.admitted ? d.schedule.completion : -1);
            a["reason"] = JsonValue::makeString(d.reason());
            arr.push(a);
        }
        o["admissions"] = arr;
    }
    return o;
}

} // namespace ss::oasis
