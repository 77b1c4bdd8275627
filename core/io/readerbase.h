#pragma once
// Internal: what every trace reader shares (the trace under construction, interners, skip counts,
// bad-row handling, sorting and rebasing at the end).
#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "io/textio.h"
#include "io/traceio.h"

namespace ss::io {

class TraceBuilder {
public:
    TraceBuilder(const std::string& file, const TraceReadOptions& opts, std::string format);
    TraceBuilder(const TraceBuilder&) = delete;

    const std::string& file() const { return m_file; }
    const TraceReadOptions& opts() const { return m_opts; }
    Trace trace;
    TraceReadReport report;
    FastInterner models, users, vcs, qos, specs, machineSets;
    int64_t nextId = 0; ///< for formats without ids: row order in the file

    void skip(const std::string& reason)
    {
        ++report.skipped;
        ++report.skippedByReason[reason];
    }
    /// Runs one row's parse; with skipBadRows a malformed row is counted instead of failing.
    template <class F>
    void row(F&& f)
    {
        ++report.rows;
        if (!m_opts.skipBadRows) {
            f();
            return;
        }
        try {
            f();
        } catch (const IoError&) {
            skip("malformed row");
        }
    }
    /// Reserves room for the jobs of a file of `bytes` with rows of about `bytesPerRow` (avoids regrowth).
    void reserveFor(uint64_t bytes, size_t bytesPerRow)
    {
        trace.jobs.reserve(size_t(std::min<uint64_t>(bytes / bytesPerRow + 16, uint64_t(1) << 24)));
    }
    /// Adds a job after the checks every format shares (negative duration is an error, zero is skipped).
    void add(Job j, const FieldRef& durationField);
    int32_t intern(FastInterner& in, std::string_view s)
    {
        s = trim(s);
        return s.empty() ? -1 : in(s);
    }
    /// Sorts by submit, rebases to 0 (noting the offset), fills the report.
    Trace finish(TraceReadReport* out, bool rebase = true);

private:
    std::string m_file;
    const TraceReadOptions& m_opts;
};

// One function per published format (tracereaders.cpp). Each reads from the current position of `r`.
void readPhilly(TraceBuilder& b, LineReader& r);
void readHelios(TraceBuilder& b, LineReader& r);
void readPai2020(TraceBuilder& b, LineReader& r);
void readOpenb(TraceBuilder& b, LineReader& r);
void readGavel(TraceBuilder& b, LineReader& r);
void readTiresias(TraceBuilder& b, LineReader& r);
void readChronus(TraceBuilder& b, LineReader& r);
void readPollux(TraceBuilder& b, LineReader& r);
void readSwf(TraceBuilder& b, LineReader& r);
void readMappedCsv(TraceBuilder& b, LineReader& r);
void readNative(TraceBuilder& b, LineReader& r);

/// Gavel's simulation_throughputs.json: steps/s of a job type alone, per worker type (lower case) and
/// (job type, scale factor).
struct GavelThroughputs {
    std::map<std::string, std::map<std::pair<std::string, int>, double>> stepsPerSecond;
    struct Pair {
        std::string worker, a, b;
        int scale = 1;
        double ta = 0, tb = 0;
    };
    std::vector<Pair> pairs; ///< co-located job pairs (space sharing), as listed under each job
};
GavelThroughputs loadGavelThroughputs(const std::string& path);

} // namespace ss::io
