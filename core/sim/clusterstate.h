#pragma once
// Which GPU is held by which job, with indices that answer placement queries in O(log machines).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "model/clusterspec.h"

namespace ss {

/// A share of one GPU held by a job: whole-GPU jobs hold milli = 1000 on each of their GPUs.
struct GpuSlot {
    int gpu = 0;     ///< global GPU index (see ClusterSpec::gpuBase)
    int milli = 1000;
    bool operator==(const GpuSlot&) const = default;
};

/// Max segment tree over machines, answering "first machine at or after `from` with value >= k".
class MaxSegTree {
public:
    void init(int n);
    void set(int i, int v);
    int get(int i) const { return m_t[size_t(m_size + i)]; }
    int max() const { return m_t[1]; }
    int firstAtLeast(int k, int from = 0) const; ///< -1 when none
    int argMax() const;                          ///< lowest index holding the max; -1 when empty
private:
    int m_size = 1;
    int m_n = 0;
    std::vector<int> m_t;
};

/// Live occupancy of the cluster. Mutated only by the engine (allocate/release); policies read it.
class ClusterState {
public:
    explicit ClusterState(const ClusterSpec& spec);
    const ClusterSpec& spec() const { return m_spec; }

    int freeGpus(int m) const { return m_freeWhole[size_t(m)]; }    ///< GPUs of m nobody holds any share of
    int totalFreeGpus() const { return m_totalFreeWhole; }
    int freeGpusOfType(int type) const { return m_freeByType[size_t(type)]; }
    int gpuFreeMilli(int g) const { return m_gpuFree[size_t(g)]; }
    int jobsOnMachine(int m) const { return m_jobsOn[size_t(m)]; }  ///< distinct running jobs with a share on m
    int gpuHolderCount(int g) const { return m_gpuHolders[size_t(g)]; }
    /// The job holding GPU g; for a shared GPU, the most recent holder; -1 when free.
    int gpuOwner(int g) const { return m_gpuOwner[size_t(g)]; }
    int64_t usedMilli() const { return m_usedMilli; }             ///< sum of held shares, 1000 per whole GPU
    /// Free GPUs on machines that are partly busy (fragmented capacity), whole GPUs.
    int fragmentedFreeGpus() const { return m_fragFree; }
    int busyMachines() const { return m_busyMachines; }

    /// First machine (>= from) with at least k free GPUs; type = -1 for any type.
    int firstMachineWithFree(int k, int from = 0, int type = -1) const;
    /// Machine with the most free GPUs (lowest id on ties); -1 when none free.
    int mostFreeMachine(int type = -1) const;
    /// Machine whose free count is the smallest that is still >= k (lowest id on ties); -1 when none.
    int bestFitMachine(int k, int type = -1) const;
    /// Machines with at least k free GPUs (type = -1: any type), counted, and the n-th of them in id order
    /// (0-based; -1 when fewer): O(machines / 64) per level, for placements that draw among them.
    int countMachinesWithFree(int k, int type = -1) const;
    int nthMachineWithFree(int k, int n, int type = -1) const;
    /// Calls fn(m) for every machine with at least k >= 1 free GPUs of one of the `n` types at `types` (a single
    /// -1: any type), in id order: one pass over the words of the types' rows (scores over every machine with
    /// room). fn must not change the state.
    template <class F> void forMachinesWithFree(int k, const int* types, size_t n, F fn) const
    {
        if (k < 1 || k >= m_levelsPerType || n == 0)
            return;
        size_t lo = m_words, hi = 0;
        for (size_t i = 0; i < n; ++i) {
            lo = std::min(lo, m_typeWords[size_t(types[i] + 1)].first);
            hi = std::max(hi, m_typeWords[size_t(types[i] + 1)].second);
        }
        for (size_t w = lo; w < hi; ++w) {
            uint64_t bits = 0;
            for (size_t i = 0; i < n; ++i)
                bits |= atLeastRow(types[i], k)[w];
            while (bits) {
                fn(int(w * 64) + __builtin_ctzll(bits));
                bits &= bits - 1;
            }
        }
    }
    /// First machine (>= from) with a GPU that has at least `milli` free; -1 when none.
    int firstMachineWithFreeMilli(int milli, int from = 0, int type = -1) const;
    /// Largest free share on any one GPU of machine m.
    int maxFreeMilliOn(int m) const { return m_shares ? m_maxMilli.get(m) : (m_freeWhole[size_t(m)] > 0 ? 1000 : 0); }

