// Tetris, variant chosen: the ORIGINAL direction (SIGCOMM'14), which favours jobs with LESS remaining work,
// on the node-by-node loop of DL2's tetris_env.py:
//   visit machines with free capacity in id order; on each, repeatedly pick among the waiting jobs that fit
//   there the one with the highest  score = align - w * work  and start it there, until none fits;
//   align = sum_r free_r(m)/cap_r(m) * demand_r/cap_r(m)   over GPU, CPU, memory (CPU/memory only when both
//           the machine and the job model them),
//   work  = sum_r demand_r/cap_r(m) * remaining seconds     (resource-time still to do),
//   w     = mean(align) / mean(work) over the candidates on that machine (DL2's weighting, which puts the
//           two terms on one scale).
// DL2 adds w*work (favouring MORE remaining work, a bundle at a time for elastic jobs); the original Tetris
// subtracts it (shortest-remaining-work bias, which is what its paper argues for). We subtract.
// Gang (all-GPUs-at-once) jobs whose demand exceeds every single machine of their allowed types are started
// afterwards, FIFO, spanning machines with the consolidate placement.
// Only the oldest `tetris.window` waiting jobs (default 128; DL2 uses a window of 20-40) are considered per
// decision, which bounds the cost of a decision on long queues.
#include "policy/tetris.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "policy/placement.h"
#include "policy/placementutil.h"

