#pragma once
// OASiS as the engine's joint policy `oasis`: the trace and cluster are mapped onto the OASiS model with the
// stated defaults of fromTrace (core/model/oasisjob.h), each arriving job is offered to the online primal-dual
// algorithm in the admission stage (its payoff broken down in the decision log's admission record), and an
// admitted job runs the slots its committed schedule reserved, on the machines it reserved.
//
// The engine's jobs have a fixed GPU demand, so here a schedule is rigid [I]: in each slot a job has all N of its
// workers or none (OasisParams::rigid); the elastic y_ih(t) of the seed runs in the slotted OASiS simulator
// (policy/oasis/oasissim.h, `schedstudio-cli simulate-oasis`). PS servers are CPU servers outside the engine's
// cluster (fromTrace). With `--perf ideal` a job finishes in its planned slots; a slower real rate makes it
// overrun its plan: it then runs on whatever GPUs are free (counted in `overruns`).
//
// Studio: an admission reason ends with "; schedule: <workers>, <PSs> in slots <a-b, c> on <machines>". At every
// decision that offered a job, the GPU prices p_h^gpu(t) of the worker servers after its admission are recorded in
// the decision's AllocationRecord (reused, no new log field): jobs = worker servers (= machine indices), types =
// "slot <t>" for the current slot and the next kPriceSlots - 1, share = the price (the heatmaps show it as
// servers x slots when the run's policy is `oasis`).
#include <string>
#include <vector>

#include "policy/oasis/online.h"
#include "policy/registry.h"

namespace ss::oasis {

/// Columns of the recorded price map, and the prefix of their names.
constexpr int kPriceSlots = 12;
constexpr const char* kPriceSlotPrefix = "slot ";

class OasisEngineScheduler final : public Scheduler {
public:
    explicit OasisEngineScheduler(const PolicyOptions& o);
    std::string name() const override { return "oasis"; }
    void reset(const SimSetup& setup) override;
    void schedule(SchedContext& ctx) override;
    void onJobStopped(int job, double now, bool finished, const JobRuntime& rt) override;
    bool hasAdmission() const override { return true; }
    AdmissionRecord admit(const SchedContext& ctx, int job) override;
    /// total_utility, admitted, rejected, planned_utility, alpha, overruns, subroutine_mean_ms, subroutine_max_ms
    std::vector<std::pair<std::string, double>> runStats() const override;
    std::unique_ptr<Scheduler> clone() const override
    {
        auto c = std::make_unique<OasisEngineScheduler>(*this);
        c->m_alg = m_alg.clone(c->m_sc); // its scenario pointer: the copy's own
        return c;
    }

    const OasisScenario& scenario() const { return m_sc; }
    const OasisOnline& algorithm() const { return m_alg; }
    /// The admission decision of engine job j (null before it arrived). Its schedule's slots are kept only while
    /// the job is admitted and not finished (a million-job run would otherwise hold every plan it ever made); the
    /// completion slot and the payoff stay.
    const AdmissionDecision* decision(int j) const;

private:
    struct JobState {
        bool decided = false, admitted = false, done = false, overrun = false;
        size_t next = 0; // first planned slot not yet past
        AdmissionDecision d;
        std::string invalid;
    };
    TraceMapping m_map;
    OasisParams m_par;
    OasisScenario m_sc;
    OasisOnline m_alg;
    const ClusterSpec* m_cluster = nullptr;
    std::vector<JobState> m_js;
    std::vector<int> m_live; // admitted, not finished
    double m_utility = 0, m_planned = 0, m_sumMs = 0, m_maxMs = 0;
    int m_admitted = 0, m_rejected = 0, m_overruns = 0;
    bool m_pricesChanged = false; // a job was offered since the last recorded decision
    // scratch of schedule(): this slot's plan per live job, a running job's machines and its plan's, sorted
    std::vector<const SlotAlloc*> m_plan;
    std::vector<std::pair<int, int>> m_parts, m_want;
    int slotAt(double t) const;
    AllocationRecord priceRecord(int slot) const;
    bool startOn(SchedContext& ctx, int j, const std::vector<std::pair<int, int>>& parts, const std::string& why);
};

} // namespace ss::oasis
