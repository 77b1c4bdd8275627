// Chronus placement: consolidation (> 8 GPUs) and batch local search with split options (ALGORITHMS.md
// §5.4). Our choices: split options are [g] and the 2-node splits [a, g - a] (a >= g - a); a split's reward is
// the profiled relative speed x GPUs; the artifact's disabled branch-and-bound refinement is left out.
#include "policy/chronus/chronusplacement.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace ss::chronus {

namespace {

// ChronusArtifact code/data model_info.json (MIT): speed of a model on G GPUs split over N nodes, relative to
// one node. Data, not code: {model, G, N, speed}.
struct SpeedRow {
    const char* model;
    int gpus, nodes;
    double speed;
};
constexpr SpeedRow kModelInfo[] = {
    {"alexnet", 2, 2, 0.7450686884120468},      {"alexnet", 4, 4, 0.325340860506144},
    {"alexnet", 4, 2, 0.3972922047776267},      {"alexnet", 6, 2, 0.3309909296079203},
    {"alexnet", 8, 4, 0.26836765904968457},     {"alexnet", 8, 2, 0.5083145152293351},
    {"vgg16", 2, 2, 0.8958242243287142},        {"vgg16", 4, 2, 0.576427514971673},
    {"vgg16", 4, 4, 0.3178085793082509},        {"vgg16", 6, 2, 0.6566101887325483},
    {"vgg16", 8, 2, 0.5724854767061701},        {"vgg16", 8, 4, 0.2608913299672127},
    {"resnet101", 2, 2, 0.9905392627895291},    {"resnet101", 4, 2, 0.969122665600673},
    {"resnet101", 4, 4, 0.9538214155581849},    {"resnet101", 6, 2, 0.9494155472302157},
    {"resnet101", 8, 4, 0.8025198551591541},    {"resnet101", 8, 2, 0.9476815436874315},
    {"mobilenet_v2", 2, 2, 0.9956322189032849}, {"mobilenet_v2", 4, 2, 0.972020944828447},
    {"mobilenet_v2", 4, 4, 0.7935638731175636}, {"mobilenet_v2", 6, 2, 0.9582250811064315},
    {"mobilenet_v2", 8, 2, 0.9297908377905936}, {"mobilenet_v2", 8, 4, 0.6271480154852589},
    {"inception_v3", 2, 2, 1.0025492563926262}, {"inception_v3", 4, 2, 0.9826097698009885},
    {"inception_v3", 4, 4, 0.9640798255933825}, {"inception_v3", 6, 2, 0.9513560244529581},
    {"inception_v3", 8, 2, 0.9227832420295228}, {"inception_v3", 8, 4, 0.8791396895657881},
};

struct Option {
    int a = 0, b = 0; // GPUs on the first and second machine (b = 0: one machine)
    double reward = 0;
};

bool allowed(const PlaceRequest& r, const ClusterSpec& cl, int m)
{
    const int t = cl.machines[size_t(m)].type;
    return t >= 64 || ((r.typeMask >> t) & 1ULL);
}

// The machines by free GPU count: per count, a bitset over machine ids. bestFit's answer is the lowest-id
// allowed machine (not `skip`) of the lowest count >= k holding one: the smallest free count that fits, exact
// matches first, ties to the lowest id, as a scan over every machine in id order finds it. A query reads
// (counts >= k) x machines / 64 words instead of every machine; copying the whole index is as cheap.
class FreeLevels {
public:
    FreeLevels(const std::vector<int>& freeGpus, int levels)
        : m_words((freeGpus.size() + 63) / 64), m_levels(size_t(std::max(levels, 1))),
          m_bits(m_levels * m_words, 0), m_count(m_levels, 0)
    {
        for (size_t m = 0; m < freeGpus.size(); ++m)
            add(int(m), freeGpus[m]);
    }
    void move(int m, int from, int to)
    {
        m_bits[size_t(from) * m_words + size_t(m) / 64] &= ~(1ULL << (m % 64));
        --m_count[size_t(from)];
        add(m, to);
    }
    /// `allowed`: a bitset over machine ids (null: every machine).
    int best(int k, const uint64_t* allowed, int skip) const
    {
        for (size_t v = size_t(std::max(k, 0)); v < m_levels; ++v) {
            if (m_count[v] == 0)
                continue;
            const uint64_t* row = &m_bits[v * m_words];
            for (size_t w = 0; w < m_words; ++w) {
                uint64_t b = row[w] & (allowed ? allowed[w] : ~0ULL);
                if (skip >= 0 && size_t(skip) / 64 == w)
                    b &= ~(1ULL << (skip % 64));
                if (b)
                    return int(w * 64 + size_t(__builtin_ctzll(b)));
            }
        }
        return -1;
    }

private:
    size_t m_words, m_levels;
    std::vector<uint64_t> m_bits; // level * words + word
    std::vector<int> m_count;     // machines per level
    void add(int m, int v)
    {
        m_bits[size_t(v) * m_words + size_t(m) / 64] |= 1ULL << (m % 64);
        ++m_count[size_t(v)];
    }
};

} // namespace

