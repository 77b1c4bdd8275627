#pragma once
// The driver of non-preemptive composite policies: an admission stage x an Ordering x a Placement.
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <string>
#include <utility>
#include <vector>

#include "policy/registry.h"
#include "policy/stages.h"

namespace ss {

/// Pending jobs are kept in buckets of equal shape (allowed types, GPUs, share) and ordering group, sorted
/// by the ordering's static key, so that a decision costs O(buckets) when nothing fits, instead of a walk over
/// a long queue: a bucket whose shape does not fit now is skipped whole (placement succeeds exactly when the
/// capacity count allows, canPlaceNow).
class QueuedScheduler : public Scheduler {
public:
    QueuedScheduler(std::string name, std::unique_ptr<Ordering> ordering, std::unique_ptr<Placement> placement,
                    std::unique_ptr<Admission> admission, const PolicyOptions& opts);
    std::string name() const override { return m_name; }
    void reset(const SimSetup& setup) override;
    void schedule(SchedContext& ctx) override;
    void onJobStopped(int job, double now, bool finished, const JobRuntime& rt) override;
    bool hasAdmission() const override { return true; }
    AdmissionRecord admit(const SchedContext& ctx, int job) override;
    std::unique_ptr<Scheduler> clone() const override;

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
        int group = 0; // the ordering's group (DRF: tenant, -1 = none); else 0
        int sig = 0;
        std::set<Item> items;
    };

    std::string m_name;
    StagePtr<Ordering> m_order;
    StagePtr<Placement> m_place;
    StagePtr<Admission> m_admit;
    bool m_grouped;
    bool m_backfill;
    size_t m_scan = 0;
    uint64_t m_seq = 0;
    std::vector<int> m_reenter;
    std::map<std::tuple<uint64_t, int, int>, int> m_sigIndex;
    std::map<std::pair<int, int>, int> m_bucketIndex;
    std::vector<Bucket> m_buckets;
    std::vector<int> m_jobBucket;
    const Trace* m_trace = nullptr;

    void enqueue(const SchedContext& ctx, int j);
    double groupKey(int group) const { return m_grouped ? m_order->groupKey(group) : 0.0; }
    void recordRanking(SchedContext& ctx);
};

} // namespace ss
