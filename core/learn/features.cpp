#include "learn/features.h"

#include <algorithm>
#include <cmath>

namespace ss::learn {

uint64_t allowedTypes(const SchedContext& ctx, int job)
{
    return ctx.rt(job).typeMask;
}

bool typeAllowed(uint64_t mask, int type)
{
    return type >= 64 || ((mask >> type) & 1ULL);
}

int freeForJob(const SchedContext& ctx, int job)
{
    const ClusterSpec& c = ctx.cluster();
    const ClusterState& s = ctx.state();
    const uint64_t mask = allowedTypes(ctx, job);
    const Job& j = ctx.job(job);
    if (j.fractional()) {
        for (int t = 0; t < int(c.types.size()); ++t)
            if (typeAllowed(mask, t) && s.firstMachineWithFreeMilli(j.milli(), 0, t) >= 0)
                return 1;
        return 0;
    }
    int free = 0;
    for (int t = 0; t < int(c.types.size()); ++t)
        if (typeAllowed(mask, t))
            free += s.freeGpusOfType(t);
    return free;
}

bool canFitNow(const SchedContext& ctx, int job)
{
    const Job& j = ctx.job(job);
    return freeForJob(ctx, job) >= (j.fractional() ? 1 : j.wholeGpus());
}

void jobFeatures(const SchedContext& ctx, int job, int pos, int n, float* out)
{
    const Job& j = ctx.job(job);
    const JobRuntime& r = ctx.rt(job);
    const double now = ctx.now();
    const int total = std::max(1, ctx.cluster().totalGpus());
    const int free = freeForJob(ctx, job);
    const int need = j.fractional() ? 1 : j.wholeGpus();
    out[0] = float(std::log2(double(need) + 1.0) / 3.0);
    out[1] = j.fractional() ? 1.f : 0.f;
    out[2] = float(std::log1p(std::max(0.0, now - j.submit) / 60.0) / 5.0);
    out[3] = float(std::log1p(j.duration / 60.0) / 6.0);
    out[4] = float(std::log1p(std::max(0.0, r.remainingAt(now)) / 60.0) / 6.0);
    out[5] = r.preemptions > 0 ? 1.f : 0.f;
    out[6] = n > 1 ? float(pos) / float(n - 1) : 0.f;
    out[7] = free >= need ? 1.f : 0.f;
    out[8] = float(std::min(2.0, double(need) / double(std::max(1, free))) / 2.0);
    out[9] = float(double(need) / double(total));
}

void machineFeatures(const SchedContext& ctx, int job, float* out)
{
    const ClusterSpec& c = ctx.cluster();
    const ClusterState& s = ctx.state();
    const Job& j = ctx.job(job);
    const uint64_t mask = allowedTypes(ctx, job);
    const int need = j.fractional() ? 1 : j.wholeGpus();
    double maxSpeed = 1e-9, maxPrice = 1e-9;
    for (const GpuType& t : c.types) {
        maxSpeed = std::max(maxSpeed, t.speed);
        maxPrice = std::max(maxPrice, t.pricePerHour);
    }
    std::vector<int> swFree(c.switches.size() + 1, 0), swGpus(c.switches.size() + 1, 0);
    for (int m = 0; m < c.machineCount(); ++m) {
        const size_t sw = size_t(std::clamp(c.machines[size_t(m)].sw, 0, int(c.switches.size())));
        swFree[sw] += s.freeGpus(m);
        swGpus[sw] += c.machines[size_t(m)].gpus;
    }
    const int maxG = std::max(1, c.maxGpusPerMachine());
    for (int m = 0; m < c.machineCount(); ++m) {
        const Machine& mc = c.machines[size_t(m)];
        const GpuType& t = c.types[size_t(mc.type)];
        const int free = j.fractional() ? (s.maxFreeMilliOn(m) >= j.milli() ? 1 : 0) : s.freeGpus(m);
        const size_t sw = size_t(std::clamp(mc.sw, 0, int(c.switches.size())));
        float* o = out + size_t(m) * kMachineFeatures;
        o[0] = mc.gpus > 0 ? float(free) / float(mc.gpus) : 0.f;
        o[1] = free >= need ? 1.f : 0.f;
        o[2] = float(t.speed / maxSpeed);
        o[3] = float(t.pricePerHour / maxPrice);
        o[4] = float(std::min(4, s.jobsOnMachine(m))) / 4.f;
        o[5] = swGpus[sw] > 0 ? float(swFree[sw]) / float(swGpus[sw]) : 0.f;
        o[6] = float(mc.gpus) / float(maxG);
        o[7] = typeAllowed(mask, mc.type) && mc.gpus > 0 ? 1.f : 0.f;
    }
}

void globalFeatures(const SchedContext& ctx, const std::vector<int>& queue, float* out)
{
    const ClusterSpec& c = ctx.cluster();
    const ClusterState& s = ctx.state();
    const double total = std::max(1, c.totalGpus());
    const double now = ctx.now();
    double demand = 0, waitSum = 0, waitMax = 0, work = 0;
    for (int j : queue) {
        const Job& job = ctx.job(j);
        demand += job.fractional() ? job.gpus : job.wholeGpus();
        const double w = std::max(0.0, now - job.submit);
        waitSum += w;
        waitMax = std::max(waitMax, w);
        work += job.duration * std::max(1.0, job.gpus);
    }
    const double n = std::max<size_t>(1, queue.size());
    std::fill(out, out + kGlobalFeatures, 0.f);
    out[0] = float(std::log1p(double(queue.size())) / 5.0);
    out[1] = float(std::min(4.0, demand / total) / 4.0);
    out[2] = float(s.totalFreeGpus() / total);
    out[3] = float(std::log1p(waitSum / n / 60.0) / 5.0);
    out[4] = float(std::log1p(waitMax / 60.0) / 6.0);
    out[5] = float(std::log1p(double(ctx.runningJobs().size())) / 5.0);
    out[6] = float(std::log1p(work / total / 60.0) / 8.0);
    out[7] = float(double(s.fragmentedFreeGpus()) / total);
    for (int t = 0; t < std::min<int>(4, int(c.types.size())); ++t) {
        int tg = 0;
        for (const Machine& m : c.machines)
            if (m.type == t)
                tg += m.gpus;
        out[8 + t] = tg > 0 ? float(s.freeGpusOfType(t)) / float(tg) : 0.f;
    }
}

std::vector<GpuSlot> collectSlots(const SchedContext& ctx, int job, const std::vector<int>& machineOrder)
{
    const ClusterSpec& c = ctx.cluster();
    const ClusterState& s = ctx.state();
    const Job& j = ctx.job(job);
    const uint64_t mask = allowedTypes(ctx, job);
    std::vector<GpuSlot> slots;
    if (j.fractional()) {
        const int milli = j.milli();
        for (int m : machineOrder) {
            if (!typeAllowed(mask, c.machines[size_t(m)].type) || s.maxFreeMilliOn(m) < milli)
                continue;
            // Prefer the fullest GPU that still has room, so shared GPUs pack before fresh ones are opened.
            int best = -1, bestFree = 1001;
            for (int g = c.gpuBase(m); g < c.gpuBase(m) + c.machines[size_t(m)].gpus; ++g) {
                const int f = s.gpuFreeMilli(g);
                if (f >= milli && f < bestFree) {
                    best = g;
                    bestFree = f;
                }
            }
            if (best >= 0)
                return {GpuSlot{best, milli}};
        }
        return {};
    }
    int need = j.wholeGpus();
    for (int m : machineOrder) {
        if (need == 0)
            break;
        if (!typeAllowed(mask, c.machines[size_t(m)].type) || s.freeGpus(m) == 0)
            continue;
        for (int g = c.gpuBase(m); g < c.gpuBase(m) + c.machines[size_t(m)].gpus && need > 0; ++g)
            if (s.gpuFreeMilli(g) == 1000 && s.gpuHolderCount(g) == 0) {
                slots.push_back(GpuSlot{g, 1000});
                --need;
            }
    }
    if (need > 0)
        return {};
    return slots;
}

int minMachinesFor(const SchedContext& ctx, int job)
{
    const Job& j = ctx.job(job);
    if (j.fractional())
        return 1;
    const int biggest = ctx.cluster().maxGpusPerMachineOf(allowedTypes(ctx, job));
    return biggest > 0 ? (j.wholeGpus() + biggest - 1) / biggest : 1;
}

int machinesSpanned(const ClusterSpec& cluster, const std::vector<GpuSlot>& slots)
{
    std::vector<int> ms;
    for (const GpuSlot& g : slots) {
        const int m = cluster.machineOfGpu(g.gpu);
        if (std::find(ms.begin(), ms.end(), m) == ms.end())
            ms.push_back(m);
    }
    return int(ms.size());
}

static double overheadFactor(const PerfConfig& p, int machines, int switches, int coRunners)
{
    if (p.ideal)
        return 1.0;
    return (1.0 + p.crossMachine * (machines - 1)) * (1.0 + p.crossSwitch * (switches - 1))
        * (1.0 + p.interference * coRunners);
}

double machineSpeed(const SchedContext& ctx, int m)
{
    const ClusterSpec& c = ctx.cluster();
    const PerfConfig& p = ctx.perf().config();
    return (p.ideal || !p.typeSpeed) ? 1.0 : c.types[size_t(c.machines[size_t(m)].type)].speed;
}

std::vector<int> consolidatingOrder(const SchedContext& ctx, int job, const std::vector<int>& order, double minSpeed)
{
    const ClusterSpec& c = ctx.cluster();
    const ClusterState& s = ctx.state();
    std::vector<int> out;
    for (int m : order)
        if (machineSpeed(ctx, m) >= minSpeed)
            out.push_back(m);
    const int need = ctx.job(job).wholeGpus();
    auto covers = [&](int m) { return s.freeGpus(m) >= std::min(need, c.machines[size_t(m)].gpus); };
    std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
        const bool ca = covers(a), cb = covers(b);
        if (ca != cb)
            return ca;
        return !ca && s.freeGpus(a) > s.freeGpus(b);
    });
    return out;
}

