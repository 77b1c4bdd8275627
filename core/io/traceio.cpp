#include "io/traceio.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "io/csvpreview.h"
#include "io/readerbase.h"
#include "io/textio.h"

namespace ss {

std::vector<std::string> traceFormatNames()
{
    return {"native", "philly", "helios", "pai2020", "openb", "gavel", "tiresias", "chronus", "pollux", "swf", "csv"};
}

namespace io {

TraceBuilder::TraceBuilder(const std::string& file, const TraceReadOptions& opts, std::string format)
    : models(trace.models)
    , users(trace.users)
    , vcs(trace.vcs)
    , qos(trace.qosClasses)
    , specs(trace.gpuSpecs)
    , machineSets(trace.machineSets)
    , m_file(file)
    , m_opts(opts)
{
    report.format = std::move(format);
    trace.name = std::filesystem::path(file).stem().string();
}

void TraceBuilder::add(Job j, const FieldRef& durationField)
{
    if (j.duration < 0)
        fail(durationField, "negative duration " + formatDouble(j.duration));
    if (!(j.gpus > 0)) {
        skip("zero GPUs");
        return;
    }
    if (j.duration == 0) {
        skip("zero duration");
        return;
    }
    trace.jobs.push_back(std::move(j));
}

Trace TraceBuilder::finish(TraceReadReport* out, bool rebase)
{
    // Most files are already in order; the check is far cheaper than a stable sort's buffer and moves.
    const bool sorted = std::is_sorted(trace.jobs.begin(), trace.jobs.end(), [](const Job& a, const Job& b) {
        return a.submit < b.submit || (a.submit == b.submit && a.id < b.id);
    });
    if (!sorted)
        trace.sortBySubmit();
    if (trace.jobs.capacity() > trace.jobs.size() + trace.jobs.size() / 4)
        trace.jobs.shrink_to_fit();
    if (rebase && !trace.jobs.empty() && trace.jobs.front().submit != 0) {
        const double off = trace.jobs.front().submit;
        for (auto& j : trace.jobs) {
            j.submit -= off;
            j.started -= off; // NaN stays NaN
        }
        trace.notes.push_back("times rebased: first submit was at " + formatDouble(off) + " s in " + report.format
                              + " time");
    }
    report.jobs = long(trace.jobs.size());
    if (report.skipped) {
        std::string s = "skipped " + std::to_string(report.skipped) + " of " + std::to_string(report.rows) + " rows:";
        for (const auto& [why, n] : report.skippedByReason)
            s += " " + why + " " + std::to_string(n) + ";";
        s.pop_back();
        trace.notes.push_back(s);
    }
    report.notes = trace.notes;
    if (out)
        *out = report;
    return std::move(trace);
}

std::string formatDouble(double v)
{
    char buf[64];
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        auto [p, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(v));
        return std::string(buf, p);
    }
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, p);
}

// ---- native CSV ----

static const char* kNativeMagic = "# schedstudio-trace v";
static const char* kNativeHeader = "id,submit,gpus,duration,model,user,vc,qos,gpu_spec,deadlines,cpu,mem_gb,iterations";

static void parseDeadlines(std::string_view s, std::vector<DeadlineLevel>& out, const FieldRef& at)
{
    s = trim(s);
    out.clear();
    if (s.empty())
        return;
    size_t p = 0;
    for (;;) {
        const size_t q = s.find('|', p);
        const std::string_view item = s.substr(p, q == std::string_view::npos ? std::string_view::npos : q - p);
        const size_t colon = item.find(':');
        if (colon == std::string_view::npos)
            fail(at, "deadline level '" + std::string(item) + "' is not offset:value");
        DeadlineLevel d;
        d.offset = parseNumber(item.substr(0, colon), at);
        d.value = parseNumber(item.substr(colon + 1), at);
        if (d.offset < 0)
            fail(at, "negative deadline offset");
        out.push_back(d);
        if (q == std::string_view::npos)
            break;
        p = q + 1;
    }
    std::sort(out.begin(), out.end(), [](const DeadlineLevel& a, const DeadlineLevel& b) { return a.offset < b.offset; });
}

