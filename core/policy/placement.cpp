#include "policy/placement.h"

#include <algorithm>
#include <stdexcept>

namespace ss {

namespace {

// The GPU types a job may use, or {-1} when it may use every type of the cluster (then the
// all-type indices of ClusterState answer in one query). Fixed storage: no allocation per placement.
struct TypeList {
    int n = 0;
    int t[64];
    const int* begin() const { return t; }
    const int* end() const { return t + n; }
    size_t size() const { return size_t(n); }
    bool empty() const { return n == 0; }
    int operator[](size_t i) const { return t[i]; }
};

TypeList allowedTypes(const ClusterSpec& c, uint64_t mask)
{
    const int nt = int(c.types.size());
    TypeList out;
    bool all = true;
    for (int t = 0; t < nt; ++t) {
        if (t < 64 && ((mask >> t) & 1ULL))
            out.t[out.n++] = t;
        else
            all = false;
    }
    if (all) {
        out.n = 1;
        out.t[0] = -1;
    }
    return out;
}

bool machineAllowed(const ClusterSpec& c, int m, uint64_t mask)
{
    const int t = c.machines[size_t(m)].type;
    return t < 64 && ((mask >> t) & 1ULL);
}

int freeOfTypes(const ClusterState& s, const TypeList& types)
{
    if (types.size() == 1 && types[0] < 0)
        return s.totalFreeGpus();
    int n = 0;
    for (int t : types)
        n += s.freeGpusOfType(t);
    return n;
}

int firstWithFree(const ClusterState& s, const TypeList& types, int k, int from)
{
    int best = -1;
    for (int t : types) {
        const int m = s.firstMachineWithFree(k, from, t);
        if (m >= 0 && (best < 0 || m < best))
            best = m;
    }
    return best;
}

int firstWithMilli(const ClusterState& s, const TypeList& types, int milli, int from)
{
    int best = -1;
    for (int t : types) {
        const int m = s.firstMachineWithFreeMilli(milli, from, t);
        if (m >= 0 && (best < 0 || m < best))
            best = m;
    }
    return best;
}

// Machines (id order) with at least one whole free GPU of an allowed type.
std::vector<int> machinesWithFree(const ClusterState& s, const TypeList& types)
{
    std::vector<int> out;
    for (int m = firstWithFree(s, types, 1, 0); m >= 0; m = firstWithFree(s, types, 1, m + 1))
        out.push_back(m);
    return out;
}

std::vector<int> machinesWithMilli(const ClusterState& s, const TypeList& types, int milli)
{
    std::vector<int> out;
    for (int m = firstWithMilli(s, types, milli, 0); m >= 0; m = firstWithMilli(s, types, milli, m + 1))
        out.push_back(m);
    return out;
}

void takeWhole(const ClusterState& s, const ClusterSpec& c, int m, int n, std::vector<GpuSlot>& out)
{
    const int base = c.gpuBase(m);
    const int end = base + c.machines[size_t(m)].gpus;
    for (int g = base; g < end && n > 0; ++g)
        if (s.gpuFreeMilli(g) >= 1000 && s.gpuHolderCount(g) == 0) {
            out.push_back({g, 1000});
            --n;
        }
}

// Smallest free share >= milli on machine m (best fit of a fractional job); -1 when none.
int bestGpuOn(const ClusterState& s, const ClusterSpec& c, int m, int milli, bool largest)
{
    const int base = c.gpuBase(m);
    const int end = base + c.machines[size_t(m)].gpus;
    int best = -1;
    for (int g = base; g < end; ++g) {
        const int f = s.gpuFreeMilli(g);
        if (f < milli)
            continue;
        if (best < 0 || (largest ? f > s.gpuFreeMilli(best) : f < s.gpuFreeMilli(best)))
            best = g;
    }
    return best;
}

// Fill from the machines with the most free GPUs so the job spans as few machines as possible; the last
// piece goes to the smallest machine that still covers the rest (keeps big holes for big jobs).
bool fillFewest(const ClusterState& s, const ClusterSpec& c, std::vector<int> cand, int k, std::vector<GpuSlot>& out)
{
    std::sort(cand.begin(), cand.end(), [&](int a, int b) {
        if (s.freeGpus(a) != s.freeGpus(b))
            return s.freeGpus(a) > s.freeGpus(b);
        return a < b;
    });
    int need = k;
    size_t i = 0;
    for (; i < cand.size() && need > 0; ++i) {
        const int f = s.freeGpus(cand[i]);
        if (f >= need) {
            // smallest remaining machine that covers `need`: scan the sorted tail backwards
            size_t pick = i;
            for (size_t j = cand.size(); j-- > i;)
                if (s.freeGpus(cand[j]) >= need) {
                    pick = j;
                    break;
                }
            takeWhole(s, c, cand[pick], need, out);
            need = 0;
            break;
        }
        takeWhole(s, c, cand[i], f, out);
        need -= f;
    }
    if (need > 0) {
        out.clear();
        return false;
    }
    return true;
}

bool placeFractional(SchedContext& ctx, int job, PlacementKind kind, const TypeList& types, int milli,
                     std::vector<GpuSlot>& out)
{
    const ClusterState& s = ctx.state();
    const ClusterSpec& c = ctx.cluster();
    int gpu = -1;
    if (kind == PlacementKind::FirstFit) {
        const int m = firstWithMilli(s, types, milli, 0);
        if (m >= 0) {
            const int base = c.gpuBase(m);
            for (int g = base; g < base + c.machines[size_t(m)].gpus; ++g)
                if (s.gpuFreeMilli(g) >= milli) {
                    gpu = g;
                    break;
                }
        }
    } else {
        const std::vector<int> cand = machinesWithMilli(s, types, milli);
        if (cand.empty())
            return false;
        if (kind == PlacementKind::Random) {
            std::vector<int> gpus;
            for (int m : cand) {
                const int base = c.gpuBase(m);
                for (int g = base; g < base + c.machines[size_t(m)].gpus; ++g)
                    if (s.gpuFreeMilli(g) >= milli)
                        gpus.push_back(g);
            }
            gpu = gpus[size_t(ctx.rng().below(gpus.size()))];
        } else if (kind == PlacementKind::LoadBalance) {
            // least-loaded machine (most whole free GPUs, then fewest jobs), its emptiest GPU
            int bestM = -1;
            for (int m : cand) {
                if (bestM < 0 || s.freeGpus(m) > s.freeGpus(bestM)
                    || (s.freeGpus(m) == s.freeGpus(bestM) && s.jobsOnMachine(m) < s.jobsOnMachine(bestM)))
                    bestM = m;
            }
            gpu = bestGpuOn(s, c, bestM, milli, true);
        } else {
            // best fit (and consolidate): the GPU whose free share is the smallest that fits
            for (int m : cand) {
                const int g = bestGpuOn(s, c, m, milli, false);
                if (g >= 0 && (gpu < 0 || s.gpuFreeMilli(g) < s.gpuFreeMilli(gpu)))
                    gpu = g;
                if (gpu >= 0 && s.gpuFreeMilli(gpu) == milli)
                    break;
            }
        }
    }
    if (gpu < 0)
        return false;
    out.push_back({gpu, milli});
    (void)job;
    return true;
}

bool placeWhole(SchedContext& ctx, PlacementKind kind, const TypeList& types, int k, std::vector<GpuSlot>& out)
{
    const ClusterState& s = ctx.state();
    const ClusterSpec& c = ctx.cluster();
    if (freeOfTypes(s, types) < k)
        return false;
    switch (kind) {
    case PlacementKind::FirstFit: {
        const int m = firstWithFree(s, types, k, 0);
        if (m >= 0) {
            takeWhole(s, c, m, k, out);
            return true;
        }
        // lowest-id machines first
        int need = k;
        for (int mm = firstWithFree(s, types, 1, 0); mm >= 0 && need > 0; mm = firstWithFree(s, types, 1, mm + 1)) {
            const int take = std::min(need, s.freeGpus(mm));
            takeWhole(s, c, mm, take, out);
            need -= take;
        }
        return need == 0;
    }
    case PlacementKind::BestFit: {
        int best = -1;
        for (int t : types) {
            const int m = s.bestFitMachine(k, t);
            if (m >= 0 && (best < 0 || s.freeGpus(m) < s.freeGpus(best) || (s.freeGpus(m) == s.freeGpus(best) && m < best)))
                best = m;
        }
        if (best >= 0) {
            takeWhole(s, c, best, k, out);
            return true;
        }
        return fillFewest(s, c, machinesWithFree(s, types), k, out);
    }
    case PlacementKind::LoadBalance: {
        int best = -1;
        for (int t : types) {
            const int m = s.mostFreeMachine(t);
            if (m >= 0 && (best < 0 || s.freeGpus(m) > s.freeGpus(best) || (s.freeGpus(m) == s.freeGpus(best) && m < best)))
                best = m;
        }
        if (best >= 0 && s.freeGpus(best) >= k) {
            takeWhole(s, c, best, k, out);
            return true;
        }
        return fillFewest(s, c, machinesWithFree(s, types), k, out);
    }
    case PlacementKind::Consolidate: {
        // one machine (the tightest fit, so exact matches win, as Chronus's consolidation prefers)
        int best = -1;
        for (int t : types) {
            const int m = s.bestFitMachine(k, t);
            if (m >= 0 && (best < 0 || s.freeGpus(m) < s.freeGpus(best) || (s.freeGpus(m) == s.freeGpus(best) && m < best)))
                best = m;
        }
        if (best >= 0) {
            takeWhole(s, c, best, k, out);
            return true;
        }
        // the switch where the job needs the fewest machines (ties: least left over, then lowest id)
        const std::vector<int> cand = machinesWithFree(s, types);
        std::vector<std::vector<int>> bySwitch(c.switches.size());
        for (int m : cand)
            bySwitch[size_t(c.machines[size_t(m)].sw)].push_back(m);
        int bestSw = -1, bestCount = 0, bestLeft = 0;
        for (size_t sw = 0; sw < bySwitch.size(); ++sw) {
            auto& v = bySwitch[sw];
            int sum = 0;
            for (int m : v)
                sum += s.freeGpus(m);
            if (sum < k)
                continue;
            std::vector<int> frees;
            for (int m : v)
                frees.push_back(s.freeGpus(m));
            std::sort(frees.rbegin(), frees.rend());
            int need = k, count = 0;
            for (int f : frees) {
                if (need <= 0)
                    break;
                need -= f;
                ++count;
            }
            const int left = sum - k;
            if (bestSw < 0 || count < bestCount || (count == bestCount && left < bestLeft)) {
                bestSw = int(sw);
                bestCount = count;
                bestLeft = left;
            }
        }
        if (bestSw >= 0 && fillFewest(s, c, bySwitch[size_t(bestSw)], k, out))
            return true;
        out.clear();
        return fillFewest(s, c, cand, k, out); // no switch holds it: span switches
    }
    case PlacementKind::Random: {
        std::vector<int> one;
        for (int m = firstWithFree(s, types, k, 0); m >= 0; m = firstWithFree(s, types, k, m + 1))
            one.push_back(m);
        if (!one.empty()) {
            takeWhole(s, c, one[size_t(ctx.rng().below(one.size()))], k, out);
            return true;
        }
        std::vector<int> cand = machinesWithFree(s, types);
        for (size_t i = cand.size(); i > 1; --i)
            std::swap(cand[i - 1], cand[size_t(ctx.rng().below(i))]);
        int need = k;
        for (int m : cand) {
            if (need <= 0)
                break;
            const int take = std::min(need, s.freeGpus(m));
            takeWhole(s, c, m, take, out);
            need -= take;
        }
        return need == 0;
    }
    }
    return false;
}

} // namespace

const char* toString(PlacementKind k)
{
    switch (k) {
    case PlacementKind::FirstFit: return "firstfit";
    case PlacementKind::BestFit: return "bestfit";
    case PlacementKind::LoadBalance: return "loadbalance";
    case PlacementKind::Consolidate: return "consolidate";
    case PlacementKind::Random: return "random";
    }
    return "?";
}

std::vector<std::string> placementKindNames()
{
    return {"bestfit", "consolidate", "firstfit", "loadbalance", "random"};
}

PlacementKind placementKindFromName(const std::string& name)
{
    for (PlacementKind k : {PlacementKind::FirstFit, PlacementKind::BestFit, PlacementKind::LoadBalance,
                            PlacementKind::Consolidate, PlacementKind::Random})
        if (name == toString(k))
            return k;
    throw std::invalid_argument("unknown placement '" + name + "'");
}

bool canPlaceNow(const SchedContext& ctx, int job)
{
    const Job& jb = ctx.job(job);
    const TypeList types = allowedTypes(ctx.cluster(), ctx.rt(job).typeMask);
    if (types.empty())
        return false;
    if (jb.fractional())
        return firstWithMilli(ctx.state(), types, jb.milli(), 0) >= 0;
    return freeOfTypes(ctx.state(), types) >= jb.wholeGpus();
}

bool choosePlacement(SchedContext& ctx, int job, PlacementKind kind, std::vector<GpuSlot>& out)
{
    out.clear();
    const Job& jb = ctx.job(job);
    const TypeList types = allowedTypes(ctx.cluster(), ctx.rt(job).typeMask);
    if (types.empty())
        return false;
    bool ok = jb.fractional() ? placeFractional(ctx, job, kind, types, jb.milli(), out)
                              : placeWhole(ctx, kind, types, jb.wholeGpus(), out);
    if (!ok)
        out.clear();
    return ok;
}

std::vector<float> placementAffinity(const SchedContext& ctx, int job, PlacementKind kind)
{
    const ClusterState& s = ctx.state();
    const ClusterSpec& c = ctx.cluster();
    const Job& jb = ctx.job(job);
    const uint64_t mask = ctx.rt(job).typeMask;
    const int M = c.machineCount();
    const float maxG = float(std::max(1, c.maxGpusPerMachine()));
    const int k = jb.wholeGpus();
    const int milli = jb.milli();
    std::vector<float> a(size_t(M), -1.0f);
    // consolidate: which switches could hold the whole job
    std::vector<int> swFree;
    if (kind == PlacementKind::Consolidate) {
        swFree.assign(c.switches.size(), 0);
        for (int m = 0; m < M; ++m)
            if (machineAllowed(c, m, mask))
                swFree[size_t(c.machines[size_t(m)].sw)] += s.freeGpus(m);
    }
    for (int m = 0; m < M; ++m) {
        if (!machineAllowed(c, m, mask))
            continue;
        const int f = s.freeGpus(m);
        if (jb.fractional()) {
            const int tight = bestGpuOn(s, c, m, milli, false);
            if (tight < 0)
                continue;
            const float slack = float(s.gpuFreeMilli(tight) - milli) / 1000.0f; // 0 = exact fit
            switch (kind) {
            case PlacementKind::FirstFit: a[size_t(m)] = 1.0f - float(m) / float(M); break;
            case PlacementKind::BestFit:
            case PlacementKind::Consolidate: a[size_t(m)] = 1.0f / (1.0f + slack); break;
            case PlacementKind::LoadBalance: a[size_t(m)] = float(f) / maxG + float(bestGpuOn(s, c, m, milli, true) >= 0 ? s.gpuFreeMilli(bestGpuOn(s, c, m, milli, true)) : 0) / 1000.0f / maxG; break;
            case PlacementKind::Random: a[size_t(m)] = 1.0f; break;
            }
            continue;
        }
        if (f == 0)
            continue;
        // machines that hold the whole job score above 1, machines that can only take a part below 1
        const bool whole = f >= k;
        switch (kind) {
        case PlacementKind::FirstFit: a[size_t(m)] = (whole ? 1.0f : 0.0f) + 1.0f - float(m) / float(M); break;
        case PlacementKind::BestFit: a[size_t(m)] = whole ? 1.0f + 1.0f / float(1 + f - k) : float(f) / (maxG + 1.0f); break;
        case PlacementKind::LoadBalance: a[size_t(m)] = (whole ? 1.0f : 0.0f) + float(f) / maxG; break;
        case PlacementKind::Consolidate: {
            const bool swHolds = swFree[size_t(c.machines[size_t(m)].sw)] >= k;
            a[size_t(m)] = whole ? 2.0f + 1.0f / float(1 + f - k) : (swHolds ? 1.0f : 0.0f) + float(f) / (maxG + 1.0f);
            break;
        }
        case PlacementKind::Random: a[size_t(m)] = 1.0f; break;
        }
    }
    return a;
}

bool placeAndStart(SchedContext& ctx, int job, PlacementKind kind, const char* reason)
{
    std::vector<GpuSlot> slots;
    const bool ok = choosePlacement(ctx, job, kind, slots);
    if (ctx.recording())
        ctx.recordPlacement(job, slots, placementAffinity(ctx, job, kind),
                            ok ? std::string(reason) + " (" + toString(kind) + ")" : std::string("does not fit (") + toString(kind) + ")");
    if (!ok)
        return false;
    ctx.start(job, std::move(slots), reason);
    return true;
}

} // namespace ss
