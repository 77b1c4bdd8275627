// Fuzzes every trace reader: the first byte picks the format (or auto-detection), the rest is the file.
// Any exception other than IoError, or a crash / sanitizer report, is a finding.
#include <cstdint>

#include "fuzz_common.h"
#include "fuzz_trace_options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 1)
        return 0;
    const ss::TraceReadOptions o = ssfuzz::traceOptionsFromByte(data[0]);
    const std::string path = ssfuzz::writeScratch(data + 1, size - 1, ".trace");
    try {
        ss::TraceReadReport rep;
        ss::Trace t = ss::readTrace(path, o, &rep);
        // What a reader returns must be consistent: valid, sorted and rebased to 0.
        if (!t.validate().empty())
            __builtin_trap();
        if (!t.jobs.empty() && t.jobs.front().submit != 0)
            __builtin_trap();
    } catch (const ss::IoError&) {
    }
    return 0;
}
