// OASiS (ALGORITHMS.md §3): the subroutine against brute force on 2 servers x 4 slots, its rankings kept across
// reservations against a ledger without them, a negative payoff rejected, prices at L / U and the admission they
// stop, the seed's constraints on every committed schedule of random small scenarios, the baselines on a hand
// case, the generator, an oversized ledger refused, and bad input naming job and field.
#include <QtTest>

#include <QTemporaryDir>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>

#include "io/ioerror.h"
#include "io/oasisio.h"
#include "model/oasisgen.h"
#include "model/oasisjob.h"
#include "model/rng.h"
#include "policy/oasis/ledger.h"
#include "policy/oasis/oasispolicy.h"
#include "policy/oasis/oasissim.h"
#include "policy/registry.h"
#include "sim/engine.h"
#include "policy/oasis/online.h"
#include "policy/oasis/subroutine.h"

using namespace ss;
using namespace ss::oasis;

namespace {

OasisJob simpleJob(int64_t id, int arrival, int chunks, int workerSlots, double g1)
{
    OasisJob j;
    j.id = id;
    j.arrival = arrival;
    j.chunks = chunks;
    j.tau = double(workerSlots) / chunks; // slotSeconds 1, e 0, E = M = 1: D = N tau = workerSlots
    j.workerBw = 100;
    j.psBw = 200;
    j.w = {1, 1, 0, 0};
    j.s = {0, 1, 0, 0};
    j.f.kind = Utility::Kind::Constant;
    j.f.g1 = g1;
    return j;
}

OasisScenario smallScenario(int H, int K, int T, double gpus = 2, double cpus = 4)
{
    OasisScenario sc;
    sc.slotSeconds = 1;
    sc.horizon = T;
    for (int h = 0; h < H; ++h)
        sc.workers.push_back({"w" + std::to_string(h), {gpus, cpus, 0, 0}});
    for (int k = 0; k < K; ++k)
        sc.psServers.push_back({"p" + std::to_string(k), {0, cpus, 0, 0}});
    return sc;
}

// Best payoff over every schedule of `j` on the ledgers, by enumeration: per slot every split of y workers over
// the worker servers and z PSs over the PS servers with y <= N, y b <= z B, z <= y and capacity; any total work
// >= D. -inf when none finishes.
double bruteForce(const OasisJob& j, int D, const Ledger& wl, const Ledger& pl, const PriceFamily& p,
                  const PriceFamily& q)
{
    const int T = wl.slots();
    struct Opt {
        int work;
        double cost;
    };
    std::vector<std::vector<Opt>> opts(static_cast<size_t>(T));
    for (int t = 0; t < T; ++t) {
        opts[size_t(t)].push_back({0, 0});
        if (t < j.arrival)
            continue;
        for (int y0 = 0; y0 <= j.chunks; ++y0)
            for (int y1 = 0; y0 + y1 <= j.chunks; ++y1)
                for (int z0 = 0; z0 <= j.chunks; ++z0)
                    for (int z1 = 0; z1 <= j.chunks; ++z1) {
                        const int y = y0 + y1, z = z0 + z1;
                        if (y == 0 || z > y || y * j.workerBw > z * j.psBw)
                            continue;
                        if (wl.unitsFree(0, t, j.w) < y0 || wl.unitsFree(1, t, j.w) < y1 || pl.unitsFree(0, t, j.s) < z0 ||
                            pl.unitsFree(1, t, j.s) < z1)
                            continue;
                        const double c = p.unitCost(wl, 0, t, j.w) * y0 + p.unitCost(wl, 1, t, j.w) * y1 +
                                         q.unitCost(pl, 0, t, j.s) * z0 + q.unitCost(pl, 1, t, j.s) * z1;
                        opts[size_t(t)].push_back({y, c});
                    }
    }
    double best = -INFINITY;
    for (const Opt& a : opts[0])
        for (const Opt& b : opts[1])
            for (const Opt& c : opts[2])
                for (const Opt& d : opts[3]) {
                    if (a.work + b.work + c.work + d.work < D)
                        continue;
                    const int last = d.work ? 3 : c.work ? 2 : b.work ? 1 : 0;
                    const double v = j.f(double(last - j.arrival + 1)) - a.cost - b.cost - c.cost - d.cost;
                    best = std::max(best, v);
                }
    return best;
}

std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TstOasis : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void subroutineEqualsBruteForce()
    {
        Rng rng(7);
        int compared = 0, infeasible = 0;
        for (int c = 0; c < 40; ++c) {
            OasisScenario sc = smallScenario(2, 2, 4, double(1 + rng.below(3)), double(2 + rng.below(3)));
            OasisJob j = simpleJob(c, int(rng.below(2)), int(1 + rng.below(3)), int(1 + rng.below(7)), 1);
            j.psBw = rng.uniform() < 0.5 ? 100 : 250; // one PS per worker, or one per two
            const double kinds = rng.uniform();
            j.f.kind = kinds < 0.4 ? Utility::Kind::Sigmoid : kinds < 0.7 ? Utility::Kind::Linear : Utility::Kind::Constant;
            j.f.g1 = rng.uniform(5, 40);
            j.f.g2 = j.f.kind == Utility::Kind::Linear ? rng.uniform(0.5, 5) : rng.uniform(0.2, 3);
            j.f.g3 = rng.uniform(1, 4);
            Ledger wl, pl;
            wl.reset(sc.workers, 4);
            pl.reset(sc.psServers, 4);
            for (int t = 0; t < 4; ++t)
                for (int s = 0; s < 2; ++s) {
                    wl.add(s, t, {1, 1, 0, 0}, int(rng.below(2)));
                    pl.add(s, t, {0, 1, 0, 0}, int(rng.below(2)));
                }
            PriceFamily p, q;
            p.L = q.L = 0.5;
            p.U = {30, 8, 1, 1};
            q.U = {1, 12, 1, 1};
            const int D = j.workerSlots(1);
            SubroutineInput in {&j, D, &wl, &pl, &p, &q, false};
            const Quote got = bestSchedule(in);
            const double want = bruteForce(j, D, wl, pl, p, q);
            if (!std::isfinite(want)) {
                QVERIFY2(!got.feasible, qPrintable(QString("case %1").arg(c)));
                ++infeasible;
                continue;
            }
            QVERIFY2(got.feasible, qPrintable(QString("case %1").arg(c)));
            QVERIFY2(std::fabs(got.payoff() - want) < 1e-9 * (1 + std::fabs(want)),
                     qPrintable(QString("case %1: subroutine %2, brute force %3").arg(c).arg(got.payoff()).arg(want)));
            // the schedule it returns costs what it says and does the work
            int work = 0;
            double cost = 0;
            for (const SlotAlloc& a : got.schedule.slots) {
                work += a.workers;
                for (const auto& [h, n] : a.y)
                    cost += p.unitCost(wl, h, a.slot, j.w) * n;
                for (const auto& [k, n] : a.z)
                    cost += q.unitCost(pl, k, a.slot, j.s) * n;
            }
            QVERIFY(work >= D);
            QVERIFY(std::fabs(cost - got.workerCost - got.psCost) < 1e-9);
            ++compared;
        }
        QVERIFY(compared >= 20); // the cases mostly have a schedule
        QVERIFY(infeasible >= 1);
    }

