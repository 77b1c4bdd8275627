// Cluster files: the native versioned JSON and the machine lists published with real traces; Gavel's
// throughput table.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "io/json.h"
#include "io/readerbase.h"
#include "io/textio.h"
#include "io/traceio.h"

namespace ss {

using namespace io;

namespace {

constexpr const char* kClusterFormat = "schedstudio-cluster";
constexpr int kClusterVersion = 1;
// Published machine lists carry no rack information; machines are grouped into racks of this size, in file
// order, so that placement locality still means something (documented in docs/FORMATS.md).
constexpr int kMachinesPerRack = 32;
constexpr int kMaxGpusPerMachine = 4096; // the native JSON reader takes the same bound

// Same figures as the presets (core/model/clusterspec.cpp): list prices per GPU-hour, speeds relative to V100.
GpuType knownGpuType(const std::string& name, double memGbIfUnknown = 16)
{
    const std::string n = lower(name);
    if (n == "v100")
        return {"V100", 3.06, 16, 1.0};
    if (n == "v100m16")
        return {"V100M16", 3.06, 16, 1.0};
    if (n == "v100m32")
        return {"V100M32", 3.90, 32, 1.0};
    if (n == "p100")
        return {"P100", 1.46, 16, 0.55};
    if (n == "t4")
        return {"T4", 0.35, 16, 0.40};
    if (n == "k80")
        return {"K80", 0.90, 12, 0.22};
    // MISC and the undisclosed openb types G1-G3: the MISC assumption of the presets.
    return {name, 1.00, memGbIfUnknown, 0.70};
}

/// A machine's GPU count from a list file: a whole number 0..4096 (a bigger one is a typo or garbage, and
/// would otherwise be allocated GPU by GPU).
int machineGpus(std::string_view text, const FieldRef& at)
{
    const int64_t n = parseInt(text, at);
    if (n < 0)
        fail(at, "negative");
    if (n > kMaxGpusPerMachine)
        fail(at, std::to_string(n) + " GPUs on one machine (at most " + std::to_string(kMaxGpusPerMachine) + ")");
    return int(n);
}

struct ClusterBuilder {
    ClusterSpec c;
    int type(const GpuType& g)
    {
        const int t = c.typeIndex(g.name);
        if (t >= 0)
            return t;
        c.types.push_back(g);
        return int(c.types.size()) - 1;
    }
    void add(Machine m)
    {
        const int rack = int(c.machines.size()) / kMachinesPerRack;
        while (int(c.switches.size()) <= rack)
            c.switches.push_back({"rack" + std::to_string(c.switches.size()), 100});
        m.sw = rack;
        c.machines.push_back(std::move(m));
    }
    ClusterSpec done(const std::string& file, const std::string& name)
    {
        if (c.machines.empty())
            throw IoError(file, 0, "", "no machines");
        if (c.types.empty())
            c.types.push_back(knownGpuType("V100"));
        for (Machine& m : c.machines) // machines without GPUs (type -1 while reading) take the first type
            if (m.type < 0)
                m.type = 0;
        c.name = name;
        c.finalize();
        const std::string err = c.validate();
        if (!err.empty())
            throw IoError(file, 0, "", err);
        return std::move(c);
    }
};

std::string stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// ---- published cluster lists ----

ClusterSpec readPhillyMachines(const std::string& file)
{
    LineReader r(file);
    FieldSplitter sp;
    std::string_view line;
    r.next(line); // header: machineId, number of GPUs, single GPU mem
    ClusterBuilder b;
    while (r.next(line)) {
        if (trim(line).empty())
            continue;
        const auto& v = sp.split(line, ',');
        const long ln = r.lineNo();
        if (v.size() != 3)
            throw IoError(file, ln, v.size() < 2 ? "number of GPUs" : "single GPU mem",
                          "row has " + std::to_string(v.size()) + " fields, header has 3");
        std::string_view mem = trim(v[2]);
        if (mem.size() > 2 && iequals(mem.substr(mem.size() - 2), "gb"))
            mem.remove_suffix(2);
        const double memGb = parseNumber(mem, {file, ln, "single GPU mem"});
        Machine m;
        m.name = std::string(trim(v[0]));
        m.gpus = machineGpus(v[1], {file, ln, "number of GPUs"});
        // Philly's GPU models are not published; types are named by memory (12 GB and 24 GB boards).
        GpuType g = knownGpuType("philly-" + formatDouble(memGb) + "gb", memGb);
        m.type = b.type(g);
        m.cpus = 0;
        m.memoryGb = 0;
        b.add(std::move(m));
    }
    return b.done(file, "philly");
}

ClusterSpec readPaiMachineSpec(const std::string& file)
{
    LineReader r(file);
    FieldSplitter sp;
    std::string_view line;
    ClusterBuilder b;
    int cpuType = -1;
    while (r.next(line)) {
        if (trim(line).empty())
            continue;
        const auto& v = sp.split(line, ',');
        const long ln = r.lineNo();
        if (ln == 1 && v.size() == 5 && iequals(trim(v[0]), "machine"))
            continue; // a header someone added
        static const char* cols[] = {"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"};
        if (v.size() != 5)
            throw IoError(file, ln, cols[std::min<size_t>(v.size(), 4)],
                          "row has " + std::to_string(v.size()) + " fields, expected 5");
        Machine m;
        m.name = std::string(trim(v[0]));
        m.cpus = parseNumber(v[2], {file, ln, "cap_cpu"});
        m.memoryGb = parseNumber(v[3], {file, ln, "cap_mem"});
        m.gpus = machineGpus(v[4], {file, ln, "cap_gpu"});
        const std::string_view t = trim(v[1]);
        if (m.gpus == 0 || iequals(t, "CPU")) {
            m.gpus = 0;
            cpuType = cpuType >= 0 ? cpuType : -2; // resolved below: CPU machines take any type with 0 GPUs
            m.type = -1;
        } else {
            m.type = b.type(knownGpuType(std::string(t)));
        }
        b.add(std::move(m));
    }
    return b.done(file, "pai2020");
}

ClusterSpec readOpenbNodes(const std::string& file)
{
    LineReader r(file);
    FieldSplitter sp;
    std::string_view line;
    r.next(line);
    const Header h(sp.split(line, ','));
    const int cSn = h.require("sn", file, 1), cCpu = h.require("cpu_milli", file, 1),
              cMem = h.require("memory_mib", file, 1), cGpu = h.require("gpu", file, 1),
              cModel = h.require("model", file, 1);
    ClusterBuilder b;
    while (r.next(line)) {
        if (trim(line).empty())
            continue;
        const auto& v = sp.split(line, ',');
        const long ln = r.lineNo();
        if (v.size() != h.size())
            throw IoError(file, ln, h.name(std::min(v.size(), h.size() - 1)),
                          "row has " + std::to_string(v.size()) + " fields, header has " + std::to_string(h.size()));
        Machine m;
        m.name = std::string(trim(v[size_t(cSn)]));
        m.cpus = parseNumber(v[size_t(cCpu)], {file, ln, "cpu_milli"}) / 1000.0;
        m.memoryGb = parseNumber(v[size_t(cMem)], {file, ln, "memory_mib"}) / 1024.0;
        m.gpus = machineGpus(v[size_t(cGpu)], {file, ln, "gpu"});
        const std::string_view model = trim(v[size_t(cModel)]);
        m.type = (m.gpus > 0 && !model.empty()) ? b.type(knownGpuType(std::string(model))) : -1;
        if (m.gpus > 0 && model.empty())
            fail({file, ln, "model"}, "a GPU node needs a GPU model");
        b.add(std::move(m));
    }
    return b.done(file, "openb");
}

ClusterSpec readTiresiasSpec(const std::string& file)
{
    LineReader r(file);
    FieldSplitter sp;
    std::string_view line;
    r.next(line);
    const Header h(sp.split(line, ','));
    const int cS = h.require("num_switch", file, 1), cN = h.require("num_node_p_switch", file, 1),
              cG = h.require("num_gpu_p_node", file, 1), cC = h.index("num_cpu_p_node"), cM = h.index("mem_p_node");
    while (r.next(line) && trim(line).empty()) {
    }
    if (trim(line).empty())
        throw IoError(file, r.lineNo() + 1, "num_switch", "missing the data row");
    const auto& v = sp.split(line, ',');
    const long ln = r.lineNo();
    if (v.size() != h.size())
        throw IoError(file, ln, h.name(std::min(v.size(), h.size() - 1)),
                      "row has " + std::to_string(v.size()) + " fields, header has " + std::to_string(h.size()));
    const long sw = long(parseInt(v[size_t(cS)], {file, ln, "num_switch"}));
    const long nodes = long(parseInt(v[size_t(cN)], {file, ln, "num_node_p_switch"}));
    const long gpus = long(parseInt(v[size_t(cG)], {file, ln, "num_gpu_p_node"}));
    const double cpus = cC >= 0 ? parseNumber(v[size_t(cC)], {file, ln, "num_cpu_p_node"}) : 0;
    const double mem = cM >= 0 ? parseNumber(v[size_t(cM)], {file, ln, "mem_p_node"}) : 0;
    if (sw <= 0 || sw > 10000)
        fail({file, ln, "num_switch"}, "must be 1..10000");
    if (nodes <= 0 || nodes > 100000)
        fail({file, ln, "num_node_p_switch"}, "must be 1..100000");
    if (gpus < 0 || gpus > 1024)
        fail({file, ln, "num_gpu_p_node"}, "must be 0..1024");
    if (sw * nodes > 1000000)
        fail({file, ln, "num_node_p_switch"}, std::to_string(sw * nodes) + " machines in all (at most 1000000)");
    ClusterSpec c;
    // Tiresias ran on P100s (NSDI'19 testbed).
    c.types.push_back(knownGpuType("P100"));
    for (long s = 0; s < sw; ++s) {
        c.switches.push_back({"sw" + std::to_string(s), 100});
        for (long n = 0; n < nodes; ++n) {
            Machine m;
            m.name = "n" + std::to_string(s) + "-" + std::to_string(n);
            m.gpus = int(gpus);
            m.cpus = cpus;
            m.memoryGb = mem;
            m.sw = int(s);
            c.machines.push_back(m);
        }
    }
    c.name = stem(file);
    c.finalize();
    const std::string err = c.validate();
    if (!err.empty())
        throw IoError(file, 0, "", err);
    return c;
}

ClusterSpec readGavelSpec(const JsonValue& root, const std::string& file)
{
    // {"name": ["v100:p100:k80"]}: GPU counts only. Machines get 4 GPUs each (Gavel's own servers).
    const JsonReader jr(file);
    if (root.object().empty())
        jr.fail(root, "", "no cluster in the Gavel spec");
    const auto& [name, list] = *root.object().begin();
    if (!list.isArray() || list.array().empty() || !list.array()[0].isString())
        jr.fail(list, name, "expected [\"v100:p100:k80\"]");
    const std::string spec = list.array()[0].string();
    const auto parts = std::vector<std::string>{[&] {
        std::vector<std::string> p;
        std::stringstream ss(spec);
        std::string x;
        while (std::getline(ss, x, ':'))
            p.push_back(x);
        return p;
    }()};
    if (parts.size() != 3)
        jr.fail(list, name, "expected three counts v100:p100:k80, found '" + spec + "'");
    static const char* types[] = {"V100", "P100", "K80"};
    ClusterBuilder b;
    for (int t = 0; t < 3; ++t) {
        const long n = long(parseInt(parts[size_t(t)], {file, list.line(), name}));
        if (n < 0 || n > 1000000)
            jr.fail(list, name, "GPU count out of range");
        if (n == 0)
            continue;
        const int ti = b.type(knownGpuType(types[t]));
        for (long g = 0; g < n; g += 4) {
            Machine m;
            m.name = lower(types[t]) + "-" + std::to_string(g / 4);
            m.type = ti;
            m.gpus = int(std::min<long>(4, n - g));
            b.add(std::move(m));
        }
    }
    return b.done(file, name);
}

} // namespace

std::vector<std::string> clusterFormatNames()
{
    return {"native", "philly-machines", "pai2020-machines", "openb-nodes", "tiresias-spec", "gavel-spec"};
}

std::string clusterToJson(const ClusterSpec& c)
{
    JsonValue root = JsonValue::makeObject();
    root["format"] = JsonValue::makeString(kClusterFormat);
    root["version"] = JsonValue::makeNumber(kClusterVersion);
    root["name"] = JsonValue::makeString(c.name);
    JsonValue types = JsonValue::makeArray();
    for (const auto& t : c.types) {
        JsonValue o = JsonValue::makeObject();
        o["name"] = JsonValue::makeString(t.name);
        o["price_per_hour"] = JsonValue::makeNumber(t.pricePerHour);
        o["memory_gb"] = JsonValue::makeNumber(t.memoryGb);
        o["speed"] = JsonValue::makeNumber(t.speed);
        types.push(std::move(o));
    }
    root["gpu_types"] = std::move(types);
    JsonValue sws = JsonValue::makeArray();
    for (const auto& s : c.switches) {
        JsonValue o = JsonValue::makeObject();
        o["name"] = JsonValue::makeString(s.name);
        o["uplink_gbps"] = JsonValue::makeNumber(s.uplinkGbps);
        sws.push(std::move(o));
    }
    root["switches"] = std::move(sws);
    JsonValue links = JsonValue::makeArray();
    for (const auto& l : c.links) {
        JsonValue o = JsonValue::makeObject();
        o["from"] = JsonValue::makeString(c.switches.at(size_t(l.a)).name);
        o["to"] = JsonValue::makeString(c.switches.at(size_t(l.b)).name);
        o["gbps"] = JsonValue::makeNumber(l.gbps);
        links.push(std::move(o));
    }
    root["links"] = std::move(links);
    JsonValue ms = JsonValue::makeArray();
    for (const auto& m : c.machines) {
        JsonValue o = JsonValue::makeObject();
        o["name"] = JsonValue::makeString(m.name);
        o["gpu_type"] = JsonValue::makeString(c.types.at(size_t(m.type)).name);
        o["gpus"] = JsonValue::makeNumber(m.gpus);
        o["cpus"] = JsonValue::makeNumber(m.cpus);
        o["memory_gb"] = JsonValue::makeNumber(m.memoryGb);
        o["switch"] = JsonValue::makeString(c.switches.at(size_t(m.sw)).name);
        o["nic_gbps"] = JsonValue::makeNumber(m.nicGbps);
        ms.push(std::move(o));
    }
    root["machines"] = std::move(ms);
    return writeJson(root);
}

ClusterSpec clusterFromJson(const std::string& text, const std::string& file)
{
    const JsonValue root = parseJson(text, file);
    const JsonReader jr(file);
    if (!root.isObject())
        jr.fail(root, "", "a cluster file must be a JSON object");
    const std::string fmt = jr.string(root, "format");
    if (fmt != kClusterFormat)
        jr.fail(*root.find("format"), "format", "expected \"" + std::string(kClusterFormat) + "\", found \"" + fmt + "\"");
    const double ver = jr.number(root, "version");
    if (ver != kClusterVersion)
        jr.fail(*root.find("version"), "version",
                "unsupported version " + formatDouble(ver) + " (this build reads version 1)");
    ClusterSpec c;
    c.name = jr.string(root, "name", stem(file));
    auto sub = [](const char* arr, size_t i, const char* key) {
        return std::string(arr) + "[" + std::to_string(i) + "]." + key;
    };
    // Errors from typed access name the member ("gpus"); say which item it belongs to ("machines[3].gpus").
    auto prefixed = [&](const char* arr, size_t i, auto&& fn) {
        try {
            fn();
        } catch (const IoError& e) {
            const std::string w = e.what(), tag = "column '" + e.field() + "': ";
            const size_t p = w.find(tag);
            throw IoError(file, e.line(), sub(arr, i, e.field().c_str()),
                          p == std::string::npos ? w : w.substr(p + tag.size()));
        }
    };
    const auto& types = jr.array(root, "gpu_types", true);
    for (size_t i = 0; i < types.size(); ++i) {
        const JsonValue& t = types[i];
        if (!t.isObject())
            jr.fail(t, sub("gpu_types", i, ""), "expected an object");
        GpuType g;
        prefixed("gpu_types", i, [&] {
            g.name = jr.string(t, "name");
            g.pricePerHour = jr.number(t, "price_per_hour", g.pricePerHour);
            g.memoryGb = jr.number(t, "memory_gb", g.memoryGb);
            g.speed = jr.number(t, "speed", g.speed);
        });
        if (!(g.speed > 0))
            jr.fail(t, sub("gpu_types", i, "speed"), "must be > 0");
        if (g.pricePerHour < 0)
            jr.fail(t, sub("gpu_types", i, "price_per_hour"), "must be >= 0");
        if (c.typeIndex(g.name) >= 0)
            jr.fail(t, sub("gpu_types", i, "name"), "duplicate GPU type '" + g.name + "'");
        c.types.push_back(g);
    }
    if (c.types.empty())
        jr.fail(root, "gpu_types", "at least one GPU type is required");
    const auto& sws = jr.array(root, "switches", false);
    auto switchIndex = [&](const std::string& n) {
        for (size_t i = 0; i < c.switches.size(); ++i)
            if (c.switches[i].name == n)
                return int(i);
        return -1;
    };
    for (size_t i = 0; i < sws.size(); ++i) {
        const JsonValue& s = sws[i];
        Switch w;
        prefixed("switches", i, [&] {
            w.name = jr.string(s, "name");
            w.uplinkGbps = jr.number(s, "uplink_gbps", w.uplinkGbps);
        });
        if (!(w.uplinkGbps > 0))
            jr.fail(s, sub("switches", i, "uplink_gbps"), "must be > 0");
        if (switchIndex(w.name) >= 0)
            jr.fail(s, sub("switches", i, "name"), "duplicate switch '" + w.name + "'");
        c.switches.push_back(w);
    }
    if (c.switches.empty())
        c.switches.push_back({"core", 100});
    const auto& linkArray = jr.array(root, "links", false);
    for (size_t i = 0; i < linkArray.size(); ++i) {
        const JsonValue* l = &linkArray[i];
        Link k;
        prefixed("links", i, [&] {
            k.a = switchIndex(jr.string(*l, "from"));
            k.b = switchIndex(jr.string(*l, "to"));
            k.gbps = jr.number(*l, "gbps", k.gbps);
        });
        if (k.a < 0)
            jr.fail(*l, sub("links", i, "from"), "unknown switch '" + jr.string(*l, "from") + "'");
        if (k.b < 0)
            jr.fail(*l, sub("links", i, "to"), "unknown switch '" + jr.string(*l, "to") + "'");
        if (!(k.gbps > 0))
            jr.fail(*l, sub("links", i, "gbps"), "must be > 0");
        c.links.push_back(k);
    }
    const auto& ms = jr.array(root, "machines", true);
    for (size_t i = 0; i < ms.size(); ++i) {
        const JsonValue& mj = ms[i];
        if (!mj.isObject())
            jr.fail(mj, sub("machines", i, ""), "expected an object");
        Machine m;
        std::string name, tn, sw;
        double gpus = 0, count = 1;
        prefixed("machines", i, [&] {
            name = jr.string(mj, "name");
            tn = jr.string(mj, "gpu_type", c.types[0].name);
            gpus = jr.number(mj, "gpus");
            m.cpus = jr.number(mj, "cpus", 0);
            m.memoryGb = jr.number(mj, "memory_gb", 0);
            m.nicGbps = jr.number(mj, "nic_gbps", m.nicGbps);
            sw = jr.string(mj, "switch", c.switches[0].name);
            count = jr.number(mj, "count", 1);
        });
        m.type = c.typeIndex(tn);
        if (m.type < 0)
            jr.fail(mj, sub("machines", i, "gpu_type"), "unknown GPU type '" + tn + "'");
        if (gpus < 0 || gpus != std::floor(gpus) || gpus > kMaxGpusPerMachine)
            jr.fail(mj, sub("machines", i, "gpus"), "must be a whole number 0..4096");
        m.gpus = int(gpus);
        if (m.cpus < 0 || m.memoryGb < 0)
            jr.fail(mj, sub("machines", i, m.cpus < 0 ? "cpus" : "memory_gb"), "must be >= 0");
        if (!(m.nicGbps > 0))
            jr.fail(mj, sub("machines", i, "nic_gbps"), "must be > 0");
        m.sw = switchIndex(sw);
        if (m.sw < 0)
            jr.fail(mj, sub("machines", i, "switch"), "unknown switch '" + sw + "'");
        if (count < 1 || count != std::floor(count) || count > 1000000)
            jr.fail(mj, sub("machines", i, "count"), "must be a whole number >= 1");
        if (count == 1) {
            m.name = name;
            c.machines.push_back(m);
        } else {
            for (long k = 0; k < long(count); ++k) {
                m.name = name + "-" + std::to_string(k);
                c.machines.push_back(m);
            }
        }
    }
    if (c.machines.empty())
        jr.fail(root, "machines", "at least one machine is required");
    c.finalize();
    const std::string err = c.validate();
    if (!err.empty())
        throw IoError(file, 0, "", err);
    return c;
}

void writeClusterJson(const ClusterSpec& cluster, const std::string& path)
{
    const std::string text = clusterToJson(cluster);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        throw IoError(path, 0, "", "cannot write");
    out << text;
    out.close();
    if (!out)
        throw IoError(path, 0, "", "write failed");
}

ClusterSpec readCluster(const std::string& pathOrPreset, std::string* formatOut)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(pathOrPreset, ec)) {
        const auto presets = clusterPresetNames();
        if (std::find(presets.begin(), presets.end(), pathOrPreset) != presets.end()) {
            if (formatOut)
                *formatOut = "preset";
            return makeClusterPreset(pathOrPreset);
        }
        std::string list;
        for (const auto& p : presets)
            list += (list.empty() ? "" : ", ") + p;
        throw IoError(pathOrPreset, 0, "", "no such file or cluster preset (presets: " + list + ")");
    }
    const std::string& file = pathOrPreset;
    std::string firstLine;
    {
        LineReader r(file);
        std::string_view l;
        while (r.next(l))
            if (!trim(l).empty()) {
                firstLine = std::string(trim(l));
                break;
            }
        if (firstLine.empty())
            throw IoError(file, 0, "", "empty file");
    }
    auto set = [&](const char* f) {
        if (formatOut)
            *formatOut = f;
    };
    if (firstLine[0] == '{') {
        const std::string text = readWholeFile(file);
        if (text.find("\"format\"") != std::string::npos || text.find("\"machines\"") != std::string::npos) {
            set("native");
            return clusterFromJson(text, file);
        }
        const JsonValue root = parseJson(text, file);
        set("gavel-spec");
        return readGavelSpec(root, file);
    }
    const std::string h = lower(firstLine);
    if (h.rfind("machineid", 0) == 0) {
        set("philly-machines");
        return readPhillyMachines(file);
    }
    if (h.rfind("sn,", 0) == 0) {
        set("openb-nodes");
        return readOpenbNodes(file);
    }
    if (h.rfind("num_switch", 0) == 0) {
        set("tiresias-spec");
        return readTiresiasSpec(file);
    }
    FieldSplitter sp;
    if (sp.split(firstLine, ',').size() == 5) {
        set("pai2020-machines");
        return readPaiMachineSpec(file);
    }
    throw IoError(file, 1, "", "unknown cluster format (expected " + [] {
        std::string s;
        for (const auto& n : clusterFormatNames())
            s += (s.empty() ? "" : ", ") + n;
        return s;
    }() + ")");
}