namespace {
// Machines, switches and slowest GPU speed of a placement, and the most jobs already on one of its machines.
struct Shape {
    int machines = 0, switches = 0, coRunners = 0;
    double minSpeed = kInf;
};
Shape shapeOf(const SchedContext& ctx, const std::vector<GpuSlot>& slots)
{
    const ClusterSpec& c = ctx.cluster();
    std::vector<int> ms, sws;
    Shape sh;
    for (const GpuSlot& g : slots) {
        const int m = c.machineOfGpu(g.gpu);
        if (std::find(ms.begin(), ms.end(), m) == ms.end()) {
            ms.push_back(m);
            sh.coRunners = std::max(sh.coRunners, ctx.state().jobsOnMachine(m));
        }
        const int sw = c.machines[size_t(m)].sw;
        if (std::find(sws.begin(), sws.end(), sw) == sws.end())
            sws.push_back(sw);
        sh.minSpeed = std::min(sh.minSpeed, machineSpeed(ctx, m));
    }
    sh.machines = int(ms.size());
    sh.switches = int(sws.size());
    return sh;
}
} // namespace

double predictedRunSeconds(const SchedContext& ctx, int job, double speed, int machines, int switches, int coRunners)
{
    if (machines == 0 || !(speed > 0))
        return kInf;
    return ctx.rt(job).remainingAt(ctx.now()) * overheadFactor(ctx.perf().config(), machines, switches, coRunners)
        / speed;
}

