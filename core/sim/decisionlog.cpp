#include "sim/decisionlog.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ss {

// ------------------------------------------------------------------------------------------------- Replayer
Replayer::Replayer(const DecisionLog& log) : m_log(log)
{
    m_holders.assign(size_t(std::max(0, log.gpuCount)), {});
}

const std::vector<GpuSlot>& Replayer::slotsOf(int job) const
{
    static const std::vector<GpuSlot> none;
    if (job < 0 || size_t(job) >= m_jobSlots.size())
        return none;
    return m_jobSlots[size_t(job)];
}

void Replayer::apply(const DecisionRecord& r, bool)
{
    auto drop = [&](int job) {
        if (job < 0 || size_t(job) >= m_jobSlots.size())
            return;
        for (const GpuSlot& s : m_jobSlots[size_t(job)]) {
            auto& h = m_holders[size_t(s.gpu)];
            for (size_t i = 0; i < h.size(); ++i)
                if (h[i].job == job) {
                    h.erase(h.begin() + long(i));
                    break;
                }
        }
        m_jobSlots[size_t(job)].clear();
        auto it = std::find(m_running.begin(), m_running.end(), job);
        if (it != m_running.end())
            m_running.erase(it);
    };
    for (int j : r.finished)
        drop(j);
    for (int j : r.preempted)
        drop(j);
    for (const PlacementRecord& p : r.placements) {
        if (p.slots.empty())
            continue;
        if (size_t(p.job) >= m_jobSlots.size())
            m_jobSlots.resize(size_t(p.job) + 1);
        drop(p.job);
        m_jobSlots[size_t(p.job)] = p.slots;
        for (const GpuSlot& s : p.slots)
            if (s.gpu >= 0 && size_t(s.gpu) < m_holders.size())
                m_holders[size_t(s.gpu)].push_back({p.job, s.milli});
        m_running.push_back(p.job);
    }
}

void Replayer::rebuildFromStart(int k)
{
    for (auto& h : m_holders)
        h.clear();
    m_jobSlots.clear();
    m_running.clear();
    m_pos = -1;
    for (int i = 0; i <= k; ++i)
        apply(m_log.records[size_t(i)], true);
    m_pos = k;
}

void Replayer::seek(int k)
{
    k = std::clamp(k, -1, int(m_log.records.size()) - 1);
    if (k == m_pos)
        return;
    if (k < m_pos) {
        rebuildFromStart(k);
        return;
    }
    for (int i = m_pos + 1; i <= k; ++i)
        apply(m_log.records[size_t(i)], true);
    m_pos = k;
}

// ------------------------------------------------------------------------------------------ binary encoding
// Record layout (version 7; all integers LEB128 varints, signed ones zig-zag; floats raw little-endian bits
// so that a round trip is exact, NaN "no score" included):
//   index time(f64) arrived[] finished[] queueLength queue[] preempted[] placements[] admissions[] allocation
//   int lists: count, then zig-zag deltas from the previous value (job ids are mostly increasing)
//   queue (version 7): item count, then runs until that many items: a varint h; h even: h/2 items copied from the
//          previous record's queue of the stream, from the place (zig-zag) after the last copied run's end (0 at a
//          record's start); h odd: h/2 literal items (their job deltas chained across the record's literal items).
//          Versions 2 to 6: item count, then the items.
//   queue item: job(zz delta) flags(bit0 std, bit1 gate, bit2 critic, bit3 clock) priority(f32) [std f32] [gate f32]
//          [critic f32]; with bit3 (version 8), clockFrom(f64) clockPer(f32) stand for the priority, which is
//          float((the record's time - clockFrom) / clockPer), also for the items a run copies (a queue whose
//          scores move only with the clock, FIFO's minutes waited, copies as a whole)
//   placement: job(zz) slots(count, gpu, milli) machines(count, values) affinity(count, f32...)
//              affinityVar(count, f32...) reason rwgpMean(count, f32...) rwgpVar(count, f32...)
//   admission: job(zz) verdict score(f32) reason
//   allocation: type count (version 6: type count x 2 + 1 when the record has a critic, so that a record without one
//               costs no byte more); when the type count > 0: type names (length + bytes), jobs[] (deltas), shares(count, f32...),
//               estimated(count, bytes), note (length + bytes; version 4)
//   critic (version 6, only when flagged): kind (varint, the character 'q' or 'v'), value(f32), then the placements
//           with a critic's value per machine: count, then per placement its index (varint) and critic(count, f32...)
//   reason: index into a table built as the stream goes; index == size: a new string follows (length +
//           bytes); index == size + 1: a literal string not added (past 256 distinct reasons).
// Older layouts still read: file version 1 (plain zig-zag ints, flags byte after the priority, literal
// reasons, no admissions), version 2 (no allocation), version 3 (no allocation note), version 4 (no RWGP
// posterior), version 5 (no critic), version 6 (queues item by item), version 7 (no clocked items) and the
// store's blob versions 1 (version 2 without admissions), 2 to 7 (the same steps).
const char* toString(Admit a)
{
    switch (a) {
    case Admit::Accept: return "accept";
    case Admit::Reject: return "reject";
    case Admit::Defer: return "defer";
    }
    return "?";
}

