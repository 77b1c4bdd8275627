// Chronus: what happens at a lease boundary (the MILP and its fallback, guaranteed vs opportunistic jobs,
// preemption and placement), and the policy's registration. See chronus.cpp for the semantics.
#include <algorithm>
#include <cmath>

#include "policy/chronus/chronus.h"

namespace ss::chronus {

void ChronusScheduler::leaseBoundary(SchedContext& ctx, int64_t k)
{
    refreshClasses(ctx, k);
    const double now = ctx.now();

    // --- the accepted jobs to plan, and those kept out of the MILP with their cached plans
    std::vector<int> accepted;
    for (int j : m_active)
        if (m_js[size_t(j)].cls == JobClass::AcceptedSlo)
            accepted.push_back(j);
    std::sort(accepted.begin(), accepted.end());
    std::vector<PlanJob> pj;
    std::vector<int> fixed;
    const int maxEntries = m_p.maxEntries >= 0 ? m_p.maxEntries : int(1200.0 * m_p.leaseMinutes / 60.0);
    std::vector<PlanJob> all;
    size_t entries = 0;
    for (int j : accepted) {
        const Job& jb = ctx.job(j);
        PlanJob p;
        p.job = j;
        p.gpus = roundUpGpus(jb.wholeGpus());
        p.need = leasesNeeded(ctx, j);
        for (size_t v = 0; v < jb.deadlines.size(); ++v) {
            const int ml = int(leaseOf(jb.submit + jb.deadlines[v].offset) - k);
            if (ml >= p.need)
                p.levels.push_back({int(v), ml, jb.deadlines[v].value});
        }
        entries += p.levels.size();
        all.push_back(std::move(p));
    }
    // Nothing changed since the last solve (the same accepted jobs, no arrival, finish or class change): the
    // last plan, shifted by the lease that passed, is still feasible and keeps its levels; it is kept instead
    // of solving again [I] (the artifact re-solves; the value part of its optimum cannot improve, only the
    // current-lease term might).
    bool reuse = !accepted.empty() && accepted == m_lastSolved && m_lastSolveLease == k - 1;
    for (size_t i = 0; reuse && i < all.size(); ++i) {
        const JobState& s = m_js[size_t(all[i].job)];
        int held = 0;
        int64_t last = -1;
        for (int64_t l : s.plan)
            if (l >= k) {
                ++held;
                last = std::max(last, l);
            }
        bool levelOk = false;
        for (const PlanLevel& lv : all[i].levels)
            levelOk = levelOk || (lv.level == s.level && last - k < lv.maxLease);
        reuse = held == all[i].need && levelOk;
    }
    m_lastSolved = accepted;
    m_lastSolveLease = k;
    if (reuse) {
        LeaseSolve ls;
        ls.time = now;
        ls.lease = k;
        ls.jobs = int(all.size());
        ls.reused = true;
        ls.status = "plan kept: nothing changed since the last boundary";
        for (const PlanJob& p : all) {
            JobState& s = m_js[size_t(p.job)];
            s.kept = false; // the whole plan was kept, as the note says
            charge(p.job, -1);
            s.plan.erase(std::remove_if(s.plan.begin(), s.plan.end(), [&](int64_t l) { return l < k; }), s.plan.end());
            charge(p.job, +1);
        }
        runLease(ctx, k, ls);
        return;
    }
    std::vector<char> keep(all.size(), 0);
    if (int(entries) > maxEntries) {
        // the loosest jobs with cached plans keep them until the MILP is small enough
        std::vector<size_t> order;
        for (size_t i = 0; i < all.size(); ++i)
            if (!m_js[size_t(all[i].job)].plan.empty())
                order.push_back(i);
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return all[a].levels.back().maxLease > all[b].levels.back().maxLease; });
        for (size_t i : order) {
            if (int(entries) <= maxEntries)
                break;
            keep[i] = 1;
            entries -= all[i].levels.size();
        }
    }
    for (size_t i = 0; i < all.size(); ++i) {
        JobState& s = m_js[size_t(all[i].job)];
        s.kept = keep[i] != 0;
        if (keep[i]) {
            // shift the cached plan: leases already past are dropped
            charge(all[i].job, -1);
            s.plan.erase(std::remove_if(s.plan.begin(), s.plan.end(), [&](int64_t l) { return l < k; }), s.plan.end());
            charge(all[i].job, +1);
            fixed.push_back(all[i].job);
        } else {
            charge(all[i].job, -1);
            s.plan.clear();
            pj.push_back(std::move(all[i]));
        }
    }
    int horizon = 0;
    for (const PlanJob& p : pj)
        for (const PlanLevel& l : p.levels)
            horizon = std::max(horizon, l.maxLease);
    const std::vector<int> capacity = capacityFrom(k).freeVector(horizon);

    // --- solve
    LeaseSolve ls;
    ls.time = now;
    ls.lease = k;
    ls.jobs = int(pj.size());
    MilpOptions mo;
    mo.timeLimit = m_p.timeLimit;
    mo.gap = m_p.gap;
    mo.maxNodes = m_p.maxNodes;
    mo.gMax = double(m_maxRounded);
    bool unacceptedExist = false;
    for (int j : m_active)
        unacceptedExist = unacceptedExist || m_js[size_t(j)].cls == JobClass::UnacceptedSlo;
    mo.minusCurrent = m_p.mode == "minus" || (m_p.mode == "adaptive" && unacceptedExist);
    LeasePlan plan;
    if (!fixed.empty())
        ls.kept = int(fixed.size());
    if (pj.empty()) {
        ls.status = "nothing to plan";
    } else if (m_p.milp) {
        MilpResult r = solveLeaseMilp(pj, capacity, mo);
        ls.binaries = r.binaries;
        ls.seconds = r.seconds;
        ls.hitTimeLimit = r.hitTimeLimit;
        ls.hitNodeLimit = r.hitNodeLimit;
        if (r.solved) {
            plan = std::move(r.plan);
            ls.milp = true;
            ls.status = "MILP " + r.status;
        } else {
            plan = greedyPlan(pj, capacity);
            ls.fallback = true;
            ls.status = "MILP " + r.status + ": greedy fallback";
        }
    } else {
        plan = greedyPlan(pj, capacity);
        ls.status = "greedy selector";
    }
    for (size_t i = 0; i < pj.size(); ++i) {
        JobState& s = m_js[size_t(pj[i].job)];
        s.plan.clear();
        s.level = plan.level[i] >= 0 ? pj[i].levels[size_t(plan.level[i])].level : -1;
        for (int l : plan.leases[i])
            s.plan.push_back(k + l);
        s.planGpus = pj[i].gpus;
        charge(pj[i].job, +1);
    }

    runLease(ctx, k, ls);
}

