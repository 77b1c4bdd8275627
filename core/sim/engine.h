#pragma once
// The discrete-event engine. Events: arrivals, completions, and wake-ups a policy asks for (rounds,
// leases, queue-threshold crossings). At each decision point the policy gets a SchedContext: a read-only
// view of the cluster and jobs plus validated actions (start, preempt, wakeAt). Observers (metrics, logs)
// subscribe to what happens; the engine computes no reports itself.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/clusterspec.h"
#include "model/job.h"
#include "model/rng.h"
#include "perf/perfmodel.h"
#include "sim/clusterstate.h"
#include "sim/decisionlog.h"

namespace ss {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Deferred: arrived, waiting for the admission stage to accept it (re-offered at each decision).
enum class JobStatus : uint8_t { Future, Pending, Running, Done, Rejected, Unfinished, Deferred };
const char* toString(JobStatus s);

/// What the engine knows about a job while it runs. Work is in reference-seconds.
struct alignas(64) JobRuntime {
    // The fields that stopping, starting and re-rating a job read and write come first, in one cache line (the
    // struct is aligned to one): a decision re-rates the co-runners of every job it starts or stops, jobs
    // scattered over an array of a million.
    JobStatus status = JobStatus::Future;
    /// A placement on several machines without a partner: how many of its machines are the busiest (hold
    /// coRunners + 1 jobs), so a stop there lowers coRunners without a pass over the machines until the last one
    /// goes (Simulator::refreshRatesOn). 0 otherwise.
    uint16_t busiest = 0;
    int coRunners = 0;       ///< other jobs on the busiest machine of the placement
    int machines = 0;        ///< machines spanned by the current placement
    /// Space sharing (SchedContext::startShared): the job sharing this job's GPUs, -1 when it runs alone; the
    /// pair's speed factor (co-located over alone) is part of baseRate while the partner runs.
    int partner = -1;
    double remaining = 0;    ///< reference-seconds of work left (as of lastUpdate)
    double rate = 0;         ///< reference-seconds of work per wall second while running
    double baseRate = 0;     ///< rate before co-location interference (fixed for a placement)
    double lastUpdate = 0;   ///< time `remaining` was last brought up to date
    double resumeAt = 0;     ///< while restoring a checkpoint, no progress before this time
    uint32_t version = 0;    ///< bumps when the completion time changes (stale heap entries are skipped)
    int machine = -1;        ///< the placement's machine when it spans one (machines == 1)
    uint32_t queueSeq = 0;   ///< entry id in the pending queue
    double firstStart = -1;
    double lastStart = -1;
    double end = -1;
    double executed = 0;     ///< wall seconds spent running (before the current run segment)
    double attained = 0;     ///< GPU-seconds of service (before the current run segment)
    double enqueuedAt = 0;   ///< when the job last joined the pending queue
    int preemptions = 0;
    int failures = 0;        ///< times requeued because a machine it ran on failed (counted in preemptions too)
    uint64_t typeMask = ~0ULL; ///< GPU types this job may use (bit = ClusterSpec type index)
    std::vector<GpuSlot> slots; ///< GPUs held while running
    double pairFactor = 1;

