#pragma once
// schedstudio-cli: a small command registry and argument parser. Each command lives in its own
// cmd_*.cpp file and registers itself with a static CliCommand object.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ss::cli {

/// A usage error: printed as one line on stderr, exit code 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// --key value / --key=value / --flag, plus positionals. Unknown or unused options are errors.
class Args {
public:
    Args(int argc, char** argv, int first);
    bool flag(const std::string& name);                       ///< --name present (no value)
    std::string get(const std::string& name, const std::string& dflt = {}); ///< --name VALUE
    std::string require(const std::string& name);            ///< throws UsageError when absent
    long getInt(const std::string& name, long dflt);
    double getDouble(const std::string& name, double dflt);
    bool has(const std::string& name) const;
    std::vector<std::string> getAll(const std::string& name); ///< repeated --name VALUE
    const std::vector<std::string>& positionals() const { return m_pos; }
    /// Every option as given, in key order (value empty and `flag` set for a bare --flag); for commands that
    /// issue themselves again with some options changed (sweep --slurm). Marks nothing as used.
    struct Option {
        std::string key, value;
        bool flag = false;
    };
    std::vector<Option> options() const;
    /// Throws UsageError naming any option that no call asked for.
    void finish() const;

private:
    std::multimap<std::string, std::string> m_opts; // value "\x01" = flag without value
    std::vector<std::string> m_pos;
    mutable std::map<std::string, bool> m_used;
};

using CommandFn = int (*)(Args& args);

struct CliCommand {
    CliCommand(const char* name, const char* synopsis, CommandFn fn);
};

/// `run`/`compare --scenario FILE` on a mode-"accelerator" scenario (cmd_accel.cpp); `single` = run.
int runAccelScenario(Args& a, bool single);
/// True when FILE is a scenario with "mode": "accelerator".
bool isAccelScenario(const std::string& file);

/// "1,2,5-8" -> 1 2 5 6 7 8. Throws UsageError naming the bad item.
std::vector<uint64_t> parseSeedList(const std::string& s);

/// A run id given on the command line: a positive integer, else a UsageError naming `what`.
int64_t parseRunId(const std::string& s, const char* what);

/// Splits "a,b,c" (empty items dropped).
std::vector<std::string> splitList(const std::string& s, char sep = ',');

} // namespace ss::cli
