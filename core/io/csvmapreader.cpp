// The generic CSV reader (--format csv with --map): any CSV whose columns are named on the command line.
#include <cmath>

#include "io/csvpreview.h"
#include "io/readerbase.h"
#include "io/tracereaderutil.h"

namespace ss::io {

// Any CSV through a column map (TraceReadOptions::columnMap).
void readMappedCsv(TraceBuilder& b, LineReader& r)
{
    const auto& map = b.opts().columnMap;
    const std::string& f = b.file();
    for (const auto& kv : map)
        if (!isColumnMapKey(kv.first)) {
            std::string known;
            for (const ColumnMapKey& k : columnMapKeys())
                known += (known.empty() ? "" : ", ") + std::string(k.key);
            throw IoError(f, 0, kv.first, "unknown --map key (known: " + known + ")");
        }
    if (!map.count("submit") || !map.count("gpus") || (!map.count("duration") && !map.count("end")))
        throw IoError(f, 0, "", "--map needs submit=, gpus= and duration= (or end=)");
    // Time unit / format.
    const std::string& tf = b.opts().timeFormat;
    double unit = 1;
    bool strp = false;
    if (tf.empty() || tf == "s")
        unit = 1;
    else if (tf == "ms")
        unit = 0.001;
    else if (tf == "us")
        unit = 1e-6;
    else if (tf == "min")
        unit = 60;
    else if (tf == "h")
        unit = 3600;
    else if (tf.find('%') != std::string::npos)
        strp = true;
    else
        throw IoError(f, 0, "", "unknown --time-format '" + tf + "' (s, ms, us, min, h, or a strptime format)");
    // Delimiter from the header line.
    std::string_view first;
    FieldSplitter sp;
    while (r.next(first) && trim(first).empty()) {
    }
    const char delim = (first.find('\t') != std::string_view::npos && first.find(',') == std::string_view::npos) ? '\t' : ',';
    const Header h(sp.split(first, delim));
    auto colOf = [&](const char* key) -> int {
        auto it = map.find(key);
        if (it == map.end())
            return -1;
        const int i = h.index(it->second);
        if (i >= 0)
            return i;
        if (!it->second.empty() && std::all_of(it->second.begin(), it->second.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            const int n = std::stoi(it->second);
            if (n < int(h.size()))
                return n;
        }
        throw IoError(f, 1, it->second, std::string("--map ") + key + "=: no such column in the header");
    };
    const int cSub = colOf("submit"), cGpu = colOf("gpus"), cDur = colOf("duration"), cEnd = colOf("end"),
              cStart = colOf("start"), cId = colOf("id"), cModel = colOf("model"), cUser = colOf("user"),
              cVc = colOf("vc"), cQos = colOf("qos"), cStatus = colOf("status"), cCpu = colOf("cpu"),
              cMem = colOf("mem"), cSpec = colOf("gpu_spec"), cIt = colOf("iterations"), cDl = colOf("deadline"),
              cDlVal = colOf("deadline_values");
    if (cDlVal >= 0 && cDl < 0)
        throw IoError(f, 0, "deadline_values", "--map deadline_values= needs deadline= as well");
    auto name = [&](int c) -> std::string_view { return h.name(size_t(c)); };
    auto timeOf = [&](std::string_view t, int c, long ln) {
        const FieldRef at{f, ln, name(c)};
        if (strp) {
            double v = 0;
            if (!parseTimeWithFormat(t, tf, v))
                fail(at, "does not match --time-format '" + tf + "': '" + std::string(trim(t).substr(0, 40)) + "'");
            return v;
        }
        return parseTime(t, at) * unit;
    };
    std::string_view line;
    Progress prog(b.opts());
    while (r.next(line)) {
        prog.tick(r);
        if (trim(line).empty())
            continue;
        const long ln = r.lineNo();
        b.row([&] {
            const auto& v = sp.split(line, delim);
            if (v.size() != h.size())
                badWidth(f, ln, h, v.size());
            if (cStatus >= 0 && skipForStatus(b, classifyStatus(v[size_t(cStatus)])))
                return;
            Job j;
            const int64_t row = b.nextId++;
            j.id = cId >= 0 ? idFromName(v[size_t(cId)], row) : row;
            j.submit = timeOf(v[size_t(cSub)], cSub, ln);
            j.gpus = parseNumber(v[size_t(cGpu)], {f, ln, name(cGpu)});
            if (j.gpus < 0)
                fail({f, ln, name(cGpu)}, "negative GPU demand");
            if (j.gpus > 1)
                j.gpus = std::ceil(j.gpus - 1e-9);
            if (cDur >= 0) {
                j.duration = parseNumber(v[size_t(cDur)], {f, ln, name(cDur)}) * (strp ? 1 : unit);
            } else {
                if (trim(v[size_t(cEnd)]).empty()) {
                    b.skip("still running");
                    return;
                }
                const double end = timeOf(v[size_t(cEnd)], cEnd, ln);
                const double start = cStart >= 0 ? timeOf(v[size_t(cStart)], cStart, ln) : j.submit;
                j.duration = end - start;
            }
            if (cStart >= 0 && !trim(v[size_t(cStart)]).empty())
                j.started = timeOf(v[size_t(cStart)], cStart, ln); // the actual start (--start-at)
            if (cModel >= 0)
                j.model = b.intern(b.models, v[size_t(cModel)]);
            if (cUser >= 0)
                j.user = b.intern(b.users, v[size_t(cUser)]);
            if (cVc >= 0)
                j.vc = b.intern(b.vcs, v[size_t(cVc)]);
            if (cQos >= 0)
                j.qos = b.intern(b.qos, v[size_t(cQos)]);
            if (cSpec >= 0)
                j.gpuSpec = b.intern(b.specs, v[size_t(cSpec)]);
            if (cCpu >= 0)
                j.cpu = float(parseNumberOr(v[size_t(cCpu)], 0, {f, ln, name(cCpu)}));
            if (cMem >= 0)
                j.memGb = float(parseNumberOr(v[size_t(cMem)], 0, {f, ln, name(cMem)}));
            if (cIt >= 0)
                j.iterations = parseNumberOr(v[size_t(cIt)], 0, {f, ln, name(cIt)});
            // deadlines: with a strptime --time-format one absolute time (offset = deadline - submit); with a
            // unit, offsets from submit in that unit, '-'-separated levels as Chronus writes them
            if (cDl >= 0 && !trim(v[size_t(cDl)]).empty()) {
                if (strp) {
                    DeadlineLevel d;
                    d.offset = timeOf(v[size_t(cDl)], cDl, ln) - j.submit;
                    if (d.offset < 0)
                        fail({f, ln, name(cDl)}, "deadline before the submit time");
                    d.value = cDlVal >= 0 ? parseNumber(v[size_t(cDlVal)], {f, ln, name(cDlVal)}) : 10.0;
                    j.deadlines.push_back(d);
                } else {
                    parseDeadlineLists(v[size_t(cDl)], cDlVal >= 0 ? v[size_t(cDlVal)] : std::string_view(), cDlVal >= 0,
                                       unit, {f, ln, name(cDl)}, {f, ln, cDlVal >= 0 ? name(cDlVal) : std::string_view("deadline_values")},
                                       j.deadlines);
                }
            }
            b.add(std::move(j), {f, ln, cDur >= 0 ? name(cDur) : name(cEnd)});
        });
    }
    prog.done();
}

} // namespace ss::io
