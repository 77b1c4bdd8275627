#pragma once
// The cluster: GPU types with prices and speeds, machines grouped under switches, links with bandwidth.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ss {

/// A kind of GPU. `speed` is relative to the reference GPU (1.0); price is $ per GPU-hour.
struct GpuType {
    std::string name;
    double pricePerHour = 1.0;
    double memoryGb = 16;
    double speed = 1.0;
};

/// A switch (rack). Machines hang off one switch; switches connect through `links` or an implicit core.
struct Switch {
    std::string name;
    double uplinkGbps = 100; ///< bandwidth to the core (used when no explicit link joins two switches)
};

/// One machine (server, node).
struct Machine {
    std::string name;
    int type = 0;       ///< index into ClusterSpec::types
    int gpus = 0;       ///< number of GPUs of that type (0 = CPU-only machine)
    double cpus = 0;    ///< CPU cores
    double memoryGb = 0;
    int sw = 0;         ///< index into ClusterSpec::switches
    double nicGbps = 25; ///< machine-to-switch bandwidth
};

/// An explicit switch-to-switch link.
struct Link {
    int a = 0, b = 0; ///< switch indices
    double gbps = 100;
};

/// The whole cluster. Call finalize() after editing so the derived GPU indices are current.
class ClusterSpec {
public:
    std::string name;
    std::vector<GpuType> types;
    std::vector<Switch> switches;
    std::vector<Machine> machines;
    std::vector<Link> links;

    /// Recompute derived data (global GPU numbering). Cheap; call after any edit.
    void finalize();
    /// Empty when valid, else a one-line description naming the offending item.
    std::string validate() const;

    int machineCount() const { return int(machines.size()); }
    int totalGpus() const { return m_totalGpus; }
    int maxGpusPerMachine() const { return m_maxGpus; }
    /// The GPUs counted at their types' speeds (a V100, speed 1.0, counts 1; a T4 0.4): what the cluster does per
    /// second in reference GPU-seconds, before the performance model's placement factors.
    double referenceGpus() const;
    /// GPUs of the biggest machine whose type is in `typeMask` (bit t = type t); 0 when none is.
    int maxGpusPerMachineOf(uint64_t typeMask) const;
    /// Global index of the first GPU of machine m; GPUs of m are [gpuBase(m), gpuBase(m)+gpus).
    int gpuBase(int m) const { return m_gpuBase[size_t(m)]; }
    /// Machine owning global GPU g.
    int machineOfGpu(int g) const { return m_gpuMachine[size_t(g)]; }
    int typeIndex(std::string_view name) const; ///< -1 if absent (case-insensitive)
    double pricePerHourOfMachine(int m) const { return types[size_t(machines[size_t(m)].type)].pricePerHour; }
    /// A short fingerprint (hex) of everything that affects a simulation.
    std::string fingerprint() const;

private:
    std::vector<int> m_gpuBase;
    std::vector<int> m_gpuMachine;
    int m_totalGpus = 0;
    int m_maxGpus = 0;
    std::vector<int> m_maxGpusOfType; ///< per type index
};

/// Built-in cluster presets: das-case, das-small, das-medium, das-large, gavel-108, tiresias-n32g4, alibaba-scale.
std::vector<std::string> clusterPresetNames();
/// The GPU types the presets use, with their list prices and speeds (V100, V100M32, P100, T4, K80, MISC): what
/// the topology editor offers beyond the types a cluster already has.
std::vector<GpuType> gpuTypeCatalog();
/// Throws std::invalid_argument for an unknown name.
ClusterSpec makeClusterPreset(std::string_view name);
/// One line describing the preset and where its figures come from.
std::string clusterPresetDescription(std::string_view name);

} // namespace ss
