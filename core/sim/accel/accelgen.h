#pragma once
// Scenario generator for the accelerator mode (docs/ACCELERATOR.md §4): tenants, their networks and QoS
// factors, and request arrivals (Poisson or bursty) at a target offered load. Every parameter is written
// back into the scenario file (io/accelio.h) so a generated scenario can be regenerated exactly.
#include <cstdint>
#include <string>
#include <vector>

#include "model/accel/accelmodel.h"
#include "perf/accel/layercost.h"

namespace ss::accel {

struct GenParams {
    int requests = 1000;
    int tenants = 4;
    bool mixed = true;               ///< mixed: tenant i runs network i mod n; homogeneous: all run networks[0]
    double load = 0.5;               ///< offered load: arrival rate / capacity (docs/ACCELERATOR.md §4)
    bool bursty = false;             ///< arrivals in bursts (geometric sizes, mean burstSize) at the same mean rate
    double burstSize = 8;
    double qosMin = 2, qosMax = 6;   ///< tenant QoS factors, evenly spaced from qosMin to qosMax
    uint64_t seed = 1;
    /// "light" (load 0.25), "heavy" (load 0.5): presets of the load only.
    static bool loadPreset(const std::string& name, double& load);
};

/// Fills w.tenants and w.requests from `p` (w.chip and w.networks must be set); deadlines are finalized.
void generateRequests(Workload& w, const CostTable& cost, const GenParams& p);

} // namespace ss::accel