double predictedRunSeconds(const SchedContext& ctx, int job, const std::vector<GpuSlot>& slots)
{
    const Shape sh = shapeOf(ctx, slots);
    return predictedRunSeconds(ctx, job, sh.minSpeed, sh.machines, sh.switches, sh.coRunners);
}

double wholeMachinesFreeAt(const SchedContext& ctx, int job, double minSpeed)
{
    const ClusterSpec& c = ctx.cluster();
    const uint64_t mask = allowedTypes(ctx, job);
    std::vector<double> freeAt(size_t(c.machineCount()), ctx.now());
    for (int r : ctx.runningJobs()) {
        const JobRuntime& rt = ctx.rt(r);
        const double end = rt.rate > 0 ? ctx.now() + rt.remainingAt(ctx.now()) / rt.rate : kInf;
        for (const GpuSlot& g : rt.slots) {
            double& f = freeAt[size_t(c.machineOfGpu(g.gpu))];
            f = std::max(f, end);
        }
    }
    std::vector<int> cand;
    for (int m = 0; m < c.machineCount(); ++m)
        if (typeAllowed(mask, c.machines[size_t(m)].type) && machineSpeed(ctx, m) >= minSpeed)
            cand.push_back(m);
    std::sort(cand.begin(), cand.end(), [&](int a, int b) {
        if (freeAt[size_t(a)] != freeAt[size_t(b)])
            return freeAt[size_t(a)] < freeAt[size_t(b)];
        return c.machines[size_t(a)].gpus > c.machines[size_t(b)].gpus;
    });
    int need = ctx.job(job).wholeGpus();
    for (int m : cand) {
        need -= c.machines[size_t(m)].gpus;
        if (need <= 0)
            return freeAt[size_t(m)];
    }
    return kInf;
}

