#include "run/runspec.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "model/fnv.h"
#include "run/hash.h"

#ifndef SCHEDSTUDIO_VERSION
#define SCHEDSTUDIO_VERSION "dev"
#endif

namespace ss {

namespace fs = std::filesystem;

const char* softwareVersion() { return SCHEDSTUDIO_VERSION; }

namespace {
// Shortest text that reads back as exactly `v` (the canonical form must not depend on printf defaults).
std::string exact(double v)
{
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    if (std::isnan(v))
        return "nan";
    char buf[40];
    for (int prec = 1; prec <= 17; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (std::strtod(buf, nullptr) == v)
            break;
    }
    return buf;
}

// Values may hold any byte; newlines and backslashes are escaped so each field stays on one line.
std::string line(const std::string& s)
{
    std::string o;
    for (char c : s) {
        if (c == '\\')
            o += "\\\\";
        else if (c == '\n')
            o += "\\n";
        else
            o += c;
    }
    return o;
}
} // namespace

std::string canonicalPolicyName(const std::string& name)
{
    std::string o;
    for (char c : name)
        if (!std::isspace(static_cast<unsigned char>(c)))
            o += char(std::tolower(static_cast<unsigned char>(c)));
    return o;
}

std::string RunSpec::canonical() const
{
    std::ostringstream o;
    o << "schedstudio-run=1\n";
    o << "version=" << line(version) << '\n';
    o << "trace=" << traceFingerprint << '\n';
    o << "cluster=" << clusterFingerprint << '\n';
    o << "throughputs=" << throughputsFingerprint << '\n';
    o << "policy=" << line(canonicalPolicyName(policy)) << '\n';
    o << "backfill=" << (options.backfill ? 1 : 0) << '\n';
    for (const auto& [k, v] : options.params) // std::map: sorted
        o << "param." << line(k) << '=' << line(v) << '\n';
    o << "checkpoint=" << checkpointHash << '\n';
    o << "seed=" << config.seed << '\n';
    o << "perf=" << line(config.perf.toString()) << '\n';
    o << "max_time=" << exact(config.maxTime) << '\n';
    for (const MachineEventSpec& e : machineEvents)
        o << "machine_event=" << exact(e.time) << ',' << toString(e.kind) << ',' << line(e.machine) << '\n';
    if (!fork.empty())
        o << "fork=" << line(fork) << '\n';
    return o.str();
}

bool parseMachineEventKind(const std::string& s, MachineEventKind& kind)
{
    for (MachineEventKind k : {MachineEventKind::Fail, MachineEventKind::Drain, MachineEventKind::Restore})
        if (s == toString(k)) {
            kind = k;
            return true;
        }
    return false;
}

int resolveEventMachine(const ClusterSpec& cluster, const std::string& machine)
{
    for (int m = 0; m < cluster.machineCount(); ++m)
        if (cluster.machines[size_t(m)].name == machine)
            return m;
    if (!machine.empty() && machine.find_first_not_of("0123456789") == std::string::npos && machine.size() < 9) {
        const int m = std::stoi(machine);
        if (m < cluster.machineCount())
            return m;
    }
    return -1;
}

std::string RunSpec::id() const { return sha256Hex(canonical()); }

std::string traceFingerprint(const Trace& trace)
{
    Fnv f;
    for (const Job& j : trace.jobs) {
        f.num(j.id);
        f.num(j.submit);
        f.num(j.gpus);
        f.num(j.duration);
        const std::string& model = trace.modelName(j);
        f.bytes(model.data(), model.size());
        f.num(j.user);
        if (j.gpuSpec >= 0)
            f.bytes(trace.gpuSpecs[size_t(j.gpuSpec)].data(), trace.gpuSpecs[size_t(j.gpuSpec)].size());
        for (const DeadlineLevel& d : j.deadlines) {
            f.num(d.offset);
            f.num(d.value);
        }
        // DRF reads the tenant (virtual cluster), CPU and memory; QoS and iterations reach readers' filters.
        f.str(j.vc >= 0 && size_t(j.vc) < trace.vcs.size() ? trace.vcs[size_t(j.vc)] : std::string());
        f.str(j.qos >= 0 && size_t(j.qos) < trace.qosClasses.size() ? trace.qosClasses[size_t(j.qos)] : std::string());
        f.num(j.cpu);
        f.num(j.memGb);
        f.num(j.iterations);
    }
    return f.hex();
}

std::string checkpointDirectory()
{
    std::error_code ec;
    if (const char* env = std::getenv("SCHEDSTUDIO_CHECKPOINTS"); env && *env && fs::is_directory(env, ec))
        return env;
    // Next to or above the executable (build tree: build/app/cli/schedstudio-cli; install: share/...).
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
            for (const char* sub : {"resources/checkpoints", "share/schedstudio/checkpoints", "checkpoints"}) {
                fs::path c = p / sub;
                if (fs::is_directory(c, ec))
                    return c.string();
            }
        }
    }
#ifdef SS_SOURCE_DIR
    {
        fs::path c = fs::path(SS_SOURCE_DIR) / "resources" / "checkpoints";
        if (fs::is_directory(c, ec))
            return c.string();
    }
#endif
    return {};
}

std::string shippedCheckpoint(const std::string& policy, const std::string& clusterName)
{
    const std::string dir = checkpointDirectory();
    if (dir.empty() || policy.empty() || clusterName.empty())
        return {};
    std::error_code ec;
    fs::path p = fs::path(dir) / (policy + "-" + clusterName + ".sscp");
    return fs::is_regular_file(p, ec) ? p.string() : std::string();
}

void completeRunSpec(RunSpec& spec, const ClusterSpec& cluster, const Trace& trace, const ThroughputTable* table)
{
    spec.policy = canonicalPolicyName(spec.policy);
    spec.traceName = trace.name;
    spec.traceFingerprint = traceFingerprint(trace);
    spec.clusterName = cluster.name;
    spec.clusterFingerprint = cluster.fingerprint();
    spec.throughputsFingerprint = table && !table->empty() ? table->fingerprint() : std::string();
    completeRunSpecCheckpoint(spec);
}

void completeRunSpecCheckpoint(RunSpec& spec)
{
    // A learned policy reads its explicit checkpoint, else the shipped one for the cluster's name: the file's
    // bytes are part of what decides the run.
    spec.checkpointFile = !spec.options.checkpoint.empty() ? spec.options.checkpoint
                                                           : shippedCheckpoint(spec.policy, spec.clusterName);
    spec.checkpointHash = spec.checkpointFile.empty() ? std::string() : sha256File(spec.checkpointFile);
    if (!spec.checkpointFile.empty() && spec.checkpointHash.empty())
        spec.checkpointHash = "unreadable";
}

} // namespace ss
