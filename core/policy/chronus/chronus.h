#pragma once
// Chronus (Gao et al., SoCC'21) as one joint policy `chronus`: job classes, the profiler's duration estimate,
// lease-based admission and scheduling with the MILP at every lease boundary, and its placement
// (ALGORITHMS.md §5). See chronus.cpp for what follows the artifact and what is our choice.
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "policy/chronus/chronusplacement.h"
#include "policy/chronus/leaseplan.h"
#include "policy/registry.h"

namespace ss::chronus {

/// Accepted SLO jobs hold lease guarantees; unaccepted SLO jobs are served like best-effort ones; "lowest"
/// SLO jobs can no longer make any deadline and come last.
/// The lease plan rides in the boundary decision's AllocationRecord (the studio's jobs x leases heatmap):
/// `jobs` = accepted SLO jobs holding a plan (by first planned lease, then job; at most kPlanRecordJobs),
/// `types` = "lease K" for K = k .. (at most kPlanRecordLeases columns), `share` = the job's rounded GPUs
/// guaranteed in that lease (0 = none), `estimated` = the deadline level the plan meets (1-based; +128 when the
/// job kept its cached plan out of the MILP), `note` = how the plan was made (LeaseSolve::status).
constexpr const char* kPlanLeasePrefix = "lease ";
constexpr int kPlanRecordJobs = 200;
constexpr int kPlanRecordLeases = 36;
constexpr uint8_t kPlanKeptFlag = 128;

enum class JobClass : uint8_t { BestEffort, AcceptedSlo, UnacceptedSlo, Lowest };
const char* toString(JobClass c);

struct ChronusParams {
    double leaseMinutes = 20;    ///< L
    double timeLimit = 60;       ///< MILP seconds per lease boundary, a safety net (artifact: 5 s, stopping after 1 s without a better incumbent)
    double gap = 1e-4;           ///< MILP relative gap
    int maxNodes = 10;           ///< MILP branch-and-bound nodes per boundary (deterministic bound; see REPRODUCTION-CHRONUS)
    int maxEntries = -1;         ///< (job, level) entries in one MILP; -1 = 1200 L / 60 (the artifact's)
    bool overhead = true;        ///< charge 0.5 (1 + log2 g) min per resume
    std::string mode = "adaptive"; ///< adaptive | minus | plus: sign of the MILP's current-lease term
    bool milp = true;            ///< false: the greedy selector at every boundary (comparison, tests)
    static ChronusParams from(const PolicyOptions& o);
};

/// One lease boundary's solve, for the benchmark and the run's statistics.
struct LeaseSolve {
    double time = 0;
    int64_t lease = 0;
    int jobs = 0;          ///< accepted SLO jobs in the MILP
    int binaries = 0;
    double seconds = 0;    ///< MILP build + solve (0 when there was nothing to solve)
    bool milp = false;     ///< the MILP's plan was used
    bool hitTimeLimit = false;
    bool hitNodeLimit = false;
    bool fallback = false; ///< the greedy selector's plan was used after a solver failure / infeasibility
    bool reused = false;   ///< nothing changed since the last boundary: its plan was kept, nothing solved
    int guaranteed = 0;    ///< jobs running this lease as guaranteed
    int kept = 0;          ///< accepted jobs that kept their cached plans out of the MILP (entry cap)
    std::string status;
};

class ChronusScheduler final : public Scheduler {
public:
    explicit ChronusScheduler(ChronusParams p);
    std::string name() const override { return "chronus"; }
    void reset(const SimSetup& setup) override;
    void schedule(SchedContext& ctx) override;
    void onJobStopped(int job, double now, bool finished, const JobRuntime& rt) override;
    void onJobStarted(int job, double now, const JobRuntime& rt) override;
    bool hasAdmission() const override { return true; }
    AdmissionRecord admit(const SchedContext& ctx, int job) override;
    /// slo_accepted, slo_accepted_later, slo_unaccepted, overrun_demotions, lease_boundaries, lease_milps
    /// (boundaries with accepted jobs to plan), lease_solver_mean_ms / _max_ms (over those), lease_time_limit_hits,
    /// lease_fallbacks.
    std::vector<std::pair<std::string, double>> runStats() const override;
    std::unique_ptr<Scheduler> clone() const override { return std::make_unique<ChronusScheduler>(*this); }

