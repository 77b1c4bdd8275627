#pragma once
// OASiS's job and cluster model (ALGORITHMS.md §3, the "verified from the seed" block): parameter-server jobs
// with E epochs over N data chunks of M mini-batches, per-worker demand w^r and per-PS demand s^r over four
// resources, and a non-increasing utility of the job's completion time. Workers run on worker servers h in [H],
// parameter servers on PS servers k in [K] (two disjoint sets). Time is in slots of `slotSeconds`. Plain data.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/clusterspec.h"
#include "model/job.h"

namespace ss::oasis {

/// The resources r of the seed's model.
enum Resource : int { Gpu = 0, Cpu = 1, Mem = 2, Bw = 3 };
constexpr int kResources = 4;
using Amounts = std::array<double, kResources>;
const char* resourceName(int r); ///< "gpu", "cpu", "mem", "bw"

/// f(d), d = completion slot - arrival slot + 1 (slots, >= 1). Non-increasing in d by construction (validated).
///   sigmoid (time-critical): g1 / (1 + exp(g2 (d - g3)))
///   linear (time-sensitive): max(0, g1 - g2 d)
///   constant (time-insensitive): g1
struct Utility {
    enum class Kind { Sigmoid, Linear, Constant };
    Kind kind = Kind::Sigmoid;
    double g1 = 1, g2 = 0, g3 = 0;
    double operator()(double d) const;
};
const char* toString(Utility::Kind k);
/// Throws std::invalid_argument for an unknown name.
Utility::Kind utilityKindFrom(const std::string& s);

/// One parameter-server job.
struct OasisJob {
    int64_t id = 0;
    int arrival = 0;       ///< a_i, slot index
    int epochs = 1;        ///< E_i
    int chunks = 1;        ///< N_i: data chunks = the cap on concurrent workers
    int minibatches = 1;   ///< M_i per chunk
    double tau = 1;        ///< τ_i: compute seconds per mini-batch on one worker
    double gradMb = 0;     ///< e_i: gradient / parameter size exchanged per mini-batch, megabits
    double workerBw = 1;   ///< b_i: a worker's bandwidth, megabits per second
    double psBw = 1;       ///< B_i: a PS's bandwidth, megabits per second
    Amounts w {1, 0, 0, 0}; ///< per-worker demand (GPUs, CPU cores, GB, Mbit/s)
    Amounts s {0, 0, 0, 0}; ///< per-PS demand
    Utility f;
    /// Seconds one worker needs per mini-batch: τ + 2e/b (push plus pull).
    double secondsPerMinibatch() const { return tau + 2.0 * gradMb / workerBw; }
    /// Worker-slots of work: ceil(E N M (τ + 2e/b) / slotSeconds) (the seed's work constraint with the slot
    /// length made explicit; slotSeconds = 1 gives it verbatim).
    int workerSlots(double slotSeconds) const;
    /// PSs needed by y workers: the bandwidth guarantee y b <= z B at its smallest z.
    int psFor(int workers) const;
};

struct OasisServer {
    std::string name;
    Amounts cap {0, 0, 0, 0};
};

/// A whole OASiS scenario: servers, slots and jobs (sorted by arrival, then id).
struct OasisScenario {
    std::string name = "oasis";
    double slotSeconds = 600;
    int horizon = 500;                 ///< T: slots 0..T-1
    std::vector<OasisServer> workers;  ///< h in [H]
    std::vector<OasisServer> psServers; ///< k in [K]
    std::vector<OasisJob> jobs;
    std::vector<std::string> notes;    ///< provenance (generator, parameters, seed)
};

/// A job or scenario that cannot be run. what() names the job and the field.
class OasisModelError : public std::invalid_argument {
public:
    OasisModelError(int64_t job, std::string field, const std::string& reason);
    int64_t job() const { return m_job; }
    const std::string& field() const { return m_field; }
    const std::string& reason() const { return m_reason; }
private:
    int64_t m_job;
    std::string m_field;
    std::string m_reason;
};

/// Checks one job against the servers: positive counts and times, non-zero bandwidths, b <= B (else no PS count
/// satisfies both the bandwidth guarantee and z <= y), a non-increasing utility, and at least one worker server
/// (PS server) that can hold one worker (PS). Throws OasisModelError naming job and field.
void validateJob(const OasisJob& j, const OasisScenario& sc);
/// Servers (non-negative capacities), slot length, horizon, then every job; sorts jobs by (arrival, id).
void validateScenario(OasisScenario& sc);

/// Stated defaults that map an existing trace onto the model (one worker = one GPU of the job's demand, N = the
/// job's whole GPUs, the work = duration x GPUs, sigmoid utility that halves at twice the job's run time). Every
/// choice is written into the scenario's notes. Worker servers: the cluster's machines; PS servers: `psServers`
/// CPU servers of 32 cores, 128 GB, 10 Gbit/s.
struct TraceMapping {
    double slotSeconds = 600;
    int horizon = 0;          ///< 0 = enough slots for the last arrival plus 4 x the longest job
    int psServers = 0;        ///< 0 = one per 4 worker servers (at least 1)
    double workerCpu = 4, workerMemGb = 16, workerBwMbps = 1000;
    double psCpu = 4, psMemGb = 8, psBwMbps = 4000;
};
OasisScenario fromTrace(const Trace& trace, const ClusterSpec& cluster, const TraceMapping& m = {});

} // namespace ss::oasis
