#pragma once
// A scenario: trace + cluster + performance model + policies + seeds (+ what-if variants), the
// *.scenario.json files both front ends read and write (reader/writer: io/scenarioio.h). Plain data.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ss {

/// One what-if variant of a scenario: the same experiment with the load or the cluster changed.
struct ScenarioVariant {
    std::string name;           ///< label shown next to its runs ("2x load")
    double loadScale = 1;       ///< arrival-rate factor (> 1: inter-arrival times divided)
    std::string cluster;        ///< preset or file replacing the scenario's cluster ("" = same)
};

/// A machine failure, drain (maintenance) or restore at a time of the run (seconds from the trace start).
struct ScenarioEvent {
    double time = 0;
    std::string machine;        ///< machine name (or index) in the scenario's cluster
    std::string kind = "fail";  ///< fail | drain | restore
};

struct Scenario {
    static constexpr int kVersion = 1;
    static constexpr const char* kFormat = "schedstudio-scenario";

    enum class ClusterSource { Preset, File, Inline };
    /// Gpu: a trace on a GPU cluster. Accelerator: DNN inference requests on a chip of sub-accelerators
    /// (docs/ACCELERATOR.md); its chip, networks and requests are read by io/accelio.h from `path`.
    enum class Mode { Gpu, Accelerator };

    std::string name, description;
    Mode mode = Mode::Gpu;
    std::string path;           ///< the file this scenario was read from (absolute; "" when built in memory)
    std::string tracePath;      ///< absolute once read (relative to the scenario file on disk)
    std::string traceFormat = "auto";
    /// A CSV no reader recognises: which column holds what (TraceReadOptions::columnMap keys) and the time
    /// unit or strptime format of its times; empty = the format's own columns
    std::map<std::string, std::string> traceColumns;
    std::string traceTimeFormat;
    ClusterSource clusterSource = ClusterSource::Preset;
    std::string clusterPreset = "das-case";
    std::string clusterPath;    ///< absolute once read
    std::string clusterJson;    ///< native cluster JSON text when Inline
    std::string perf = "ideal"; ///< PerfConfig::parse syntax
    std::vector<std::string> policies{"fifo+firstfit"};
    uint64_t seed = 1;
    int seeds = 1;              ///< runs per policy: seed, seed+1, ...
    bool backfill = true;
    std::map<std::string, std::string> params; ///< policy knobs for every policy of the scenario
    std::string checkpoint;     ///< learned policies' checkpoint file ("" = shipped), absolute once read
    std::string throughputs;    ///< measured speed table (Gavel's simulation_throughputs.json format), absolute once read; "" = none
    std::vector<ScenarioVariant> variants;     ///< what-if variants run beside the base (none = base only)
    std::vector<ScenarioEvent> events;         ///< machine failures and drains applied to every run

    /// The cluster as a readCluster argument ("" when Inline).
    std::string clusterRef() const;
    /// seed, seed+1, ..., seed+seeds-1.
    std::vector<uint64_t> seedList() const;
};

} // namespace ss