    /// Wall seconds run so far, including the current segment, at time `now`.
    double executedAt(double now) const;
    /// GPU-seconds attained so far, including the current segment, at time `now`.
    double attainedAt(double now, double gpus) const;
    /// Work left at `now` (reference-seconds).
    double remainingAt(double now) const;
};
static_assert(offsetof(JobRuntime, machine) + sizeof(int) <= 64, "JobRuntime: the re-rating fields span one line");

struct RunConfig {
    uint64_t seed = 1;
    PerfConfig perf;
    bool recordDecisions = false;  ///< build DecisionRecords for observers (costs time on big runs)
    int logQueueLimit = 1000;      ///< queued jobs kept per record (highest priority first)
    int logPlacementLimit = 64;    ///< failed placement attempts kept per record, and the placements that keep
                                   ///< their affinity scores; every start is recorded (without scores past it)
    int denseAffinityMaxMachines = 512; ///< up to this many machines, every machine's affinity is kept
    int sparseAffinityTopK = 32;   ///< above it, only the best K machines are kept
    double maxTime = kInf;         ///< stop the clock here (jobs still running become Unfinished)
    bool checkInvariants = false;  ///< full consistency check after every decision, and an independent ledger
                                   ///< of every event (sim/invariants.h); SCHEDSTUDIO_CHECK_INVARIANTS=1 turns
                                   ///< on the ledger for every run
};

/// What a decision record keeps when nothing says otherwise: RunConfig's limits up to 100,000 jobs; above (a 1M-job
/// run makes millions of records), the first 100 queued jobs (every record still keeps the queue's full length) and
/// 8 placements with their scores (every start is still recorded).
constexpr size_t kLogBigTrace = 100000;
constexpr int kLogQueueBig = 100;
constexpr int kLogPlacementsBig = 8;
inline void applyLogLimitsFor(size_t jobs, RunConfig& cfg, bool queueGiven)
{
    if (jobs <= kLogBigTrace)
        return;
    if (!queueGiven)
        cfg.logQueueLimit = kLogQueueBig;
    cfg.logPlacementLimit = std::min(cfg.logPlacementLimit, kLogPlacementsBig);
}

class Simulator;
class SimSnapshot;
class SchedContext;
class InvariantChecker;

/// A policy invalid action (double booking, unknown job, ...) — a bug in the policy.
class PolicyError : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

/// What a run is made of, handed to policies and observers at the start.
struct SimSetup {
    const ClusterSpec& cluster;
    const Trace& trace;
    const PerfModel& perf;
    const RunConfig& config;
};

/// A scheduling policy. One instance per run; it may keep per-run state (no globals).
class Scheduler {
public:
    virtual ~Scheduler() = default;
    virtual std::string name() const = 0;
    /// Called once before the first event.
    virtual void reset(const SimSetup& setup) {}
    /// Decide at one decision point: start and preempt jobs through ctx, record scores when ctx.recording().
    virtual void schedule(SchedContext& ctx) = 0;
    /// A job left the cluster (finished = true) or was preempted.
    virtual void onJobStopped(int job, double now, bool finished, const JobRuntime& rt) {}
    /// A job was started by this policy and its realised rate is known (for learning policies).
    virtual void onJobStarted(int job, double now, const JobRuntime& rt) {}
    /// Whether the policy has an admission stage (composites). Then the engine asks admit() for a verdict on
    /// each arriving job before the decision, and again at each later decision while it defers the job.
    virtual bool hasAdmission() const { return false; }
    /// Accept (the job joins the queue), reject (JobStatus::Rejected, onJobRejected with the reason) or
    /// defer (JobStatus::Deferred until a later verdict), with a score and a reason for the decision log.
    virtual AdmissionRecord admit(const SchedContext& ctx, int job) { return {job, Admit::Accept, kNoScore, {}}; }
    /// Named figures the policy reports about its own run once it is over (Chronus: SLO jobs accepted, lease
    /// solver time), in a fixed order; the runner copies them into the run's summary.
    virtual std::vector<std::pair<std::string, double>> runStats() const { return {}; }
    /// A copy of this policy's whole per-run state (queues, caches, its own random streams; immutable data such
    /// as a learned model's weights may be shared read-only), so that a snapshot of the run continues bit for bit
    /// (Simulator::snapshot). Null = this policy cannot be snapshotted: forks replay its run from decision 1.
    virtual std::unique_ptr<Scheduler> clone() const { return nullptr; }
    /// A clone now serves the simulator whose setup this is: a policy that keeps pointers into the SimSetup it
    /// was reset with (its perf model, config) re-points them here. Cluster and trace are the same objects.
    virtual void rebind(const SimSetup& setup) {}
    /// Whether, within one call of schedule(), the policy (and its stages) reads no running job's `rate`,
    /// `coRunners` or completion time but the one it just started. Then the engine re-rates the co-runners of the
    /// jobs it starts and stops there (co-location interference) once, when schedule() returns, instead of at
    /// each start and stop: a job preempted and another started on the same machine leave its other jobs' rates
    /// as they were. Work left now (JobRuntime::remainingAt) reads the same either way. Off by default.
    virtual bool reratesAfterDecision() const { return false; }
};

/// Subscribers to what the engine does (metrics, logs, the GUI).
class SimObserver {
public:
    virtual ~SimObserver() = default;
    virtual void onRunStart(const SimSetup& setup) {}
    virtual void onJobArrived(double t, int job) {}
    virtual void onJobRejected(double t, int job, std::string_view why) {}
    virtual void onJobStarted(double t, int job, const JobRuntime& rt) {}
    /// Preempted (finished = false) or completed; rt.slots still lists the GPUs it released.
    virtual void onJobStopped(double t, int job, const JobRuntime& rt, bool finished) {}
    virtual void onDecision(const DecisionRecord& record) {}
    virtual void onRunEnd(double t) {}
};

/// A pending queue in enqueue order with O(1) amortised removal (stale entries are skipped).
class PendingQueue {
public:
    struct Entry {
        int job;
        uint32_t seq;
    };
    void push(int job, uint32_t seq) { m_items.push_back({job, seq}); ++m_live; }
    void markRemoved() { --m_live; }
    int size() const { return m_live; }
    bool empty() const { return m_live == 0; }
    const std::vector<Entry>& raw() const { return m_items; }
    template <class Live> void compactIfSparse(Live isLive)
    {
        if (m_items.size() < 64 || size_t(m_live) * 2 > m_items.size())
            return;
        size_t w = 0;
        for (const Entry& e : m_items)
            if (isLive(e))
                m_items[w++] = e;
        m_items.resize(w);
    }
private:
    std::vector<Entry> m_items;
    int m_live = 0;
};

/// A policy's view of one decision point, and its only way to act.
class SchedContext {
public:
    double now() const;
    const ClusterSpec& cluster() const;
    const ClusterState& state() const;
    const Trace& trace() const;
    const PerfModel& perf() const;
    const RunConfig& config() const;
    int jobCount() const;
    const Job& job(int j) const;
    const JobRuntime& rt(int j) const;
    /// Pending jobs in the order they joined the queue (oldest first).
    std::vector<int> pendingJobs() const;
    int pendingCount() const;
    /// Calls f(job) for each pending job in queue order; f returns false to stop early. No allocation.
    template <class F> void forEachPending(F f) const;
    const std::vector<int>& runningJobs() const;
    /// Where a running job is in runningJobs() (-1 when it is not running).
    int runningPosition(int job) const;
    /// Machine m failed or is draining (scenario events, what-if forks): nothing new may start on it; its free
    /// GPUs are held by kOfflineHolder.
    bool machineOffline(int m) const;
    /// The policy's own random stream (independent of the performance model's).
    Rng& rng();
    /// Jobs accepted at this decision after an earlier deferral (new arrivals are Pending in index order).
    const std::vector<int>& admittedLate() const;
    /// Jobs whose completion time the engine set (JobRuntime::version bumped: started, re-rated) since
    /// the previous call of the policy's schedule() began, each once, in no given order (SRTF hands the running
    /// ones' new work lines to its index).
    const std::vector<int>& retimedJobs() const;

