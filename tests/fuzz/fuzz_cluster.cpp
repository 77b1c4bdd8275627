// Fuzzes the cluster readers (native JSON, Philly/PAI/openb lists, Tiresias and Gavel specs) through
// readCluster's content detection. Only IoError may escape a reader.
#include <cstdint>

#include "fuzz_common.h"
#include "io/traceio.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string path = ssfuzz::writeScratch(data, size, ".cluster");
    try {
        ss::ClusterSpec c = ss::readCluster(path);
        if (!c.validate().empty())
            __builtin_trap(); // readers must hand back valid clusters
        (void)ss::clusterToJson(c);
    } catch (const ss::IoError&) {
    }
    return 0;
}