void ChronusScheduler::runLease(SchedContext& ctx, int64_t k, LeaseSolve ls)
{
    const double now = ctx.now();
    // --- who runs this lease: guaranteed jobs, then the ranked rest by GPU count
    std::vector<int> guaranteedJobs, others;
    for (int j : m_active) {
        JobState& s = m_js[size_t(j)];
        s.guaranteed = s.cls == JobClass::AcceptedSlo && !s.plan.empty() && s.plan.front() == k;
        (s.guaranteed ? guaranteedJobs : others).push_back(j);
    }
    std::sort(guaranteedJobs.begin(), guaranteedJobs.end());
    ls.guaranteed = int(guaranteedJobs.size());
    recordPlan(ctx, k, ls);
    m_solves.push_back(ls);

    const double leaseLeft = m_leaseSec - (now - double(k) * m_leaseSec);
    int free = m_total;
    std::vector<char> want(m_js.size(), 0);
    for (int j : guaranteedJobs) {
        want[size_t(j)] = 1;
        free -= m_gpus[size_t(j)];
    }
    // the rest in rank order, each taken when its GPUs fit in what is left
    std::vector<int> opportunistic;
    auto take = [&](const Ranked& r) {
        want[size_t(r.job)] = 1;
        free -= r.gpus;
        opportunistic.push_back(r.job);
        if (r.tier == 5)
            m_js[size_t(r.job)].guaranteed = true;
    };
    std::vector<Ranked> ranked; // recorded: every one's rank, in order (the log)
    if (ctx.recording()) {
        ranked = rankWaiting(ctx, others, leaseLeft);
        for (const Ranked& r : ranked)
            if (r.gpus <= free)
                take(r);
    } else {
        // the running jobs (their work left moves) and the waiting ones whose rank moves are ranked now; the
        // other waiting jobs (all of them not guaranteed: an accepted SLO is never kept) are in the kept order
        rekey(ctx);
        std::vector<int> moving;
        for (int j : others)
            if (m_rankedAs[size_t(j)] != 1)
                moving.push_back(j);
        takeInOrder(rankWaiting(ctx, moving, leaseLeft), free, take);
    }
    // preempt what is not selected again; selected running jobs keep their GPUs
    const std::vector<int> running = ctx.runningJobs();
    for (int j : running)
        if (!want[size_t(j)])
            ctx.preempt(j);

    std::vector<int> toStart, failed;
    for (int j : guaranteedJobs)
        if (ctx.rt(j).status == JobStatus::Pending)
            toStart.push_back(j);
    placeBatch(ctx, toStart, "guaranteed", &failed);
    // a guaranteed job that did not fit (fragmentation): preempt opportunistic jobs, lowest ranked first
    for (int j : failed) {
        for (auto it = opportunistic.rbegin(); it != opportunistic.rend() && ctx.rt(j).status == JobStatus::Pending; ++it) {
            if (ctx.rt(*it).status != JobStatus::Running || m_js[size_t(*it)].guaranteed)
                continue;
            ctx.preempt(*it);
            placeBatch(ctx, {j}, "guaranteed (after preempting opportunistic jobs)", nullptr);
        }
    }
    toStart.clear();
    for (int j : opportunistic)
        if (ctx.rt(j).status == JobStatus::Pending)
            toStart.push_back(j);
    if (!toStart.empty())
        placeBatch(ctx, toStart, "opportunistic", nullptr);
    for (int j : opportunistic)
        if (ctx.rt(j).status != JobStatus::Running)
            m_js[size_t(j)].guaranteed = false;

    if (ctx.recording()) {
        std::vector<Ranked> all2;
        for (int j : guaranteedJobs)
            all2.push_back({j, 6, emergence(ctx, j), m_submit[size_t(j)], m_gpus[size_t(j)]});
        all2.insert(all2.end(), ranked.begin(), ranked.end());
        recordQueue(ctx, all2);
    }
}