namespace {
const char kMagic[6] = {'S', 'S', 'D', 'L', 'O', 'G'};
constexpr uint8_t kVersion = 8;
constexpr uint64_t kBlobVersion = 8;

void putVar(std::string& b, uint64_t v)
{
    char c[10]; // LEB128: 7 bits a byte, low first
    size_t n = 0;
    while (v >= 0x80) {
        c[n++] = char(uint8_t(v) | 0x80);
        v >>= 7;
    }
    c[n++] = char(uint8_t(v));
    b.append(c, n);
}
void putInt(std::string& b, int64_t v) { putVar(b, (uint64_t(v) << 1) ^ uint64_t(v >> 63)); }
/// The low n bytes of u, least significant first, at p.
inline void storeLe(char* p, uint64_t u, int n)
{
    for (int i = 0; i < n; ++i)
        p[i] = char(uint8_t(u >> (8 * i)));
}
void putF(std::string& b, float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    char c[4];
    storeLe(c, u, 4);
    b.append(c, 4);
}
void putD(std::string& b, double d)
{
    uint64_t u;
    std::memcpy(&u, &d, 8);
    char c[8];
    storeLe(c, u, 8);
    b.append(c, 8);
}
void putFloats(std::string& b, const std::vector<float>& v)
{
    putVar(b, v.size());
    const size_t at = b.size();
    b.resize(at + 4 * v.size());
    char* p = b.data() + at;
    for (float f : v) {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        storeLe(p, u, 4);
        p += 4;
    }
}
void putDeltaInts(std::string& b, const std::vector<int>& v)
{
    putVar(b, v.size());
    int64_t prev = 0;
    for (int x : v) {
        putInt(b, int64_t(x) - prev);
        prev = x;
    }
}

/// Which layout a stream uses (see the comment above).
struct Layout {
    bool v1File = false;     // SSDLOG version 1
    bool admissions = true;  // version 2
    bool allocation = true;  // version 3
    bool note = true;        // version 4: the allocation's note
    bool rwgp = true;        // version 5: the RWGP posterior of a placement
    bool critic = true;      // version 6: the critic's values
    bool queueDelta = true;  // version 7: the queue as runs copied from the previous record's and literal items
    bool clock = true;       // version 8: queue items whose priority moves with the clock (ScoredJob::clockFrom)
};

/// A clocked item's priority at `time` (the writer checks that it is the priority it was given).
float clockedPriority(double time, const ScoredJob& q) { return ScoredJob::clockedPriority(time, q.clockFrom, q.clockPer); }

class Reader {
public:
    Reader(const char* data, size_t size, std::string source) : m_d(data), m_n(size), m_src(std::move(source)) {}
    bool atEnd() const { return m_p >= m_n; }
    [[noreturn]] void fail(const std::string& what) const
    {
        throw std::runtime_error(m_src + ": " + what + " at byte " + std::to_string(m_p));
    }
    uint64_t var()
    {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_p >= m_n)
                fail("truncated");
            const uint8_t c = uint8_t(m_d[m_p++]);
            v |= uint64_t(c & 0x7f) << shift;
            if (!(c & 0x80))
                return v;
        }
        fail("varint too long");
    }
    int64_t sint()
    {
        const uint64_t v = var();
        return int64_t(v >> 1) ^ -int64_t(v & 1);
    }
    size_t count()
    {
        const uint64_t n = var();
        if (n > m_n - m_p) // every item takes at least one byte
            fail("count larger than the data");
        return size_t(n);
    }
    void need(size_t n) const
    {
        if (m_n - m_p < n)
            fail("truncated");
    }
    float f()
    {
        need(4);
        uint32_t u = 0;
        for (int i = 0; i < 4; ++i)
            u |= uint32_t(uint8_t(m_d[m_p + size_t(i)])) << (8 * i);
        m_p += 4;
        float v;
        std::memcpy(&v, &u, 4);
        return v;
    }
    double d()
    {
        need(8);
        uint64_t u = 0;
        for (int i = 0; i < 8; ++i)
            u |= uint64_t(uint8_t(m_d[m_p + size_t(i)])) << (8 * i);
        m_p += 8;
        double v;
        std::memcpy(&v, &u, 8);
        return v;
    }
    uint8_t byte()
    {
        need(1);
        return uint8_t(m_d[m_p++]);
    }
    std::string bytes(size_t n)
    {
        need(n);
        std::string s(m_d + m_p, n);
        m_p += n;
        return s;
    }
    std::vector<float> floats()
    {
        std::vector<float> v(count());
        for (float& x : v)
            x = f();
        return v;
    }
    std::vector<int> ints(bool delta)
    {
        std::vector<int> v(count());
        int64_t prev = 0;
        for (int& x : v) {
            const int64_t s = sint();
            x = int(delta ? (prev += s) : s);
        }
        return v;
    }
    std::string reason(const Layout& l, std::vector<std::string>& table)
    {
        if (l.v1File)
            return bytes(count());
        const uint64_t idx = var();
        if (idx < table.size())
            return table[size_t(idx)];
        if (idx != table.size() && idx != table.size() + 1)
            fail("bad reason index");
        std::string s = bytes(count());
        if (idx == table.size() && table.size() < 256)
            table.push_back(s);
        return s;
    }

    /// A queue item as version 2 on writes it (job as a zig-zag delta from `prev`, which it moves on).
    void item(ScoredJob& q, int64_t& prev, bool clock, double time)
    {
        prev += sint();
        q.job = int(prev);
        const uint64_t flags = var();
        if (flags & 8) {
            if (!clock)
                fail("clocked queue item before version 8");
            q.clockFrom = d();
            q.clockPer = f();
            if (!std::isfinite(q.clockFrom) || !std::isfinite(q.clockPer) || q.clockPer == 0)
                fail("bad clocked queue item");
            q.priority = clockedPriority(time, q);
        } else {
            q.priority = f();
        }
        q.priorityStd = (flags & 1) ? f() : kNoScore;
        q.gate = (flags & 2) ? f() : kNoScore;
        q.critic = (flags & 4) ? f() : kNoScore;
    }
    /// Version 7's queue: its length, then runs until it is whole, each a varint h: h even, h/2 items copied from
    /// the previous record's queue from a place given as a zig-zag delta from where the last copy ended; h odd,
    /// h/2 literal items.
    void queueRuns(std::vector<ScoredJob>& out, const std::vector<ScoredJob>& prevQueue, bool clock, double time)
    {
        const uint64_t n = var();
        if (n > prevQueue.size() + (m_n - m_p)) // a copied item takes no byte, a literal one at least one
            fail("queue longer than the data");
        out.clear();
        out.reserve(size_t(n));
        int64_t expect = 0, prevJob = 0;
        while (out.size() < n) {
            const uint64_t h = var();
            const uint64_t len = h >> 1;
            if (len == 0 || len > n - out.size())
                fail("bad queue run");
            if (h & 1) {
                for (uint64_t k = 0; k < len; ++k) {
                    out.emplace_back();
                    item(out.back(), prevJob, clock, time);
                }
            } else {
                const int64_t at = expect + sint();
                if (at < 0 || uint64_t(at) + len > prevQueue.size())
                    fail("queue run outside the previous queue");
                const size_t from = out.size();
                out.insert(out.end(), prevQueue.begin() + at, prevQueue.begin() + at + int64_t(len));
                for (size_t k = from; k < out.size(); ++k)
                    if (!std::isnan(out[k].clockFrom))
                        out[k].priority = clockedPriority(time, out[k]);
                expect = at + int64_t(len);
            }
        }
    }

    DecisionRecord record(const Layout& l, std::vector<std::string>& reasons, int gpuCount,
                          std::vector<ScoredJob>& prevQueue)
    {
        DecisionRecord r;
        r.index = uint32_t(var());
        r.time = d();
        const bool delta = !l.v1File;
        r.arrived = ints(delta);
        r.finished = ints(delta);
        r.queueLength = int(var());
        if (l.queueDelta) {
            queueRuns(r.queue, prevQueue, l.clock, r.time);
            prevQueue = r.queue;
        } else {
            r.queue.resize(count());
        }
        int64_t prev = 0;
        for (ScoredJob& q : r.queue) {
            if (l.queueDelta)
                break;
            uint64_t flags = 0;
            if (l.v1File) {
                q.job = int(sint());
                q.priority = f();
                flags = byte();
            } else {
                prev += sint();
                q.job = int(prev);
                flags = var();
                q.priority = f();
            }
            q.priorityStd = (flags & 1) ? f() : kNoScore;
            q.gate = (flags & 2) ? f() : kNoScore;
            q.critic = (flags & 4) ? f() : kNoScore;
        }
        r.preempted = ints(delta);
        r.placements.resize(count());
        for (PlacementRecord& p : r.placements) {
            p.job = int(sint());
            p.slots.resize(count());
            for (GpuSlot& s : p.slots) {
                s.gpu = int(var());
                s.milli = int(var());
                if (gpuCount >= 0 && (s.gpu >= gpuCount || s.milli <= 0 || s.milli > 1000))
                    fail("GPU slot out of range");
            }
            p.machines.resize(count());
            for (uint32_t& m : p.machines)
                m = uint32_t(var());
            p.affinity = floats();
            p.affinityVar = floats();
            p.reason = reason(l, reasons);
            if (l.rwgp) {
                p.rwgpMean = floats();
                p.rwgpVar = floats();
            }
        }
        if (l.admissions) {
            r.admissions.resize(count());
            for (AdmissionRecord& a : r.admissions) {
                a.job = int(sint());
                const uint64_t v = var();
                if (v > uint64_t(Admit::Defer))
                    fail("bad admission verdict");
                a.verdict = Admit(v);
                a.score = f();
                a.reason = reason(l, reasons);
            }
        }
        bool hasCritic = false;
        if (l.allocation) {
            AllocationRecord a;
            uint64_t types = var();
            if (l.critic) {
                hasCritic = types & 1;
                types >>= 1;
            }
            if (types > m_n - m_p)
                fail("count larger than the data");
            a.types.resize(size_t(types));
            if (!a.types.empty()) {
                for (std::string& t : a.types) {
                    const size_t n = count();
                    t = std::string(bytes(n));
                }
                a.jobs = ints(true);
                a.share = floats();
                a.estimated.resize(count());
                for (uint8_t& e : a.estimated)
                    e = byte();
                if (a.share.size() != a.jobs.size() * a.types.size() || a.estimated.size() != a.jobs.size())
                    fail("allocation size mismatch");
                if (l.note)
                    a.note = bytes(count());
            }
            r.allocation = std::move(a);
        }
        if (hasCritic) {
            const uint64_t kind = var();
            if (kind != 'q' && kind != 'v')
                fail("bad critic kind");
            r.criticKind = char(kind);
            r.criticValue = f();
            const size_t n = count();
            for (size_t i = 0; i < n; ++i) {
                const uint64_t k = var();
                if (k >= r.placements.size())
                    fail("critic of a placement out of range");
                r.placements[size_t(k)].critic = floats();
            }
        }
        return r;
    }