    // The subroutine reads the servers nothing was ever reserved on in a slot only up to the first `need` that
    // can take an item (they all cost the zero-load price). The same quote must come out when every server of
    // every slot counts as reserved on (an add of nothing marks it) and so is read one by one: heterogeneous
    // capacities (some servers take no item), a few servers reserved on, with and without cached prices, rigid
    // and elastic jobs, with and without a worker mask.
    void untouchedServersGiveTheSameQuote()
    {
        Rng rng(5);
        int feasible = 0, untouched = 0;
        for (int c = 0; c < 80; ++c) {
            const int T = 6;
            OasisScenario sc = smallScenario(8, 6, T);
            for (OasisServer& w : sc.workers)
                w.cap = {double(rng.below(3)), double(1 + rng.below(4)), 0, 0};
            for (OasisServer& k : sc.psServers)
                k.cap = {0, double(rng.below(4)), 0, 0};
            OasisJob j = simpleJob(c, int(rng.below(2)), int(1 + rng.below(4)), int(1 + rng.below(10)), 40);
            j.f.kind = Utility::Kind::Linear;
            j.f.g2 = rng.uniform(0.5, 5);
            Ledger wl, pl;
            wl.reset(sc.workers, T);
            pl.reset(sc.psServers, T);
            for (int t = 0; t < T; ++t) {
                for (int s = 0; s < 8; ++s)
                    if (rng.uniform() < 0.25 && wl.unitsFree(s, t, {1, 1, 0, 0}) > 0)
                        wl.add(s, t, {1, 1, 0, 0}, 1);
                for (int s = 0; s < 6; ++s)
                    if (rng.uniform() < 0.25 && pl.unitsFree(s, t, {0, 1, 0, 0}) > 0)
                        pl.add(s, t, {0, 1, 0, 0}, 1);
            }
            PriceFamily p, q;
            p.L = q.L = 0.5;
            p.U = {30, 8, 1, 1};
            q.U = {1, 12, 1, 1};
            if (c % 2) {
                wl.cachePrices(p);
                pl.cachePrices(q);
            }
            Ledger wAll = wl, pAll = pl;
            for (int t = 0; t < T; ++t) {
                for (int s = 0; s < 8; ++s)
                    wAll.add(s, t, {1, 1, 0, 0}, 0);
                for (int s = 0; s < 6; ++s)
                    pAll.add(s, t, {0, 1, 0, 0}, 0);
            }
            QCOMPARE(int(wAll.touchedAt(0).size()), 8);
            for (int t = 0; t < T; ++t)
                untouched += 8 - int(wl.touchedAt(t).size());
            std::vector<char> mask(8, 1);
            for (char& m : mask)
                m = rng.uniform() < 0.8;
            SubroutineInput in {&j, j.workerSlots(1), &wl, &pl, &p, &q, c % 3 == 0, c % 4 == 0 ? &mask : nullptr};
            SubroutineInput all = in;
            all.workers = &wAll;
            all.ps = &pAll;
            const Quote a = bestSchedule(in), b = bestSchedule(all);
            QCOMPARE(a.feasible, b.feasible);
            if (!a.feasible)
                continue;
            ++feasible;
            QCOMPARE(a.payoff(), b.payoff());
            QCOMPARE(a.schedule.slots.size(), b.schedule.slots.size());
            for (size_t i = 0; i < a.schedule.slots.size(); ++i) {
                QCOMPARE(a.schedule.slots[i].y, b.schedule.slots[i].y);
                QCOMPARE(a.schedule.slots[i].z, b.schedule.slots[i].z);
            }
        }
        QVERIFY(feasible >= 30);
        QVERIFY(untouched > 80 * 6 * 4); // most servers of a slot untouched, as in a large cluster
    }

