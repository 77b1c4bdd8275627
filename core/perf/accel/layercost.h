#pragma once
// The accelerator mode's analytical per-layer cost model (equations in docs/ACCELERATOR.md §2): MACs, operand
// bytes, a dataflow- and layer-type-dependent spatial utilization, off-chip traffic with buffer re-fetches, a
// roofline against the bandwidth budget (isolated latency c and bandwidth need b) and dynamic energy.
#include <vector>

#include "model/accel/accelmodel.h"

namespace ss::accel {

struct LayerCost {
    double macs = 0;
    double weightBytes = 0, inputBytes = 0, outputBytes = 0;
    double traffic = 0;       ///< off-chip bytes including re-fetches
    double utilization = 0;   ///< spatial PE utilization in (0,1]
    double computeUs = 0;     ///< MACs / (PEs x utilization x f)
    double latency = 0;       ///< c: isolated latency = max(compute, traffic / B_sys), us
    double bandwidth = 0;     ///< b: traffic / c, bytes/us (<= B_sys)
    double dynamicPj = 0;     ///< MAC + buffer + DRAM energy (independent of contention)
    double staticPjPerUs = 0; ///< leakage of the sub-accelerator while it runs the layer
};

/// Fraction of a p-wide spatial dimension kept busy by n items: n / (p * ceil(n / p)).
double mappingEfficiency(double n, double p);
LayerCost layerCost(const Layer& l, const SubAccel& sa, const Chip& chip);

/// Every (network, layer, sub-accelerator) cost of a workload, precomputed once per run.
class CostTable {
public:
    CostTable() = default;
    CostTable(const Chip& chip, const std::vector<Network>& nets);
    int subCount() const { return m_subs; }
    const LayerCost& at(int net, int layer, int sa) const { return m_costs[size_t(m_offset[net] + layer) * m_subs + sa]; }
    int layerCount(int net) const { return m_count[size_t(net)]; }
    /// min over sub-accelerators s of sum_i c_{i,s}: the whole network alone on its best sub-accelerator.
    double isolatedLatency(int net) const { return m_isolated[size_t(net)]; }
    /// sum over layers >= from of min_s c_{i,s}: a lower bound of the remaining work, us.
    double remainingBest(int net, int from) const { return m_suffixBest[size_t(m_offset[net] + from)]; }
    double bestLatency(int net, int layer) const; ///< min_s c_{layer,s}
    int bestSub(int net, int layer) const;        ///< argmin_s c_{layer,s} (lowest index on ties)

private:
    int m_subs = 0;
    std::vector<LayerCost> m_costs;
    std::vector<int> m_offset, m_count;
    std::vector<double> m_isolated, m_suffixBest;
};

} // namespace ss::accel
