// Gavel's round-based mechanism (ALGORITHMS.md §4.4), matched against stanford-futuredata/gavel
// scheduler/scheduler.py (_schedule_jobs_on_workers, _update_priorities, _assign_workers_to_job):
// - rounds of gavel.round = 360 s; the allocation X is recomputed at the first round boundary after a job
//   arrived or completed; the accounting (time received per job and type, worker time per type) is reset,
//   and deficits updated (deficit += X x elapsed - received), only when X changed and gavel.reset = 1920 s
//   have passed since the last reset (Gavel: _allocation_changed_since_last_time_reset and
//   minimum_time_between_allocation_resets). Counters start at half a round;
// - priority[m][j] = X[m][j] / (received[m][j] / workerTime[j]); X = 0 or T = 0: 0; nothing received: X x 1e9;
// - every (job, type) entry by (priority, deficit, X) descending (ties: types in name order, then arrival);
//   an entry is skipped when its job is already scheduled this round, when the job cannot run on the type
//   (T = 0), when it does not fit in what is left of the type, or (FIFO, SJF) when its priority is 0. One
//   sort over all types [I]: sorting per type and walking the types in turn would let a job take a slot on the
//   first type walked with priority 0 before its high-priority entry on another type is reached;
// - placement per type, by decreasing scale factor: a job keeps its previous GPUs when it ran on this type
//   and they are all still free this round; else the lowest-index machine with enough free GPUs, else
//   machines filled in index order (fewest servers for jobs wider than a server);
// - simulated time as Gavel's simulator: a job's GPUs stay idle from its completion to the end of the round;
//   the next round starts at the round's end, or as soon as no job is running (the clock then follows the
//   next arrival). A job that moves (preempted, restarted elsewhere) pays the run's
//   PerfConfig::preemptOverhead (--perf preempt_overhead=S; Gavel's simulator charges nothing).
// Differences (documented choices):
// - Gavel runs each job ceil(T x 360) steps per round and starts the next round when the slowest job ends;
//   here jobs run continuously at T and a round lasts exactly gavel.round seconds, so a job that keeps its
//   GPUs is not stopped at all (no step rounding);
// - jobs that keep their GPUs are placed before jobs that move (Gavel processes them in one pass by scale),
//   which avoids migrations caused only by placement order;
// - space sharing (gavel-las-ss, gavel-fifo-ss): as Gavel, a pair row of the LP is a schedulable unit with its
//   own priority, time received and deficit; the greedy pass skips a pair when either member is already
//   scheduled, and the pair runs on one set of GPUs (SchedContext::startShared: each member holds half of every
//   GPU and runs at its co-located throughput from the table). [I] When one member ends mid-round, the other runs
//   on alone at its own speed until the round ends (Gavel's simulator keeps the pair's step count). The
//   allocation shown in the studio converts pair time to time alone (X_m + X_pair x T_pair,m / T_m).
#include "policy/gavel/gavelsched.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <stdexcept>