    // The ledger keeps the subroutine's per-slot rankings across quotes and repairs them in place as reservations
    // change (Ledger::Ranking). Every quote must be the one a ledger without them gives (a copy whose prices are
    // cached again, which drops them): many servers against the rankings' length (prefixes that are not every
    // server) and few (prefixes that are), commits and releases (costs that rise and fall), single adds of one
    // item and of none, rigid and elastic jobs of 1-5 chunks, with and without worker masks.
    void rankingsFollowReservations()
    {
        Rng rng(11);
        int quotes = 0, admitted = 0, released = 0;
        for (int c = 0; c < 12; ++c) {
            const int T = 10, H = c % 2 ? 30 : 7, K = c % 3 ? 12 : 4;
            OasisScenario sc = smallScenario(H, K, T);
            for (OasisServer& w : sc.workers)
                w.cap = {double(1 + rng.below(4)), double(2 + rng.below(6)), 0, 0};
            for (OasisServer& k : sc.psServers)
                k.cap = {0, double(1 + rng.below(6)), 0, 0};
            Ledger wl, pl;
            wl.reset(sc.workers, T);
            pl.reset(sc.psServers, T);
            PriceFamily p, q;
            p.L = q.L = 0.5;
            p.U = {30, 8, 1, 1};
            q.U = {1, 12, 1, 1};
            wl.cachePrices(p);
            pl.cachePrices(q);
            std::vector<std::vector<char>> masks(3, std::vector<char>(size_t(H), 1));
            for (size_t m = 1; m < masks.size(); ++m)
                for (char& x : masks[m])
                    x = rng.uniform() < 0.6;
            std::vector<std::pair<OasisJob, Schedule>> live;
            for (int step = 0; step < 60; ++step) {
                OasisJob j = simpleJob(step, int(rng.below(4)), int(1 + rng.below(5)), int(1 + rng.below(12)), 60);
                j.f.kind = Utility::Kind::Linear;
                j.f.g2 = rng.uniform(0.5, 6);
                const int m = int(rng.below(4)); // 3: no mask
                SubroutineInput in {&j, j.workerSlots(1), &wl, &pl, &p, &q, rng.uniform() < 0.5,
                                    m < 3 ? &masks[size_t(m)] : nullptr};
                if (in.rigid)
                    in.work = ((in.work + j.chunks - 1) / j.chunks) * j.chunks;
                Ledger wRef = wl, pRef = pl;
                wRef.cachePrices(p);
                pRef.cachePrices(q);
                SubroutineInput ref = in;
                ref.workers = &wRef;
                ref.ps = &pRef;
                const Quote a = bestSchedule(in), b = bestSchedule(ref);
                ++quotes;
                QCOMPARE(a.feasible, b.feasible);
                if (a.feasible) {
                    QVERIFY2(a.payoff() == b.payoff(), qPrintable(QString("case %1 step %2: payoff %3 against %4")
                                                                       .arg(c).arg(step).arg(a.payoff(), 0, 'g', 17)
                                                                       .arg(b.payoff(), 0, 'g', 17)));
                    QCOMPARE(a.schedule.completion, b.schedule.completion);
                    QCOMPARE(a.schedule.slots.size(), b.schedule.slots.size());
                    for (size_t i = 0; i < a.schedule.slots.size(); ++i) {
                        QCOMPARE(a.schedule.slots[i].y, b.schedule.slots[i].y);
                        QCOMPARE(a.schedule.slots[i].z, b.schedule.slots[i].z);
                    }
                    if (a.payoff() > 0) {
                        commitSchedule(j, a.schedule, wl, pl, +1);
                        live.push_back({j, a.schedule});
                        ++admitted;
                    }
                }
                if (!live.empty() && rng.uniform() < 0.3) { // a reservation given back: its servers get cheaper
                    const size_t k = size_t(rng.below(uint64_t(live.size())));
                    commitSchedule(live[k].first, live[k].second, wl, pl, -1);
                    live.erase(live.begin() + std::ptrdiff_t(k));
                    ++released;
                }
                if (rng.uniform() < 0.3) { // one item more, or none (a server only marked reserved on)
                    const int s = int(rng.below(uint64_t(H))), t = int(rng.below(uint64_t(T)));
                    wl.add(s, t, {1, 1, 0, 0}, wl.unitsFree(s, t, {1, 1, 0, 0}) > 0 ? int(rng.below(2)) : 0);
                }
            }
        }
        QVERIFY(quotes == 720);
        QVERIFY(admitted >= 150);
        QVERIFY(released >= 40);
    }

