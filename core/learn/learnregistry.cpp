#include <stdexcept>

#include "learn/learn.h"
#include "learn/moduleapi.h"
#include "learn/policies.h"
#include "policy/learnedmodule.h"

namespace ss::learn {

std::vector<std::string> learnedPolicyNames()
{
    return {"das", "da", "da+mc", "da+rwgp", "dl2", "rifling", "malo", "mosa"};
}

namespace {

ParamSpec num(const char* key, const char* dflt, double min, double max, const char* help, bool integer = false)
{
    ParamSpec p;
    p.key = key;
    p.type = integer ? ParamSpec::Type::Integer : ParamSpec::Type::Number;
    p.dflt = dflt;
    p.min = min;
    p.max = max;
    p.help = help;
    return p;
}

ParamSpec flag(const char* key, const char* dflt, const char* help)
{
    ParamSpec p;
    p.key = key;
    p.type = ParamSpec::Type::Bool;
    p.dflt = dflt;
    p.help = help;
    return p;
}

std::vector<ParamSpec> dasParams()
{
    ParamSpec wide;
    wide.key = "das.wide";
    wide.type = ParamSpec::Type::Choice;
    wide.dflt = "degrade";
    wide.choices = {"wait", "fast", "degrade"};
    wide.help = "rule for a job wider than one machine: wait, also run on faster GPUs, or delay-or-degrade";
    ParamSpec rwgp;
    rwgp.key = "das.rwgp";
    rwgp.type = ParamSpec::Type::Choice;
    rwgp.dflt = "";
    rwgp.choices = {"similarity", "seed"};
    rwgp.help = "RWGP kernel: similarity (one machine-similarity graph) or seed (per-job P(i) over the links, "
                "product-graph kernel); default: the checkpoint's";
    ParamSpec critic;
    critic.key = "das.critic";
    critic.type = ParamSpec::Type::Choice;
    critic.dflt = "";
    critic.choices = {"v", "q"};
    critic.help = "critic the run demands: v (state value) or q (the seed's Q-critic); a checkpoint of the other kind is "
                  "refused; default: the checkpoint's (an untrained agent: v)";
    return {flag("das.sample_order", "0", "sample the ordering (1) instead of acting on the mean scores"),
            flag("das.sample_place", "0", "sample the placement (1) instead of acting on the mean scores"),
            flag("das.allow_other_cluster", "0", "accept a checkpoint trained on another cluster"),
            flag("das.untrained", "0", "ignore the shipped checkpoint: the heuristic-initialised untrained agent"),
            flag("das.compact", "1", "consolidate-or-wait for whole-GPU jobs (0 lets jobs spread)"),
            wide,
            rwgp,
            critic,
            num("das.rwgp_lambda", "0.5", 1e-6, 0.999999, "RWGP random-walk decay lambda, in (0, 1)"),
            num("das.tau", "", 1, 1e6, "untrained agent: history length (default: the network's)", true),
            num("das.heads", "", 1, 1024, "untrained agent: attention heads (default: the network's)", true)};
}

void registerLearned(const char* name, const char* description, std::vector<ParamSpec> params)
{
    PolicyEntry e;
    e.name = name;
    e.family = PolicyFamily::Learned;
    e.description = description;
    e.params = std::move(params);
    e.scheduler = [](const std::string& n, const PolicyOptions& opts) -> std::unique_ptr<Scheduler> {
        if (n == "das" || n == "da" || n == "da+mc" || n == "da+rwgp") {
            // The LibTorch module is loaded here, on the first DAS scheduler, not when the table is listed.
            if (const std::string err = ensureLearnedModuleLoaded(); !err.empty())
                throw std::runtime_error("learned policy '" + n + "': " + err);
            return learnModule().makeDasPolicy(n, opts);
        }
        if (n == "dl2")
            return makeDl2Policy(opts);
        if (n == "rifling")
            return makeRiflingPolicy(opts);
        return makeMetaheuristicPolicy(n, opts);
    };
    registerPolicy(std::move(e));
}

} // namespace

namespace {
// Registered when the library loads, like every other policy's registrar.
const bool g_registered = [] {
    // The DAS variants are listed (with their knobs) in every build with the LibTorch module; their
    // factory loads the module on first use. dl2, rifling, malo and mosa need no LibTorch.
    if (!learnedModulePolicyNames().empty()) {
        registerLearned("das", "DAS: learned ordering and placement agents with MC uncertainty and RWGP speed correction", dasParams());
        registerLearned("da", "DAS ablation: neither MC uncertainty nor RWGP", dasParams());
        registerLearned("da+mc", "DAS ablation: MC uncertainty, no RWGP", dasParams());
        registerLearned("da+rwgp", "DAS ablation: RWGP, no MC uncertainty", dasParams());
    }
    registerLearned("dl2", "DL2: learned job selection over the oldest queued jobs, DRF-imitating warm-up",
                    {num("dl2.window", "20", 1, 1e6, "queued jobs the network sees", true),
                     num("dl2.warmup", "200", 0, 1e9, "decisions of supervised warm-up", true),
                     num("dl2.lr", "0.01", 0, 10, "reinforcement learning rate"),
                     num("dl2.lr_sl", "0.05", 0, 10, "supervised learning rate"),
                     num("dl2.gamma", "0.99", 0, 1, "discount")});
    registerLearned("rifling", "RIFLING: Q-learning over job groups",
                    {num("rifling.alpha", "0.2", 0, 1, "learning rate"), num("rifling.gamma", "0.5", 0, 1, "discount"),
                     num("rifling.epsilon", "0.1", 0, 1, "exploration rate")});
    const std::vector<ParamSpec> meta {num("meta.window", "24", 1, 1e6, "queued jobs searched per decision", true),
                                       num("meta.evals", "240", 1, 1e9, "evaluations per decision", true),
                                       num("meta.fee_weight", "0.5", 0, 1e300, "weight of the fee against the JCT")};
    registerLearned("malo", "MALO: multi-objective ant lion optimiser over the joint decision", meta);
    registerLearned("mosa", "MOSA: multi-objective simulated annealing over the joint decision", meta);
    return true;
}();
} // namespace

void registerLearnedPolicies()
{
    (void)g_registered;
    if (const std::string err = ensureLearnedModuleLoaded(); !err.empty())
        throw std::runtime_error(err);
}

} // namespace ss::learn