SplitSpeed::SplitSpeed(double crossMachine) : m_cross(crossMachine) {}

double SplitSpeed::speed(const std::string& model, int gpus, int nodes) const
{
    if (nodes <= 1)
        return 1.0;
    for (const SpeedRow& r : kModelInfo)
        if (r.gpus == gpus && r.nodes == nodes && model == r.model)
            return r.speed;
    return 1.0 / (1.0 + m_cross * double(nodes - 1));
}

BatchPlacement localSearchPlace(const std::vector<PlaceRequest>& reqs, const std::vector<int>& freeGpus,
                                const ClusterSpec& cluster, const SplitSpeed& speed)
{
    const size_t n = reqs.size();
    std::vector<std::vector<Option>> opts(n);
    std::vector<double> maxR(n, 0), minR(n, 0);
    for (size_t i = 0; i < n; ++i) {
        const int g = reqs[i].gpus;
        opts[i].push_back({g, 0, double(g)});
        const double two = speed.speed(reqs[i].model, g, 2) * double(g);
        for (int a = g - 1; a >= (g + 1) / 2 && a >= 1; --a)
            opts[i].push_back({a, g - a, two});
        maxR[i] = minR[i] = opts[i][0].reward;
        for (const Option& o : opts[i]) {
            maxR[i] = std::max(maxR[i], o.reward);
            minR[i] = std::min(minR[i], o.reward);
        }
    }
    std::vector<size_t> base(n);
    std::iota(base.begin(), base.end(), size_t(0));
    struct Pass {
        const char* name;
        std::vector<size_t> order;
    };
    std::vector<Pass> passes(4, Pass {"", base});
    passes[0].name = "max-min reward";
    std::stable_sort(passes[0].order.begin(), passes[0].order.end(),
                     [&](size_t a, size_t b) { return maxR[a] - minR[a] > maxR[b] - minR[b]; });
    passes[1].name = "GPUs ascending";
    std::stable_sort(passes[1].order.begin(), passes[1].order.end(), [&](size_t a, size_t b) { return reqs[a].gpus < reqs[b].gpus; });
    passes[2].name = "GPUs descending";
    std::stable_sort(passes[2].order.begin(), passes[2].order.end(), [&](size_t a, size_t b) { return reqs[a].gpus > reqs[b].gpus; });
    passes[3].name = "max reward";
    std::stable_sort(passes[3].order.begin(), passes[3].order.end(), [&](size_t a, size_t b) { return maxR[a] > maxR[b]; });

    // the machines each request may use, as a bitset over machine ids (null: all), one per distinct type mask
    const size_t words = (freeGpus.size() + 63) / 64;
    std::vector<std::pair<uint64_t, std::vector<uint64_t>>> masks;
    std::vector<const uint64_t*> allowedOf(n, nullptr);
    uint64_t present = 0; // the GPU types (below 64) the machines have
    for (size_t m = 0; m < freeGpus.size(); ++m)
        if (const int t = cluster.machines[m].type; t < 64)
            present |= 1ULL << t;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t tm = reqs[i].typeMask;
        if ((present & ~tm) == 0)
            continue; // every machine allowed
        auto it = std::find_if(masks.begin(), masks.end(), [&](const auto& e) { return e.first == tm; });
        if (it == masks.end()) {
            std::vector<uint64_t> bits(words, 0);
            for (size_t m = 0; m < freeGpus.size(); ++m)
                if (allowed(reqs[i], cluster, int(m)))
                    bits[m / 64] |= 1ULL << (m % 64);
            masks.emplace_back(tm, std::move(bits));
            it = masks.end() - 1;
        }
        allowedOf[i] = it->second.data();
    }
    int levels = 1;
    for (const int f : freeGpus)
        levels = std::max(levels, f + 1);
    const FreeLevels baseLevels(freeGpus, levels);

    BatchPlacement best;
    bool have = false;
    for (const Pass& p : passes) {
        std::vector<int> fr = freeGpus;
        FreeLevels lv = baseLevels;
        auto take = [&](int m, int g) {
            lv.move(m, fr[size_t(m)], fr[size_t(m)] - g);
            fr[size_t(m)] -= g;
        };
        BatchPlacement cur;
        cur.parts.assign(n, {});
        cur.pass = p.name;
        for (size_t i : p.order) {
            const PlaceRequest& r = reqs[i];
            const int m = lv.best(r.gpus, allowedOf[i], -1); // exact match, else the smallest that fits
            if (m >= 0) {
                take(m, r.gpus);
                cur.parts[i] = {{m, r.gpus}};
                cur.reward += opts[i][0].reward;
                continue;
            }
            // best 2-node split
            int bm1 = -1, bm2 = -1;
            const Option* bo = nullptr;
            for (size_t k = 1; k < opts[i].size(); ++k) {
                const Option& o = opts[i][k];
                const int m1 = lv.best(o.a, allowedOf[i], -1);
                if (m1 < 0)
                    continue;
                const int m2 = lv.best(o.b, allowedOf[i], m1);
                if (m2 < 0)
                    continue;
                if (!bo || o.reward > bo->reward) {
                    bo = &o;
                    bm1 = m1;
                    bm2 = m2;
                }
            }
            if (bo) {
                take(bm1, bo->a);
                take(bm2, bo->b);
                cur.parts[i] = {{bm1, bo->a}, {bm2, bo->b}};
                cur.reward += bo->reward;
            }
        }
        if (!have || cur.reward > best.reward + 1e-9) {
            best = std::move(cur);
            have = true;
        }
    }
    if (!have)
        best.parts.assign(n, {});
    return best;
}

