#pragma once
// The decision log: at every decision point, the queue with priorities, the placements with the affinity
// of each machine, preemptions and completions. Replayable: folding records 0..k rebuilds the cluster.
#include <cmath>
#include <cstdint>
#include <fstream>
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
};

/// One placement attempt. `slots` empty = the job could not be placed (it stays queued).
/// Affinity: one score per machine (machines empty = dense, all machines in id order), or the top-K
/// machines listed in `machines` for large clusters. affinityVar is filled by learned policies only.
struct PlacementRecord {
    int job = 0;
    std::vector<GpuSlot> slots;
    std::vector<uint32_t> machines;
    std::vector<float> affinity;
    std::vector<float> affinityVar;
    std::string reason;
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

/// Streams records to a compact binary file (varints, delta times): header "SSDLOG", version 1.
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
    double m_lastTime = 0;
    void flush();
};

/// Reads a file written by DecisionLogWriter. Throws std::runtime_error naming the file and offset.
DecisionLog readDecisionLog(const std::string& path);
/// Writes a log as JSON lines (one record per line), for people and scripts.
void writeDecisionLogJsonl(const DecisionLog& log, const std::string& path);

} // namespace ss
