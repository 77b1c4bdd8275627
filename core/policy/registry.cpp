#include "policy/registry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include "policy/learnedmodule.h"
#include "policy/placement.h"
#include "policy/queued.h"
#include "policy/tetris.h"
#include "policy/tiresias.h"

namespace ss {

std::string PolicyOptions::param(const std::string& key, const std::string& dflt) const
{
    const auto it = params.find(key);
    return it == params.end() ? dflt : it->second;
}

double PolicyOptions::paramD(const std::string& key, double dflt) const
{
    const auto it = params.find(key);
    if (it == params.end())
        return dflt;
    char* end = nullptr;
    const double v = std::strtod(it->second.c_str(), &end);
    if (it->second.empty() || *end != '\0' || !std::isfinite(v))
        throw std::invalid_argument("policy parameter " + key + ": not a number: '" + it->second + "'");
    return v;
}

namespace {

struct Learned {
    std::vector<std::pair<std::string, SchedulerFactory>> entries;
    std::mutex mutex;
};

// Function-local static: learned policies register from static initialisers in other translation units.
Learned& learned()
{
    static Learned l;
    return l;
}

const std::vector<std::string>& jointNames()
{
    static const std::vector<std::string> v {"tetris"};
    return v;
}

size_t editDistance(const std::string& a, const std::string& b)
{
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string lower(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string closeNames(const std::string& name)
{
    std::vector<std::pair<size_t, std::string>> scored;
    for (const std::string& n : schedulerNames()) {
        size_t d = editDistance(name, n);
        if (!name.empty() && n.find(name) != std::string::npos)
            d = std::min(d, size_t(1));
        if (d <= std::max<size_t>(2, name.size() / 3))
            scored.push_back({d, n});
    }
    std::sort(scored.begin(), scored.end());
    std::string out;
    for (size_t i = 0; i < scored.size() && i < 6; ++i)
        out += (i ? ", " : "") + scored[i].second;
    return out;
}

} // namespace

std::vector<std::string> orderingNames() { return {"drf", "edf", "fifo", "gittins", "las", "sjf", "srtf"}; }

std::vector<std::string> placementNames() { return placementKindNames(); }

void registerSchedulers(const std::vector<std::string>& names, SchedulerFactory factory)
{
    Learned& l = learned();
    std::lock_guard<std::mutex> lock(l.mutex);
    for (const std::string& n : names) {
        auto it = std::find_if(l.entries.begin(), l.entries.end(), [&](const auto& e) { return e.first == n; });
        if (it != l.entries.end())
            it->second = factory;
        else
            l.entries.push_back({n, factory});
    }
}

std::vector<std::string> schedulerNames()
{
    std::vector<std::string> out;
    for (const std::string& o : orderingNames())
        for (const std::string& p : placementNames())
            out.push_back(o + "+" + p);
    for (const std::string& j : jointNames())
        out.push_back(j);
    for (const std::string& n : learnedModulePolicyNames()) // listed without loading the module
        out.push_back(n);
    {
        Learned& l = learned();
        std::lock_guard<std::mutex> lock(l.mutex);
        for (const auto& e : l.entries)
            out.push_back(e.first);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::unique_ptr<Scheduler> makeScheduler(const std::string& rawName, const PolicyOptions& opts)
{
    const std::string name = lower(rawName);
    if (const auto& ln = learnedModulePolicyNames(); std::find(ln.begin(), ln.end(), name) != ln.end())
        if (const std::string err = ensureLearnedModuleLoaded(); !err.empty())
            throw std::runtime_error("learned policy '" + name + "': " + err);
    {
        Learned& l = learned();
        SchedulerFactory f;
        {
            std::lock_guard<std::mutex> lock(l.mutex);
            for (const auto& e : l.entries)
                if (e.first == name || e.first == rawName)
                    f = e.second;
        }
        if (f)
            return f(name, opts);
    }
    if (name == "tetris")
        return std::make_unique<TetrisScheduler>(opts);
    const size_t plus = name.find('+');
    if (plus != std::string::npos) {
        const std::string ord = name.substr(0, plus);
        const std::string plc = name.substr(plus + 1);
        const auto places = placementKindNames();
        if (std::find(places.begin(), places.end(), plc) != places.end()) {
            const PlacementKind pk = placementKindFromName(plc);
            if (ord == "fifo")
                return std::make_unique<QueuedScheduler>(name, QueueOrder::Fifo, pk, opts);
            if (ord == "sjf")
                return std::make_unique<QueuedScheduler>(name, QueueOrder::Sjf, pk, opts);
            if (ord == "edf")
                return std::make_unique<QueuedScheduler>(name, QueueOrder::Edf, pk, opts);
            if (ord == "drf")
                return std::make_unique<QueuedScheduler>(name, QueueOrder::Drf, pk, opts);
            if (ord == "srtf")
                return std::make_unique<PreemptiveScheduler>(name, PreemptOrder::Srtf, pk, opts);
            if (ord == "las")
                return std::make_unique<PreemptiveScheduler>(name, PreemptOrder::Las, pk, opts);
            if (ord == "gittins")
                return std::make_unique<PreemptiveScheduler>(name, PreemptOrder::Gittins, pk, opts);
        }
    }
    const std::string close = closeNames(name);
    throw std::invalid_argument("unknown policy '" + rawName + "'"
                                + (close.empty() ? std::string("; see `schedstudio-cli policies`") : "; did you mean: " + close));
}

} // namespace ss