    // A ledger over more (server, slot) cells than half the machine's memory holds is refused with an error naming
    // its size, not allocated (the engine policy on a million-job trace would be killed for it).
    void forgottenSlotsReadUnreserved()
    {
        // a slot is stored from its first reservation, for the servers reserved on; forgetBefore drops the slots
        // before it, which read as never reserved from then on and refuse a reservation
        OasisScenario sc = smallScenario(5, 1, 8);
        Ledger l;
        l.reset(sc.workers, 8);
        PriceFamily pf;
        pf.U = {8, 8, 8, 8};
        pf.L = 0.5;
        l.cachePrices(pf);
        const double zero = l.cachedPrice(3, 6, Gpu);
        QCOMPARE(zero, 0.5);
        QCOMPARE(l.slotsStored(), 0);
        for (int t = 0; t < 6; ++t)
            l.add(t % 5, t, Amounts {1, 1, 0, 0}, 1);
        l.add(1, 4, Amounts {1, 0, 0, 0}, 1);
        QCOMPARE(l.slotsStored(), 6);
        QCOMPARE(l.touchedAt(4), (std::vector<int> {4, 1}));
        QCOMPARE(l.used(1, 4, Gpu), 1.0);
        QCOMPARE(l.used(4, 4, Cpu), 1.0);
        QCOMPARE(l.used(2, 4, Gpu), 0.0); // not reserved on: the zero-load cell
        QCOMPARE(l.cachedPrice(2, 4, Gpu), zero);
        QCOMPARE(l.cachedPrice(1, 4, Gpu), pf.price(1.0, sc.workers[1].cap[Gpu], Gpu));
        QVERIFY(l.cachedPrice(1, 4, Gpu) > zero);
        l.forgetBefore(3);
        QCOMPARE(l.slotsStored(), 3);
        for (int t = 0; t < 3; ++t) {
            QCOMPARE(l.used(t % 5, t, Gpu), 0.0);
            QVERIFY(!l.touched(t % 5, t));
            QVERIFY(l.touchedAt(t).empty());
            QCOMPARE(l.cachedPrice(t % 5, t, Gpu), zero);
        }
        QCOMPARE(l.used(3, 3, Gpu), 1.0); // kept from slot 3 on
        QVERIFY(l.touched(1, 4));
        const std::string e = errorOf([&] { l.add(0, 2, Amounts {1, 0, 0, 0}, 1); });
        QVERIFY2(e.find("reservation in slot 2, which was forgotten") != std::string::npos, e.c_str());
        l.add(0, 7, Amounts {1, 0, 0, 0}, 1); // a slot never stored before
        QCOMPARE(l.slotsStored(), 4);
        QCOMPARE(l.used(0, 7, Gpu), 1.0);
        // new prices reach the stored cells and the unreserved ones alike
        pf.L = 0.25;
        l.cachePrices(pf);
        QCOMPARE(l.cachedPrice(2, 4, Gpu), 0.25);
        QCOMPARE(l.cachedPrice(1, 4, Gpu), pf.price(1.0, sc.workers[1].cap[Gpu], Gpu));
    }

    void oversizedLedgerRefused()
    {
        OasisScenario sc = smallScenario(1000, 1, 4);
        Ledger l;
        const std::string e = errorOf([&] { l.reset(sc.workers, 1000000000); });
        QVERIFY2(e.find("OASiS slot ledger: 1000 servers x 1000000000 slots would take") != std::string::npos, e.c_str());
        QVERIFY2(e.find("GiB, over half of this machine's") != std::string::npos, e.c_str());
        l.reset(sc.workers, 4); // a ledger of ordinary size still is made
        QCOMPARE(l.slots(), 4);
    }

    void negativePayoffRejected()
    {
        OasisScenario sc = smallScenario(1, 1, 6);
        sc.jobs = {simpleJob(1, 0, 2, 4, 3.0)};
        OasisOnline alg;
        OasisParams par;
        par.fixedL = 1.0; // zero-load price 1 per unit: 4 worker-slots x (1 GPU + 1 core) + 2 PS-slots x 1 core = 10 > 3
        alg.reset(sc, par);
        const AdmissionDecision d = alg.offer(0);
        QVERIFY(d.feasible);
        QVERIFY(!d.admitted);
        QCOMPARE(d.utility, 3.0);
        QCOMPARE(d.workerCost, 8.0);
        QCOMPARE(d.psCost, 2.0);
        QCOMPARE(d.payoff(), -7.0);
        QVERIFY(QString::fromStdString(d.reason()).contains("utility 3 - worker cost 8 - PS cost 2 = payoff -7"));
        // nothing was committed
        QCOMPARE(alg.workerLedger().used(0, 0, Gpu), 0.0);
        // the same job with a utility above its cost is admitted and reserves 2 workers in slots 0 and 1
        sc.jobs[0].f.g1 = 12;
        alg.reset(sc, par);
        const AdmissionDecision a = alg.offer(0);
        QVERIFY(a.admitted);
        QCOMPARE(a.payoff(), 2.0);
        QCOMPARE(a.schedule.completion, 1);
        QCOMPARE(alg.workerLedger().used(0, 1, Gpu), 2.0);
        QCOMPARE(alg.psLedger().used(0, 0, Cpu), 1.0);
    }

    void pricesReachUAtFullCapacity()
    {
        PriceFamily pf;
        pf.L = 1e-4;
        pf.U = {100, 10, 1, 1};
        QCOMPARE(pf.price(0, 10, Gpu), 1e-4);
        QCOMPARE(pf.price(10, 10, Gpu), 100.0);
        QVERIFY(std::fabs(pf.price(5, 10, Gpu) - std::sqrt(100 * 1e-4)) < 1e-12);
        QVERIFY(pf.price(6, 10, Gpu) > pf.price(5, 10, Gpu));

        // bounds from the scenario: U_gpu = f(1) / w_gpu of the most valuable job
        OasisScenario sc = smallScenario(1, 1, 4, 20, 40);
        sc.jobs = {simpleJob(1, 0, 1, 1, 100), simpleJob(2, 0, 1, 1, 10)};
        OasisOnline alg;
        alg.reset(sc);
        QCOMPARE(alg.workerPrices().U[Gpu], 100.0);
        QVERIFY(alg.alpha() >= std::log(100.0 / alg.workerPrices().L) - 1e-9);
        // every slot full on the GPU: the price is U there, and nothing is admitted (nothing fits either)
        for (int t = 0; t < 4; ++t)
            alg.workerLedger().add(0, t, {1, 0, 0, 0}, 20);
        QCOMPARE(alg.workerPrice(0, 2, Gpu), 100.0);
        QVERIFY(!alg.offer(0).admitted);
        // 95 % full: one GPU-slot costs L (U/L)^0.95, more than the small job's utility 10, though it fits
        for (int t = 0; t < 4; ++t)
            alg.workerLedger().add(0, t, {1, 0, 0, 0}, -1);
        const AdmissionDecision d = alg.offer(1);
        QVERIFY(d.feasible);
        QVERIFY(!d.admitted);
        QVERIFY(d.workerCost > 10);
        // the valuable job still pays less than its utility there: admitted, and takes the last GPU of slot 0
        QVERIFY(alg.offer(0).admitted);
        QCOMPARE(alg.workerPrice(0, 0, Gpu), 100.0);
    }

