#include "sim/accel/accelrecord.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ss::accel {

void RecordingScheduler::reset(uint64_t seed)
{
    cycles.clear();
    total = 0;
    m_inner.reset(seed);
}

void RecordingScheduler::schedule(const CycleView& view, std::vector<Assignment>& out, std::vector<float>* scores)
{
    const size_t first = out.size();
    m_scores.clear();
    m_inner.schedule(view, out, &m_scores);
    if (scores)
        *scores = m_scores;
    ++total;
    if (cycles.size() >= m_max)
        return;
    CycleRecord c;
    c.now = view.now;
    c.ready = view.ready;
    c.subs = view.subs;
    c.demand = view.demand;
    c.budget = view.budget;
    if (m_scores.size() == view.ready.size() * view.subs.size())
        c.scores = m_scores;
    c.assignments.assign(out.begin() + std::ptrdiff_t(first), out.end());
    cycles.push_back(std::move(c));
}

StudioRun runForStudio(const Workload& w, const CostTable& cost, AccelScheduler& sched, SimConfig cfg,
                       size_t maxCycles)
{
    RecordingScheduler rec(sched, maxCycles);
    cfg.keepTimeline = true;
    StudioRun r;
    r.policy = sched.name();
    r.result = simulate(w, cost, rec, cfg);
    r.metrics = computeMetrics(w, r.result);
    r.cycles = std::move(rec.cycles);
    r.cyclesTotal = rec.total;
    return r;
}

double demandAt(const Workload& w, const CostTable& cost, const std::vector<LayerRun>& timeline, double t)
{
    double d = 0;
    for (const LayerRun& l : timeline)
        if (l.start <= t && t < l.end)
            d += cost.at(w.requests[size_t(l.request)].network, l.layer, l.sub).bandwidth;
    return d;
}

int cycleAt(const std::vector<CycleRecord>& cycles, double t)
{
    const auto it = std::upper_bound(cycles.begin(), cycles.end(), t,
                                     [](double x, const CycleRecord& c) { return x < c.now; });
    return int(it - cycles.begin()) - 1;
}

namespace {

std::string fmt(const char* f, double x)
{
    char b[64];
    std::snprintf(b, sizeof b, f, x);
    return b;
}

std::string usText(double us)
{
    if (std::fabs(us) >= 1e6)
        return fmt("%.3f s", us / 1e6);
    if (std::fabs(us) >= 1000)
        return fmt("%.2f ms", us / 1000);
    return fmt("%.0f us", us);
}

} // namespace

std::string explainCycle(const Workload& w, const CostTable& cost, const CycleRecord& c, const std::string& policy,
                         int cycleNumber)
{
    const Chip& chip = w.chip;
    const size_t S = c.subs.size();
    int idle = 0;
    for (const SubState& s : c.subs)
        idle += s.busy ? 0 : 1;
    std::string t = "Cycle " + std::to_string(cycleNumber) + " at " + usText(c.now) + ": " +
                    std::to_string(c.ready.size()) + (c.ready.size() == 1 ? " layer is" : " layers are") +
                    " ready (the next layer of each waiting request) and " + std::to_string(idle) + " of " +
                    std::to_string(S) + " sub-accelerators are idle. ";
    if (c.assignments.empty()) {
        t += policy + " starts nothing this cycle: it holds the ready layers back (for a better sub-accelerator, "
                      "or to keep the shared bandwidth from oversubscribing). ";
    } else {
        t += policy + " starts " + std::to_string(c.assignments.size()) +
             (c.assignments.size() == 1 ? " layer" : " layers") + ". ";
        const Assignment& a = c.assignments.front();
        const ReadyLayer& r = c.ready[size_t(a.ready)];
        const Network& net = w.networks[size_t(r.network)];
        const LayerCost& lc = cost.at(r.network, r.layer, a.sub);
        const int best = cost.bestSub(r.network, r.layer);
        t += "First, request " + std::to_string(r.request) + " (tenant " + w.tenants[size_t(r.tenant)].name + ", " +
             net.name + " layer " + std::to_string(r.layer + 1) + "/" + std::to_string(net.layers.size()) + " '" +
             net.layers[size_t(r.layer)].name + "') goes to " + chip.subs[size_t(a.sub)].name + " (" +
             toString(chip.subs[size_t(a.sub)].dataflow) + "): " + usText(lc.latency) + " alone there, ";
        if (best == a.sub)
            t += "its fastest sub-accelerator";
        else
            t += fmt("%.1fx", lc.latency / std::max(1e-9, cost.bestLatency(r.network, r.layer))) +
                 " its time on " + chip.subs[size_t(best)].name + ", which is busy or kept for another layer";
        t += "; its slack is " + usText(r.slack) + (r.slack < 0 ? " (it cannot meet its deadline any more)" : "");
        if (!c.scores.empty())
            t += fmt(", score %.2f", c.scores[size_t(a.ready) * S + size_t(a.sub)]);
        t += ". ";
    }
    double demand = c.demand;
    for (const Assignment& a : c.assignments) {
        const ReadyLayer& r = c.ready[size_t(a.ready)];
        demand += cost.at(r.network, r.layer, a.sub).bandwidth;
    }
    t += "The running layers now ask for " + fmt("%.1f", demand / 1000) + " GB/s of the chip's " +
         fmt("%.1f", c.budget / 1000) + " GB/s";
    if (demand > c.budget)
        t += ": oversubscribed, so every running layer progresses at " + fmt("%.0f%%", 100 * c.budget / demand) +
             " of its own speed until one finishes.";
    else
        t += ": within the budget, every layer runs at its own speed.";
    return t;
}

} // namespace ss::accel
