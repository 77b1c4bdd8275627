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
namespace {
const char kMagic[6] = {'S', 'S', 'D', 'L', 'O', 'G'};
constexpr uint8_t kVersion = 1;

void putVar(std::string& b, uint64_t v)
{
    while (v >= 0x80) {
        b += char(uint8_t(v) | 0x80);
        v >>= 7;
    }
    b += char(uint8_t(v));
}
void putInt(std::string& b, int64_t v) { putVar(b, (uint64_t(v) << 1) ^ uint64_t(v >> 63)); }
void putF(std::string& b, float f) { b.append(reinterpret_cast<const char*>(&f), 4); }
void putD(std::string& b, double d) { b.append(reinterpret_cast<const char*>(&d), 8); }
void putFloats(std::string& b, const std::vector<float>& v)
{
    putVar(b, v.size());
    for (float f : v)
        putF(b, f);
}
void putInts(std::string& b, const std::vector<int>& v)
{
    putVar(b, v.size());
    for (int x : v)
        putInt(b, x);
}

class Reader {
public:
    Reader(const std::string& data, const std::string& file) : m_d(data), m_file(file) {}
    bool atEnd() const { return m_p >= m_d.size(); }
    size_t pos() const { return m_p; }
    [[noreturn]] void fail(const std::string& what) const
    {
        throw std::runtime_error(m_file + ": byte " + std::to_string(m_p) + ": corrupt decision log (" + what + ")");
    }
    uint64_t var()
    {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_p >= m_d.size())
                fail("truncated number");
            const uint8_t c = uint8_t(m_d[m_p++]);
            v |= uint64_t(c & 0x7f) << shift;
            if (!(c & 0x80))
                return v;
        }
        fail("number too long");
    }
    int64_t sint()
    {
        const uint64_t v = var();
        return int64_t(v >> 1) ^ -int64_t(v & 1);
    }
    size_t count(size_t maxReasonable = 100000000)
    {
        const uint64_t n = var();
        if (n > maxReasonable || n > m_d.size() - m_p + 1)
            fail("impossible count " + std::to_string(n));
        return size_t(n);
    }
    float f()
    {
        need(4);
        float v;
        std::memcpy(&v, m_d.data() + m_p, 4);
        m_p += 4;
        return v;
    }
    double d()
    {
        need(8);
        double v;
        std::memcpy(&v, m_d.data() + m_p, 8);
        m_p += 8;
        return v;
    }
    std::string str()
    {
        const size_t n = count();
        need(n);
        std::string s = m_d.substr(m_p, n);
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
    std::vector<int> ints()
    {
        std::vector<int> v(count());
        for (int& x : v)
            x = int(sint());
        return v;
    }
    void need(size_t n) const
    {
        if (m_d.size() - m_p < n)
            fail("truncated");
    }
    void bytes(char* out, size_t n)
    {
        need(n);
        std::memcpy(out, m_d.data() + m_p, n);
        m_p += n;
    }
private:
    const std::string& m_d;
    std::string m_file;
    size_t m_p = 0;
};
} // namespace

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
    std::string& b = m_buf;
    putVar(b, r.index);
    putD(b, r.time);
    putInts(b, r.arrived);
    putInts(b, r.finished);
    putVar(b, uint64_t(r.queueLength));
    putVar(b, r.queue.size());
    for (const ScoredJob& q : r.queue) {
        putInt(b, q.job);
        putF(b, q.priority);
        const uint8_t flags = uint8_t((std::isnan(q.priorityStd) ? 0 : 1) | (std::isnan(q.gate) ? 0 : 2));
        b += char(flags);
        if (flags & 1)
            putF(b, q.priorityStd);
        if (flags & 2)
            putF(b, q.gate);
    }
    putInts(b, r.preempted);
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
        putVar(b, p.reason.size());
        b += p.reason;
    }
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
    Reader rd(data, path);
    char magic[6];
    if (data.size() < 7)
        rd.fail("too short to be a decision log");
    rd.bytes(magic, 6);
    if (std::memcmp(magic, kMagic, 6) != 0)
        rd.fail("not a SchedStudio decision log");
    char ver;
    rd.bytes(&ver, 1);
    if (uint8_t(ver) != kVersion)
        throw std::runtime_error(path + ": decision log format version " + std::to_string(int(uint8_t(ver)))
                                 + " is not supported (this build reads version 1)");
    DecisionLog log;
    log.machineCount = int(rd.var());
    log.gpuCount = int(rd.var());
    while (!rd.atEnd()) {
        DecisionRecord r;
        r.index = uint32_t(rd.var());
        r.time = rd.d();
        r.arrived = rd.ints();
        r.finished = rd.ints();
        r.queueLength = int(rd.var());
        r.queue.resize(rd.count());
        for (ScoredJob& q : r.queue) {
            q.job = int(rd.sint());
            q.priority = rd.f();
            char flags;
            rd.bytes(&flags, 1);
            if (flags & 1)
                q.priorityStd = rd.f();
            if (flags & 2)
                q.gate = rd.f();
        }
        r.preempted = rd.ints();
        r.placements.resize(rd.count());
        for (PlacementRecord& p : r.placements) {
            p.job = int(rd.sint());
            p.slots.resize(rd.count());
            for (GpuSlot& s : p.slots) {
                s.gpu = int(rd.var());
                s.milli = int(rd.var());
                if (s.gpu >= log.gpuCount || s.milli <= 0 || s.milli > 1000)
                    rd.fail("GPU slot out of range");
            }
            p.machines.resize(rd.count());
            for (uint32_t& m : p.machines)
                m = uint32_t(rd.var());
            p.affinity = rd.floats();
            p.affinityVar = rd.floats();
            p.reason = rd.str();
        }
        log.records.push_back(std::move(r));
    }
    return log;
}

