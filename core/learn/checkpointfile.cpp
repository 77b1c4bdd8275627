// The checkpoint file (ALGORITHMS §2.6 checkpoints): magic, format version, a JSON header, the tensor archive
// as bytes, and an FNV-1a checksum over header and tensors. Plain C++: the LibTorch module serialises the
// networks into the tensor bytes (das.cpp) and hands them here.
#include "learn/checkpointfile.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

#include "io/ioerror.h"
#include "io/json.h"
#include "learn/features.h"
#include "model/fnv.h"

namespace ss::learn {

static const char kMagic[8] = {'S', 'S', 'C', 'K', 'P', 'T', '\r', '\n'};

static uint64_t fnv1a(const std::string& s, uint64_t h = Fnv().h)
{
    Fnv f;
    f.h = h;
    f.bytes(s.data(), s.size());
    return f.h;
}

// The header is a flat JSON object of strings and numbers, written and read with the project's one JSON
// reader/writer (io/json.h).
static std::string metaJson(const CheckpointMeta& m)
{
    JsonValue o = JsonValue::makeObject();
    auto n = [](double v) { return JsonValue::makeNumber(v); };
    auto t = [](const std::string& v) { return JsonValue::makeString(v); };
    o["format"] = t("schedstudio-checkpoint");
    o["format_version"] = n(kCheckpointVersion);
    o["feature_version"] = n(kFeatureVersion);
    o["policy"] = t(m.agent.variant);
    o["d_model"] = n(m.agent.dModel);
    o["heads"] = n(m.agent.heads);
    o["layers"] = n(m.agent.layers);
    o["tau"] = n(m.agent.tau);
    o["max_queue"] = n(m.agent.maxQueue);
    if (m.agent.rwgpKernel != "similarity")
        o["rwgp_kernel"] = t(m.agent.rwgpKernel);
    if (m.agent.critic != "v")
        o["critic"] = t(m.agent.critic);
    o["job_features"] = n(kJobFeatures);
    o["machine_features"] = n(kMachineFeatures);
    o["global_features"] = n(kGlobalFeatures);
    o["cluster"] = t(m.clusterName);
    o["cluster_fingerprint"] = t(m.clusterFingerprint);
    o["machines"] = n(m.machines);
    o["seed"] = n(double(m.seed));
    o["iterations"] = n(m.iterations);
    o["env_steps"] = n(double(m.envSteps));
    o["train_trace"] = t(m.trainTrace);
    o["command"] = t(m.command);
    return writeJson(o, -1);
}

// The header's members as text (numbers in their shortest exact form), for the typed reads below.
static std::map<std::string, std::string> parseFlatJson(const std::string& s, const std::string& file)
{
    JsonValue root;
    try {
        root = parseJson(s, file);
    } catch (const IoError& e) {
        throw std::runtime_error(file + ": corrupt checkpoint header (" + e.reason() + ")");
    }
    if (!root.isObject())
        throw std::runtime_error(file + ": corrupt checkpoint header (expected an object)");
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : root.object()) {
        if (v.isString())
            out[k] = v.string();
        else if (v.isNumber())
            out[k] = formatNumber(v.number());
        else
            throw std::runtime_error(file + ": corrupt checkpoint header (member '" + k + "' is neither text nor a number)");
    }
    return out;
}

void writeCheckpointFile(const std::string& path, const CheckpointMeta& meta, const std::string& tensors)
{
    const std::string json = metaJson(meta);
    const uint64_t sum = fnv1a(tensors, fnv1a(json));

    const std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f)
            throw std::runtime_error(path + ": cannot write checkpoint");
        auto u32 = [&](uint32_t v) { f.write(reinterpret_cast<const char*>(&v), 4); };
        auto u64 = [&](uint64_t v) { f.write(reinterpret_cast<const char*>(&v), 8); };
        f.write(kMagic, 8);
        u32(kCheckpointVersion);
        u32(uint32_t(json.size()));
        f.write(json.data(), std::streamsize(json.size()));
        u64(uint64_t(tensors.size()));
        f.write(tensors.data(), std::streamsize(tensors.size()));
        u64(sum);
        if (!f)
            throw std::runtime_error(path + ": write failed");
    }
    // Write-then-rename so that an interrupted save never leaves a half checkpoint under the real name.
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        throw std::runtime_error(path + ": cannot rename temporary checkpoint file");
}

