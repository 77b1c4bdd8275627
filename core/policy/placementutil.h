#pragma once
// Building blocks of the built-in placements (core/policy only): allowed-type lists, index queries over
// ClusterState, taking GPUs, and the fewest-machines fill that spanning placements share.
#include <cstdint>
#include <vector>

#include "sim/engine.h"

namespace ss::placeutil {

/// The GPU types a job may use, or {-1} when it may use every type of the cluster (then the all-type
/// indices of ClusterState answer in one query). Fixed storage: no allocation per placement.
struct TypeList {
    int n = 0;
    int t[64];
    const int* begin() const { return t; }
    const int* end() const { return t + n; }
    size_t size() const { return size_t(n); }
    bool empty() const { return n == 0; }
    int operator[](size_t i) const { return t[i]; }
};

TypeList allowedTypes(const ClusterSpec& c, uint64_t mask);
bool machineAllowed(const ClusterSpec& c, int m, uint64_t mask);
int freeOfTypes(const ClusterState& s, const TypeList& types);
/// Lowest machine id >= from with >= k free whole GPUs (resp. a GPU with `milli` free) of an allowed type.
int firstWithFree(const ClusterState& s, const TypeList& types, int k, int from);
int firstWithMilli(const ClusterState& s, const TypeList& types, int milli, int from);
/// Machines (id order) with at least one whole free GPU (resp. a GPU with `milli` free) of an allowed type.
std::vector<int> machinesWithFree(const ClusterState& s, const TypeList& types);
std::vector<int> machinesWithMilli(const ClusterState& s, const TypeList& types, int milli);
/// Calls fn(m, free whole GPUs of m) for every machine with at least one free whole GPU of an allowed type, in
/// id order, through the state's free-level bitsets: a placement's scores for the decision log (every other
/// machine keeps -1) cost the machines with room, not the whole cluster.
template <class F> void forMachinesWithFree(const ClusterState& s, const TypeList& types, F fn)
{
    s.forMachinesWithFree(1, types.t, types.size(), [&](int m) { fn(m, s.freeGpus(m)); });
}
/// Takes n whole free GPUs of machine m, lowest index first.
void takeWhole(const ClusterState& s, const ClusterSpec& c, int m, int n, std::vector<GpuSlot>& out);
/// GPU of machine m whose free share >= milli is the smallest (largest = the largest); -1 when none.
int bestGpuOn(const ClusterState& s, const ClusterSpec& c, int m, int milli, bool largest);

/// Fill from the machines with the most free GPUs so the job spans as few machines as possible; the last
/// piece goes to the smallest machine that still covers the rest (keeps big holes for big jobs). On success
/// and when `scores` is given, the i-th machine taken scores `base + 1 / (1 + i)`, above every machine
/// not taken as long as those score below `base`.
bool fillFewest(const ClusterState& s, const ClusterSpec& c, std::vector<int> cand, int k, std::vector<GpuSlot>& out,
                std::vector<float>* scores, float base);

/// The common frame of a placement: the job's shape and types, and the scores vector (machine id order,
/// -1 = cannot take any part) sized when given.
struct Frame {
    const ClusterState& s;
    const ClusterSpec& c;
    const Job& job;
    uint64_t mask;
    TypeList types;
    int k;     ///< whole GPUs (0 for fractional jobs)
    int milli; ///< share of one GPU for fractional jobs
    bool fractional;
    int M;
    float maxG; ///< most GPUs on one machine (score scale)
    Frame(const SchedContext& ctx, int job, std::vector<float>* scores);
};

/// Whole job: the machine with the fewest free GPUs >= k of an allowed type (lowest id on ties); -1 = none.
int tightestMachine(const Frame& f);
/// Fractional job: the GPU whose free share exceeds the demand least (lowest id on ties). Scores: each
/// machine with a GPU that fits, 1 / (1 + the least slack there in GPUs); 1 = an exact fit.
bool placeTightestShare(const Frame& f, std::vector<GpuSlot>& out, std::vector<float>* scores);

} // namespace ss::placeutil
