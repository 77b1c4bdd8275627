#include "perf/accel/layercost.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ss::accel {

double mappingEfficiency(double n, double p)
{
    if (n <= 0 || p <= 0)
        return 0;
    return n / (p * std::ceil(n / p));
}

LayerCost layerCost(const Layer& l, const SubAccel& sa, const Chip& chip)
{
    LayerCost c;
    const double e = chip.bytesPerElement;
    const double K = double(l.K), C = double(l.C), Y = double(l.Y), X = double(l.X), R = double(l.R),
                 S = double(l.S), H = double(l.heads), oX = double(l.outX());
    double oY = double(l.outY());
    double kDim = K, cDim = C; // the dimensions the two dataflows spread over clusters and lanes
    switch (l.type) {
    case LayerType::Conv:
        c.macs = oY * oX * K * C * R * S;
        c.weightBytes = K * C * R * S * e;
        c.inputBytes = C * Y * X * e;
        c.outputBytes = K * oY * oX * e;
        cDim = C * 1; // weight-stationary lanes: input channels
        break;
    case LayerType::DwConv:
        c.macs = oY * oX * C * R * S;
        c.weightBytes = C * R * S * e;
        c.inputBytes = C * Y * X * e;
        c.outputBytes = C * oY * oX * e;
        kDim = C;
        cDim = R * S; // one channel per filter: only its taps reduce together
        break;
    case LayerType::Fc:
        c.macs = Y * K * C;
        c.weightBytes = K * C * e;
        c.inputBytes = Y * C * e;
        c.outputBytes = Y * K * e;
        oY = Y;
        break;
    case LayerType::Matmul:
        c.macs = H * Y * K * C;
        c.weightBytes = H * C * K * e; // the second operand, streamed like weights
        c.inputBytes = H * Y * C * e;
        c.outputBytes = H * Y * K * e;
        kDim = H * K;
        oY = Y;
        break;
    }
    const double clusters = sa.clusters, lanes = sa.clusterSize;
    const double rows = (l.type == LayerType::Fc || l.type == LayerType::Matmul) ? 1.0 : R;
    if (sa.dataflow == Dataflow::WeightStationary)
        c.utilization = mappingEfficiency(kDim, clusters) * mappingEfficiency(cDim, lanes);
    else
        c.utilization = mappingEfficiency(kDim, clusters) * mappingEfficiency(rows * oY, lanes);
    const double half = sa.bufferBytes / 2;
    if (sa.dataflow == Dataflow::WeightStationary) // weights once; inputs once per weight tile
        c.traffic = c.weightBytes + c.inputBytes * std::max(1.0, std::ceil(c.weightBytes / half)) + c.outputBytes;
    else // rows of the input stay; weights once per input tile
        c.traffic = c.weightBytes * std::max(1.0, std::ceil(c.inputBytes / half)) + c.inputBytes + c.outputBytes;
    c.computeUs = c.macs / (double(sa.pes()) * c.utilization * chip.freqMhz);
    c.latency = std::max(c.computeUs, c.traffic / chip.bandwidth);
    c.bandwidth = c.latency > 0 ? c.traffic / c.latency : 0;
    const double rfReuse = 16; // register-file reuse of a buffer read [I]
    const double sram = c.traffic + 2 * c.macs * e / rfReuse;
    c.dynamicPj = c.macs * chip.energy.macPj + sram * chip.energy.sramPjPerByte + c.traffic * chip.energy.dramPjPerByte;
    c.staticPjPerUs = chip.energy.staticPjPerPeUs * sa.pes();
    return c;
}

CostTable::CostTable(const Chip& chip, const std::vector<Network>& nets)
{
    m_subs = int(chip.subs.size());
    int off = 0;
    for (const Network& n : nets) {
        m_offset.push_back(off);
        m_count.push_back(int(n.layers.size()));
        off += int(n.layers.size());
        std::vector<double> perSub(size_t(m_subs), 0.0), best(n.layers.size(), 0.0);
        for (size_t i = 0; i < n.layers.size(); ++i) {
            double b = std::numeric_limits<double>::infinity();
            for (int s = 0; s < m_subs; ++s) {
                m_costs.push_back(layerCost(n.layers[i], chip.subs[size_t(s)], chip));
                perSub[size_t(s)] += m_costs.back().latency;
                b = std::min(b, m_costs.back().latency);
            }
            best[i] = b;
        }
        m_isolated.push_back(m_subs ? *std::min_element(perSub.begin(), perSub.end()) : 0.0);
        std::vector<double> suffix(n.layers.size() + 1, 0.0);
        for (size_t i = n.layers.size(); i-- > 0;)
            suffix[i] = suffix[i + 1] + best[i];
        m_suffixBest.insert(m_suffixBest.end(), suffix.begin(), suffix.end() - 1);
        m_suffixBest.push_back(0.0); // index == layerCount: nothing left
        ++off;                        // keep the sentinel addressable: offsets skip it
        // (m_costs gets a matching padding row so that at() stays aligned)
        for (int s = 0; s < m_subs; ++s)
            m_costs.push_back(LayerCost {});
    }
}

double CostTable::bestLatency(int net, int layer) const
{
    double b = std::numeric_limits<double>::infinity();
    for (int s = 0; s < m_subs; ++s)
        b = std::min(b, at(net, layer, s).latency);
    return b;
}

int CostTable::bestSub(int net, int layer) const
{
    int best = 0;
    for (int s = 1; s < m_subs; ++s)
        if (at(net, layer, s).latency < at(net, layer, best).latency)
            best = s;
    return best;
}

} // namespace ss::accel
