#pragma once
// The arithmetic of DAS's Q-critic (ALGORITHMS §2.1b, §2.8; trainer.cpp), plain C++ so that tests check it by hand
// without LibTorch: the TD targets against the target network and the advantage an actor gets from Q.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "model/rng.h"

namespace ss::learn {

/// TD targets of one episode (the seed's y_t = r_t + gamma Q_phi_old(O_{t+1}, pi_theta_old(O_{t+1}))):
/// qNextTarget[t] is the target network's Q of step t+1's state and action (the action the acting policy, theta_old,
/// took there). The episode's last step is terminal, y = r (as GAE's last step, trainer.cpp): qNextTarget needs
/// rewards.size() - 1 entries (more are ignored).
inline std::vector<double> qTdTargets(const std::vector<double>& rewards, const std::vector<double>& qNextTarget,
                                      double gamma)
{
    const size_t T = rewards.size();
    if (T > 1 && qNextTarget.size() < T - 1)
        throw std::invalid_argument("qTdTargets: one target Q per step but the last is needed");
    std::vector<double> y(T);
    for (size_t t = 0; t < T; ++t)
        y[t] = rewards[t] + (t + 1 < T ? gamma * qNextTarget[t] : 0.0);
    return y;
}

/// The baseline an actor's advantage subtracts from Q(s, a) ([I], counterfactual as in COMA): the expectation of Q
/// over the agent's own alternatives under its acting policy, the other agent's action held fixed,
/// sum_i p_i q_i / sum_i p_i. Alternatives with p_i = 0 or a NaN q count for nothing; the plain mean of q when
/// every p_i is 0; 0 when there is no alternative. Independent of the action taken, so the policy gradient stays
/// unbiased.
inline double expectedQ(const std::vector<float>& q, const std::vector<float>& p)
{
    double s = 0, w = 0, plain = 0;
    int n = 0;
    for (size_t i = 0; i < q.size(); ++i) {
        if (std::isnan(q[i]))
            continue;
        const double pi = i < p.size() ? std::max(0.0f, p[i]) : 0.0;
        s += pi * q[i];
        w += pi;
        plain += q[i];
        ++n;
    }
    if (w > 0)
        return s / w;
    return n ? plain / n : 0.0;
}

/// Probability that each item has the highest sample when item i draws N(mu_i, sd_i^2) independently (the ordering
/// agent's priorities), over the items with valid[i] only (others get 0): Monte Carlo with `samples` draws of `rng`.
inline std::vector<float> topChoiceProbabilities(const std::vector<float>& mu, const std::vector<float>& sd,
                                                 const std::vector<char>& valid, int samples, Rng& rng)
{
    std::vector<float> p(mu.size(), 0.f);
    if (samples <= 0)
        return p;
    int hits = 0;
    for (int k = 0; k < samples; ++k) {
        int best = -1;
        double bestV = 0;
        for (size_t i = 0; i < mu.size(); ++i) {
            const double v = mu[i] + sd[i] * rng.normal(); // drawn for every item: the stream does not depend on valid
            if (valid[i] && (best < 0 || v > bestV)) {
                best = int(i);
                bestV = v;
            }
        }
        if (best >= 0) {
            p[size_t(best)] += 1.f;
            ++hits;
        }
    }
    if (hits)
        for (float& x : p)
            x /= float(hits);
    return p;
}

} // namespace ss::learn
