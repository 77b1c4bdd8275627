#include "policy/relmas/accelpolicies.h"

#include <stdexcept>

#include "policy/relmas/heuristics.h"
#include "policy/relmas/search.h"

namespace ss::accel {

std::vector<std::string> accelPolicyNames() { return {"fcfs", "edf", "llf", "rr", "hetero", "search"}; }

bool isAccelPolicy(const std::string& name)
{
    for (const std::string& n : accelPolicyNames())
        if (n == name)
            return true;
    return false;
}

std::string accelPolicyRule(const std::string& name)
{
    if (name == "fcfs")
        return "requests in arrival order, each layer to the idle sub-accelerator where it runs fastest alone.";
    if (name == "edf")
        return "earliest deadline first, each layer to the idle sub-accelerator where it runs fastest alone.";
    if (name == "llf")
        return "least laxity first (slack = deadline - now - the best time of the layers left), each layer to the "
               "idle sub-accelerator where it runs fastest alone.";
    if (name == "rr")
        return "requests in arrival order onto the sub-accelerators in cyclic order, blind to the dataflow.";
    if (name == "hetero")
        return "least slack first; each layer to the idle sub-accelerator with the lowest latency stretched by the "
               "bandwidth it would add; a layer with slack to spare waits for its best dataflow when the idle one is "
               "much slower, or when starting it would oversubscribe the shared bandwidth.";
    if (name == "search")
        return "a MAGMA-style local search over this cycle's assignment of idle sub-accelerators to the least-slack "
               "layers, started from hetero's answer, minimizing the estimated lateness of those layers' requests.";
    return "(no description)";
}

std::unique_ptr<AccelScheduler> makeAccelScheduler(const std::string& name,
                                                   const std::map<std::string, std::string>& params)
{
    GreedyParams g;
    int iterations = 200, candidates = 32;
    for (const auto& [k, val] : params) {
        double x = 0;
        try {
            size_t used = 0;
            x = std::stod(val, &used);
            if (used != val.size())
                throw std::invalid_argument("");
        } catch (const std::exception&) {
            throw std::invalid_argument("parameter '" + k + "': expected a number, got '" + val + "'");
        }
        if (k == "hetero.wait_ratio")
            g.waitRatio = x;
        else if (k == "hetero.slack_cycles")
            g.slackCycles = x;
        else if (k == "hetero.oversubscribe")
            g.oversubscribe = x;
        else if (k == "search.iterations" && x >= 0)
            iterations = int(x);
        else if (k == "search.candidates" && x >= 1)
            candidates = int(x);
        else
            throw std::invalid_argument("unknown or out-of-range accelerator policy parameter '" + k + "'");
    }
    if (name == "search")
        return makeSearch(iterations, candidates, g);
    if (auto h = makeHeuristic(name, g))
        return h;
    std::string known;
    for (const std::string& n : accelPolicyNames())
        known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown accelerator policy '" + name + "' (known: " + known + ")");
}

StudioRun runPolicyForStudio(const Workload& w, const CostTable& cost, const std::string& policy,
                             const std::map<std::string, std::string>& params, const SimConfig& cfg, size_t maxCycles)
{
    std::unique_ptr<AccelScheduler> s = makeAccelScheduler(policy, params);
    StudioRun r = runForStudio(w, cost, *s, cfg, maxCycles);
    r.policy = policy;
    return r;
}

} // namespace ss::accel