    /// Start a pending job on `slots`. Throws PolicyError if the slots are invalid, busy, of a type the job
    /// may not use, or do not match the job's demand. Returns the job's rate. `restoreDelay` >= 0: seconds a
    /// resumed job spends restoring its checkpoint, charged by the policy's own overhead model (Chronus) in
    /// place of PerfConfig::preemptOverhead; < 0 = the run's PerfConfig.
    double start(int job, const std::vector<GpuSlot>& slots, std::string_view reason = {}, double restoreDelay = -1);
    /// Space sharing (Gavel's -ss policies): start pending jobs a and b together on the same whole GPUs `gpus`
    /// (all of one type, fully free, as many as each job needs), each holding half of every GPU, each at its
    /// speed co-located with the other as the run's throughput table measures it (PerfModel::pairFactors). When
    /// one of them stops, the other runs on alone at its own speed (still holding, and paying for, its half).
    /// Throws PolicyError when the jobs, GPUs or measurements do not allow it.
    void startShared(int a, int b, const std::vector<int>& gpus, std::string_view reason = {});
    /// Stop a running job and put it back in the queue (its remaining work is kept).
    void preempt(int job);
    /// Ask for a decision point at time t (e.g. the next round or a queue-threshold crossing).
    void wakeAt(double t);