Parts consolidatePlace(const PlaceRequest& req, const std::vector<int>& freeGpus, const ClusterSpec& cluster)
{
    auto within = [&](int sw) {
        std::vector<int> ms;
        for (int m = 0; m < int(freeGpus.size()); ++m)
            if ((sw < 0 || cluster.machines[size_t(m)].sw == sw) && freeGpus[size_t(m)] > 0 && allowed(req, cluster, m))
                ms.push_back(m);
        std::stable_sort(ms.begin(), ms.end(), [&](int a, int b) { return freeGpus[size_t(a)] > freeGpus[size_t(b)]; });
        Parts out;
        int left = req.gpus;
        std::vector<char> used(freeGpus.size(), 0);
        for (int m : ms) {
            if (left <= 0)
                break;
            if (freeGpus[size_t(m)] >= left) {
                // the remainder: a machine with exactly `left` free, else the smallest that holds it
                int pick = -1;
                for (int x : ms)
                    if (!used[size_t(x)] && freeGpus[size_t(x)] >= left
                        && (pick < 0 || freeGpus[size_t(x)] < freeGpus[size_t(pick)]))
                        pick = x;
                out.push_back({pick, left});
                left = 0;
                break;
            }
            out.push_back({m, freeGpus[size_t(m)]});
            used[size_t(m)] = 1;
            left -= freeGpus[size_t(m)];
        }
        if (left > 0)
            out.clear();
        return out;
    };
    Parts best;
    for (int sw = 0; sw < int(cluster.switches.size()); ++sw) {
        Parts p = within(sw);
        if (!p.empty() && (best.empty() || p.size() < best.size()))
            best = std::move(p);
    }
    if (best.empty())
        best = within(-1);
    return best;
}

} // namespace ss::chronus