private:
    const char* m_d;
    size_t m_n;
    std::string m_src;
    size_t m_p = 0;
};
} // namespace

void DecisionRecordEncoder::reason(std::string& b, const std::string& s)
{
    // Reasons are a few distinct strings, so a short linear scan is cheap; past 256 distinct ones they are
    // written literally (index size + 1) to keep the scan bounded.
    size_t idx = 0;
    while (idx < m_reasons.size() && m_reasons[idx] != s)
        ++idx;
    if (idx < m_reasons.size()) {
        putVar(b, idx);
        return;
    }
    if (m_reasons.size() < 256) {
        putVar(b, m_reasons.size());
        m_reasons.push_back(s);
    } else {
        putVar(b, m_reasons.size() + 1);
    }
    putVar(b, s.size());
    b += s;
}

namespace {
void putItem(std::string& b, const ScoredJob& q, int64_t& prev)
{
    putInt(b, int64_t(q.job) - prev);
    prev = q.job;
    const bool hasStd = !std::isnan(q.priorityStd), hasGate = !std::isnan(q.gate), hasCritic = !std::isnan(q.critic);
    const bool clocked = !std::isnan(q.clockFrom); // (checked by DecisionRecordEncoder::queue)
    putVar(b, (hasStd ? 1u : 0u) | (hasGate ? 2u : 0u) | (hasCritic ? 4u : 0u) | (clocked ? 8u : 0u));
    if (clocked) {
        putD(b, q.clockFrom);
        putF(b, q.clockPer);
    } else {
        putF(b, q.priority);
    }
    if (hasStd)
        putF(b, q.priorityStd);
    if (hasGate)
        putF(b, q.gate);
    if (hasCritic)
        putF(b, q.critic);
}

bool sameItem(const ScoredJob& a, const ScoredJob& b)
{
    // bit for bit (a NaN "no score" equals itself): a copied item must decode exactly as written; a clocked one
    // (both clocked, as written) by its clock, from which the reader computes the priority at the new time
    const bool ca = !std::isnan(a.clockFrom), cb = !std::isnan(b.clockFrom);
    if (ca != cb)
        return false;
    const bool score = ca ? std::memcmp(&a.clockFrom, &b.clockFrom, sizeof(double)) == 0
                                && std::memcmp(&a.clockPer, &b.clockPer, sizeof(float)) == 0
                          : std::memcmp(&a.priority, &b.priority, sizeof(float)) == 0;
    return a.job == b.job && score && std::memcmp(&a.priorityStd, &b.priorityStd, sizeof(float)) == 0
           && std::memcmp(&a.gate, &b.gate, sizeof(float)) == 0 && std::memcmp(&a.critic, &b.critic, sizeof(float)) == 0;
}
} // namespace

