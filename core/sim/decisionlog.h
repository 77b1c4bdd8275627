#pragma once
// The decision log: at every decision point, the queue with priorities, the placements with the affinity
// of each machine, preemptions and completions. Replayable: folding records 0..k rebuilds the cluster.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sim/clusterstate.h"

namespace ss {

constexpr float kNoScore = std::numeric_limits<float>::quiet_NaN();

/// A queued job as the ordering saw it. priorityStd/gate are filled by learned policies only.
struct ScoredJob {
    int job = 0;
    float priority = 0;
    float priorityStd = kNoScore;
    float gate = kNoScore;
    /// A Q-critic's value of this job as the ordering action (the job put first, the placement action as taken);
    /// NaN for jobs that could not start and for policies without a Q-critic (DAS with `critic` q, log version 6).
    float critic = kNoScore;
    /// A score that moves with the clock (log version 8): when clockFrom is a number, priority is
    /// float((the record's time - clockFrom) / clockPer), as FIFO's minutes waited and EDF's hours past the deadline
    /// are. The log then stores clockFrom and clockPer, and a queue that did not change but for the clock is
    /// copied from the previous record instead of written again. Set by the ordering; NaN for other scores.
    float clockPer = 0;
    double clockFrom = std::numeric_limits<double>::quiet_NaN();