void readNative(TraceBuilder& b, LineReader& r)
{
    std::string_view line;
    if (!r.next(line))
        throw IoError(b.file(), 0, "", "empty file");
    if (line.substr(0, std::strlen(kNativeMagic)) != kNativeMagic)
        throw IoError(b.file(), 1, "", "not a SchedStudio trace (first line must be '# schedstudio-trace v1')");
    const std::string_view ver = trim(line.substr(std::strlen(kNativeMagic)));
    if (ver != "1")
        throw IoError(b.file(), 1, "", "unsupported trace version '" + std::string(ver)
                                           + "' (this build reads version 1)");
    FieldSplitter sp;
    Header hdr;
    bool haveHeader = false;
    while (r.next(line)) {
        if (!line.empty() && line[0] == '#') {
            std::string_view n = line.substr(1);
            if (!n.empty() && n[0] == ' ')
                n.remove_prefix(1);
            b.trace.notes.emplace_back(n);
            continue;
        }
        if (trim(line).empty())
            continue;
        hdr = Header(sp.split(line, ','));
        haveHeader = true;
        break;
    }
    if (!haveHeader)
        throw IoError(b.file(), r.lineNo() + 1, "", "missing header line '" + std::string(kNativeHeader) + "'");
    const long hl = r.lineNo();
    b.reserveFor(r.sizeBytes(), 40);
    const int cId = hdr.require("id", b.file(), hl), cSubmit = hdr.require("submit", b.file(), hl),
              cGpus = hdr.require("gpus", b.file(), hl), cDur = hdr.require("duration", b.file(), hl);
    const int cModel = hdr.index("model"), cUser = hdr.index("user"), cVc = hdr.index("vc"), cQos = hdr.index("qos"),
              cSpec = hdr.index("gpu_spec"), cDl = hdr.index("deadlines"), cCpu = hdr.index("cpu"),
              cMem = hdr.index("mem_gb"), cIt = hdr.index("iterations"), cStarted = hdr.index("start"),
              cMachines = hdr.index("machines");
    Progress prog(b.opts());
    const std::string& f = b.file();
    while (r.next(line)) {
        prog.tick(r);
        if (line.empty() || line[0] == '#')
            continue;
        b.row([&] {
            const auto& v = sp.split(line, ',');
            const long ln = r.lineNo();
            if (v.size() != hdr.size()) {
                const size_t missing = std::min(v.size(), hdr.size());
                throw IoError(f, ln, hdr.name(missing < hdr.size() ? missing : hdr.size() - 1),
                              "row has " + std::to_string(v.size()) + " fields, header has "
                                  + std::to_string(hdr.size()));
            }
            auto opt = [&](int c) { return c >= 0 ? v[size_t(c)] : std::string_view(); };
            Job j;
            j.id = parseInt(v[size_t(cId)], {f, ln, "id"});
            j.submit = parseNumber(v[size_t(cSubmit)], {f, ln, "submit"});
            j.gpus = parseNumber(v[size_t(cGpus)], {f, ln, "gpus"});
            j.duration = parseNumber(v[size_t(cDur)], {f, ln, "duration"});
            if (j.submit < 0)
                fail({f, ln, "submit"}, "negative submit time");
            if (j.gpus < 0)
                fail({f, ln, "gpus"}, "negative GPU demand");
            if (j.gpus > 1 && j.gpus != std::floor(j.gpus))
                fail({f, ln, "gpus"}, "a demand above 1 GPU must be a whole number");
            j.model = b.intern(b.models, opt(cModel));
            j.user = b.intern(b.users, opt(cUser));
            j.vc = b.intern(b.vcs, opt(cVc));
            j.qos = b.intern(b.qos, opt(cQos));
            j.gpuSpec = b.intern(b.specs, opt(cSpec));
            if (cDl >= 0)
                parseDeadlines(v[size_t(cDl)], j.deadlines, {f, ln, "deadlines"});
            j.cpu = float(parseNumberOr(opt(cCpu), 0, {f, ln, "cpu"}));
            j.memGb = float(parseNumberOr(opt(cMem), 0, {f, ln, "mem_gb"}));
            j.iterations = parseNumberOr(opt(cIt), 0, {f, ln, "iterations"});
            if (!trim(opt(cStarted)).empty())
                j.started = parseNumber(opt(cStarted), {f, ln, "start"});
            j.machines = b.intern(b.machineSets, opt(cMachines));
            b.add(std::move(j), {f, ln, "duration"});
        });
    }
    prog.done();
}

} // namespace io

using namespace io;

// ---- writing ----

namespace {
class OutFile {
public:
    explicit OutFile(const std::string& path) : m_path(path)
    {
        m_fp = std::fopen(path.c_str(), "wb");
        if (!m_fp)
            throw IoError(path, 0, "", std::string("cannot write: ") + std::strerror(errno));
        m_buf.reserve(1 << 20);
    }
    ~OutFile()
    {
        if (m_fp)
            std::fclose(m_fp);
    }
    std::string& buf() { return m_buf; }
    void maybeFlush()
    {
        if (m_buf.size() > (1 << 20) - 4096)
            flush();
    }
    void flush()
    {
        if (!m_buf.empty() && std::fwrite(m_buf.data(), 1, m_buf.size(), m_fp) != m_buf.size())
            throw IoError(m_path, 0, "", std::string("write failed: ") + std::strerror(errno));
        m_buf.clear();
    }
    void close()
    {
        flush();
        const int rc = std::fclose(m_fp);
        m_fp = nullptr;
        if (rc != 0)
            throw IoError(m_path, 0, "", std::string("write failed: ") + std::strerror(errno));
    }

private:
    std::string m_path;
    std::FILE* m_fp = nullptr;
    std::string m_buf;
};

void appendNum(std::string& out, double v)
{
    char buf[64];
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        auto [p, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(v));
        out.append(buf, p);
        return;
    }
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, p);
}