void DecisionRecordEncoder::queue(std::string& b, const std::vector<ScoredJob>& given, double time)
{
    // Version 7: runs of items copied from the previous record's queue (a queue changes little from one decision
    // to the next: a few jobs leave, a few arrive, the rest keep their order and priorities) and literal items.
    // Version 8: an item keeps its clock only where the clock gives its priority bit for bit at this record's time
    // (else it is written as a plain score), so what is read back is always what was given.
    std::vector<ScoredJob>& q = m_clocked;
    q = given;
    for (ScoredJob& x : q)
        if (!std::isnan(x.clockFrom)) {
            const float p = clockedPriority(time, x);
            if (!std::isfinite(x.clockFrom) || !std::isfinite(x.clockPer) || x.clockPer == 0
                || std::memcmp(&p, &x.priority, sizeof p) != 0)
                x.clockFrom = std::numeric_limits<double>::quiet_NaN();
        }
    const std::vector<ScoredJob>& prev = m_prevQueue;
    auto copyFrom = [&](size_t i) -> int64_t { // where item i of `q` starts a copy in `prev`, -1 when nowhere
        const int job = q[i].job;
        if (job < 0 || size_t(job) >= m_posOf.size())
            return -1;
        const uint32_t p = m_posOf[size_t(job)];
        return p < prev.size() && sameItem(prev[p], q[i]) ? int64_t(p) : -1;
    };
    putVar(b, q.size());
    int64_t expect = 0, prevJob = 0;
    for (size_t i = 0; i < q.size();) {
        if (const int64_t p = copyFrom(i); p >= 0) {
            size_t len = 1;
            while (i + len < q.size() && size_t(p) + len < prev.size() && sameItem(prev[size_t(p) + len], q[i + len]))
                ++len;
            putVar(b, uint64_t(len) << 1);
            putInt(b, p - expect);
            expect = p + int64_t(len);
            i += len;
            continue;
        }
        size_t j = i + 1;
        while (j < q.size() && copyFrom(j) < 0)
            ++j;
        putVar(b, (uint64_t(j - i) << 1) | 1);
        for (; i < j; ++i)
            putItem(b, q[i], prevJob);
    }
    m_prevQueue = q;
    for (size_t i = 0; i < q.size(); ++i) {
        const int job = q[i].job;
        if (job < 0)
            continue;
        if (size_t(job) >= m_posOf.size())
            m_posOf.resize(std::max(size_t(job) + 1, m_posOf.size() * 2), UINT32_MAX);
        m_posOf[size_t(job)] = uint32_t(i);
    }
}