    // --- scores for the decision log (only when recording(); cheap no-ops otherwise) ---
    bool recording() const { return m_record != nullptr; }
    /// The queue as ordered, highest priority first, with the scores used.
    void recordQueue(std::vector<ScoredJob> ranked);
    /// The same for a policy that ranked only the first ranked.size() of its `total` queued jobs (a record
    /// keeps logQueueLimit() of them: ranking more is wasted work).
    void recordQueue(std::vector<ScoredJob> ranked, int total);
    int logQueueLimit() const;
    /// Whether the next placement recorded keeps its scores (recording, and fewer than RunConfig::logPlacementLimit
    /// placements recorded at this decision): past the limit a failed attempt is dropped and a start kept without
    /// scores, so computing them is wasted work.
    bool placementScoresKept() const;
    /// A placement attempt with one affinity score per machine (dense, machine id order); slots empty = failed.
    /// rwgpMean/rwgpVar: a GP placement's posterior per machine (PlacementRecord), or empty.
    void recordPlacement(int job, const std::vector<GpuSlot>& slots, std::vector<float> affinity,
                         std::string reason, std::vector<float> affinityVar = {}, std::vector<float> rwgpMean = {},
                         std::vector<float> rwgpVar = {});
    /// An empty row to fill with a placement's scores, holding the storage of a row recordPlacement was done with
    /// (on a big cluster the record keeps the best machines only): an attempt does not allocate its row.
    std::vector<float> takeScoreRow()
    {
        std::vector<float> row = std::move(m_scoreRow);
        row.clear();
        m_scoreRow = {};
        return row;
    }
    /// A learned policy's critic at this decision (DecisionRecord::criticKind/criticValue): kind 'q' with Q(s, a) of
    /// the action taken, or 'v' with V(s). With `job` >= 0 and `perMachine` (dense, machine id order) the Q of each
    /// machine as the placement action goes to that job's placement record of this decision (as its affinity:
    /// dense, or the record's top-K machines).
    void recordCritic(char kind, float value, int job = -1, std::vector<float> perMachine = {});
    /// A round-based policy's allocation (Gavel's X, jobs x GPU types) in force at this decision.
    void recordAllocation(AllocationRecord allocation);

private:
    friend class Simulator;
    explicit SchedContext(Simulator& sim) : m_sim(sim) {}
    Simulator& m_sim;
    DecisionRecord* m_record = nullptr;
    /// Index in m_record->placements of each job recorded at this decision (valid while m_logStamp[job] equals
    /// m_logEpoch, bumped per decision: nothing to clear): a start and the policy's own record of it meet in one
    /// entry in O(1), however many jobs start at once.
    std::vector<uint64_t> m_logStamp;
    std::vector<float> m_scoreRow; // takeScoreRow's storage
    std::vector<uint32_t> m_logIdx;
    uint64_t m_logEpoch = 1;
    PlacementRecord* loggedPlacement(int job);
    double startChecked(int job, const std::vector<GpuSlot>& slots, std::string_view reason, double restoreDelay,
                        int partner, double pairFactor);
    void noteLogged(int job, size_t index);
};

/// A machine event (scenario files, what-if forks): Fail stops the machine at once (its jobs are requeued
/// and counted as failure requeues), Drain lets its running jobs finish but starts nothing new on it,
/// Restore brings a failed or drained machine back.
enum class MachineEventKind : uint8_t { Fail, Drain, Restore };
const char* toString(MachineEventKind k);
struct MachineEvent {
    double time = 0;
    int machine = 0;
    MachineEventKind kind = MachineEventKind::Fail;
};

/// GPUs of a failed or drained machine are held by this pseudo-job (ClusterState::gpuOwner), so that no
/// placement sees them as free.
constexpr int kOfflineHolder = -2;

/// The discrete-event simulator of one run.
class Simulator {
public:
    /// The trace must be sorted by submit time (Trace::sortBySubmit). Keeps references to its arguments.
    Simulator(const ClusterSpec& cluster, const Trace& trace, Scheduler& policy, RunConfig cfg,
              const ThroughputTable* table = nullptr);
    ~Simulator();
    void addObserver(SimObserver* obs);

