#pragma once
#include "model/job.h"
// Internal helpers of the readers: a streaming line reader, allocation-free field splitting, number and
// date parsing that fail with IoError naming file, line and column, and a string interner that looks up
// string_views without building std::strings.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/traceio.h"

namespace ss::io {

/// Reads a file line by line through a fixed buffer (no whole-file copy). Lines exclude "\n" / "\r\n".
/// A UTF-8 byte-order mark at the start is dropped; a NUL byte is reported as binary data.
class LineReader {
public:
    explicit LineReader(const std::string& path);
    ~LineReader();
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    /// Next line; false at end of file. The view is valid until the next call.
    bool next(std::string_view& line);
    long lineNo() const { return m_line; }
    /// Share of the file consumed, 0..1.
    double fraction() const;
    const std::string& file() const { return m_file; }
    bool empty() const { return m_size == 0; }
    uint64_t sizeBytes() const { return m_size; }

private:
    std::string m_file;
    std::FILE* m_fp = nullptr;
    std::vector<char> m_buf;
    size_t m_begin = 0, m_end = 0;
    long m_line = 0;
    uint64_t m_size = 0, m_consumed = 0;
    bool m_eof = false;
    bool fill();
};

/// Splits a line into fields. Comma/tab CSV honours RFC 4180 quotes within the line.
class FieldSplitter {
public:
    const std::vector<std::string_view>& split(std::string_view line, char delim);
    /// Runs of spaces/tabs separate fields (SWF).
    const std::vector<std::string_view>& splitWhitespace(std::string_view line);
    const std::vector<std::string_view>& fields() const { return m_f; }

private:
    std::vector<std::string_view> m_f;
    std::string m_scratch;
};

/// A whole file as bytes; IoError(path, "cannot open") when it cannot be read. The JSON and small-file readers use it.
std::string readWholeFile(const std::string& path);

std::string_view trim(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
std::string lower(std::string_view s);
/// Shortest text that reads back as exactly `v` (integers without ".0").
std::string formatDouble(double v);

/// Where a field came from, for error messages.
struct FieldRef {
    const std::string& file;
    long line;
    std::string_view column;
};

[[noreturn]] void fail(const FieldRef& at, const std::string& reason);
/// A number (surrounding spaces allowed). Empty or non-numeric text -> IoError.
double parseNumber(std::string_view text, const FieldRef& at);
/// As parseNumber, but empty text gives `dflt`.
double parseNumberOr(std::string_view text, double dflt, const FieldRef& at);
int64_t parseInt(std::string_view text, const FieldRef& at);
/// Fast path for "%Y-%m-%d %H:%M:%S" (also "T" separator, optional fraction, optional "Z"): seconds since
/// 1970 UTC; false when the text has another shape.
bool parseIsoDateTime(std::string_view text, double& out);
/// strptime-like with %Y %m %d %H %M %S %%, literal characters otherwise; UTC. False on mismatch.
bool parseTimeWithFormat(std::string_view text, std::string_view fmt, double& out);
/// Days since 1970-01-01 of a proleptic Gregorian date.
int64_t daysFromCivil(int64_t y, unsigned m, unsigned d);

/// Readers intern names with the core's StringInterner (allocation-free lookups).
using FastInterner = StringInterner;

/// Maps header names to indices, validating that required columns exist.
class Header {
public:
    Header() = default;
    Header(const std::vector<std::string_view>& fields);
    int index(std::string_view name) const; ///< -1 when absent (trimmed, case-insensitive)
    int require(std::string_view name, const std::string& file, long line) const;
    size_t size() const { return m_names.size(); }
    const std::string& name(size_t i) const { return m_names[i]; }

private:
    std::vector<std::string> m_names;
};

/// Throttled progress reporting + cancellation.
class Progress {
public:
    explicit Progress(const TraceReadOptions& o) : m_fn(o.progress) {}
    void tick(const LineReader& r)
    {
        if (m_fn && (++m_count & 0x3FFF) == 0 && !m_fn(r.fraction()))
            throw Cancelled();
    }
    void done()
    {
        if (m_fn && !m_fn(1.0))
            throw Cancelled();
    }

private:
    std::function<bool(double)> m_fn;
    uint64_t m_count = 0;
};

} // namespace ss::io
