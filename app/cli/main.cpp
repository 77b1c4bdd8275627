// schedstudio-cli: the headless front end. Every command is registered by a cmd_*.cpp file.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <string>

#include "cli.h"

namespace ss::cli {

namespace {
struct Entry {
    const char* synopsis;
    CommandFn fn;
};
std::map<std::string, Entry>& registry()
{
    static std::map<std::string, Entry> r;
    return r;
}
const char* kFlagOnly = "\x01";
} // namespace

CliCommand::CliCommand(const char* name, const char* synopsis, CommandFn fn) { registry()[name] = {synopsis, fn}; }

Args::Args(int argc, char** argv, int first)
{
    for (int i = first; i < argc; ++i) {
        std::string a = argv[i];
        if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string key = a.substr(2), val;
            const auto eq = key.find('=');
            if (eq != std::string::npos) {
                val = key.substr(eq + 1);
                key = key.substr(0, eq);
            } else if (i + 1 < argc && !(std::strlen(argv[i + 1]) > 2 && std::strncmp(argv[i + 1], "--", 2) == 0)) {
                val = argv[++i];
            } else {
                val = kFlagOnly;
            }
            m_opts.emplace(key, val);
        } else {
            m_pos.push_back(a);
        }
    }
}

bool Args::has(const std::string& name) const { return m_opts.count(name) > 0; }

std::vector<Args::Option> Args::options() const
{
    std::vector<Option> out;
    for (const auto& [k, v] : m_opts)
        out.push_back(v == kFlagOnly ? Option {k, {}, true} : Option {k, v, false});
    return out;
}

bool Args::flag(const std::string& name)
{
    auto it = m_opts.find(name);
    if (it == m_opts.end())
        return false;
    m_used[name] = true;
    if (it->second != kFlagOnly) {
        // "--flag value" swallowed a positional: give it back
        if (it->second == "true" || it->second == "on" || it->second == "1")
            return true;
        if (it->second == "false" || it->second == "off" || it->second == "0")
            return false;
        m_pos.push_back(it->second);
        it->second = kFlagOnly;
    }
    return true;
}

std::string Args::get(const std::string& name, const std::string& dflt)
{
    auto it = m_opts.find(name);
    if (it == m_opts.end())
        return dflt;
    m_used[name] = true;
    if (it->second == kFlagOnly)
        throw UsageError("option --" + name + " needs a value");
    return it->second;
}

std::string Args::require(const std::string& name)
{
    if (!has(name))
        throw UsageError("missing required option --" + name);
    return get(name);
}

std::vector<std::string> Args::getAll(const std::string& name)
{
    std::vector<std::string> out;
    auto [a, b] = m_opts.equal_range(name);
    for (auto it = a; it != b; ++it) {
        if (it->second == kFlagOnly)
            throw UsageError("option --" + name + " needs a value");
        out.push_back(it->second);
    }
    m_used[name] = true;
    return out;
}

long Args::getInt(const std::string& name, long dflt)
{
    if (!has(name))
        return dflt;
    const std::string v = get(name);
    char* end = nullptr;
    errno = 0;
    const long r = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end || errno)
        throw UsageError("option --" + name + ": '" + v + "' is not an integer");
    return r;
}

double Args::getDouble(const std::string& name, double dflt)
{
    if (!has(name))
        return dflt;
    const std::string v = get(name);
    char* end = nullptr;
    const double r = std::strtod(v.c_str(), &end);
    if (v.empty() || *end)
        throw UsageError("option --" + name + ": '" + v + "' is not a number");
    return r;
}

void Args::finish() const
{
    for (const auto& [k, v] : m_opts)
        if (!m_used.count(k))
            throw UsageError("unknown option --" + k);
}

// "1,2,5-8" -> 1 2 5 6 7 8
std::vector<uint64_t> parseSeedList(const std::string& s)
{
    std::vector<uint64_t> out;
    for (const std::string& item : splitList(s)) {
        try {
            size_t dash = item.find('-', 1);
            size_t pos = 0;
            if (dash == std::string::npos) {
                out.push_back(std::stoull(item, &pos));
                if (pos != item.size())
                    throw std::invalid_argument(item);
            } else {
                const uint64_t a = std::stoull(item.substr(0, dash), &pos);
                const uint64_t b = std::stoull(item.substr(dash + 1));
                if (b < a || b - a > 100000)
                    throw std::invalid_argument(item);
                for (uint64_t x = a; x <= b; ++x)
                    out.push_back(x);
            }
        } catch (const std::exception&) {
            throw UsageError("--seeds: '" + item + "' is not a seed or a range A-B");
        }
    }
    if (out.empty())
        throw UsageError("--seeds: no seeds given");
    return out;
}

std::vector<std::string> splitList(const std::string& s, char sep)
{
    std::vector<std::string> out;
    size_t p = 0;
    while (p <= s.size()) {
        size_t q = s.find(sep, p);
        if (q == std::string::npos)
            q = s.size();
        std::string item = s.substr(p, q - p);
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty())
            out.push_back(item);
        p = q + 1;
    }
    return out;
}

} // namespace ss::cli

static void usage(FILE* f)
{
    std::fprintf(f, "schedstudio-cli %s — headless SchedStudio\n\nusage: schedstudio-cli COMMAND [options]\n\ncommands:\n",
                 SCHEDSTUDIO_VERSION);
    for (const auto& [name, e] : ss::cli::registry())
        std::fprintf(f, "  %-10s %s\n", name.c_str(), e.synopsis);
    std::fprintf(f, "\nRun 'schedstudio-cli COMMAND --help' for a command's options (see README.md).\n");
}

int main(int argc, char** argv)
{
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
        usage(stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!std::strcmp(argv[1], "--version")) {
        std::printf("schedstudio-cli %s\n", SCHEDSTUDIO_VERSION);
        return 0;
    }
    auto& reg = ss::cli::registry();
    auto it = reg.find(argv[1]);
    if (it == reg.end()) {
        std::fprintf(stderr, "schedstudio-cli: unknown command '%s' (run 'schedstudio-cli --help')\n", argv[1]);
        return 2;
    }
    try {
        ss::cli::Args args(argc, argv, 2);
        if (args.has("help")) {
            std::printf("%s %s\n", argv[1], it->second.synopsis);
            return 0;
        }
        return it->second.fn(args);
    } catch (const ss::cli::UsageError& e) {
        std::fprintf(stderr, "schedstudio-cli %s: %s\n", argv[1], e.what());
        return 2;
    } catch (const std::exception& e) {
        std::string msg = e.what();
        std::replace(msg.begin(), msg.end(), '\n', ' ');
        std::fprintf(stderr, "schedstudio-cli %s: error: %s\n", argv[1], msg.c_str());
        return 1;
    }
}
