#pragma once
// Policies by name: "ORDERING+PLACEMENT" composites, joint policies, and learned ones registered by
// core/learn. The CLI and GUI create every scheduler through here.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine.h"

namespace ss {

struct PolicyOptions {
    bool backfill = true;        ///< keep trying later jobs when one does not fit (else stop at the first)
    std::map<std::string, std::string> params; ///< policy-specific knobs (e.g. las.thresholds=3250,7200)
    std::string checkpoint;      ///< learned policies: checkpoint file ("" = the shipped one)
    std::string param(const std::string& key, const std::string& dflt) const;
    double paramD(const std::string& key, double dflt) const;
};

using SchedulerFactory = std::function<std::unique_ptr<Scheduler>(const std::string& name, const PolicyOptions&)>;

/// Throws std::invalid_argument naming the unknown policy and listing close names.
std::unique_ptr<Scheduler> makeScheduler(const std::string& name, const PolicyOptions& opts = {});
/// Every runnable name, sorted: every ordering x placement, joint policies, registered learned policies.
std::vector<std::string> schedulerNames();
/// Orderings and placements of the composite form (for UIs).
std::vector<std::string> orderingNames();
std::vector<std::string> placementNames();
/// Learned policies (core/learn) add themselves here at start-up.
void registerSchedulers(const std::vector<std::string>& names, SchedulerFactory factory);

} // namespace ss
