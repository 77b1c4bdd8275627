#include "model/accel/accelmodel.h"

#include <stdexcept>

namespace ss::accel {

const char* toString(Dataflow d) { return d == Dataflow::WeightStationary ? "ws" : "rs"; }

bool parseDataflow(const std::string& s, Dataflow& out)
{
    if (s == "ws" || s == "dla" || s == "simba" || s == "weight-stationary") {
        out = Dataflow::WeightStationary;
        return true;
    }
    if (s == "rs" || s == "eye" || s == "eyeriss" || s == "row-stationary") {
        out = Dataflow::RowStationary;
        return true;
    }
    return false;
}

const char* toString(LayerType t)
{
    switch (t) {
    case LayerType::Conv: return "conv";
    case LayerType::DwConv: return "dwconv";
    case LayerType::Fc: return "fc";
    case LayerType::Matmul: return "matmul";
    }
    return "?";
}

bool parseLayerType(const std::string& s, LayerType& out)
{
    for (LayerType t : {LayerType::Conv, LayerType::DwConv, LayerType::Fc, LayerType::Matmul})
        if (s == toString(t)) {
            out = t;
            return true;
        }
    return false;
}

namespace {
Chip makeChip(const std::string& name, const std::vector<int>& clusters, const std::vector<Dataflow>& df,
              double bandwidth)
{
    Chip c;
    c.name = name;
    c.bandwidth = bandwidth;
    for (size_t i = 0; i < clusters.size(); ++i) {
        SubAccel s;
        s.dataflow = df[i];
        s.clusters = clusters[i];
        s.clusterSize = 64;
        // buffer scales with the array: 8 KiB per cluster (MAESTRO-style per-cluster L2 share) [I]
        s.bufferBytes = double(clusters[i]) * 8192;
        s.name = std::string(df[i] == Dataflow::WeightStationary ? "ws" : "rs") + std::to_string(i) + "-" +
                 std::to_string(clusters[i]);
        c.subs.push_back(s);
    }
    return c;
}
constexpr Dataflow W = Dataflow::WeightStationary;
constexpr Dataflow E = Dataflow::RowStationary;
} // namespace

std::vector<std::string> chipPresetNames() { return {"magma-s3", "magma-s5", "magma-s6", "magma-s7"}; }

Chip chipPreset(const std::string& name)
{
    // MAGMA setting 3: 4 cores of 32 clusters, 3 dla + 1 eye; 5: 4x128 + 4x64 with one eye in each half;
    // 6: 8x128 + 8x64 with one eye in each half; 7: 32/64/128 dla and 32/64/128 eye.
    if (name == "magma-s3")
        return makeChip(name, {32, 32, 32, 32}, {W, W, W, E}, 8000);
    if (name == "magma-s5")
        return makeChip(name, {128, 128, 128, 128, 64, 64, 64, 64}, {W, W, W, E, W, W, W, E}, 16000);
    if (name == "magma-s6")
        return makeChip(name, {128, 128, 128, 128, 128, 128, 128, 128, 64, 64, 64, 64, 64, 64, 64, 64},
                        {W, W, W, W, W, W, W, E, W, W, W, W, W, W, W, E}, 32000);
    if (name == "magma-s7")
        return makeChip(name, {32, 64, 128, 32, 64, 128}, {W, W, W, E, E, E}, 16000);
    throw std::invalid_argument("unknown chip preset '" + name + "'");
}

std::string validateChip(const Chip& c)
{
    if (c.subs.empty())
        return "the chip has no sub-accelerator";
    if (!(c.bandwidth > 0))
        return "the chip has no off-chip bandwidth (bandwidth_gbps must be > 0)";
    if (!(c.freqMhz > 0))
        return "freq_mhz must be > 0";
    if (c.bytesPerElement < 1)
        return "bytes_per_element must be >= 1";
    for (const SubAccel& s : c.subs) {
        if (s.clusters < 1 || s.clusterSize < 1)
            return "sub-accelerator '" + s.name + "' has no PE";
        if (!(s.bufferBytes > 0))
            return "sub-accelerator '" + s.name + "' has no buffer";
    }
    return {};
}

std::string validateLayer(const Layer& l, std::string& field)
{
    const std::pair<const char*, int64_t> dims[] = {{"K", l.K}, {"C", l.C}, {"Y", l.Y}, {"X", l.X}, {"R", l.R},
                                                    {"S", l.S}, {"stride", l.stride}, {"heads", l.heads}};
    for (const auto& [n, v] : dims)
        if (v < 1) {
            field = n;
            return v < 0 ? "negative dimension" : "dimension must be >= 1";
        }
    if (l.type == LayerType::DwConv && l.K != l.C) {
        field = "K";
        return "a dwconv layer has K = C";
    }
    return {};
}

int Workload::networkIndex(const std::string& name) const
{
    for (size_t i = 0; i < networks.size(); ++i)
        if (networks[i].name == name)
            return int(i);
    return -1;
}

int Workload::tenantIndex(const std::string& name) const
{
    for (size_t i = 0; i < tenants.size(); ++i)
        if (tenants[i].name == name)
            return int(i);
    return -1;
}

} // namespace ss::accel
