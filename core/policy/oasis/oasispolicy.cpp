#include "policy/oasis/oasispolicy.h"

#include <algorithm>
#include <cmath>

namespace ss::oasis {

OasisEngineScheduler::OasisEngineScheduler(const PolicyOptions& o)
{
    m_map.slotSeconds = o.paramD("oasis.slot", 600);
    m_map.psServers = int(o.paramD("oasis.ps_servers", 0));
    m_par.uScale = o.paramD("oasis.u_scale", 1);
    m_par.lScale = o.paramD("oasis.l_scale", 1);
    m_par.bounds = boundsFrom(o.param("oasis.bounds", "unit"));
    m_par.rigid = true;
}

namespace {
// "4 workers, 1 PS in slots 10-13, 15 on m0, m3": a schedule in one line for the admission reason (the studio's
// stepper and teaching mode show it; teaching.cpp reads the part after "schedule: ").
std::string scheduleSummary(const Schedule& s, const ClusterSpec& c)
{
    if (s.slots.empty())
        return "no slots";
    int wLo = s.slots[0].workers, wHi = wLo, pLo = s.slots[0].ps, pHi = pLo;
    std::vector<int> servers;
    for (const SlotAlloc& a : s.slots) {
        wLo = std::min(wLo, a.workers);
        wHi = std::max(wHi, a.workers);
        pLo = std::min(pLo, a.ps);
        pHi = std::max(pHi, a.ps);
        for (const auto& [h, n] : a.y)
            if (n > 0)
                servers.push_back(h);
    }
    std::sort(servers.begin(), servers.end());
    servers.erase(std::unique(servers.begin(), servers.end()), servers.end());
    auto range = [](int lo, int hi) { return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi); };
    std::string out = range(wLo, wHi) + (wHi == 1 ? " worker, " : " workers, ") + range(pLo, pHi) + (pHi == 1 ? " PS" : " PSs");
    std::string slots;
    for (size_t i = 0; i < s.slots.size();) {
        size_t e = i;
        while (e + 1 < s.slots.size() && s.slots[e + 1].slot == s.slots[e].slot + 1)
            ++e;
        slots += (slots.empty() ? "" : ", ") + range(s.slots[i].slot, s.slots[e].slot);
        i = e + 1;
    }
    out += (s.slots.size() == 1 ? " in slot " : " in slots ") + slots + " on ";
    for (size_t i = 0; i < servers.size(); ++i) {
        const int h = servers[i];
        out += (i ? ", " : "") + (h >= 0 && h < c.machineCount() ? c.machines[size_t(h)].name : "server " + std::to_string(h));
    }
    return out;
}
} // namespace

int OasisEngineScheduler::slotAt(double t) const { return int(std::floor(t / m_map.slotSeconds + 1e-9)); }

void OasisEngineScheduler::reset(const SimSetup& setup)
{
    m_cluster = &setup.cluster;
    m_sc = fromTrace(setup.trace, setup.cluster, m_map);
    m_js.assign(m_sc.jobs.size(), {});
    for (size_t i = 0; i < m_sc.jobs.size(); ++i) {
        try {
            validateJob(m_sc.jobs[i], m_sc);
        } catch (const OasisModelError& e) {
            m_js[i].invalid = e.what();
        }
    }
    m_alg.reset(m_sc, m_par);
    m_live.clear();
    m_utility = m_planned = m_sumMs = m_maxMs = 0;
    m_admitted = m_rejected = m_overruns = 0;
    m_pricesChanged = false;
}

const AdmissionDecision* OasisEngineScheduler::decision(int j) const
{
    return m_js[size_t(j)].decided ? &m_js[size_t(j)].d : nullptr;
}

AdmissionRecord OasisEngineScheduler::admit(const SchedContext& ctx, int j)
{
    JobState& s = m_js[size_t(j)];
    s.decided = true;
    if (!s.invalid.empty()) {
        ++m_rejected;
        return {j, Admit::Reject, kNoScore, s.invalid};
    }
    // the machines of GPU types the job may use
    std::vector<char> mask(m_cluster->machines.size(), 1);
    const uint64_t types = ctx.rt(j).typeMask;
    for (size_t m = 0; m < mask.size(); ++m)
        mask[m] = char((types >> m_cluster->machines[m].type) & 1ULL);
    s.d = m_alg.offer(j, &mask);
    m_sumMs += s.d.micros / 1000;
    m_maxMs = std::max(m_maxMs, s.d.micros / 1000);
    m_pricesChanged = true;
    const float score = s.d.feasible ? float(s.d.payoff()) : kNoScore;
    std::string why = s.d.reason();
    if (s.d.feasible)
        why += "; schedule: " + scheduleSummary(s.d.schedule, *m_cluster);
    if (!s.d.admitted) {
        ++m_rejected;
        std::vector<SlotAlloc>().swap(s.d.schedule.slots); // the plan not taken (its summary is in `why`)
        return {j, Admit::Reject, score, why};
    }
    ++m_admitted;
    m_planned += s.d.utility;
    s.admitted = true;
    m_live.push_back(j);
    return {j, Admit::Accept, score, why};
}