void DecisionRecordEncoder::encode(std::string& b, const DecisionRecord& r)
{
    putVar(b, r.index);
    putD(b, r.time);
    putDeltaInts(b, r.arrived);
    putDeltaInts(b, r.finished);
    putVar(b, uint64_t(std::max(0, r.queueLength)));
    queue(b, r.queue, r.time);
    putDeltaInts(b, r.preempted);
    putVar(b, r.placements.size());
    for (const PlacementRecord& p : r.placements) {
        putInt(b, p.job);
        putVar(b, p.slots.size());
        for (const GpuSlot& s : p.slots) {
            putVar(b, uint64_t(s.gpu));
            putVar(b, uint64_t(s.milli));
        }
        putVar(b, p.machines.size());
        for (uint32_t m : p.machines)
            putVar(b, m);
        putFloats(b, p.affinity);
        putFloats(b, p.affinityVar);
        reason(b, p.reason);
        putFloats(b, p.rwgpMean);
        putFloats(b, p.rwgpVar);
    }
    putVar(b, r.admissions.size());
    for (const AdmissionRecord& a : r.admissions) {
        putInt(b, a.job);
        putVar(b, uint64_t(a.verdict));
        putF(b, a.score);
        reason(b, a.reason);
    }
    const AllocationRecord& al = r.allocation;
    putVar(b, uint64_t(al.empty() ? 0 : al.types.size()) * 2 + (r.criticKind ? 1 : 0));
    if (!al.empty() && !al.types.empty()) {
        for (const std::string& t : al.types) {
            putVar(b, t.size());
            b += t;
        }
        putDeltaInts(b, al.jobs);
        putFloats(b, al.share);
        putVar(b, al.estimated.size());
        for (uint8_t e : al.estimated)
            b += char(e);
        putVar(b, al.note.size());
        b += al.note;
    }
    if (r.criticKind) {
        putVar(b, uint64_t(uint8_t(r.criticKind)));
        putF(b, r.criticValue);
        size_t n = 0;
        for (const PlacementRecord& p : r.placements)
            n += !p.critic.empty();
        putVar(b, n);
        for (size_t i = 0; i < r.placements.size(); ++i)
            if (!r.placements[i].critic.empty()) {
                putVar(b, i);
                putFloats(b, r.placements[i].critic);
            }
    }
}