static std::pair<std::map<std::string, std::string>, std::string> readRaw(const std::string& path, bool withTensors)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw std::runtime_error(path + ": cannot open checkpoint");
    char magic[8];
    if (!f.read(magic, 8) || std::memcmp(magic, kMagic, 8) != 0)
        throw std::runtime_error(path + ": not a SchedStudio checkpoint (bad magic)");
    uint32_t version = 0, jlen = 0;
    if (!f.read(reinterpret_cast<char*>(&version), 4))
        throw std::runtime_error(path + ": truncated checkpoint (no version)");
    if (version == 0 || version > kCheckpointVersion)
        throw std::runtime_error(path + ": checkpoint format version " + std::to_string(version)
                                 + " is not supported (this build reads up to " + std::to_string(kCheckpointVersion) + ")");
    if (!f.read(reinterpret_cast<char*>(&jlen), 4) || jlen > (1u << 20))
        throw std::runtime_error(path + ": corrupt checkpoint (header length)");
    std::string json(jlen, '\0');
    if (!f.read(json.data(), jlen))
        throw std::runtime_error(path + ": truncated checkpoint (header)");
    uint64_t tlen = 0;
    if (!f.read(reinterpret_cast<char*>(&tlen), 8) || tlen > (uint64_t(1) << 32))
        throw std::runtime_error(path + ": truncated or corrupt checkpoint (tensor length)");
    // a corrupt length must not be allocated before it is checked against what the file holds (fuzzed: a
    // flipped byte asked for 4 GB)
    const std::streampos here = f.tellg();
    f.seekg(0, std::ios::end);
    const uint64_t left = uint64_t(f.tellg() - here);
    f.seekg(here);
    if (tlen + 8 > left)
        throw std::runtime_error(path + ": truncated or corrupt checkpoint (tensor length " + std::to_string(tlen) + ", "
                                 + std::to_string(left) + " bytes left)");
    std::string tensors(size_t(tlen), '\0');
    if (!f.read(tensors.data(), std::streamsize(tlen)))
        throw std::runtime_error(path + ": truncated checkpoint (tensors)");
    uint64_t sum = 0;
    if (!f.read(reinterpret_cast<char*>(&sum), 8))
        throw std::runtime_error(path + ": truncated checkpoint (checksum)");
    if (sum != fnv1a(tensors, fnv1a(json)))
        throw std::runtime_error(path + ": corrupt checkpoint (checksum mismatch)");
    if (!withTensors)
        tensors.clear();
    return {parseFlatJson(json, path), std::move(tensors)};
}

static CheckpointMeta metaFrom(const std::map<std::string, std::string>& j, const std::string& path)
{
    auto get = [&](const std::string& k) -> std::string {
        auto it = j.find(k);
        if (it == j.end())
            throw std::runtime_error(path + ": checkpoint header lacks '" + k + "'");
        return it->second;
    };
    auto num = [&](const std::string& k) -> long long {
        try {
            return std::stoll(get(k));
        } catch (const std::logic_error&) {
            throw std::runtime_error(path + ": checkpoint header field '" + k + "' is not a number");
        }
    };
    if (get("format") != "schedstudio-checkpoint")
        throw std::runtime_error(path + ": not a SchedStudio checkpoint");
    if (num("feature_version") != kFeatureVersion || num("job_features") != kJobFeatures
        || num("machine_features") != kMachineFeatures || num("global_features") != kGlobalFeatures)
        throw std::runtime_error(path + ": checkpoint feature sizes (version " + get("feature_version")
                                 + ") do not match this build (version " + std::to_string(kFeatureVersion) + ")");
    CheckpointMeta m;
    m.agent.variant = get("policy");
    m.agent.dModel = int(num("d_model"));
    m.agent.heads = int(num("heads"));
    m.agent.layers = int(num("layers"));
    m.agent.tau = int(num("tau"));
    m.agent.maxQueue = int(num("max_queue"));
    if (auto it = j.find("rwgp_kernel"); it != j.end()) {
        if (it->second != "similarity" && it->second != "seed")
            throw std::runtime_error(path + ": checkpoint header field 'rwgp_kernel' is '" + it->second
                                     + "' (this build knows similarity and seed)");
        m.agent.rwgpKernel = it->second;
    }
    if (auto it = j.find("critic"); it != j.end()) {
        if (it->second != "v" && it->second != "q")
            throw std::runtime_error(path + ": checkpoint header field 'critic' is '" + it->second
                                     + "' (this build knows v and q)");
        m.agent.critic = it->second;
    }
    m.clusterName = get("cluster");
    m.clusterFingerprint = get("cluster_fingerprint");
    m.machines = int(num("machines"));
    m.seed = uint64_t(num("seed"));
    m.iterations = int(num("iterations"));
    m.envSteps = num("env_steps");
    m.trainTrace = get("train_trace");
    m.command = get("command");
    return m;
}

CheckpointFile readCheckpointFile(const std::string& path, bool withTensors)
{
    auto [json, tensors] = readRaw(path, withTensors);
    return {metaFrom(json, path), std::move(tensors)};
}

} // namespace ss::learn
