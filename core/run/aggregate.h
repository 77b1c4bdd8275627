#pragma once
// Aggregation over seeds: the one place front ends get mean, sd and a 95 % confidence interval from.
#include <vector>

namespace ss {

struct SeedStat {
    int n = 0;            ///< finite values aggregated (NaN values are skipped: e.g. no deadline jobs)
    double mean = 0;      ///< NaN when n == 0
    double sd = 0;        ///< sample standard deviation (n - 1); 0 when n < 2
    double ci95 = 0;      ///< half-width of the 95 % CI of the mean (Student t, n - 1 dof); 0 when n < 2
    double min = 0, max = 0;
};

SeedStat seedStat(const std::vector<double>& values);

/// Two-sided 97.5 % quantile of Student's t with `dof` degrees of freedom (dof >= 1).
double tQuantile975(int dof);

} // namespace ss