void appendField(std::string& out, const std::vector<std::string>& table, int32_t idx)
{
    if (idx < 0 || size_t(idx) >= table.size())
        return;
    const std::string& s = table[size_t(idx)];
    if (s.find_first_of(",\"\n\r") == std::string::npos) {
        out += s;
        return;
    }
    out += '"';
    for (char c : s) {
        if (c == '\n' || c == '\r')
            c = ' ';
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
}
} // namespace

void writeNativeTrace(const Trace& trace, const std::string& path)
{
    OutFile out(path);
    std::string& o = out.buf();
    o += kNativeMagic;
    o += "1\n";
    for (const auto& n : trace.notes) {
        o += "# ";
        for (char c : n)
            o += (c == '\n' || c == '\r') ? ' ' : c;
        o += '\n';
    }
    o += kNativeHeader;
    // where and when the source ran each job (for --start-at): only when some job has it, so traces without
    // it keep their bytes
    const bool placed = std::any_of(trace.jobs.begin(), trace.jobs.end(),
                                    [](const Job& j) { return j.hasStarted() || j.machines >= 0; });
    if (placed)
        o += ",start,machines";
    o += '\n';
    for (const Job& j : trace.jobs) {
        appendNum(o, double(j.id));
        o += ',';
        appendNum(o, j.submit);
        o += ',';
        appendNum(o, j.gpus);
        o += ',';
        appendNum(o, j.duration);
        o += ',';
        appendField(o, trace.models, j.model);
        o += ',';
        appendField(o, trace.users, j.user);
        o += ',';
        appendField(o, trace.vcs, j.vc);
        o += ',';
        appendField(o, trace.qosClasses, j.qos);
        o += ',';
        appendField(o, trace.gpuSpecs, j.gpuSpec);
        o += ',';
        for (size_t i = 0; i < j.deadlines.size(); ++i) {
            if (i)
                o += '|';
            appendNum(o, j.deadlines[i].offset);
            o += ':';
            appendNum(o, j.deadlines[i].value);
        }
        o += ',';
        if (j.cpu != 0)
            appendNum(o, double(j.cpu));
        o += ',';
        if (j.memGb != 0)
            appendNum(o, double(j.memGb));
        o += ',';
        if (j.iterations != 0)
            appendNum(o, j.iterations);
        if (placed) {
            o += ',';
            if (j.hasStarted())
                appendNum(o, j.started);
            o += ',';
            appendField(o, trace.machineSets, j.machines);
        }
        o += '\n';
        out.maybeFlush();
    }
    out.close();
}

void writeSwfTrace(const Trace& trace, const std::string& path)
{
    OutFile out(path);
    std::string& o = out.buf();
    o += "; Version: 2.2\n; Computer: SchedStudio export (processors = GPUs, rounded up)\n";
    o += "; Note: written by schedstudio-cli convert; run time = duration on a reference GPU\n";
    for (const auto& n : trace.notes)
        o += "; Note: " + n + "\n";
    for (const Job& j : trace.jobs) {
        // job submit wait run procs avgcpu mem req_procs req_time req_mem status uid gid app queue partition prev think
        appendNum(o, double(j.id));
        o += ' ';
        appendNum(o, std::round(j.submit));
        o += " -1 ";
        appendNum(o, std::max(1.0, std::round(j.duration)));
        o += ' ';
        appendNum(o, double(j.wholeGpus()));
        o += " -1 -1 ";
        appendNum(o, double(j.wholeGpus()));
        o += " -1 -1 1 ";
        appendNum(o, double(j.user));
        o += " -1 ";
        appendNum(o, double(j.model));
        o += ' ';
        appendNum(o, double(j.vc));
        o += " -1 -1 -1\n";
        out.maybeFlush();
    }
    out.close();
}

// ---- detection and dispatch ----

