#include "io/startstateio.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include "io/ioerror.h"
#include "io/json.h"
#include "io/textio.h"

namespace ss {

namespace {

int machineIndex(const ClusterSpec& c, std::string_view name)
{
    for (int m = 0; m < c.machineCount(); ++m)
        if (c.machines[size_t(m)].name == name)
            return m;
    return -1;
}

// Capacity checks with the file's line numbers: the machines exist, hold the job, and are not over-booked by
// the state's running jobs taken in file order (whole GPUs; fractional jobs share one GPU).
void checkAgainstCluster(const StartState& s, const std::string& file, const ClusterSpec& c)
{
    std::vector<int> freeWhole(size_t(c.machineCount()));
    for (int m = 0; m < c.machineCount(); ++m)
        freeWhole[size_t(m)] = c.machines[size_t(m)].gpus;
    std::unordered_set<int64_t> ids;
    for (const StartStateJob& j : s.jobs) {
        if (!ids.insert(j.id).second)
            throw IoError(file, j.line, "job_id", "job " + std::to_string(j.id) + " is listed twice");
        if (!j.running)
            continue;
        const int need = j.gpus < 1 ? 1 : int(std::ceil(j.gpus));
        int span = 0;
        for (int m : j.machines)
            span += c.machines[size_t(m)].gpus;
        if (need > span)
            throw IoError(file, j.line, "gpus", "job " + std::to_string(j.id) + " uses " + std::to_string(need)
                                                    + " GPUs, its machines have " + std::to_string(span) + " in all");
        int left = need;
        for (int m : j.machines) {
            const int take = std::min(left, freeWhole[size_t(m)]);
            if (j.gpus >= 1)
                freeWhole[size_t(m)] -= take;
            left -= take;
        }
        if (left > 0)
            throw IoError(file, j.line, "machines",
                          "job " + std::to_string(j.id) + " needs " + std::to_string(need)
                              + " GPUs, the state's earlier jobs leave only " + std::to_string(need - left) + " free on its machines");
    }
}

StartStateJob jobFields(const std::string& file, long line, int64_t id, std::string_view state, double gpus, double work,
                        const std::vector<std::string>& machines, const ClusterSpec& c)
{
    StartStateJob j;
    j.id = id;
    j.line = line;
    if (state == "running")
        j.running = true;
    else if (state != "queued")
        throw IoError(file, line, "state", "expected running or queued, got '" + std::string(state) + "'");
    if (!(gpus > 0) || !std::isfinite(gpus) || (gpus > 1 && gpus != std::floor(gpus)))
        throw IoError(file, line, "gpus", "expected a whole number of GPUs >= 1 or a fraction in (0,1)");
    j.gpus = gpus;
    if (!(work > 0) || !std::isfinite(work))
        throw IoError(file, line, "work", "expected the work left in reference-GPU seconds (> 0)");
    j.work = work;
    if (j.running && machines.empty())
        throw IoError(file, line, "machines", "a running job needs the machines it runs on");
    if (!j.running && !machines.empty())
        throw IoError(file, line, "machines", "a queued job runs on no machine yet");
    for (const std::string& m : machines) {
        const int idx = machineIndex(c, m);
        if (idx < 0)
            throw IoError(file, line, "machines", "no machine '" + m + "' in cluster " + c.name);
        j.machines.push_back(idx);
    }
    return j;
}

StartState fromJson(const std::string& text, const std::string& file, const ClusterSpec& c)
{
    const JsonValue root = parseJson(text, file);
    const JsonReader r(file);
    if (!root.isObject() || r.string(root, "format", "") != "schedstudio-start-state")
        r.fail(root, "format", "not a start state (expected \"schedstudio-start-state\")");
    if (r.number(root, "version", 1) > 1)
        r.fail(root, "version", "newer than this SchedStudio supports");
    StartState s;
    s.source = file;
    s.time = r.number(root, "time", 0);
    for (const JsonValue& e : r.array(root, "jobs", true)) {
        if (!e.isObject())
            r.fail(e, "jobs", "every job must be an object");
        std::vector<std::string> machines;
        if (const JsonValue* ms = e.find("machines")) {
            if (!ms->isArray())
                r.fail(*ms, "machines", "expected an array of machine names");
            for (const JsonValue& m : ms->array()) {
                if (!m.isString())
                    r.fail(m, "machines", "expected machine names");
                machines.push_back(m.string());
            }
        }
        s.jobs.push_back(jobFields(file, e.line(), int64_t(r.number(e, "id")), r.string(e, "state"),
                                   r.number(e, "gpus", 1), r.number(e, "work"), machines, c));
        s.jobs.back().model = r.string(e, "model", "");
    }
    return s;
}

StartState fromCsv(const std::string& text, const std::string& file, const ClusterSpec& c)
{
    StartState s;
    s.source = file;
    std::istringstream in(text);
    std::string raw;
    long line = 0;
    io::FieldSplitter split;
    io::Header header;
    bool haveHeader = false;
    int cId = -1, cState = -1, cGpus = -1, cWork = -1, cMachines = -1, cModel = -1;
    while (std::getline(in, raw)) {
        ++line;
        if (!raw.empty() && raw.back() == '\r')
            raw.pop_back();
        const std::string_view l = io::trim(raw);
        if (l.empty())
            continue;
        if (l[0] == '#') {
            const std::string_view body = io::trim(l.substr(1));
            if (body.rfind("time=", 0) == 0)
                s.time = io::parseNumber(body.substr(5), {file, line, "time"});
            continue;
        }
        const auto& f = split.split(l, ',');
        if (!haveHeader) {
            header = io::Header(f);
            cId = header.require("job_id", file, line);
            cState = header.require("state", file, line);
            cGpus = header.require("gpus", file, line);
            cWork = header.require("work", file, line);
            cMachines = header.index("machines");
            cModel = header.index("model");
            haveHeader = true;
            continue;
        }
        auto field = [&](int i) { return i >= 0 && size_t(i) < f.size() ? io::trim(f[size_t(i)]) : std::string_view(); };
        std::vector<std::string> machines;
        const std::string_view ms = field(cMachines);
        size_t p = 0;
        while (p < ms.size()) {
            size_t q = ms.find(';', p);
            if (q == std::string_view::npos)
                q = ms.size();
            const std::string_view m = io::trim(ms.substr(p, q - p));
            if (!m.empty())
                machines.emplace_back(m);
            p = q + 1;
        }
        StartStateJob j = jobFields(file, line, io::parseInt(field(cId), {file, line, "job_id"}), field(cState),
                                    io::parseNumber(field(cGpus), {file, line, "gpus"}),
                                    io::parseNumber(field(cWork), {file, line, "work"}), machines, c);
        j.model = std::string(field(cModel));
        s.jobs.push_back(std::move(j));
    }
    if (!haveHeader)
        throw IoError(file, line, "", "no header line (job_id,state,gpus,work,machines[,model])");
    return s;
}

} // namespace

StartState startStateFromText(const std::string& text, const std::string& file, const ClusterSpec& cluster)
{
    const size_t first = text.find_first_not_of(" \t\r\n");
    StartState s = first != std::string::npos && text[first] == '{' ? fromJson(text, file, cluster) : fromCsv(text, file, cluster);
    if (!std::isfinite(s.time) || s.time < 0)
        throw IoError(file, 0, "time", "expected a time in seconds >= 0");
    checkAgainstCluster(s, file, cluster);
    return s;
}

StartState readStartState(const std::string& path, const ClusterSpec& cluster)
{
    return startStateFromText(io::readWholeFile(path), path, cluster);
}

} // namespace ss
