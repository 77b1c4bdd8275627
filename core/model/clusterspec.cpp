#include "model/clusterspec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <tuple>

#include "model/fnv.h"

namespace ss {

namespace {
bool iequals(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

} // namespace

void ClusterSpec::finalize()
{
    m_gpuBase.assign(machines.size(), 0);
    m_gpuMachine.clear();
    m_totalGpus = 0;
    m_maxGpus = 0;
    m_maxGpusOfType.assign(types.size(), 0);
    for (size_t m = 0; m < machines.size(); ++m) {
        m_gpuBase[m] = m_totalGpus;
        const int g = std::max(0, machines[m].gpus);
        m_totalGpus += g;
        m_maxGpus = std::max(m_maxGpus, g);
        if (machines[m].type >= 0 && size_t(machines[m].type) < types.size())
            m_maxGpusOfType[size_t(machines[m].type)] = std::max(m_maxGpusOfType[size_t(machines[m].type)], g);
        m_gpuMachine.insert(m_gpuMachine.end(), size_t(g), int(m));
    }
}

double ClusterSpec::referenceGpus() const
{
    double sum = 0;
    for (const Machine& m : machines)
        if (m.type >= 0 && size_t(m.type) < types.size())
            sum += double(std::max(0, m.gpus)) * types[size_t(m.type)].speed;
    return sum;
}

int ClusterSpec::maxGpusPerMachineOf(uint64_t typeMask) const
{
    int mx = 0;
    for (size_t t = 0; t < m_maxGpusOfType.size() && t < 64; ++t)
        if ((typeMask >> t) & 1ULL)
            mx = std::max(mx, m_maxGpusOfType[t]);
    return mx;
}

std::string ClusterSpec::validate() const
{
    if (types.empty())
        return "cluster '" + name + "': no GPU types";
    if (types.size() > 64)
        return "cluster '" + name + "': at most 64 GPU types are supported";
    for (size_t t = 0; t < types.size(); ++t) {
        const GpuType& g = types[t];
        if (g.name.empty())
            return "gpu_types[" + std::to_string(t) + "]: empty name";
        for (size_t u = 0; u < t; ++u)
            if (iequals(types[u].name, g.name))
                return "gpu_types[" + std::to_string(t) + "]: duplicate name '" + g.name + "'";
        if (!(g.speed > 0) || !std::isfinite(g.speed))
            return "gpu type '" + g.name + "': speed must be > 0";
        if (g.pricePerHour < 0 || !std::isfinite(g.pricePerHour))
            return "gpu type '" + g.name + "': price_per_hour must be >= 0";
    }
    if (switches.empty())
        return "cluster '" + name + "': no switches";
    if (machines.empty())
        return "cluster '" + name + "': no machines";
    int gpus = 0;
    for (size_t m = 0; m < machines.size(); ++m) {
        const Machine& mc = machines[m];
        const std::string where = "machine '" + mc.name + "' (#" + std::to_string(m) + ")";
        if (mc.type < 0 || size_t(mc.type) >= types.size())
            return where + ": unknown GPU type index " + std::to_string(mc.type);
        if (mc.gpus < 0 || mc.gpus > 1024)
            return where + ": gpus must be in 0..1024";
        if (mc.sw < 0 || size_t(mc.sw) >= switches.size())
            return where + ": unknown switch index " + std::to_string(mc.sw);
        gpus += mc.gpus;
    }
    if (gpus == 0)
        return "cluster '" + name + "': no GPUs";
    for (size_t l = 0; l < links.size(); ++l) {
        const Link& k = links[l];
        if (k.a < 0 || k.b < 0 || size_t(k.a) >= switches.size() || size_t(k.b) >= switches.size() || k.a == k.b)
            return "links[" + std::to_string(l) + "]: must join two different existing switches";
        if (!(k.gbps > 0))
            return "links[" + std::to_string(l) + "]: gbps must be > 0";
    }
    return {};
}

int ClusterSpec::typeIndex(std::string_view n) const
{
    for (size_t t = 0; t < types.size(); ++t)
        if (iequals(types[t].name, n))
            return int(t);
    return -1;
}

std::string ClusterSpec::fingerprint() const
{
    Fnv f;
    for (const GpuType& t : types) {
        f.str(t.name);
        f.num(t.pricePerHour);
        f.num(t.speed);
        f.num(t.memoryGb);
    }
    for (const Switch& s : switches) {
        f.str(s.name);
        f.num(s.uplinkGbps);
    }
    for (const Machine& m : machines) {
        f.num(m.type);
        f.num(m.gpus);
        f.num(m.cpus);
        f.num(m.memoryGb);
        f.num(m.sw);
        f.num(m.nicGbps);
    }
    for (const Link& l : links) {
        f.num(l.a);
        f.num(l.b);
        f.num(l.gbps);
    }
    return f.hex();
}

// ---------------------------------------------------------------------------------------------------------
// Presets. GPU prices are public on-demand list prices per GPU-hour (2023), speeds are relative to a V100:
//   V100 $3.06 (AWS p3.2xlarge), V100M32 $3.90 (AWS p3dn.24xlarge / 8), P100 $1.46 (GCP), T4 $0.35 (GCP),
//   K80 $0.90 (AWS p2.xlarge), MISC $1.00 (undisclosed Alibaba type; our assumption).
//   Speeds: V100 1.0, V100M32 1.0, P100 0.55, T4 0.40, K80 0.22, MISC 0.70 (rough ratios of Gavel's measured
//   throughputs; per-model figures come from a ThroughputTable when one is loaded).
namespace {
GpuType gpu(const std::string& name)
{
    if (name == "V100")
        return {"V100", 3.06, 16, 1.0};
    if (name == "V100M32")
        return {"V100M32", 3.90, 32, 1.0};
    if (name == "P100")
        return {"P100", 1.46, 16, 0.55};
    if (name == "T4")
        return {"T4", 0.35, 16, 0.40};
    if (name == "K80")
        return {"K80", 0.90, 12, 0.22};
    return {"MISC", 1.00, 16, 0.70};
}

} // namespace

std::vector<GpuType> gpuTypeCatalog()
{
    std::vector<GpuType> v;
    for (const char* n : {"V100", "V100M32", "P100", "T4", "K80", "MISC"})
        v.push_back(gpu(n));
    return v;
}

namespace {

struct Builder {
    ClusterSpec c;
    int type(const std::string& n)
    {
        int t = c.typeIndex(n);
        if (t >= 0)
            return t;
        c.types.push_back(gpu(n));
        return int(c.types.size()) - 1;
    }
    int sw(const std::string& n, double up = 100)
    {
        c.switches.push_back({n, up});
        return int(c.switches.size()) - 1;
    }
    void machines(int count, const std::string& t, int gpus, int s, double cpus, double mem, double nic,
                  const std::string& prefix)
    {
        const int ti = type(t);
        for (int i = 0; i < count; ++i) {
            Machine m;
            m.name = prefix + std::to_string(c.machines.size());
            m.type = ti;
            m.gpus = gpus;
            m.cpus = cpus;
            m.memoryGb = mem;
            m.sw = s;
            m.nicGbps = nic;
            c.machines.push_back(m);
        }
    }
    ClusterSpec done(const std::string& name)
    {
        c.name = name;
        c.finalize();
        return c;
    }
};

// DAS-style clusters (ALGORITHMS.md §2.3, our choice where the paper is silent): V100/P100/T4 machines, unequal
// speeds, a few switches. Each entry: {GPU type, machines}; machines are spread over `switches` in order.
ClusterSpec dasCluster(const std::string& name, int gpusPerMachine, int switches,
                       const std::vector<std::pair<std::string, int>>& mix)
{
    Builder b;
    int total = 0;
    for (auto& [t, n] : mix)
        total += n;
    for (int s = 0; s < switches; ++s)
        b.sw("sw" + std::to_string(s));
    const int perSwitch = (total + switches - 1) / switches;
    int placed = 0;
    for (auto& [t, n] : mix) {
        for (int i = 0; i < n; ++i) {
            b.machines(1, t, gpusPerMachine, std::min(switches - 1, placed / perSwitch), 8.0 * gpusPerMachine,
                       64.0 * gpusPerMachine, 25, "m");
            ++placed;
        }
    }
    for (int s = 0; s + 1 < switches; ++s)
        b.c.links.push_back({s, s + 1, 100});
    return b.done(name);
}
} // namespace

std::vector<std::string> clusterPresetNames()
{
    return {"das-case", "das-small", "das-medium", "das-large", "gavel-108", "tiresias-n32g4", "alibaba-scale", "chronus-120x8"};
}

std::string clusterPresetDescription(std::string_view name)
{
    if (name == "das-case")
        return "DAS case study: 8 machines x 4 GPUs (4 V100, 4 P100) on one switch";
    if (name == "das-small")
        return "DAS Small (our choice): 8 machines x 4 GPUs, 3 V100 + 3 P100 + 2 T4 machines, 2 switches";
    if (name == "das-medium")
        return "DAS Medium (our choice): 16 machines x 8 GPUs, 6 V100 + 6 P100 + 4 T4 machines, 4 switches";
    if (name == "das-large")
        return "DAS Large (our choice): 32 machines x 8 GPUs, 12 V100 + 12 P100 + 8 T4 machines, 8 switches";
    if (name == "gavel-108")
        return "Gavel simulation cluster: 36 V100 + 36 P100 + 36 K80 (9 machines x 4 GPUs per type)";
    if (name == "tiresias-n32g4")
        return "Tiresias n32g4: 1 switch, 32 nodes x 4 GPUs (P100), 40 CPUs, 256 GB";
    if (name == "chronus-120x8")
        return "Chronus Philly simulation cluster: 120 machines x 8 GPUs (V100) on one switch";
    if (name == "alibaba-scale")
        return "Alibaba PAI 2020 mix: 104x8 V100, 135x8 V100M32, 280x8 MISC, 798x2 P100, 497x2 T4 "
               "(6,742 GPUs on 1,814 machines, 57 switches of 32)";
    return {};
}

ClusterSpec makeClusterPreset(std::string_view name)
{
    if (name == "das-case") {
        Builder b;
        b.sw("sw0");
        b.machines(4, "V100", 4, 0, 32, 256, 25, "m");
        b.machines(4, "P100", 4, 0, 32, 256, 25, "m");
        return b.done("das-case");
    }
    if (name == "das-small")
        return dasCluster("das-small", 4, 2, {{"V100", 3}, {"P100", 3}, {"T4", 2}});
    if (name == "das-medium")
        return dasCluster("das-medium", 8, 4, {{"V100", 6}, {"P100", 6}, {"T4", 4}});
    if (name == "das-large")
        return dasCluster("das-large", 8, 8, {{"V100", 12}, {"P100", 12}, {"T4", 8}});
    if (name == "gavel-108") {
        Builder b;
        const int s0 = b.sw("v100"), s1 = b.sw("p100"), s2 = b.sw("k80");
        b.machines(9, "V100", 4, s0, 32, 244, 25, "v100-");
        b.machines(9, "P100", 4, s1, 32, 244, 25, "p100-");
        b.machines(9, "K80", 4, s2, 32, 244, 25, "k80-");
        return b.done("gavel-108");
    }
    if (name == "tiresias-n32g4") {
        Builder b;
        b.sw("sw0");
        b.machines(32, "P100", 4, 0, 40, 256, 25, "n");
        return b.done("tiresias-n32g4");
    }
    if (name == "chronus-120x8") {
        // Chronus's artifact simulates Philly traces on 120 nodes x 8 GPUs under one switch (ALGORITHMS.md §5.5);
        // the GPU model is not named there: V100, 64 CPUs and 512 GB per node are our choice.
        Builder b;
        b.sw("sw0");
        b.machines(120, "V100", 8, 0, 64, 512, 25, "node");
        return b.done("chronus-120x8");
    }
    if (name == "alibaba-scale") {
        Builder b;
        const std::vector<std::tuple<std::string, int, int>> mix = {
            {"V100", 104, 8}, {"V100M32", 135, 8}, {"MISC", 280, 8}, {"P100", 798, 2}, {"T4", 497, 2}};
        int total = 0;
        for (auto& [t, n, g] : mix)
            total += n;
        const int perSwitch = 32;
        for (int s = 0; s < (total + perSwitch - 1) / perSwitch; ++s)
            b.sw("sw" + std::to_string(s), 400);
        int placed = 0;
        for (auto& [t, n, g] : mix)
            for (int i = 0; i < n; ++i, ++placed)
                b.machines(1, t, g, placed / perSwitch, g == 8 ? 96 : 64, g == 8 ? 512 : 256, 25, "node");
        return b.done("alibaba-scale");
    }
    std::string names;
    for (auto& n : clusterPresetNames())
        names += (names.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown cluster preset '" + std::string(name) + "' (presets: " + names + ")");
}

} // namespace ss
