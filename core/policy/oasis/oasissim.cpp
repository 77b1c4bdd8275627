#include "policy/oasis/oasissim.h"

#include <algorithm>
#include <chrono>
#include <queue>
#include <stdexcept>

#include "policy/oasis/ledger.h"

namespace ss::oasis {

std::vector<std::pair<std::string, double>> OasisRun::stats() const
{
    std::vector<std::pair<std::string, double>> s = {
        {"total_utility", totalUtility}, {"admitted", double(admitted)}, {"completed", double(completed)},
        {"mean_jct_slots", meanJctSlots}};
    if (policy == "oasis") {
        s.push_back({"alpha", alpha});
        s.push_back({"subroutine_mean_ms", subroutineMeanMs});
        s.push_back({"subroutine_max_ms", subroutineMaxMs});
    }
    return s;
}

const std::vector<std::string>& oasisPolicyNames()
{
    static const std::vector<std::string> names = {"oasis", "fifo", "drf", "dorm", "greedy", "riskreward"};
    return names;
}

namespace {

void finishRun(const OasisScenario& sc, OasisRun& run)
{
    double jct = 0;
    for (size_t i = 0; i < sc.jobs.size(); ++i) {
        JobOutcome& o = run.jobs[i];
        run.admitted += o.admitted;
        if (o.completion >= 0) {
            const int d = o.completion - sc.jobs[i].arrival + 1;
            o.utility = sc.jobs[i].f(double(d));
            run.totalUtility += o.utility;
            ++run.completed;
            jct += d;
        }
    }
    run.meanJctSlots = run.completed ? jct / run.completed : 0;
}

void noteSchedule(const Schedule& s, JobOutcome& o, std::vector<std::pair<int, int>>* over)
{
    for (const SlotAlloc& a : s.slots) {
        o.maxWorkers = std::max(o.maxWorkers, a.workers);
        o.maxPs = std::max(o.maxPs, a.ps);
        if (over)
            over->push_back({a.slot, a.workers});
    }
    o.completion = s.completion;
}

OasisRun runOnline(const OasisScenario& sc, const RunOptions& opt)
{
    OasisRun run;
    run.policy = "oasis";
    run.jobs.resize(sc.jobs.size());
    if (opt.keepSchedules)
        run.workersOverTime.resize(sc.jobs.size());
    OasisOnline alg;
    alg.reset(sc, opt.oasis);
    run.alpha = alg.alpha();
    double sumMs = 0;
    for (size_t i = 0; i < sc.jobs.size(); ++i) {
        AdmissionDecision d = alg.offer(int(i));
        sumMs += d.micros / 1000;
        run.subroutineMaxMs = std::max(run.subroutineMaxMs, d.micros / 1000);
        if (d.admitted) {
            run.jobs[i].admitted = true;
            noteSchedule(d.schedule, run.jobs[i], opt.keepSchedules ? &run.workersOverTime[i] : nullptr);
        }
        if (!opt.keepSchedules)
            d.schedule.slots.clear();
        run.decisions.push_back(std::move(d));
    }
    run.subroutineMeanMs = sc.jobs.empty() ? 0 : sumMs / double(sc.jobs.size());
    finishRun(sc, run);
    return run;
}

/// Workers (and PSs) that fit in slot t, first fit over servers.
int fitCount(const Ledger& l, int t, const Amounts& d, int limit)
{
    int n = 0;
    for (int s = 0; s < l.servers() && n < limit; ++s)
        n += std::min(limit - n, l.unitsFree(s, t, d));
    return n;
}

void placeFirstFit(Ledger& l, int t, const Amounts& d, int n, std::vector<std::pair<int, int>>* out)
{
    for (int s = 0; s < l.servers() && n > 0; ++s) {
        const int k = std::min(n, l.unitsFree(s, t, d));
        if (k > 0) {
            l.add(s, t, d, k);
            if (out)
                out->push_back({s, k});
            n -= k;
        }
    }
}

/// The largest y <= limit with y workers and psFor(y) PSs fitting in slot t.
int largestFit(const OasisJob& j, const Ledger& wl, const Ledger& pl, int t, int limit)
{
    int y = fitCount(wl, t, j.w, limit);
    const int z = fitCount(pl, t, j.s, j.psFor(limit));
    while (y > 0 && j.psFor(y) > z)
        --y;
    return y;
}


double dominantShare(const OasisJob& j, int y, const Amounts& wcap, const Amounts& pcap)
{
    double s = 0;
    const int z = j.psFor(y);
    for (int r = 0; r < kResources; ++r) {
        if (wcap[size_t(r)] > 0)
            s = std::max(s, y * j.w[size_t(r)] / wcap[size_t(r)]);
        if (pcap[size_t(r)] > 0)
            s = std::max(s, z * j.s[size_t(r)] / pcap[size_t(r)]);
    }
    return s;
}

OasisRun runSlotted(const OasisScenario& sc, const std::string& policy, const RunOptions& opt)
{
    OasisRun run;
    run.policy = policy;
    const size_t n = sc.jobs.size();
    run.jobs.resize(n);
    if (opt.keepSchedules)
        run.workersOverTime.resize(n);
    Ledger wl, pl;
    wl.reset(sc.workers, sc.horizon);
    pl.reset(sc.psServers, sc.horizon);
    Amounts wcap {0, 0, 0, 0}, pcap {0, 0, 0, 0};
    for (const auto& s : sc.workers)
        for (int r = 0; r < kResources; ++r)
            wcap[size_t(r)] += s.cap[size_t(r)];
    for (const auto& s : sc.psServers)
        for (int r = 0; r < kResources; ++r)
            pcap[size_t(r)] += s.cap[size_t(r)];
    std::vector<int> left(n);
    std::vector<double> served(n, 0); // DRF: accumulated dominant share
    for (size_t i = 0; i < n; ++i)
        left[i] = sc.jobs[i].workerSlots(sc.slotSeconds);
    std::vector<int> active;
    size_t next = 0;
    std::vector<int> y(n, 0);
    for (int t = 0; t < sc.horizon; ++t) {
        while (next < n && sc.jobs[next].arrival <= t) {
            run.jobs[next].admitted = true;
            active.push_back(int(next++));
        }
        if (active.empty()) {
            if (next >= n)
                break;
            continue;
        }
        for (int i : active)
            y[size_t(i)] = 0;
        auto gang = [&](int i) { return std::min({opt.fixedWorkers, sc.jobs[size_t(i)].chunks, left[size_t(i)]}); };
        auto tryGang = [&](int i) {
            const OasisJob& j = sc.jobs[size_t(i)];
            const int g = gang(i);
            if (fitCount(wl, t, j.w, g) < g || fitCount(pl, t, j.s, j.psFor(g)) < j.psFor(g))
                return false;
            placeFirstFit(wl, t, j.w, g, nullptr);
            placeFirstFit(pl, t, j.s, j.psFor(g), nullptr);
            y[size_t(i)] = g;
            return true;
        };
        if (policy == "fifo") {
            for (int i : active)
                if (!tryGang(i))
                    break;
        } else if (policy == "drf") {
            std::vector<int> order = active;
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return served[size_t(a)] < served[size_t(b)]; });
            for (int i : order)
                tryGang(i);
        } else { // dorm: progressive filling, one worker at a time to the lowest dominant share
            using Item = std::pair<double, int>;
            std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
            for (int i : active)
                heap.push({0.0, i});
            while (!heap.empty()) {
                const int i = heap.top().second;
                heap.pop();
                const OasisJob& j = sc.jobs[size_t(i)];
                const int cur = y[size_t(i)];
                if (cur >= std::min(j.chunks, left[size_t(i)]))
                    continue;
                const int extraPs = j.psFor(cur + 1) - j.psFor(cur);
                if (fitCount(wl, t, j.w, 1) < 1 || fitCount(pl, t, j.s, extraPs) < extraPs)
                    continue;
                placeFirstFit(wl, t, j.w, 1, nullptr);
                placeFirstFit(pl, t, j.s, extraPs, nullptr);
                y[size_t(i)] = cur + 1;
                heap.push({dominantShare(j, cur + 1, wcap, pcap), i});
            }
        }
        std::vector<int> still;
        for (int i : active) {
            const int k = y[size_t(i)];
            JobOutcome& o = run.jobs[size_t(i)];
            if (k > 0) {
                const OasisJob& j = sc.jobs[size_t(i)];
                left[size_t(i)] -= k;
                served[size_t(i)] += dominantShare(j, k, wcap, pcap);
                o.maxWorkers = std::max(o.maxWorkers, k);
                o.maxPs = std::max(o.maxPs, j.psFor(k));
                if (opt.keepSchedules)
                    run.workersOverTime[size_t(i)].push_back({t, k});
            }
            if (left[size_t(i)] <= 0)
                o.completion = t;
            else
                still.push_back(i);
        }
        active.swap(still);
    }
    finishRun(sc, run);
    return run;
}

