// Chronus lease planning: capacity table, greedy admission, greedy selector and the CBC MILP (ALGORITHMS.md
// §5.4, read from ChronusArtifact alg/scheduler/time_aware_with_lease.py and solver.py). Our choices:
// - the MILP is built directly on CBC's C++ API (CbcModel over OsiClpSolverInterface); the artifact uses
//   Gurobi through python-mip with a 5 s limit and "stop after 1 s with the same incumbent": we keep the time
//   limit and a relative gap of 1e-4, and hand CBC the greedy plan as its first incumbent when it is complete;
// - "latest leases first" and the greedy selector's sort follow the spec; ties break by job order.
#include "policy/chronus/leaseplan.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "CbcModel.hpp"
#include "CoinPackedMatrix.hpp"
#include "OsiClpSolverInterface.hpp"

namespace ss::chronus {

int roundUpGpus(int g)
{
    if (g <= 1)
        return 1;
    if (g <= 2)
        return 2;
    if (g <= 4)
        return 4;
    if (g <= 8)
        return 8;
    return g;
}

// ---------------------------------------------------------------- capacity table

void CapacityTable::take(int lease, int gpus)
{
    if (lease < 0)
        return;
    if (lease >= int(m_free.size()))
        m_free.resize(size_t(lease) + 1, m_total);
    m_free[size_t(lease)] -= gpus;
}

void CapacityTable::give(int lease, int gpus)
{
    take(lease, -gpus);
}

std::vector<int> CapacityTable::latestFit(int gpus, int need, int maxLease) const
{
    std::vector<int> out;
    if (need <= 0)
        return out;
    for (int l = maxLease - 1; l >= 0 && int(out.size()) < need; --l)
        if (freeAt(l) >= gpus)
            out.push_back(l);
    if (int(out.size()) < need)
        return {};
    std::reverse(out.begin(), out.end());
    return out;
}

int CapacityTable::smallestFeasibleMax(int gpus, int need, int lo, int hi) const
{
    if (hi < lo || latestFit(gpus, need, hi).empty())
        return -1;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (!latestFit(gpus, need, mid).empty())
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

std::vector<int> CapacityTable::freeVector(int n) const
{
    std::vector<int> v(size_t(std::max(n, 0)));
    for (int l = 0; l < n; ++l)
        v[size_t(l)] = freeAt(l);
    return v;
}

// ---------------------------------------------------------------- admission

AdmissionResult admitGreedy(const CapacityTable& cap, int gpus, int need, const std::vector<int>& maxLeases)
{
    AdmissionResult r;
    if (maxLeases.empty())
        return r;
    const int loosest = maxLeases.back();
    int first = -1; // the tightest level the job could meet at all
    for (size_t v = 0; v < maxLeases.size(); ++v)
        if (maxLeases[v] >= need) {
            first = int(v);
            break;
        }
    auto levelOf = [&](int maxLease) {
        for (size_t v = 0; v < maxLeases.size(); ++v)
            if (maxLeases[v] >= maxLease)
                return int(v);
        return int(maxLeases.size()) - 1;
    };
    if (first >= 0) {
        r.leases = cap.latestFit(gpus, need, maxLeases[size_t(first)]);
        if (!r.leases.empty()) {
            r.kind = first == 0 ? AdmissionResult::Accepted : AdmissionResult::AcceptedLater;
            r.maxLease = maxLeases[size_t(first)];
            r.level = first;
            return r;
        }
        const int m = cap.smallestFeasibleMax(gpus, need, maxLeases[size_t(first)] + 1, loosest);
        if (m >= 0) {
            r.kind = AdmissionResult::AcceptedLater;
            r.maxLease = m;
            r.level = levelOf(m);
            r.leases = cap.latestFit(gpus, need, m);
            return r;
        }
    }
    for (int l = 0; l < loosest; ++l)
        if (cap.freeAt(l) >= gpus)
            ++r.bestAvailable;
    return r;
}

// ---------------------------------------------------------------- greedy selector

LeasePlan greedyPlan(const std::vector<PlanJob>& jobs, std::vector<int> capacity, bool earliest)
{
    struct Entry {
        int job; // index into jobs
        int lv;  // index into the job's levels
    };
    std::vector<Entry> entries;
    for (size_t i = 0; i < jobs.size(); ++i)
        for (size_t v = 0; v < jobs[i].levels.size(); ++v)
            entries.push_back({int(i), int(v)});
    std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
        const PlanJob& ja = jobs[size_t(a.job)];
        const PlanJob& jb = jobs[size_t(b.job)];
        const PlanLevel& la = ja.levels[size_t(a.lv)];
        const PlanLevel& lb = jb.levels[size_t(b.lv)];
        if (la.value != lb.value)
            return la.value > lb.value;
        if (ja.gpus != jb.gpus)
            return ja.gpus > jb.gpus;
        const int sa = la.maxLease - ja.need, sb = lb.maxLease - jb.need;
        if (sa != sb)
            return sa < sb; // -slack, largest first
        return la.maxLease > lb.maxLease;
    });
    LeasePlan p;
    p.level.assign(jobs.size(), -1);
    p.leases.assign(jobs.size(), {});
    auto freeAt = [&](int l) { return l < int(capacity.size()) ? capacity[size_t(l)] : 0; };
    for (const Entry& e : entries) {
        if (p.level[size_t(e.job)] >= 0)
            continue;
        const PlanJob& j = jobs[size_t(e.job)];
        const PlanLevel& lv = j.levels[size_t(e.lv)];
        std::vector<int> got;
        if (earliest) {
            for (int l = 0; l < lv.maxLease && int(got.size()) < j.need; ++l)
                if (freeAt(l) >= j.gpus)
                    got.push_back(l);
        } else {
            for (int l = lv.maxLease - 1; l >= 0 && int(got.size()) < j.need; --l)
                if (freeAt(l) >= j.gpus)
                    got.push_back(l);
        }
        if (int(got.size()) < j.need)
            continue;
        std::sort(got.begin(), got.end());
        for (int l : got)
            capacity[size_t(l)] -= j.gpus;
        p.level[size_t(e.job)] = e.lv;
        p.leases[size_t(e.job)] = std::move(got);
    }
    p.complete = std::all_of(p.level.begin(), p.level.end(), [](int v) { return v >= 0; });
    return p;
}

