#pragma once
// How fast a job runs where it is placed. Every knob is documented and settable from a scenario.
//
// Effective time for work W (reference seconds) on placement P:
//   t = W / min_{m in P} speed(model, type(m)) * (1 + eps_m)        synchronous: slowest GPU sets the pace
//         * (1 + crossMachine * (machines(P) - 1)) * (1 + crossSwitch * (switches(P) - 1))
//         * (1 + interference * coRunners(P))
// eps_m = machine bias (drawn once per run per machine) + placement noise (drawn per placement).
// With `ideal` every job runs exactly its trace duration wherever it is placed.
#include <map>
#include <string>
#include <vector>

#include "model/clusterspec.h"
#include "model/job.h"
#include "model/rng.h"

namespace ss {

struct PerfConfig {
    bool ideal = false;              ///< every job runs exactly its duration; no overheads, no noise
    bool typeSpeed = true;           ///< use GPU-type speed (or the throughput table) at all
    double crossMachine = 0.10;      ///< extra time per additional machine spanned
    double crossSwitch = 0.25;       ///< extra time per additional switch spanned
    double interference = 0.05;      ///< extra time per other job sharing one of the job's machines
    double machineBiasSd = 0.0;      ///< sd of a persistent per-machine speed bias (drawn once per run)
    double fluctuationSd = 0.0;      ///< sd of per-placement speed noise on each machine
    double preemptOverhead = 0.0;    ///< seconds a resumed job spends restoring its checkpoint

    /// Parse "key=value,key=value" (keys as above in snake_case, or the word "ideal"). Throws on error.
    static PerfConfig parse(const std::string& spec);
    std::string toString() const;
};

/// Measured per-(model, GPU type) speeds relative to a reference type (Gavel's table is one source).
class ThroughputTable {
public:
    /// speed of `model` on `gpuType` relative to the reference type; < 0 when unknown.
    double relativeSpeed(const std::string& model, const std::string& gpuType) const;
    void set(const std::string& model, const std::string& gpuType, double relSpeed);
    bool empty() const { return m_table.empty(); }
    size_t size() const { return m_table.size(); }
    /// Hex fingerprint of every (model, type, speed) entry (part of a run's identity).
    std::string fingerprint() const;

private:
    std::map<std::string, std::map<std::string, double>> m_table; // model -> lower-case type -> speed
};

/// The performance model of one run: config + cluster + optional table + the run's random stream.
class PerfModel {
public:
    PerfModel(const ClusterSpec& cluster, const Trace& trace, PerfConfig cfg, uint64_t seed,
              const ThroughputTable* table = nullptr);

    const PerfConfig& config() const { return m_cfg; }
    /// Nominal speed of `job` on machine m (type speed x bias), without noise or overheads.
    double nominalSpeed(const Job& job, int m) const;
    /// Persistent bias of machine m (1 + bias), fixed for the run.
    double machineFactor(int m) const { return m_bias[size_t(m)]; }
    /// Draws placement noise for the machines of a new placement (advances the stream).
    /// Returns the rate: reference-seconds of work done per wall second (1.0 = reference speed).
    double placementRate(const Job& job, const std::vector<int>& machines, const std::vector<int>& switches,
                         int coRunners);
    /// Rate without drawing noise (for estimates by policies).
    double expectedRate(const Job& job, const std::vector<int>& machines, int switchCount, int coRunners) const;
    /// Last noise drawn per machine of the last placement (for the decision log / learning).
    const std::vector<double>& lastNoise() const { return m_lastNoise; }

private:
    static constexpr double kHuge = 1e300;
    const ClusterSpec& m_cluster;
    const Trace& m_trace;
    PerfConfig m_cfg;
    const ThroughputTable* m_table;
    Rng m_rng;
    std::vector<double> m_bias;
    // cache: (model, type) -> speed; -1 = not computed
    mutable std::vector<double> m_speedCache;
    std::vector<double> m_lastNoise;
    double typeSpeed(int model, int type) const;
};

} // namespace ss