bool OasisEngineScheduler::startOn(SchedContext& ctx, int j, const std::vector<std::pair<int, int>>& parts,
                                   const std::string& why)
{
    const Job& jb = ctx.job(j);
    const uint64_t mask = ctx.rt(j).typeMask;
    std::vector<GpuSlot> slots;
    for (const auto& [m, c] : parts) {
        const Machine& mc = m_cluster->machines[size_t(m)];
        if (!((mask >> mc.type) & 1ULL))
            return false;
        int got = 0;
        for (int g = m_cluster->gpuBase(m); g < m_cluster->gpuBase(m) + mc.gpus && got < c; ++g)
            if (ctx.state().gpuHolderCount(g) == 0) {
                slots.push_back({g, jb.fractional() ? jb.milli() : 1000});
                ++got;
            }
        if (got < c)
            return false;
    }
    if (int(slots.size()) != jb.wholeGpus())
        return false;
    if (ctx.recording()) {
        // the reserved machines first (1), then machines that could hold a worker now (0), the rest -1
        std::vector<float> aff(size_t(m_cluster->machineCount()), -1.0f);
        for (int m = 0; m < m_cluster->machineCount(); ++m)
            if (ctx.state().freeGpus(m) > 0 && ((mask >> m_cluster->machines[size_t(m)].type) & 1ULL))
                aff[size_t(m)] = 0.0f;
        for (const auto& [m, c] : parts)
            aff[size_t(m)] = 1.0f;
        ctx.recordPlacement(j, slots, std::move(aff), why);
    }
    ctx.start(j, std::move(slots), why);
    return true;
}

void OasisEngineScheduler::schedule(SchedContext& ctx)
{
    const int t = slotAt(ctx.now());
    // every job arriving from now on is offered slots from t on (its arrival is the first slot boundary at or
    // after its submission), and the price record reads from t: the slots before it are not needed again
    m_alg.forgetBefore(t);
    // this slot's plan per live job (null: no workers planned now)
    std::vector<const SlotAlloc*>& plan = m_plan;
    plan.assign(m_live.size(), nullptr);
    for (size_t i = 0; i < m_live.size(); ++i) {
        JobState& s = m_js[size_t(m_live[i])];
        const auto& sl = s.d.schedule.slots;
        while (s.next < sl.size() && sl[s.next].slot < t)
            ++s.next;
        if (s.next < sl.size() && sl[s.next].slot == t)
            plan[i] = &sl[s.next];
        if (s.next >= sl.size() && !s.overrun && t > s.d.schedule.completion) {
            s.overrun = true;
            ++m_overruns;
        }
    }
    // stop what does not follow the plan: idle planned slots, moved placements; overrunning jobs give way below
    auto partsOf = [&](int j, std::vector<std::pair<int, int>>& p) {
        p.clear();
        for (const GpuSlot& g : ctx.rt(j).slots) {
            const int m = m_cluster->machineOfGpu(g.gpu);
            if (!p.empty() && p.back().first == m)
                ++p.back().second;
            else
                p.push_back({m, 1});
        }
        std::sort(p.begin(), p.end());
    };
    for (size_t i = 0; i < m_live.size(); ++i) {
        const int j = m_live[i];
        if (ctx.rt(j).status != JobStatus::Running || m_js[size_t(j)].overrun)
            continue;
        if (!plan[i]) {
            ctx.preempt(j);
            continue;
        }
        m_want.assign(plan[i]->y.begin(), plan[i]->y.end());
        std::sort(m_want.begin(), m_want.end());
        partsOf(j, m_parts);
        if (m_parts != m_want)
            ctx.preempt(j);
    }
    // start the planned jobs on their reserved machines, moving overrunning jobs out of the way
    for (size_t i = 0; i < m_live.size(); ++i) {
        const int j = m_live[i];
        if (!plan[i] || ctx.rt(j).status != JobStatus::Pending)
            continue;
        const std::string why = "OASiS slot " + std::to_string(t) + ": " + std::to_string(plan[i]->workers) +
                                " workers, " + std::to_string(plan[i]->ps) + " PSs as reserved";
        if (startOn(ctx, j, plan[i]->y, why))
            continue;
        for (int o : m_live)
            if (m_js[size_t(o)].overrun && ctx.rt(o).status == JobStatus::Running)
                ctx.preempt(o);
        startOn(ctx, j, plan[i]->y, why);
    }
    // overrunning jobs take any free GPUs, machine by machine
    for (int j : m_live) {
        if (!m_js[size_t(j)].overrun || ctx.rt(j).status != JobStatus::Pending)
            continue;
        int need = ctx.job(j).wholeGpus();
        const uint64_t types = ctx.rt(j).typeMask;
        int free = 0; // free GPUs of its types: too few, and the pass below cannot gather `need`
        for (size_t ty = 0; ty < m_cluster->types.size() && free < need; ++ty)
            if (ty < 64 && ((types >> ty) & 1ULL))
                free += ctx.state().freeGpusOfType(int(ty));
        if (free < need)
            continue;
        std::vector<std::pair<int, int>> parts;
        for (int m = 0; m < m_cluster->machineCount() && need > 0; ++m) {
            if (!((types >> m_cluster->machines[size_t(m)].type) & 1ULL))
                continue;
            const int k = std::min(need, ctx.state().freeGpus(m));
            if (k > 0) {
                parts.push_back({m, k});
                need -= k;
            }
        }
        if (need == 0)
            startOn(ctx, j, parts, "OASiS: overran its plan, on free GPUs");
    }
    if (ctx.recording()) {
        // waiting admitted jobs, the earliest planned slot first (priority: -slots until it runs)
        std::vector<ScoredJob> q;
        for (int j : m_live)
            if (ctx.rt(j).status == JobStatus::Pending) {
                const JobState& s = m_js[size_t(j)];
                const auto& sl = s.d.schedule.slots;
                const int when = s.next < sl.size() ? sl[s.next].slot : t;
                q.push_back({j, float(t - when)});
            }
        std::stable_sort(q.begin(), q.end(), [](const ScoredJob& a, const ScoredJob& b) { return a.priority > b.priority; });
        ctx.recordQueue(std::move(q));
        if (m_pricesChanged)
            ctx.recordAllocation(priceRecord(t));
    }
    m_pricesChanged = false;
    if (!m_live.empty())
        ctx.wakeAt((t + 1) * m_map.slotSeconds);
}

