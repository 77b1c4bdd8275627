#include "policy/gittinsindex.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "policy/holding.h"
#include "policy/tiresias.h"

namespace ss {

namespace {
constexpr double kInfIndex = std::numeric_limits<double>::infinity();
// Hysteresis between the sets: a job joins the zone at an index up to (1 + kHyst) theta and leaves it above
// (1 + 2 kHyst) theta. A certificate above is made against a level up to (1 + kRoom) theta, so that theta can rise
// that far without re-examining it; theta is set kRoom above the levels the walk needs.
constexpr double kHyst = 0.01;
constexpr double kRoom = 0.01;
/// The level a job at index g above theta is certified against: up to kRoom above theta, below g by the hysteresis.
double certLevel(double theta, double g) { return theta < 0 ? theta : std::min(theta * (1 + kRoom), g / (1 + kHyst)); }
// theta rises at once to a level up to kJump above it, and falls when the recent levels stay kSlack below it
constexpr double kJump = 0.1;
constexpr double kSlack = 0.05;
// The grid: 2^kSub cells per octave, from 2^kLowExp up (cell 0 holds everything below, 0 included).
constexpr int kSub = 3;
constexpr int kLowExp = -30;
constexpr int kBase = (1023 + kLowExp) << kSub;

} // namespace

size_t gallopUpperBound(const std::vector<double>& v, double x, size_t from)
{
    const size_t n = v.size();
    from = std::min(from, n);
    if (from < n && !(x < v[from])) {
        if (from + 8 <= n) {
            // on by a few places (a running job's attained service between two evaluations, most often): the next
            // eight values at or below x, counted without a branch (sorted, so the count is the place while under 8)
            size_t k = 0;
            for (size_t i = 0; i < 8; ++i)
                k += v[from + i] <= x ? 1 : 0;
            if (k < 8)
                return from + k;
            from += 8;
            if (from == n || x < v[from])
                return from;
        }
        size_t step = 1, lo = from + 1, hi = from + 1;
        while (hi < n && !(x < v[hi])) {
            lo = hi + 1;
            hi = std::min(n, hi + step);
            step *= 2;
        }
        return size_t(std::upper_bound(v.begin() + long(std::min(lo, n)), v.begin() + long(std::min(hi, n)), x) - v.begin());
    }
    if (from > 0 && x < v[from - 1])
        return size_t(std::upper_bound(v.begin(), v.begin() + long(from), x) - v.begin());
    return from;
}

int GittinsRunIndex::cellOf(double x)
{
    if (!(x > 0))
        return 0;
    uint64_t b = 0;
    std::memcpy(&b, &x, sizeof b);
    const int64_t raw = int64_t(b >> (52 - kSub)) - kBase;
    if (raw < 0)
        return 0;
    if (raw + 1 >= kCells - 1)
        return kCells - 1;
    return int(raw + 1);
}

double GittinsRunIndex::edge(int c)
{
    if (c <= 0)
        return -kInfIndex;
    if (c >= kCells)
        return kInfIndex;
    const uint64_t b = uint64_t(c - 1 + kBase) << (52 - kSub);
    double x = 0;
    std::memcpy(&x, &b, sizeof x);
    return x;
}

void GittinsRunIndex::reset(const GittinsTable& table, size_t jobs, size_t types, size_t queues, const std::vector<int64_t>* use)
{
    m_table = &table;
    m_types = types;
    m_use = use;
    m_count = 0;
    m_evals = m_certs = 0;
    m_now = 0;
    m_decision = 1;
    m_version = 0;
    std::vector<std::pair<size_t, size_t>> hints;
    table.pieceStarts(m_at, m_low, m_high, &hints);
    const size_t samples = table.samples();
    m_largest = samples ? table.sample(samples - 1) : 0.0;
    m_delta = table.delta();
    if (samples >= kSearch)
        throw std::invalid_argument("GittinsRunIndex: 2^31 samples or more in the size distribution");
    m_pieces.resize(m_at.size());
    for (size_t i = 0; i < m_at.size(); ++i) {
        Piece& pc = m_pieces[i];
        const auto [lo, hi] = hints[i];
        pc.lo = uint32_t(lo);
        pc.hi = uint32_t(hi);
        pc.window = table.windowSum(lo, hi);
        // GittinsTable::index at attained service a searches lo = upper_bound(a) and hi = upper_bound(a + delta).
        // Inside a piece lo is fixed (every sample starts a piece), and hi is the piece's while sample(hi - 1) <=
        // a + delta < sample(hi), with a + delta as rounded. That sum never falls as a rises, so the positions hold
        // all over the piece when they hold at its start (where pieceStarts found them) and at the last double
        // before its end. Else (a sum rounded across a sample) an evaluation in the piece searches.
        const double start = m_at[i], end = i + 1 < m_at.size() ? m_at[i + 1] : kInfIndex;
        const bool fromStart = hi == 0 || table.sample(hi - 1) <= start + m_delta;
        const bool toEnd = hi >= samples || std::nextafter(end, -kInfIndex) + m_delta < table.sample(hi);
        if (!fromStart || !toEnd)
            pc.hi |= kSearch;
    }
    m_blocks = (m_low.size() + kBlock - 1) / kBlock;
    m_treeSize = 1;
    while (m_treeSize < std::max<size_t>(1, m_blocks))
        m_treeSize *= 2;
    m_treeMin.assign(2 * m_treeSize, kInfIndex);
    m_treeMax.assign(2 * m_treeSize, -kInfIndex);
    for (size_t i = 0; i < m_low.size(); ++i) {
        const size_t leaf = m_treeSize + i / kBlock;
        m_treeMin[leaf] = std::min(m_treeMin[leaf], m_low[i]);
        m_treeMax[leaf] = std::max(m_treeMax[leaf], m_high[i]);
    }
    for (size_t i = m_treeSize - 1; i >= 1; --i) {
        m_treeMin[i] = std::min(m_treeMin[2 * i], m_treeMin[2 * i + 1]);
        m_treeMax[i] = std::max(m_treeMax[2 * i], m_treeMax[2 * i + 1]);
    }
    m_jobs.assign(jobs, JobRec {});
    m_pos.assign(jobs, Pos {});
    m_queues.assign(queues, Queue {});
    for (Queue& q : m_queues) {
        q.total.assign(types, 0);
        q.cells.assign(size_t(kCells), {});
        q.fen.assign(size_t(kCells + 1) * (types + 1), 0);
    }
    m_expiry.clear();
    m_acc.assign(types, 0);
    m_need.assign(types, 0);
    m_held.assign(types, 0);
    m_tmp.assign(types, 0);
    m_cont = {};
}

// ---------------------------------------------------------------- sets

void GittinsRunIndex::fenAdd(Queue& q, int cell, const int64_t* use, int64_t sign)
{
    const size_t W = m_types + 1;
    for (size_t i = size_t(cell) + 1; i <= size_t(kCells); i += i & (~i + 1)) {
        int64_t* f = &q.fen[i * W];
        for (size_t t = 0; t < m_types; ++t)
            f[t] += sign * use[t];
        f[m_types] += sign;
    }
}

void GittinsRunIndex::fenRange(const Queue& q, int c0, int c1, int64_t* out) const
{
    if (c0 > c1)
        return;
    const size_t W = m_types + 1;
    for (size_t i = size_t(c1) + 1; i > 0; i -= i & (~i + 1))
        for (size_t t = 0; t < m_types; ++t)
            out[t] += q.fen[i * W + t];
    for (size_t i = size_t(c0); i > 0; i -= i & (~i + 1))
        for (size_t t = 0; t < m_types; ++t)
            out[t] -= q.fen[i * W + t];
}

int64_t GittinsRunIndex::fenCount(const Queue& q, int c0, int c1) const
{
    if (c0 > c1)
        return 0;
    const size_t W = m_types + 1;
    int64_t n = 0;
    for (size_t i = size_t(c1) + 1; i > 0; i -= i & (~i + 1))
        n += q.fen[i * W + m_types];
    for (size_t i = size_t(c0); i > 0; i -= i & (~i + 1))
        n -= q.fen[i * W + m_types];
    return n;
}

void GittinsRunIndex::cellPut(Queue& q, int job, int cell)
{
    JobRec& r = m_jobs[size_t(job)];
    auto& list = q.cells[size_t(cell)];
    r.cell = cell;
    r.slot = int(list.size());
    list.push_back(job);
    fenAdd(q, cell, useOf(job), +1);
}

void GittinsRunIndex::cellTake(Queue& q, int job)
{
    JobRec& r = m_jobs[size_t(job)];
    auto& list = q.cells[size_t(r.cell)];
    const int last = list.back();
    list[size_t(r.slot)] = last;
    m_jobs[size_t(last)].slot = r.slot;
    list.pop_back();
    fenAdd(q, r.cell, useOf(job), -1);
    r.cell = -1;
    r.slot = -1;
}

void GittinsRunIndex::zonePut(Queue& q, int job)
{
    JobRec& r = m_jobs[size_t(job)];
    r.slot = int(q.zone.size());
    q.zone.push_back(job);
    r.state = kZone;
}

void GittinsRunIndex::zoneTake(Queue& q, int job)
{
    JobRec& r = m_jobs[size_t(job)];
    const int last = q.zone.back();
    q.zone[size_t(r.slot)] = last;
    m_jobs[size_t(last)].slot = r.slot;
    q.zone.pop_back();
    r.slot = -1;
}

void GittinsRunIndex::detach(int job)
{
    JobRec& r = m_jobs[size_t(job)];
    Queue& q = m_queues[size_t(r.queue)];
    switch (r.state) {
    case kNew: break;
    case kAbove: cellTake(q, job); break;
    case kZone: zoneTake(q, job); break;
    case kNone: break;
    }
}

// ---------------------------------------------------------------- jobs

double GittinsRunIndex::attained(int job) const
{
    const JobRec& r = m_jobs[size_t(job)];
    return r.gpus * ((r.executed + std::max(0.0, m_now - r.lastStart)) - r.exec0);
}

const GittinsRunIndex::Pos& GittinsRunIndex::exact(int job)
{
    JobRec& r = m_jobs[size_t(job)];
    if (r.evalAt != m_decision) {
        // The job's piece (where it was last, or a search among the piece starts), whose record holds what
        // GittinsTable::index reads, unless a + delta rounds across a sample inside it (then the table searches).
        const double a = attained(job);
        size_t p = r.piece;
        if (!(p > 0 && m_at[p - 1] <= a && (p == m_at.size() || a < m_at[p])))
            p = gallopUpperBound(m_at, a, p);
        r.piece = p;
        double g = 0;
        const Piece* pc = p > 0 ? &m_pieces[p - 1] : nullptr;
        if (pc && !(pc->hi & kSearch)) {
            r.lo = pc->lo;
            r.hi = pc->hi;
            r.window = pc->window;
            g = a >= m_largest ? 0.0 : m_table->valueIn(a, pc->lo, pc->hi, pc->window);
        } else {
            GittinsTable::Hint h {};
            if (pc)
                h = {pc->lo, pc->hi & ~kSearch};
            g = m_table->index(a, h);
            r.lo = h.lo;
            r.hi = h.hi;
            r.window = m_table->windowSum(h.lo, h.hi);
        }
        m_pos[size_t(job)] = {{double(r.queue), -g, -r.submit, double((*m_zoneOf)[size_t(job)]), (*m_seqOf)[size_t(job)]}, job};
        r.evalAt = m_decision;
        ++m_evals;
    }
    return m_pos[size_t(job)];
}

void GittinsRunIndex::sync(double now)
{
    ++m_version;
    ++m_decision; // positions evaluated at the last decision are stale
    m_now = now;
    while (!m_expiry.empty() && m_expiry.top().at <= now) {
        const Expiry e = m_expiry.top();
        m_expiry.pop();
        JobRec& r = m_jobs[size_t(e.job)];
        if (r.state == kAbove && e.stamp == r.stamp && !r.due) {
            r.due = true;
            Queue& q = m_queues[size_t(r.queue)];
            q.due.push_back(e.job);
            if (q.due.size() > 2 * size_t(q.count) + 64)
                q.due.erase(std::remove_if(q.due.begin(), q.due.end(),
                                           [&](int j) { return !m_jobs[size_t(j)].due || m_jobs[size_t(j)].queue != r.queue; }),
                            q.due.end());
        }
    }
}

void GittinsRunIndex::insert(int job, int queue, double now, const Service& s)
{
    ++m_version;
    if (m_jobs[size_t(job)].state != kNone)
        erase(job);
    m_now = now;
    JobRec& r = m_jobs[size_t(job)];
    r.gpus = s.gpus;
    r.executed = s.executed;
    r.lastStart = s.lastStart;
    r.exec0 = s.exec0;
    r.submit = s.submit;
    r.queue = queue;
    r.state = kNew;
    r.due = true;
    r.evalAt = 0;
    r.retryAt = 0;
    ++r.stamp;
    Queue& q = m_queues[size_t(queue)];
    for (size_t t = 0; t < m_types; ++t)
        q.total[t] += useOf(job)[t];
    q.due.push_back(job);
    if (q.due.size() > 2 * size_t(q.count) + 64) // (a queue asked nothing keeps its list short)
        q.due.erase(std::remove_if(q.due.begin(), q.due.end(),
                                   [&](int j) { return !m_jobs[size_t(j)].due || m_jobs[size_t(j)].queue != queue; }),
                    q.due.end());
    ++q.count;
    ++m_count;
}

void GittinsRunIndex::erase(int job)
{
    ++m_version;
    JobRec& r = m_jobs[size_t(job)];
    if (r.state == kNone)
        return;
    detach(job);
    Queue& q = m_queues[size_t(r.queue)];
    holdingTake(useOf(job), q.total.data(), m_types);
    --q.count;
    --m_count;
    r.state = kNone;
    r.due = false;
    ++r.stamp;
}

void GittinsRunIndex::setQueue(int job, int queue)
{
    ++m_version;
    JobRec& r = m_jobs[size_t(job)];
    if (r.state == kNone || r.queue == queue)
        return;
    const Service s {r.gpus, r.executed, r.lastStart, r.exec0, r.submit};
    const size_t lo = r.lo, hi = r.hi, piece = r.piece;
    erase(job);
    insert(job, queue, m_now, s);
    r.lo = lo;
    r.hi = hi;
    r.piece = piece;
}

// ---------------------------------------------------------------- certificates

size_t GittinsRunIndex::firstLeaving(size_t from, double lowLimit, double highLimit, double& lo, double& hi) const
{
    const size_t n = m_low.size();
    auto leaves = [&](size_t i) { return m_low[i] < lowLimit || m_high[i] >= highLimit; };
    auto widen = [&](double l, double h) {
        lo = std::min(lo, l);
        hi = std::max(hi, h);
    };
    const size_t blockEnd = std::min(n, (from / kBlock + 1) * kBlock);
    for (size_t i = from; i < blockEnd; ++i) {
        if (leaves(i))
            return i;
        widen(m_low[i], m_high[i]);
    }
    if (blockEnd >= n)
        return n;
    // the first block after from's with a piece leaving the band, found in the tree over blocks (every node passed
    // on the way holds pieces before it)
    auto bad = [&](size_t node) { return m_treeMin[node] < lowLimit || m_treeMax[node] >= highLimit; };
    size_t node = blockEnd / kBlock + m_treeSize;
    for (;;) {
        if (bad(node)) {
            while (node < m_treeSize) {
                node *= 2;
                if (!bad(node)) {
                    widen(m_treeMin[node], m_treeMax[node]);
                    ++node;
                }
            }
            break;
        }
        widen(m_treeMin[node], m_treeMax[node]);
        while (node & 1)
            node >>= 1;
        if (node == 0)
            return n;
        ++node;
    }
    const size_t b = node - m_treeSize;
    for (size_t i = b * kBlock; i < std::min(n, (b + 1) * kBlock); ++i) {
        if (leaves(i))
            return i;
        widen(m_low[i], m_high[i]);
    }
    throw std::logic_error("GittinsRunIndex: a block's bounds disagree with its pieces");
}

bool GittinsRunIndex::certificatesHold() const
{
    for (size_t j = 0; j < m_jobs.size(); ++j) {
        const JobRec& r = m_jobs[j];
        if (r.state != kAbove || r.due)
            continue;
        GittinsTable::Hint h {};
        const double g = m_table->index(attained(int(j)), h);
        // and above its queue's zone level, as the walk takes it (jobs above theta are ahead of a level at or below it)
        if (!(r.certLow <= g && g <= r.certHigh && r.certLow > m_queues[size_t(r.queue)].theta))
            return false;
    }
    return true;
}

bool GittinsRunIndex::certify(int job, double level, double thetaCert)
{
    ++m_certs;
    JobRec& r = m_jobs[size_t(job)];
    const int c = cellOf(level);
    // the band: [edge(c - 1), edge(c + 2)) and above thetaCert
    const double lowLimit = std::max(edge(c - 1), std::nextafter(thetaCert, kInfIndex));
    const double highLimit = edge(c + 2);
    const double a = attained(job);
    const size_t n = m_at.size();
    r.piece = gallopUpperBound(m_at, a, r.piece);
    // the rest of the current piece: the index rises from its value now to at most its limit at the piece's end
    const auto [low, high] = m_table->boundsAt(a, r.piece < n ? m_at[r.piece] : a, GittinsTable::Hint {r.lo, r.hi}, r.window);
    if (low < lowLimit || high >= highLimit) {
        r.retryAt = r.piece < n ? m_now + (m_at[r.piece] - a) / r.gpus : kInfIndex;
        return false;
    }
    double certLow = low, certHigh = high;
    const size_t leave = firstLeaving(r.piece, lowLimit, highLimit, certLow, certHigh);
    if (r.state != kAbove || r.cell != c) { // (a renewal in the same cell keeps the job where it is)
        detach(job);
        cellPut(m_queues[size_t(r.queue)], job, c);
    }
    r.state = kAbove;
    r.due = false;
    r.certLow = certLow;
    r.certHigh = certHigh;
    ++r.stamp;
    if (leave < n && r.gpus > 0) {
        // valid while the attained service stays below the first piece leaving the band (margin for rounding)
        const double until = m_at[leave];
        const double margin = 1e-9 * (std::fabs(until) + r.gpus * (1.0 + std::fabs(m_now)));
        m_expiry.push({m_now + (until - a - margin) / r.gpus, job, r.stamp});
        if (m_expiry.size() > 2 * size_t(m_count) + 64) // entries of renewed or stopped jobs are dropped now and then
            m_expiry.removeIf([&](const Expiry& e) {
                const JobRec& x = m_jobs[size_t(e.job)];
                return x.state != kAbove || e.stamp != x.stamp;
            });
    }
    return true;
}

void GittinsRunIndex::classify(Queue& q, int job)
{
    JobRec& r = m_jobs[size_t(job)];
    const double g = levelOf(job);
    if (g > q.theta * (1 + kHyst)) {
        if (certify(job, g, certLevel(q.theta, g)))
            return;
    }
    if (r.state != kZone) {
        detach(job);
        zonePut(q, job);
    }
}

void GittinsRunIndex::raise(Queue& q, double theta)
{
    q.theta = theta;
    // jobs above whose certified lower bound may reach theta are examined again (a certificate made against a
    // level keeps the index above it, so its lower bound is above that level: those certified against theta or
    // higher are never among them)
    const int top = std::min(kCells - 1, cellOf(theta) + 1);
    for (int c = 0; c <= top; ++c)
        for (const int j : q.cells[size_t(c)]) {
            JobRec& r = m_jobs[size_t(j)];
            if (!(r.certLow > theta) && !r.due) {
                r.due = true;
                q.due.push_back(j);
            }
        }
}

void GittinsRunIndex::noteAsked(Queue& q, double level)
{
    if (std::isfinite(level))
        q.askedNow = std::max(q.askedNow, level);
}

void GittinsRunIndex::ready(int qi)
{
    Queue& q = m_queues[size_t(qi)];
    if (q.ready == m_decision)
        return;
    q.ready = m_decision;
    // theta follows the levels the walk needed at the last decisions that asked about this queue: up at once to
    // kRoom above the last decision's (unless that is far above theta: a level asked now and then, answered by the
    // cells), down once the recent ones all stay well below it
    if (q.askedAt != 0 && q.askedNow >= 0) {
        q.asked[q.askedNext] = q.askedNow;
        q.askedNext = (q.askedNext + 1) % kAsked;
        q.askedFill = std::min(kAsked, q.askedFill + 1);
        const double last = q.askedNow;
        double recent = -1, low4 = kInfIndex;
        for (size_t i = 0; i < std::min(kFall, q.askedFill); ++i)
            recent = std::max(recent, q.asked[(q.askedNext + kAsked - 1 - i) % kAsked]);
        for (size_t i = 0; i < q.askedFill; ++i)
            low4 = std::min(low4, q.asked[(q.askedNext + kAsked - 1 - i) % kAsked]);
        if (last > q.theta && (q.theta <= 0 || last <= q.theta * (1 + kJump)))
            raise(q, last * (1 + kRoom));
        else if (q.askedFill >= kAsked && low4 > q.theta * (1 + kJump))
            raise(q, q.theta * (1 + kJump)); // far above, four times running: the walk moved, theta follows step by step
        else if (recent * (1 + kRoom) * (1 + kSlack) < q.theta)
            q.theta = recent * (1 + kRoom);
    }
    q.askedAt = m_decision;
    q.askedNow = -1;
    // new jobs and expired certificates
    for (size_t i = 0; i < q.due.size(); ++i) {
        const int j = q.due[i];
        JobRec& r = m_jobs[size_t(j)];
        if (!r.due || r.queue != qi || r.state == kNone)
            continue;
        r.due = false;
        classify(q, j);
    }
    q.due.clear();
    // the zone, evaluated; jobs well above theta leave it
    q.sorted.clear();
    for (size_t i = 0; i < q.zone.size();) {
        const int j = q.zone[i];
        const Pos& p = exact(j);
        const double g = -p.key[1];
        const JobRec& r = m_jobs[size_t(j)];
        if (g > q.theta * (1 + 2 * kHyst) && m_now >= r.retryAt) {
            if (certify(j, g, certLevel(q.theta, g)))
                continue; // (moved out: another job is at i now)
        }
        q.sorted.push_back(p);
        ++i;
    }
    // the zone is kept in last decision's order, so the positions are nearly sorted: an insertion sort, unless
    // they moved a lot
    // (one queue's positions: their first parts are equal, so the index decides unless two are equal)
    const auto less = [](const Pos& x, const Pos& y) {
        if (x.key[1] < y.key[1])
            return true;
        if (y.key[1] < x.key[1])
            return false;
        return x < y;
    };
    std::vector<Pos>& v = q.sorted;
    size_t moves = 0;
    const size_t limit = 8 * v.size() + 64;
    for (size_t i = 1; i < v.size() && moves <= limit; ++i) {
        if (!less(v[i], v[i - 1]))
            continue;
        Pos x = v[i];
        size_t k = i;
        for (; k > 0 && less(x, v[k - 1]); --k)
            v[k] = v[k - 1];
        v[k] = x;
        moves += i - k;
    }
    if (moves > limit)
        std::sort(v.begin(), v.end(), less);
    q.prefix.assign((v.size() + 1) * m_types, 0);
    for (size_t i = 0; i < v.size(); ++i) {
        q.zone[i] = v[i].job;
        m_jobs[size_t(v[i].job)].slot = int(i);
        const int64_t* u = useOf(v[i].job);
        for (size_t t = 0; t < m_types; ++t)
            q.prefix[(i + 1) * m_types + t] = q.prefix[i * m_types + t] + u[t];
    }
}

} // namespace ss