double planObjective(const std::vector<PlanJob>& jobs, const LeasePlan& plan, const MilpOptions& opt)
{
    double obj = 0;
    const double sign = opt.minusCurrent ? -1.0 : 1.0;
    for (size_t i = 0; i < jobs.size(); ++i) {
        if (plan.level[i] < 0)
            continue;
        obj += jobs[i].levels[size_t(plan.level[i])].value;
        if (!plan.leases[i].empty() && plan.leases[i].front() == 0)
            obj += sign * double(jobs[i].gpus) / opt.gMax;
    }
    return obj;
}

// ---------------------------------------------------------------- MILP

MilpResult solveLeaseMilp(const std::vector<PlanJob>& jobs, const std::vector<int>& capacity, const MilpOptions& opt,
                          bool force)
{
    const auto t0 = std::chrono::steady_clock::now();
    MilpResult res;
    const LeasePlan greedy = greedyPlan(jobs, capacity, !opt.minusCurrent);
    if (!greedy.complete) {
        // The greedy selector cannot place every job [I]. The strict model (every job one level) may then be
        // infeasible, and CBC would search its whole node budget for nothing at every boundary until those jobs
        // leave (on MIX2: 196 boundaries, most of the MILP time). The jobs the greedy selector placed are solved
        // exactly instead (their greedy plan is a complete incumbent), and the others stay unplanned, as under
        // the artifact's greedy fallback; an optimum over "as many jobs as possible" was tried and took longer.
        std::vector<PlanJob> placed;
        std::vector<size_t> at;
        for (size_t i = 0; i < jobs.size(); ++i)
            if (greedy.level[i] >= 0) {
                placed.push_back(jobs[i]);
                at.push_back(i);
            }
        MilpResult sub = placed.empty() ? MilpResult {} : solveLeaseMilp(placed, capacity, opt, force);
        if (placed.empty()) {
            sub.solved = sub.optimal = true;
            sub.status = "optimal";
            sub.plan.complete = true;
        }
        if (!sub.solved)
            return sub; // the caller falls back to the greedy selector
        MilpResult r = sub;
        r.plan.level.assign(jobs.size(), -1);
        r.plan.leases.assign(jobs.size(), {});
        for (size_t k = 0; k < at.size(); ++k) {
            r.plan.level[at[k]] = sub.plan.level[k];
            r.plan.leases[at[k]] = sub.plan.leases[k];
        }
        r.plan.complete = false;
        r.plan.objective = planObjective(jobs, r.plan, opt);
        r.status += "; " + std::to_string(jobs.size() - placed.size()) + " of " + std::to_string(jobs.size())
                    + " jobs unplanned: the greedy selector could not place them";
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return r;
    }
    {
        double bound = 0, gSum = 0;
        for (const PlanJob& j : jobs) {
            double best = 0;
            for (const PlanLevel& l : j.levels)
                best = std::max(best, l.value);
            bound += best;
            gSum += j.gpus;
        }
        if (!opt.minusCurrent)
            bound += std::min(gSum, capacity.empty() ? 0.0 : double(capacity[0])) / opt.gMax;
        const double got = planObjective(jobs, greedy, opt);
        if (!force && greedy.complete && got >= bound - 1e-9) {
            res.plan = greedy;
            res.plan.objective = got;
            res.solved = res.optimal = res.byBound = true;
            res.status = "optimal (greedy plan meets the bound)";
            res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            return res;
        }
    }
    const int L = int(capacity.size());
    // The model, per job rather than per (job, level) [I]: the artifact writes X_{j,v,l} for every level v, so a
    // soft job with four levels has four copies of its window. Here a job holds one set of leases X_{j,l} over
    // its loosest window, sum_l X_{j,l} = R_j, and choosing level v (S_{j,v} = 1) forbids leases at or past v's
    // window end: sum_{l >= end_v} X_{j,l} <= R_j (1 - S_{j,v}). With sum_v S_{j,v} = 1 the integer solutions
    // are the artifact's (a plan, its level, the same objective), in about a quarter of the columns on a trace
    // of soft jobs (tst_chronus compares the optimum with brute force).
    // Exact aggregation: a lease (other than the current one) that every job able to use it fits in at once
    // never binds; its X variables are interchangeable, so per job and per stretch between two window ends one
    // integer Y counts the leases taken there. Contended leases keep binary X_{j,l} and a capacity row.
    std::vector<double> potential(size_t(L), 0.0);
    for (const PlanJob& j : jobs) {
        int reach = 0;
        for (const PlanLevel& l : j.levels)
            reach = std::max(reach, std::min(l.maxLease, L));
        for (int l = 0; l < reach; ++l)
            potential[size_t(l)] += j.gpus;
    }
    std::vector<char> contended(size_t(L), 0);
    for (int l = 0; l < L; ++l)
        contended[size_t(l)] = l == 0 || potential[size_t(l)] > double(capacity[size_t(l)]);
    struct Seg {
        int lo, hi; // leases [lo, hi)
        int y = -1, free = 0; // column of Y and the uncontended leases in the stretch
    };
    struct JobCols {
        int n = 0;               // the loosest window (leases 0..n-1)
        std::vector<int> s;      // S column per level
        std::vector<int> end;    // window end per level
        std::vector<int> xl, xc; // contended leases of the window and their columns
        std::vector<Seg> segs;   // stretches between window ends
    };
    std::vector<JobCols> jc(jobs.size());
    int cols = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
        JobCols& c = jc[i];
        std::vector<int> ends;
        for (const PlanLevel& lv : jobs[i].levels) {
            c.s.push_back(cols++);
            c.end.push_back(std::min(lv.maxLease, L));
            res.binaries += 1 + c.end.back(); // the model's size as the artifact writes it
            ends.push_back(c.end.back());
            c.n = std::max(c.n, c.end.back());
        }
        for (int l = 0; l < c.n; ++l)
            if (contended[size_t(l)]) {
                c.xl.push_back(l);
                c.xc.push_back(cols++);
            }
        std::sort(ends.begin(), ends.end());
        ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
        int lo = 0;
        for (int e : ends) {
            Seg g {lo, e};
            for (int l = lo; l < e; ++l)
                g.free += contended[size_t(l)] ? 0 : 1;
            if (g.free > 0)
                g.y = cols++;
            c.segs.push_back(g);
            lo = e;
        }
    }
    std::vector<double> obj(size_t(cols), 0.0), colLo(size_t(cols), 0.0), colUp(size_t(cols), 1.0);
    const double sign = opt.minusCurrent ? 1.0 : -1.0; // CBC minimises: -(value) and -(+-g/Gmax)
    for (size_t i = 0; i < jobs.size(); ++i) {
        const JobCols& c = jc[i];
        for (size_t v = 0; v < c.s.size(); ++v)
            obj[size_t(c.s[v])] = -jobs[i].levels[v].value;
        if (!c.xl.empty() && c.xl[0] == 0)
            obj[size_t(c.xc[0])] = sign * double(jobs[i].gpus) / opt.gMax;
        for (const Seg& g : c.segs)
            if (g.y >= 0)
                colUp[size_t(g.y)] = double(g.free);
    }
    CoinPackedMatrix m(false, 0, 0);
    m.setDimensions(0, cols);
    std::vector<double> rowLo, rowUp;
    std::vector<int> idx;
    std::vector<double> val;
    auto row = [&](double lo, double up) {
        m.appendRow(int(idx.size()), idx.data(), val.data());
        rowLo.push_back(lo);
        rowUp.push_back(up);
        idx.clear();
        val.clear();
    };
    for (size_t i = 0; i < jobs.size(); ++i) {
        const JobCols& c = jc[i];
        const double need = double(jobs[i].need);
        // sum_l X + sum Y = R
        for (size_t k = 0; k < c.xc.size(); ++k) {
            idx.push_back(c.xc[k]);
            val.push_back(1.0);
        }
        for (const Seg& g : c.segs)
            if (g.y >= 0) {
                idx.push_back(g.y);
                val.push_back(1.0);
            }
        row(need, need);
        // level v: nothing at or past its window end, sum_{l >= end_v} (X, Y) + R S_v <= R
        for (size_t v = 0; v < c.s.size(); ++v) {
            if (c.end[v] >= c.n)
                continue;
            for (size_t k = 0; k < c.xl.size(); ++k)
                if (c.xl[k] >= c.end[v]) {
                    idx.push_back(c.xc[k]);
                    val.push_back(1.0);
                }
            for (const Seg& g : c.segs)
                if (g.y >= 0 && g.lo >= c.end[v]) {
                    idx.push_back(g.y);
                    val.push_back(1.0);
                }
            idx.push_back(c.s[v]);
            val.push_back(need);
            row(-COIN_DBL_MAX, need);
        }
        // one level
        for (int sc : c.s) {
            idx.push_back(sc);
            val.push_back(1.0);
        }
        row(1, 1);
    }
    // capacity per contended lease
    std::vector<std::vector<std::pair<int, double>>> capRows(static_cast<size_t>(L));
    for (size_t i = 0; i < jobs.size(); ++i)
        for (size_t k = 0; k < jc[i].xl.size(); ++k)
            capRows[size_t(jc[i].xl[k])].push_back({jc[i].xc[k], double(jobs[i].gpus)});
    for (int l = 0; l < L; ++l) {
        if (capRows[size_t(l)].empty())
            continue;
        for (const auto& [c, g] : capRows[size_t(l)]) {
            idx.push_back(c);
            val.push_back(g);
        }
        row(-COIN_DBL_MAX, double(capacity[size_t(l)]));
    }
    res.columns = cols;
    res.rows = int(rowLo.size());

    try {
        OsiClpSolverInterface si;
        si.messageHandler()->setLogLevel(0);
        si.loadProblem(m, colLo.data(), colUp.data(), obj.data(), rowLo.data(), rowUp.data());
        for (int c = 0; c < cols; ++c)
            si.setInteger(c);
        CbcModel model(si);
        model.setLogLevel(0);
        model.messageHandler()->setLogLevel(0);
        model.setMaximumSeconds(opt.timeLimit);
        model.setAllowableFractionGap(opt.gap);
        model.setNumberStrong(0);
        if (opt.maxNodes >= 0)
            model.setMaximumNodes(opt.maxNodes);
        // Objective values lie on a lattice when every value is a multiple of 1/Gmax (the trace's 10-8-5-2 are):
        // two different objectives then differ by at least 1/Gmax, so nodes that cannot improve by that much are
        // pruned without losing optimality.
        bool lattice = opt.gMax >= 1;
        for (const PlanJob& j : jobs)
            for (const PlanLevel& l : j.levels)
                lattice = lattice && std::fabs(l.value * opt.gMax - std::round(l.value * opt.gMax)) < 1e-9;
        if (lattice) {
            model.setCutoffIncrement(0.999 / opt.gMax);
            model.setAllowableGap(0.999 / opt.gMax);
        }
        {
            std::vector<double> start(size_t(cols), 0.0);
            for (size_t i = 0; i < jobs.size(); ++i) {
                const JobCols& c = jc[i];
                start[size_t(c.s[size_t(greedy.level[i])])] = 1.0;
                for (int l : greedy.leases[i]) {
                    const auto it = std::lower_bound(c.xl.begin(), c.xl.end(), l);
                    if (it != c.xl.end() && *it == l) {
                        start[size_t(c.xc[size_t(it - c.xl.begin())])] = 1.0;
                        continue;
                    }
                    for (const Seg& g : c.segs)
                        if (l >= g.lo && l < g.hi)
                            start[size_t(g.y)] += 1.0;
                }
            }
            double o = 0;
            for (int c = 0; c < cols; ++c)
                o += obj[size_t(c)] * start[size_t(c)];
            model.setBestSolution(start.data(), cols, o, true);
        }
        model.branchAndBound();
        res.hitTimeLimit = model.isSecondsLimitReached();
        res.hitNodeLimit = model.isNodeLimitReached();
        const double* x = model.bestSolution();
        if (model.isProvenInfeasible()) {
            res.status = "infeasible";
        } else if (!x) {
            res.status = res.hitTimeLimit ? "time limit (no solution)" : res.hitNodeLimit ? "node limit (no solution)" : "no solution";
        } else {
            res.solved = true;
            res.optimal = model.isProvenOptimal();
            res.status = res.optimal ? "optimal"
                : res.hitTimeLimit   ? "time limit (incumbent)"
                : res.hitNodeLimit   ? "node limit (incumbent)"
                                     : "stopped (incumbent)";
            LeasePlan& p = res.plan;
            p.level.assign(jobs.size(), -1);
            p.leases.assign(jobs.size(), {});
            for (size_t i = 0; i < jobs.size(); ++i) {
                const JobCols& c = jc[i];
                for (size_t v = 0; v < c.s.size(); ++v)
                    if (x[c.s[v]] > 0.5)
                        p.level[i] = int(v);
                if (p.level[i] < 0)
                    continue;
                std::vector<int>& got = p.leases[i];
                for (size_t k = 0; k < c.xl.size(); ++k)
                    if (x[c.xc[k]] > 0.5)
                        got.push_back(c.xl[k]);
                // Y uncontended leases of a stretch: its latest (any would do: none of them binds)
                for (const Seg& g : c.segs) {
                    int want = g.y >= 0 ? int(std::lround(x[g.y])) : 0;
                    for (int l = g.hi - 1; l >= g.lo && want > 0; --l)
                        if (!contended[size_t(l)]) {
                            got.push_back(l);
                            --want;
                        }
                }
                std::sort(got.begin(), got.end());
            }
            p.complete = std::all_of(p.level.begin(), p.level.end(), [](int v) { return v >= 0; });
            p.objective = planObjective(jobs, p, opt);
        }
    } catch (const std::exception& e) {
        res.solved = false;
        res.status = std::string("solver error: ") + e.what();
    } catch (...) {
        res.solved = false;
        res.status = "solver error";
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

} // namespace ss::chronus
