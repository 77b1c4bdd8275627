#pragma once
// The accelerator mode's model (docs/ACCELERATOR.md): a chip of heterogeneous sub-accelerators sharing one
// off-chip bandwidth budget, DNNs as ordered lists of layer shapes, and inference requests from tenants with
// SLA deadlines. Plain data; the readers live in io/accelio.h, the cost model in perf/accel/layercost.h.
// Units: time in microseconds (us), bandwidth in bytes/us (= MB/s; 1 GB/s = 1000 bytes/us), energy in pJ.
#include <cstdint>
#include <string>
#include <vector>

namespace ss::accel {

/// Weight-stationary (NVDLA/Simba-like, MAGMA "dla") or row-stationary (Eyeriss-like, MAGMA "eye").
enum class Dataflow { WeightStationary, RowStationary };
const char* toString(Dataflow d);
/// "ws"/"dla"/"simba" or "rs"/"eye"/"eyeriss"; false when unknown.
bool parseDataflow(const std::string& s, Dataflow& out);

enum class LayerType { Conv, DwConv, Fc, Matmul };
const char* toString(LayerType t);
bool parseLayerType(const std::string& s, LayerType& out);

/// One layer's shape in MAESTRO/MAGMA terms (docs/FORMATS.md "Network files").
/// conv:   K output channels, C input channels, Y x X input map, R x S filter, stride (same padding).
/// dwconv: depthwise, K = C, one R x S filter per channel.
/// fc:     K outputs, C inputs, Y rows (tokens or batch); X = R = S = 1.
/// matmul: activation x activation (attention), `heads` products of (Y x C) x (C x K); no weights.
struct Layer {
    std::string name;
    LayerType type = LayerType::Conv;
    int64_t K = 1, C = 1, Y = 1, X = 1, R = 1, S = 1;
    int64_t stride = 1;
    int64_t heads = 1;
    int64_t outY() const { return (Y + stride - 1) / stride; }
    int64_t outX() const { return (X + stride - 1) / stride; }
};

struct Network {
    std::string name;
    std::string origin;  ///< where the shapes come from
    std::vector<Layer> layers;
};

struct SubAccel {
    std::string name;
    Dataflow dataflow = Dataflow::WeightStationary;
    int clusters = 64;          ///< MAGMA's "cores_cfg" entry
    int clusterSize = 64;       ///< PEs per cluster (MAGMA cls_size)
    double bufferBytes = 1 << 20; ///< on-chip global buffer
    int pes() const { return clusters * clusterSize; }
};

/// Energy constants (pJ) and the chip's clock.
struct EnergyModel {
    double macPj = 0.5;          ///< one 8-bit MAC incl. register file
    double sramPjPerByte = 2.0;  ///< on-chip buffer access
    double dramPjPerByte = 100.0;///< off-chip access
    double staticPjPerPeUs = 0.5;///< leakage per PE per us while the sub-accelerator runs a layer
};

struct Chip {
    std::string name;
    std::vector<SubAccel> subs;
    double bandwidth = 16000;    ///< B_sys, bytes/us (16 GB/s)
    double freqMhz = 1000;       ///< cycles per us
    int bytesPerElement = 1;     ///< int8
    EnergyModel energy;
};

/// Built-in chips modelled on MAGMA's src/setting.py (docs/ACCELERATOR.md): "magma-s3", "magma-s5",
/// "magma-s6", "magma-s7". Throws std::invalid_argument for an unknown name.
Chip chipPreset(const std::string& name);
std::vector<std::string> chipPresetNames();
/// Empty when fine, else the reason (no sub-accelerator, bandwidth <= 0, ...).
std::string validateChip(const Chip& c);
/// Empty when fine, else the reason naming the offending field (negative dimension, ...).
std::string validateLayer(const Layer& l, std::string& field);

struct Tenant {
    std::string name;
    double qos = 3.0;            ///< SLA deadline = arrival + qos x isolated latency on the best sub-accelerator
};

struct Request {
    int id = 0;
    int tenant = 0;              ///< index into Workload::tenants
    int network = 0;             ///< index into Workload::networks
    double arrival = 0;          ///< us
    double deadline = 0;         ///< us, absolute; filled by finalizeDeadlines when <= 0
};

/// What one run simulates.
struct Workload {
    Chip chip;
    std::vector<Network> networks;
    std::vector<Tenant> tenants;
    std::vector<Request> requests; ///< sorted by arrival, ids 0..n-1 in that order
    int networkIndex(const std::string& name) const; ///< -1 when unknown
    int tenantIndex(const std::string& name) const;
};

} // namespace ss::accel