/// Dominant share of the worker cluster one worker of j takes: max_r w^r / C^r.
double workerShare(const OasisJob& j, const Amounts& wcap)
{
    double d = 0;
    for (int r = 0; r < kResources; ++r)
        if (wcap[size_t(r)] > 0)
            d = std::max(d, j.w[size_t(r)] / wcap[size_t(r)]);
    return d;
}

/// greedy and riskreward: the earliest-finishing schedule on the reservations at each arrival; greedy admits it
/// when it finishes within the horizon with positive utility, riskreward also weighs its reward against its risk.
OasisRun runReserving(const OasisScenario& sc, const RunOptions& opt, bool riskReward)
{
    OasisRun run;
    run.policy = riskReward ? "riskreward" : "greedy";
    run.jobs.resize(sc.jobs.size());
    if (opt.keepSchedules)
        run.workersOverTime.resize(sc.jobs.size());
    Ledger wl, pl;
    wl.reset(sc.workers, sc.horizon);
    pl.reset(sc.psServers, sc.horizon);
    Amounts wcap {0, 0, 0, 0};
    for (const auto& s : sc.workers)
        for (int r = 0; r < kResources; ++r)
            wcap[size_t(r)] += s.cap[size_t(r)];
    // reserved worker resources per slot (riskreward's load)
    std::vector<Amounts> reserved(size_t(sc.horizon), Amounts {0, 0, 0, 0});
    double densitySum = 0;
    int seen = 0;
    for (size_t i = 0; i < sc.jobs.size(); ++i) {
        const OasisJob& j = sc.jobs[i];
        const int D = j.workerSlots(sc.slotSeconds);
        const double share = workerShare(j, wcap);
        if (riskReward) {
            const int fastest = (D + j.chunks - 1) / j.chunks;
            if (share > 0)
                densitySum += j.f(double(fastest)) / (D * share);
            ++seen;
        }
        int left = D;
        Schedule s;
        for (int t = j.arrival; t < sc.horizon && left > 0; ++t) {
            const int k = largestFit(j, wl, pl, t, std::min(j.chunks, left));
            if (k == 0)
                continue;
            SlotAlloc a;
            a.slot = t;
            a.workers = k;
            a.ps = j.psFor(k);
            s.slots.push_back(a);
            left -= k;
            s.completion = t;
        }
        if (left > 0)
            continue;
        const double reward = j.f(double(s.completion - j.arrival + 1));
        if (reward <= 0)
            continue;
        if (riskReward) {
            // load: the mean dominant reserved share of the worker cluster over the job's window
            double load = 0;
            for (int t = j.arrival; t <= s.completion; ++t) {
                double m = 0;
                for (int r = 0; r < kResources; ++r)
                    if (wcap[size_t(r)] > 0)
                        m = std::max(m, reserved[size_t(t)][size_t(r)] / wcap[size_t(r)]);
                load += m;
            }
            load /= double(s.completion - j.arrival + 1);
            const double risk = load * (densitySum / seen) * D * share;
            if (reward <= risk)
                continue;
        }
        for (SlotAlloc& a : s.slots) {
            placeFirstFit(wl, a.slot, j.w, a.workers, &a.y);
            placeFirstFit(pl, a.slot, j.s, a.ps, &a.z);
            for (int r = 0; r < kResources; ++r)
                reserved[size_t(a.slot)][size_t(r)] += a.workers * j.w[size_t(r)];
        }
        run.jobs[i].admitted = true;
        noteSchedule(s, run.jobs[i], opt.keepSchedules ? &run.workersOverTime[i] : nullptr);
    }
    finishRun(sc, run);
    return run;
}

} // namespace

OasisRun runOasisPolicy(const OasisScenario& sc, const std::string& policy, const RunOptions& o)
{
    const auto t0 = std::chrono::steady_clock::now();
    OasisRun run;
    if (policy == "oasis")
        run = runOnline(sc, o);
    else if (policy == "greedy" || policy == "riskreward")
        run = runReserving(sc, o, policy == "riskreward");
    else if (policy == "fifo" || policy == "drf" || policy == "dorm")
        run = runSlotted(sc, policy, o);
    else
        throw std::invalid_argument("unknown OASiS-model policy '" + policy + "' (oasis, fifo, drf, dorm, greedy, riskreward)");
    run.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return run;
}

} // namespace ss::oasis