void ChronusScheduler::recordPlan(SchedContext& ctx, int64_t k, const LeaseSolve& ls)
{
    if (!ctx.recording())
        return;
    struct Row {
        int job;
        int64_t first, last;
    };
    std::vector<Row> rows;
    for (int j : m_active) {
        const JobState& s = m_js[size_t(j)];
        if (s.cls != JobClass::AcceptedSlo || s.plan.empty())
            continue;
        const auto [lo, hi] = std::minmax_element(s.plan.begin(), s.plan.end());
        if (*hi >= k)
            rows.push_back({j, std::max(*lo, k), *hi});
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.first != b.first ? a.first < b.first : a.job < b.job; });
    const size_t planned = rows.size();
    if (rows.size() > size_t(kPlanRecordJobs))
        rows.resize(size_t(kPlanRecordJobs));
    std::string note = ls.status;
    if (!ls.reused && ls.jobs > 0) {
        // "MILP optimal (12 jobs, 240 binaries)"; "MILP optimal (greedy plan meets the bound; 3 jobs)"
        const std::string size = std::to_string(ls.jobs) + " job" + (ls.jobs == 1 ? "" : "s")
            + (ls.binaries > 0 ? ", " + std::to_string(ls.binaries) + " binaries" : std::string());
        if (!note.empty() && note.back() == ')')
            note.insert(note.size() - 1, "; " + size);
        else
            note += " (" + size + ")";
    }
    if (ls.kept > 0)
        note += "; " + std::to_string(ls.kept) + " job" + (ls.kept == 1 ? "" : "s") + " kept cached plans out of the MILP (size cap)";
    if (ls.hitNodeLimit && ls.milp)
        note += "; node limit hit";
    if (planned > rows.size())
        note += "; the first " + std::to_string(rows.size()) + " of " + std::to_string(planned) + " planned jobs logged";
    if (rows.empty())
        return; // no accepted job holds a plan: nothing to show (an empty allocation is not logged)
    AllocationRecord a;
    a.note = std::move(note);
    int64_t last = k;
    for (const Row& r : rows)
        last = std::max(last, r.last);
    const int cols = int(std::min<int64_t>(last - k + 1, kPlanRecordLeases));
    for (int c = 0; c < cols; ++c)
        a.types.push_back(kPlanLeasePrefix + std::to_string(k + c));
    a.share.assign(rows.size() * size_t(cols), 0.0f);
    for (size_t i = 0; i < rows.size(); ++i) {
        const JobState& s = m_js[size_t(rows[i].job)];
        a.jobs.push_back(rows[i].job);
        for (int64_t l : s.plan)
            if (l >= k && l < k + cols)
                a.share[i * size_t(cols) + size_t(l - k)] = float(s.planGpus);
        a.estimated.push_back(uint8_t(std::clamp(s.level + 1, 0, 127) | (s.kept ? kPlanKeptFlag : 0)));
    }
    ctx.recordAllocation(std::move(a));
}

