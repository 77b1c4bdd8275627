#include "slurm.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ss::cli {
namespace {


std::string absolutePath(const std::string& p)
{
    if (!p.empty() && p[0] == '/')
        return p;
    char buf[4096];
    if (!getcwd(buf, sizeof buf))
        throw std::runtime_error("slurm: cannot read the working directory");
    return std::string(buf) + "/" + p;
}


void makeDirs(const std::string& path)
{
    std::string cur;
    for (size_t i = 0; i <= path.size(); ++i) {
        if (i == path.size() || path[i] == '/') {
            if (!cur.empty() && mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
                throw std::runtime_error(cur + ": cannot create the directory: " + std::strerror(errno));
        }
        if (i < path.size())
            cur += path[i];
    }
}

void writeScript(const std::string& path, const std::string& text)
{
    std::ofstream f(path);
    f << text;
    if (!f)
        throw std::runtime_error(path + ": cannot write the batch script");
    f.close();
    chmod(path.c_str(), 0755);
}

/// Runs a command line and returns its trimmed stdout; throws with its output when it fails.
std::string runCapture(const std::string& cmd)
{
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    if (!p)
        throw std::runtime_error("slurm: cannot run '" + cmd + "'");
    std::string out;
    std::array<char, 512> buf;
    while (size_t n = fread(buf.data(), 1, buf.size(), p))
        out.append(buf.data(), n);
    const int rc = pclose(p);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' '))
        out.pop_back();
    if (rc != 0)
        throw std::runtime_error("slurm: '" + cmd + "' failed: " + (out.empty() ? "no output" : out));
    return out;
}

} // namespace

std::string shellQuote(const std::string& s)
{
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::string selfExe()
{
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        throw std::runtime_error("slurm: cannot find this program's path (/proc/self/exe)");
    buf[n] = '\0';
    return buf;
}

std::pair<size_t, size_t> parseShard(const std::string& shard)
{
    if (shard.empty())
        return {0, 1};
    unsigned long a = 0, b = 0;
    char slash = 0;
    std::istringstream is(shard);
    if (!(is >> a >> slash >> b) || slash != '/' || b == 0 || a >= b || !is.eof())
        throw UsageError("--shard: expected i/N with 0 <= i < N, got '" + shard + "'");
    return {size_t(a), size_t(b)};
}

SlurmArray slurmArrayFromArgs(Args& args, const std::string& command, const std::string& db)
{
    SlurmArray s;
    s.command = command;
    s.db = db;
    s.tasks = int(args.getInt("slurm-tasks", 4));
    if (s.tasks < 1 || s.tasks > 100000)
        throw UsageError("--slurm-tasks: expected 1..100000 array tasks");
    s.dir = args.get("slurm-dir", db + ".slurm");
    s.sbatchOptions = args.getAll("slurm-opt");
    s.submit = !args.flag("slurm-no-submit");
    args.flag("slurm");
    for (const Args::Option& o : args.options()) {
        if (o.key == "db" || o.key == "shard" || o.key.rfind("slurm", 0) == 0)
            continue;
        s.options.push_back(o);
    }
    return s;
}

int submitSlurmArray(const SlurmArray& s)
{
    const std::string dir = absolutePath(s.dir);
    makeDirs(dir + "/logs");
    char cwdBuf[4096];
    if (!getcwd(cwdBuf, sizeof cwdBuf))
        throw std::runtime_error("slurm: cannot read the working directory");
    const std::string cwd = cwdBuf, exe = selfExe(), db = absolutePath(s.db);
    const std::string n = std::to_string(s.tasks);

    std::string head = "#!/bin/bash\n";
    std::string extra;
    for (const std::string& o : s.sbatchOptions)
        extra += "#SBATCH " + o + "\n";

    // this program running `command` with `options`, as one bash command line
    auto commandLine = [&exe](const std::string& command, const std::vector<Args::Option>& options) {
        std::string c = shellQuote(exe) + " " + shellQuote(command);
        for (const Args::Option& o : options)
            c += " " + shellQuote("--" + o.key) + (o.flag ? "" : " " + shellQuote(o.value));
        return c;
    };
    // the array: task i runs shard i/N into DIR/shard-i.db (rerunning a task resumes its shard)
    const std::string cmd = commandLine(s.command, s.options);
    std::string array = head + "#SBATCH --job-name=ss-" + s.command + "\n#SBATCH --array=0-" + std::to_string(s.tasks - 1)
                        + "\n#SBATCH --output=" + dir + "/logs/task-%a.out\n" + extra
                        + "# written by schedstudio-cli " + s.command + " --slurm: one shard of the run list per task\n"
                        + "set -euo pipefail\ncd " + shellQuote(cwd) + "\n" + "exec " + cmd
                        + " --shard \"$SLURM_ARRAY_TASK_ID/" + n + "\" --db " + shellQuote(dir) + "\"/shard-$SLURM_ARRAY_TASK_ID.db\"\n";
    // the merge: after every task succeeded, all shard databases into the final one
    std::string inputs;
    for (int i = 0; i < s.tasks; ++i)
        inputs += " " + shellQuote(dir + "/shard-" + std::to_string(i) + ".db");
    std::string merge = head + "#SBATCH --job-name=ss-" + s.command + "-merge\n#SBATCH --output=" + dir + "/logs/merge.out\n"
                        + extra + "# written by schedstudio-cli " + s.command + " --slurm: merges the shards (afterok)\n"
                        + "set -euo pipefail\ncd " + shellQuote(cwd) + "\n" + (s.finalCommand.empty() ? "exec " : "")
                        + shellQuote(exe) + " merge --db " + shellQuote(db) + inputs + "\n";
    if (!s.finalCommand.empty())
        merge += "exec " + commandLine(s.finalCommand, s.finalOptions) + " --db " + shellQuote(db) + "\n";
    const std::string arrayPath = dir + "/array.sbatch", mergePath = dir + "/merge.sbatch";
    writeScript(arrayPath, array);
    writeScript(mergePath, merge);

    if (!s.submit) {
        std::printf("slurm: wrote %s (%d tasks) and %s; submit with\n  id=$(sbatch --parsable %s)\n"
                    "  sbatch --dependency=afterok:${id%%%%;*} %s\n",
                    arrayPath.c_str(), s.tasks, mergePath.c_str(), arrayPath.c_str(), mergePath.c_str());
        return 0;
    }
    try {
        std::string id = runCapture("sbatch --parsable " + shellQuote(arrayPath));
        id = id.substr(0, id.find(';')); // "id;cluster" on multi-cluster setups
        if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
            throw std::runtime_error("slurm: sbatch did not answer a job id: '" + id + "'");
        std::string mid = runCapture("sbatch --parsable --kill-on-invalid-dep=yes --dependency=afterok:" + id + " " + shellQuote(mergePath));
        mid = mid.substr(0, mid.find(';'));
        std::printf("slurm: array job %s (%d tasks, logs in %s/logs), merge job %s into %s after all succeed\n",
                    id.c_str(), s.tasks, dir.c_str(), mid.c_str(), db.c_str());
        std::printf("array %s\nmerge %s\n", id.c_str(), mid.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}

} // namespace ss::cli