    void seedConstraintsHoldOnEveryCommittedSchedule()
    {
        int admitted = 0, rejected = 0;
        for (uint64_t seed = 1; seed <= 60; ++seed) {
            Rng rng(seed);
            OasisScenario sc = smallScenario(int(2 + rng.below(3)), int(1 + rng.below(2)), int(8 + rng.below(20)));
            for (auto& s : sc.workers)
                s.cap = {double(1 + rng.below(4)), double(2 + rng.below(8)), 16, 1000};
            for (auto& s : sc.psServers)
                s.cap = {0, double(2 + rng.below(6)), 16, 4000};
            const int n = int(4 + rng.below(12));
            for (int i = 0; i < n; ++i) {
                OasisJob j = simpleJob(i, int(rng.below(uint64_t(sc.horizon / 2))), int(1 + rng.below(4)), 1, 1);
                j.epochs = int(1 + rng.below(3));
                j.minibatches = int(1 + rng.below(3));
                j.tau = rng.uniform(0.3, 2);
                j.gradMb = rng.uniform(0, 50);
                j.workerBw = rng.uniform(50, 300);
                j.psBw = j.workerBw * rng.uniform(1, 3);
                j.w = {1, double(1 + rng.below(2)), double(rng.below(4)), j.workerBw};
                j.s = {0, 1, double(rng.below(3)), j.psBw};
                j.f.kind = rng.uniform() < 0.5 ? Utility::Kind::Sigmoid : Utility::Kind::Linear;
                j.f.g1 = rng.uniform(1, 50);
                j.f.g2 = rng.uniform(0.1, 2);
                j.f.g3 = rng.uniform(2, 10);
                sc.jobs.push_back(j);
            }
            validateScenario(sc);
            OasisOnline alg;
            alg.reset(sc);
            // independent tally of every committed reservation
            std::vector<double> wUse(sc.workers.size() * size_t(sc.horizon) * kResources, 0);
            std::vector<double> pUse(sc.psServers.size() * size_t(sc.horizon) * kResources, 0);
            for (int i = 0; i < n; ++i) {
                const OasisJob& j = sc.jobs[size_t(i)];
                const AdmissionDecision d = alg.offer(i);
                if (!d.admitted) {
                    ++rejected;
                    QVERIFY(!d.feasible || d.payoff() <= 0);
                    continue;
                }
                ++admitted;
                QVERIFY(d.payoff() > 0);
                int work = 0, last = -1;
                for (const SlotAlloc& a : d.schedule.slots) {
                    int y = 0, z = 0;
                    for (const auto& [h, k] : a.y) {
                        y += k;
                        for (int r = 0; r < kResources; ++r)
                            wUse[(size_t(h) * size_t(sc.horizon) + size_t(a.slot)) * kResources + size_t(r)] += k * j.w[size_t(r)];
                    }
                    for (const auto& [kk, k] : a.z) {
                        z += k;
                        for (int r = 0; r < kResources; ++r)
                            pUse[(size_t(kk) * size_t(sc.horizon) + size_t(a.slot)) * kResources + size_t(r)] += k * j.s[size_t(r)];
                    }
                    QCOMPARE(y, a.workers);
                    QCOMPARE(z, a.ps);
                    QVERIFY(a.slot >= j.arrival && a.slot < sc.horizon); // no early run
                    QVERIFY(y >= 1 && y <= j.chunks);                    // worker cap
                    QVERIFY(y * j.workerBw <= z * j.psBw + 1e-9);        // bandwidth guarantee
                    QVERIFY(z <= y);                                     // PS count
                    work += y;
                    last = std::max(last, a.slot);
                }
                // work: E N M (tau + 2e/b) worker-seconds within the worker-slots given (slot = 1 s)
                QVERIFY(work >= double(j.epochs) * j.chunks * j.minibatches * j.secondsPerMinibatch() - 1e-9);
                QCOMPARE(last, d.schedule.completion);
                QCOMPARE(d.utility, j.f(double(last - j.arrival + 1)));
            }
            for (size_t s = 0; s < sc.workers.size(); ++s)
                for (int t = 0; t < sc.horizon; ++t)
                    for (int r = 0; r < kResources; ++r)
                        QVERIFY(wUse[(s * size_t(sc.horizon) + size_t(t)) * kResources + size_t(r)] <=
                                sc.workers[s].cap[size_t(r)] + 1e-9);
            for (size_t s = 0; s < sc.psServers.size(); ++s)
                for (int t = 0; t < sc.horizon; ++t)
                    for (int r = 0; r < kResources; ++r)
                        QVERIFY(pUse[(s * size_t(sc.horizon) + size_t(t)) * kResources + size_t(r)] <=
                                sc.psServers[s].cap[size_t(r)] + 1e-9);
        }
        QVERIFY(admitted > 100);
        QVERIFY(rejected > 10);
    }

