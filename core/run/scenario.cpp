#include "run/scenario.h"

namespace ss {

std::string Scenario::clusterRef() const
{
    switch (clusterSource) {
    case ClusterSource::Preset: return clusterPreset;
    case ClusterSource::File: return clusterPath;
    case ClusterSource::Inline: return {};
    }
    return {};
}

std::vector<uint64_t> Scenario::seedList() const
{
    std::vector<uint64_t> out;
    for (int i = 0; i < seeds; ++i)
        out.push_back(seed + uint64_t(i));
    return out;
}

} // namespace ss
