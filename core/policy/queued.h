#pragma once
// Non-preemptive orderings over a pending queue: FIFO, SJF, EDF and DRF, each combined with a placement.
#include <map>
#include <set>
#include <tuple>
#include <string>
#include <utility>
#include <vector>

#include "policy/placement.h"
#include "policy/registry.h"

namespace ss {

enum class QueueOrder { Fifo, Sjf, Edf, Drf };

/// An ordering x a placement. Pending jobs are kept in buckets of equal shape (allowed types, GPUs, share)
/// so that a decision costs O(buckets) when nothing fits, instead of a walk over a long queue: a bucket whose
/// shape does not fit now is skipped whole (placement succeeds exactly when the capacity count allows).
class QueuedScheduler : public Scheduler {
public:
    QueuedScheduler(std::string name, QueueOrder order, PlacementKind placement, const PolicyOptions& opts);
    std::string name() const override { return m_name; }
    void reset(const SimSetup& setup) override;
    void schedule(SchedContext& ctx) override;
    void onJobStopped(int job, double now, bool finished, const JobRuntime& rt) override;

private:
    struct Item {
        double key;   // static part of the priority (smaller first): duration, deadline, 0
        uint64_t seq; // queue entry order (FIFO among equals)
        int job;
        bool operator<(const Item& o) const
        {
            if (key != o.key)
                return key < o.key;
            if (seq != o.seq)
                return seq < o.seq;
            return job < o.job;
        }
    };
    struct Bucket {
        int group = 0; // DRF: user index (-1 = jobs without a user); else 0
        int sig = 0;
        std::set<Item> items;
    };

    std::string m_name;
    QueueOrder m_order;
    PlacementKind m_place;
    bool m_backfill;
    size_t m_scan = 0;
    uint64_t m_seq = 0;
    std::vector<int> m_reenter;
    std::map<std::tuple<uint64_t, int, int>, int> m_sigIndex;
    std::map<std::pair<int, int>, int> m_bucketIndex;
    std::vector<Bucket> m_buckets;
    std::vector<int> m_jobBucket;
    std::vector<Item> m_jobItem;
    // DRF
    std::vector<double> m_userGpu, m_userCpu, m_userMem; ///< per tenant: users, then virtual clusters
    int m_tenantUsers = 0;
    std::vector<char> m_charged;
    const Trace* m_trace = nullptr;
    double m_capGpu = 1, m_capCpu = 0, m_capMem = 0;

    void enqueue(const SchedContext& ctx, int j);
    double staticKey(const SchedContext& ctx, int j) const;
    double groupPrimary(int group) const;
    double share(int user) const;
    int tenant(const Job& j) const;
    void recordRanking(SchedContext& ctx);
};

} // namespace ss