    /// Whether `slots` can be granted now (all distinct GPUs, shares available). Does not check the job.
    bool canAllocate(const std::vector<GpuSlot>& slots) const;
    void allocate(int job, const std::vector<GpuSlot>& slots);
    void release(int job, const std::vector<GpuSlot>& slots);

    /// Recompute every index from scratch and compare (tests and --check-invariants). Empty when consistent.
    std::string checkConsistency() const;

private:
    const ClusterSpec& m_spec;
    std::vector<int> m_freeWhole, m_gpuFree, m_gpuHolders, m_gpuOwner, m_jobsOn, m_freeByType;
    int m_totalFreeWhole = 0;
    int64_t m_usedMilli = 0;
    int m_fragFree = 0;
    int m_busyMachines = 0;
    // largest free share of a GPU per machine, in max segment trees over machines (one for all, one per GPU
    // type holding -1 for other machines), kept from the first share of a GPU held (m_shares); until then every
    // GPU is wholly free or wholly held, so a machine's is 1000 when it has a free GPU and 0 otherwise
    // (whole-GPU runs, nearly all, do not pay for these trees at every start and stop)
    mutable MaxSegTree m_maxMilli;
    mutable std::vector<MaxSegTree> m_maxMilliByType;
    mutable bool m_shares = false;
    void startShares() const;
    int maxFreeMilliOnGpus(int m) const; // from the GPUs' free shares
    // machines by free level (for best fit) as bitsets over machines: slot (type+1)*(maxGpus+1)+free, slot
    // type = -1 for any type. Finding the lowest machine of a level scans the words of the type's machines.
    // m_atLeastBits: the same slots, a machine in every row up to its free count (first fit: the first machine
    // at or after `from` with at least k free is the next bit of one row).
    std::vector<uint64_t> m_levelBits, m_atLeastBits;
    size_t m_words = 0;
    int m_levelsPerType = 0;
    // the machines in each row (same slots as the rows), and per slot type + 1 the words that can hold a bit
    // (a type's machines are often a run of ids: its rows are scanned over that run only)
    std::vector<int> m_levelCount;
    std::vector<std::pair<size_t, size_t>> m_typeWords;
    int& levelCount(int type, int free) { return m_levelCount[size_t(type + 1) * size_t(m_levelsPerType) + size_t(free)]; }
    int levelCount(int type, int free) const { return m_levelCount[size_t(type + 1) * size_t(m_levelsPerType) + size_t(free)]; }
    uint64_t* levelRow(int type, int free) { return &m_levelBits[(size_t(type + 1) * size_t(m_levelsPerType) + size_t(free)) * m_words]; }
    const uint64_t* levelRow(int type, int free) const { return &m_levelBits[(size_t(type + 1) * size_t(m_levelsPerType) + size_t(free)) * m_words]; }
    uint64_t* atLeastRow(int type, int k) { return &m_atLeastBits[(size_t(type + 1) * size_t(m_levelsPerType) + size_t(k)) * m_words]; }
    const uint64_t* atLeastRow(int type, int k) const { return &m_atLeastBits[(size_t(type + 1) * size_t(m_levelsPerType) + size_t(k)) * m_words]; }
    int firstBitFrom(const uint64_t* row, int type, int from) const;
    void machineChanged(int m, int oldFree);
    void refreshMachineMilli(int m);
    /// Whether a slot before slots[i] is on machine m.
    bool machineSeenBefore(const std::vector<GpuSlot>& slots, size_t i, int m) const;
};

} // namespace ss
