// SchedContext's decision-log side: the queue as ranked, placement attempts with their scores, Gavel's allocation
// and the learned critic's values, gathered into the decision record the engine hands to observers (engine.h).
#include "sim/engine.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ss {

namespace {

typedef float F4 __attribute__((vector_size(16)));
typedef int I4 __attribute__((vector_size(16)));

// No strict order among NaNs: a partial sort of every index, as it always was.
std::vector<uint32_t> topAffinityWithNan(const std::vector<float>& score, size_t k)
{
    std::vector<uint32_t> idx(score.size());
    for (size_t i = 0; i < idx.size(); ++i)
        idx[i] = uint32_t(i);
    std::partial_sort(idx.begin(), idx.begin() + long(k), idx.end(), [&](uint32_t a, uint32_t b) {
        if (score[a] != score[b])
            return score[a] > score[b];
        return a < b;
    });
    idx.resize(k);
    std::sort(idx.begin(), idx.end());
    return idx;
}

} // namespace

std::vector<uint32_t> topAffinity(const std::vector<float>& score, size_t k)
{
    k = std::min(k, score.size());
    std::vector<uint32_t> idx;
    if (k == 0)
        return idx;
    const float* s = score.data();
    const size_t n = score.size();
    for (size_t i = 0; i < k; ++i)
        if (std::isnan(s[i]))
            return topAffinityWithNan(score, k);
    // One pass in id order: the K best so far (highest score, lowest id on ties) and after them the machines met
    // since with a score strictly above the least of those K (on a tie the earlier id wins, so a later machine at
    // that score is out). When 4K are held, a selection keeps the K best and the least of them is the new floor: a
    // candidate costs an append, not a heap's dozen comparisons (the placements fill the lowest ids first, so the
    // first K machines are mostly full, score -1, and most machines with room come in before the floor rises).
    // Candidates are held as one integer each that orders as (score descending, id ascending), so a selection
    // compares plain integers. A block of machines none of which is above the floor nor NaN (!(v <= floor) is
    // true for both) is passed with one branch, so most of the machines cost a comparison without a branch; a NaN
    // anywhere sends the whole vector to the partial sort.
    auto key = [&](uint32_t i) {
        const float v = s[i] + 0.0f; // -0 as +0: they tie, as the scores compare
        uint32_t b;
        std::memcpy(&b, &v, sizeof b);
        b ^= (b >> 31) != 0 ? 0xFFFFFFFFu : 0x80000000u; // ascending with the score
        return uint64_t(~b) << 32 | i;
    };
    auto floorOf = [&](uint64_t kk) { return s[uint32_t(kk)]; };
    const size_t hold = 4 * k;
    std::vector<uint64_t> best;
    best.reserve(hold);
    for (uint32_t i = 0; i < uint32_t(k); ++i)
        best.push_back(key(i));
    float floor = floorOf(*std::max_element(best.begin(), best.end()));
    auto keepBest = [&] {
        std::nth_element(best.begin(), best.begin() + long(k - 1), best.end());
        best.resize(k);
        floor = floorOf(best[k - 1]);
    };
    constexpr size_t kBlock = 16;
    size_t i = k;
    for (;;) {
        const size_t end = i + kBlock <= n ? i + kBlock : n;
        if (i == end)
            break;
        if (end - i == kBlock) {
            // four lanes at a time (GCC's vector extension: SSE on x86-64, plain code elsewhere)
            const F4 fl = {floor, floor, floor, floor};
            I4 hit = {0, 0, 0, 0};
            for (size_t b = 0; b < kBlock; b += 4) {
                F4 v;
                std::memcpy(&v, s + i + b, sizeof v);
                hit |= ~(v <= fl);
            }
            if ((hit[0] | hit[1] | hit[2] | hit[3]) == 0) {
                i = end;
                continue;
            }
        }
        for (; i < end; ++i) {
            if (s[i] <= floor)
                continue;
            if (std::isnan(s[i]))
                return topAffinityWithNan(score, k);
            best.push_back(key(uint32_t(i)));
            if (best.size() == hold)
                keepBest();
        }
    }
    if (best.size() > k)
        keepBest();
    idx.reserve(k);
    for (const uint64_t kk : best)
        idx.push_back(uint32_t(kk));
    std::sort(idx.begin(), idx.end());
    return idx;
}

void SchedContext::recordQueue(std::vector<ScoredJob> ranked)
{
    if (!m_record)
        return;
    m_record->queueLength = int(ranked.size());
    if (int(ranked.size()) > m_sim.m_cfg.logQueueLimit)
        ranked.resize(size_t(m_sim.m_cfg.logQueueLimit));
    m_record->queue = std::move(ranked);
}