    void baselinesOnAHandCase()
    {
        // one job, N = 4, 8 worker-slots, constant utility 5 minus 1 per slot (linear): 1 server of 4 GPUs
        OasisScenario sc = smallScenario(1, 1, 10, 4, 8);
        OasisJob j = simpleJob(0, 0, 4, 8, 10);
        j.f.kind = Utility::Kind::Linear;
        j.f.g2 = 1;
        sc.jobs = {j};
        validateScenario(sc);
        RunOptions o;
        o.fixedWorkers = 2;
        const OasisRun fifo = runOasisPolicy(sc, "fifo", o);  // 2 workers: slots 0..3, JCT 4
        QCOMPARE(fifo.jobs[0].completion, 3);
        QCOMPARE(fifo.totalUtility, 6.0);
        QCOMPARE(fifo.meanJctSlots, 4.0);
        const OasisRun dorm = runOasisPolicy(sc, "dorm", o);  // grows to 4 workers: JCT 2
        QCOMPARE(dorm.jobs[0].completion, 1);
        QCOMPARE(dorm.totalUtility, 8.0);
        QCOMPARE(dorm.jobs[0].maxWorkers, 4);
        QCOMPARE(dorm.jobs[0].maxPs, 2);
        const OasisRun greedy = runOasisPolicy(sc, "greedy", o);
        QCOMPARE(greedy.totalUtility, 8.0);
        const OasisRun oasis = runOasisPolicy(sc, "oasis", o);
        QCOMPARE(oasis.admitted, 1);
        QCOMPARE(oasis.totalUtility, 8.0); // at zero load the fastest schedule pays most
        // two jobs of 4 GPUs each arriving together: fifo serves them one after the other
        OasisJob j2 = j;
        j2.id = 1;
        sc.jobs.push_back(j2);
        o.fixedWorkers = 4;
        const OasisRun two = runOasisPolicy(sc, "fifo", o);
        QCOMPARE(two.jobs[0].completion, 1);
        QCOMPARE(two.jobs[1].completion, 3);
        QCOMPARE(two.totalUtility, 8.0 + 6.0);
        QVERIFY_EXCEPTION_THROWN(runOasisPolicy(sc, "lifo", o), std::invalid_argument);
    }

    void densityBoundsByHand()
    {
        // two constant-utility jobs of N = 4, D = 8 (fastest 2 slots, 2 PSs per slot: Z = 4 PS-slots), utilities
        // 100 and 10; demands: worker 1 GPU + 1 core, PS 1 core: n = 3 (family, resource) pairs
        OasisScenario sc = smallScenario(1, 1, 10, 4, 8);
        const OasisJob a = simpleJob(0, 0, 4, 8, 100), b = simpleJob(1, 0, 4, 8, 10);
        sc.jobs = {a, b};
        validateScenario(sc);
        OasisParams par;
        par.bounds = OasisParams::Bounds::Density;
        OasisOnline alg;
        alg.reset(sc, par);
        const PriceFamily& p = alg.workerPrices();
        const PriceFamily& q = alg.psPrices();
        QCOMPARE(p.U[Gpu], 100.0 / 8);           // the largest utility per GPU-slot
        QCOMPARE(p.lower(Gpu), 10.0 / 8 / 12);   // the smallest, / (4 n)
        QCOMPARE(p.lower(Cpu), 10.0 / 8 / 12);
        QCOMPARE(q.U[Cpu], 100.0 / 4);           // per PS core-slot
        QCOMPARE(q.lower(Cpu), 10.0 / 4 / 12);
        QVERIFY(std::abs(alg.alpha() - std::log(120.0)) < 1e-9);
        QVERIFY(std::abs(alg.workerPrice(0, 0, Gpu) - 10.0 / 96) < 1e-12); // L^gpu at zero load
        // at zero load the least valuable job pays exactly a quarter of its utility at its fastest schedule
        const Quote qb = alg.quote(sc.jobs[1]);
        QVERIFY(qb.feasible);
        QCOMPARE(qb.schedule.completion, 1);
        QVERIFY(std::abs(qb.workerCost + qb.psCost - 2.5) < 1e-9);
        QVERIFY(std::abs(qb.payoff() - 7.5) < 1e-9);
    }