// ---- Gavel throughputs ----

namespace io {

bool parseGavelKey(const std::string& key, std::string& model, int& scale)
{
    // "('ResNet-18 (batch size 16)', 1)"
    if (key.size() < 7 || key.compare(0, 2, "('") != 0 || key.back() != ')')
        return false;
    const size_t q = key.rfind("', ");
    if (q == std::string::npos || q < 2)
        return false;
    model = key.substr(2, q - 2);
    const std::string num = key.substr(q + 3, key.size() - 1 - (q + 3));
    try {
        scale = std::stoi(num);
    } catch (...) {
        return false;
    }
    return true;
}

GavelThroughputs loadGavelThroughputs(const std::string& path)
{
    const JsonValue root = parseJson(readWholeFile(path), path);
    const JsonReader jr(path);
    if (!root.isObject())
        jr.fail(root, "", "expected an object of worker types");
    GavelThroughputs t;
    for (const auto& [worker, jobs] : root.object()) {
        if (!jobs.isObject())
            jr.fail(jobs, worker, "expected an object of job types");
        for (const auto& [key, entry] : jobs.object()) {
            std::string model;
            int scale = 0;
            if (!parseGavelKey(key, model, scale))
                jr.fail(entry, key, "key is not ('job type', scale)");
            if (!entry.isObject())
                jr.fail(entry, key, "expected an object of co-located jobs");
            for (const auto& [other, v] : entry.object()) {
                if (other == "null")
                    continue;
                std::string otherModel;
                int otherScale = 0;
                if (!parseGavelKey(other, otherModel, otherScale))
                    jr.fail(v, key + "." + other, "key is not ('job type', scale)");
                if (!v.isArray() || v.array().size() != 2 || !v.array()[0].isNumber() || !v.array()[1].isNumber())
                    jr.fail(v, key + "." + other, "expected [steps/s of the job, steps/s of the other]");
                if (otherScale == scale)
                    t.pairs.push_back({lower(worker), model, otherModel, scale, v.array()[0].number(), v.array()[1].number()});
            }
            const JsonValue* alone = entry.find("null");
            if (!alone)
                continue; // some entries only list co-locations
            if (!alone->isNumber())
                jr.fail(*alone, key + ".null", "expected a number (steps/s)");
            t.stepsPerSecond[lower(worker)][{model, scale}] = alone->number();
        }
    }
    return t;
}

} // namespace io