void SchedContext::recordQueue(std::vector<ScoredJob> ranked, int total)
{
    if (!m_record)
        return;
    recordQueue(std::move(ranked));
    m_record->queueLength = std::max(m_record->queueLength, total);
}

int SchedContext::logQueueLimit() const { return m_sim.m_cfg.logQueueLimit; }

bool SchedContext::placementScoresKept() const
{
    return m_record && int(m_record->placements.size()) < m_sim.m_cfg.logPlacementLimit;
}

void SchedContext::recordAllocation(AllocationRecord allocation)
{
    if (m_record)
        m_record->allocation = std::move(allocation);
}

void SchedContext::recordCritic(char kind, float value, int job, std::vector<float> perMachine)
{
    if (!m_record)
        return;
    m_record->criticKind = kind;
    m_record->criticValue = value;
    if (job < 0 || perMachine.empty())
        return;
    // The job's latest record at this decision (failed attempts are not indexed by loggedPlacement).
    for (auto it = m_record->placements.rbegin(); it != m_record->placements.rend(); ++it) {
        if (it->job != job)
            continue;
        if (it->affinity.empty())
            return; // past the log's placement limit: kept without scores
        it->critic.clear();
        if (it->machines.empty())
            it->critic = std::move(perMachine);
        else
            for (uint32_t m : it->machines)
                it->critic.push_back(m < perMachine.size() ? perMachine[m] : kNoScore);
        return;
    }
}

PlacementRecord* SchedContext::loggedPlacement(int job)
{
    if (!m_record || job < 0 || size_t(job) >= m_logStamp.size() || m_logStamp[size_t(job)] != m_logEpoch)
        return nullptr;
    const size_t i = m_logIdx[size_t(job)];
    if (i >= m_record->placements.size() || m_record->placements[i].job != job)
        return nullptr;
    return &m_record->placements[i];
}

void SchedContext::noteLogged(int job, size_t index)
{
    if (job < 0)
        return;
    if (size_t(job) >= m_logStamp.size()) {
        m_logStamp.resize(std::max(size_t(job) + 1, m_logStamp.size() * 2), 0);
        m_logIdx.resize(m_logStamp.size(), 0);
    }
    m_logStamp[size_t(job)] = m_logEpoch;
    m_logIdx[size_t(job)] = uint32_t(index);
}

void SchedContext::recordPlacement(int job, const std::vector<GpuSlot>& slots, std::vector<float> affinity,
                                   std::string reason, std::vector<float> affinityVar, std::vector<float> rwgpMean,
                                   std::vector<float> rwgpVar)
{
    if (!m_record)
        return;
    const bool over = int(m_record->placements.size()) >= m_sim.m_cfg.logPlacementLimit;
    if (over && slots.empty())
        return; // failed attempts past the limit are dropped
    if (over) {
        // a start past the limit is kept, without its scores (they are what makes a record big)
        affinity.clear();
        affinityVar.clear();
        rwgpMean.clear();
        rwgpVar.clear();
    }
    PlacementRecord pr;
    pr.job = job;
    pr.slots = slots;
    pr.reason = std::move(reason);
    const int M = m_sim.m_cluster.machineCount();
    if (!affinity.empty() && M > m_sim.m_cfg.denseAffinityMaxMachines) {
        // keep the best K machines only (highest score, lowest id on ties), in id order
        std::vector<uint32_t> idx = topAffinity(affinity, size_t(m_sim.m_cfg.sparseAffinityTopK));
        pr.affinity.reserve(idx.size());
        if (!affinityVar.empty())
            pr.affinityVar.reserve(idx.size());
        for (uint32_t i : idx) {
            pr.affinity.push_back(affinity[i]);
            if (!affinityVar.empty())
                pr.affinityVar.push_back(affinityVar[i]);
            if (i < rwgpMean.size() && i < rwgpVar.size()) {
                pr.rwgpMean.push_back(rwgpMean[i]);
                pr.rwgpVar.push_back(rwgpVar[i]);
            }
        }
        pr.machines = std::move(idx);
        if (affinity.capacity() > m_scoreRow.capacity())
            m_scoreRow = std::move(affinity); // the next attempt's row (takeScoreRow)
    } else {
        pr.affinity = std::move(affinity);
        pr.affinityVar = std::move(affinityVar);
        pr.rwgpMean = std::move(rwgpMean);
        pr.rwgpVar = std::move(rwgpVar);
    }
    // replace an earlier record of the same job (e.g. made by start() with only a reason)
    if (PlacementRecord* p = loggedPlacement(job); p && p->slots == slots && p->affinity.empty()) {
        if (pr.reason.empty())
            pr.reason = std::move(p->reason);
        *p = std::move(pr);
        return;
    }
    if (!slots.empty())
        noteLogged(job, m_record->placements.size());
    m_record->placements.push_back(std::move(pr));
}

} // namespace ss
