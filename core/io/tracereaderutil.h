#pragma once
// INTERNAL to core/io: helpers the trace readers share (status words, times, ids, row iteration).
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "io/readerbase.h"

namespace ss::io {

enum class Status { Ok, Failed, Running };

// Status words of Helios (Slurm), PAI, openb and generic CSVs.
inline Status classifyStatus(std::string_view s)
{
    const std::string l = lower(trim(s));
    if (l.empty() || l == "completed" || l == "terminated" || l == "succeeded" || l == "success" || l == "pass"
        || l == "finished" || l == "1")
        return Status::Ok;
    if (l == "running" || l == "pending" || l == "waiting" || l == "queued")
        return Status::Running;
    if (l.find("fail") != std::string::npos || l.find("kill") != std::string::npos
        || l.find("cancel") != std::string::npos || l == "timeout" || l == "out_of_memory" || l == "oom"
        || l == "preempted" || l == "0" || l == "5")
        return Status::Failed;
    return Status::Ok;
}

/// Returns true when the row should be skipped because of its status (and counts it).
inline bool skipForStatus(TraceBuilder& b, Status st)
{
    if (st == Status::Running) {
        b.skip("still running");
        return true;
    }
    if (st == Status::Failed && !b.opts().keepFailed) {
        b.skip("failed/killed");
        return true;
    }
    return false;
}

/// A submit time that is either a number of seconds or a "YYYY-MM-DD HH:MM:SS" date.
inline double parseTime(std::string_view t, const FieldRef& at)
{
    std::string_view s = trim(t);
    if (!s.empty() && s.size() >= 10 && s[4] == '-') {
        double v = 0;
        if (parseIsoDateTime(s, v))
            return v;
        fail(at, "expected a date 'YYYY-MM-DD HH:MM:SS' or seconds, found '" + std::string(s.substr(0, 40)) + "'");
    }
    return parseNumber(s, at);
}

/// Trailing digits of a name ("openb-pod-0042" -> 42), or `fallback`.
inline int64_t idFromName(std::string_view name, int64_t fallback)
{
    name = trim(name);
    size_t p = name.size();
    while (p > 0 && name[p - 1] >= '0' && name[p - 1] <= '9')
        --p;
    if (p == name.size() || name.size() - p > 17)
        return fallback;
    int64_t v = 0;
    for (size_t i = p; i < name.size(); ++i)
        v = v * 10 + (name[i] - '0');
    return v;
}

inline void badWidth(const std::string& file, long ln, const Header& h, size_t got)
{
    const size_t col = std::min(got, h.size() - 1);
    throw IoError(file, ln, h.name(col),
                  "row has " + std::to_string(got) + " fields, header has " + std::to_string(h.size()));
}

/// Reads the header row, then calls fn(fields, line) for each data row with the width checked.
template <class Fn>
inline void forEachRow(TraceBuilder& b, LineReader& r, char delim, Header& h, Fn&& fn)
{
    FieldSplitter sp;
    std::string_view line;
    while (r.next(line) && trim(line).empty()) {
    }
    if (trim(line).empty())
        throw IoError(b.file(), 0, "", "empty file");
    h = Header(sp.split(line, delim));
    b.reserveFor(r.sizeBytes(), 32);
    Progress prog(b.opts());
    while (r.next(line)) {
        prog.tick(r);
        if (trim(line).empty())
            continue;
        b.row([&] {
            const auto& v = sp.split(line, delim);
            if (v.size() != h.size())
                badWidth(b.file(), r.lineNo(), h, v.size());
            fn(v, r.lineNo());
        });
    }
    prog.done();
}

inline int col(const Header& h, const TraceBuilder& b, const char* name) { return h.require(name, b.file(), 1); }



/// Deadline levels from two '-'-separated lists (Chronus's expect_time_list / expect_value_list, or --map
/// deadline= / deadline_values=): offsets times `unit` seconds, values as written (10 each when `values` is
/// empty and `valuesGiven` is false). Errors name the field: lists of different lengths, a negative or
/// non-increasing deadline, a value that is not a number.
inline void parseDeadlineLists(std::string_view times, std::string_view values, bool valuesGiven, double unit,
                               const FieldRef& timeAt, const FieldRef& valueAt, std::vector<DeadlineLevel>& out)
{
    times = trim(times);
    values = trim(values);
    size_t nt = 0, nv = 0;
    while (!times.empty()) {
        const size_t a = times.find('-');
        DeadlineLevel d;
        const std::string_view item = trim(times.substr(0, a));
        if (item.empty())
            fail(timeAt, "empty deadline in the list (a negative deadline?)");
        d.offset = parseNumber(item, timeAt) * unit;
        if (d.offset < 0)
            fail(timeAt, "negative deadline " + std::string(item));
        if (!out.empty() && d.offset <= out.back().offset)
            fail(timeAt, "deadlines not increasing: " + std::string(item) + " after a later or equal one");
        ++nt;
        if (valuesGiven) {
            if (values.empty())
                fail(valueAt, std::to_string(nt) + " deadlines but " + std::to_string(nv) + " values: the lists differ in length");
            const size_t c = values.find('-');
            d.value = parseNumber(values.substr(0, c), valueAt);
            ++nv;
            values = c == std::string_view::npos ? std::string_view() : values.substr(c + 1);
        } else {
            d.value = 10;
        }
        out.push_back(d);
        times = a == std::string_view::npos ? std::string_view() : times.substr(a + 1);
    }
    if (valuesGiven && !values.empty()) {
        size_t extra = 1;
        for (char ch : values)
            extra += ch == '-' ? 1 : 0;
        fail(valueAt, std::to_string(nt) + " deadlines but " + std::to_string(nv + extra) + " values: the lists differ in length");
    }
}

} // namespace ss::io