std::string encodeDecisionLogBlob(const DecisionLog& log)
{
    std::string b;
    b.reserve(64 + log.records.size() * 32);
    b.append("SSLB");
    putVar(b, kBlobVersion);
    putVar(b, uint64_t(log.machineCount));
    putVar(b, uint64_t(log.gpuCount));
    putVar(b, log.records.size());
    DecisionRecordEncoder enc;
    for (const DecisionRecord& r : log.records)
        enc.encode(b, r);
    return b;
}

DecisionLog decodeDecisionLogBlob(const void* data, size_t size)
{
    const char* p = static_cast<const char*>(data);
    if (size < 5 || std::memcmp(p, "SSLB", 4) != 0)
        throw std::runtime_error("decision log blob: bad header");
    Reader rd(p + 4, size - 4, "decision log blob");
    const uint64_t version = rd.var();
    if (version < 1 || version > kBlobVersion)
        rd.fail("unknown version " + std::to_string(version));
    Layout l;
    l.admissions = version >= 2;
    l.allocation = version >= 3;
    l.note = version >= 4;
    l.rwgp = version >= 5;
    l.critic = version >= 6;
    l.queueDelta = version >= 7;
    l.clock = version >= 8;
    DecisionLog log;
    log.machineCount = int(rd.var());
    log.gpuCount = int(rd.var());
    log.records.resize(rd.count());
    std::vector<std::string> reasons;
    std::vector<ScoredJob> queue;
    for (DecisionRecord& r : log.records)
        r = rd.record(l, reasons, -1, queue);
    if (!rd.atEnd())
        rd.fail("trailing bytes");
    return log;
}