double normalisedPerformance(const SchedContext& ctx, int job, const std::vector<GpuSlot>& slots, double rate,
                             int coRunners)
{
    const Shape sh = shapeOf(ctx, slots);
    if (sh.machines == 0 || !(sh.minSpeed > 0))
        return 1.0;
    const double predicted = sh.minSpeed / overheadFactor(ctx.perf().config(), sh.machines, sh.switches, coRunners);
    return predicted > 0 ? rate / predicted : 1.0;
}

double placedReward(const SchedContext& ctx, int job, const std::vector<GpuSlot>& slots, double rate)
{
    const ClusterSpec& c = ctx.cluster();
    const Job& j = ctx.job(job);
    const double share = j.fractional() ? j.gpus : double(j.wholeGpus());
    const uint64_t mask = allowedTypes(ctx, job);
    double bestSpeed = 0, cheapest = 1e300;
    for (int t = 0; t < int(c.types.size()); ++t) {
        if (!typeAllowed(mask, t))
            continue;
        const double sp = std::max(1e-6, c.types[size_t(t)].speed);
        bestSpeed = std::max(bestSpeed, sp);
        cheapest = std::min(cheapest, c.types[size_t(t)].pricePerHour * share * j.duration / sp);
    }
    const double remaining = std::max(1e-6, ctx.rt(job).remainingAt(ctx.now()));
    const double dur = remaining / std::max(1e-9, rate);
    double price = 0;
    for (const GpuSlot& g : slots)
        price += c.pricePerHourOfMachine(c.machineOfGpu(g.gpu)) * g.milli / 1000.0;
    const double fee = price * dur;
    // r_jct of the placement: its run time against the run time on the fastest allowed type, alone. The time
    // the job already waited is left out here ([I]): the waiting penalty charges it interval by interval, and
    // counting it again would pay the agents more for starting a fresh job than one that has waited long (a
    // LIFO pull that lengthened the queues, raising mean JCT by a third in training runs).
    const double rJct = std::max(1.0, dur / (remaining / std::max(1e-6, bestSpeed)));
    const double rFee = std::max(1.0, fee / std::max(1e-12, cheapest));
    return 1.0 / (rFee * rJct);
}

} // namespace ss::learn
