#include "io/accelio.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/ioerror.h"
#include "io/textio.h"

namespace fs = std::filesystem;

namespace ss::accel {

namespace {
constexpr const char* kChipFormat = "schedstudio-chip";
constexpr const char* kNetworkFormat = "schedstudio-network";

void checkFormat(const JsonValue& root, const JsonReader& r, const char* format)
{
    if (!root.isObject())
        r.fail(root, "", "expected a JSON object");
    const JsonValue* f = root.find("format");
    if (!f || !f->isString() || f->string() != format)
        r.fail(f ? *f : root, "format", std::string("expected \"") + format + "\"");
    const double v = r.number(root, "version", 1);
    if (v != 1)
        r.fail(*root.find("version"), "version", "unsupported version " + formatNumber(v) + " (this SchedStudio reads 1)");
}

int64_t dim(const JsonValue& o, const JsonReader& r, const char* key, int64_t dflt)
{
    const JsonValue* v = o.find(key);
    if (!v)
        return dflt;
    if (!v->isNumber() || v->number() != std::floor(v->number()) || std::fabs(v->number()) > 1e12)
        r.fail(*v, key, "expected a whole number");
    if (v->number() < 0)
        r.fail(*v, key, "negative dimension " + formatNumber(v->number()));
    if (v->number() < 1)
        r.fail(*v, key, "dimension must be >= 1");
    return int64_t(v->number());
}

double positive(const JsonValue& o, const JsonReader& r, const char* key, double dflt, const char* what)
{
    const double x = r.number(o, key, dflt);
    if (!(x > 0))
        r.fail(o.find(key) ? *o.find(key) : o, key, what);
    return x;
}

std::string resolve(const std::string& base, const std::string& ref)
{
    fs::path p(ref);
    return p.is_absolute() ? ref : (fs::path(base) / p).lexically_normal().string();
}

JsonValue num(double v) { return JsonValue::makeNumber(v); }
JsonValue str(const std::string& s) { return JsonValue::makeString(s); }
} // namespace

Chip chipFromJson(const JsonValue& root, const JsonReader& r)
{
    checkFormat(root, r, kChipFormat);
    Chip c;
    c.name = r.string(root, "name", "chip");
    const JsonValue* bw = root.find("bandwidth_gbps");
    if (!bw)
        r.fail(root, "bandwidth_gbps", "the chip has no off-chip bandwidth");
    c.bandwidth = positive(root, r, "bandwidth_gbps", 0, "the chip has no off-chip bandwidth (must be > 0)") * 1000;
    c.freqMhz = positive(root, r, "freq_mhz", 1000, "must be > 0");
    c.bytesPerElement = int(dim(root, r, "bytes_per_element", 1));
    if (const JsonValue* e = root.find("energy")) {
        if (!e->isObject())
            r.fail(*e, "energy", "expected an object");
        c.energy.macPj = r.number(*e, "mac_pj", c.energy.macPj);
        c.energy.sramPjPerByte = r.number(*e, "sram_pj_per_byte", c.energy.sramPjPerByte);
        c.energy.dramPjPerByte = r.number(*e, "dram_pj_per_byte", c.energy.dramPjPerByte);
        c.energy.staticPjPerPeUs = r.number(*e, "static_pj_per_pe_us", c.energy.staticPjPerPeUs);
        for (const char* k : {"mac_pj", "sram_pj_per_byte", "dram_pj_per_byte", "static_pj_per_pe_us"})
            if (r.number(*e, k, 0) < 0)
                r.fail(*e->find(k), k, "negative energy");
    }
    const JsonValue* subs = root.find("subs");
    if (!subs || !subs->isArray() || subs->array().empty())
        r.fail(subs ? *subs : root, "subs", "the chip has no sub-accelerator");
    for (const JsonValue& s : subs->array()) {
        if (!s.isObject())
            r.fail(s, "subs", "expected an object per sub-accelerator");
        SubAccel a;
        a.name = r.string(s, "name", "sa" + std::to_string(c.subs.size()));
        const std::string df = r.string(s, "dataflow");
        if (!parseDataflow(df, a.dataflow))
            r.fail(*s.find("dataflow"), "dataflow", "unknown dataflow '" + df + "' (expected ws or rs)");
        a.clusters = int(dim(s, r, "clusters", 64));
        a.clusterSize = int(dim(s, r, "cluster_size", 64));
        a.bufferBytes = positive(s, r, "buffer_kib", double(a.clusters) * 8, "must be > 0") * 1024;
        c.subs.push_back(a);
    }
    return c;
}

JsonValue chipToJson(const Chip& c)
{
    JsonValue o = JsonValue::makeObject();
    o["format"] = str(kChipFormat);
    o["version"] = num(1);
    o["name"] = str(c.name);
    o["bandwidth_gbps"] = num(c.bandwidth / 1000);
    o["freq_mhz"] = num(c.freqMhz);
    o["bytes_per_element"] = num(c.bytesPerElement);
    JsonValue e = JsonValue::makeObject();
    e["mac_pj"] = num(c.energy.macPj);
    e["sram_pj_per_byte"] = num(c.energy.sramPjPerByte);
    e["dram_pj_per_byte"] = num(c.energy.dramPjPerByte);
    e["static_pj_per_pe_us"] = num(c.energy.staticPjPerPeUs);
    o["energy"] = std::move(e);
    JsonValue subs = JsonValue::makeArray();
    for (const SubAccel& s : c.subs) {
        JsonValue a = JsonValue::makeObject();
        a["name"] = str(s.name);
        a["dataflow"] = str(toString(s.dataflow));
        a["clusters"] = num(s.clusters);
        a["cluster_size"] = num(s.clusterSize);
        a["buffer_kib"] = num(s.bufferBytes / 1024);
        subs.push(std::move(a));
    }
    o["subs"] = std::move(subs);
    return o;
}

Chip readChip(const std::string& presetOrPath)
{
    for (const std::string& n : chipPresetNames())
        if (n == presetOrPath)
            return chipPreset(n);
    return chipFromJson(parseJson(io::readWholeFile(presetOrPath), presetOrPath), JsonReader(presetOrPath));
}

Network networkFromJson(const JsonValue& root, const JsonReader& r)
{
    checkFormat(root, r, kNetworkFormat);
    Network n;
    n.name = r.string(root, "name");
    if (n.name.empty())
        r.fail(*root.find("name"), "name", "empty network name");
    n.origin = r.string(root, "origin", "");
    for (const JsonValue& lv : r.array(root, "layers", true)) {
        if (!lv.isObject())
            r.fail(lv, "layers", "expected an object per layer");
        Layer l;
        l.name = r.string(lv, "name", "layer" + std::to_string(n.layers.size()));
        const std::string type = r.string(lv, "type");
        if (!parseLayerType(type, l.type))
            r.fail(*lv.find("type"), "type", "unknown layer type '" + type + "' (expected conv, dwconv, fc or matmul)");
        l.K = dim(lv, r, "K", 1);
        l.C = dim(lv, r, "C", 1);
        l.Y = dim(lv, r, "Y", 1);
        l.X = dim(lv, r, "X", 1);
        l.R = dim(lv, r, "R", 1);
        l.S = dim(lv, r, "S", 1);
        l.stride = dim(lv, r, "stride", 1);
        l.heads = dim(lv, r, "heads", 1);
        // bounded so that every product the cost model forms stays exact in 64 bits
        if (const double macs = double(l.K) * double(l.C) * double(l.Y) * double(l.X) * double(l.R) * double(l.S) *
                                double(l.heads);
            macs > 1e15)
            r.fail(lv, "K", "layer of " + formatNumber(macs) + " MACs (K x C x Y x X x R x S x heads) exceeds 1e15");
        std::string field;
        if (const std::string why = validateLayer(l, field); !why.empty())
            r.fail(lv.find(field) ? *lv.find(field) : lv, field, why);
        n.layers.push_back(l);
    }
    if (n.layers.empty())
        r.fail(root, "layers", "the network has no layer");
    return n;
}

Network readNetwork(const std::string& path)
{
    return networkFromJson(parseJson(io::readWholeFile(path), path), JsonReader(path));
}

AccelScenario readAccelScenario(const std::string& path)
{
    const JsonValue root = parseJson(io::readWholeFile(path), path);
    const JsonReader r(path);
    if (!root.isObject())
        r.fail(root, "", "expected a JSON object");
    if (r.string(root, "mode", "gpu") != "accelerator")
        r.fail(root, "mode", "not an accelerator scenario (expected \"mode\": \"accelerator\")");
    const std::string base = fs::absolute(fs::path(path)).parent_path().string();
    AccelScenario s;
    s.file = path;
    s.name = r.string(root, "name", "accelerator");
    s.description = r.string(root, "description", "");
    Workload& w = s.workload;
    s.chipRef = r.string(root, "chip", "magma-s5");
    try {
        bool preset = false;
        for (const std::string& n : chipPresetNames())
            preset = preset || n == s.chipRef;
        w.chip = readChip(preset ? s.chipRef : resolve(base, s.chipRef));
    } catch (const std::invalid_argument& e) {
        r.fail(*root.find("chip"), "chip", e.what());
    }
    if (const std::string why = validateChip(w.chip); !why.empty())
        r.fail(root.find("chip") ? *root.find("chip") : root, "chip", why);
    for (const JsonValue& n : r.array(root, "networks", true)) {
        if (!n.isString())
            r.fail(n, "networks", "expected a network file name");
        s.networkRefs.push_back(n.string());
        Network net = readNetwork(resolve(base, n.string()));
        if (w.networkIndex(net.name) >= 0)
            r.fail(n, "networks", "network '" + net.name + "' listed twice");
        w.networks.push_back(std::move(net));
    }
    if (w.networks.empty())
        r.fail(root, "networks", "the scenario lists no network");
    s.sim.period = positive(root, r, "period_us", 20, "must be > 0");
    if (const JsonValue* oi = root.find("on_idle")) {
        if (!oi->isBool())
            r.fail(*oi, "on_idle", "expected true or false");
        s.sim.onIdle = oi->boolean();
    }
    if (const JsonValue* p = root.find("policies")) {
        s.policies.clear();
        for (const JsonValue& e : r.array(root, "policies", true)) {
            if (!e.isString())
                r.fail(e, "policies", "every entry must be a string");
            s.policies.push_back(e.string());
        }
        if (s.policies.empty())
            r.fail(*p, "policies", "the scenario names no policy");
    }
    if (const JsonValue* pr = root.find("params")) {
        if (!pr->isObject())
            r.fail(*pr, "params", "expected an object");
        for (const auto& [k, v] : pr->object())
            s.params[k] = v.isString() ? v.string() : formatNumber(v.number());
    }
    const double seed = r.number(root, "seed", 1);
    if (seed < 0 || seed != std::floor(seed))
        r.fail(*root.find("seed"), "seed", "expected a whole number >= 0");
    s.seed = uint64_t(seed);
    s.sim.seed = s.seed;
    const CostTable cost(w.chip, w.networks);
    if (const JsonValue* g = root.find("generator")) {
        if (!g->isObject())
            r.fail(*g, "generator", "expected an object");
        GenParams& p = s.gen;
        s.generated = true;
        p.requests = int(r.number(*g, "requests", p.requests));
        p.tenants = int(r.number(*g, "tenants", p.tenants));
        const std::string mix = r.string(*g, "mix", "mixed");
        if (mix != "mixed" && mix != "homogeneous")
            r.fail(*g->find("mix"), "mix", "expected \"mixed\" or \"homogeneous\"");
        p.mixed = mix == "mixed";
        if (const JsonValue* l = g->find("load"); l && l->isString()) {
            if (!GenParams::loadPreset(l->string(), p.load))
                r.fail(*l, "load", "expected a number, \"light\" or \"heavy\"");
        } else {
            p.load = r.number(*g, "load", p.load);
        }
        if (const JsonValue* b = g->find("bursty")) {
            if (!b->isBool())
                r.fail(*b, "bursty", "expected true or false");
            p.bursty = b->boolean();
        }
        p.burstSize = r.number(*g, "burst_size", p.burstSize);
        p.qosMin = r.number(*g, "qos_min", p.qosMin);
        p.qosMax = r.number(*g, "qos_max", p.qosMax);
        p.seed = uint64_t(r.number(*g, "seed", double(s.seed)));
        try {
            generateRequests(w, cost, p);
        } catch (const std::invalid_argument& e) {
            r.fail(*g, "generator", e.what());
        }
        return s;
    }
    for (const JsonValue& t : r.array(root, "tenants", true)) {
        Tenant tn;
        tn.name = r.string(t, "name");
        tn.qos = positive(t, r, "qos", 3, "the QoS factor must be > 0");
        if (w.tenantIndex(tn.name) >= 0)
            r.fail(t, "name", "tenant '" + tn.name + "' listed twice");
        w.tenants.push_back(tn);
    }
    for (const JsonValue& q : r.array(root, "requests", true)) {
        if (!q.isObject())
            r.fail(q, "requests", "expected an object per request");
        Request req;
        const std::string tn = r.string(q, "tenant"), nn = r.string(q, "network");
        req.tenant = w.tenantIndex(tn);
        if (req.tenant < 0)
            r.fail(*q.find("tenant"), "tenant", "unknown tenant '" + tn + "'");
        req.network = w.networkIndex(nn);
        if (req.network < 0)
            r.fail(*q.find("network"), "network", "unknown network '" + nn + "'");
        req.arrival = r.number(q, "arrival_us");
        if (req.arrival < 0)
            r.fail(*q.find("arrival_us"), "arrival_us", "negative arrival");
        req.deadline = r.number(q, "deadline_us", 0); // 0 = from the tenant's QoS factor
        w.requests.push_back(req);
    }
    finalizeRequests(w, cost);
    return s;
}

void writeAccelScenario(const AccelScenario& s, const std::string& path)
{
    const fs::path dir = fs::absolute(fs::path(path)).parent_path();
    auto rel = [&](const std::string& ref) {
        std::error_code ec;
        const fs::path p = fs::absolute(ref, ec);
        const fs::path r = fs::relative(p, dir, ec);
        return ec || r.empty() ? ref : r.generic_string();
    };
    JsonValue o = JsonValue::makeObject();
    o["format"] = str("schedstudio-scenario");
    o["version"] = num(1);
    o["mode"] = str("accelerator");
    o["name"] = str(s.name);
    o["description"] = str(s.description);
    bool preset = false;
    for (const std::string& n : chipPresetNames())
        preset = preset || n == s.chipRef;
    o["chip"] = str(preset ? s.chipRef : rel(s.chipRef));
    JsonValue nets = JsonValue::makeArray();
    for (const std::string& n : s.networkRefs)
        nets.push(str(rel(n)));
    o["networks"] = std::move(nets);
    o["period_us"] = num(s.sim.period);
    o["on_idle"] = JsonValue::makeBool(s.sim.onIdle);
    JsonValue pol = JsonValue::makeArray();
    for (const std::string& p : s.policies)
        pol.push(str(p));
    o["policies"] = std::move(pol);
    JsonValue params = JsonValue::makeObject();
    for (const auto& [k, v] : s.params)
        params[k] = str(v);
    o["params"] = std::move(params);
    o["seed"] = num(double(s.seed));
    if (s.generated) {
        JsonValue g = JsonValue::makeObject();
        g["requests"] = num(s.gen.requests);
        g["tenants"] = num(s.gen.tenants);
        g["mix"] = str(s.gen.mixed ? "mixed" : "homogeneous");
        g["load"] = num(s.gen.load);
        g["bursty"] = JsonValue::makeBool(s.gen.bursty);
        g["burst_size"] = num(s.gen.burstSize);
        g["qos_min"] = num(s.gen.qosMin);
        g["qos_max"] = num(s.gen.qosMax);
        g["seed"] = num(double(s.gen.seed));
        o["generator"] = std::move(g);
    } else {
        JsonValue ts = JsonValue::makeArray();
        for (const Tenant& t : s.workload.tenants) {
            JsonValue a = JsonValue::makeObject();
            a["name"] = str(t.name);
            a["qos"] = num(t.qos);
            ts.push(std::move(a));
        }
        o["tenants"] = std::move(ts);
        JsonValue rq = JsonValue::makeArray();
        for (const Request& q : s.workload.requests) {
            JsonValue a = JsonValue::makeObject();
            a["tenant"] = str(s.workload.tenants[size_t(q.tenant)].name);
            a["network"] = str(s.workload.networks[size_t(q.network)].name);
            a["arrival_us"] = num(q.arrival);
            a["deadline_us"] = num(q.deadline);
            rq.push(std::move(a));
        }
        o["requests"] = std::move(rq);
    }
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f || !(f << writeJson(o, 2)) || !f.flush())
        throw IoError(path, 0, "", "cannot write");
}

} // namespace ss::accel