    /// Process the next time point (events + one decision). Returns false once the run is over.
    bool step();
    /// Run to the end. `progress(fraction)` is called now and then; returning false cancels (returns false).
    bool run(const std::function<bool(double)>& progress = {});

    // --- what-if hooks (forks): all off by default ---
    /// Called at decision index `decision` (0-based; the stepper's decision decision+1) after that time
    /// point's completions, arrivals, wake-ups and admission verdicts and before the policy decides, with the
    /// context the policy will get (starts made here are logged in that decision's record). One hook per
    /// decision (setting another for the same decision replaces it); a hook may set hooks for later decisions.
    using DecisionHook = std::function<void(Simulator&, SchedContext&)>;
    void setDecisionHook(uint64_t decision, DecisionHook hook);

    // --- snapshots (what-if forks restore instead of replaying; run/checkpoint.h) ---
    /// A frozen copy of the whole run state between two steps: clock, cluster occupancy, queues, running jobs
    /// with their progress, pending events, machine events, the performance model's and the policy's random
    /// streams, and a clone of the policy (Scheduler::clone). Null when the policy cannot clone. Observers and
    /// decision hooks are not part of it (the invariant ledger is). The cluster, trace and speed table must
    /// outlive the snapshot and every simulator restored from it.
    std::shared_ptr<const SimSnapshot> snapshot() const;
    /// A simulator that continues `snap` exactly as the run it was taken from would have gone on, with its own
    /// clone of the snapshot's policy. Add observers restored to the same point (copies of a MetricsCollector
    /// taken with the snapshot). `recordDecisions` and the log limits come from `recording` (results do not
    /// depend on them); everything else is the snapshot's.
    static std::unique_ptr<Simulator> restore(const SimSnapshot& snap, const RunConfig& recording);
    /// From now on `policy` decides (reset with this run's setup; it must outlive the simulator). Jobs
    /// awaiting admission join the queue when the new policy has no admission stage.
    void switchPolicy(Scheduler& policy);
    Scheduler& policy() const { return *m_policy; }
    /// Why `slots` cannot start `job` now ("" when they can).
    std::string checkStart(int job, const std::vector<GpuSlot>& slots) const { return validateStart(job, slots); }
    /// Moves these pending jobs to the head of the pending queue, in this order (others keep theirs).
    /// Throws std::invalid_argument naming a job that is not pending.
    void movePendingToFront(const std::vector<int>& jobs);
    /// Machine events: applied at their time (in time order, before that time point's decision). Events at
    /// or before now apply at once.
    void addMachineEvent(const MachineEvent& e);
    bool machineOffline(int m) const { return !m_offline.empty() && m_offline[size_t(m)] != 0; }
    int failureRequeues() const { return m_failureRequeues; }

    double now() const { return m_now; }
    bool finished() const { return m_finished; }
    const ClusterState& state() const { return m_state; }
    const JobRuntime& rt(int j) const { return m_rt[size_t(j)]; }
    const PerfModel& perf() const { return m_perf; }
    uint64_t eventsProcessed() const { return m_events; }
    uint64_t decisions() const { return m_decisions; }
    int completedJobs() const { return m_completed; }
    int pendingCount() const { return m_pending.size(); }
    int runningCount() const { return int(m_running.size()); }
    /// The invariant ledger when invariants are checked (RunConfig::checkInvariants or
    /// SCHEDSTUDIO_CHECK_INVARIANTS=1), else null.
    const InvariantChecker* invariants() const { return m_checker.get(); }

private:
    friend class SchedContext;
    friend class SimSnapshot;
    /// The copy made by snapshot() and restore(): every value member of `o`, with `policy` deciding.
    Simulator(const Simulator& o, std::unique_ptr<Scheduler> policy);
    /// Indexed binary min-heap of running jobs keyed by (completion time, job): one entry per job, so a
    /// rate change updates the key in place instead of leaving stale events behind.
    class CompletionHeap {
    public:
        void reset(size_t jobs) { m_pos.assign(jobs, -1); m_h.clear(); }
        bool empty() const { return m_h.empty(); }
        double topTime() const { return m_h.front().t; }
        int topJob() const { return m_h.front().job; }
        void update(int job, double t);
        void remove(int job);
    private:
        struct Node {
            double t;
            int job;
        };
        std::vector<Node> m_h;
        std::vector<int> m_pos;
        static bool less(const Node& a, const Node& b) { return a.t < b.t || (a.t == b.t && a.job < b.job); }
        void up(size_t i);
        void down(size_t i);
        void place(size_t i, const Node& n) { m_h[i] = n; m_pos[size_t(n.job)] = int(i); }
    };

