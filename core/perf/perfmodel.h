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
#include <tuple>
#include <utility>
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

    // --- Gavel's raw measurements (simulation_throughputs.json): steps/s per (model, scale factor, type),
    // alone and co-located in pairs. Optional: a table of relative speeds alone leaves them empty.
    /// steps/s of `model` at scale factor `scale` alone on `gpuType`; < 0 when not measured.
    double stepsPerSecond(const std::string& model, int scale, const std::string& gpuType) const;
    void setStepsPerSecond(const std::string& model, int scale, const std::string& gpuType, double sps);
    /// steps/s of a and b (same scale) sharing `gpuType`; false when not measured. Order-insensitive.
    bool pairStepsPerSecond(const std::string& a, const std::string& b, int scale, const std::string& gpuType,
                            double& ta, double& tb) const;
    void setPairStepsPerSecond(const std::string& a, const std::string& b, int scale, const std::string& gpuType,
                               double ta, double tb);
    bool hasMeasurements() const { return !m_sps.empty(); }
    bool hasPairs() const { return !m_pairs.empty(); }
    /// The type trace durations are measured on (Gavel: v100).
    const std::string& referenceType() const { return m_reference; }
    void setReferenceType(const std::string& t);
    /// Measured (model, scale) -> lower-case type -> steps/s.
    const std::map<std::pair<std::string, int>, std::map<std::string, double>>& measurements() const { return m_sps; }
    /// Whether any measurement names this (lower-case) type.
    bool measuresType(const std::string& gpuType) const;

private:
    std::map<std::string, std::map<std::string, double>> m_table; // model -> lower-case type -> speed
    std::map<std::pair<std::string, int>, std::map<std::string, double>> m_sps;
    std::map<std::tuple<std::string, std::string, int, std::string>, std::pair<double, double>> m_pairs; // a <= b
    std::string m_reference;
};

/// Throughputs (steps/s) of one (model, scale) on a list of GPU types: measured where the table has them,
/// else estimated as Gavel's estimator does (the closest reference jobs on the measured types); see
/// perf/throughputestimate.cpp. `error` is set (one line) when the row cannot be measured or estimated.
struct ThroughputRow {
    std::vector<double> sps;
    std::vector<char> estimated; ///< per type: 1 = estimated, 0 = measured
    std::string how;             ///< one line: which references or scale the estimate came from
    std::string error;
    bool anyEstimated() const;
};
ThroughputRow throughputRow(const ThroughputTable& table, const std::string& model, int scale,
                            const std::vector<std::string>& gpuTypes);

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
    /// Space sharing (Gavel's pairs): the speed of a and b when they share GPUs of `type`, each relative to its
    /// speed alone there (steps/s co-located over steps/s alone, both measured in the run's throughput table at
    /// the jobs' scale factor). Empty string on success; else why not (no table, model unknown, pair or job alone
    /// not measured).
    std::string pairFactors(const Job& a, const Job& b, int type, double& fa, double& fb) const;
    /// Rate without drawing noise (for estimates by policies).
    double expectedRate(const Job& job, const std::vector<int>& machines, int switchCount, int coRunners) const;
    /// Last noise drawn per machine of the last placement (for the decision log / learning).
    const std::vector<double>& lastNoise() const { return m_lastNoise; }
    /// The measured speed table of the run (null when none).
    const ThroughputTable* table() const { return m_table; }

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
    // with raw measurements: speed per (model, scale) and type, measured or estimated (throughputRow)
    mutable std::map<std::pair<int, int>, std::vector<double>> m_scaledCache;
    double scaledSpeed(const Job& job, int type) const;
    std::vector<double> m_lastNoise;
    double typeSpeed(int model, int type) const;
};

} // namespace ss
