#include "policy/relmas/accelpolicies.h"

#include <stdexcept>

#include "learn/relmasapi.h"
#include "policy/relmas/heuristics.h"
#include "policy/relmas/search.h"

namespace ss::accel {

std::vector<std::string> accelPolicyNames() { return {"fcfs", "edf", "llf", "rr", "hetero", "search"}; }

bool isAccelPolicy(const std::string& name)
{
    if (name == "relmas")
        return true;
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
    if (name == "relmas")
        return "the learned RELMAS agent: an LSTM reads the ready layers (least slack first) and scores every (layer, "
               "idle sub-accelerator) pair from how fast the layer runs there, the bandwidth it would add and the "
               "chip's state; pairs scoring above the middle start, best first (trained with DDPG).";
    if (name == "search")
        return "a MAGMA-style local search over this cycle's assignment of idle sub-accelerators to the least-slack "
               "layers, started from hetero's answer, minimizing the estimated lateness of those layers' requests.";
    return "(no description)";
}

std::unique_ptr<AccelScheduler> makeAccelScheduler(const std::string& name,
                                                   const std::map<std::string, std::string>& params)
{
    if (name == "relmas") {
        // the learned scheduler (LibTorch module, loaded now): relmas.checkpoint=FILE, relmas.untrained=1
        std::string checkpoint;
        bool untrained = false;
        for (const auto& [k, val] : params) {
            if (k == "relmas.checkpoint")
                checkpoint = val;
            else if (k == "relmas.untrained" && (val == "0" || val == "1"))
                untrained = val == "1";
            else if (k.rfind("relmas.", 0) == 0)
                throw std::invalid_argument("unknown or out-of-range relmas parameter '" + k + "' (relmas.checkpoint=FILE, "
                                            "relmas.untrained=0|1)");
        }
        try {
            return learn::makeRelmasScheduler(checkpoint, untrained);
        } catch (const std::runtime_error& e) {
            throw std::invalid_argument(std::string("relmas: ") + e.what());
        }
    }
    GreedyParams g;
    int iterations = 200, candidates = 32;
    for (const auto& [k, val] : params) {
        if (k.rfind("relmas.", 0) == 0)
            continue; // the learned scheduler's, when a scenario lists it beside the heuristics
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
