#include "sim/clusterstate.h"

#include <algorithm>
#include <stdexcept>

namespace ss {

namespace {
// without -mpopcnt (the Debian baseline), __builtin_popcountll is a call into libgcc's table version
inline int popcount64(uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return int((x * 0x0101010101010101ULL) >> 56);
}
} // namespace

void MaxSegTree::init(int n)
{
    m_n = n;
    m_size = 1;
    while (m_size < std::max(1, n))
        m_size <<= 1;
    m_t.assign(size_t(2 * m_size), -1);
}

void MaxSegTree::set(int i, int v)
{
    size_t p = size_t(m_size + i);
    if (m_t[p] == v)
        return;
    m_t[p] = v;
    for (p >>= 1; p >= 1; p >>= 1) {
        const int nv = std::max(m_t[2 * p], m_t[2 * p + 1]);
        if (m_t[p] == nv)
            break;
        m_t[p] = nv;
    }
}

int MaxSegTree::firstAtLeast(int k, int from) const
{
    from = std::max(0, from);
    if (m_n == 0 || m_t[1] < k || from >= m_n)
        return -1;
    // bottom-up from the leaf `from`: climb while the subtrees to the right fail, then go down the first
    // subtree to the right that holds a value >= k, always to its leftmost such leaf
    size_t p = size_t(m_size + from);
    if (m_t[p] < k) {
        for (;;) {
            while (p & 1) { // a right child: its right neighbours are to the right of its parent
                p >>= 1;
                if (p == 0)
                    return -1;
            }
            ++p;
            if (m_t[p] >= k)
                break;
        }
        while (p < size_t(m_size))
            p = m_t[2 * p] >= k ? 2 * p : 2 * p + 1;
    }
    const int r = int(p) - m_size;
    return r < m_n ? r : -1;
}

int MaxSegTree::argMax() const
{
    if (m_n == 0 || m_t[1] < 0)
        return -1;
    return firstAtLeast(m_t[1], 0);
}

ClusterState::ClusterState(const ClusterSpec& spec) : m_spec(spec)
{
    const int M = spec.machineCount();
    const int T = int(spec.types.size());
    m_freeWhole.assign(size_t(M), 0);
    m_jobsOn.assign(size_t(M), 0);
    m_gpuFree.assign(size_t(spec.totalGpus()), 1000);
    m_gpuHolders.assign(size_t(spec.totalGpus()), 0);
    m_gpuOwner.assign(size_t(spec.totalGpus()), -1);
    m_freeByType.assign(size_t(T), 0);
    m_maxMilli.init(M);
    m_words = size_t((M + 63) / 64);
    m_levelsPerType = spec.maxGpusPerMachine() + 1;
    m_levelBits.assign(size_t(T + 1) * size_t(m_levelsPerType) * m_words, 0);
    m_atLeastBits.assign(m_levelBits.size(), 0);
    m_levelCount.assign(size_t(T + 1) * size_t(m_levelsPerType), 0);
    m_typeWords.assign(size_t(T + 1), {m_words, 0});
    m_typeWords[0] = {0, m_words};
    for (int m = 0; m < M; ++m) {
        const Machine& mc = spec.machines[size_t(m)];
        m_freeWhole[size_t(m)] = mc.gpus;
        m_totalFreeWhole += mc.gpus;
        m_freeByType[size_t(mc.type)] += mc.gpus;
        m_maxMilli.set(m, mc.gpus > 0 ? 1000 : 0);
        levelRow(-1, mc.gpus)[m / 64] |= 1ULL << (m % 64);
        levelRow(mc.type, mc.gpus)[m / 64] |= 1ULL << (m % 64);
        for (int k = 0; k <= mc.gpus; ++k) {
            atLeastRow(-1, k)[m / 64] |= 1ULL << (m % 64);
            atLeastRow(mc.type, k)[m / 64] |= 1ULL << (m % 64);
        }
        ++levelCount(-1, mc.gpus);
        ++levelCount(mc.type, mc.gpus);
        auto& [lo, hi] = m_typeWords[size_t(mc.type + 1)];
        lo = std::min(lo, size_t(m / 64));
        hi = std::max(hi, size_t(m / 64) + 1);
    }
}

void ClusterState::startShares() const
{
    if (m_shares)
        return;
    m_shares = true;
    const int M = m_spec.machineCount();
    m_maxMilliByType.assign(m_spec.types.size(), MaxSegTree {});
    for (MaxSegTree& t : m_maxMilliByType)
        t.init(M);
    for (int m = 0; m < M; ++m) {
        const int v = maxFreeMilliOnGpus(m);
        m_maxMilli.set(m, v);
        m_maxMilliByType[size_t(m_spec.machines[size_t(m)].type)].set(m, v);
    }
}

int ClusterState::maxFreeMilliOnGpus(int m) const
{
    const Machine& mc = m_spec.machines[size_t(m)];
    int best = 0;
    const int base = m_spec.gpuBase(m);
    for (int g = 0; g < mc.gpus; ++g)
        best = std::max(best, m_gpuFree[size_t(base + g)]);
    return best;
}

int ClusterState::firstBitFrom(const uint64_t* row, int type, int from) const
{
    const auto [lo, hi] = m_typeWords[size_t(type + 1)];
    size_t w = std::max(lo, size_t(from) / 64);
    if (w >= hi)
        return -1;
    uint64_t bits = row[w];
    if (w == size_t(from) / 64)
        bits &= ~0ULL << (from % 64);
    for (;;) {
        if (bits)
            return int(w * 64) + __builtin_ctzll(bits);
        if (++w >= hi)
            return -1;
        bits = row[w];
    }
}

int ClusterState::firstMachineWithFree(int k, int from, int type) const
{
    k = std::max(k, 0);
    from = std::max(from, 0);
    if (k >= m_levelsPerType || from >= m_spec.machineCount())
        return -1;
    return firstBitFrom(atLeastRow(type, k), type, from);
}

int ClusterState::mostFreeMachine(int type) const
{
    // the lowest machine of the highest free level that holds one
    for (int l = m_levelsPerType - 1; l > 0; --l)
        if (levelCount(type, l) > 0)
            return firstBitFrom(levelRow(type, l), type, 0);
    return -1;
}

int ClusterState::bestFitMachine(int k, int type) const
{
    const auto [lo, hi] = m_typeWords[size_t(type + 1)];
    for (int l = std::max(k, 0); l < m_levelsPerType; ++l) {
        if (levelCount(type, l) == 0)
            continue;
        const uint64_t* row = levelRow(type, l);
        for (size_t w = lo; w < hi; ++w)
            if (row[w])
                return int(w * 64) + __builtin_ctzll(row[w]);
    }
    return -1;
}

int ClusterState::countMachinesWithFree(int k, int type) const
{
    int n = 0;
    for (int l = std::max(k, 1); l < m_levelsPerType; ++l)
        n += levelCount(type, l);
    return n;
}

int ClusterState::nthMachineWithFree(int k, int n, int type) const
{
    if (n < 0)
        return -1;
    // only the levels that hold a machine, over the words of the type's machines
    const auto [lo, hi] = m_typeWords[size_t(type + 1)];
    for (size_t w = lo; w < hi; ++w) {
        uint64_t bits = 0;
        for (int l = std::max(k, 1); l < m_levelsPerType; ++l)
            if (levelCount(type, l) > 0)
                bits |= levelRow(type, l)[w];
        const int c = popcount64(bits);
        if (n >= c) {
            n -= c;
            continue;
        }
        for (; n > 0; --n)
            bits &= bits - 1; // drop the lowest set bit
        return int(w * 64) + __builtin_ctzll(bits);
    }
    return -1;
}

int ClusterState::firstMachineWithFreeMilli(int milli, int from, int type) const
{
    if (!m_shares) {
        if (milli > 1000)
            return -1;
        if (milli > 0) // (a GPU with any share free is wholly free)
            return firstMachineWithFree(1, from, type);
        startShares();
    }
    return type < 0 ? m_maxMilli.firstAtLeast(milli, from) : m_maxMilliByType[size_t(type)].firstAtLeast(milli, from);
}

bool ClusterState::canAllocate(const std::vector<GpuSlot>& slots) const
{
    for (size_t i = 0; i < slots.size(); ++i) {
        const GpuSlot& s = slots[i];
        if (s.gpu < 0 || s.gpu >= m_spec.totalGpus() || s.milli <= 0 || s.milli > 1000)
            return false;
        if (m_gpuFree[size_t(s.gpu)] < s.milli)
            return false;
        for (size_t j = 0; j < i; ++j)
            if (slots[j].gpu == s.gpu)
                return false;
    }
    return true;
}

void ClusterState::refreshMachineMilli(int m)
{
    if (!m_shares)
        return;
    const Machine& mc = m_spec.machines[size_t(m)];
    const int best = maxFreeMilliOnGpus(m);
    if (m_maxMilli.get(m) == best)
        return; // (the per-type tree holds the same value for m)
    m_maxMilli.set(m, best);
    m_maxMilliByType[size_t(mc.type)].set(m, best);
}

void ClusterState::machineChanged(int m, int oldFree)
{
    const Machine& mc = m_spec.machines[size_t(m)];
    const int nf = m_freeWhole[size_t(m)];
    if (nf == oldFree)
        return;
    const uint64_t bit = 1ULL << (m % 64);
    if (nf > oldFree) {
        for (int k = oldFree + 1; k <= nf; ++k) {
            atLeastRow(-1, k)[m / 64] |= bit;
            atLeastRow(mc.type, k)[m / 64] |= bit;
        }
    } else {
        for (int k = nf + 1; k <= oldFree; ++k) {
            atLeastRow(-1, k)[m / 64] &= ~bit;
            atLeastRow(mc.type, k)[m / 64] &= ~bit;
        }
    }
    levelRow(-1, oldFree)[m / 64] &= ~bit;
    levelRow(-1, nf)[m / 64] |= bit;
    levelRow(mc.type, oldFree)[m / 64] &= ~bit;
    levelRow(mc.type, nf)[m / 64] |= bit;
    --levelCount(-1, oldFree);
    ++levelCount(-1, nf);
    --levelCount(mc.type, oldFree);
    ++levelCount(mc.type, nf);
    auto frag = [&](int f) { return (f > 0 && f < mc.gpus) ? f : 0; };
    m_fragFree += frag(nf) - frag(oldFree);
    const bool wasBusy = oldFree < mc.gpus, isBusy = nf < mc.gpus;
    m_busyMachines += int(isBusy) - int(wasBusy);
}

bool ClusterState::machineSeenBefore(const std::vector<GpuSlot>& slots, size_t i, int m) const
{
    for (size_t j = 0; j < i; ++j)
        if (m_spec.machineOfGpu(slots[j].gpu) == m)
            return true;
    return false;
}

void ClusterState::allocate(int job, const std::vector<GpuSlot>& slots)
{
    if (!canAllocate(slots))
        throw std::logic_error("ClusterState::allocate: slots not available");
    if (!m_shares)
        for (const GpuSlot& s : slots)
            if (s.milli < 1000) {
                startShares(); // (from the state before this allocation; its machines are refreshed below)
                break;
            }
    // slot by slot, the machine indices once per run of slots on one machine (the slots of one machine are
    // contiguous in every placement our policies make; a machine met again is simply refreshed again)
    for (size_t i = 0; i < slots.size();) {
        const int m = m_spec.machineOfGpu(slots[i].gpu);
        const int oldWhole = m_freeWhole[size_t(m)];
        if (!machineSeenBefore(slots, i, m))
            ++m_jobsOn[size_t(m)];
        for (; i < slots.size() && m_spec.machineOfGpu(slots[i].gpu) == m; ++i) {
            const GpuSlot& s = slots[i];
            int& free = m_gpuFree[size_t(s.gpu)];
            if (free == 1000) {
                --m_freeWhole[size_t(m)];
                --m_totalFreeWhole;
                --m_freeByType[size_t(m_spec.machines[size_t(m)].type)];
            }
            free -= s.milli;
            ++m_gpuHolders[size_t(s.gpu)];
            m_gpuOwner[size_t(s.gpu)] = job;
            m_usedMilli += s.milli;
        }
        machineChanged(m, oldWhole);
        refreshMachineMilli(m);
    }
}

void ClusterState::release(int job, const std::vector<GpuSlot>& slots)
{
    for (size_t i = 0; i < slots.size();) {
        const int m = m_spec.machineOfGpu(slots[i].gpu);
        const int oldWhole = m_freeWhole[size_t(m)];
        if (!machineSeenBefore(slots, i, m))
            --m_jobsOn[size_t(m)];
        for (; i < slots.size() && m_spec.machineOfGpu(slots[i].gpu) == m; ++i) {
            const GpuSlot& s = slots[i];
            int& free = m_gpuFree[size_t(s.gpu)];
            free += s.milli;
            if (free > 1000) {
                machineChanged(m, oldWhole);
                refreshMachineMilli(m);
                throw std::logic_error("ClusterState::release: GPU released more than held");
            }
            if (free == 1000) {
                ++m_freeWhole[size_t(m)];
                ++m_totalFreeWhole;
                ++m_freeByType[size_t(m_spec.machines[size_t(m)].type)];
            }
            --m_gpuHolders[size_t(s.gpu)];
            if (m_gpuHolders[size_t(s.gpu)] == 0)
                m_gpuOwner[size_t(s.gpu)] = -1;
            m_usedMilli -= s.milli;
        }
        machineChanged(m, oldWhole);
        refreshMachineMilli(m);
    }
    (void)job;
}

std::string ClusterState::checkConsistency() const
{
    int total = 0, frag = 0;
    int64_t used = 0;
    for (int m = 0; m < m_spec.machineCount(); ++m) {
        const Machine& mc = m_spec.machines[size_t(m)];
        int free = 0;
        for (int g = 0; g < mc.gpus; ++g) {
            const int v = m_gpuFree[size_t(m_spec.gpuBase(m) + g)];
            if (v < 0 || v > 1000)
                return "GPU " + std::to_string(m_spec.gpuBase(m) + g) + " has free share " + std::to_string(v);
            if (v == 1000)
                ++free;
            used += 1000 - v;
        }
        if (free != m_freeWhole[size_t(m)])
            return "machine " + std::to_string(m) + ": free count " + std::to_string(m_freeWhole[size_t(m)])
                + " but " + std::to_string(free) + " GPUs are free";
        for (int k = 0; k < m_levelsPerType; ++k)
            for (int t : {-1, mc.type})
                if (bool((atLeastRow(t, k)[m / 64] >> (m % 64)) & 1ULL) != (k <= free))
                    return "machine " + std::to_string(m) + ": first-fit index out of date at " + std::to_string(k)
                        + " free GPUs (type " + std::to_string(t) + ")";
        const int milli = maxFreeMilliOnGpus(m);
        if (maxFreeMilliOn(m) != milli || (m_shares && m_maxMilliByType[size_t(mc.type)].get(m) != milli))
            return "machine " + std::to_string(m) + ": largest free share " + std::to_string(maxFreeMilliOn(m))
                + " but a GPU has " + std::to_string(milli) + " free";
        if (!((levelRow(-1, free)[m / 64] >> (m % 64)) & 1ULL))
            return "machine " + std::to_string(m) + ": best-fit level index out of date";
        total += free;
        if (free > 0 && free < mc.gpus)
            frag += free;
    }
    if (total != m_totalFreeWhole)
        return "total free GPUs out of date";
    if (used != m_usedMilli)
        return "used share out of date";
    if (frag != m_fragFree)
        return "fragmentation counter out of date";
    for (int t = -1; t < int(m_spec.types.size()); ++t)
        for (int l = 0; l < m_levelsPerType; ++l) {
            int n = 0;
            for (size_t w = 0; w < m_words; ++w)
                n += popcount64(levelRow(t, l)[w]);
            if (n != levelCount(t, l))
                return "machines with " + std::to_string(l) + " free GPUs (type " + std::to_string(t) + "): count "
                    + std::to_string(levelCount(t, l)) + " but " + std::to_string(n) + " in the level index";
        }
    return {};
}

} // namespace ss
