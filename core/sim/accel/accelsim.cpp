#include "sim/accel/accelsim.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ss::accel {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Active {
    int request = -1, layer = -1;
    double remaining = 0;  // isolated-latency us left
    double latency = 0;    // c
    double bandwidth = 0;  // b
    double start = 0;
    double dynamicPj = 0, staticPjPerUs = 0;
};

struct ReqState {
    int next = 0;          // next layer to run
    bool arrived = false, running = false, done = false;
};
} // namespace

void finalizeRequests(Workload& w, const CostTable& cost)
{
    std::stable_sort(w.requests.begin(), w.requests.end(),
                     [](const Request& a, const Request& b) { return a.arrival < b.arrival; });
    for (size_t i = 0; i < w.requests.size(); ++i) {
        Request& r = w.requests[i];
        r.id = int(i);
        if (r.deadline <= 0)
            r.deadline = r.arrival + w.tenants.at(size_t(r.tenant)).qos * cost.isolatedLatency(r.network);
    }
}

SimResult simulate(const Workload& w, const CostTable& cost, AccelScheduler& sched, const SimConfig& cfg)
{
    const int S = int(w.chip.subs.size());
    const double B = w.chip.bandwidth;
    const size_t N = w.requests.size();
    SimResult res;
    res.requests.assign(N, {});
    res.subBusy.assign(size_t(S), 0.0);
    if (cfg.keepLog) {
        res.log = std::make_shared<DecisionLog>();
        res.log->machineCount = S;
        res.log->gpuCount = S;
    }
    sched.reset(cfg.seed);
    std::vector<ReqState> rs(N);
    std::vector<Active> act(static_cast<size_t>(S));
    std::vector<int> ready; // request ids, kept in arrival (= id) order
    size_t nextArrival = 0, finished = 0;
    double t = 0, nextCycle = 0;
    const double period = cfg.period > 0 ? cfg.period : 1;
    CycleView view;
    view.workload = &w;
    view.cost = &cost;
    view.budget = B;
    std::vector<Assignment> out;
    std::vector<float> scores;
    std::vector<int> arrivedNow, finishedNow;

    auto demandNow = [&] {
        double d = 0;
        for (const Active& a : act)
            if (a.request >= 0)
                d += a.bandwidth;
        return d;
    };
    auto insertReady = [&](int id) { ready.insert(std::lower_bound(ready.begin(), ready.end(), id), id); };

    while (finished < N) {
        const double demand = demandNow();
        const double rate = demand > B ? B / demand : 1.0;
        double nextFinish = kInf;
        for (const Active& a : act)
            if (a.request >= 0)
                nextFinish = std::min(nextFinish, t + a.remaining / rate);
        const double arr = nextArrival < N ? w.requests[nextArrival].arrival : kInf;
        bool anyIdle = false;
        for (const Active& a : act)
            anyIdle = anyIdle || a.request < 0;
        if (ready.empty() || !anyIdle) {
            // nothing to decide until something arrives or finishes: skip the empty cycles
            const double wake = std::min(arr, nextFinish);
            if (wake > nextCycle && wake < kInf)
                nextCycle = std::ceil(wake / period) * period;
        }
        const double tn = std::min({nextFinish, arr, nextCycle});
        if (!(tn < kInf))
            throw std::logic_error("accelerator simulation stalled with " + std::to_string(N - finished) +
                                   " unfinished requests");
        const double dt = std::max(0.0, tn - t);
        if (demand > B)
            res.saturatedUs += dt;
        for (Active& a : act)
            if (a.request >= 0)
                a.remaining -= dt * rate;
        t = std::max(t, tn);
        arrivedNow.clear();
        finishedNow.clear();
        // finishes
        bool freed = false;
        for (int s = 0; s < S; ++s) {
            Active& a = act[size_t(s)];
            // done when the work left is rounding noise, or too small to move the clock (at a large t, t + tiny == t)
            if (a.request < 0 || (a.remaining > 1e-9 * std::max(1.0, a.latency) && t + a.remaining / rate > t))
                continue;
            const double dur = t - a.start;
            const double e = a.dynamicPj + a.staticPjPerUs * dur;
            res.energyPj += e;
            res.subBusy[size_t(s)] += dur;
            ++res.layersRun;
            if (cfg.keepTimeline)
                res.timeline.push_back({a.request, a.layer, s, a.start, t, e});
            ReqState& r = rs[size_t(a.request)];
            r.running = false;
            ++r.next;
            const Request& q = w.requests[size_t(a.request)];
            if (r.next >= cost.layerCount(q.network)) {
                r.done = true;
                ++finished;
                res.requests[size_t(a.request)] = {t, t <= q.deadline + 1e-9};
                res.makespan = std::max(res.makespan, t);
                finishedNow.push_back(a.request);
            } else {
                insertReady(a.request);
            }
            a = Active {};
            freed = true;
        }
        // arrivals
        while (nextArrival < N && w.requests[nextArrival].arrival <= t) {
            const Request& q = w.requests[nextArrival];
            rs[nextArrival].arrived = true;
            if (cost.layerCount(q.network) == 0) { // an empty network finishes on arrival
                rs[nextArrival].done = true;
                ++finished;
                res.requests[nextArrival] = {t, true};
                finishedNow.push_back(int(nextArrival));
            } else {
                ready.push_back(int(nextArrival));
            }
            arrivedNow.push_back(int(nextArrival));
            ++nextArrival;
        }
        const bool cycle = t >= nextCycle;
        if (cycle)
            nextCycle = (std::floor(t / period + 1e-12) + 1) * period;
        if (!(cycle || (cfg.onIdle && freed)) || ready.empty())
            continue;
        bool idle = false;
        for (const Active& a : act)
            idle = idle || a.request < 0;
        if (!idle)
            continue;
        // build the view
        view.now = t;
        view.ready.clear();
        for (int id : ready) {
            const Request& q = w.requests[size_t(id)];
            ReadyLayer r;
            r.request = id;
            r.tenant = q.tenant;
            r.network = q.network;
            r.layer = rs[size_t(id)].next;
            r.layersLeft = cost.layerCount(q.network) - r.layer;
            r.arrival = q.arrival;
            r.deadline = q.deadline;
            r.remainingBest = cost.remainingBest(q.network, r.layer);
            r.slack = q.deadline - t - r.remainingBest;
            view.ready.push_back(r);
        }
        view.subs.assign(size_t(S), {});
        for (int s = 0; s < S; ++s) {
            const Active& a = act[size_t(s)];
            if (a.request >= 0)
                view.subs[size_t(s)] = {true, a.request, a.layer, a.remaining, a.bandwidth};
        }
        view.demand = demandNow();
        out.clear();
        scores.clear();
        const auto t0 = std::chrono::steady_clock::now();
        sched.schedule(view, out, cfg.keepLog ? &scores : nullptr);
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        res.decideWallUs += us;
        res.decideWallMaxUs = std::max(res.decideWallMaxUs, us);
        ++res.decisions;
        DecisionRecord* rec = nullptr;
        if (res.log) {
            res.log->records.emplace_back();
            rec = &res.log->records.back();
            rec->index = uint32_t(res.log->records.size() - 1);
            rec->time = t;
            rec->arrived = arrivedNow;
            rec->finished = finishedNow;
            rec->queueLength = int(view.ready.size());
            for (const ReadyLayer& r : view.ready)
                rec->queue.push_back({r.request, float(-r.slack)});
        }
        std::vector<char> taken(view.ready.size(), 0);
        for (const Assignment& as : out) {
            if (as.ready < 0 || size_t(as.ready) >= view.ready.size() || as.sub < 0 || as.sub >= S)
                throw std::logic_error(sched.name() + ": assignment out of range");
            if (taken[size_t(as.ready)] || act[size_t(as.sub)].request >= 0)
                throw std::logic_error(sched.name() + ": a layer assigned twice or a busy sub-accelerator");
            taken[size_t(as.ready)] = 1;
            const ReadyLayer& r = view.ready[size_t(as.ready)];
            const LayerCost& c = cost.at(r.network, r.layer, as.sub);
            act[size_t(as.sub)] = {r.request, r.layer, c.latency, c.latency, c.bandwidth, t, c.dynamicPj, c.staticPjPerUs};
            rs[size_t(r.request)].running = true;
            if (rec) {
                PlacementRecord p;
                p.job = r.request;
                p.slots.push_back({as.sub, 1000});
                if (scores.size() == view.ready.size() * size_t(S))
                    p.affinity.assign(scores.begin() + ptrdiff_t(size_t(as.ready) * size_t(S)),
                                      scores.begin() + ptrdiff_t(size_t(as.ready + 1) * size_t(S)));
                p.reason = w.networks[size_t(r.network)].layers[size_t(r.layer)].name;
                rec->placements.push_back(std::move(p));
            }
        }
        if (!out.empty()) {
            std::vector<int> keep;
            keep.reserve(ready.size());
            for (size_t i = 0; i < ready.size(); ++i)
                if (!taken[i])
                    keep.push_back(ready[i]);
            ready.swap(keep);
        }
    }
    return res;
}

} // namespace ss::accel