std::vector<std::pair<std::string, double>> ChronusScheduler::runStats() const
{
    int milps = 0, hits = 0, nodeHits = 0, fallbacks = 0, kept = 0;
    double sum = 0, mx = 0;
    for (const LeaseSolve& s : m_solves) {
        if (s.jobs == 0)
            continue;
        if (s.reused) {
            ++kept;
            continue;
        }
        ++milps;
        sum += s.seconds;
        mx = std::max(mx, s.seconds);
        hits += s.hitTimeLimit ? 1 : 0;
        nodeHits += s.hitNodeLimit ? 1 : 0;
        fallbacks += s.fallback ? 1 : 0;
    }
    return {{"slo_accepted", double(m_accepted)},
            {"slo_accepted_later", double(m_acceptedLater)},
            {"slo_unaccepted", double(m_unaccepted)},
            {"overrun_demotions", double(m_demotions)},
            {"lease_boundaries", double(m_solves.size())},
            {"lease_milps", double(milps)},
            {"lease_plans_kept", double(kept)},
            {"lease_solver_mean_ms", milps ? 1000.0 * sum / milps : 0.0},
            {"lease_solver_max_ms", 1000.0 * mx},
            {"lease_time_limit_hits", double(hits)},
            {"lease_node_limit_hits", double(nodeHits)},
            {"lease_fallbacks", double(fallbacks)}};
}

namespace {
const PolicyRegistrar reg(
    {.name = "chronus",
     .family = PolicyFamily::Joint,
     .description = "Chronus (SoCC'21): SLO admission on leases, MILP (CBC) per lease boundary, SRTF for best-effort, "
                    "consolidation + local-search placement",
     .params = {{.key = "chronus.lease", .type = ParamSpec::Type::Number, .dflt = "20", .min = 1, .max = 1440,
                 .help = "lease length L in minutes"},
                {.key = "chronus.time_limit", .type = ParamSpec::Type::Number, .dflt = "60", .min = 0.001, .max = 3600,
                 .help = "MILP time limit per lease boundary, seconds (greedy fallback when no solution); a limit that is hit makes the plan depend on machine speed, so the default leaves the node limit to bound the work"},
                {.key = "chronus.gap", .type = ParamSpec::Type::Number, .dflt = "0.0001", .min = 0, .max = 1,
                 .help = "MILP relative optimality gap"},
                {.key = "chronus.max_nodes", .type = ParamSpec::Type::Integer, .dflt = "10", .min = -1,
                 .help = "MILP branch-and-bound nodes per boundary, the best plan found so far is used (-1 = no limit)"},
                {.key = "chronus.max_entries", .type = ParamSpec::Type::Integer, .dflt = "-1", .min = -1,
                 .help = "(job, level) entries per MILP before cached plans are kept out; -1 = 1200 L / 60"},
                {.key = "chronus.overhead", .type = ParamSpec::Type::Bool, .dflt = "1",
                 .help = "charge Chronus's 0.5 (1 + log2 g) min per resume (0: the run's perf model)"},
                {.key = "chronus.mode", .type = ParamSpec::Type::Choice, .dflt = "adaptive",
                 .choices = {"adaptive", "minus", "plus"},
                 .help = "sign of the MILP's current-lease term (adaptive: minus while unaccepted SLO jobs wait)"},
                {.key = "chronus.solver", .type = ParamSpec::Type::Choice, .dflt = "cbc", .choices = {"cbc", "greedy"},
                 .help = "lease planner: the MILP on CBC, or the greedy selector only"}},
     .scheduler = [](const std::string&, const PolicyOptions& o) -> std::unique_ptr<Scheduler> {
         return std::make_unique<ChronusScheduler>(ChronusParams::from(o));
     }});
} // namespace

} // namespace ss::chronus