    /// The priority of a clocked item at `time`: what the reader computes, and what an ordering gives (clocked()).
    static float clockedPriority(double time, double from, float per) { return float((time - from) / double(per)); }
    /// A job scored (now - from) / per, with its clock.
    static ScoredJob clocked(int job, double now, double from, float per)
    {
        ScoredJob s;
        s.job = job;
        s.priority = clockedPriority(now, from, per);
        s.clockFrom = from;
        s.clockPer = per;
        return s;
    }
};

/// A record's field that most records leave blank, held behind a pointer: 8 bytes in each of millions of records
/// instead of the value's size (an AllocationRecord is 128 bytes; a 1M-job run keeps about 4M records in the
/// studio). Copies are deep; reading a blank field gives a shared blank value; assigning a blank value frees it.
/// Blank is T::blank(), or empty for a vector.
template <class T> bool rareBlank(const T& v) { return v.blank(); }
template <class E> bool rareBlank(const std::vector<E>& v) { return v.empty(); }
template <class T> class RareField {
public:
    RareField() = default;
    RareField(const RareField& o) : m_p(o.m_p ? std::make_unique<T>(*o.m_p) : nullptr) {}
    RareField(RareField&&) noexcept = default;
    RareField& operator=(const RareField& o)
    {
        if (this != &o)
            m_p = o.m_p ? std::make_unique<T>(*o.m_p) : nullptr;
        return *this;
    }
    RareField& operator=(RareField&&) noexcept = default;
    RareField& operator=(T v)
    {
        if (rareBlank(v))
            m_p.reset();
        else if (m_p)
            *m_p = std::move(v);
        else
            m_p = std::make_unique<T>(std::move(v));
        return *this;
    }
    const T& get() const
    {
        static const T blankValue {};
        return m_p ? *m_p : blankValue;
    }
    operator const T&() const { return get(); }
    const T* operator->() const { return &get(); }
    const T& operator*() const { return get(); }
    bool empty() const { return get().empty(); }
    /// The value to change in place (made when blank).
    T& edit()
    {
        if (!m_p)
            m_p = std::make_unique<T>();
        return *m_p;
    }

protected:
    std::unique_ptr<T> m_p;
};

/// A placement's per-machine values that only learned policies give (affinity variance, RWGP mean and variance,
/// Q-critic): a RareField of the vector, 8 bytes in each of millions of placements instead of 24, read and written
/// as the std::vector<float> it stands for (a const reference to it where one is needed).
class RareFloats : public RareField<std::vector<float>> {
public:
    using Vec = std::vector<float>;
    using RareField::RareField;
    using RareField::operator=;
    RareFloats() = default;
    RareFloats(std::initializer_list<float> v) { *this = Vec(v); }
    RareFloats& operator=(std::initializer_list<float> v)
    {
        RareField::operator=(Vec(v));
        return *this;
    }
    size_t size() const { return get().size(); }
    float operator[](size_t i) const { return get()[i]; }
    Vec::const_iterator begin() const { return get().begin(); }
    Vec::const_iterator end() const { return get().end(); }
    void clear() { m_p.reset(); }
    void reserve(size_t n) { edit().reserve(n); }
    void push_back(float v) { edit().push_back(v); }
    friend bool operator==(const RareFloats& a, const RareFloats& b) { return a.get() == b.get(); }
    friend bool operator!=(const RareFloats& a, const RareFloats& b) { return !(a == b); }
};

/// One placement attempt. `slots` empty = the job could not be placed (it stays queued).
/// Affinity: one score per machine (machines empty = dense, all machines in id order), or the top-K
/// machines listed in `machines` for large clusters. affinityVar is filled by learned policies only.
struct PlacementRecord {
    int job = 0;
    std::vector<GpuSlot> slots;
    std::vector<uint32_t> machines;
    std::vector<float> affinity;
    RareFloats affinityVar;
    /// A GP placement's posterior per machine, indexed as `affinity` (empty otherwise): DAS's RWGP mean and variance
    /// of the machine's performance deviation (observed / predicted speed - 1).
    RareFloats rwgpMean, rwgpVar;
    /// A Q-critic's value of each machine as the placement action (the machine scored first, the ordering action as
    /// taken), indexed as `affinity`; empty otherwise (DAS with `critic` q, on the decision's first placement).
    RareFloats critic;
    std::string reason;
    /// Machine of the i-th affinity entry, for the dense form (i) and the sparse top-K form (machines[i]).
    int machineOf(size_t i) const { return machines.empty() ? int(i) : (i < machines.size() ? int(machines[i]) : -1); }
};

/// The sparse affinity form's machines: the `k` best scores (highest first, the lower id on ties), listed in id
/// order. One pass over the scores, O(n + k log k log n).
std::vector<uint32_t> topAffinity(const std::vector<float>& score, size_t k);

/// An admission stage's verdict on a job that arrived or was deferred (the job's reason and score).
enum class Admit : uint8_t { Accept, Reject, Defer };
const char* toString(Admit a);

struct AdmissionRecord {
    int job = 0;
    Admit verdict = Admit::Accept;
    float score = kNoScore;
    std::string reason;
};

/// A round-based policy's allocation at this decision (Gavel's X): the fraction of time each job should spend
/// on each GPU type, jobs x types row-major, and which jobs' throughputs were estimated rather than measured.
struct AllocationRecord {
    std::vector<std::string> types;
    std::vector<int> jobs;
    std::vector<float> share;        ///< jobs.size() x types.size()
    std::vector<uint8_t> estimated;  ///< per job: 1 = its throughputs were estimated (not in the table); other
                                     ///< policies give it their own meaning (Chronus: the plan's deadline level)
    std::string note;                ///< the policy's words on this allocation (Chronus: which solver planned it)
    bool empty() const { return jobs.empty(); }
    /// Nothing set at all (what RareField drops).
    bool blank() const { return types.empty() && jobs.empty() && share.empty() && estimated.empty() && note.empty(); }
    float at(size_t row, size_t type) const { return share[row * types.size() + type]; }
};

struct DecisionRecord {
    uint32_t index = 0;
    double time = 0;
    std::vector<int> arrived;   ///< jobs that arrived at this time point
    std::vector<int> finished;  ///< jobs that completed at this time point (released before deciding)
    std::vector<ScoredJob> queue; ///< queued jobs (highest priority first), capped by RunConfig::logQueueLimit
    int queueLength = 0;        ///< full queue length, even when `queue` is capped
    std::vector<int> preempted;
    std::vector<PlacementRecord> placements;
    std::vector<AdmissionRecord> admissions; ///< verdicts of the admission stage at this decision (composites)
    /// Round-based policies (Gavel): the allocation X in force; blank otherwise (and Chronus's lease plans, OASiS's
    /// prices). Read as an AllocationRecord (`r.allocation->jobs`), set by assigning one or through edit().
    RareField<AllocationRecord> allocation;
    /// A learned policy's critic at this decision: 'q' = criticValue is Q(s, a) of the action taken, 'v' = the state
    /// value V(s) (a V-critic cannot rank alternatives), 0 = none (log version 6).
    char criticKind = 0;
    float criticValue = kNoScore;
};

/// The whole log in memory (GUI, tests). For big runs stream it with DecisionLogWriter instead.
struct DecisionLog {
    int machineCount = 0;
    int gpuCount = 0;
    std::vector<DecisionRecord> records;
};

/// Cluster occupancy rebuilt from a log: for every GPU, the jobs holding a share, after decision k.
class Replayer {
public:
    Replayer(const DecisionLog& log);
    /// Move to the state right after record k (-1 = before the first). Fast forward and back.
    void seek(int k);
    int position() const { return m_pos; }
    struct Holder {
        int job = 0;
        int milli = 1000;
    };
    /// Holders of each GPU; index = global GPU.
    const std::vector<std::vector<Holder>>& holders() const { return m_holders; }
    /// GPUs held by a job at the current position (empty when not running).
    const std::vector<GpuSlot>& slotsOf(int job) const;
    const std::vector<int>& runningJobs() const { return m_running; }
private:
    const DecisionLog& m_log;
    int m_pos = -1;
    std::vector<std::vector<Holder>> m_holders;
    std::vector<std::vector<GpuSlot>> m_jobSlots; // per job index: slots held (grown on demand)
    std::vector<int> m_running;
    void apply(const DecisionRecord& r, bool forward);
    void rebuildFromStart(int k);
};

/// The one binary encoding of decision records (LEB128 varints, zig-zag deltas for job lists, raw
/// little-endian floats, reasons interned per stream). Used by DecisionLogWriter (file) and by the store.
class DecisionRecordEncoder {
public:
    void encode(std::string& out, const DecisionRecord& r);
private:
    std::vector<std::string> m_reasons;
    std::vector<ScoredJob> m_prevQueue; // the last record's queue (version 7 copies runs of it)
    std::vector<uint32_t> m_posOf;      // job -> its place in m_prevQueue (checked against it)
    std::vector<ScoredJob> m_clocked;   // queue()'s scratch: the record's queue with the clocks that hold
    void reason(std::string& out, const std::string& s);
    void queue(std::string& out, const std::vector<ScoredJob>& q, double time);
};

/// Whole log as one blob ("SSLB", version 8, record count, then the records); the store's encoding 2.
std::string encodeDecisionLogBlob(const DecisionLog& log);
/// Reads encodeDecisionLogBlob's blob, and the store's older versions 1 to 7. Throws std::runtime_error
/// "decision log blob: what at byte N" on any corruption, truncation or trailing bytes.
DecisionLog decodeDecisionLogBlob(const void* data, size_t size);

/// Streams records to a compact binary file: header "SSDLOG", version 8, machine and GPU counts, then
/// DecisionRecordEncoder records to the end. readDecisionLog also reads version 1 to 7 files.
class DecisionLogWriter {
public:
    DecisionLogWriter(const std::string& path, int machineCount, int gpuCount); ///< throws on open failure
    void write(const DecisionRecord& r);
    void close();
    uint64_t bytesWritten() const { return m_bytes; }
private:
    std::ofstream m_out;
    std::string m_buf;
    uint64_t m_bytes = 0;
    DecisionRecordEncoder m_enc;
    void flush();
};

/// Reads a file written by DecisionLogWriter. Throws std::runtime_error naming the file and offset.
DecisionLog readDecisionLog(const std::string& path);
/// (JSON lines: io/decisionlogjson.h, written with the one JSON writer.)

} // namespace ss
