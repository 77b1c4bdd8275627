#include "io/csvpreview.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

#include "io/ioerror.h"
#include "io/textio.h"

namespace ss {

const std::vector<ColumnMapKey>& columnMapKeys()
{
    static const std::vector<ColumnMapKey> keys {
        {"submit", "submit (arrival) time", true},
        {"gpus", "GPUs requested", true},
        {"duration", "run time (or give end)", false},
        {"end", "end time (duration = end - start, or - submit)", false},
        {"start", "start time (with end)", false},
        {"id", "job id", false},
        {"user", "user", false},
        {"vc", "virtual cluster / queue", false},
        {"model", "model / job type", false},
        {"qos", "QoS class", false},
        {"status", "status (failed/killed rows skipped)", false},
        {"cpu", "CPU cores", false},
        {"mem", "memory (GB)", false},
        {"gpu_spec", "GPU type required", false},
        {"iterations", "iterations", false},
        {"deadline", "deadline (absolute with a time format, else relative seconds)", false},
        {"deadline_values", "soft deadline values (with deadline)", false},
    };
    return keys;
}

bool isColumnMapKey(const std::string& key)
{
    const auto& k = columnMapKeys();
    return std::any_of(k.begin(), k.end(), [&](const ColumnMapKey& c) { return key == c.key; });
}

CsvPreview previewCsv(const std::string& path, int maxRows)
{
    CsvPreview p;
    p.file = path;
    io::LineReader r(path);
    if (r.empty())
        throw IoError(path, 0, "", "empty file");
    io::FieldSplitter sp;
    std::string_view line;
    while (r.next(line) && io::trim(line).empty()) {
    }
    if (io::trim(line).empty())
        throw IoError(path, r.lineNo(), "", "no header line");
    const long headerLine = r.lineNo();
    p.delimiter = (line.find('\t') != std::string_view::npos && line.find(',') == std::string_view::npos) ? '\t' : ',';
    std::set<std::string> seen;
    for (std::string_view f : sp.split(line, p.delimiter)) {
        std::string name(io::trim(f));
        if (name.empty())
            throw IoError(path, headerLine, "", "column " + std::to_string(p.header.size() + 1) + " of the header has no name");
        if (!seen.insert(io::lower(name)).second)
            throw IoError(path, headerLine, name, "the header names this column twice");
        p.header.push_back(std::move(name));
    }
    p.firstDataLine = 0;
    while (int(p.rows.size()) < maxRows && r.next(line)) {
        if (io::trim(line).empty())
            continue;
        if (p.firstDataLine == 0)
            p.firstDataLine = r.lineNo();
        std::vector<std::string> row;
        for (std::string_view f : sp.split(line, p.delimiter))
            row.emplace_back(io::trim(f));
        p.rows.push_back(std::move(row));
    }
    return p;
}

namespace {

std::string norm(const std::string& s)
{
    std::string o;
    for (char c : s)
        if (std::isalnum(static_cast<unsigned char>(c)))
            o += char(std::tolower(static_cast<unsigned char>(c)));
    return o;
}

/// Names (normalised: lower case, letters and digits only) that mean each key, best first.
const std::map<std::string, std::vector<std::string>>& synonyms()
{
    static const std::map<std::string, std::vector<std::string>> s {
        {"id", {"id", "jobid", "job", "jobname", "name", "uuid", "instid", "taskid"}},
        {"submit", {"submit", "submittime", "submitted", "submission", "submissiontime", "arrival", "arrivaltime",
                    "arrive", "createtime", "creationtime", "created", "queuetime", "enqueuetime", "time", "timestamp"}},
        {"gpus", {"gpus", "gpu", "numgpu", "numgpus", "ngpu", "ngpus", "gpunum", "gpucount", "gpurequest", "gpureq",
                  "gpusrequested", "requestedgpus", "reqgpus", "workers", "numworkers"}},
        {"duration", {"duration", "runtime", "runtimes", "runtimesec", "durationsec", "durations", "elapsed",
                      "elapsedtime", "length", "walltime", "jobduration", "runningtime", "exectime", "executiontime"}},
        {"end", {"end", "endtime", "finish", "finishtime", "finished", "completion", "completiontime", "stoptime"}},
        {"start", {"start", "starttime", "started", "launchtime", "begin", "begintime"}},
        {"user", {"user", "username", "userid", "owner"}},
        {"vc", {"vc", "virtualcluster", "queue", "partition", "group", "team"}},
        {"model", {"model", "modelname", "jobtype", "type", "application", "app", "workload"}},
        {"qos", {"qos", "priority", "priorityclass", "class"}},
        {"status", {"status", "state", "exitstatus", "jobstatus"}},
        {"cpu", {"cpu", "cpus", "numcpu", "numcpus", "cpucores", "cores", "cpurequest"}},
        {"mem", {"mem", "memory", "memgb", "memorygb", "memrequest", "ram"}},
        {"gpu_spec", {"gpuspec", "gputype", "gpumodel", "gpuname"}},
        {"iterations", {"iterations", "iters", "numiterations", "steps", "numsteps", "epochs"}},
        {"deadline", {"deadline", "ddl", "slo", "deadlinetime"}},
        {"deadline_values", {"deadlinevalues", "values"}},
    };
    return s;
}

bool isNumber(const std::string& t, double* v = nullptr)
{
    if (t.empty())
        return false;
    char* end = nullptr;
    const double d = std::strtod(t.c_str(), &end);
    if (*end != '\0' || !std::isfinite(d))
        return false;
    if (v)
        *v = d;
    return true;
}

} // namespace

ColumnGuess guessColumnMap(const CsvPreview& p)
{
    ColumnGuess g;
    std::vector<std::string> names;
    for (const std::string& h : p.header)
        names.push_back(norm(h));
    std::set<size_t> taken;
    // exact synonym matches, keys in form order, best synonym first; then a name that starts with a synonym
    for (int pass = 0; pass < 2; ++pass)
        for (const ColumnMapKey& k : columnMapKeys()) {
            if (g.columns.count(k.key))
                continue;
            const auto& syn = synonyms().at(k.key);
            for (const std::string& s : syn) {
                size_t hit = names.size();
                for (size_t i = 0; i < names.size() && hit == names.size(); ++i)
                    if (!taken.count(i) && (pass == 0 ? names[i] == s : (s.size() >= 3 && names[i].rfind(s, 0) == 0)))
                        hit = i;
                if (hit < names.size()) {
                    g.columns[k.key] = p.header[hit];
                    taken.insert(hit);
                    if (pass == 1)
                        g.notes.push_back(std::string(k.key) + " = '" + p.header[hit] + "' (the name starts with '" + s + "')");
                    break;
                }
            }
        }
    // both duration and end: the reader would take duration; keep both only when they are distinct columns
    // the time unit, from the submit column's first values
    auto col = [&](const char* key) -> int {
        auto it = g.columns.find(key);
        if (it == g.columns.end())
            return -1;
        for (size_t i = 0; i < p.header.size(); ++i)
            if (p.header[i] == it->second)
                return int(i);
        return -1;
    };
    const int cs = col("submit");
    if (cs >= 0) {
        int dates = 0, big = 0, numbers = 0;
        for (const auto& row : p.rows) {
            if (size_t(cs) >= row.size())
                continue;
            double v = 0, d = 0;
            if (isNumber(row[size_t(cs)], &v)) {
                ++numbers;
                if (v > 1e11) // epoch milliseconds (seconds since 1970 stay below 1e11 until the year 5138)
                    ++big;
            } else if (io::parseIsoDateTime(row[size_t(cs)], d)) {
                ++dates;
            }
        }
        if (dates > 0 && dates >= numbers) {
            g.timeFormat = "%Y-%m-%d %H:%M:%S";
            g.notes.push_back("times look like dates: time format %Y-%m-%d %H:%M:%S");
        } else if (big > 0 && big == numbers) {
            g.timeFormat = "ms";
            g.notes.push_back("submit times look like epoch milliseconds: time unit ms");
        }
    }
    return g;
}

std::string checkColumnMap(const CsvPreview& p, const std::map<std::string, std::string>& columns)
{
    for (const auto& [k, c] : columns) {
        if (!isColumnMapKey(k))
            return "unknown key '" + k + "'";
        if (std::none_of(p.header.begin(), p.header.end(), [&](const std::string& h) { return io::iequals(h, c); }))
            return k + ": no column '" + c + "' in the header";
    }
    if (!columns.count("submit"))
        return "map a column to submit";
    if (!columns.count("gpus"))
        return "map a column to gpus";
    if (!columns.count("duration") && !columns.count("end"))
        return "map a column to duration (or to end)";
    if (columns.count("deadline_values") && !columns.count("deadline"))
        return "deadline_values needs deadline as well";
    return {};
}

} // namespace ss