    // --- read access (tests, statistics, the studio) ---
    const ChronusParams& params() const { return m_p; }
    double leaseSeconds() const { return m_leaseSec; }
    JobClass jobClass(int j) const { return m_js[size_t(j)].cls; }
    bool guaranteed(int j) const { return m_js[size_t(j)].guaranteed; }
    bool acceptedLater(int j) const { return m_js[size_t(j)].acceptedLater; }
    bool demoted(int j) const { return m_js[size_t(j)].fakeForce; }
    /// Profiler estimate of the job's wall time, seconds: duration x coef x 1.1.
    double estimate(int j) const { return m_js[size_t(j)].est; }
    /// Absolute lease indices the job's cached plan holds.
    const std::vector<int64_t>& planOf(int j) const { return m_js[size_t(j)].plan; }
    const std::vector<LeaseSolve>& solves() const { return m_solves; }
    int sloAccepted() const { return m_accepted; }
    int sloAcceptedLater() const { return m_acceptedLater; }
    int sloUnaccepted() const { return m_unaccepted; }
    int demotions() const { return m_demotions; }

private:
    struct JobState {
        JobClass cls = JobClass::BestEffort;
        double est = 0;            // seconds of wall time
        std::vector<int64_t> plan; // absolute leases (cached plan)
        int planGpus = 0;          // rounded demand charged in the capacity table
        bool guaranteed = false;   // running this lease under a guarantee
        bool fakeForce = false;    // overran its estimate: first in line for opportunistic GPUs
        bool acceptedLater = false;
        int level = -1;            // level chosen by the last plan
        bool kept = false;         // the last boundary kept its cached plan out of the MILP
    };
    ChronusParams m_p;
    double m_leaseSec = 1200;
    const ClusterSpec* m_cluster = nullptr;
    const Trace* m_trace = nullptr;
    SplitSpeed m_speed;
    std::vector<JobState> m_js;
    std::vector<int> m_cap;     // used GPUs per absolute lease (rounded demands of cached plans)
    std::vector<int> m_active;  // jobs pending or running (arrived, not finished)
    std::vector<char> m_isActive;
    // Kept so that a decision inside a lease reads neither every active nor every running job: the waiting jobs
    // (put back when preempted; one admitted while running from a start state leaves at the next decision), with
    // each one's place (-1: not there), and the jobs admitted as accepted SLOs (those demoted or finished since are
    // dropped when met: a job is accepted only at its admission).
    /// Jobs in no particular order, each at most once, added and removed in O(1).
    struct JobList {
        std::vector<int> jobs, pos; // pos per job: its place in `jobs`, -1 when not there
        void reset(size_t n)
        {
            jobs.clear();
            pos.assign(n, -1);
        }
        bool has(int j) const { return pos[size_t(j)] >= 0; }
        void add(int j)
        {
            pos[size_t(j)] = int(jobs.size());
            jobs.push_back(j);
        }
        void remove(int j)
        {
            const int p = pos[size_t(j)], last = jobs.back();
            jobs[size_t(p)] = last;
            pos[size_t(last)] = p;
            jobs.pop_back();
            pos[size_t(j)] = -1;
        }
    };
    JobList m_waiting;
    std::vector<int> m_acceptedJobs;
    void waitAdd(int j);
    void waitRemove(int j);
    /// Each accepted SLO that is running (after dropping the ones no longer accepted or active).
    template <class F> void forRunningAccepted(const SchedContext& ctx, F f);
    /// With RunConfig::checkInvariants: those lists against a pass over every active job, and (after rekey) every
    /// kept rank against the job's rank now (throws std::logic_error).
    void checkKept(const SchedContext& ctx) const;
    void checkRanks(const SchedContext& ctx) const;
    int m_total = 0, m_maxRounded = 8;
    int m_maxMachineGpus = 0;         // the most GPUs one machine has
    std::vector<int> m_typeMaxGpus;   // per GPU type: the most GPUs one machine of the type has
    int64_t m_boundaryLease = -1;
    int64_t m_wakeLease = -1;
    std::vector<LeaseSolve> m_solves;
    int m_accepted = 0, m_acceptedLater = 0, m_unaccepted = 0, m_demotions = 0;