AllocationRecord OasisEngineScheduler::priceRecord(int t) const
{
    AllocationRecord a;
    const Ledger& l = m_alg.workerLedger();
    const int last = std::min(l.slots(), t + kPriceSlots);
    for (int s = std::max(0, t); s < last; ++s)
        a.types.push_back(kPriceSlotPrefix + std::to_string(s));
    if (a.types.empty())
        return a;
    for (int h = 0; h < l.servers(); ++h) {
        a.jobs.push_back(h);
        for (int s = std::max(0, t); s < last; ++s)
            a.share.push_back(float(m_alg.workerPrice(h, s, Gpu)));
    }
    a.estimated.assign(a.jobs.size(), 0);
    return a;
}

void OasisEngineScheduler::onJobStopped(int j, double now, bool finished, const JobRuntime& rt)
{
    if (!finished)
        return;
    JobState& s = m_js[size_t(j)];
    s.done = true;
    m_live.erase(std::remove(m_live.begin(), m_live.end(), j), m_live.end());
    std::vector<SlotAlloc>().swap(s.d.schedule.slots); // followed to its end: nothing reads it again
    s.next = 0;
    const int completion = std::max(0, int(std::ceil(now / m_map.slotSeconds - 1e-9)) - 1);
    const OasisJob& oj = m_sc.jobs[size_t(j)];
    m_utility += oj.f(double(std::max(1, completion - oj.arrival + 1)));
}

std::vector<std::pair<std::string, double>> OasisEngineScheduler::runStats() const
{
    const int offered = m_admitted + m_rejected;
    return {{"total_utility", m_utility},
            {"admitted", double(m_admitted)},
            {"rejected", double(m_rejected)},
            {"planned_utility", m_planned},
            {"alpha", m_alg.alpha()},
            {"overruns", double(m_overruns)},
            {"subroutine_mean_ms", offered ? m_sumMs / offered : 0.0},
            {"subroutine_max_ms", m_maxMs}};
}

namespace {
const PolicyRegistrar reg({.name = "oasis",
                           .family = PolicyFamily::Joint,
                           .description = "OASiS online primal-dual admission with slotted reservations (rigid gangs; "
                                          "elastic workers/PSs in simulate-oasis)",
                           .params = {{.key = "oasis.slot", .type = ParamSpec::Type::Number, .dflt = "600", .min = 1,
                                       .help = "slot length, seconds"},
                                      {.key = "oasis.ps_servers", .type = ParamSpec::Type::Integer, .dflt = "0", .min = 0,
                                       .help = "PS servers (0 = one per 4 machines)"},
                                      {.key = "oasis.u_scale", .type = ParamSpec::Type::Number, .dflt = "1", .min = 1e-6,
                                       .help = "multiplies the price bounds U"},
                                      {.key = "oasis.l_scale", .type = ParamSpec::Type::Number, .dflt = "1", .min = 1e-9,
                                       .help = "multiplies the zero-load price L"},
                                      {.key = "oasis.bounds", .type = ParamSpec::Type::Choice, .dflt = "unit",
                                       .choices = {"unit", "unit-slot", "density"},
                                       .help = "price bounds U, L (docs/REPRODUCTION-OASIS.md)"}},
                           .scheduler = [](const std::string&, const PolicyOptions& o) -> std::unique_ptr<Scheduler> {
                               return std::make_unique<OasisEngineScheduler>(o);
                           }});
} // namespace

} // namespace ss::oasis
