#include "run/aggregate.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ss {

double tQuantile975(int dof)
{
    // Exact table up to 30 degrees of freedom, then the Cornish-Fisher expansion around the normal quantile
    // (error < 1e-4 there).
    static const double table[] = {12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
                                   2.2010,  2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
                                   2.0796,  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
    if (dof < 1)
        return std::numeric_limits<double>::quiet_NaN();
    if (dof <= 30)
        return table[dof - 1];
    const double z = 1.959963984540054, n = dof;
    const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
    return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n)
           + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * n * n * n);
}

SeedStat seedStat(const std::vector<double>& values)
{
    SeedStat s;
    double sum = 0;
    for (double v : values) {
        if (!std::isfinite(v))
            continue;
        s.min = s.n ? std::min(s.min, v) : v;
        s.max = s.n ? std::max(s.max, v) : v;
        sum += v;
        ++s.n;
    }
    if (s.n == 0) {
        s.mean = std::numeric_limits<double>::quiet_NaN();
        return s;
    }
    s.mean = sum / s.n;
    if (s.n < 2)
        return s;
    double ss = 0;
    for (double v : values)
        if (std::isfinite(v))
            ss += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(ss / (s.n - 1));
    s.ci95 = tQuantile975(s.n - 1) * s.sd / std::sqrt(double(s.n));
    return s;
}

} // namespace ss
