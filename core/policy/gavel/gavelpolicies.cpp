// The Gavel policies in the registration table: each an LP objective (gavellp.h) run by the round
// mechanism (gavelsched.h), with the parameters it reads.
#include <memory>

#include "policy/gavel/gavelsched.h"
#include "policy/registry.h"

namespace ss {
namespace {

ParamSpec number(const char* key, const char* dflt, double min, const char* help)
{
    ParamSpec p;
    p.key = key;
    p.dflt = dflt;
    p.min = min;
    p.help = help;
    return p;
}

ParamSpec choice(const char* key, const char* dflt, std::vector<std::string> choices, const char* help)
{
    ParamSpec p;
    p.key = key;
    p.type = ParamSpec::Type::Choice;
    p.dflt = dflt;
    p.choices = std::move(choices);
    p.help = help;
    return p;
}

ParamSpec flag(const char* key, const char* help)
{
    ParamSpec p;
    p.key = key;
    p.type = ParamSpec::Type::Bool;
    p.dflt = "0";
    p.help = help;
    return p;
}

std::vector<ParamSpec> common()
{
    return {number("gavel.round", "360", 1, "round length in seconds"),
            number("gavel.reset", "1920", 0, "minimum seconds between resets of the time received (and deficits)"),
            choice("gavel.solver", "barrier", {"barrier", "simplex"},
                   "CLP method of the final LP: barrier = interior point of the optimal face (as Gavel's ECOS), simplex = a vertex"),
            choice("gavel.missing", "error", {"error", "typespeed"},
                   "a job whose model the throughput table lacks and cannot estimate: fail, or use the cluster's type speeds"),
            flag("gavel.ideal", "1 = also run Gavel's ideal mode (jobs progress at exactly their effective throughput, Fig 13) on the same jobs and report its mean JCT beside the mechanism's")};
}

struct Def {
    const char* name;
    gavel::Objective objective;
    bool agnostic;
    bool spaceSharing;
    const char* description;
};

void add(const Def& d)
{
    std::vector<ParamSpec> params = common();
    if (d.spaceSharing)
        params.push_back(number("gavel.pairs", "4", 0, "space sharing: co-location partners kept per job (best normalized combined throughput)"));
    if (d.objective == gavel::Objective::Hierarchical) {
        params.push_back(choice("gavel.entity", "user", {"user", "vc"}, "entities of the top level: users or virtual clusters"));
        params.push_back(choice("gavel.inside", "fairness", {"fairness", "fifo"}, "policy among an entity's jobs"));
    }
    const gavel::Objective o = d.objective;
    const bool agn = d.agnostic, ss = d.spaceSharing;
    registerPolicy({.name = d.name,
                    .family = PolicyFamily::Joint,
                    .description = d.description,
                    .params = std::move(params),
                    .scheduler = [o, agn, ss](const std::string& name, const PolicyOptions& opts) -> std::unique_ptr<Scheduler> {
                        return std::make_unique<GavelScheduler>(name, o, agn, ss, opts);
                    }});
}

struct Registrar {
    Registrar()
    {
        using O = gavel::Objective;
        const Def defs[] = {
            {"gavel-las", O::MaxMinFairness, false, false, "Gavel: heterogeneity-aware max-min fairness (LAS) LP, 360 s rounds"},
            {"gavel-las-agnostic", O::MaxMinFairness, true, false, "Gavel: heterogeneity-agnostic LAS (every throughput = 1), 360 s rounds"},
            {"gavel-las-ss", O::MaxMinFairness, false, true, "Gavel: heterogeneity-aware LAS with space sharing (job-pair rows)"},
            {"gavel-fifo", O::Fifo, false, false, "Gavel: heterogeneity-aware FIFO LP (normalized throughput weighted by arrival order)"},
            {"gavel-fifo-ss", O::Fifo, false, true, "Gavel: heterogeneity-aware FIFO with space sharing (pairs above 1.5x combined)"},
            {"gavel-sjf", O::Sjf, false, false, "Gavel: heterogeneity-aware SJF (FIFO's LP ordered by remaining time on the fastest type)"},
            {"gavel-ftf", O::FinishTimeFairness, false, false, "Gavel: finish-time fairness (Themis) by bisection on rho"},
            {"gavel-makespan", O::Makespan, false, false, "Gavel: minimize makespan (bisection on the finish time)"},
            {"gavel-cost", O::CostThroughput, false, false, "Gavel: maximize throughput per dollar, with SLOs (deadlines) when feasible"},
            {"gavel-hierarchical", O::Hierarchical, false, false, "Gavel: hierarchical water-filling (users or VCs, fairness or FIFO inside)"},
        };
        for (const Def& d : defs)
            add(d);
    }
};
const Registrar registrar;

} // namespace
} // namespace ss
