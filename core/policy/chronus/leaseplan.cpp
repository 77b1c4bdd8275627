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
    // Exact aggregation: a lease (other than the current one) that every job able to use it fits in at once
    // never binds; its X variables are interchangeable, so per (job, level) one integer Y counts the leases
    // taken there (0..their number). Contended leases keep binary X_{j,v,l} and a capacity row.
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
    struct Block {
        int job, lv, s, n;
        std::vector<int> xl, xc; // contended leases of the window and their columns
        int y = -1, tail = 0;    // column of Y and how many uncontended leases the window has
    };
    std::vector<Block> blocks;
    int cols = 0;
    for (size_t i = 0; i < jobs.size(); ++i)
        for (size_t v = 0; v < jobs[i].levels.size(); ++v) {
            Block b;
            b.job = int(i);
            b.lv = int(v);
            b.n = std::min(jobs[i].levels[v].maxLease, L);
            b.s = cols++;
            for (int l = 0; l < b.n; ++l) {
                if (contended[size_t(l)]) {
                    b.xl.push_back(l);
                    b.xc.push_back(cols++);
                } else {
                    ++b.tail;
                }
            }
            if (b.tail > 0)
                b.y = cols++;
            res.binaries += 1 + b.n; // the model's size before aggregation
            blocks.push_back(std::move(b));
        }
    std::vector<double> obj(size_t(cols), 0.0), colLo(size_t(cols), 0.0), colUp(size_t(cols), 1.0);
    const double sign = opt.minusCurrent ? 1.0 : -1.0; // CBC minimises: -(value) and -(+-g/Gmax)
    for (const Block& b : blocks) {
        const PlanJob& j = jobs[size_t(b.job)];
        obj[size_t(b.s)] = -j.levels[size_t(b.lv)].value;
        if (!b.xl.empty() && b.xl[0] == 0)
            obj[size_t(b.xc[0])] = sign * double(j.gpus) / opt.gMax;
        if (b.y >= 0)
            colUp[size_t(b.y)] = double(b.tail);
    }
    CoinPackedMatrix m(false, 0, 0);
    m.setDimensions(0, cols);
    std::vector<double> rowLo, rowUp;
    std::vector<int> idx;
    std::vector<double> val;
    // sum_l X (+ Y) = R * S
    for (const Block& b : blocks) {
        idx.assign(b.xc.begin(), b.xc.end());
        val.assign(b.xc.size(), 1.0);
        if (b.y >= 0) {
            idx.push_back(b.y);
            val.push_back(1.0);
        }
        idx.push_back(b.s);
        val.push_back(-double(jobs[size_t(b.job)].need));
        m.appendRow(int(idx.size()), idx.data(), val.data());
        rowLo.push_back(0);
        rowUp.push_back(0);
    }
    // capacity per contended lease
    std::vector<std::vector<std::pair<int, double>>> capRows(static_cast<size_t>(L));
    for (const Block& b : blocks)
        for (size_t k = 0; k < b.xl.size(); ++k)
            capRows[size_t(b.xl[k])].push_back({b.xc[k], double(jobs[size_t(b.job)].gpus)});
    for (int l = 0; l < L; ++l) {
        if (capRows[size_t(l)].empty())
            continue;
        idx.clear();
        val.clear();
        for (const auto& [c, g] : capRows[size_t(l)]) {
            idx.push_back(c);
            val.push_back(g);
        }
        m.appendRow(int(idx.size()), idx.data(), val.data());
        rowLo.push_back(-COIN_DBL_MAX);
        rowUp.push_back(double(capacity[size_t(l)]));
    }
    // one level per job
    for (size_t i = 0, bi = 0; i < jobs.size(); ++i) {
        idx.clear();
        val.clear();
        for (; bi < blocks.size() && blocks[bi].job == int(i); ++bi) {
            idx.push_back(blocks[bi].s);
            val.push_back(1.0);
        }
        m.appendRow(int(idx.size()), idx.data(), val.data());
        rowLo.push_back(1);
        rowUp.push_back(1);
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
        if (greedy.complete) {
            std::vector<double> start(size_t(cols), 0.0);
            for (const Block& b : blocks)
                if (greedy.level[size_t(b.job)] == b.lv) {
                    start[size_t(b.s)] = 1.0;
                    for (int l : greedy.leases[size_t(b.job)]) {
                        const auto it = std::lower_bound(b.xl.begin(), b.xl.end(), l);
                        if (it != b.xl.end() && *it == l)
                            start[size_t(b.xc[size_t(it - b.xl.begin())])] = 1.0;
                        else
                            start[size_t(b.y)] += 1.0;
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
            for (const Block& b : blocks) {
                if (x[b.s] < 0.5)
                    continue;
                p.level[size_t(b.job)] = b.lv;
                std::vector<int>& got = p.leases[size_t(b.job)];
                for (size_t k = 0; k < b.xl.size(); ++k)
                    if (x[b.xc[k]] > 0.5)
                        got.push_back(b.xl[k]);
                // Y uncontended leases: the latest of the window (any would do: none of them binds)
                int want = b.y >= 0 ? int(std::lround(x[b.y])) : 0;
                for (int l = b.n - 1; l >= 0 && want > 0; --l)
                    if (!contended[size_t(l)]) {
                        got.push_back(l);
                        --want;
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
