#pragma once
// Trace transforms applied after reading (and by loadTraceFromArgs): filters, time window, first N, random
// sample, load scaling. Each records what it did in Trace::notes so that a run names its exact input.
#include <cstdint>
#include <string>
#include <vector>

#include "io/traceio.h"

namespace ss {

struct TraceTransform {
    std::vector<std::string> vcs;    ///< keep only jobs of these virtual clusters (empty = all)
    std::vector<std::string> qos;    ///< keep only these QoS classes (empty = all)
    double minGpus = 0, maxGpus = 0; ///< keep demands in [min, max] (max 0 = no upper bound)
    double windowStart = 0, windowEnd = -1; ///< keep submits in [start, end) seconds from the trace start (end < 0 = open)
    long first = 0;                  ///< keep the first N jobs by submit (0 = all)
    long sample = 0;                 ///< keep a uniform random sample of N jobs (0 = all)
    uint64_t sampleSeed = 1;
    double loadScale = 1;            ///< > 1 compresses inter-arrival times (more load), < 1 stretches them
    bool rebase = true;              ///< shift the result so that the first submit is 0

    bool identity() const;
    /// Parses "A:B" (seconds, or with suffix s/m/h/d; either side may be empty). Throws std::invalid_argument.
    static std::pair<double, double> parseRange(const std::string& text);
    /// Parses "1.5", "90s", "30m", "2h", "1d" into seconds. Throws std::invalid_argument.
    static double parseDuration(const std::string& text);
};

/// Applies `t` in a fixed order: filters, window, first N, sample, load scale, rebase. Deterministic for a seed.
/// Counts removed jobs into `report` (when given) under "filtered: ..." / "out of window" reasons.
void applyTransforms(Trace& trace, const TraceTransform& t, TraceReadReport* report = nullptr);

} // namespace ss
