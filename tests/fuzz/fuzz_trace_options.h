#pragma once
// How fuzz_trace reads its input: the first byte picks the reader (or auto-detection) and its options, the
// rest is the file. tst_corpus decodes findings in tests/corpus/trace/fuzz/ the same way.
#include <cstdint>
#include <string>

#include "io/traceio.h"

namespace ssfuzz {

inline ss::TraceReadOptions traceOptionsFromByte(uint8_t b)
{
    static const char* formats[] = {"auto", "native", "philly", "helios", "pai2020", "openb", "gavel",
                                    "tiresias", "chronus", "pollux", "swf", "csv"};
    const size_t n = sizeof(formats) / sizeof(formats[0]);
    ss::TraceReadOptions o;
    o.format = formats[b % n];
    o.skipBadRows = (b / n) % 2 == 1;
    if (o.format == std::string("csv")) {
        o.columnMap = {{"submit", "0"}, {"gpus", "1"}, {"duration", "2"}, {"vc", "3"}};
        o.timeFormat = (b & 0x80) ? "%Y-%m-%d %H:%M:%S" : "min";
    }
    return o;
}

} // namespace ssfuzz
