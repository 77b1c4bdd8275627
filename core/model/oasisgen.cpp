#include "model/oasisgen.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "model/rng.h"

namespace ss::oasis {

namespace {

struct Instance {
    const char* name;
    Amounts cap;
    double weight;
};
// EC2-like instance types (GPUs, vCPUs, GiB, Mbit/s) [I: the seed names EC2 CPU/GPU instances, not which].
const Instance kGpuMix[] = {
    {"p2.xlarge", {1, 4, 61, 1250}, 0.30},   {"p2.8xlarge", {8, 32, 488, 10000}, 0.15},
    {"p3.2xlarge", {1, 8, 61, 10000}, 0.25}, {"p3.8xlarge", {4, 32, 244, 10000}, 0.15},
    {"g3.4xlarge", {1, 16, 122, 10000}, 0.15},
};
const Instance kCpuMix[] = {
    {"c5.4xlarge", {0, 16, 32, 10000}, 0.35}, {"m5.4xlarge", {0, 16, 64, 10000}, 0.30},
    {"c5.9xlarge", {0, 36, 72, 10000}, 0.20}, {"r5.4xlarge", {0, 16, 128, 10000}, 0.15},
};

template <size_t N> const Instance& pick(Rng& rng, const Instance (&mix)[N])
{
    double u = rng.uniform(), acc = 0;
    for (const Instance& i : mix) {
        acc += i.weight;
        if (u < acc)
            return i;
    }
    return mix[N - 1];
}

int uniformInt(Rng& rng, int lo, int hi) { return lo + int(rng.below(uint64_t(hi - lo + 1))); }

int poisson(Rng& rng, double lambda)
{
    if (lambda > 30)
        return std::max(0, int(std::lround(rng.normal(lambda, std::sqrt(lambda)))));
    const double l = std::exp(-lambda);
    int k = 0;
    double p = 1;
    do {
        ++k;
        p *= rng.uniform();
    } while (p > l);
    return k - 1;
}

// Dorm-like demands [I]: workers 1 GPU (10 %: 2), 1-4 cores, 2-16 GB, 100-1000 Mbit/s; PSs 1-4 cores, 2-8 GB and
// 2-8 x the worker's bandwidth (at most 10 Gbit/s).
OasisJob drawJob(Rng& rng, const GenParams& p, const Amounts& maxWorker, double maxPsBw)
{
    OasisJob j;
    j.epochs = uniformInt(rng, 5, 30);
    j.chunks = uniformInt(rng, 2, 16);
    j.minibatches = uniformInt(rng, 10, 50);
    j.tau = rng.uniform(0.5, 3.0);
    j.gradMb = 8.0 * rng.uniform(5, 100);
    j.workerBw = std::round(rng.uniform(100, 1000));
    j.psBw = std::min(maxPsBw, std::round(j.workerBw * rng.uniform(2, 8)));
    j.w = {rng.uniform() < 0.1 ? 2.0 : 1.0, double(uniformInt(rng, 1, 4)), double(uniformInt(rng, 2, 16)), j.workerBw};
    for (int r = 0; r < kResources; ++r)
        j.w[size_t(r)] = std::min(j.w[size_t(r)], maxWorker[size_t(r)]);
    j.s = {0, double(uniformInt(rng, 1, 4)), double(uniformInt(rng, 2, 8)), j.psBw};
    const int d = j.workerSlots(p.slotSeconds);
    const double fastest = std::ceil(double(d) / j.chunks); // slots at N workers
    const double u = rng.uniform();
    j.f.g1 = std::round(rng.uniform(1, 100));
    if (u < p.sigmoidShare) {
        j.f.kind = Utility::Kind::Sigmoid;
        j.f.g3 = std::round(fastest * rng.uniform(1.5, 4));
        j.f.g2 = 4.0 / std::max(1.0, j.f.g3) * rng.uniform(0.5, 2);
    } else if (u < p.sigmoidShare + p.linearShare) {
        j.f.kind = Utility::Kind::Linear;
        j.f.g2 = j.f.g1 / (fastest * rng.uniform(4, 10));
    } else {
        j.f.kind = Utility::Kind::Constant;
    }
    return j;
}

} // namespace

OasisScenario generateScenario(const GenParams& p)
{
    Rng rng(p.seed);
    Rng cl = rng.fork(1), jobRng = rng.fork(2), arr = rng.fork(3), probe = rng.fork(4);
    OasisScenario sc;
    sc.name = "oasis-gen";
    sc.slotSeconds = p.slotSeconds;
    sc.horizon = p.horizon;
    Amounts maxWorker {0, 0, 0, 0};
    double gpus = 0, maxPsBw = 0;
    for (int h = 0; h < p.workerServers; ++h) {
        const Instance& i = pick(cl, kGpuMix);
        sc.workers.push_back({std::string(i.name) + "-" + std::to_string(h), i.cap});
        for (int r = 0; r < kResources; ++r)
            maxWorker[size_t(r)] = std::max(maxWorker[size_t(r)], i.cap[size_t(r)]);
        gpus += i.cap[Gpu];
    }
    for (int k = 0; k < p.psServers; ++k) {
        const Instance& i = pick(cl, kCpuMix);
        sc.psServers.push_back({std::string(i.name) + "-" + std::to_string(k), i.cap});
        maxPsBw = std::max(maxPsBw, i.cap[Bw]);
    }
    double rate = p.arrivalsPerSlot;
    if (rate <= 0) {
        double gpuSlots = 0; // mean GPU-slots one job asks for
        const int n = 2000;
        for (int i = 0; i < n; ++i) {
            const OasisJob j = drawJob(probe, p, maxWorker, maxPsBw);
            gpuSlots += j.workerSlots(p.slotSeconds) * j.w[Gpu];
        }
        rate = p.load * gpus / (gpuSlots / n);
    }
    // Google-trace-shaped arrivals [I]: Poisson per slot with a diurnal swing of +-50 % and bursts (5 % of slots
    // at 3x), in the first 60 % of the horizon.
    const double slotsPerDay = 86400.0 / p.slotSeconds;
    const int window = std::max(1, int(0.6 * p.horizon));
    int64_t id = 0;
    for (int t = 0; t < window && int(sc.jobs.size()) < p.jobs; ++t) {
        double lambda = rate * (1 + 0.5 * std::sin(2 * M_PI * t / slotsPerDay));
        if (arr.uniform() < 0.05)
            lambda *= 3;
        const int k = poisson(arr, lambda);
        for (int i = 0; i < k && int(sc.jobs.size()) < p.jobs; ++i) {
            OasisJob j = drawJob(jobRng, p, maxWorker, maxPsBw);
            j.id = id++;
            j.arrival = t;
            sc.jobs.push_back(j);
        }
    }
    std::ostringstream o;
    o << "generate-oasis: seed " << p.seed << ", jobs " << p.jobs << " (made " << sc.jobs.size() << "), H "
      << p.workerServers << " worker servers from {p2.xlarge .30, p2.8xlarge .15, p3.2xlarge .25, p3.8xlarge .15, "
      << "g3.4xlarge .15}, K " << p.psServers << " PS servers from {c5.4xlarge .35, m5.4xlarge .30, c5.9xlarge .20, "
      << "r5.4xlarge .15}, slot " << p.slotSeconds << " s, horizon " << p.horizon << " slots";
    sc.notes.push_back(o.str());
    o.str("");
    o << "arrivals: Poisson " << rate << " jobs/slot (load " << p.load << (p.arrivalsPerSlot > 0 ? ", rate given" : "")
      << ") x (1 + 0.5 sin(2 pi t / " << slotsPerDay << ")), 5 % burst slots at 3x, in the first " << window
      << " slots";
    sc.notes.push_back(o.str());
    sc.notes.push_back("jobs: E 5-30, N 2-16, M 10-50, tau 0.5-3 s, e 40-800 Mbit, b 100-1000 Mbit/s, B 2-8 x b "
                       "(<= 10 Gbit/s); worker 1 GPU (10 % 2), 1-4 cores, 2-16 GB, b; PS 1-4 cores, 2-8 GB, B");
    o.str("");
    o << "utility: g1 1-100; sigmoid " << p.sigmoidShare << " (g3 = 1.5-4 x fastest slots, g2 = 4/g3 x 0.5-2), linear "
      << p.linearShare << " (zero at 4-10 x fastest), constant the rest";
    sc.notes.push_back(o.str());
    return sc;
}

} // namespace ss::oasis
