#pragma once
// Gavel's heterogeneity-aware policies (Narayanan et al., OSDI'20) as linear programs over the allocation
// X (rows = jobs, and job pairs for space sharing; columns = GPU types), solved with COIN-OR CLP. See
// ALGORITHMS.md §4.2-4.3 and gavellp.cpp for each formulation. Qt-free, engine-free: tests build a
// Problem by hand.
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace ss::gavel {

/// An LP that has no solution (also after the policy's own fallbacks) or that CLP could not solve.
class LpError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct JobRow {
    std::vector<double> T;     ///< throughput per type (steps/s of the whole job at its scale factor); 0 = cannot run there
    double scale = 1;          ///< z_m: GPUs the job uses
    double weight = 1;         ///< w_m: priority weight
    double remaining = 0;      ///< steps (same unit as T x seconds) still to do (FTF, makespan, SLO, SJF)
    double done = 0;           ///< steps done so far (FTF's isolated-equivalent time)
    double age = 0;            ///< seconds since the job arrived (FTF's t_m)
    double sloLeft = std::numeric_limits<double>::infinity(); ///< seconds until the job's SLO (cost policy)
    double arrival = 0;        ///< FIFO order (smaller = earlier)
    int entity = 0;            ///< hierarchical: user or virtual cluster
};

/// Two jobs of equal scale sharing the same GPUs: each member's throughput per type when co-located.
struct PairRow {
    int a = 0, b = 0;
    std::vector<double> Ta, Tb;
};

struct Problem {
    std::vector<double> workers; ///< GPUs per type
    std::vector<double> price;   ///< $ per GPU-hour per type (cost policy)
    std::vector<JobRow> jobs;
    std::vector<PairRow> pairs;
    std::vector<double> entityWeight; ///< hierarchical: weight per entity index (missing = 1)
};

enum class Objective { MaxMinFairness, Fifo, Sjf, FinishTimeFairness, Makespan, CostThroughput, Hierarchical };
const char* toString(Objective o);

enum class LpMethod { Barrier, Simplex };

struct Options {
    /// Barrier (interior point, no crossover): lands inside the optimal face as Gavel's ECOS does (§4.4, the
    /// LP optimum is rarely unique). Simplex returns a vertex. Barrier falls back to dual simplex when CLP's
    /// barrier does not converge.
    LpMethod method = LpMethod::Barrier;
    bool agnostic = false;     ///< every T = 1 (heterogeneity-agnostic form)
    bool fifoInside = false;   ///< hierarchical: FIFO among an entity's jobs (else fairness)
    double packThreshold = 1.0; ///< a pair row is used only when its normalized combined throughput exceeds this
};

struct Solution {
    std::vector<std::vector<double>> X; ///< rows: jobs, then pairs (same order as Problem)
    double objective = 0;               ///< the policy's own objective value (min normalized share, makespan, ...)
    int lpSolves = 0;
    bool fellBack = false;              ///< cost policy: SLOs dropped (infeasible with them)
    std::string note;                   ///< one line on how it was solved
};

/// Solves one policy. Throws LpError (one line naming the policy and what failed) when infeasible.
Solution solve(const Problem& p, Objective o, const Options& opts = {});

/// Effective throughput of job m under X: sum over types of T x X, over its own row and every pair holding it.
double effectiveThroughput(const Problem& p, const Solution& s, int m, bool agnostic = false);
/// throughput(m, X^equal): every job the same share of every type, scaled so rows sum to 1 (§4.2).
double equalShareThroughput(const Problem& p, int m, bool agnostic = false);
/// throughput(m, X^isolated): the equal share divided by the job's scale factor, rows capped at 1.
double isolatedThroughput(const Problem& p, int m);
/// Empty when X satisfies the base constraints (X >= 0, rows <= 1, per-type capacity), else the first violation.
std::string checkConstraints(const Problem& p, const Solution& s, double tol = 1e-6);

} // namespace ss::gavel
