#pragma once
// The three stages of a composite policy, as narrow plug-in interfaces over the engine's read-only view
// (blox: admission, scheduling and placement policies). A composite "ORDERING+PLACEMENT" is admission x
// ordering x placement; joint policies implement Scheduler directly. Each stage reports the scores it decided
// by, so that the decision log shows exactly what chose. Register implementations in core/policy/registry.h.
#include <memory>
#include <string>
#include <vector>

#include "sim/engine.h"

namespace ss {

struct PolicyOptions;
class Placement;

/// Admission: accept, reject or defer a job that arrived (or was deferred at the previous decision), with a
/// score and a reason. The engine applies it before the ordering sees the job (Scheduler::admit).
class Admission {
public:
    virtual ~Admission() = default;
    virtual void reset(const SimSetup& setup) {}
    /// The verdict; record.job is set by the caller. Reject ends the job (JobStatus::Rejected).
    virtual AdmissionRecord admit(const SchedContext& ctx, int job) = 0;
    /// A copy with all its per-run state (Scheduler::clone); null = cannot be copied.
    virtual std::unique_ptr<Admission> clone() const { return nullptr; }
};

/// A queued job as the ordering sorted it: served in (groupKey, staticKey, queue entry) order.
struct QueuedJob {
    int job = 0;
    double groupKey = 0;
    double staticKey = 0;
};

/// Ordering: which pending job is served next. Non-preemptive orderings are driven by QueuedScheduler
/// (jobs in buckets of equal shape, sorted by a key fixed while they wait, optionally behind a per-group
/// key such as DRF's dominant share); preemptive ones supply their own driver (drive()).
class Ordering {
public:
    virtual ~Ordering() = default;
    const std::string& name() const { return m_name; }
    void setName(std::string n) { m_name = std::move(n); }
    virtual void reset(const SimSetup& setup) {}
    /// The part of the sort key fixed while the job waits (smaller first): its duration, its deadline; 0 =
    /// queue order.
    virtual double staticKey(const SchedContext& ctx, int job) const { return 0.0; }
    /// Group whose shared key sorts before the static key (DRF: the job's tenant); 0 = all in one group.
    virtual int group(const Job& job) const { return 0; }
    /// A group's current key (smaller first), read at every decision.
    virtual double groupKey(int group) const { return 0.0; }
    /// Whether group keys can differ (false: the driver skips them).
    virtual bool grouped() const { return false; }
    virtual void onStarted(int job, const Job& j) {}
    virtual void onStopped(int job, const Job& j) {}
    /// Priorities for the decision log of the queue in served order (higher = served first, in units a
    /// person can read: hours waited, -hours of work, ...). Called only when the decision is recorded.
    virtual std::vector<ScoredJob> rank(const SchedContext& ctx, const std::vector<QueuedJob>& served) const = 0;
    /// A driver of its own (preemptive orderings) taking the placement and admission; null = QueuedScheduler.
    virtual std::unique_ptr<Scheduler> drive(const std::string& name, std::unique_ptr<Placement>& placement,
                                             std::unique_ptr<Admission>& admission, const PolicyOptions& opts)
    {
        return nullptr;
    }
    /// A copy with all its per-run state (Scheduler::clone); null = cannot be copied.
    virtual std::unique_ptr<Ordering> clone() const { return nullptr; }

private:
    std::string m_name;
};

/// Placement: which GPUs a job gets once the ordering has picked it.
class Placement {
public:
    virtual ~Placement() = default;
    const std::string& name() const { return m_name; }
    void setName(std::string n) { m_name = std::move(n); }
    virtual void reset(const SimSetup& setup) {}
    /// Chooses GPUs for `job` on the current occupancy; false (and `out` empty) when it does not fit. When
    /// `scores` is given (only when the decision is recorded), the same code fills one score per machine
    /// (machine id order, higher = preferred, -1 = cannot take any part of the job): every machine it chose
    /// scores at least as high as every machine it did not. A placement that fails draws no random number.
    virtual bool place(SchedContext& ctx, int job, std::vector<GpuSlot>& out, std::vector<float>* scores) = 0;
    /// A copy with all its per-run state (Scheduler::clone); null = cannot be copied.
    virtual std::unique_ptr<Placement> clone() const { return nullptr; }
    /// Where placeAndStart has the GPUs chosen (kept from start to start, so a start allocates nothing).
    std::vector<GpuSlot>& slotScratch() { return m_slots; }

private:
    std::string m_name;
    std::vector<GpuSlot> m_slots;
};

/// A stage a policy owns, copied with the stage's clone() when the policy is copied (Scheduler::clone): a policy
/// holding its stages in StagePtrs gets its copy constructor for free. A copy of a stage that cannot clone is
/// empty, so the policy's clone() checks its stages and returns null then.
template <class T> class StagePtr {
public:
    StagePtr() = default;
    StagePtr(std::unique_ptr<T> p) : m_p(std::move(p)) {}
    StagePtr(const StagePtr& o) : m_p(o.m_p ? o.m_p->clone() : nullptr) {}
    StagePtr(StagePtr&&) noexcept = default;
    StagePtr& operator=(const StagePtr& o)
    {
        if (this != &o)
            m_p = o.m_p ? o.m_p->clone() : nullptr;
        return *this;
    }
    StagePtr& operator=(StagePtr&&) noexcept = default;
    T* operator->() const { return m_p.get(); }
    T& operator*() const { return *m_p; }
    T* get() const { return m_p.get(); }
    explicit operator bool() const { return m_p != nullptr; }

private:
    std::unique_ptr<T> m_p;
};

} // namespace ss