DecisionLogWriter::DecisionLogWriter(const std::string& path, int machineCount, int gpuCount)
    : m_out(path, std::ios::binary | std::ios::trunc)
{
    if (!m_out)
        throw std::runtime_error(path + ": cannot open for writing");
    m_buf.append(kMagic, 6);
    m_buf += char(kVersion);
    putVar(m_buf, uint64_t(machineCount));
    putVar(m_buf, uint64_t(gpuCount));
}

void DecisionLogWriter::write(const DecisionRecord& r)
{
    m_enc.encode(m_buf, r);
    if (m_buf.size() > (1 << 20))
        flush();
}

void DecisionLogWriter::flush()
{
    m_out.write(m_buf.data(), std::streamsize(m_buf.size()));
    m_bytes += m_buf.size();
    m_buf.clear();
}

void DecisionLogWriter::close()
{
    if (!m_out.is_open())
        return;
    flush();
    m_out.close();
}

DecisionLog readDecisionLog(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot open");
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Reader rd(data.data(), data.size(), path + ": corrupt decision log");
    if (data.size() < 7)
        rd.fail("too short to be a decision log");
    if (std::memcmp(rd.bytes(6).data(), kMagic, 6) != 0)
        rd.fail("not a SchedStudio decision log");
    const uint8_t ver = rd.byte();
    if (ver < 1 || ver > kVersion)
        throw std::runtime_error(path + ": decision log format version " + std::to_string(int(ver))
                                 + " is not supported (this build reads versions 1 to 8)");
    Layout l;
    l.v1File = ver == 1;
    l.admissions = ver >= 2;
    l.allocation = ver >= 3;
    l.note = ver >= 4;
    l.rwgp = ver >= 5;
    l.critic = ver >= 6;
    l.queueDelta = ver >= 7;
    l.clock = ver >= 8;
    DecisionLog log;
    log.machineCount = int(rd.var());
    log.gpuCount = int(rd.var());
    std::vector<std::string> reasons;
    std::vector<ScoredJob> queue;
    while (!rd.atEnd())
        log.records.push_back(rd.record(l, reasons, log.gpuCount, queue));
    return log;
}


} // namespace ss
