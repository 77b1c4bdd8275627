#include "learn/rwgp.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/job.h"

namespace ss::learn {

RwgpKernel rwgpKernelFromString(const std::string& s)
{
    if (s == "similarity")
        return RwgpKernel::Similarity;
    if (s == "seed")
        return RwgpKernel::Seed;
    throw std::invalid_argument("das.rwgp must be similarity or seed, not '" + s + "'");
}

const char* toString(RwgpKernel k)
{
    return k == RwgpKernel::Seed ? "seed" : "similarity";
}

Eigen::MatrixXd topologyBandwidth(const ClusterSpec& cluster)
{
    const int M = cluster.machineCount();
    const int S = int(cluster.switches.size());
    std::vector<int> perSwitch(size_t(std::max(S, 1)), 0);
    for (const Machine& m : cluster.machines) {
        if (m.sw < 0 || m.sw >= S)
            throw std::invalid_argument("topologyBandwidth: machine '" + m.name + "' names no switch");
        ++perSwitch[size_t(m.sw)];
    }
    // Bandwidth per machine between two adjacent switches (0: not adjacent).
    Eigen::MatrixXd share = Eigen::MatrixXd::Zero(S, S);
    auto busier = [&](int a, int b) { return double(std::max({1, perSwitch[size_t(a)], perSwitch[size_t(b)]})); };
    if (!cluster.links.empty()) {
        for (const Link& l : cluster.links) {
            if (l.a < 0 || l.a >= S || l.b < 0 || l.b >= S || l.a == l.b)
                continue;
            const double s = l.gbps / busier(l.a, l.b);
            share(l.a, l.b) = share(l.b, l.a) = std::max(share(l.a, l.b), s);
        }
    } else {
        for (int a = 0; a < S; ++a)
            for (int b = a + 1; b < S; ++b)
                share(a, b) = share(b, a) =
                    std::min(cluster.switches[size_t(a)].uplinkGbps, cluster.switches[size_t(b)].uplinkGbps) / busier(a, b);
    }
    Eigen::MatrixXd W = Eigen::MatrixXd::Zero(M, M);
    for (int a = 0; a < M; ++a) {
        const Machine& ma = cluster.machines[size_t(a)];
        for (int b = a + 1; b < M; ++b) {
            const Machine& mb = cluster.machines[size_t(b)];
            double w = std::min(ma.nicGbps, mb.nicGbps);
            if (ma.sw != mb.sw)
                w = std::min(w, share(ma.sw, mb.sw));
            W(a, b) = W(b, a) = std::max(0.0, w);
        }
    }
    return W;
}

double communicationNeed(double gpus)
{
    if (!(gpus >= 1.0))
        return 0.0;
    return 1.0 - 1.0 / std::ceil(gpus);
}

Eigen::MatrixXd jobTransition(const Eigen::MatrixXd& bandwidth, double need)
{
    const Eigen::Index M = bandwidth.rows();
    if (bandwidth.cols() != M)
        throw std::invalid_argument("jobTransition: bandwidth must be square");
    const double c = std::clamp(need, 0.0, 1.0);
    const double wmax = bandwidth.maxCoeff();
    Eigen::MatrixXd A = Eigen::MatrixXd::Constant(M, M, 1.0 - c);
    if (wmax > 0)
        A += (c / wmax) * bandwidth;
    A.diagonal().setOnes();
    for (Eigen::Index i = 0; i < M; ++i)
        A.row(i) /= A.row(i).sum(); // the self loop keeps every row sum >= 1
    return A;
}

Eigen::MatrixXd nodeLabelKernel(const ClusterSpec& cluster, double typeWeight)
{
    const int M = cluster.machineCount();
    Eigen::MatrixXd S(M, M);
    for (int a = 0; a < M; ++a)
        for (int b = 0; b < M; ++b)
            S(a, b) = (a == b ? 1.0 : 0.0)
                      + (cluster.machines[size_t(a)].type == cluster.machines[size_t(b)].type ? typeWeight : 0.0);
    return S;
}

Eigen::MatrixXd productGraphKernel(const Eigen::MatrixXd& P, const Eigen::MatrixXd& S, double lambda, int L)
{
    const Eigen::Index M = P.rows();
    if (P.cols() != M || S.rows() != M || S.cols() != M)
        throw std::invalid_argument("productGraphKernel: P and S must be square and of one size");
    Eigen::MatrixXd K = S;
    Eigen::MatrixXd Pl = Eigen::MatrixXd::Identity(M, M);
    double w = 1.0;
    for (int l = 1; l <= L; ++l) {
        Pl = Pl * P;
        w *= lambda;
        K.noalias() += w * (Pl * S * Pl.transpose());
    }
    const Eigen::VectorXd d = K.diagonal();
    for (Eigen::Index i = 0; i < M; ++i)
        if (!(d(i) > 0))
            throw std::invalid_argument("productGraphKernel: a node matches no label (zero diagonal)");
    const Eigen::VectorXd inv = d.cwiseSqrt().cwiseInverse();
    K = inv.asDiagonal() * K * inv.asDiagonal();
    return 0.5 * (K + K.transpose()); // exact symmetry against rounding
}

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

RwgpState::RwgpState(const ClusterSpec& cluster, Params p) : m_p(p), m_machines(cluster.machineCount())
{
    if (p.kernel == RwgpKernel::Seed) {
        m_bandwidth = topologyBandwidth(cluster);
        m_labels = nodeLabelKernel(cluster, p.typeWeight);
        m_key = 1;
    } else {
        m_entries[0].K = p.priorVar * randomWalkKernel(machineAdjacency(cluster), p.lambda, p.walkLength, p.jitter);
    }
}

void RwgpState::selectJob(double gpus)
{
    if (m_p.kernel == RwgpKernel::Seed)
        m_key = gpus < 1.0 ? 1 : int(std::ceil(gpus));
}

RwgpState::Entry& RwgpState::current()
{
    auto it = m_entries.find(m_key);
    if (it != m_entries.end())
        return it->second;
    Entry& e = m_entries[m_key];
    const double need = communicationNeed(double(m_key));
    e.K = m_p.priorVar * productGraphKernel(jobTransition(m_bandwidth, need), m_labels, m_p.lambda, m_p.walkLength);
    e.K.diagonal().array() += m_p.jitter;
    return e;
}

const Eigen::MatrixXd& RwgpState::kernel()
{
    return current().K;
}

void RwgpState::observe(int m, double normPerf)
{
    if (m_p.tau <= 0)
        return;
    m_hist.emplace_back(m, normPerf - 1.0);
    while (int(m_hist.size()) > m_p.tau)
        m_hist.pop_front();
    ++m_version;
}

const GpPosterior& RwgpState::posterior()
{
    Entry& e = current();
    if (e.version != m_version) {
        const Eigen::Index M = e.K.rows();
        std::vector<int> obs;
        Eigen::VectorXd y(Eigen::Index(m_hist.size()));
        obs.reserve(m_hist.size());
        for (size_t i = 0; i < m_hist.size(); ++i) {
            obs.push_back(m_hist[i].first);
            y(Eigen::Index(i)) = m_hist[i].second;
        }
        e.post = gpPosterior(e.K, Eigen::VectorXd::Zero(M), obs, y, m_p.noiseVar);
        Eigen::MatrixXd C = e.post.cov;
        C.diagonal().array() += std::max(m_p.jitter, 1e-6);
        Eigen::LLT<Eigen::MatrixXd> llt(C);
        if (llt.info() != Eigen::Success) {
            C.diagonal().array() += 1e-3; // numerically indefinite after the subtraction: add more jitter
            llt.compute(C);
        }
        e.L = llt.matrixL();
        e.version = m_version;
    }
    return e.post;
}

const Eigen::MatrixXd& RwgpState::choleskyL()
{
    posterior();
    return current().L;
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
