#pragma once
// RWGP (ALGORITHMS §2.6): a Gaussian process over the machines of a cluster whose kernel is a truncated
// random walk on a machine-similarity graph. Plain Eigen, no LibTorch, so the algebra is testable directly.
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "model/clusterspec.h"
#include "model/rng.h"

namespace ss::learn {

/// Which graph and kernel the placement agent's GP uses (`--param das.rwgp=similarity|seed`).
enum class RwgpKernel {
    /// [I] One machine-similarity graph for every job (same GPU type, same switch; machineAdjacency) and the
    /// symmetrised truncated walk sum over machine indices (randomWalkKernel). The default.
    Similarity,
    /// The seed's (ALGORITHMS §2.1b): a per-job transition matrix P(i) over the communication topology
    /// (jobTransition) and the random-walk kernel over the product graph (productGraphKernel).
    Seed,
};
/// "similarity" or "seed"; throws std::invalid_argument naming the value otherwise.
RwgpKernel rwgpKernelFromString(const std::string& s);
const char* toString(RwgpKernel k);

/// The communication topology as a machine graph: w(a,b) = bandwidth (Gbps) of the link between a and b, 0 where
/// they are not adjacent. Machines under one switch are adjacent through it (min of their NICs); machines under two
/// switches joined by an explicit link are adjacent through it (min of the NICs and of the link's share per
/// machine: its bandwidth over the machines of the busier switch, [I] oversubscription); with no explicit links
/// at all, every two switches are joined through the core by the smaller uplink. Zero diagonal.
Eigen::MatrixXd topologyBandwidth(const ClusterSpec& cluster);

/// A job's communication need in [0,1): 1 - 1/GPUs (a job on one GPU, or a share of one, exchanges no gradients;
/// a job on n GPUs sends (n-1)/n of its all-reduce traffic to others). [I]: the traces carry no per-model
/// communication volume.
double communicationNeed(double gpus);

/// The seed's per-job transition matrix P(i) = D^-1 A(i) with A(i)_ab = (1 - c) + c * w_ab / max(w) for a != b and
/// A(i)_aa = 1 (a lazy step): a job that communicates (c -> 1) walks along the links, weighted by bandwidth, so that
/// machines it can reach cheaply are alike for it; a job that does not (c = 0) walks uniformly, since the links do
/// not change its speed. [I] for the weighting; the seed names only "per job" and "edge = communication topology".
Eigen::MatrixXd jobTransition(const Eigen::MatrixXd& bandwidth, double need);

/// Node-label kernel of the product graph: S = I + typeWeight * T with T_ab = 1 when machines a and b have the same
/// GPU type: a pair of walk ends counts 1 + typeWeight when it is one machine, typeWeight when two machines of one
/// type, 0 otherwise. PSD (identity plus a sum of outer products of type indicators). The identity part keeps
/// machines of one type distinct (with T alone their kernel rows are equal: correlation 1, and the GP could not
/// tell one machine's bias from another's). [I] typeWeight 0.5.
Eigen::MatrixXd nodeLabelKernel(const ClusterSpec& cluster, double typeWeight = 0.5);

/// The random-walk kernel over the product graph G x G with transition P_x = P (x) P (Kronecker), decay lambda,
/// walks of length 0..L: k(a,b) = sum_l lambda^l sum_{(i,k)} [P_x^l]_{(a,b),(i,k)} S_ik, i.e. the two graphs are the
/// cluster rooted at a and at b, and walks count where their end nodes' labels match (S). Since
/// (P (x) P)^l = P^l (x) P^l this is sum_l lambda^l P^l S (P^l)^T: symmetric and PSD by construction (no
/// symmetrisation). Normalised to a unit diagonal (a correlation), so the GP's prior variance is the same on every
/// machine.
Eigen::MatrixXd productGraphKernel(const Eigen::MatrixXd& P, const Eigen::MatrixXd& S, double lambda, int L);

/// Weighted adjacency of the machine graph: machines that are likely to perform alike are joined.
/// w(a,b) = 1[same GPU type] + 0.5*1[same switch] + 0.5*exp(-|s_a - s_b| / 0.05) for a != b, where s is
/// the observed mean normalised speed (pass an empty vector before anything is observed). Self loops
/// (weight 1) keep every degree positive so that P = D^-1 A exists.
Eigen::MatrixXd machineAdjacency(const ClusterSpec& cluster, const std::vector<double>& observedSpeed = {});

/// K = 1/2 (k + k^T) + jitter*I with k = sum_{l=0..L} lambda^l P^l and P = D^-1 A (row-stochastic).
Eigen::MatrixXd randomWalkKernel(const Eigen::MatrixXd& adjacency, double lambda, int L, double jitter);

/// GP posterior over all points given noisy observations y at points obs (indices into K, repeats allowed):
/// mean = m0 + K_{*,t} (K_{t,t} + sn2 I)^-1 (y - m0_t), cov = K - K_{*,t} (K_{t,t} + sn2 I)^-1 K_{t,*}.
struct GpPosterior {
    Eigen::VectorXd mean;
    Eigen::MatrixXd cov;
};
GpPosterior gpPosterior(const Eigen::MatrixXd& K, const Eigen::VectorXd& priorMean, const std::vector<int>& obs,
                        const Eigen::VectorXd& y, double noiseVar);

/// The placement agent's GP state for one run: kernel plus a window of the last tau observations
/// (machine, normalised performance - 1). The posterior is cached until the next observation.
class RwgpState {
public:
    struct Params {
        double lambda = 0.5;
        int walkLength = 3;
        double jitter = 1e-4;
        double noiseVar = 0.01;
        double priorVar = 0.04; ///< kernel scale: prior variance of a machine's performance deviation
        int tau = 64;
        RwgpKernel kernel = RwgpKernel::Similarity;
        double typeWeight = 0.5; ///< seed kernel: weight of a GPU-type match in the node labels (nodeLabelKernel)
    };
    RwgpState() = default;
    RwgpState(const ClusterSpec& cluster, Params p);
    /// The job about to be placed: with the seed's kernel, the posterior and its factor that follow are over the
    /// kernel of this job's communication need (kernels and posteriors cached per GPU count); a no-op otherwise.
    void selectJob(double gpus);
    /// Record that machine m performed at `normPerf` (observed / nominal speed) in a placement.
    void observe(int m, double normPerf);
    /// Posterior over machine performance deviation (mean 0 prior), cached.
    const GpPosterior& posterior();
    /// Lower Cholesky factor of posterior().cov + jitter (cached alongside).
    const Eigen::MatrixXd& choleskyL();
    int machineCount() const { return m_machines; }
    int historySize() const { return int(m_hist.size()); }
    /// The prior covariance in use (the selected job's, with the seed's kernel).
    const Eigen::MatrixXd& kernel();
    const Params& params() const { return m_p; }

private:
    struct Entry {
        Eigen::MatrixXd K;
        GpPosterior post;
        Eigen::MatrixXd L;
        uint64_t version = ~uint64_t(0); ///< history version the posterior was computed at
    };
    Params m_p;
    int m_machines = 0;
    Eigen::MatrixXd m_bandwidth, m_labels; ///< seed kernel: topology and type labels
    std::map<int, Entry> m_entries;        ///< similarity: key 0 only; seed: key = the job's whole GPUs
    int m_key = 0;
    std::deque<std::pair<int, double>> m_hist;
    uint64_t m_version = 0;
    Entry& current();
};

/// Draw x ~ N(mean, L L^T) using `rng` (standard normals z, x = mean + L z). Writes z too.
Eigen::VectorXd sampleMvn(const Eigen::VectorXd& mean, const Eigen::MatrixXd& L, Rng& rng, Eigen::VectorXd* z = nullptr);

} // namespace ss::learn