    void riskRewardWeighsRewardAgainstLoad()
    {
        // 1 server of 4 GPUs, 8 cores; jobs of N = 4, 8 worker-slots (2 slots at full speed), arriving together.
        // One worker's dominant share is 1/4 (GPU), so a job's volume is 8 x 1/4 = 2.
        OasisScenario sc = smallScenario(1, 1, 10, 4, 8);
        const OasisJob a = simpleJob(0, 0, 4, 8, 100); // density 100 / 2 = 50: slots 0-1 at zero load
        OasisJob b = simpleJob(1, 0, 4, 8, 0.1);        // density 0.05: earliest in slots 2-3
        sc.jobs = {a, b};
        validateScenario(sc);
        // at zero load the first job is admitted as by greedy
        const OasisRun greedy = runOasisPolicy(sc, "greedy");
        QCOMPARE(greedy.admitted, 2);
        // b: load over its window [0, 3] = (1 + 1 + 0 + 0) / 4 = 0.5, mean density (50 + 0.05) / 2, volume 2:
        // risk 0.5 x 25.025 x 2 = 25.025 > reward 0.1: rejected
        const OasisRun rr = runOasisPolicy(sc, "riskreward");
        QCOMPARE(rr.admitted, 1);
        QVERIFY(rr.jobs[0].admitted && !rr.jobs[1].admitted);
        QCOMPARE(rr.jobs[0].completion, 1);
        QCOMPARE(rr.totalUtility, 100.0);
        // a valuable second job: density 30, risk 0.5 x 40 x 2 = 40 < 60: admitted, after the first
        b.f.g1 = 60;
        sc.jobs[1] = b;
        const OasisRun rr2 = runOasisPolicy(sc, "riskreward");
        QCOMPARE(rr2.admitted, 2);
        QCOMPARE(rr2.jobs[1].completion, 3);
        QCOMPARE(rr2.totalUtility, 160.0);
        // just below the risk it is rejected: reward 39.9 vs risk 0.5 x (50 + 19.95) / 2 x 2 = 34.98 admits,
        // reward 30 vs risk 0.5 x (50 + 15) / 2 x 2 = 32.5 rejects
        b.f.g1 = 30;
        sc.jobs[1] = b;
        QCOMPARE(runOasisPolicy(sc, "riskreward").admitted, 1);
    }

    void generatorIsDeterministicAndValid()
    {
        GenParams p;
        p.jobs = 60;
        p.seed = 3;
        p.workerServers = 6;
        p.psServers = 3;
        p.horizon = 120;
        OasisScenario a = generateScenario(p), b = generateScenario(p);
        QCOMPARE(writeJson(scenarioToJson(a)), writeJson(scenarioToJson(b)));
        QVERIFY(!a.jobs.empty());
        validateScenario(a);
        QVERIFY(QString::fromStdString(a.notes[0]).contains("seed 3"));
        p.seed = 4;
        QVERIFY(writeJson(scenarioToJson(generateScenario(p))) != writeJson(scenarioToJson(a)));
        // round trip through the file format
        QTemporaryDir dir;
        const std::string path = dir.filePath("g.json").toStdString();
        writeScenario(a, path);
        const OasisScenario r = readScenario(path);
        QCOMPARE(writeJson(scenarioToJson(r)), writeJson(scenarioToJson(a)));
        // every policy runs it; OASiS admits only jobs with a positive payoff
        for (const std::string& name : oasisPolicyNames()) {
            const OasisRun run = runOasisPolicy(r, name);
            QVERIFY(run.totalUtility > 0);
            QVERIFY(run.completed <= run.admitted);
        }
    }

    void traceMappingDefaults()
    {
        ClusterSpec c;
        c.name = "m";
        c.types = {{"A", 1.0, 16, 1.0}};
        c.switches = {{"s0", 100}};
        for (int m = 0; m < 8; ++m)
            c.machines.push_back({"m" + std::to_string(m), 0, 4, 0, 0, 0, 25});
        c.finalize();
        Trace t;
        Job a;
        a.id = 5;
        a.submit = 601;
        a.gpus = 3;
        a.duration = 1500;
        t.jobs.push_back(a);
        const OasisScenario sc = fromTrace(t, c);
        QCOMPARE(int(sc.workers.size()), 8);
        QCOMPARE(int(sc.psServers.size()), 2);             // one per 4 machines
        QCOMPARE(sc.workers[0].cap[Gpu], 4.0);
        QCOMPARE(sc.workers[0].cap[Cpu], 16.0);            // 4 cores per GPU when the machine states none
        const OasisJob& j = sc.jobs[0];
        QCOMPARE(j.arrival, 2);                            // the first slot boundary at or after 601 s
        QCOMPARE(j.chunks, 3);
        QCOMPARE(j.workerSlots(sc.slotSeconds), 8);        // ceil(1500 x 3 / 600)
        QCOMPARE(j.psFor(3), 1);                           // 3 x 1 Gbit/s <= 4 Gbit/s
        QCOMPARE(j.f.g3, 6.0);                             // halves at twice its 3 run slots
        QVERIFY(std::fabs(j.f(6.0) - 0.5) < 1e-12);
        QCOMPARE(sc.horizon, 2 + 4 * 3 + 1);
        QVERIFY(!sc.notes.empty());
    }

