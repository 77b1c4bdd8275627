#include "learn/rwgp.h"

#include <cmath>
#include <stdexcept>

namespace ss::learn {

Eigen::MatrixXd machineAdjacency(const ClusterSpec& cluster, const std::vector<double>& observedSpeed)
{
    const int M = cluster.machineCount();
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(M, M);
    for (int a = 0; a < M; ++a) {
        const Machine& ma = cluster.machines[size_t(a)];
        A(a, a) = 1.0;
        for (int b = a + 1; b < M; ++b) {
            const Machine& mb = cluster.machines[size_t(b)];
            double w = 0;
            if (ma.type == mb.type)
                w += 1.0;
            if (ma.sw == mb.sw)
                w += 0.5;
            if (observedSpeed.size() == size_t(M))
                w += 0.5 * std::exp(-std::fabs(observedSpeed[size_t(a)] - observedSpeed[size_t(b)]) / 0.05);
            A(a, b) = A(b, a) = w;
        }
    }
    return A;
}

Eigen::MatrixXd randomWalkKernel(const Eigen::MatrixXd& adjacency, double lambda, int L, double jitter)
{
    const Eigen::Index M = adjacency.rows();
    if (adjacency.cols() != M)
        throw std::invalid_argument("randomWalkKernel: adjacency must be square");
    Eigen::VectorXd deg = adjacency.rowwise().sum();
    Eigen::MatrixXd P = adjacency;
    for (Eigen::Index i = 0; i < M; ++i) {
        if (!(deg(i) > 0))
            throw std::invalid_argument("randomWalkKernel: machine without edges (degree 0)");
        P.row(i) /= deg(i);
    }
    Eigen::MatrixXd k = Eigen::MatrixXd::Identity(M, M);
    Eigen::MatrixXd Pl = Eigen::MatrixXd::Identity(M, M);
    double w = 1.0;
    for (int l = 1; l <= L; ++l) {
        Pl = Pl * P;
        w *= lambda;
        k += w * Pl;
    }
    Eigen::MatrixXd K = 0.5 * (k + k.transpose());
    K.diagonal().array() += jitter;
    return K;
}

GpPosterior gpPosterior(const Eigen::MatrixXd& K, const Eigen::VectorXd& priorMean, const std::vector<int>& obs,
                        const Eigen::VectorXd& y, double noiseVar)
{
    const Eigen::Index M = K.rows();
    const Eigen::Index T = Eigen::Index(obs.size());
    GpPosterior out;
    if (T == 0) {
        out.mean = priorMean;
        out.cov = K;
        return out;
    }
    Eigen::MatrixXd Ktt(T, T), Kst(M, T);
    Eigen::VectorXd r(T);
    for (Eigen::Index a = 0; a < T; ++a) {
        for (Eigen::Index b = 0; b < T; ++b)
            Ktt(a, b) = K(obs[size_t(a)], obs[size_t(b)]);
        Ktt(a, a) += noiseVar;
        Kst.col(a) = K.col(obs[size_t(a)]);
        r(a) = y(a) - priorMean(obs[size_t(a)]);
    }
    // Cholesky keeps the solve stable; repeats of one machine make Ktt singular without the noise term.
    Eigen::LLT<Eigen::MatrixXd> llt(Ktt);
    if (llt.info() != Eigen::Success)
        throw std::runtime_error("gpPosterior: K_tt + noise is not positive definite");
    out.mean = priorMean + Kst * llt.solve(r);
    Eigen::MatrixXd V = llt.matrixL().solve(Kst.transpose()); // T x M
    out.cov = K - V.transpose() * V;
    out.cov = 0.5 * (out.cov + out.cov.transpose());
    return out;
}

RwgpState::RwgpState(const ClusterSpec& cluster, Params p) : m_p(p)
{
    m_K = p.priorVar * randomWalkKernel(machineAdjacency(cluster), p.lambda, p.walkLength, p.jitter);
}

void RwgpState::observe(int m, double normPerf)
{
    if (m_p.tau <= 0)
        return;
    m_hist.emplace_back(m, normPerf - 1.0);
    while (int(m_hist.size()) > m_p.tau)
        m_hist.pop_front();
    m_dirty = true;
}

const GpPosterior& RwgpState::posterior()
{
    if (m_dirty) {
        const Eigen::Index M = m_K.rows();
        std::vector<int> obs;
        Eigen::VectorXd y(Eigen::Index(m_hist.size()));
        obs.reserve(m_hist.size());
        for (size_t i = 0; i < m_hist.size(); ++i) {
            obs.push_back(m_hist[i].first);
            y(Eigen::Index(i)) = m_hist[i].second;
        }
        m_post = gpPosterior(m_K, Eigen::VectorXd::Zero(M), obs, y, m_p.noiseVar);
        Eigen::MatrixXd C = m_post.cov;
        C.diagonal().array() += std::max(m_p.jitter, 1e-6);
        Eigen::LLT<Eigen::MatrixXd> llt(C);
        if (llt.info() != Eigen::Success) {
            C.diagonal().array() += 1e-3; // numerically indefinite after the subtraction: add more jitter
            llt.compute(C);
        }
        m_L = llt.matrixL();
        m_dirty = false;
    }
    return m_post;
}

const Eigen::MatrixXd& RwgpState::choleskyL()
{
    posterior();
    return m_L;
}

Eigen::VectorXd sampleMvn(const Eigen::VectorXd& mean, const Eigen::MatrixXd& L, Rng& rng, Eigen::VectorXd* zOut)
{
    Eigen::VectorXd z(mean.size());
    for (Eigen::Index i = 0; i < z.size(); ++i)
        z(i) = rng.normal();
    if (zOut)
        *zOut = z;
    return mean + L.triangularView<Eigen::Lower>() * z;
}

} // namespace ss::learn
