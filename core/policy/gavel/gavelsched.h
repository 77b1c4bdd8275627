#pragma once
// Gavel's round-based mechanism (ALGORITHMS.md §4.4) as a joint Scheduler: the allocation X of one of the
// LP policies (gavellp.h) is realised round by round with priorities X / share received, deficits, a
// per-type greedy pass and consolidated placement that keeps a job's workers when they are still free.
// See gavelsched.cpp for what was matched against Gavel's scheduler.py and where we differ.
#include <map>
#include <string>
#include <vector>

#include "policy/gavel/gavellp.h"
#include "policy/registry.h"

namespace ss {

/// Throughputs of one job per GPU type of the cluster, as the Gavel policies see them.
struct GavelJobThroughput {
    std::vector<double> T;       ///< per cluster type: work units per second (0 = cannot run there)
    double unitsPerRef = 1;      ///< work units per reference-second (remaining work x this = remaining units)
    bool estimated = false;      ///< not measured: Gavel's estimator, or the cluster's type speeds
    std::string how;             ///< one line: where the numbers come from
};

/// T row of `job` on every type of the cluster: from the run's Gavel table (measured, else estimated as
/// perf/throughputestimate.cpp) when it measures every type of the cluster, else from the performance
/// model's per-type speeds. Throws std::runtime_error (one line) when the table cannot give the job a row
/// and `strict` is set.
GavelJobThroughput gavelThroughput(const SimSetup& setup, int job, bool strict);

/// Adds space-sharing pair rows to `p`: jobs of equal scale whose co-located throughputs the table measures
/// (models[i] = model of job row i, "" = unknown), each job keeping its `pairsPerJob` best partners by
/// normalized combined throughput above `threshold` (1 for LAS, 1.5 for FIFO, as Gavel's packing policies).
void addGavelPairs(gavel::Problem& p, const std::vector<std::string>& models, const ThroughputTable& table,
                   const std::vector<std::string>& types, int pairsPerJob, double threshold);

class GavelScheduler : public Scheduler {
public:
    GavelScheduler(std::string name, gavel::Objective objective, bool agnostic, bool spaceSharing, const PolicyOptions& opts);
    std::string name() const override { return m_name; }
    void reset(const SimSetup& setup) override;
    void schedule(SchedContext& ctx) override;
    void onJobStopped(int job, double now, bool finished, const JobRuntime& rt) override;
    /// rounds and LP solves; with gavel.ideal=1 also the ideal mode's mean JCT on the same
    /// jobs (Fig 13) and the mechanism's mean JCT over the jobs that finished in both.
    std::vector<std::pair<std::string, double>> runStats() const override;
    std::unique_ptr<Scheduler> clone() const override { return std::make_unique<GavelScheduler>(*this); }
    void rebind(const SimSetup& setup) override
    {
        if (m_setup)
            m_setup = &setup;
    }

    /// The allocation row of `job` in force (per cluster type; empty when the job has none).
    std::vector<double> allocationOf(int job) const;
    int rounds() const { return m_rounds; }
    int lpSolves() const { return m_lpSolves; }
    double lpSeconds() const { return m_lpSeconds; }

private:
    std::string m_name;
    gavel::Objective m_objective;
    bool m_agnostic, m_spaceSharing;
    gavel::Options m_lpOpts;
    double m_roundLen = 360, m_resetInterval = 1920;
    int m_pairsPerJob = 4;
    bool m_strict = true;
    bool m_entityVc = false;
    bool m_ideal = false;
    std::vector<double> m_finishedAt; // per job: completion time under the mechanism (-1 = not finished)

    const SimSetup* m_setup = nullptr;
    size_t m_types = 0;
    std::vector<int> m_typeOrder;              // greedy order of types (by name)
    std::vector<std::vector<int>> m_typeMachines; // machines of each type, id order
    std::vector<double> m_workers;     // GPUs per type in the cluster
    std::vector<double> m_price;

    struct JobState {
        bool active = false, known = false;
        GavelJobThroughput tp;
        std::vector<double> X;        // the LP's allocation row of the job alone, per type (empty = none yet)
        std::vector<double> shown;    // X with its pair rows' time converted to time alone (studio, explanations)
        std::vector<double> received; // job_time_so_far per type
        std::vector<double> deficit;
        int runType = -1;             // type it runs on now
        int runPartner = -1;          // job it shares its GPUs with now (its time goes to the pair's counters)
        double segStart = 0;          // start of the current accounting segment
    };
    std::vector<JobState> m_jobs;
    /// A space-sharing pair row of the LP (jobs a < b), with its own accounting as Gavel keeps per job pair.
    struct PairState {
        std::vector<double> X, Ta, Tb; // allocation and the members' co-located throughputs per type
        std::vector<double> received, deficit;
        double segStart = 0;
    };
    std::map<std::pair<int, int>, PairState> m_pairs;
    std::vector<double> m_workerTime;
    std::vector<int> m_active;
    size_t m_scan = 0;
    bool m_needLp = true;
    double m_lastReset = -1e300;
    double m_roundEnd = -1;
    int m_rounds = 0, m_lpSolves = 0;
    double m_lpSeconds = 0;
    std::vector<float> m_lastPriority; // per job, best priority of the last round (for the log)

    void account(int job, double now);
    void recompute(const SchedContext& ctx);
    /// GPUs per type on machines that are up (failed and draining ones left out).
    std::vector<double> onlineWorkers(const SchedContext& ctx) const;
    void resetCounters(double now);
    void round(SchedContext& ctx);
    void ensureKnown(int job);
    /// The stepper's line for a job started this round (`partner`: the job it shares its GPUs with, or -1).
    std::string explain(const SchedContext& ctx, int job, int type, double prio, int partner) const;
};

} // namespace ss

namespace ss {

/// Gavel's "ideal" mode (Fig 13): a fluid simulation in which every active job progresses at exactly its
/// effective throughput sum_j T x X under the policy's allocation, recomputed at every arrival and completion
/// (no rounds, no placement, no integrality). Returns each job's completion time (-1 = never: no throughput).
/// Throws std::runtime_error as the round mechanism does (model not estimable, LP infeasible).
std::vector<double> simulateGavelIdeal(const ClusterSpec& cluster, const Trace& trace, const ThroughputTable* table,
                                       gavel::Objective objective, bool agnostic, const PerfConfig& perf = {});
/// The same on a run's setup with the policy's own LP options (entities: virtual clusters when `entityVc`,
/// else users). `pairsPerJob` > 0 (an -ss policy) adds the space-sharing pair rows as the round mechanism does.
std::vector<double> simulateGavelIdeal(const SimSetup& setup, gavel::Objective objective, const gavel::Options& opts,
                                       bool entityVc, int pairsPerJob = 0);

} // namespace ss
