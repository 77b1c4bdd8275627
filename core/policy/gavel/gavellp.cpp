// Gavel's policies as LPs on COIN-OR CLP (ALGORITHMS.md §4.3). Variables: X[r][j] for every row r (jobs,
// then pairs) and type j, bounded to 0 where the row cannot run on the type. Base constraints on every
// policy: X >= 0; per job, the time over its own row and every pair row holding it <= 1; per type, GPUs in
// use (scale x X, a pair counted once) <= workers of that type.
//
// Formulations (thr(m) = effective throughput of job m, T normalized per job where the policy says so):
// - max-min fairness / LAS: maximize t s.t. z_m thr(m) / (w_m thr(m, X^equal)) >= t. Agnostic: T = 1.
// - FIFO (the paper's LP form): maximize sum_m thr(m)/thr_fastest(m) x (M - rank_m), rank by arrival.
// - SJF [I]: the same objective with rank by remaining time on the job's fastest type.
// - finish-time fairness: minimize rho s.t. rho_m(X) <= rho, bisection on rho; for a fixed rho the
//   constraint t_m + rem_m/thr(m) <= rho D_m is linear: thr(m) >= rem_m / (rho D_m - t_m), with
//   D_m = t_iso_m + rem_m / thr(m, X^isolated) and t_iso_m = done_m / thr(m, X^isolated).
// - makespan: bisection on T^ in [100 s, 1e6 s] (x10 wider while infeasible), stop when 1.05 lo >= hi,
//   feasibility thr(m) >= rem_m / T^ (Gavel's MinTotalDurationPolicyWithPerf).
// - cost: maximize sum_m sum_j T[m][j] X[m][j] / price_j with thr(m) >= rem_m / SLO_m; without the SLOs
//   when that is infeasible (Solution::fellBack).
// - hierarchical: water-filling. Each entity gets weight W_e, split over its jobs equally (fairness) or
//   halving by arrival order (FIFO inside, [I]); raise the least weighted normalized throughput of the
//   unfrozen jobs, freeze the jobs whose level constraint binds (positive dual), repeat.
// The final LP of a bisection (FTF, makespan) and the last water-filling level maximize the total normalized
// throughput as a tie-breaker, so that capacity no constraint needs is still handed out.
//
// Non-unique optima (§4.4): by default every final LP is solved with CLP's barrier method without
// crossover, which returns a point inside the optimal face as Gavel's ECOS does; a vertex (dual simplex)
// is available with LpMethod::Simplex. Bisection probes only need feasibility: one model, warm-started dual
// simplex (FeasibilityProber).
#include "policy/gavel/gavellp.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <sstream>

#include <coin/ClpSimplex.hpp>
#include <coin/CoinPackedMatrix.hpp>

