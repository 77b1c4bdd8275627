#pragma once
// Run-level figures of an accelerator-mode run (definitions in docs/ACCELERATOR.md §5).
#include <string>
#include <vector>

#include "model/accel/accelmodel.h"
#include "sim/accel/accelsim.h"

namespace ss::accel {

struct AccelMetrics {
    int requests = 0, completed = 0, met = 0;
    double slaRate = 0;                 ///< met / arrived requests (every request of a run is simulated to its end)
    std::vector<double> tenantRate;     ///< per tenant: met / its requests (tenants without requests: 1)
    double fairness = 1;                ///< Jain's index over tenantRate
    double p50LatencyUs = 0, p99LatencyUs = 0, meanLatencyUs = 0; ///< finish - arrival
    double energyUj = 0;
    double makespanUs = 0;
    std::vector<double> utilization;    ///< busy time / makespan per sub-accelerator
    double saturatedUs = 0, saturatedFraction = 0; ///< time with demand > B_sys
    double decisions = 0, decideMeanUs = 0, decideMaxUs = 0;
};

AccelMetrics computeMetrics(const Workload& w, const SimResult& r);

} // namespace ss::accel
