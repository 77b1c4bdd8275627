// 2D-LAS and 2D-Gittins's queue movement (PreemptiveScheduler, tiresias.h): running jobs demoted as their
// attained service crosses their queue's threshold, waiting jobs promoted once starved (las.knob), and the
// wake-up for the next of either. Crossing and starvation times are fixed while a job runs or waits, so both
// live in lazily pruned min-heaps whose front alone is read (tiresias.cpp has the walk that uses them).
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "policy/tiresias.h"

namespace ss {

double PreemptiveScheduler::crossMargin(double now) const
{
    // wide enough to cover the demotion tolerance (1e-9 of a threshold, in GPU-seconds) and the rounding
    // between the predicted crossing time and the value recomputed now; candidates are re-checked exactly
    const double top = m_thr.empty() ? 1.0 : m_thr.back();
    return 1e-6 * (1.0 + top / m_minGpus) + 1e-9 * std::fabs(now);
}

namespace {
bool crossAfter(double ta, int ja, double tb, int jb) { return ta > tb || (ta == tb && ja > jb); }
} // namespace

void PreemptiveScheduler::crossSet(const SchedContext& ctx, int j)
{
    crossErase(j);
    const int q = m_q[size_t(j)];
    if (q >= int(m_thr.size()))
        return;
    const double t = ctx.now() + (m_thr[size_t(q)] - lasAttained(ctx, j)) / ctx.job(j).gpus;
    m_crossAt[size_t(j)] = t;
    m_cross.push_back({t, j, ++m_crossVer[size_t(j)]});
    std::push_heap(m_cross.begin(), m_cross.end(), [](const CrossEntry& a, const CrossEntry& b) { return crossAfter(a.t, a.job, b.t, b.job); });
    ++m_crossLive;
}

void PreemptiveScheduler::crossErase(int j)
{
    const double t = m_crossAt[size_t(j)];
    if (std::isnan(t))
        return;
    ++m_crossVer[size_t(j)]; // its entry is dead
    --m_crossLive;
    m_crossAt[size_t(j)] = std::numeric_limits<double>::quiet_NaN();
}

namespace {
// The lazy min-heaps of (time, job, version) entries (threshold crossings, starvation): an entry is live while
// its version is its job's. Drops dead entries from the top, and all of them when they outnumber the live ones;
// false when none is live.
template <class E> bool lazyPrune(std::vector<E>& h, const std::vector<uint32_t>& ver, size_t live)
{
    const auto after = [](const E& a, const E& b) { return crossAfter(a.t, a.job, b.t, b.job); };
    const auto dead = [&](const E& e) { return ver[size_t(e.job)] != e.ver; };
    if (h.size() > 2 * live + 64) {
        h.erase(std::remove_if(h.begin(), h.end(), dead), h.end());
        std::make_heap(h.begin(), h.end(), after);
    }
    while (!h.empty() && dead(h.front())) {
        std::pop_heap(h.begin(), h.end(), after);
        h.pop_back();
    }
    return !h.empty();
}

// f(job) for the live entries at or before `horizon`: a subtree at the top of the heap
template <class E, class F>
void lazyUpTo(const std::vector<E>& h, const std::vector<uint32_t>& ver, double horizon, std::vector<size_t>& stack, F f)
{
    if (h.empty())
        return;
    stack.clear();
    stack.push_back(0);
    while (!stack.empty()) {
        const size_t i = stack.back();
        stack.pop_back();
        const E e = h[i];
        if (!(e.t <= horizon))
            continue;
        if (ver[size_t(e.job)] == e.ver)
            f(e.job);
        for (size_t c = 2 * i + 1; c <= 2 * i + 2 && c < h.size(); ++c)
            stack.push_back(c);
    }
}
} // namespace

bool PreemptiveScheduler::crossPrune() { return lazyPrune(m_cross, m_crossVer, m_crossLive); }

template <class F> void PreemptiveScheduler::crossUpTo(double horizon, F f)
{
    if (crossPrune())
        lazyUpTo(m_cross, m_crossVer, horizon, m_crossStack, f);
}

void PreemptiveScheduler::starvePush(const SchedContext& ctx, int j)
{
    // what promoteStarved tests, fixed while the job waits: it is starved from about t0 + exec (1 + knob) on
    starveDrop(j);
    const double exec = starveExec(ctx, j);
    if (exec <= 0)
        return;
    m_starve.push_back({m_t0[size_t(j)] + exec * (1 + m_knob), j, m_starveVer[size_t(j)]});
    m_starveIn[size_t(j)] = 1;
    std::push_heap(m_starve.begin(), m_starve.end(), [](const CrossEntry& a, const CrossEntry& b) { return crossAfter(a.t, a.job, b.t, b.job); });
    ++m_starveLive;
}

double PreemptiveScheduler::starveExec(const SchedContext& ctx, int j) const
{
    if (m_q[size_t(j)] == 0 || m_t0[size_t(j)] < 0)
        return -1;
    return ctx.rt(j).executedAt(ctx.now()) - m_exec0[size_t(j)];
}

bool PreemptiveScheduler::starvedNow(const SchedContext& ctx, int j) const
{
    const double exec = starveExec(ctx, j);
    if (exec <= 0)
        return false;
    const double waited = ctx.now() - m_t0[size_t(j)] - exec;
    return waited >= exec * m_knob - 1e-9 * std::max(1.0, exec * m_knob);
}

double PreemptiveScheduler::starvedAt(const SchedContext& ctx, int j) const
{
    const double now = ctx.now();
    const double exec = starveExec(ctx, j);
    if (exec <= 0)
        return kInf;
    return now + exec * m_knob - (now - m_t0[size_t(j)] - exec);
}

void PreemptiveScheduler::starveDrop(int j)
{
    // the job's entry, if it has one, dies (its version moves on)
    if (m_starveIn[size_t(j)]) {
        m_starveIn[size_t(j)] = 0;
        --m_starveLive;
    }
    ++m_starveVer[size_t(j)];
}

bool PreemptiveScheduler::starvePrune() { return lazyPrune(m_starve, m_starveVer, m_starveLive); }

template <class F> void PreemptiveScheduler::starveUpTo(double horizon, F f)
{
    if (starvePrune())
        lazyUpTo(m_starve, m_starveVer, horizon, m_crossStack, f);
}

void PreemptiveScheduler::demoteRunning(const SchedContext& ctx)
{
    const int K = int(m_thr.size()) + 1;
    const double now = ctx.now();
    m_demoted.clear();
    auto reached = [&](int j) {
        const double lim = m_thr[size_t(m_q[size_t(j)])];
        return lasAttained(ctx, j) >= lim - 1e-9 * std::max(1.0, lim);
    };
    // only jobs predicted to cross by now can have crossed; the exact test is the one over all running jobs
    const double horizon = now + crossMargin(now);
    crossUpTo(horizon, [&](int j) {
        if (m_q[size_t(j)] < K - 1 && reached(j))
            m_demoted.push_back(j);
    });
    if (m_demoted.size() > 1) {
        // jobs demoted together take their places in the engine's running-list order (running jobs only, once)
        m_demoted.erase(std::remove_if(m_demoted.begin(), m_demoted.end(), [&](int j) { return ctx.runningPosition(j) < 0; }),
                        m_demoted.end());
        std::sort(m_demoted.begin(), m_demoted.end(),
                  [&](int a, int b) { return ctx.runningPosition(a) < ctx.runningPosition(b); });
        m_demoted.erase(std::unique(m_demoted.begin(), m_demoted.end()), m_demoted.end());
    }
    for (int j : m_demoted) {
        const double a = lasAttained(ctx, j);
        while (m_q[size_t(j)] < K - 1) {
            const double lim = m_thr[size_t(m_q[size_t(j)])];
            if (a < lim - 1e-9 * std::max(1.0, lim))
                break;
            // to the back of the next queue
            ++m_q[size_t(j)];
            m_zone[size_t(j)] = 1;
            m_seq[size_t(j)] = ++m_back;
        }
        crossSet(ctx, j);
        if (m_order == PreemptOrder::Gittins)
            m_gidx.setQueue(j, m_q[size_t(j)]);
        if (m_inRun[size_t(j)]) {
            runErase(j);
            runInsert(j, keyFor(ctx, j));
        }
    }
}

void PreemptiveScheduler::promoteStarved(const SchedContext& ctx)
{
    std::vector<int> promote;
    // only jobs starved by about now can be (the heap's times are the test's, rearranged); the test is exact
    starveUpTo(ctx.now() + starveMargin(ctx.now()), [&](int j) {
        if (starvedNow(ctx, j))
            promote.push_back(j);
    });
    std::sort(promote.begin(), promote.end(), [&](int a, int b) { return m_jobItem[size_t(a)] < m_jobItem[size_t(b)]; });
    if (ctx.config().checkInvariants) { // every waiting job tested, as before the heap
        std::vector<int> all;
        for (const Bucket& b : m_buckets)
            for (const PItem& it : b.items)
                if (starvedNow(ctx, it.job))
                    all.push_back(it.job);
        std::sort(all.begin(), all.end(), [&](int a, int b) { return m_jobItem[size_t(a)] < m_jobItem[size_t(b)]; });
        if (all != promote)
            throw std::logic_error(m_name + ": the starvation heap promoted " + std::to_string(promote.size())
                                   + " jobs where " + std::to_string(all.size()) + " are starved at t=" + std::to_string(ctx.now()));
    }
    for (int j : promote) {
        removePending(j);
        m_q[size_t(j)] = 0;
        m_exec0[size_t(j)] = ctx.rt(j).executedAt(ctx.now());
        m_t0[size_t(j)] = -1;
        m_zone[size_t(j)] = 1;
        m_seq[size_t(j)] = ++m_back;
        enqueue(ctx, j);
    }
}

void PreemptiveScheduler::requestWake(SchedContext& ctx)
{
    if (m_order == PreemptOrder::Srtf)
        return;
    const double now = ctx.now();
    double t = kInf;
    // the earliest crossing among running jobs, recomputed as of now for the few near the front (the
    // prediction and the value recomputed now may differ in the last bits)
    if (crossPrune()) {
        const double horizon = m_cross.front().t + crossMargin(now);
        crossUpTo(horizon, [&](int j) {
            t = std::min(t, now + (m_thr[size_t(m_q[size_t(j)])] - lasAttained(ctx, j)) / ctx.job(j).gpus);
        });
    }
    // the earliest starvation among waiting jobs: its exact time as computed now is within the margin of the
    // heap's, so the minimum is among the entries within twice the margin of the front
    if (m_knob > 0 && starvePrune())
        starveUpTo(m_starve.front().t + 2 * starveMargin(std::max(std::fabs(now), std::fabs(m_starve.front().t))),
                   [&](int j) { t = std::min(t, starvedAt(ctx, j)); });
    if (m_knob > 0 && ctx.config().checkInvariants) { // the earliest over every waiting job, as before the heap
        double all = kInf;
        for (const Bucket& b : m_buckets)
            for (const PItem& it : b.items)
                all = std::min(all, starvedAt(ctx, it.job));
        if (std::min(all, t) != t)
            throw std::logic_error(m_name + ": the starvation heap missed the earliest promotion at t=" + std::to_string(now));
    }
    if (std::isfinite(t) && t > now && !(m_lastWake > now && m_lastWake == t)) {
        ctx.wakeAt(t);
        m_lastWake = t;
    }
}

} // namespace ss