ThroughputTable readThroughputTable(const std::string& path)
{
    const io::GavelThroughputs g = io::loadGavelThroughputs(path);
    // Reference: v100 (the fastest type in Gavel's table); relative speed per model at scale 1.
    auto ref = g.stepsPerSecond.find("v100");
    if (ref == g.stepsPerSecond.end())
        throw IoError(path, 0, "v100", "the table has no v100 entry to serve as reference");
    ThroughputTable table;
    for (const auto& [worker, m] : g.stepsPerSecond) {
        for (const auto& [key, sps] : m) {
            if (key.second != 1)
                continue;
            auto r = ref->second.find(key);
            if (r == ref->second.end() || !(r->second > 0) || !(sps > 0))
                continue;
            table.set(key.first, worker, sps / r->second);
        }
    }
    if (table.empty())
        throw IoError(path, 0, "", "no single-GPU throughputs found");
    // the raw steps/s too: the Gavel policies' T matrix and per-scale speeds (perf/perfmodel.h)
    table.setReferenceType("v100");
    for (const auto& [worker, m] : g.stepsPerSecond)
        for (const auto& [key, sps] : m)
            if (sps >= 0) // 0 is a measurement: the job cannot run on that type (e.g. out of memory on k80)
                table.setStepsPerSecond(key.first, key.second, worker, sps);
    for (const io::GavelThroughputs::Pair& p : g.pairs)
        if (p.ta >= 0 && p.tb >= 0)
            table.setPairStepsPerSecond(p.a, p.b, p.scale, p.worker, p.ta, p.tb);
    return table;
}

} // namespace ss