    int64_t leaseOf(double t) const;
    double remainingEst(const SchedContext& ctx, int j) const;
    int leasesNeeded(const SchedContext& ctx, int j) const;
    double overheadSec(int gpus) const;
    void charge(int j, int sign);
    CapacityTable capacityFrom(int64_t first) const;
    void refreshClasses(SchedContext& ctx, int64_t k);
    void leaseBoundary(SchedContext& ctx, int64_t k);
    /// Starts and preempts for lease k once the plans are set; records `ls`.
    void runLease(SchedContext& ctx, int64_t k, LeaseSolve ls);
    std::vector<int> m_lastSolved; // accepted jobs planned at the last boundary
    int64_t m_lastSolveLease = -2;
    void demoteOverruns(SchedContext& ctx);
    double emergence(const SchedContext& ctx, int j) const;
    /// Fill order key (larger first): tier, then emergence, then earlier submit.
    struct Ranked {
        int job;
        int tier;
        double emergence;
        double submit; // the job's (the last tie-break but one), read once
        int gpus;      // whole GPUs it asks for
    };
    /// A job's rank: false for an accepted SLO when leases are over 30 minutes (it takes no opportunistic GPUs).
    bool rankOf(const SchedContext& ctx, int j, double leaseLeft, Ranked& out) const;
    /// The waiting jobs' ranks (tier, then emergence, submit time and id: rankedBefore), sorted when `sorted`.
    std::vector<Ranked> rankWaiting(const SchedContext& ctx, const std::vector<int>& jobs, double leaseLeft,
                                    bool sorted = true) const;
    static bool rankedBefore(const Ranked& a, const Ranked& b);
    // per job, read at every decision for each waiting job: whole GPUs, submit time, and remainingEst of a job not
    // running (its work left does not move while it waits) with the work left it was computed from
    std::vector<int> m_gpus;
    std::vector<double> m_submit;
    mutable std::vector<double> m_estFrom, m_estLeft;
    // The waiting jobs in rank order, kept between decisions. A waiting job's rank moves with time only for an
    // SLO job when leases are at most 30 minutes (an accepted one's emergence counts down to its deadline; an
    // unaccepted one is force-guaranteed once it fits in what is left of the lease): those are ranked at each
    // decision (m_dynamic). Every other waiting job's rank is fixed while it waits and its class stays (its work
    // left does not move): it sits in m_static under the rank it had when it was last (re)ranked, in the set of
    // the jobs asking for as many GPUs (a decision takes the first job in rank order among those that fit). A job is
    // (re)ranked at the first decision after it starts waiting or its class changes (m_rekey).
    struct RankOrder {
        bool operator()(const Ranked& a, const Ranked& b) const { return rankedBefore(a, b); }
    };
    std::vector<std::set<Ranked, RankOrder>> m_static; // per whole-GPU count
    std::vector<Ranked> m_key;     // per job: its rank in m_static[its GPUs]
    std::vector<char> m_rankedAs;  // per job: 0 not ranked, 1 in m_static, 2 in m_dynamic
    JobList m_dynamic;
    std::vector<int> m_rekey;
    std::vector<char> m_rekeyMark;
    std::vector<int> m_gpuCount;   // waiting jobs per whole-GPU count (the fewest any waiting job needs)
    void markRekey(int j);
    void unrank(int j);
    /// Ranks the jobs marked since the last call (with checkInvariants, then checks every kept rank: checkRanks).
    void rekey(const SchedContext& ctx);
    /// Whether leases are at most 30 minutes (where SLO jobs may take opportunistic GPUs and be force-guaranteed).
    bool shortLease() const { return m_p.leaseMinutes <= 30; }
    /// Whether a waiting job's rank moves with time: an SLO job's, when leases are short (see m_static).
    bool rankMoves(int j) const
    {
        const JobClass c = m_js[size_t(j)].cls;
        return shortLease() && (c == JobClass::AcceptedSlo || c == JobClass::UnacceptedSlo);
    }
    /// Takes in rank order each job whose GPUs fit in `free`, from `now` (ranks made now, in order) merged with the
    /// kept order of the other waiting jobs; `take(rank)` takes one and subtracts its GPUs from `free`.
    void takeInOrder(const std::vector<Ranked>& now, const int& free, const std::function<void(const Ranked&)>& take) const;
    /// remainingEst, from the values kept for a job not running while its work left is the one they were made from.
    double remainingEstNow(const SchedContext& ctx, int j) const;
    int placeBatch(SchedContext& ctx, const std::vector<int>& jobs, const char* why, std::vector<int>* failed);
    bool startOn(SchedContext& ctx, int j, const Parts& parts, const std::string& reason, const std::vector<int>& freeGpus);
    std::vector<int> freeGpusPerMachine(const SchedContext& ctx) const;
    void requestWakes(SchedContext& ctx);
    void recordQueue(SchedContext& ctx, const std::vector<Ranked>& ranked);
    /// The lease plan in force after boundary k, in the decision's AllocationRecord (see kPlanLeasePrefix).
    void recordPlan(SchedContext& ctx, int64_t k, const LeaseSolve& ls);
};

} // namespace ss::chronus
