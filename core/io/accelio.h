#pragma once
// Files of the accelerator mode (docs/FORMATS.md "Accelerator mode"): chip files, network files and the
// accelerator scenario (mode "accelerator" of *.scenario.json). Errors are IoError naming file, line, field.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/json.h"
#include "model/accel/accelmodel.h"
#include "sim/accel/accelgen.h"
#include "sim/accel/accelsim.h"

namespace ss::accel {

Chip chipFromJson(const JsonValue& v, const JsonReader& r);
JsonValue chipToJson(const Chip& c);
/// A preset name (chipPresetNames) or a chip file.
Chip readChip(const std::string& presetOrPath);
Network networkFromJson(const JsonValue& v, const JsonReader& r);
Network readNetwork(const std::string& path);

struct AccelScenario {
    std::string name, description, file;
    std::string chipRef;                  ///< preset name, or the chip file as written in the scenario
    std::vector<std::string> networkRefs; ///< network files as written in the scenario
    Workload workload;                    ///< requests finalized (sorted, deadlines set)
    SimConfig sim;
    std::vector<std::string> policies{"hetero"};
    std::map<std::string, std::string> params;
    uint64_t seed = 1;
    bool generated = false;               ///< requests from `gen` (else listed in the file)
    GenParams gen;
};

/// Reads a mode-"accelerator" scenario: chip, networks (relative to the scenario's folder), tenants and
/// either a "requests" list or a "generator" object (regenerated exactly from its recorded parameters).
AccelScenario readAccelScenario(const std::string& path);
/// Writes `s` with its chip and network references rewritten relative to `path`'s folder (absolute refs are
/// made relative), the generator's parameters when generated, else every request.
void writeAccelScenario(const AccelScenario& s, const std::string& path);

} // namespace ss::accel
