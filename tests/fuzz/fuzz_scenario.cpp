// Fuzzes the scenario reader (the file both front ends open) and its write/read round trip.
#include <cstdint>
#include <string>

#include "io/ioerror.h"
#include "io/json.h"
#include "io/runio.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const ss::Scenario s = ss::scenarioFromJson(text, "/tmp", "fuzz.scenario.json");
        const std::string once = ss::writeJson(ss::scenarioToJson(s, "/tmp"));
        const std::string twice = ss::writeJson(ss::scenarioToJson(ss::scenarioFromJson(once, "/tmp", "again.json"), "/tmp"));
        if (once != twice)
            __builtin_trap();
    } catch (const ss::IoError&) {
    }
    return 0;
}