    const ClusterSpec& m_cluster;
    const Trace& m_trace;
    Scheduler* m_policy;
    RunConfig m_cfg;
    PerfModel m_perf;
    ClusterState m_state;
    Rng m_policyRng;
    SimSetup m_setup;
    SchedContext m_ctx;
    std::vector<JobRuntime> m_rt;
    std::vector<SimObserver*> m_obs;
    std::unique_ptr<InvariantChecker> m_checker;
    CompletionHeap m_completions;
    std::priority_queue<double, std::vector<double>, std::greater<double>> m_wakes;
    PendingQueue m_pending;
    std::vector<int> m_running;
    std::vector<int> m_runningPos;
    std::vector<uint64_t> m_specMask; // per Trace::gpuSpecs entry
    std::vector<int> m_typeGpus;      // GPUs per cluster type
    std::vector<std::vector<int>> m_machineJobs; // running jobs with a share on each machine
    // a running job's machines, for a job on more than one (each once; capacity kept for its next start)
    std::vector<std::vector<int>> m_jobMachines;
    std::vector<int> m_machineScratch, m_switchScratch, m_touchedScratch;
    // the slots a stopping job gives back, while its co-runners are re-rated; the buffer it had before goes to
    // the job (a preempted job starts again without allocating)
    std::vector<GpuSlot> m_releasedScratch;
    // jobs on one machine (not sharing GPUs with a partner) whose co-runners changed during a decision whose
    // policy re-rates after it (Scheduler::reratesAfterDecision), each once; m_deferRerates while it runs
    bool m_deferRerates = false;
    std::vector<int> m_rerateLater;
    // per job: kRerateAlone while it runs on one machine without a partner (what decides a deferred re-rating,
    // read here instead of in the job's runtime: a byte per job stays in cache), kRerateMarked while in
    // m_rerateLater
    static constexpr uint8_t kRerateMarked = 1, kRerateAlone = 2;
    std::vector<uint8_t> m_rerateMark;
    void setAlone(int j, bool alone)
    {
        uint8_t& b = m_rerateMark[size_t(j)];
        b = uint8_t(alone ? b | kRerateAlone : b & ~kRerateAlone);
    }
    void rerateDeferred();
    std::vector<char> m_machineMark, m_switchMark;
    size_t m_nextArrival = 0;
    double m_now = 0;
    uint64_t m_events = 0;
    uint64_t m_decisions = 0;
    int m_completed = 0;
    uint32_t m_queueSeq = 0;
    bool m_started = false;
    bool m_finished = false;
    DecisionRecord m_record;
    std::vector<int> m_arrivedNow, m_finishedNow;
    std::vector<int> m_awaiting;     // Deferred jobs: arrived now or deferred earlier, in that order
    std::vector<int> m_admittedLate; // accepted at this decision after a deferral
    // jobs retimed (scheduleCompletion) since the last schedule() began, and those of the span before it (what
    // SchedContext::retimedJobs shows during schedule())
    std::vector<int> m_retimed, m_retimedShown;
    std::vector<char> m_retimedMark;
    void admitAwaiting();
    void enqueuePending(int j);

    std::vector<std::pair<uint64_t, DecisionHook>> m_hooks; // sorted by decision
    std::unique_ptr<Scheduler> m_ownedPolicy; // a restored simulator's clone of the snapshot's policy
    std::vector<MachineEvent> m_machineEvents; // sorted by time (stable), consumed from m_nextMachineEvent
    size_t m_nextMachineEvent = 0;
    std::vector<uint8_t> m_offline;            // per machine: 0 up, 1 failed, 2 draining
    std::vector<std::vector<GpuSlot>> m_blocked; // per machine: GPUs held by kOfflineHolder
    int m_failureRequeues = 0;
    void applyMachineEvent(const MachineEvent& e);
    void blockFreeGpus(int m);