namespace ss::gavel {

const char* toString(Objective o)
{
    switch (o) {
    case Objective::MaxMinFairness: return "max-min fairness";
    case Objective::Fifo: return "fifo";
    case Objective::Sjf: return "sjf";
    case Objective::FinishTimeFairness: return "finish-time fairness";
    case Objective::Makespan: return "makespan";
    case Objective::CostThroughput: return "throughput per dollar";
    case Objective::Hierarchical: return "hierarchical";
    }
    return "?";
}

namespace {

constexpr double kBig = 1e30;

double tOf(const Problem& p, int m, size_t j, bool agnostic)
{
    const double t = p.jobs[size_t(m)].T[j];
    return agnostic ? (t > 0 ? 1.0 : 0.0) : std::max(0.0, t);
}

/// A row-wise LP under construction, minimizing.
struct Lp {
    std::vector<double> colLo, colUp, obj;
    std::vector<int> tRow, tCol; // the constraint matrix as triplets, packed once in run()
    std::vector<double> tVal;
    std::vector<double> rowLo, rowUp;
    int addCol(double lo, double up, double c)
    {
        colLo.push_back(lo);
        colUp.push_back(up);
        obj.push_back(c);
        return int(colLo.size()) - 1;
    }
    int addRow(const std::vector<int>& idx, const std::vector<double>& val, double lo, double up)
    {
        const int r = int(rowLo.size());
        for (size_t i = 0; i < idx.size(); ++i) {
            tRow.push_back(r);
            tCol.push_back(idx[i]);
            tVal.push_back(val[i]);
        }
        rowLo.push_back(lo);
        rowUp.push_back(up);
        return r;
    }
};

struct Result {
    bool optimal = false;
    std::vector<double> x, duals;
    double obj = 0;
};

Result run(Lp& lp, LpMethod method, bool wantDuals = false)
{
    ClpSimplex m;
    m.setLogLevel(0);
    CoinPackedMatrix A(true, lp.tRow.data(), lp.tCol.data(), lp.tVal.data(), CoinBigIndex(lp.tVal.size()));
    A.setDimensions(int(lp.rowLo.size()), int(lp.colLo.size()));
    m.loadProblem(A, lp.colLo.data(), lp.colUp.data(), lp.obj.data(), lp.rowLo.data(), lp.rowUp.data());
    Result r;
    bool ok = false;
    if (method == LpMethod::Barrier && !wantDuals) {
        m.barrier(false);
        ok = m.status() == 0;
    }
    if (!ok) {
        m.dual();
        ok = m.status() == 0;
        if (!ok && m.status() != 1) { // not proven infeasible: try primal before giving up
            m.primal();
            ok = m.status() == 0;
        }
    }
    r.optimal = ok;
    if (ok) {
        const double* s = m.primalColumnSolution();
        r.x.assign(s, s + lp.colLo.size());
        if (wantDuals) {
            const double* d = m.dualRowSolution();
            r.duals.assign(d, d + lp.rowLo.size());
        }
        r.obj = m.objectiveValue();
    }
    return r;
}

/// The base problem: X columns, per-job time rows and per-type capacity rows.
struct Base {
    const Problem& p;
    bool agnostic;
    size_t J, R;
    Lp lp;
    std::vector<std::vector<int>> pairsOf; // job -> pair rows holding it
    Base(const Problem& prob, bool agn) : p(prob), agnostic(agn), J(prob.workers.size()), R(prob.jobs.size() + prob.pairs.size())
    {
        pairsOf.resize(p.jobs.size());
        for (size_t q = 0; q < p.pairs.size(); ++q) {
            pairsOf[size_t(p.pairs[q].a)].push_back(int(q));
            pairsOf[size_t(p.pairs[q].b)].push_back(int(q));
        }
        for (size_t r = 0; r < R; ++r)
            for (size_t j = 0; j < J; ++j)
                lp.addCol(0, rowT(r, j) > 0 ? 1.0 : 0.0, 0.0);
        std::vector<int> idx;
        std::vector<double> val;
        for (size_t m = 0; m < p.jobs.size(); ++m) {
            idx.clear();
            val.clear();
            for (size_t j = 0; j < J; ++j) {
                idx.push_back(col(m, j));
                val.push_back(1.0);
            }
            for (int q : pairsOf[m])
                for (size_t j = 0; j < J; ++j) {
                    idx.push_back(col(p.jobs.size() + size_t(q), j));
                    val.push_back(1.0);
                }
            lp.addRow(idx, val, -kBig, 1.0);
        }
        for (size_t j = 0; j < J; ++j) {
            idx.clear();
            val.clear();
            for (size_t r = 0; r < R; ++r) {
                idx.push_back(col(r, j));
                val.push_back(r < p.jobs.size() ? p.jobs[r].scale : p.jobs[size_t(p.pairs[r - p.jobs.size()].a)].scale);
            }
            lp.addRow(idx, val, -kBig, p.workers[j]);
        }
    }
    int col(size_t r, size_t j) const { return int(r * J + j); }
    /// Combined throughput of row r on type j (a pair: both members, for the bound only).
    double rowT(size_t r, size_t j) const
    {
        if (r < p.jobs.size())
            return tOf(p, int(r), j, agnostic);
        const PairRow& q = p.pairs[r - p.jobs.size()];
        return std::max(0.0, q.Ta[j]) + std::max(0.0, q.Tb[j]);
    }
    /// Appends factor x thr(m) to (idx, val).
    void thr(int m, double factor, std::vector<int>& idx, std::vector<double>& val) const
    {
        for (size_t j = 0; j < J; ++j) {
            const double t = tOf(p, m, j, agnostic);
            if (t > 0) {
                idx.push_back(col(size_t(m), j));
                val.push_back(factor * t);
            }
        }
        for (int qi : pairsOf[size_t(m)]) {
            const PairRow& q = p.pairs[size_t(qi)];
            for (size_t j = 0; j < J; ++j) {
                double t = q.a == m ? q.Ta[j] : q.Tb[j];
                if (agnostic)
                    t = t > 0 ? 1.0 : 0.0;
                if (t > 0) {
                    idx.push_back(col(p.jobs.size() + size_t(qi), j));
                    val.push_back(factor * t);
                }
            }
        }
    }
    /// Adds factor x thr(m) to the objective.
    void objThr(int m, double factor)
    {
        std::vector<int> idx;
        std::vector<double> val;
        thr(m, factor, idx, val);
        for (size_t i = 0; i < idx.size(); ++i)
            lp.obj[size_t(idx[i])] += val[i];
    }
    Solution extract(const Result& r) const
    {
        Solution s;
        s.X.assign(R, std::vector<double>(J, 0.0));
        for (size_t q = 0; q < R; ++q)
            for (size_t j = 0; j < J; ++j)
                s.X[q][j] = std::max(0.0, r.x[size_t(col(q, j))]);
        // interior-point solutions meet constraints up to ~1e-9: scale back what overshoots
        for (size_t m = 0; m < p.jobs.size(); ++m) {
            double sum = std::accumulate(s.X[m].begin(), s.X[m].end(), 0.0);
            for (int q : pairsOf[m])
                sum += std::accumulate(s.X[p.jobs.size() + size_t(q)].begin(), s.X[p.jobs.size() + size_t(q)].end(), 0.0);
            if (sum > 1.0) {
                for (double& x : s.X[m])
                    x /= sum;
                for (int q : pairsOf[m])
                    for (double& x : s.X[p.jobs.size() + size_t(q)])
                        x /= sum;
            }
        }
        for (size_t j = 0; j < J; ++j) {
            double used = 0;
            for (size_t q = 0; q < R; ++q)
                used += s.X[q][j] * (q < p.jobs.size() ? p.jobs[q].scale : p.jobs[size_t(p.pairs[q - p.jobs.size()].a)].scale);
            if (used > p.workers[j] && used > 0)
                for (size_t q = 0; q < R; ++q)
                    s.X[q][j] *= p.workers[j] / used;
        }
        return s;
    }
};

double fastest(const Problem& p, int m, bool agnostic)
{
    double best = 0;
    for (size_t j = 0; j < p.workers.size(); ++j)
        best = std::max(best, tOf(p, m, j, agnostic));
    return best;
}

/// Tie-breaker objective: maximize total normalized throughput.
void addNormalizedTotal(Base& b, double weight)
{
    for (size_t m = 0; m < b.p.jobs.size(); ++m) {
        const double f = fastest(b.p, int(m), b.agnostic);
        if (f > 0)
            b.objThr(int(m), -weight / f);
    }
}

[[noreturn]] void fail(Objective o, const std::string& what)
{
    throw LpError(std::string("gavel ") + toString(o) + " LP: " + what);
}

/// The level variable t of a max-min LP, as one copy per job chained by t_m = t_{m+1}: a single t shared by
/// every job's row would make the barrier's normal matrix A D A^T dense (cubic in the jobs); the chain keeps
/// it banded. Returns the column of each job's copy; t_0 carries the objective weight `obj`.
std::vector<int> levelChain(Base& b, size_t n, double obj)
{
    std::vector<int> t(n);
    for (size_t m = 0; m < n; ++m)
        t[m] = b.lp.addCol(0, kBig, m == 0 ? obj : 0.0);
    for (size_t m = 0; m + 1 < n; ++m)
        b.lp.addRow({t[m], t[m + 1]}, {1.0, -1.0}, 0.0, 0.0);
    return t;
}

Solution solveMaxMin(const Problem& p, const Options& opts, Objective o)
{
    Base b(p, opts.agnostic);
    const std::vector<int> tc = levelChain(b, p.jobs.size(), -1.0);
    const int t = tc[0];
    for (size_t m = 0; m < p.jobs.size(); ++m) {
        const double eq = equalShareThroughput(p, int(m), opts.agnostic);
        if (!(eq > 0))
            fail(o, "job row " + std::to_string(m) + " has no throughput on any GPU type");
        std::vector<int> idx;
        std::vector<double> val;
        b.thr(int(m), p.jobs[m].scale / (p.jobs[m].weight * eq), idx, val);
        idx.push_back(tc[m]);
        val.push_back(-1.0);
        b.lp.addRow(idx, val, 0.0, kBig);
    }
    const Result r = run(b.lp, opts.method);
    if (!r.optimal)
        fail(o, "CLP found no optimum");
    Solution s = b.extract(r);
    s.objective = r.x[size_t(t)];
    s.lpSolves = 1;
    return s;
}

/// FIFO / SJF: the paper's weighted sum of normalized throughputs, weight M - rank.
Solution solveRanked(const Problem& p, const Options& opts, Objective o)
{
    const size_t M = p.jobs.size();
    std::vector<int> order(M);
    std::iota(order.begin(), order.end(), 0);
    auto key = [&](int m) {
        if (o == Objective::Fifo)
            return p.jobs[size_t(m)].arrival;
        const double f = fastest(p, m, false);
        return f > 0 ? p.jobs[size_t(m)].remaining / f : kBig;
    };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
    Base b(p, opts.agnostic);
    for (size_t rank = 0; rank < M; ++rank) {
        const int m = order[rank];
        const double f = fastest(p, m, opts.agnostic);
        if (f > 0)
            b.objThr(m, -double(M - rank) / f);
    }
    const Result r = run(b.lp, opts.method);
    if (!r.optimal)
        fail(o, "CLP found no optimum");
    Solution s = b.extract(r);
    s.objective = -r.obj;
    s.lpSolves = 1;
    return s;
}

/// The final solve of a bisection: thr(m) >= need[m] for all m, with `method`, the total normalized throughput
/// as tie-breaker. False when infeasible.
bool solveAtNeed(const Problem& p, const std::vector<double>& need, LpMethod method, bool agnostic, Solution& out)
{
    Base b(p, agnostic);
    for (size_t m = 0; m < p.jobs.size(); ++m) {
        if (!(need[m] > 0))
            continue;
        if (!std::isfinite(need[m]))
            return false;
        std::vector<int> idx;
        std::vector<double> val;
        b.thr(int(m), 1.0, idx, val);
        b.lp.addRow(idx, val, need[m], kBig);
    }
    addNormalizedTotal(b, 1.0);
    const Result r = run(b.lp, method);
    if (r.optimal)
        out = b.extract(r);
    return r.optimal;
}

/// The bisections' probes: one CLP model holding a row thr(m) >= need[m] for every job, loaded once; a probe
/// only moves those rows' lower bounds and re-solves with dual simplex from the previous probe's basis. The
/// objective is zero, so every basis stays dual feasible and a probe costs a few pivots instead of a solve
/// from scratch (FTF's 16 probes at 200 jobs: about 3x faster than rebuilding, see bench-gavel).
class FeasibilityProber {
public:
    FeasibilityProber(const Problem& p, bool agnostic) : m_rows(p.jobs.size(), -1), m_maxThr(p.jobs.size(), 0.0)
    {
        Base b(p, agnostic);
        for (size_t m = 0; m < p.jobs.size(); ++m) {
            std::vector<int> idx;
            std::vector<double> val;
            b.thr(int(m), 1.0, idx, val);
            if (idx.empty())
                continue;
            for (size_t i = 0; i < idx.size(); ++i)
                m_maxThr[m] += val[i] * b.lp.colUp[size_t(idx[i])];
            m_rows[m] = b.lp.addRow(idx, val, -kBig, kBig);
        }
        CoinPackedMatrix A(true, b.lp.tRow.data(), b.lp.tCol.data(), b.lp.tVal.data(), CoinBigIndex(b.lp.tVal.size()));
        A.setDimensions(int(b.lp.rowLo.size()), int(b.lp.colLo.size()));
        m_lp.setLogLevel(0);
        m_lp.loadProblem(A, b.lp.colLo.data(), b.lp.colUp.data(), b.lp.obj.data(), b.lp.rowLo.data(), b.lp.rowUp.data());
    }
    bool probe(const std::vector<double>& need)
    {
        for (size_t m = 0; m < need.size(); ++m) {
            if (!(need[m] > 0)) {
                if (m_rows[m] >= 0)
                    m_lp.setRowLower(m_rows[m], -kBig);
                continue;
            }
            // thr(m) can never exceed the sum of its coefficients at the columns' upper bounds
            if (!std::isfinite(need[m]) || m_rows[m] < 0 || need[m] > m_maxThr[m] * (1 + 1e-9))
                return false;
            m_lp.setRowLower(m_rows[m], need[m]);
        }
        m_lp.dual();
        if (m_lp.status() == 0)
            return true;
        if (m_lp.status() == 1)
            return false;
        m_lp.primal(); // not proven infeasible: try primal before giving up, as run() does
        return m_lp.status() == 0;
    }
private:
    ClpSimplex m_lp;
    std::vector<int> m_rows;
    std::vector<double> m_maxThr;
};

Solution solveMakespan(const Problem& p, const Options& opts)
{
    auto need = [&](double T) {
        std::vector<double> n(p.jobs.size());
        for (size_t m = 0; m < p.jobs.size(); ++m)
            n[m] = p.jobs[m].remaining / T;
        return n;
    };
    for (size_t m = 0; m < p.jobs.size(); ++m)
        if (p.jobs[m].remaining > 0 && !(fastest(p, int(m), opts.agnostic) > 0))
            fail(Objective::Makespan, "infeasible: job row " + std::to_string(m) + " has work left but no throughput on any GPU type");
    FeasibilityProber prober(p, opts.agnostic);
    double lo = 100, hi = 1e6;
    int solves = 0;
    while (!prober.probe(need(hi))) {
        ++solves;
        lo = hi;
        hi *= 10;
        if (hi > 1e15)
            fail(Objective::Makespan, "infeasible at every makespan up to 1e15 s (a job has no throughput on any type)");
    }
    ++solves;
    if (prober.probe(need(lo)))
        hi = lo; // already feasible at the lower bound
    ++solves;
    while (1.05 * lo < hi) {
        const double mid = 0.5 * (lo + hi);
        ++solves;
        (prober.probe(need(mid)) ? hi : lo) = mid;
    }
    Solution s;
    if (!solveAtNeed(p, need(hi), opts.method, opts.agnostic, s))
        fail(Objective::Makespan, "the bisection's feasible bound failed to solve again");
    s.objective = hi;
    s.lpSolves = solves + 1;
    return s;
}

Solution solveFtf(const Problem& p, const Options& opts)
{
    const size_t M = p.jobs.size();
    std::vector<double> D(M), age(M);
    for (size_t m = 0; m < M; ++m) {
        const double iso = isolatedThroughput(p, int(m));
        if (!(iso > 0))
            fail(Objective::FinishTimeFairness, "job row " + std::to_string(m) + " has no throughput on any GPU type");
        D[m] = p.jobs[m].done / iso + p.jobs[m].remaining / iso;
        age[m] = p.jobs[m].age;
    }
    auto need = [&](double rho) {
        std::vector<double> n(M);
        for (size_t m = 0; m < M; ++m) {
            const double slack = rho * D[m] - age[m];
            n[m] = p.jobs[m].remaining <= 0 ? 0.0 : slack > 0 ? p.jobs[m].remaining / slack : kBig * 10;
        }
        return n;
    };
    FeasibilityProber prober(p, false);
    double lo = 0, hi = 1;
    int solves = 0;
    while (!prober.probe(need(hi))) {
        ++solves;
        lo = hi;
        hi *= 2;
        if (hi > 1e9)
            fail(Objective::FinishTimeFairness, "infeasible for every rho up to 1e9");
    }
    ++solves;
    while (hi - lo > 1e-3 * hi) {
        const double mid = 0.5 * (lo + hi);
        ++solves;
        (prober.probe(need(mid)) ? hi : lo) = mid;
    }
    Solution s;
    if (!solveAtNeed(p, need(hi), opts.method, false, s))
        fail(Objective::FinishTimeFairness, "the bisection's feasible bound failed to solve again");
    s.objective = hi;
    s.lpSolves = solves + 1;
    return s;
}

Solution solveCost(const Problem& p, const Options& opts)
{
    auto build = [&](bool slo, Base& b) {
        for (size_t m = 0; m < p.jobs.size(); ++m)
            for (size_t j = 0; j < b.J; ++j) {
                const double price = j < p.price.size() && p.price[j] > 0 ? p.price[j] : 1.0;
                const double t = tOf(p, int(m), j, opts.agnostic);
                if (t > 0)
                    b.lp.obj[size_t(b.col(m, j))] -= t / price;
            }
        if (!slo)
            return;
        for (size_t m = 0; m < p.jobs.size(); ++m) {
            const JobRow& r = p.jobs[m];
            if (!std::isfinite(r.sloLeft))
                continue;
            std::vector<int> idx;
            std::vector<double> val;
            b.thr(int(m), 1.0, idx, val);
            b.lp.addRow(idx, val, r.sloLeft > 0 ? r.remaining / r.sloLeft : kBig, kBig);
        }
    };
    bool anySlo = false;
    for (const JobRow& r : p.jobs)
        anySlo = anySlo || std::isfinite(r.sloLeft);
    int solves = 0;
    if (anySlo) {
        Base b(p, opts.agnostic);
        build(true, b);
        ++solves;
        // feasibility first with dual simplex: CLP's barrier can abort on an infeasible problem
        Result r = run(b.lp, LpMethod::Simplex);
        if (r.optimal && opts.method == LpMethod::Barrier) {
            ++solves;
            r = run(b.lp, LpMethod::Barrier);
        }
        if (r.optimal) {
            Solution s = b.extract(r);
            s.objective = -r.obj;
            s.lpSolves = solves;
            return s;
        }
    }
    Base b(p, opts.agnostic);
    build(false, b);
    const Result r = run(b.lp, opts.method);
    if (!r.optimal)
        fail(Objective::CostThroughput, "CLP found no optimum");
    Solution s = b.extract(r);
    s.objective = -r.obj;
    s.lpSolves = solves + 1;
    s.fellBack = anySlo;
    if (anySlo)
        s.note = "SLOs infeasible: solved without them";
    return s;
}

Solution solveHierarchical(const Problem& p, const Options& opts)
{
    const size_t M = p.jobs.size();
    // job weights: entity weight split over its jobs (fairness) or halving by arrival (FIFO inside)
    std::map<int, std::vector<int>> byEntity;
    for (size_t m = 0; m < M; ++m)
        byEntity[p.jobs[m].entity].push_back(int(m));
    std::vector<double> w(M, 1.0);
    for (auto& [e, jobs] : byEntity) {
        const double W = e >= 0 && size_t(e) < p.entityWeight.size() && p.entityWeight[size_t(e)] > 0 ? p.entityWeight[size_t(e)] : 1.0;
        std::stable_sort(jobs.begin(), jobs.end(), [&](int a, int b) { return p.jobs[size_t(a)].arrival < p.jobs[size_t(b)].arrival; });
        double total = 0;
        for (size_t i = 0; i < jobs.size(); ++i)
            total += opts.fifoInside ? std::pow(0.5, double(i)) : 1.0;
        for (size_t i = 0; i < jobs.size(); ++i)
            w[size_t(jobs[i])] = W * p.jobs[size_t(jobs[i])].weight * (opts.fifoInside ? std::pow(0.5, double(i)) : 1.0) / total;
    }
    std::vector<double> eq(M);
    for (size_t m = 0; m < M; ++m) {
        eq[m] = equalShareThroughput(p, int(m), opts.agnostic);
        if (!(eq[m] > 0))
            fail(Objective::Hierarchical, "job row " + std::to_string(m) + " has no throughput on any GPU type");
    }
    std::vector<double> frozen(M, -1.0); // level reached by frozen jobs
    int solves = 0;
    double lastLevel = 0;
    for (int round = 0; round < 32; ++round) {
        Base b(p, opts.agnostic);
        const int t = b.lp.addCol(0, kBig, -1.0);
        std::vector<int> levelRow(M, -1);
        size_t open = 0;
        for (size_t m = 0; m < M; ++m) {
            std::vector<int> idx;
            std::vector<double> val;
            b.thr(int(m), p.jobs[m].scale / (w[m] * eq[m]), idx, val);
            if (frozen[m] >= 0) {
                b.lp.addRow(idx, val, frozen[m] * (1 - 1e-7), kBig);
                continue;
            }
            ++open;
            idx.push_back(t);
            val.push_back(-1.0);
            levelRow[m] = b.lp.addRow(idx, val, 0.0, kBig);
        }
        if (open == 0)
            break;
        ++solves;
        const Result r = run(b.lp, LpMethod::Simplex, true);
        if (!r.optimal)
            fail(Objective::Hierarchical, "CLP found no optimum at water-filling level " + std::to_string(round));
        const double level = r.x[size_t(t)];
        lastLevel = level;
        size_t froze = 0;
        for (size_t m = 0; m < M; ++m)
            if (levelRow[m] >= 0 && std::fabs(r.duals[size_t(levelRow[m])]) > 1e-9) {
                frozen[m] = level;
                ++froze;
            }
        if (froze == 0 || froze == open || round == 31) {
            for (size_t m = 0; m < M; ++m)
                if (frozen[m] < 0)
                    frozen[m] = level;
            break;
        }
    }
    // final allocation: every job at least its level, spare capacity by total normalized throughput
    Base b(p, opts.agnostic);
    for (size_t m = 0; m < M; ++m) {
        std::vector<int> idx;
        std::vector<double> val;
        b.thr(int(m), p.jobs[m].scale / (w[m] * eq[m]), idx, val);
        b.lp.addRow(idx, val, frozen[m] * (1 - 1e-7), kBig);
    }
    addNormalizedTotal(b, 1.0);
    const Result r = run(b.lp, opts.method);
    if (!r.optimal)
        fail(Objective::Hierarchical, "the final water-filling allocation failed to solve");
    Solution s = b.extract(r);
    s.objective = lastLevel;
    s.lpSolves = solves + 1;
    return s;
}

} // namespace

double equalShareThroughput(const Problem& p, int m, bool agnostic)
{
    const double total = std::accumulate(p.workers.begin(), p.workers.end(), 0.0);
    if (!(total > 0))
        return 0;
    double s = 0;
    for (size_t j = 0; j < p.workers.size(); ++j)
        s += tOf(p, m, j, agnostic) * p.workers[j] / total;
    return s;
}

double isolatedThroughput(const Problem& p, int m)
{
    const double n = double(std::max<size_t>(1, p.jobs.size()));
    const double z = std::max(1.0, p.jobs[size_t(m)].scale);
    double rowSum = 0;
    for (double w : p.workers)
        rowSum += w / n / z;
    const double f = rowSum > 1 ? 1 / rowSum : 1.0;
    double s = 0;
    for (size_t j = 0; j < p.workers.size(); ++j)
        s += tOf(p, m, j, false) * p.workers[j] / n / z * f;
    return s;
}

double effectiveThroughput(const Problem& p, const Solution& s, int m, bool agnostic)
{
    double v = 0;
    for (size_t j = 0; j < p.workers.size(); ++j)
        v += tOf(p, m, j, agnostic) * s.X[size_t(m)][j];
    for (size_t q = 0; q < p.pairs.size(); ++q) {
        const PairRow& r = p.pairs[q];
        if (r.a != m && r.b != m)
            continue;
        for (size_t j = 0; j < p.workers.size(); ++j) {
            double t = r.a == m ? r.Ta[j] : r.Tb[j];
            if (agnostic)
                t = t > 0 ? 1.0 : 0.0;
            v += std::max(0.0, t) * s.X[p.jobs.size() + q][j];
        }
    }
    return v;
}

std::string checkConstraints(const Problem& p, const Solution& s, double tol)
{
    const size_t J = p.workers.size(), M = p.jobs.size();
    if (s.X.size() != M + p.pairs.size())
        return "X has " + std::to_string(s.X.size()) + " rows, expected " + std::to_string(M + p.pairs.size());
    std::vector<double> rowSum(M, 0.0), used(J, 0.0);
    for (size_t r = 0; r < s.X.size(); ++r)
        for (size_t j = 0; j < J; ++j) {
            const double x = s.X[r][j];
            if (x < -tol)
                return "X[" + std::to_string(r) + "][" + std::to_string(j) + "] < 0";
            if (r < M) {
                rowSum[r] += x;
                used[j] += x * p.jobs[r].scale;
            } else {
                const PairRow& q = p.pairs[r - M];
                rowSum[size_t(q.a)] += x;
                rowSum[size_t(q.b)] += x;
                used[j] += x * p.jobs[size_t(q.a)].scale;
            }
        }
    for (size_t m = 0; m < M; ++m)
        if (rowSum[m] > 1 + tol)
            return "job " + std::to_string(m) + " gets " + std::to_string(rowSum[m]) + " > 1 of its time";
    for (size_t j = 0; j < J; ++j)
        if (used[j] > p.workers[j] * (1 + tol) + tol)
            return "type " + std::to_string(j) + " uses " + std::to_string(used[j]) + " > " + std::to_string(p.workers[j]) + " GPUs";
    return {};
}

Solution solve(const Problem& p, Objective o, const Options& opts)
{
    for (size_t m = 0; m < p.jobs.size(); ++m)
        if (p.jobs[m].T.size() != p.workers.size())
            throw LpError("gavel LP: job row " + std::to_string(m) + " has " + std::to_string(p.jobs[m].T.size())
                          + " throughputs for " + std::to_string(p.workers.size()) + " GPU types");
    if (p.jobs.empty()) {
        Solution s;
        return s;
    }
    switch (o) {
    case Objective::MaxMinFairness: return solveMaxMin(p, opts, o);
    case Objective::Fifo:
    case Objective::Sjf: return solveRanked(p, opts, o);
    case Objective::FinishTimeFairness: return solveFtf(p, opts);
    case Objective::Makespan: return solveMakespan(p, opts);
    case Objective::CostThroughput: return solveCost(p, opts);
    case Objective::Hierarchical: return solveHierarchical(p, opts);
    }
    return {};
}

} // namespace ss::gavel
