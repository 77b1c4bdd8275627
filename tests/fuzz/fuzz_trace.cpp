// Fuzzes every trace reader: the first byte picks the format (or auto-detection), the rest is the file.
// Any exception other than IoError, or a crash / sanitizer report, is a finding.
#include <cstdint>

#include "fuzz_common.h"
#include "io/traceio.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 1)
        return 0;
    static const char* formats[] = {"auto", "native", "philly", "helios", "pai2020", "openb", "gavel",
                                    "tiresias", "chronus", "pollux", "swf", "csv"};
    const size_t n = sizeof(formats) / sizeof(formats[0]);
    ss::TraceReadOptions o;
    o.format = formats[data[0] % n];
    o.skipBadRows = (data[0] / n) % 2 == 1;
    if (o.format == std::string("csv")) {
        o.columnMap = {{"submit", "0"}, {"gpus", "1"}, {"duration", "2"}, {"vc", "3"}};
        o.timeFormat = (data[0] & 0x80) ? "%Y-%m-%d %H:%M:%S" : "min";
    }
    const std::string path = ssfuzz::writeScratch(data + 1, size - 1, ".trace");
    try {
        ss::TraceReadReport rep;
        ss::Trace t = ss::readTrace(path, o, &rep);
        // What a reader returns must be consistent: sorted, rebased, valid indices.
        const std::string err = t.validate();
        if (!err.empty() && err.find("duration") == std::string::npos && err.find("GPU demand") == std::string::npos)
            __builtin_trap();
        if (!t.jobs.empty() && t.jobs.front().submit != 0)
            __builtin_trap();
    } catch (const ss::IoError&) {
    }
    return 0;
}
