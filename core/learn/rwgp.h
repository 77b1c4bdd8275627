#pragma once
// RWGP (ALGORITHMS §2.6): a Gaussian process over the machines of a cluster whose kernel is a truncated
// random walk on a machine-similarity graph. Plain Eigen, no LibTorch, so the algebra is testable directly.
#include <cstdint>
#include <deque>
#include <vector>

#include <Eigen/Dense>

#include "model/clusterspec.h"
#include "model/rng.h"

namespace ss::learn {

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
    };
    RwgpState() = default;
    RwgpState(const ClusterSpec& cluster, Params p);
    /// Record that machine m performed at `normPerf` (observed / nominal speed) in a placement.
    void observe(int m, double normPerf);
    /// Posterior over machine performance deviation (mean 0 prior), cached.
    const GpPosterior& posterior();
    /// Lower Cholesky factor of posterior().cov + jitter (cached alongside).
    const Eigen::MatrixXd& choleskyL();
    int machineCount() const { return int(m_K.rows()); }
    int historySize() const { return int(m_hist.size()); }
    const Eigen::MatrixXd& kernel() const { return m_K; }
    const Params& params() const { return m_p; }

private:
    Params m_p;
    Eigen::MatrixXd m_K;
    std::deque<std::pair<int, double>> m_hist;
    GpPosterior m_post;
    Eigen::MatrixXd m_L;
    bool m_dirty = true;
};

/// Draw x ~ N(mean, L L^T) using `rng` (standard normals z, x = mean + L z). Writes z too.
Eigen::VectorXd sampleMvn(const Eigen::VectorXd& mean, const Eigen::MatrixXd& L, Rng& rng, Eigen::VectorXd* z = nullptr);

} // namespace ss::learn
