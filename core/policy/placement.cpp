#include "policy/placement.h"

#include <algorithm>
#include <cstring>

#include "policy/placementutil.h"

namespace ss {

namespace placeutil {

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

std::vector<int> machinesWithFree(const ClusterState& s, const TypeList& types)
{
    std::vector<int> out;
    s.forMachinesWithFree(1, types.t, types.size(), [&](int m) { out.push_back(m); });
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

bool fillFewest(const ClusterState& s, const ClusterSpec& c, std::vector<int> cand, int k, std::vector<GpuSlot>& out,
                std::vector<float>* scores, float base)
{
    std::sort(cand.begin(), cand.end(), [&](int a, int b) {
        if (s.freeGpus(a) != s.freeGpus(b))
            return s.freeGpus(a) > s.freeGpus(b);
        return a < b;
    });
    int need = k;
    int taken[64];
    int nTaken = 0;
    auto take = [&](int m, int n) {
        takeWhole(s, c, m, n, out);
        if (nTaken < 64)
            taken[nTaken++] = m;
    };
    for (size_t i = 0; i < cand.size() && need > 0; ++i) {
        const int f = s.freeGpus(cand[i]);
        if (f >= need) {
            // smallest remaining machine that covers `need`: scan the sorted tail backwards
            size_t pick = i;
            for (size_t j = cand.size(); j-- > i;)
                if (s.freeGpus(cand[j]) >= need) {
                    pick = j;
                    break;
                }
            take(cand[pick], need);
            need = 0;
            break;
        }
        take(cand[i], f);
        need -= f;
    }
    if (need > 0) {
        out.clear();
        return false;
    }
    if (scores)
        for (int i = 0; i < nTaken; ++i)
            (*scores)[size_t(taken[i])] = base + 1.0f / float(1 + i);
    return true;
}

Frame::Frame(const SchedContext& ctx, int j, std::vector<float>* scores)
    : s(ctx.state()), c(ctx.cluster()), job(ctx.job(j)), mask(ctx.rt(j).typeMask), types(allowedTypes(c, mask)),
      k(job.wholeGpus()), milli(job.milli()), fractional(job.fractional()), M(c.machineCount()),
      maxG(float(std::max(1, c.maxGpusPerMachine())))
{
    if (scores) {
        // every machine at -1 (no room), four at a time: a placement's failed attempts are explained at every
        // decision that records them, and a fill of one float per store was a sixth of a logged FIFO run
        typedef float F4 __attribute__((vector_size(16)));
        scores->resize(size_t(M));
        float* p = scores->data();
        const F4 none = {-1.0f, -1.0f, -1.0f, -1.0f};
        size_t i = 0;
        for (; i + 4 <= size_t(M); i += 4)
            std::memcpy(p + i, &none, sizeof none);
        for (; i < size_t(M); ++i)
            p[i] = -1.0f;
    }
}

int tightestMachine(const Frame& f)
{
    int best = -1;
    for (int t : f.types) {
        const int m = f.s.bestFitMachine(f.k, t);
        if (m >= 0 && (best < 0 || f.s.freeGpus(m) < f.s.freeGpus(best) || (f.s.freeGpus(m) == f.s.freeGpus(best) && m < best)))
            best = m;
    }
    return best;
}

bool placeTightestShare(const Frame& f, std::vector<GpuSlot>& out, std::vector<float>* scores)
{
    const std::vector<int> cand = machinesWithMilli(f.s, f.types, f.milli);
    int gpu = -1;
    for (int m : cand) {
        const int g = bestGpuOn(f.s, f.c, m, f.milli, false);
        if (g < 0)
            continue;
        if (scores)
            (*scores)[size_t(m)] = 1.0f / (1.0f + float(f.s.gpuFreeMilli(g) - f.milli) / 1000.0f);
        if (gpu < 0 || f.s.gpuFreeMilli(g) < f.s.gpuFreeMilli(gpu))
            gpu = g;
        if (!scores && f.s.gpuFreeMilli(gpu) == f.milli)
            break; // an exact fit: nothing later is tighter
    }
    if (gpu < 0)
        return false;
    out.push_back({gpu, f.milli});
    return true;
}

} // namespace placeutil

bool canPlaceNow(const SchedContext& ctx, int job)
{
    using namespace placeutil;
    const Job& jb = ctx.job(job);
    const TypeList types = allowedTypes(ctx.cluster(), ctx.rt(job).typeMask);
    if (types.empty())
        return false;
    if (jb.fractional())
        return firstWithMilli(ctx.state(), types, jb.milli(), 0) >= 0;
    return freeOfTypes(ctx.state(), types) >= jb.wholeGpus();
}

bool placeAndStart(SchedContext& ctx, int job, Placement& p, const char* reason)
{
    std::vector<GpuSlot>& slots = p.slotScratch(); // (the engine copies what it starts: p may place again inside)
    slots.clear();
    if (!ctx.recording()) {
        if (!p.place(ctx, job, slots, nullptr))
            return false;
        ctx.start(job, slots, reason);
        return true;
    }
    if (!ctx.placementScoresKept()) {
        // past the record's placement limit: a failed attempt is not recorded and a start is recorded without
        // scores (SchedContext::recordPlacement), so none are computed
        if (!p.place(ctx, job, slots, nullptr))
            return false;
        ctx.recordPlacement(job, slots, {}, std::string(reason) + " (" + p.name() + ")");
        ctx.start(job, slots, reason);
        return true;
    }
    std::vector<float> scores = ctx.takeScoreRow();
    const bool ok = p.place(ctx, job, slots, &scores);
    ctx.recordPlacement(job, slots, std::move(scores),
                        ok ? std::string(reason) + " (" + p.name() + ")" : "does not fit (" + p.name() + ")");
    if (!ok)
        return false;
    ctx.start(job, slots, reason);
    return true;
}

void explainPlacement(SchedContext& ctx, int job, Placement& p, const std::string& reason)
{
    if (!ctx.placementScoresKept())
        return; // a failed attempt past the record's placement limit is not recorded
    std::vector<GpuSlot> slots;
    std::vector<float> scores = ctx.takeScoreRow();
    p.place(ctx, job, slots, &scores);
    ctx.recordPlacement(job, {}, std::move(scores), reason);
}

} // namespace ss