    void enginePolicyRunsItsPlan()
    {
        // 2 machines x 4 GPUs, 10-minute slots: jobs of 4 GPUs for 20 minutes arrive together; the plans reserve
        // whole gangs, with --perf ideal every admitted job finishes in its planned slots
        ClusterSpec c;
        c.name = "hand";
        c.types = {{"A", 1.0, 16, 1.0}};
        c.switches = {{"s0", 100}};
        for (int m = 0; m < 2; ++m)
            c.machines.push_back({"m" + std::to_string(m), 0, 4, 0, 0, 0, 25});
        c.finalize();
        Trace t;
        for (int i = 0; i < 12; ++i) {
            Job j;
            j.id = i;
            j.submit = 30.0 * i;
            j.gpus = 4;
            j.duration = 1200;
            t.jobs.push_back(j);
        }
        auto s = makeScheduler("oasis", {});
        auto* os = dynamic_cast<OasisEngineScheduler*>(s.get());
        QVERIFY(os);
        RunConfig cfg;
        cfg.perf.ideal = true;
        cfg.recordDecisions = true;
        cfg.checkInvariants = true;
        Simulator sim(c, t, *s, cfg);
        struct Log : SimObserver {
            const OasisEngineScheduler* os = nullptr;
            std::vector<AdmissionRecord> admissions;
            std::map<int, Schedule> planned; // each admission's schedule as made (a finished job's is dropped)
            void onDecision(const DecisionRecord& r) override
            {
                admissions.insert(admissions.end(), r.admissions.begin(), r.admissions.end());
                for (const AdmissionRecord& a : r.admissions)
                    if (const AdmissionDecision* d = os->decision(a.job))
                        planned[a.job] = d->schedule;
            }
        } log;
        log.os = os;
        sim.addObserver(&log);
        QVERIFY(sim.run());
        std::map<std::string, double> st;
        for (const auto& [k, v] : s->runStats())
            st[k] = v;
        QCOMPARE(int(log.admissions.size()), 12);
        int accepted = 0;
        for (const AdmissionRecord& a : log.admissions) {
            QVERIFY(QString::fromStdString(a.reason).contains("- worker cost"));
            const AdmissionDecision* d = os->decision(a.job);
            QVERIFY(d);
            QCOMPARE(a.verdict == Admit::Accept, d->admitted);
            QCOMPARE(double(a.score), double(float(d->payoff())));
            accepted += a.verdict == Admit::Accept;
            QCOMPARE(sim.rt(a.job).status, a.verdict == Admit::Accept ? JobStatus::Done : JobStatus::Rejected);
            const Schedule& made = log.planned[a.job];
            if (d->admitted) { // rigid: whole gangs of 4 in each planned slot, finished by the end of its last one
                QVERIFY(!made.slots.empty());
                for (const SlotAlloc& sl : made.slots)
                    QCOMPARE(sl.workers, 4);
                QCOMPARE(d->schedule.completion, made.completion);
                QVERIFY(sim.rt(a.job).end <= (made.completion + 1) * 600.0 + 1e-6);
            }
            QVERIFY(d->schedule.slots.empty()); // finished or rejected: the plan is not kept
        }
        QCOMPARE(st["admitted"], double(accepted));
        QVERIFY2(accepted >= 3 && accepted < 12, qPrintable(QString::number(accepted))); // 2 gangs per slot: later jobs pay more
        QCOMPARE(st["overruns"], 0.0);
        QVERIFY(std::fabs(st["total_utility"] - st["planned_utility"]) < 1e-9);
        QVERIFY(st["alpha"] >= 1);
    }

    void badInputNamesJobAndField()
    {
        OasisScenario sc = smallScenario(1, 1, 10, 8, 8);
        OasisJob j = simpleJob(7, 0, 2, 4, 10);
        j.f.kind = Utility::Kind::Sigmoid;
        j.f.g2 = -0.5;
        QCOMPARE(errorOf([&] { validateJob(j, sc); }),
                 std::string("job 7: field 'utility.g2': utility increases with time (sigmoid with g2 = -0.500000 < 0); "
                             "OASiS needs a non-increasing f"));
        j = simpleJob(8, 0, 2, 4, 10);
        j.workerBw = 0;
        QVERIFY(errorOf([&] { validateJob(j, sc); }).find("job 8: field 'b': zero worker bandwidth") == 0);
        j = simpleJob(9, 0, 2, 4, 10);
        j.psBw = 0;
        QVERIFY(errorOf([&] { validateJob(j, sc); }).find("job 9: field 'B': zero parameter-server bandwidth") == 0);
        j = simpleJob(10, 0, 2, 4, 10);
        j.w[Gpu] = 16;
        QVERIFY(errorOf([&] { validateJob(j, sc); }).find("job 10: field 'w': no worker server can hold one worker") == 0);
        j = simpleJob(11, 0, 2, 4, 10);
        j.s[Cpu] = 9;
        QVERIFY(errorOf([&] { validateJob(j, sc); }).find("job 11: field 's': no parameter server can hold one PS") == 0);
        // in a file: file, the job's line and the field
        sc.jobs = {simpleJob(1, 0, 2, 4, 10), simpleJob(2, 0, 2, 4, 10)};
        sc.jobs[1].f.kind = Utility::Kind::Linear;
        sc.jobs[1].f.g2 = -1;
        QTemporaryDir dir;
        const std::string path = dir.filePath("bad.json").toStdString();
        {
            std::ofstream out(path);
            out << writeJson(scenarioToJson(sc), 1);
        }
        const std::string e = errorOf([&] { readScenario(path); });
        QVERIFY2(e.find(path + ":") == 0 && e.find("job 2 utility.g2") != std::string::npos &&
                     e.find("utility increases with time") != std::string::npos,
                 e.c_str());
        QVERIFY2(e.find(":1:") == std::string::npos, e.c_str()); // the job's own line, not the file's first
        // structural errors name the field
        {
            std::ofstream out(path);
            out << "{\"format\": \"schedstudio-oasis\", \"version\": 1, \"slot_seconds\": 60, \"horizon\": 5,\n"
                   " \"workers\": [{\"name\": \"a\", \"capacity\": {\"gpu\": 1, \"disk\": 3}}], \"ps_servers\": [], \"jobs\": []}";
        }
        QVERIFY2(errorOf([&] { readScenario(path); }).find("capacity.disk") != std::string::npos,
                 errorOf([&] { readScenario(path); }).c_str());
    }
};

QTEST_GUILESS_MAIN(TstOasis)
#include "tst_oasis.moc"
