#include "policy/registry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "policy/learnedmodule.h"
#include "policy/queued.h"

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

const char* toString(PolicyFamily f)
{
    switch (f) {
    case PolicyFamily::Ordering: return "ordering";
    case PolicyFamily::Placement: return "placement";
    case PolicyFamily::Admission: return "admission";
    case PolicyFamily::Joint: return "joint";
    case PolicyFamily::Learned: return "learned";
    }
    return "?";
}

const char* toString(ParamSpec::Type t)
{
    switch (t) {
    case ParamSpec::Type::Number: return "number";
    case ParamSpec::Type::Integer: return "integer";
    case ParamSpec::Type::Bool: return "bool";
    case ParamSpec::Type::Choice: return "choice";
    case ParamSpec::Type::Text: return "text";
    }
    return "?";
}

namespace {

struct Table {
    std::vector<PolicyEntry> entries;
    std::mutex mutex;
};

// Function-local static: registrars in other translation units run during static initialisation.
Table& table()
{
    static Table t;
    return t;
}

std::string lower(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool find(PolicyFamily family, const std::string& name, PolicyEntry* out)
{
    Table& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    for (const PolicyEntry& e : t.entries)
        if (e.family == family && e.name == name) {
            if (out)
                *out = e;
            return true;
        }
    return false;
}

bool findRunnable(const std::string& name, PolicyEntry* out)
{
    return find(PolicyFamily::Joint, name, out) || find(PolicyFamily::Learned, name, out);
}

/// The parts of a composite name; false when it is not one.
bool splitComposite(const std::string& name, PolicyEntry* ord, PolicyEntry* plc)
{
    const size_t plus = name.find('+');
    if (plus == std::string::npos || name.find('+', plus + 1) != std::string::npos)
        return false;
    return find(PolicyFamily::Ordering, name.substr(0, plus), ord) && find(PolicyFamily::Placement, name.substr(plus + 1), plc);
}

std::vector<std::string> names(PolicyFamily f)
{
    std::vector<std::string> out;
    for (const PolicyEntry& e : policyEntries(f))
        out.push_back(e.name);
    return out;
}

ParamSpec admissionParam()
{
    ParamSpec p;
    p.key = "admission";
    p.type = ParamSpec::Type::Choice;
    p.dflt = "all";
    p.choices = names(PolicyFamily::Admission);
    p.help = "admission stage of a composite policy";
    return p;
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

[[noreturn]] void unknownPolicy(const std::string& rawName, const std::string& name)
{
    const std::string close = closeNames(name);
    throw std::invalid_argument("unknown policy '" + rawName + "'"
                                + (close.empty() ? std::string("; see `schedstudio-cli policies`") : "; did you mean: " + close));
}

/// Finds the info of a runnable name; loads the learned module for its names. False when unknown.
bool lookup(const std::string& name, PolicyInfo& info, PolicyEntry* ord, PolicyEntry* plc, PolicyEntry* joint)
{
    PolicyEntry o, p, j;
    bool found = findRunnable(name, &j);
    if (!found) {
        const auto& mod = learnedModulePolicyNames();
        if (std::find(mod.begin(), mod.end(), name) != mod.end()) {
            const std::string err = ensureLearnedModuleLoaded();
            if (!err.empty())
                throw std::runtime_error("learned policy '" + name + "': " + err);
            found = findRunnable(name, &j);
        }
    }
    info = {};
    info.name = name;
    if (found) {
        info.group = toString(j.family);
        info.description = j.description;
        info.params = j.params;
        info.score = j.score;
        if (joint)
            *joint = std::move(j);
        return true;
    }
    if (!splitComposite(name, &o, &p))
        return false;
    info.group = "ordering+placement";
    info.description = o.description + "; " + p.description;
    info.score = o.score;
    info.params = o.params;
    info.params.insert(info.params.end(), p.params.begin(), p.params.end());
    info.params.push_back(admissionParam());
    if (ord)
        *ord = std::move(o);
    if (plc)
        *plc = std::move(p);
    return true;
}

bool declaredByAnyPolicy(const std::string& key)
{
    if (key == "admission")
        return true;
    Table& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    for (const PolicyEntry& e : t.entries)
        for (const ParamSpec& p : e.params)
            if (p.key == key)
                return true;
    return false;
}

std::string checkValue(const ParamSpec& s, const std::string& v)
{
    switch (s.type) {
    case ParamSpec::Type::Number:
    case ParamSpec::Type::Integer: {
        char* end = nullptr;
        const double d = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !std::isfinite(d))
            return "not a number: '" + v + "'";
        if (s.type == ParamSpec::Type::Integer && d != std::floor(d))
            return "not an integer: '" + v + "'";
        if (d < s.min || d > s.max) {
            auto num = [](double x) {
                char b[32];
                std::snprintf(b, sizeof b, "%g", x);
                return std::string(b);
            };
            return "'" + v + "' out of range [" + (s.min > -1e299 ? num(s.min) : "-inf") + ", "
                + (s.max < 1e299 ? num(s.max) : "inf") + "]";
        }
        return {};
    }
    case ParamSpec::Type::Bool:
        return v == "0" || v == "1" ? std::string() : "must be 0 or 1, not '" + v + "'";
    case ParamSpec::Type::Choice: {
        if (std::find(s.choices.begin(), s.choices.end(), v) != s.choices.end())
            return {};
        std::string list;
        for (size_t i = 0; i < s.choices.size(); ++i)
            list += (i == 0 ? "" : i + 1 == s.choices.size() ? " or " : ", ") + s.choices[i];
        return "must be " + list + ", not '" + v + "'";
    }
    case ParamSpec::Type::Text: return {};
    }
    return {};
}

} // namespace

void registerPolicy(PolicyEntry e)
{
    if (e.name.empty())
        throw std::invalid_argument("registerPolicy: empty policy name");
    const bool stage = e.family == PolicyFamily::Ordering || e.family == PolicyFamily::Placement || e.family == PolicyFamily::Admission;
    if (stage && e.name.find('+') != std::string::npos)
        throw std::invalid_argument("registerPolicy: stage name '" + e.name + "' may not contain '+'");
    const bool ok = e.family == PolicyFamily::Ordering ? bool(e.ordering)
        : e.family == PolicyFamily::Placement          ? bool(e.placement)
        : e.family == PolicyFamily::Admission          ? bool(e.admission)
                                                       : bool(e.scheduler);
    if (!ok)
        throw std::invalid_argument(std::string("registerPolicy: ") + e.name + ": no factory for its family (" + toString(e.family) + ")");
    Table& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    for (PolicyEntry& x : t.entries)
        if (x.name == e.name && x.family == e.family) {
            x = std::move(e);
            return;
        }
    t.entries.push_back(std::move(e));
}

void registerSchedulers(const std::vector<std::string>& names, SchedulerFactory factory)
{
    for (const std::string& n : names) {
        PolicyEntry e;
        e.name = n;
        e.family = PolicyFamily::Learned;
        e.description = "learned policy";
        e.scheduler = factory;
        registerPolicy(std::move(e));
    }
}

std::vector<PolicyEntry> policyEntries()
{
    std::vector<PolicyEntry> out;
    {
        Table& t = table();
        std::lock_guard<std::mutex> lock(t.mutex);
        out = t.entries;
    }
    std::sort(out.begin(), out.end(), [](const PolicyEntry& a, const PolicyEntry& b) {
        return a.family != b.family ? a.family < b.family : a.name < b.name;
    });
    return out;
}

std::vector<PolicyEntry> policyEntries(PolicyFamily family)
{
    std::vector<PolicyEntry> out = policyEntries();
    out.erase(std::remove_if(out.begin(), out.end(), [&](const PolicyEntry& e) { return e.family != family; }), out.end());
    return out;
}

std::vector<std::string> orderingNames() { return names(PolicyFamily::Ordering); }

std::vector<std::string> placementNames() { return names(PolicyFamily::Placement); }

std::vector<std::string> schedulerNames()
{
    std::vector<std::string> out;
    for (const std::string& o : orderingNames())
        for (const std::string& p : placementNames())
            out.push_back(o + "+" + p);
    for (const PolicyEntry& e : policyEntries())
        if (e.family == PolicyFamily::Joint || e.family == PolicyFamily::Learned)
            out.push_back(e.name);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<PolicyInfo> policyCatalog()
{
    std::vector<PolicyInfo> out;
    for (const std::string& n : schedulerNames()) {
        PolicyInfo info;
        if (lookup(n, info, nullptr, nullptr, nullptr))
            out.push_back(std::move(info));
    }
    return out;
}

PolicyInfo policyInfo(const std::string& rawName)
{
    const std::string name = lower(rawName);
    PolicyInfo info;
    if (!lookup(name, info, nullptr, nullptr, nullptr))
        unknownPolicy(rawName, name);
    return info;
}

std::string validatePolicyParams(const std::string& policy, const std::map<std::string, std::string>& params)
{
    if (params.empty())
        return {};
    const PolicyInfo info = policyInfo(policy);
    auto validKeys = [&] {
        std::string s;
        for (const ParamSpec& p : info.params)
            s += (s.empty() ? "" : ", ") + p.key;
        return s.empty() ? std::string("none") : s;
    };
    for (const auto& [key, value] : params) {
        const auto it = std::find_if(info.params.begin(), info.params.end(), [&k = key](const ParamSpec& p) { return p.key == k; });
        if (it == info.params.end()) {
            // a key another policy declares is for that policy: compare and sweep pass one --param set to
            // every policy they run (e.g. das.untrained=1 beside fifo+firstfit)
            if (declaredByAnyPolicy(key))
                continue;
            return "policy " + info.name + " has no parameter " + key + " (valid: " + validKeys() + ")";
        }
        const std::string why = checkValue(*it, value);
        if (!why.empty())
            return key + " " + why + " (policy " + info.name + "; valid keys: " + validKeys() + ")";
    }
    return {};
}

std::unique_ptr<Placement> makePlacement(const std::string& name, const PolicyOptions& opts)
{
    PolicyEntry e;
    if (!find(PolicyFamily::Placement, lower(name), &e))
        throw std::invalid_argument("unknown placement '" + name + "'");
    auto p = e.placement(opts);
    p->setName(e.name);
    return p;
}

std::unique_ptr<Ordering> makeOrdering(const std::string& name, const PolicyOptions& opts)
{
    PolicyEntry e;
    if (!find(PolicyFamily::Ordering, lower(name), &e))
        throw std::invalid_argument("unknown ordering '" + name + "'");
    auto o = e.ordering(opts);
    o->setName(e.name);
    return o;
}

std::unique_ptr<Admission> makeAdmission(const std::string& name, const PolicyOptions& opts)
{
    PolicyEntry e;
    if (!find(PolicyFamily::Admission, lower(name), &e))
        throw std::invalid_argument("unknown admission '" + name + "'");
    return e.admission(opts);
}

std::unique_ptr<Scheduler> makeScheduler(const std::string& rawName, const PolicyOptions& opts)
{
    std::string name = lower(rawName);
    PolicyInfo info;
    PolicyEntry ord, plc, joint;
    if (!lookup(name, info, &ord, &plc, &joint)) {
        name = rawName; // learned policies registered under a mixed-case name
        if (!lookup(name, info, &ord, &plc, &joint))
            unknownPolicy(rawName, lower(rawName));
    }
    if (const std::string err = validatePolicyParams(name, opts.params); !err.empty())
        throw std::invalid_argument(err);
    if (joint.scheduler)
        return joint.scheduler(name, opts);
    std::unique_ptr<Ordering> o = ord.ordering(opts);
    o->setName(ord.name);
    std::unique_ptr<Placement> p = plc.placement(opts);
    p->setName(plc.name);
    std::unique_ptr<Admission> a = makeAdmission(opts.param("admission", "all"), opts);
    if (auto driver = o->drive(name, p, a, opts))
        return driver;
    return std::make_unique<QueuedScheduler>(name, std::move(o), std::move(p), std::move(a), opts);
}

} // namespace ss