static std::string detectFromLines(const std::vector<std::string>& lines)
{
    if (lines.empty())
        return "";
    const std::string& first = lines[0];
    if (first.rfind("# schedstudio-trace", 0) == 0)
        return "native";
    if (first.rfind(";", 0) == 0)
        return "swf";
    const std::string h = lower(first);
    auto has = [&](const char* col) {
        // whole column name match within the header
        const std::string c = col;
        size_t p = 0;
        while ((p = h.find(c, p)) != std::string::npos) {
            const bool l = p == 0 || h[p - 1] == ',';
            const bool r = p + c.size() == h.size() || h[p + c.size()] == ',';
            if (l && r)
                return true;
            ++p;
        }
        return false;
    };
    if (has("expect_time_list"))
        return "chronus";
    if (has("timestamp") && has("num_gpus") && has("duration"))
        return "philly";
    if (has("gpu_num") && has("submit_time") && (has("vc") || has("state")))
        return "helios";
    if (has("gpu_milli") && has("num_gpu"))
        return "openb";
    if (has("num_replicas") && has("application"))
        return "pollux";
    if (has("job_id") && has("num_gpu") && has("submit_time") && has("duration"))
        return "tiresias";
    if (has("plan_gpu") || (has("job_name") && has("inst_id") && has("status")))
        return "pai2020";
    // headerless shapes
    const size_t tabs = size_t(std::count(first.begin(), first.end(), '\t'));
    if (tabs == 6 || tabs == 9)
        return "gavel";
    io::FieldSplitter sp;
    const auto& ws = sp.splitWhitespace(first);
    if (ws.size() == 18) {
        bool numeric = true;
        for (auto f : ws) {
            double d;
            auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), d);
            numeric = numeric && ec == std::errc() && p == f.data() + f.size();
        }
        if (numeric)
            return "swf";
    }
    const auto& cs = sp.split(first, ',');
    if (cs.size() == 10 || cs.size() == 6) {
        // PAI 2020 tables ship without headers: job_name,task_name,inst_num,status,... / job_name,inst_id,user,status,...
        const std::string_view st = cs[3];
        if (st == "Terminated" || st == "Failed" || st == "Running" || st == "Waiting")
            return "pai2020";
    }
    return "";
}

std::string detectTraceFormat(const std::string& path)
{
    io::LineReader r(path);
    std::vector<std::string> lines;
    std::string_view l;
    while (lines.size() < 3 && r.next(l)) {
        if (!io::trim(l).empty())
            lines.emplace_back(l);
    }
    return detectFromLines(lines);
}

namespace {
/// ": its header suggests --map submit=a,gpus=b,duration=c" when the header's names make a mapping the generic
/// reader accepts; "" otherwise.
std::string suggestColumnMap(const std::string& path)
{
    try {
        const CsvPreview p = previewCsv(path, 5);
        const ColumnGuess g = guessColumnMap(p);
        if (!checkColumnMap(p, g.columns).empty())
            return {};
        std::string m;
        for (const auto& [k, c] : g.columns)
            m += (m.empty() ? "" : ",") + k + "=" + c;
        return "; its header suggests --map " + m + (g.timeFormat.empty() ? "" : " --time-format '" + g.timeFormat + "'");
    } catch (const std::exception&) {
        return {};
    }
}
} // namespace

Trace readTrace(const std::string& path, const TraceReadOptions& opts, TraceReadReport* report)
{
    std::string fmt = opts.format.empty() ? "auto" : lower(opts.format);
    if (fmt == "auto") {
        if (!opts.columnMap.empty()) {
            fmt = "csv";
        } else {
            fmt = detectTraceFormat(path);
            if (fmt.empty()) {
                io::LineReader probe(path);
                if (probe.empty())
                    throw IoError(path, 0, "", "empty file");
                throw IoError(path, 1, "", "unknown trace format (use --format, or --map for another CSV" + suggestColumnMap(path) + ")");
            }
        }
    }
    const auto names = traceFormatNames();
    if (std::find(names.begin(), names.end(), fmt) == names.end())
        throw IoError(path, 0, "", "unknown format '" + fmt + "'");
    TraceBuilder b(path, opts, fmt);
    LineReader r(path);
    if (r.empty())
        throw IoError(path, 0, "", "empty file");
    if (fmt == "native")
        readNative(b, r);
    else if (fmt == "philly")
        readPhilly(b, r);
    else if (fmt == "helios")
        readHelios(b, r);
    else if (fmt == "pai2020")
        readPai2020(b, r);
    else if (fmt == "openb")
        readOpenb(b, r);
    else if (fmt == "gavel")
        readGavel(b, r);
    else if (fmt == "tiresias")
        readTiresias(b, r);
    else if (fmt == "chronus")
        readChronus(b, r);
    else if (fmt == "pollux")
        readPollux(b, r);
    else if (fmt == "swf")
        readSwf(b, r);
    else
        readMappedCsv(b, r);
    if (fmt != "native")
        b.trace.notes.insert(b.trace.notes.begin(),
                             "source: " + std::filesystem::path(path).filename().string() + " (" + fmt + ")");
    return b.finish(report);
}

} // namespace ss