void writeDecisionLogJsonl(const DecisionLog& log, const std::string& path)
{
    std::ofstream out(path, std::ios::trunc);
    if (!out)
        throw std::runtime_error(path + ": cannot open for writing");
    auto f = [](float v) -> std::string {
        if (std::isnan(v))
            return "null";
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6g", double(v));
        return buf;
    };
    auto ints = [](const std::vector<int>& v) {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i)
            s += (i ? "," : "") + std::to_string(v[i]);
        return s + "]";
    };
    out << "{\"format\":\"schedstudio-decision-log\",\"version\":1,\"machines\":" << log.machineCount
        << ",\"gpus\":" << log.gpuCount << "}\n";
    for (const DecisionRecord& r : log.records) {
        std::string s = "{\"index\":" + std::to_string(r.index);
        char tb[40];
        std::snprintf(tb, sizeof tb, "%.10g", r.time);
        s += ",\"time\":" + std::string(tb) + ",\"arrived\":" + ints(r.arrived) + ",\"finished\":" + ints(r.finished)
            + ",\"queue_length\":" + std::to_string(r.queueLength) + ",\"queue\":[";
        for (size_t i = 0; i < r.queue.size(); ++i) {
            const ScoredJob& q = r.queue[i];
            s += std::string(i ? "," : "") + "{\"job\":" + std::to_string(q.job) + ",\"priority\":" + f(q.priority);
            if (!std::isnan(q.priorityStd))
                s += ",\"priority_std\":" + f(q.priorityStd);
            if (!std::isnan(q.gate))
                s += ",\"gate\":" + f(q.gate);
            s += "}";
        }
        s += "],\"preempted\":" + ints(r.preempted) + ",\"placements\":[";
        for (size_t i = 0; i < r.placements.size(); ++i) {
            const PlacementRecord& p = r.placements[i];
            s += std::string(i ? "," : "") + "{\"job\":" + std::to_string(p.job) + ",\"gpus\":[";
            for (size_t k = 0; k < p.slots.size(); ++k)
                s += (k ? "," : "") + std::to_string(p.slots[k].gpu)
                    + (p.slots[k].milli != 1000 ? ":" + std::to_string(p.slots[k].milli) : "");
            s += "]";
            if (!p.machines.empty()) {
                s += ",\"machines\":[";
                for (size_t k = 0; k < p.machines.size(); ++k)
                    s += (k ? "," : "") + std::to_string(p.machines[k]);
                s += "]";
            }
            s += ",\"affinity\":[";
            for (size_t k = 0; k < p.affinity.size(); ++k)
                s += (k ? "," : "") + f(p.affinity[k]);
            s += "]";
            if (!p.affinityVar.empty()) {
                s += ",\"affinity_var\":[";
                for (size_t k = 0; k < p.affinityVar.size(); ++k)
                    s += (k ? "," : "") + f(p.affinityVar[k]);
                s += "]";
            }
            std::string reason;
            for (char c : p.reason) {
                if (c == '"' || c == '\\')
                    reason += '\\';
                reason += (static_cast<unsigned char>(c) < 0x20) ? ' ' : c;
            }
            s += ",\"reason\":\"" + reason + "\"}";
        }
        s += "]}\n";
        out << s;
    }
}

} // namespace ss
