#include "sim/accel/accelgen.h"

#include <algorithm>
#include <stdexcept>

#include "model/rng.h"
#include "sim/accel/accelsim.h"

namespace ss::accel {

bool GenParams::loadPreset(const std::string& name, double& load)
{
    if (name == "light")
        load = 0.25;
    else if (name == "heavy")
        load = 0.5;
    else
        return false;
    return true;
}

void generateRequests(Workload& w, const CostTable& cost, const GenParams& p)
{
    if (w.networks.empty())
        throw std::invalid_argument("the generator needs at least one network");
    if (p.tenants < 1 || p.requests < 0 || !(p.load > 0) || !(p.burstSize >= 1) || !(p.qosMin > 0) ||
        p.qosMax < p.qosMin)
        throw std::invalid_argument("generator: tenants >= 1, requests >= 0, load > 0, burst_size >= 1, "
                                    "0 < qos_min <= qos_max");
    Rng rng(p.seed);
    w.tenants.clear();
    std::vector<int> netOf;
    for (int i = 0; i < p.tenants; ++i) {
        Tenant t;
        t.name = "t" + std::to_string(i);
        t.qos = p.tenants == 1 ? p.qosMin : p.qosMin + (p.qosMax - p.qosMin) * double(i) / double(p.tenants - 1);
        w.tenants.push_back(t);
        netOf.push_back(p.mixed ? i % int(w.networks.size()) : 0);
    }
    // capacity in requests per us: the sub-accelerators each serving one request alone on its best
    // sub-accelerator, or the off-chip bandwidth moving every request's bytes, whichever is lower
    double meanIso = 0, meanBytes = 0;
    for (int i = 0; i < p.tenants; ++i) {
        const int n = netOf[size_t(i)];
        meanIso += cost.isolatedLatency(n) / p.tenants;
        double bytes = 0;
        for (int l = 0; l < cost.layerCount(n); ++l)
            bytes += cost.at(n, l, cost.bestSub(n, l)).traffic;
        meanBytes += bytes / p.tenants;
    }
    const double capacity = std::min(double(w.chip.subs.size()) / meanIso, w.chip.bandwidth / meanBytes);
    const double rate = p.load * capacity; // requests per us
    w.requests.clear();
    double t = 0;
    int left = p.requests;
    while (left > 0) {
        int burst = 1;
        if (p.bursty) { // geometric with mean burstSize
            const double q = 1.0 / p.burstSize;
            while (burst < left && rng.uniform() > q)
                ++burst;
        }
        t += rng.exponential(rate / (p.bursty ? p.burstSize : 1.0));
        for (int k = 0; k < burst && left > 0; ++k, --left) {
            Request r;
            r.tenant = int(rng.below(uint64_t(p.tenants)));
            r.network = netOf[size_t(r.tenant)];
            r.arrival = t;
            w.requests.push_back(r);
        }
    }
    finalizeRequests(w, cost);
}

} // namespace ss::accel
