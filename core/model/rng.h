#pragma once
// A small, fully specified random generator (xoshiro256** seeded by splitmix64) so that results are
// bit-identical across compilers and standard libraries, which std::*_distribution does not promise.
#include <cmath>
#include <cstdint>

namespace ss {

class Rng {
public:
    explicit Rng(uint64_t seed = 1) { reseed(seed); }
    void reseed(uint64_t seed)
    {
        uint64_t x = seed;
        for (auto& s : m_s) {
            x += 0x9e3779b97f4a7c15ULL;
            uint64_t z = x;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            s = z ^ (z >> 31);
        }
        m_haveSpare = false;
    }
    uint64_t next()
    {
        const uint64_t result = rotl(m_s[1] * 5, 7) * 9;
        const uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return result;
    }
    /// Uniform in [0,1).
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
    double uniform(double a, double b) { return a + (b - a) * uniform(); }
    /// Uniform integer in [0,n).
    uint64_t below(uint64_t n) { return n ? next() % n : 0; }
    /// Standard normal (Marsaglia polar method).
    double normal()
    {
        if (m_haveSpare) {
            m_haveSpare = false;
            return m_spare;
        }
        double u, v, s;
        do {
            u = 2.0 * uniform() - 1.0;
            v = 2.0 * uniform() - 1.0;
            s = u * u + v * v;
        } while (s >= 1.0 || s == 0.0);
        const double f = std::sqrt(-2.0 * std::log(s) / s);
        m_spare = v * f;
        m_haveSpare = true;
        return u * f;
    }
    double normal(double mean, double sd) { return mean + sd * normal(); }
    double exponential(double rate) { return -std::log(1.0 - uniform()) / rate; }
    /// A derived, independent stream (for sub-components that must not perturb each other).
    Rng fork(uint64_t salt) { return Rng(next() ^ (salt * 0x9e3779b97f4a7c15ULL)); }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t m_s[4] {};
    double m_spare = 0;
    bool m_haveSpare = false;
};

} // namespace ss
