#pragma once
// The one registration table of policies: every ordering, placement and admission stage, every joint policy
// and every learned one, each with its family, a one-line description, a factory and a parameter schema.
// Runnable names: "ORDERING+PLACEMENT" for every ordering x placement, and each joint or learned name.
// `policies`, --param validation and the GUI's policy list all read this table.
//
// Adding a policy = one new file with a registrar, e.g.
//     namespace { const ss::PolicyRegistrar reg({.name = "lifo", .family = ss::PolicyFamily::Ordering,
//         .description = "last in, first out", .ordering = [](const ss::PolicyOptions&) { ... }}); }
// (core/policy is a shared library, so every file in it is linked and its registrar runs when it loads; a
// plug-in linked into a program directly registers the same way.)
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "policy/stages.h"
#include "sim/engine.h"

namespace ss {

struct PolicyOptions {
    bool backfill = true;        ///< keep trying later jobs when one does not fit (else stop at the first)
    std::map<std::string, std::string> params; ///< policy-specific knobs (e.g. las.thresholds=3250,7200)
    std::string checkpoint;      ///< learned policies: checkpoint file ("" = the shipped one)
    std::string param(const std::string& key, const std::string& dflt) const;
    double paramD(const std::string& key, double dflt) const;
};

enum class PolicyFamily { Ordering, Placement, Admission, Joint, Learned };
const char* toString(PolicyFamily f);

/// One declared parameter: `--param KEY=VALUE` is checked against it before the policy is made.
struct ParamSpec {
    enum class Type { Number, Integer, Bool, Choice, Text };
    std::string key {};
    Type type = Type::Number;
    std::string dflt {};                 ///< as written on the command line
    double min = -1e300, max = 1e300;    ///< Number and Integer: inclusive range
    std::vector<std::string> choices {}; ///< Choice: the allowed values
    std::string help {};                 ///< one line
};
const char* toString(ParamSpec::Type t);

using SchedulerFactory = std::function<std::unique_ptr<Scheduler>(const std::string& name, const PolicyOptions&)>;

/// A row of the table. Exactly one factory is set, the one of its family (joint and learned: `scheduler`).
struct PolicyEntry {
    std::string name {};
    PolicyFamily family = PolicyFamily::Joint;
    std::string description {}; ///< one line (the GUI's tooltip)
    std::vector<ParamSpec> params {};
    std::string score {};       ///< what the priority it records means ("minutes waited"); "" = not stated
    std::function<std::unique_ptr<Ordering>(const PolicyOptions&)> ordering {};
    std::function<std::unique_ptr<Placement>(const PolicyOptions&)> placement {};
    std::function<std::unique_ptr<Admission>(const PolicyOptions&)> admission {};
    SchedulerFactory scheduler {};
};

/// Adds an entry, replacing one of the same name and family. Thread-safe; callable from static initialisers.
/// Throws std::invalid_argument when the name is empty, holds '+', or the family's factory is missing.
void registerPolicy(PolicyEntry entry);

/// Registers from a static object in the policy's own file.
struct PolicyRegistrar {
    explicit PolicyRegistrar(PolicyEntry entry) { registerPolicy(std::move(entry)); }
};

/// Every entry (copies), sorted by family then name.
std::vector<PolicyEntry> policyEntries();
/// Entries of one family, sorted by name.
std::vector<PolicyEntry> policyEntries(PolicyFamily family);

/// A runnable policy as the GUI lists it: group ("ordering+placement", "joint", "learned"), a one-line
/// description (composites: ordering's; placement's) and every parameter it reads.
struct PolicyInfo {
    std::string name;
    std::string group;
    std::string description;
    std::vector<ParamSpec> params;
    std::string score; ///< what the recorded priority means (composites: the ordering's), "" = not stated
};
/// Every runnable name with its group and description, sorted by name. Throws std::invalid_argument for
/// an unknown name in policyInfo().
std::vector<PolicyInfo> policyCatalog();
PolicyInfo policyInfo(const std::string& name);

/// Checks `params` against what `policy` declares: "" when valid, else one line naming the key, the
/// policy and its valid keys (a key no policy declares, not a number, out of range, not an allowed value).
/// A key that only another policy declares is left to that one: compare and sweep pass one set of params
/// to every policy they run.
std::string validatePolicyParams(const std::string& policy, const std::map<std::string, std::string>& params);

/// Validates opts.params, then makes the scheduler. Throws std::invalid_argument naming an unknown policy
/// (with close names) or a bad parameter. Learned names load the learned module on first use.
std::unique_ptr<Scheduler> makeScheduler(const std::string& name, const PolicyOptions& opts = {});
/// Every runnable name, sorted: every ordering x placement, joint policies, learned policies registered so
/// far (names of the learned module that is not loaded yet are in learnedModulePolicyNames()).
std::vector<std::string> schedulerNames();
/// Orderings and placements of the composite form (for UIs), sorted.
std::vector<std::string> orderingNames();
std::vector<std::string> placementNames();
/// One stage by name (tests, joint policies that reuse a placement). Throws std::invalid_argument.
std::unique_ptr<Placement> makePlacement(const std::string& name, const PolicyOptions& opts = {});
std::unique_ptr<Ordering> makeOrdering(const std::string& name, const PolicyOptions& opts = {});
std::unique_ptr<Admission> makeAdmission(const std::string& name, const PolicyOptions& opts = {});

/// Learned policies without a schema of their own (kept for callers of the old API): family Learned.
void registerSchedulers(const std::vector<std::string>& names, SchedulerFactory factory);

} // namespace ss
