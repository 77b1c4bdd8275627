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

} // namespace ss::accel
