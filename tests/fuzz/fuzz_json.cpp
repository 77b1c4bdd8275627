// Fuzzes the JSON parser, the writer's round trip and the cluster and throughput-table readers on top of it.
#include <cstdint>
#include <string>

#include "fuzz_common.h"
#include "io/json.h"
#include "io/traceio.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const ss::JsonValue v = ss::parseJson(text, "fuzz.json");
        // What we write must read back and write identically.
        const std::string once = ss::writeJson(v);
        const std::string twice = ss::writeJson(ss::parseJson(once, "again.json"));
        if (once != twice)
            __builtin_trap();
    } catch (const ss::IoError&) {
    }
    try {
        (void)ss::clusterFromJson(text, "fuzz.json");
    } catch (const ss::IoError&) {
    }
    try {
        const std::string p = ssfuzz::writeScratch(data, size, ".json");
        (void)ss::readThroughputTable(p);
    } catch (const ss::IoError&) {
    }
    return 0;
}