namespace ss {

TetrisScheduler::TetrisScheduler(const PolicyOptions& opts)
{
    const double w = opts.paramD("tetris.window", 128);
    if (!(w >= 1))
        throw std::invalid_argument("tetris.window must be >= 1");
    m_window = int(std::min(w, 1e6));
    m_span = makePlacement("consolidate");
}

void TetrisScheduler::reset(const SimSetup& setup)
{
    m_cluster = &setup.cluster;
    m_trace = &setup.trace;
    m_cpuUsed.assign(size_t(setup.cluster.machineCount()), 0.0);
    m_memUsed.assign(size_t(setup.cluster.machineCount()), 0.0);
    m_decision = 0;
    m_checked.assign(size_t(setup.cluster.machineCount()), 0);
    m_candSince.assign(setup.trace.jobs.size(), 0);
    m_candLast.assign(setup.trace.jobs.size(), 0);
    m_windowJobs.clear();
    m_windowMasks.clear();
    m_windowSpans = false;
    m_windowValid = false;
    m_stoppedSince = false;
    m_qNext.assign(setup.trace.jobs.size(), -1);
    m_jWhole.resize(setup.trace.jobs.size());
    m_jMilli.resize(setup.trace.jobs.size());
    m_jFrac.resize(setup.trace.jobs.size());
    m_jSpan.assign(setup.trace.jobs.size(), 0);
    for (size_t j = 0; j < setup.trace.jobs.size(); ++j) {
        const Job& jb = setup.trace.jobs[j];
        m_jFrac[j] = jb.fractional() ? 1 : 0;
        m_jWhole[j] = jb.fractional() ? 0 : jb.wholeGpus();
        m_jMilli[j] = jb.fractional() ? jb.milli() : 1000 * jb.wholeGpus();
    }
    m_qHead = m_qTail = -1;
    m_scan = 0;
    m_resync = true;
    m_stateSig.clear();
    m_kindOf.assign(size_t(setup.cluster.machineCount()), 0);
    m_kinds.clear();
    std::vector<std::array<double, 3>> raw; // (GPUs, CPUs, memory) as the machine has them, bit for bit
    for (int m = 0; m < setup.cluster.machineCount(); ++m) {
        const Machine& mc = setup.cluster.machines[size_t(m)];
        const std::array<double, 3> key {double(mc.gpus), double(mc.cpus), mc.memoryGb};
        size_t k = 0;
        while (k < raw.size() && std::memcmp(raw[k].data(), key.data(), sizeof key) != 0)
            ++k;
        if (k == raw.size()) {
            raw.push_back(key);
            m_kinds.push_back({double(std::max(1, mc.gpus)), double(mc.cpus), mc.memoryGb});
        }
        m_kindOf[size_t(m)] = int(k);
    }
    m_logTerms.clear();
    m_logWeightAt.clear();
    m_logStateOf.clear();
    m_logScore.clear();
    m_logScoreAt.clear();
    m_logStamp = 0;
}

TetrisScheduler::LogTerms TetrisScheduler::quotients(const std::array<double, 3>& k, double need, double cpu, double mem,
                                                     double rem)
{
    LogTerms t;
    t.dg = need / k[0];
    double d = t.dg;
    t.cj = 0;
    if (k[1] > 0 && cpu > 0)
        d += (t.cj = cpu / k[1]);
    t.mj = 0;
    if (k[2] > 0 && mem > 0)
        d += (t.mj = mem / k[2]);
    t.work = d * rem;
    return t;
}

double TetrisScheduler::alignOn(const LogTerms& t, const std::array<double, 3>& k, double freeG, double cpuUsed,
                                double memUsed, double cpu, double mem)
{
    double a = (freeG / k[0]) * t.dg;
    if (k[1] > 0 && cpu > 0)
        a += ((k[1] - cpuUsed) / k[1]) * t.cj;
    if (k[2] > 0 && mem > 0)
        a += ((k[2] - memUsed) / k[2]) * t.mj;
    return a;
}

const TetrisScheduler::LogTerms& TetrisScheduler::logTerms(size_t i, int kind)
{
    LogTerms& t = m_logTerms[i * m_kinds.size() + size_t(kind)];
    if (t.stamp != m_logStamp) {
        const LogJob& jb = m_logJobs[i];
        t = quotients(m_kinds[size_t(kind)], jb.need, jb.cpu, jb.mem, jb.rem);
        t.stamp = m_logStamp;
    }
    return t;
}

double TetrisScheduler::logAlign(size_t i, int m, const ClusterState& st)
{
    const int kind = m_kindOf[size_t(m)];
    const LogJob& jb = m_logJobs[i];
    const double freeG = st.freeGpus(m) + (jb.frac ? st.maxFreeMilliOn(m) / 1000.0 : 0.0);
    return alignOn(logTerms(i, kind), m_kinds[size_t(kind)], freeG, m_cpuUsed[size_t(m)], m_memUsed[size_t(m)], jb.cpu, jb.mem);
}

// CPU and memory of a job are split over its machines in proportion to the GPU share held there.
void TetrisScheduler::charge(int job, const std::vector<GpuSlot>& slots, double sign)
{
    for (const GpuSlot& s : slots)
        m_checked[size_t(m_cluster->machineOfGpu(s.gpu))] = 0; // its fit changed
    const Job& jb = m_trace->jobs[size_t(job)];
    if (slots.empty() || (jb.cpu <= 0 && jb.memGb <= 0))
        return;
    double total = 0;
    for (const GpuSlot& s : slots)
        total += s.milli;
    for (const GpuSlot& s : slots) {
        const int m = m_cluster->machineOfGpu(s.gpu);
        m_cpuUsed[size_t(m)] += sign * jb.cpu * s.milli / total;
        m_memUsed[size_t(m)] += sign * jb.memGb * s.milli / total;
    }
}

void TetrisScheduler::onJobStopped(int job, double, bool finished, const JobRuntime& rt)
{
    charge(job, rt.slots, -1.0);
    m_stoppedSince = true;
    if (!finished)
        m_resync = true; // back in the engine's queue
}

void TetrisScheduler::queuePush(int j)
{
    m_qNext[size_t(j)] = -1;
    if (m_qTail >= 0)
        m_qNext[size_t(m_qTail)] = j;
    else
        m_qHead = j;
    m_qTail = j;
}

inline bool TetrisScheduler::fits(const Machine& mc, int m, const ClusterState& st, uint64_t mask, bool frac, int whole,
                                  int milli, double cpu, double mem) const
{
    if (mc.type >= 64 || !((mask >> mc.type) & 1ULL))
        return false;
    if (frac ? st.maxFreeMilliOn(m) < milli : st.freeGpus(m) < whole)
        return false;
    // a demand above the machine's whole capacity is capped at it, so such a job is not blocked forever
    if (mc.cpus > 0 && cpu > 0 && mc.cpus - m_cpuUsed[size_t(m)] + 1e-9 < std::min<double>(cpu, mc.cpus))
        return false;
    if (mc.memoryGb > 0 && mem > 0 && mc.memoryGb - m_memUsed[size_t(m)] + 1e-9 < std::min<double>(mem, mc.memoryGb))
        return false;
    return true;
}

bool TetrisScheduler::fitsOn(const SchedContext& ctx, int job, int m) const
{
    const Job& jb = ctx.job(job);
    return fits(ctx.cluster().machines[size_t(m)], m, ctx.state(), ctx.rt(job).typeMask, m_jFrac[size_t(job)],
                m_jWhole[size_t(job)], m_jMilli[size_t(job)], jb.cpu, jb.memGb);
}

double TetrisScheduler::align(const SchedContext& ctx, int job, int m) const
{
    const Job& jb = ctx.job(job);
    const bool frac = m_jFrac[size_t(job)];
    const std::array<double, 3>& k = m_kinds[size_t(m_kindOf[size_t(m)])];
    const double freeG = ctx.state().freeGpus(m) + (frac ? ctx.state().maxFreeMilliOn(m) / 1000.0 : 0.0);
    const double need = frac ? m_jMilli[size_t(job)] / 1000.0 : double(m_jWhole[size_t(job)]);
    return alignOn(quotients(k, need, jb.cpu, jb.memGb, 0.0), k, freeG, m_cpuUsed[size_t(m)], m_memUsed[size_t(m)], jb.cpu,
                   jb.memGb);
}

double TetrisScheduler::work(const SchedContext& ctx, int job, int m) const
{
    const Job& jb = ctx.job(job);
    const double need = m_jFrac[size_t(job)] ? m_jMilli[size_t(job)] / 1000.0 : double(m_jWhole[size_t(job)]);
    return quotients(m_kinds[size_t(m_kindOf[size_t(m)])], need, jb.cpu, jb.memGb,
                     std::max(0.0, ctx.rt(job).remainingAt(ctx.now())))
        .work;
}

double TetrisScheduler::score(const SchedContext& ctx, int job, int m, double w) const
{
    if (!fitsOn(ctx, job, m))
        return std::numeric_limits<double>::quiet_NaN();
    return align(ctx, job, m) - w * work(ctx, job, m);
}

void TetrisScheduler::schedule(SchedContext& ctx)
{
    const ClusterSpec& cl = ctx.cluster();
    const ClusterState& st = ctx.state();
    // The window (the oldest m_window waiting jobs) is what the last decision used as long as no job started
    // since and it was full: jobs leave the queue only by starting (this policy's own starts), and the jobs
    // that join it (arrivals, requeued jobs) join at the back, behind a full window. Reading the queue again
    // would walk past every job started since the engine last compacted it.
    // The waiting jobs in queue order, mirrored here as a list (the engine's queue skips, at every read, the
    // entries of every job started since it last compacted it, which grows with the queue). Jobs join the
    // engine's queue at the back: arrivals in trace order, and jobs that stopped unfinished (machine failures;
    // this policy never preempts) or were admitted late, after which the list is read again from the engine.
    if (m_resync || !ctx.admittedLate().empty()) {
        m_qHead = m_qTail = -1;
        ctx.forEachPending([&](int j) {
            queuePush(j);
            return true;
        });
        while (m_scan < size_t(ctx.jobCount()) && ctx.rt(int(m_scan)).status != JobStatus::Future)
            ++m_scan;
        m_resync = false;
        m_windowValid = false;
    } else {
        for (; m_scan < size_t(ctx.jobCount()) && ctx.rt(int(m_scan)).status != JobStatus::Future; ++m_scan)
            if (ctx.rt(int(m_scan)).status == JobStatus::Pending)
                queuePush(int(m_scan));
    }
    // The window (the oldest m_window waiting jobs) is what the last decision used as long as no job started
    // since and it was full: the jobs that join the queue join behind a full window.
    const bool sameWindow = m_windowValid;
    if (!m_windowValid) {
        m_windowJobs.clear();
        m_windowMasks.clear();
        m_windowSpans = false;
        int prev = -1;
        for (int j = m_qHead; j >= 0 && int(m_windowJobs.size()) < m_window;) {
            const int nx = m_qNext[size_t(j)];
            if (ctx.rt(j).status != JobStatus::Pending) { // started: out of the list for good
                if (prev < 0)
                    m_qHead = nx;
                else
                    m_qNext[size_t(prev)] = nx;
                if (m_qTail == j)
                    m_qTail = prev;
            } else {
                m_windowJobs.push_back(j);
                const uint64_t mask = ctx.rt(j).typeMask;
                m_windowMasks.push_back(mask);
                m_windowSpans = m_windowSpans || spans(cl, j, mask);
                prev = j;
            }
            j = nx;
        }
        m_windowValid = int(m_windowJobs.size()) >= m_window;
    }
    const std::vector<int>& window = m_windowJobs;
    // Nothing waiting fitted anywhere at the end of the last decision (its machine loop ends only when no
    // machine has room for a candidate left, and it started nothing, or the window would be stale). With the
    // same window, no job stopped since and the same free capacity, nothing fits now either: the decision
    // would only record that, so it is skipped unless decisions are being recorded.
    // (Capacity comes back without a stop only through machine events, which change these counts; failing one
    // idle machine and restoring another of the same type and GPU count at the same instant would not, and
    // then only a CPU or memory difference between the two could make a job fit where it did not.)
    stateSignature(st, m_sigScratch);
    if (sameWindow && !m_stoppedSince && m_sigScratch == m_stateSig && !ctx.recording())
        return;
    m_stoppedSince = false;
    // jobs bigger than every machine of their allowed types must span
    auto mustSpan = [&](int j) {
        return spans(cl, j, ctx.rt(j).typeMask);
    };
    auto weightOn = [&](const std::vector<int>& cands, int m) {
        double sa = 0, sw = 0;
        for (int j : cands) {
            sa += align(ctx, j, m);
            sw += work(ctx, j, m);
        }
        return sw > 0 ? sa / sw : 0.0;
    };
    // The log's scores visit only the machines a job fits on, found through the state's free-level bitsets (the
    // others cannot take it), and weigh the window on a machine once per machine state (logAlign, logTerms).
    auto forFitting = [&](size_t i, auto fn) { // window job i; fitsOn, from the unpacked job
        const LogJob& jb = m_logJobs[i];
        auto fitsHere = [&](int m) {
            return fits(cl.machines[size_t(m)], m, st, jb.mask, jb.frac, jb.whole, jb.milli, jb.cpu, jb.mem);
        };
        if (!jb.frac && jb.whole <= 0) { // (no GPU asked: the bitsets do not list every machine)
            for (int m = 0; m < cl.machineCount(); ++m)
                if (fitsHere(m))
                    fn(m);
            return;
        }
        const placeutil::TypeList types = placeutil::allowedTypes(cl, jb.mask);
        if (!jb.frac) {
            st.forMachinesWithFree(jb.whole, types.t, types.size(), [&](int m) {
                if (fitsHere(m))
                    fn(m);
            });
            return;
        }
        for (int m = placeutil::firstWithMilli(st, types, jb.milli, 0); m >= 0; m = placeutil::firstWithMilli(st, types, jb.milli, m + 1))
            if (fitsHere(m))
                fn(m);
    };
    // weightOn(window, m) at the current state, computed when first needed; a start makes its machines' stale
    if (ctx.recording()) {
        ++m_logStamp;
        if (m_logWeightAt.size() != size_t(cl.machineCount())) {
            m_logWeight.assign(size_t(cl.machineCount()), 0.0);
            m_logWeightAt.assign(size_t(cl.machineCount()), 0);
            m_logStateOf.assign(size_t(cl.machineCount()), -1);
        }
        m_logJobs.clear();
        for (const int j : window) {
            const Job& jb = ctx.job(j);
            const bool frac = m_jFrac[size_t(j)];
            m_logJobs.push_back({ctx.rt(j).typeMask, m_jWhole[size_t(j)], m_jMilli[size_t(j)], frac,
                                 frac ? m_jMilli[size_t(j)] / 1000.0 : double(m_jWhole[size_t(j)]), jb.cpu, jb.memGb,
                                 std::max(0.0, ctx.rt(j).remainingAt(ctx.now()))});
        }
        if (m_logTerms.size() < m_logJobs.size() * m_kinds.size())
            m_logTerms.resize(m_logJobs.size() * m_kinds.size());
        if (m_logJobs.size() <= 1024 && m_logScore.size() < m_logJobs.size() * kLogStates) {
            m_logScore.resize(m_logJobs.size() * kLogStates);
            m_logScoreAt.resize(m_logJobs.size() * kLogStates, 0);
        }
    }
    // Machines in the same state (kind, and what of its GPUs, CPUs and memory is free or used) weigh the window
    // the same, bit for bit: align and work read nothing else of a machine. Many are (idle machines of one
    // kind), so the weight is computed once per state at a decision.
    m_logWeightByState.clear();
    size_t lastState = 0;
    auto weightAt = [&](int m) {
        if (m_logWeightAt[size_t(m)] == m_logStamp)
            return m_logWeight[size_t(m)];
        const double cpu = m_cpuUsed[size_t(m)], mem = m_memUsed[size_t(m)];
        std::array<uint64_t, 5> key {uint64_t(m_kindOf[size_t(m)]), uint64_t(st.freeGpus(m)), uint64_t(st.maxFreeMilliOn(m)), 0, 0};
        std::memcpy(&key[3], &cpu, sizeof cpu);
        std::memcpy(&key[4], &mem, sizeof mem);
        double w = 0;
        const size_t n = m_logWeightByState.size();
        int state = -1;
        size_t at = n;
        auto same = [&](const std::array<uint64_t, 5>& o) {
            return o[0] == key[0] && o[1] == key[1] && o[2] == key[2] && o[3] == key[3] && o[4] == key[4];
        };
        if (lastState < n && same(m_logWeightByState[lastState].first))
            at = lastState;
        for (size_t k = 0; at == n && k < n; ++k)
            if (same(m_logWeightByState[k].first))
                at = k;
        if (at < n) {
            w = m_logWeightByState[at].second;
            lastState = at;
            state = int(at);
        } else { // weightOn(window, m)
            double sa = 0, sw = 0;
            const int kind = m_kindOf[size_t(m)];
            for (size_t i = 0; i < m_logJobs.size(); ++i) {
                sa += logAlign(i, m, st);
                sw += logTerms(i, kind).work;
            }
            w = sw > 0 ? sa / sw : 0.0;
            if (n < kLogStates) {
                m_logWeightByState.push_back({key, w});
                lastState = n;
                state = int(n);
            }
        }
        m_logStateOf[size_t(m)] = state;
        m_logWeight[size_t(m)] = w;
        m_logWeightAt[size_t(m)] = m_logStamp;
        return w;
    };
    // align - w * work, once per window job and machine state
    const bool scoreCache = m_logJobs.size() <= 1024;
    auto logScore = [&](size_t i, int m) {
        const double w = weightAt(m);
        const int state = m_logStateOf[size_t(m)];
        if (!scoreCache || state < 0)
            return logAlign(i, m, st) - w * logTerms(i, m_kindOf[size_t(m)]).work;
        const size_t at = i * kLogStates + size_t(state);
        if (m_logScoreAt[at] != m_logStamp) {
            m_logScore[at] = logAlign(i, m, st) - w * logTerms(i, m_kindOf[size_t(m)]).work;
            m_logScoreAt[at] = m_logStamp;
        }
        return m_logScore[at];
    };
    auto started = [&](const std::vector<GpuSlot>& slots) {
        if (ctx.recording())
            for (const GpuSlot& g : slots)
                m_logWeightAt[size_t(cl.machineOfGpu(g.gpu))] = 0;
    };
    auto affinityOf = [&](int j) {
        const size_t i = size_t(std::find(window.begin(), window.end(), j) - window.begin());
        std::vector<float> a(size_t(cl.machineCount()), 0.0f);
        float lo = std::numeric_limits<float>::max();
        std::vector<char> ok(a.size(), 0);
        forFitting(i, [&](int m) {
            a[size_t(m)] = float(logScore(i, m));
            ok[size_t(m)] = 1;
            lo = std::min(lo, a[size_t(m)]);
        });
        const float floorV = lo == std::numeric_limits<float>::max() ? -1.0f : lo - 1.0f;
        for (size_t m = 0; m < a.size(); ++m)
            if (!ok[m])
                a[m] = floorV;
        return a;
    };

    if (ctx.recording()) {
        // A job's best score over the machines it fits on, in machine order. Jobs that ask the same (types, GPUs,
        // CPUs, memory) fit on the same machines, found once for them all; of those, only the first machine in
        // each state is scored (the others score the same, bit for bit, and the max keeps the first of equals).
        std::vector<ScoredJob> ranked;
        struct FitClass {
            uint64_t mask, cpu, mem;
            int whole, milli;
            bool frac;
            size_t from, to; // its machines in `firsts`
        };
        std::vector<FitClass> fitClasses;
        std::vector<int>& firsts = m_logFirsts;
        firsts.clear();
        std::vector<char> seen(kLogStates);
        for (size_t i = 0; i < window.size(); ++i) {
            const LogJob& jb = m_logJobs[i];
            uint64_t cpu, mem;
            std::memcpy(&cpu, &jb.cpu, sizeof cpu);
            std::memcpy(&mem, &jb.mem, sizeof mem);
            size_t c = 0;
            while (c < fitClasses.size()
                   && !(fitClasses[c].mask == jb.mask && fitClasses[c].cpu == cpu && fitClasses[c].mem == mem
                        && fitClasses[c].whole == jb.whole && fitClasses[c].milli == jb.milli && fitClasses[c].frac == jb.frac))
                ++c;
            if (c == fitClasses.size()) {
                const size_t from = firsts.size();
                std::fill(seen.begin(), seen.end(), 0);
                forFitting(i, [&](int m) {
                    weightAt(m);
                    const int state = m_logStateOf[size_t(m)];
                    if (state < 0 || !seen[size_t(state)]) {
                        if (state >= 0)
                            seen[size_t(state)] = 1;
                        firsts.push_back(m);
                    }
                });
                fitClasses.push_back({jb.mask, cpu, mem, jb.whole, jb.milli, jb.frac, from, firsts.size()});
            }
            double best = -std::numeric_limits<double>::infinity();
            for (size_t k = fitClasses[c].from; k < fitClasses[c].to; ++k)
                best = std::max(best, logScore(i, firsts[k]));
            ranked.push_back({window[i], std::isfinite(best) ? float(best) : kNoScore});
        }
        std::stable_sort(ranked.begin(), ranked.end(), [](const ScoredJob& a, const ScoredJob& b) {
            const bool fa = !std::isnan(a.priority), fb = !std::isnan(b.priority);
            if (fa != fb)
                return fa;
            return fa && a.priority > b.priority;
        });
        ctx.recordQueue(std::move(ranked));
    }

    // whether a job may start now on one machine: the same for every job of one shape (type mask and demand)
    struct ShapeVerdict {
        uint64_t mask;
        int milli;
        char frac, ok;
    };
    std::vector<ShapeVerdict> verdicts;
    auto fitsSomewhere = [&](size_t i) { // window job i
        const int j = window[i];
        const uint64_t mask = m_windowMasks[i];
        for (const ShapeVerdict& v : verdicts)
            if (v.mask == mask && v.milli == m_jMilli[size_t(j)] && v.frac == m_jFrac[size_t(j)])
                return v.ok != 0;
        const bool ok = !mustSpan(j) && canPlaceNow(ctx, j);
        verdicts.push_back({mask, m_jMilli[size_t(j)], m_jFrac[size_t(j)], char(ok ? 1 : 0)});
        return ok;
    };
    std::vector<int> cands;
    for (size_t i = 0; i < window.size(); ++i)
        if (fitsSomewhere(i))
            cands.push_back(window[i]);
    // what fitsOn reads of each candidate, unpacked once per decision: the machine loop below visits every
    // machine with room and tests every candidate on it, so this test is the policy's inner loop
    struct Need {
        uint64_t mask;
        int whole, milli;
        bool frac;
        double cpu, mem;
    };
    std::vector<Need> need(cands.size());
    for (size_t i = 0; i < cands.size(); ++i) {
        const Job& jb = ctx.job(cands[i]);
        const bool frac = m_jFrac[size_t(cands[i])];
        need[i] = {ctx.rt(cands[i]).typeMask, m_jWhole[size_t(cands[i])], frac ? m_jMilli[size_t(cands[i])] : 0, frac, jb.cpu,
                   jb.memGb};
    }
    // candidates of one GPU shape pass or fail the type and GPU tests together: a machine where no shape
    // fits is skipped after one test per shape
    std::vector<int> shapeOf(cands.size());
    std::vector<Need> shapes;
    for (size_t i = 0; i < cands.size(); ++i) {
        size_t k = 0;
        while (k < shapes.size() && !(shapes[k].mask == need[i].mask && shapes[k].frac == need[i].frac
                                      && shapes[k].whole == need[i].whole && shapes[k].milli == need[i].milli))
            ++k;
        if (k == shapes.size())
            shapes.push_back(need[i]);
        // the shape's least CPU and memory (0 = some candidate asks for none): a lower bound on what any of
        // its candidates needs on a machine
        shapes[k].cpu = std::min(shapes[k].cpu, std::max(0.0, need[i].cpu));
        shapes[k].mem = std::min(shapes[k].mem, std::max(0.0, need[i].mem));
        shapeOf[i] = int(k);
    }
    std::vector<char> shapeFits(shapes.size());
    // only machines with room for some candidate's shape on a type it allows are visited: per (shape, type)
    // the next such machine, found with the cluster state's per-type trees and kept until the loop passes it
    // (machines after the one being filled do not change). Visiting a machine with no room would only record
    // that nothing fits there.
    struct Scan {
        int shape, type, next;
    };
    std::vector<Scan> scans;
    for (size_t k = 0; k < shapes.size(); ++k)
        for (int t = 0; t < int(cl.types.size()) && t < 64; ++t)
            if ((shapes[k].mask >> t) & 1ULL)
                scans.push_back({int(k), t, -2});
    std::vector<int> shapeLeft(shapes.size(), 0); // candidates of each shape not started yet
    for (int k : shapeOf)
        ++shapeLeft[size_t(k)];
    auto nextMachine = [&](int from) {
        int best = -1;
        for (Scan& sc : scans) {
            if (shapeLeft[size_t(sc.shape)] == 0)
                sc.next = -1; // every candidate of the shape has started
            if (sc.next == -1)
                continue; // none at or after an earlier `from`, so none after this one
            if (sc.next < from) {
                const Need& n = shapes[size_t(sc.shape)];
                sc.next = n.frac ? st.firstMachineWithFreeMilli(n.milli, from, sc.type) : st.firstMachineWithFree(n.whole, from, sc.type);
            }
            if (sc.next >= 0 && (best < 0 || sc.next < best))
                best = sc.next;
        }
        return best;
    };
    auto gpusFit = [&](const Need& n, int m) {
        return fits(cl.machines[size_t(m)], m, st, n.mask, n.frac, n.whole, n.milli, n.cpu, n.mem);
    };
    auto fitsFast = [&](size_t i, int m) { // = fitsOn(ctx, cands[i], m), given shapeFits for m
        const Need& n = need[i];
        const Machine& mc = cl.machines[size_t(m)];
        if (!shapeFits[size_t(shapeOf[i])])
            return false;
        if (mc.cpus > 0 && n.cpu > 0 && mc.cpus - m_cpuUsed[size_t(m)] + 1e-9 < std::min<double>(n.cpu, mc.cpus))
            return false;
        if (mc.memoryGb > 0 && n.mem > 0 && mc.memoryGb - m_memUsed[size_t(m)] + 1e-9 < std::min<double>(n.mem, mc.memoryGb))
            return false;
        return true;
    };
    // candidates by how long they have been candidates, newest first: a machine unchanged since it was last
    // found to fit none is tested only against the candidates that joined since
    ++m_decision;
    std::vector<size_t> byAge(cands.size());
    for (size_t i = 0; i < cands.size(); ++i) {
        const size_t j = size_t(cands[i]);
        if (m_candLast[j] + 1 != m_decision)
            m_candSince[j] = m_decision;
        m_candLast[j] = m_decision;
        byAge[i] = i;
    }
    // = std::stable_sort by m_candSince descending. The candidates are in window order (queue order), and a job
    // that stays a candidate keeps its m_candSince while the ones behind it joined later, so the keys almost always
    // rise along the window (at 1M jobs in every decision counted, each key mostly its own job's): then the order
    // is the window's runs of equal keys from the last run to the first, each run in window order, found in one
    // pass (the sort took about an eighth of a 1M-job run). Keys that fall somewhere: the sort itself.
    auto newerFirst = [&](size_t a, size_t b) { return m_candSince[size_t(cands[a])] > m_candSince[size_t(cands[b])]; };
    bool rising = true;
    for (size_t i = 1; i < cands.size() && rising; ++i)
        rising = m_candSince[size_t(cands[i - 1])] <= m_candSince[size_t(cands[i])];
    if (rising) {
        size_t o = 0;
        for (size_t end = cands.size(); end > 0;) {
            size_t begin = end - 1;
            while (begin > 0 && m_candSince[size_t(cands[begin - 1])] == m_candSince[size_t(cands[end - 1])])
                --begin;
            for (size_t i = begin; i < end; ++i)
                byAge[o++] = i;
            end = begin;
        }
    } else {
        std::stable_sort(byAge.begin(), byAge.end(), newerFirst);
    }
    if (ctx.config().checkInvariants) {
        std::vector<size_t> want(cands.size());
        for (size_t i = 0; i < want.size(); ++i)
            want[i] = i;
        std::stable_sort(want.begin(), want.end(), newerFirst);
        if (want != byAge)
            throw std::logic_error("tetris: the candidates' age order differs from a stable sort at t=" + std::to_string(ctx.now()));
    }
    std::vector<int> here;
    for (int m = nextMachine(0); m >= 0 && !cands.empty(); m = nextMachine(m + 1)) {
        for (;;) {
            here.clear();
            if (const uint64_t known = m_checked[size_t(m)]; known > 0) {
                // unchanged since a decision where no candidate of then fitted: only later candidates can
                for (size_t o = 0; o < byAge.size() && m_candSince[size_t(cands[byAge[o]])] > known; ++o)
                    if (gpusFit(need[byAge[o]], m))
                        here.push_back(int(byAge[o]));
                std::sort(here.begin(), here.end()); // back to queue order
                for (int& i : here)
                    i = cands[size_t(i)];
            } else {
                bool any = false;
                for (size_t k = 0; k < shapes.size(); ++k)
                    any = (shapeFits[k] = gpusFit(shapes[k], m) ? 1 : 0) || any;
                if (any)
                    for (size_t i = 0; i < cands.size(); ++i)
                        if (fitsFast(i, m))
                            here.push_back(cands[i]);
            }
            if (here.empty()) {
                m_checked[size_t(m)] = m_decision;
                break;
            }
            const double w = weightOn(here, m);
            int best = -1;
            double bestS = 0;
            for (int j : here) {
                const double s = align(ctx, j, m) - w * work(ctx, j, m);
                if (best < 0 || s > bestS)
                    best = j, bestS = s;
            }
            const Job& jb = ctx.job(best);
            std::vector<GpuSlot> slots;
            const int base = cl.gpuBase(m);
            if (jb.fractional()) {
                int g = -1;
                for (int x = base; x < base + cl.machines[size_t(m)].gpus; ++x)
                    if (st.gpuFreeMilli(x) >= jb.milli() && (g < 0 || st.gpuFreeMilli(x) < st.gpuFreeMilli(g)))
                        g = x;
                slots.push_back({g, jb.milli()});
            } else {
                for (int x = base; x < base + cl.machines[size_t(m)].gpus && int(slots.size()) < jb.wholeGpus(); ++x)
                    if (st.gpuFreeMilli(x) >= 1000 && st.gpuHolderCount(x) == 0)
                        slots.push_back({x, 1000});
            }
            if (ctx.recording())
                ctx.recordPlacement(best, slots, ctx.placementScoresKept() ? affinityOf(best) : std::vector<float> {},
                                    "tetris: best packing score on machine " + cl.machines[size_t(m)].name);
            charge(best, slots, +1.0);
            started(slots);
            ctx.start(best, slots, "tetris");
            m_windowValid = false;
            const size_t at = size_t(std::find(cands.begin(), cands.end(), best) - cands.begin());
            cands.erase(cands.begin() + long(at));
            --shapeLeft[size_t(shapeOf[at])];
            need.erase(need.begin() + long(at));
            shapeOf.erase(shapeOf.begin() + long(at));
            byAge.erase(std::find(byAge.begin(), byAge.end(), at));
            for (size_t& o : byAge)
                o -= o > at ? 1 : 0;
        }
    }
    // gang jobs larger than any machine: FIFO, spanning (none in most windows: the loop is then skipped)
    if (m_windowSpans)
        for (int j : window)
            if (ctx.rt(j).status == JobStatus::Pending && mustSpan(j) && canPlaceNow(ctx, j)) {
                std::vector<GpuSlot> slots;
                std::vector<float> scores;
                if (!m_span->place(ctx, j, slots, ctx.recording() ? &scores : nullptr))
                    continue;
                if (ctx.recording())
                    ctx.recordPlacement(j, slots, std::move(scores), "tetris: spans machines (consolidate)");
                charge(j, slots, +1.0);
                started(slots);
                ctx.start(j, slots, "tetris");
                m_windowValid = false;
            }
    stateSignature(st, m_stateSig);
}

bool TetrisScheduler::spans(const ClusterSpec& cl, int j, uint64_t typeMask)
{
    char& v = m_jSpan[size_t(j)];
    if (v == 0)
        v = !m_jFrac[size_t(j)] && m_jWhole[size_t(j)] > cl.maxGpusPerMachineOf(typeMask) ? 2 : 1;
    return v == 2;
}

void TetrisScheduler::stateSignature(const ClusterState& st, std::vector<int64_t>& out) const
{
    out.assign({st.totalFreeGpus(), st.usedMilli(), st.fragmentedFreeGpus(), st.busyMachines()});
    for (int t = 0; t < int(m_cluster->types.size()); ++t)
        out.push_back(st.freeGpusOfType(t));
}

namespace {
const PolicyRegistrar reg({.name = "tetris",
                           .family = PolicyFamily::Joint,
                           .description = "Tetris multi-resource packing (GPU, CPU, memory) with a remaining-work term",
                           .params = {{.key = "tetris.window", .type = ParamSpec::Type::Number, .dflt = "128", .min = 1,
                                       .help = "queued jobs considered per decision"}},
                           .scheduler = [](const std::string&, const PolicyOptions& o) -> std::unique_ptr<Scheduler> {
                               return std::make_unique<TetrisScheduler>(o);
                           }});
} // namespace

} // namespace ss