namespace ss {

GavelJobThroughput gavelThroughput(const SimSetup& setup, int job, bool strict)
{
    const ClusterSpec& c = setup.cluster;
    const Job& jb = setup.trace.jobs[size_t(job)];
    GavelJobThroughput out;
    out.T.assign(c.types.size(), 0.0);
    const ThroughputTable* tab = setup.perf.table();
    bool useTable = tab && tab->hasMeasurements() && !setup.perf.config().ideal && setup.perf.config().typeSpeed;
    for (size_t t = 0; useTable && t < c.types.size(); ++t)
        useTable = tab->measuresType(c.types[t].name);
    if (useTable && jb.model >= 0) {
        std::vector<std::string> names;
        for (const GpuType& t : c.types)
            names.push_back(t.name);
        names.push_back(tab->referenceType());
        const ThroughputRow row = throughputRow(*tab, setup.trace.models[size_t(jb.model)], std::max(1, jb.wholeGpus()), names);
        if (row.error.empty()) {
            for (size_t t = 0; t < c.types.size(); ++t)
                out.T[t] = std::max(0.0, row.sps[t]);
            out.unitsPerRef = row.sps.back();
            out.estimated = row.anyEstimated();
            out.how = out.estimated ? row.how : "measured";
            return out;
        }
        if (strict)
            throw std::runtime_error("job " + std::to_string(jb.id) + ": " + row.error
                                     + " (--param gavel.missing=typespeed runs it at the cluster's type speeds)");
        out.estimated = true;
        out.how = "not in the throughput table: the cluster's type speeds";
    } else {
        out.how = useTable ? "no model name: the cluster's type speeds" : "the performance model's type speeds";
        out.estimated = useTable;
    }
    // one pass over the machines, stopping once every type has its first machine
    size_t found = 0;
    std::vector<char> seen(c.types.size(), 0);
    for (int m = 0; m < c.machineCount() && found < c.types.size(); ++m) {
        const Machine& mc = c.machines[size_t(m)];
        if (mc.gpus <= 0 || seen[size_t(mc.type)])
            continue;
        seen[size_t(mc.type)] = 1;
        ++found;
        out.T[size_t(mc.type)] = setup.perf.nominalSpeed(jb, m);
    }
    return out;
}

void addGavelPairs(gavel::Problem& p, const std::vector<std::string>& models, const ThroughputTable& tab,
                   const std::vector<std::string>& types, int pairsPerJob, double threshold)
{
    // pair rows: jobs of equal scale whose co-located throughputs are measured; each job keeps its best
    // `pairsPerJob` partners by normalized combined throughput, above the policy's packing threshold
    struct Cand {
        double gain;
        int a, b;
        std::vector<double> Ta, Tb;
    };
    const size_t J = types.size();
    std::vector<std::vector<Cand>> best(p.jobs.size());
    for (size_t a = 0; a < p.jobs.size(); ++a)
        for (size_t b = a + 1; b < p.jobs.size(); ++b) {
            if (p.jobs[a].scale != p.jobs[b].scale || models[a].empty() || models[b].empty())
                continue;
            Cand c {0, int(a), int(b), std::vector<double>(J, 0.0), std::vector<double>(J, 0.0)};
            for (size_t t = 0; t < J; ++t) {
                double ta = 0, tb = 0;
                if (p.jobs[a].T[t] > 0 && p.jobs[b].T[t] > 0
                    && tab.pairStepsPerSecond(models[a], models[b], int(p.jobs[a].scale), types[t], ta, tb)) {
                    c.Ta[t] = ta;
                    c.Tb[t] = tb;
                    c.gain = std::max(c.gain, ta / p.jobs[a].T[t] + tb / p.jobs[b].T[t]);
                }
            }
            if (c.gain > threshold) {
                best[a].push_back(c);
                best[b].push_back(c);
            }
        }
    std::map<std::pair<int, int>, size_t> chosen;
    for (auto& list : best) {
        std::sort(list.begin(), list.end(), [](const Cand& x, const Cand& y) {
            return x.gain != y.gain ? x.gain > y.gain : std::make_pair(x.a, x.b) < std::make_pair(y.a, y.b);
        });
        for (size_t i = 0; i < list.size() && int(i) < pairsPerJob; ++i)
            if (!chosen.count({list[i].a, list[i].b})) {
                chosen[{list[i].a, list[i].b}] = p.pairs.size();
                p.pairs.push_back({list[i].a, list[i].b, list[i].Ta, list[i].Tb});
            }
    }
}

GavelScheduler::GavelScheduler(std::string name, gavel::Objective objective, bool agnostic, bool spaceSharing,
                               const PolicyOptions& opts)
    : m_name(std::move(name)), m_objective(objective), m_agnostic(agnostic), m_spaceSharing(spaceSharing)
{
    m_roundLen = opts.paramD("gavel.round", 360);
    m_resetInterval = opts.paramD("gavel.reset", 1920);
    if (!(m_roundLen > 0))
        throw std::invalid_argument("gavel.round must be > 0 seconds");
    if (m_resetInterval < 0)
        throw std::invalid_argument("gavel.reset must be >= 0 seconds");
    m_lpOpts.method = opts.param("gavel.solver", "barrier") == "simplex" ? gavel::LpMethod::Simplex : gavel::LpMethod::Barrier;
    m_lpOpts.agnostic = agnostic;
    m_lpOpts.fifoInside = opts.param("gavel.inside", "fairness") == "fifo";
    m_lpOpts.packThreshold = objective == gavel::Objective::Fifo ? 1.5 : 1.0;
    m_pairsPerJob = int(opts.paramD("gavel.pairs", 4));
    m_strict = opts.param("gavel.missing", "error") != "typespeed";
    m_entityVc = opts.param("gavel.entity", "user") == "vc";
    m_ideal = opts.paramD("gavel.ideal", 0) != 0;
}

void GavelScheduler::reset(const SimSetup& setup)
{
    m_setup = &setup;
    const ClusterSpec& c = setup.cluster;
    m_types = c.types.size();
    m_typeOrder.resize(m_types);
    std::iota(m_typeOrder.begin(), m_typeOrder.end(), 0);
    std::stable_sort(m_typeOrder.begin(), m_typeOrder.end(), [&](int a, int b) { return c.types[size_t(a)].name < c.types[size_t(b)].name; });
    m_typeMachines.assign(m_types, {});
    m_workers.assign(m_types, 0.0);
    m_price.assign(m_types, 1.0);
    for (int m = 0; m < c.machineCount(); ++m) {
        const Machine& mc = c.machines[size_t(m)];
        m_typeMachines[size_t(mc.type)].push_back(m);
        m_workers[size_t(mc.type)] += mc.gpus;
    }
    for (size_t t = 0; t < m_types; ++t)
        m_price[t] = c.types[t].pricePerHour;
    m_jobs.assign(setup.trace.jobs.size(), JobState {});
    m_lastPriority.assign(setup.trace.jobs.size(), 0.0f);
    m_finishedAt.assign(setup.trace.jobs.size(), -1.0);
    m_workerTime.assign(m_types, m_roundLen / 2);
    m_active.clear();
    m_scan = 0;
    m_needLp = true;
    m_lastReset = -1e300;
    m_roundEnd = -1;
    m_rounds = m_lpSolves = 0;
    m_lpSeconds = 0;
    m_pairs.clear();
}

void GavelScheduler::ensureKnown(int job)
{
    JobState& s = m_jobs[size_t(job)];
    if (s.known)
        return;
    s.tp = gavelThroughput(*m_setup, job, m_strict);
    s.known = true;
}

std::vector<double> GavelScheduler::allocationOf(int job) const { return m_jobs[size_t(job)].shown; }

void GavelScheduler::account(int job, double now)
{
    JobState& s = m_jobs[size_t(job)];
    if (s.runType < 0)
        return;
    const int k = std::max(1, m_setup->trace.jobs[size_t(job)].wholeGpus());
    if (s.runPartner >= 0) { // the pair's time, counted once for both members
        const auto it = m_pairs.find(std::minmax(job, s.runPartner));
        if (it != m_pairs.end()) {
            const double dt = std::max(0.0, now - it->second.segStart);
            it->second.received[size_t(s.runType)] += dt;
            m_workerTime[size_t(s.runType)] += dt * k;
            it->second.segStart = now;
        }
        s.segStart = now;
        return;
    }
    const double dt = std::max(0.0, now - s.segStart);
    s.received[size_t(s.runType)] += dt;
    m_workerTime[size_t(s.runType)] += dt * k;
    s.segStart = now;
}

void GavelScheduler::onJobStopped(int job, double now, bool finished, const JobRuntime&)
{
    account(job, now);
    JobState& s = m_jobs[size_t(job)];
    if (s.runPartner >= 0) { // the partner runs on alone: its time is its own again
        JobState& q = m_jobs[size_t(s.runPartner)];
        q.runPartner = -1;
        q.segStart = now;
    }
    s.runType = -1;
    s.runPartner = -1;
    if (finished) {
        s.active = false;
        m_needLp = true;
        m_finishedAt[size_t(job)] = now;
    }
}

std::vector<std::pair<std::string, double>> GavelScheduler::runStats() const
{
    std::vector<std::pair<std::string, double>> st;
    if (m_ideal && m_setup) {
        const std::vector<double> ideal = simulateGavelIdeal(*m_setup, m_objective, m_lpOpts, m_entityVc, m_spaceSharing ? m_pairsPerJob : 0);
        double sumIdeal = 0, sumMech = 0;
        int both = 0;
        for (size_t j = 0; j < ideal.size(); ++j)
            if (ideal[j] >= 0 && m_finishedAt[j] >= 0) {
                const double submit = m_setup->trace.jobs[j].submit;
                sumIdeal += ideal[j] - submit;
                sumMech += m_finishedAt[j] - submit;
                ++both;
            }
        st.emplace_back("mechanism_over_ideal", both && sumIdeal > 0 ? sumMech / sumIdeal : 0.0);
        st.emplace_back("ideal_mean_jct_min", both ? sumIdeal / both / 60 : 0.0);
        st.emplace_back("mechanism_mean_jct_min", both ? sumMech / both / 60 : 0.0);
        st.emplace_back("ideal_jobs", double(both));
    }
    st.emplace_back("rounds", double(m_rounds));
    st.emplace_back("lp_solves", double(m_lpSolves)); // (LP times are not results: bench-gavel prints them)
    return st;
}

void GavelScheduler::resetCounters(double now)
{
    const double elapsed = m_lastReset > -1e299 ? now - m_lastReset : 0.0;
    for (int j : m_active) {
        JobState& s = m_jobs[size_t(j)];
        for (size_t t = 0; t < m_types; ++t) {
            if (!s.X.empty() && elapsed > 0)
                s.deficit[t] += s.X[t] * elapsed - s.received[t];
            s.received[t] = m_roundLen / 2;
        }
    }
    for (auto& [key, ps] : m_pairs)
        for (size_t t = 0; t < m_types; ++t) {
            if (elapsed > 0)
                ps.deficit[t] += ps.X[t] * elapsed - ps.received[t];
            ps.received[t] = m_roundLen / 2;
        }
    m_workerTime.assign(m_types, m_roundLen / 2);
    m_lastReset = now;
}

std::vector<double> GavelScheduler::onlineWorkers(const SchedContext& ctx) const
{
    std::vector<double> w = m_workers;
    const ClusterSpec& c = ctx.cluster();
    for (int m = 0; m < c.machineCount(); ++m)
        if (ctx.machineOffline(m))
            w[size_t(c.machines[size_t(m)].type)] -= c.machines[size_t(m)].gpus;
    return w;
}

void GavelScheduler::recompute(const SchedContext& ctx)
{
    const double now = ctx.now();
    gavel::Problem p;
    p.workers = onlineWorkers(ctx);
    p.price = m_price;
    std::map<int, int> entityIndex;
    for (int j : m_active) {
        const JobState& s = m_jobs[size_t(j)];
        const Job& jb = ctx.job(j);
        gavel::JobRow r;
        r.T = s.tp.T;
        const uint64_t mask = ctx.rt(j).typeMask;
        for (size_t t = 0; t < m_types; ++t)
            if (t >= 64 || !((mask >> t) & 1ULL))
                r.T[t] = 0;
        r.scale = std::max(1, jb.wholeGpus());
        r.weight = m_setup->trace.priorityWeight(jb);
        r.remaining = ctx.rt(j).remainingAt(now) * s.tp.unitsPerRef;
        r.done = std::max(0.0, jb.duration - ctx.rt(j).remainingAt(now)) * s.tp.unitsPerRef;
        r.age = now - jb.submit;
        r.arrival = jb.submit + 1e-9 * j;
        if (!jb.deadlines.empty())
            r.sloLeft = jb.submit + jb.deadlines.front().offset - now;
        const int e = m_entityVc ? jb.vc : jb.user;
        r.entity = entityIndex.emplace(e, int(entityIndex.size())).first->second;
        p.jobs.push_back(std::move(r));
    }
    if (m_spaceSharing && m_setup->perf.table() && m_setup->perf.table()->hasPairs()) {
        std::vector<std::string> models, types;
        for (int j : m_active)
            models.push_back(ctx.job(j).model >= 0 ? m_setup->trace.models[size_t(ctx.job(j).model)] : std::string());
        for (const GpuType& t : m_setup->cluster.types)
            types.push_back(t.name);
        addGavelPairs(p, models, *m_setup->perf.table(), types, m_pairsPerJob, m_lpOpts.packThreshold);
    }
    const auto t0 = std::chrono::steady_clock::now();
    gavel::Solution sol;
    try {
        sol = gavel::solve(p, m_objective, m_lpOpts);
    } catch (const gavel::LpError& e) {
        throw std::runtime_error(m_name + " at t=" + std::to_string(now) + ": " + e.what());
    }
    m_lpSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m_lpSolves += std::max(1, sol.lpSolves);
    for (size_t i = 0; i < m_active.size(); ++i) {
        JobState& s = m_jobs[size_t(m_active[i])];
        s.X = sol.X.empty() ? std::vector<double>(m_types, 0.0) : sol.X[i];
        s.shown = s.X;
    }
    // pair rows keep their accounting while the LP keeps them (Gavel: per job-id pair); dropped rows go
    std::map<std::pair<int, int>, PairState> pairs;
    for (size_t q = 0; q < p.pairs.size(); ++q) {
        const gavel::PairRow& pr = p.pairs[q];
        const int ja = m_active[size_t(pr.a)], jb = m_active[size_t(pr.b)];
        const bool swap = jb < ja;
        PairState ps;
        if (const auto it = m_pairs.find(std::minmax(ja, jb)); it != m_pairs.end()) {
            ps = std::move(it->second);
        } else {
            ps.received.assign(m_types, m_roundLen / 2);
            ps.deficit.assign(m_types, 0.0);
        }
        ps.X = sol.X[p.jobs.size() + q];
        ps.Ta = swap ? pr.Tb : pr.Ta;
        ps.Tb = swap ? pr.Ta : pr.Tb;
        for (size_t t = 0; t < m_types; ++t) {
            const double x = ps.X[t];
            if (x <= 0)
                continue;
            m_jobs[size_t(ja)].shown[t] += x * pr.Ta[t] / p.jobs[size_t(pr.a)].T[t];
            m_jobs[size_t(jb)].shown[t] += x * pr.Tb[t] / p.jobs[size_t(pr.b)].T[t];
        }
        pairs.emplace(std::minmax(ja, jb), std::move(ps));
    }
    m_pairs.swap(pairs);
    m_needLp = false;
    if (now - m_lastReset >= m_resetInterval)
        resetCounters(now);
}

std::string GavelScheduler::explain(const SchedContext& ctx, int job, int type, double prio, int partner) const
{
    const JobState& s = m_jobs[size_t(job)];
    std::string out = "gavel round " + std::to_string(m_rounds) + ": X";
    char buf[96];
    for (size_t t = 0; t < m_types && !s.shown.empty(); ++t) {
        std::snprintf(buf, sizeof buf, " %s %.0f%%", ctx.cluster().types[t].name.c_str(), 100.0 * s.shown[t]);
        out += buf;
    }
    std::snprintf(buf, sizeof buf, "; priority %.3g on %s", prio, ctx.cluster().types[size_t(type)].name.c_str());
    out += buf;
    if (partner >= 0) {
        const auto it = m_pairs.find(std::minmax(job, partner));
        const double x = it != m_pairs.end() ? it->second.X[size_t(type)] : 0.0;
        std::snprintf(buf, sizeof buf, "; shares its GPUs with job %lld (pair X %.0f%%)", (long long)ctx.job(partner).id, 100.0 * x);
        out += buf;
    }
    if (s.tp.estimated)
        out += "; throughputs estimated";
    return out;
}

void GavelScheduler::round(SchedContext& ctx)
{
    const double now = ctx.now();
    ++m_rounds;
    for (int j : ctx.runningJobs())
        account(j, now);
    m_active.erase(std::remove_if(m_active.begin(), m_active.end(), [&](int j) { return !m_jobs[size_t(j)].active; }), m_active.end());
    if (m_needLp)
        recompute(ctx);

    // priorities per (job, type): X / (time received / worker time); nothing received yet: X x 1e9
    auto priority = [&](double x, double received, size_t t) {
        return received <= 0 ? x * 1e9 : x / (received / std::max(1e-9, m_workerTime[t]));
    };
    const size_t A = m_active.size();
    std::vector<double> prio(A * m_types, 0.0);
    for (size_t i = 0; i < A; ++i) {
        const JobState& s = m_jobs[size_t(m_active[i])];
        for (size_t t = 0; t < m_types; ++t) {
            const double x = s.X.empty() ? 0.0 : s.X[t];
            if (x > 0 && s.tp.T[t] > 0)
                prio[i * m_types + t] = priority(x, s.received[t], t);
        }
    }
    const bool skipZero = m_objective == gavel::Objective::Fifo || m_objective == gavel::Objective::Sjf;
    std::vector<int> chosenType(A, -1), chosenPartner(A, -1);
    std::vector<double> chosenPrio(A, 0.0);
    std::vector<int> typeRank(m_types, 0);
    for (size_t r = 0; r < m_typeOrder.size(); ++r)
        typeRank[size_t(m_typeOrder[r])] = int(r);
    struct Entry {
        double prio, deficit, x;
        int type;
        size_t i;
        int partner; // active index of the pair's other member; -1 = the job alone
    };
    std::vector<Entry> entries;
    entries.reserve(A * m_types);
    for (size_t i = 0; i < A; ++i) {
        const int j = m_active[i];
        const JobState& s = m_jobs[size_t(j)];
        const uint64_t mask = ctx.rt(j).typeMask;
        for (size_t t = 0; t < m_types; ++t) {
            if (s.tp.T[t] <= 0 || t >= 64 || !((mask >> t) & 1ULL))
                continue;
            const double p = prio[i * m_types + t];
            if (skipZero && p <= 0)
                continue;
            entries.push_back({p, s.deficit[t], s.X.empty() ? 0.0 : s.X[t], int(t), i, -1});
        }
    }
    if (!m_pairs.empty()) {
        std::map<int, size_t> at; // job -> active index
        for (size_t i = 0; i < A; ++i)
            at[m_active[i]] = i;
        for (const auto& [key, ps] : m_pairs) {
            const auto ia = at.find(key.first), ib = at.find(key.second);
            if (ia == at.end() || ib == at.end())
                continue;
            const uint64_t mask = ctx.rt(key.first).typeMask & ctx.rt(key.second).typeMask;
            for (size_t t = 0; t < m_types && t < 64; ++t)
                if (ps.X[t] > 0 && ps.Ta[t] > 0 && ps.Tb[t] > 0 && ((mask >> t) & 1ULL))
                    entries.push_back({priority(ps.X[t], ps.received[t], t), ps.deficit[t], ps.X[t], int(t), ia->second, int(ib->second)});
        }
    }
    std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
        if (a.prio != b.prio)
            return a.prio > b.prio;
        if (a.deficit != b.deficit)
            return a.deficit > b.deficit;
        if (a.x != b.x)
            return a.x > b.x;
        if (typeRank[size_t(a.type)] != typeRank[size_t(b.type)])
            return typeRank[size_t(a.type)] < typeRank[size_t(b.type)];
        return a.i != b.i ? a.i < b.i : a.partner < b.partner;
    });
    std::vector<double> left = onlineWorkers(ctx); // failed and draining machines take no job in this round
    for (const Entry& e : entries) {
        if (chosenType[e.i] >= 0 || (e.partner >= 0 && chosenType[size_t(e.partner)] >= 0))
            continue;
        const double k = std::max(1, ctx.job(m_active[e.i]).wholeGpus());
        if (k > left[size_t(e.type)])
            continue;
        left[size_t(e.type)] -= k;
        chosenType[e.i] = e.type;
        chosenPrio[e.i] = e.prio;
        if (e.partner >= 0) {
            chosenType[size_t(e.partner)] = e.type;
            chosenPrio[size_t(e.partner)] = e.prio;
            chosenPartner[e.i] = int(e.partner);
            chosenPartner[size_t(e.partner)] = int(e.i);
        }
    }

    // placement per type: keepers first, then by decreasing scale factor; a pair is placed as one job (its
    // first member), each member holding half of the same GPUs
    const ClusterSpec& c = ctx.cluster();
    std::vector<char> taken(size_t(c.totalGpus()), 0);
    std::vector<std::vector<GpuSlot>> target(A);
    auto partnerJob = [&](size_t i) { return chosenPartner[i] >= 0 ? m_active[size_t(chosenPartner[i])] : -1; };
    for (int t : m_typeOrder) {
        std::vector<size_t> jobsOfType;
        for (size_t i = 0; i < A; ++i)
            if (chosenType[i] == t && (chosenPartner[i] < 0 || int(i) < chosenPartner[i]))
                jobsOfType.push_back(i);
        std::stable_sort(jobsOfType.begin(), jobsOfType.end(), [&](size_t a, size_t b) {
            return ctx.job(m_active[a]).wholeGpus() > ctx.job(m_active[b]).wholeGpus();
        });
        std::vector<size_t> movers;
        for (size_t i : jobsOfType) {
            const int j = m_active[i];
            const JobRuntime& rt = ctx.rt(j);
            const int milli = partnerJob(i) >= 0 ? 500 : ctx.job(j).fractional() ? ctx.job(j).milli() : 1000;
            bool keep = rt.status == JobStatus::Running && m_jobs[size_t(j)].runType == t && rt.partner == partnerJob(i);
            for (const GpuSlot& g : rt.slots)
                keep = keep && !taken[size_t(g.gpu)] && g.milli == milli;
            if (keep) {
                target[i] = rt.slots;
                for (const GpuSlot& g : rt.slots)
                    taken[size_t(g.gpu)] = 1;
            } else {
                movers.push_back(i);
            }
        }
        for (size_t i : movers) {
            const int k = std::max(1, ctx.job(m_active[i]).wholeGpus());
            // a fractional job gets a GPU of its own; a pair's members half of each GPU
            const int milli = partnerJob(i) >= 0 ? 500 : ctx.job(m_active[i]).fractional() ? ctx.job(m_active[i]).milli() : 1000;
            auto freeOn = [&](int m) {
                int n = 0;
                for (int g = c.gpuBase(m); g < c.gpuBase(m) + c.machines[size_t(m)].gpus; ++g)
                    n += taken[size_t(g)] ? 0 : 1;
                return n;
            };
            auto take = [&](int m, int n) {
                for (int g = c.gpuBase(m); g < c.gpuBase(m) + c.machines[size_t(m)].gpus && n > 0; ++g)
                    if (!taken[size_t(g)]) {
                        taken[size_t(g)] = 1;
                        target[i].push_back({g, milli});
                        --n;
                    }
            };
            int single = -1;
            for (int m : m_typeMachines[size_t(t)])
                if (!ctx.machineOffline(m) && freeOn(m) >= k) {
                    single = m;
                    break;
                }
            if (single >= 0) {
                take(single, k);
                continue;
            }
            int need = k;
            for (int m : m_typeMachines[size_t(t)]) {
                const int f = ctx.machineOffline(m) ? 0 : std::min(freeOn(m), need);
                if (f > 0) {
                    take(m, f);
                    need -= f;
                }
                if (need == 0)
                    break;
            }
            if (need > 0) { // cannot happen while `left` counts only online GPUs; never start a job short of GPUs
                for (const GpuSlot& g : target[i])
                    taken[size_t(g.gpu)] = 0;
                target[i].clear();
            }
        }
        for (size_t i : jobsOfType)
            if (chosenPartner[i] >= 0)
                target[size_t(chosenPartner[i])] = target[i];
    }

    // apply: stop what changes, then start
    for (size_t i = 0; i < A; ++i) {
        const int j = m_active[i];
        if (ctx.rt(j).status == JobStatus::Running && (ctx.rt(j).slots != target[i] || ctx.rt(j).partner != partnerJob(i)))
            ctx.preempt(j);
    }
    if (ctx.recording()) {
        std::vector<size_t> byPrio(A);
        std::iota(byPrio.begin(), byPrio.end(), 0);
        std::vector<double> best(A, 0.0);
        for (size_t i = 0; i < A; ++i)
            for (size_t t = 0; t < m_types; ++t)
                best[i] = std::max(best[i], prio[i * m_types + t]);
        std::stable_sort(byPrio.begin(), byPrio.end(), [&](size_t a, size_t b) { return best[a] > best[b]; });
        std::vector<ScoredJob> ranked;
        for (size_t i : byPrio)
            if (ctx.rt(m_active[i]).status == JobStatus::Pending)
                ranked.push_back({m_active[i], float(best[i])});
        ctx.recordQueue(std::move(ranked));
        AllocationRecord al;
        for (const GpuType& t : c.types)
            al.types.push_back(t.name);
        for (int j : m_active) {
            const JobState& s = m_jobs[size_t(j)];
            al.jobs.push_back(j);
            for (size_t t = 0; t < m_types; ++t)
                al.share.push_back(s.shown.empty() ? 0.0f : float(s.shown[t]));
            al.estimated.push_back(s.tp.estimated ? 1 : 0);
        }
        ctx.recordAllocation(std::move(al));
    }
    bool started = false;
    for (size_t i = 0; i < A; ++i) {
        const int j = m_active[i];
        if (target[i].empty() || ctx.rt(j).status == JobStatus::Running) {
            if (!target[i].empty())
                started = true; // kept its GPUs
            continue;
        }
        if (int(target[i].size()) != std::max(1, ctx.job(j).wholeGpus()))
            continue; // could not be placed (the type's machines were too fragmented)
        const int q = partnerJob(i);
        if (q >= 0 && int(i) > chosenPartner[i])
            continue; // started with its pair's first member
        std::vector<int> members {j};
        if (q >= 0)
            members.push_back(q);
        if (ctx.recording()) { // the starts below meet these records (the engine keeps the reason given here)
            std::vector<float> aff(size_t(c.machineCount()), -1.0f);
            for (int m : m_typeMachines[size_t(chosenType[i])])
                aff[size_t(m)] = 0.0f;
            for (const GpuSlot& g : target[i])
                aff[size_t(c.machineOfGpu(g.gpu))] = 1.0f;
            for (int mj : members)
                ctx.recordPlacement(mj, target[i], aff, explain(ctx, mj, chosenType[i], chosenPrio[i], mj == j ? q : j));
        }
        if (q >= 0) {
            std::vector<int> gpus;
            for (const GpuSlot& g : target[i])
                gpus.push_back(g.gpu);
            ctx.startShared(j, q, gpus);
            m_pairs[std::minmax(j, q)].segStart = now;
        } else {
            ctx.start(j, target[i]);
        }
        for (int mj : members) {
            JobState& s = m_jobs[size_t(mj)];
            s.runType = chosenType[i];
            s.runPartner = mj == j ? q : j;
            s.segStart = now;
        }
        started = true;
    }
    for (size_t i = 0; i < A; ++i)
        m_lastPriority[size_t(m_active[i])] = float(chosenPrio[i]);
    m_roundEnd = now + m_roundLen;
    if (started || !ctx.runningJobs().empty())
        ctx.wakeAt(m_roundEnd);
}

void GavelScheduler::schedule(SchedContext& ctx)
{
    while (m_scan < size_t(ctx.jobCount()) && ctx.rt(int(m_scan)).status != JobStatus::Future) {
        const int j = int(m_scan++);
        const JobStatus st = ctx.rt(j).status;
        if (st != JobStatus::Pending && st != JobStatus::Running)
            continue;
        ensureKnown(j);
        JobState& s = m_jobs[size_t(j)];
        s.active = true;
        s.received.assign(m_types, m_roundLen / 2);
        s.deficit.assign(m_types, 0.0);
        m_active.push_back(j);
        m_needLp = true;
    }
    if (ctx.now() >= m_roundEnd - 1e-9 || ctx.runningJobs().empty())
        round(ctx);
}

} // namespace ss