    void begin();
    void arrive(int j);
    void complete(int j);
    void stopJob(int j, bool finished);
    void scheduleCompletion(int j);
    void bringUpToDate(int j);
    /// Re-rates (or marks for rerateDeferred) the running jobs whose co-runners changed as `job` started or
    /// stopped on its machines (`started`), its own runtime still describing them.
    void refreshRatesOn(int job, bool started);
    double computeRate(int j, bool drawNoise);
    void finishRun();
    std::string validateStart(int j, const std::vector<GpuSlot>& slots) const;
    std::string validateShared(int a, int b, const std::vector<int>& gpus, double& fa, double& fb) const;
    /// What a job's co-runners are read from: the other jobs on the busiest of its machines (`co`) and how many of
    /// its machines are that busy (`at`).
    struct Busiest {
        int co = 0;
        int at = 0;
    };
    /// Over the machines ms[0..n) (each holding the job asked about): one pass over their running jobs (the
    /// engine's lists: ClusterState's count of a machine's holders also counts the GPUs a failed or draining
    /// machine keeps back, which are not a co-runner).
    Busiest busiestOn(const int* ms, size_t n) const
    {
        Busiest b {-1, 0};
        for (size_t i = 0; i < n; ++i)
            if (const int v = int(m_machineJobs[size_t(ms[i])].size()) - 1; v > b.co) {
                b.co = v;
                b.at = 1;
            } else if (v == b.co) {
                ++b.at;
            }
        b.co = std::max(b.co, 0);
        return b;
    }
    /// j's co-runners as its runtime should record them: `co` the other jobs on the busiest machine of its
    /// placement (its space-sharing partner not counted), `at` JobRuntime::busiest (0 unless it spans several
    /// machines without a partner).
    Busiest coCountOf(int j) const;
    int coRunnersOf(int j) const { return coCountOf(j).co; }
    /// Sets j's coRunners and busiest from its machines.
    void countCoRunners(int j);
};

/// See Simulator::snapshot. Immutable; shareable between threads once taken.
class SimSnapshot {
public:
    ~SimSnapshot();
    uint64_t decisions() const;
    double time() const;
    bool finished() const;
    /// Rough memory held (bytes): the per-job runtime, queues and cluster indices (not the policy's state).
    size_t approxBytes() const;

private:
    friend class Simulator;
    SimSnapshot() = default;
    std::unique_ptr<Simulator> m_sim; // frozen: never stepped
};

// The accessors a policy calls most (every key, fit test and index update reads them), inline: the sim library
// is a shared library, so out of line each was a call through the PLT from the policy library.
inline double SchedContext::now() const { return m_sim.m_now; }
inline const ClusterSpec& SchedContext::cluster() const { return m_sim.m_cluster; }
inline const ClusterState& SchedContext::state() const { return m_sim.m_state; }
inline const Trace& SchedContext::trace() const { return m_sim.m_trace; }
inline const PerfModel& SchedContext::perf() const { return m_sim.m_perf; }
inline const RunConfig& SchedContext::config() const { return m_sim.m_cfg; }
inline int SchedContext::jobCount() const { return int(m_sim.m_trace.jobs.size()); }
inline const Job& SchedContext::job(int j) const { return m_sim.m_trace.jobs[size_t(j)]; }
inline const JobRuntime& SchedContext::rt(int j) const { return m_sim.m_rt[size_t(j)]; }
inline const std::vector<int>& SchedContext::runningJobs() const { return m_sim.m_running; }
inline int SchedContext::runningPosition(int job) const { return m_sim.m_runningPos[size_t(job)]; }
inline const std::vector<int>& SchedContext::retimedJobs() const { return m_sim.m_retimedShown; }

template <class F> void SchedContext::forEachPending(F f) const
{
    for (const auto& e : m_sim.m_pending.raw()) {
        const JobRuntime& r = m_sim.m_rt[size_t(e.job)];
        if (r.status == JobStatus::Pending && r.queueSeq == e.seq)
            if (!f(e.job))
                return;
    }
}

} // namespace ss
