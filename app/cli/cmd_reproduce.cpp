// reproduce: the DAS Table 1 shape (ALGORITHMS §2.9): every baseline and the trained DAS variants on held-out
// jobs of one trace, over clusters and seeds. Cells (cluster, row, seed) can be stored in a run database,
// sharded, and run as a Slurm job array (--slurm) whose merge task prints the table. Built only with LibTorch.
#ifdef SCHEDSTUDIO_HAVE_TORCH
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cli.h"
#include "learn/learn.h"
#include "learn/trainer.h"
#include "learncli.h"
#include "loaders.h"
#include "run/executor.h"
#include "run/runspec.h"
#include "slurm.h"
#include "store/runstore.h"

#include <unistd.h>

namespace ss::cli {
namespace {

std::pair<double, double> meanOverSlices(const std::vector<std::pair<double, double>>& v)
{
    double j = 0, f = 0;
    for (const auto& [a, b] : v) {
        j += a;
        f += b;
    }
    return {j / double(v.size()), f / double(v.size())};
}

/// One more evaluation slice of `reproduce`: the same trace, filters and load scale, another --window.
struct EvalSlice {
    std::string label;
    Trace trace;
};

/// --eval-windows A:B,C:D,...: evaluation slices besides the held-out one. One slice of a few hundred jobs cannot
/// separate policies a few per cent apart (near-tie choices reshuffle whole queues), so the table can also be
/// scored on several windows. Each must lie outside --window, whose jobs train (or are held out): no evaluation job
/// is seen in training.
/// `raw` is the trace as read (before the transforms), so the file is read once.
std::vector<EvalSlice> evalWindowsFromArgs(Args& a, const Trace& raw)
{
    const std::vector<std::string> items = splitList(a.get("eval-windows"));
    if (items.empty())
        return {};
    const TraceTransform base = traceTransformFromArgs(a);
    if (base.windowStart <= 0 && base.windowEnd < 0)
        throw UsageError("--eval-windows needs --window: without it every job of the trace is a training or "
                         "held-out job");
    const double trainEnd = base.windowEnd < 0 ? HUGE_VAL : base.windowEnd;
    const std::string path = a.require("trace");
    std::vector<EvalSlice> out;
    for (const std::string& w : items) {
        TraceTransform t = base;
        try {
            std::tie(t.windowStart, t.windowEnd) = TraceTransform::parseRange(w);
        } catch (const std::exception& e) {
            throw UsageError("--eval-windows: bad window '" + w + "' (" + e.what() + "); expected e.g. 600h:604.2h");
        }
        const double end = t.windowEnd < 0 ? HUGE_VAL : t.windowEnd;
        if (!(end > t.windowStart))
            throw UsageError("--eval-windows: window '" + w + "' is empty");
        if (t.windowStart < trainEnd && end > base.windowStart)
            throw UsageError("--eval-windows: window '" + w + "' overlaps --window " + a.get("window")
                             + " (its jobs train the learned policies)");
        Trace x = raw;
        applyTransforms(x, t);
        if (x.jobs.empty())
            throw IoError(path, 0, "", "--eval-windows: no jobs in window " + w + " after the filters");
        x.name = raw.name + "[" + w + "]";
        out.push_back({w, std::move(x)});
    }
    return out;
}

/// The rows of the table: label and policy, baselines first.
const std::vector<std::pair<std::string, std::string>> kRows = {
    {"FIFO-FirstFit", "fifo+firstfit"}, {"FIFO-LoadBalance", "fifo+loadbalance"},
    {"DRF-FirstFit", "drf+firstfit"},   {"DRF-LoadBalance", "drf+loadbalance"},
    {"Tetris", "tetris"},               {"MALO", "malo"},
    {"MOSA", "mosa"},                   {"DL2", "dl2"},
    {"RIFLING", "rifling"},             {"DA", "da"},
    {"DA+MC", "da+mc"},                 {"DA+RWGP", "da+rwgp"},
    {"DAS", "das"}};
constexpr size_t kBaselines = 9; // the rows before DA

bool isTrained(const std::string& policy)
{
    return policy == "das" || policy == "da" || policy == "da+mc" || policy == "da+rwgp";
}

/// The evaluation runs of one (policy, seed) cell already in `store`, one (JCT, fee) per evaluation input in
/// order; empty when any is missing. Runs are matched by experiment, policy, seed and the fingerprints of the
/// evaluation trace and cluster, so a shard's database, the merged one and a resumed one all answer alike.
std::vector<std::pair<double, double>> storedCell(const RunStore& store, const std::string& experiment,
                                                  const std::vector<RunInputs>& inputs, const std::string& policy,
                                                  uint64_t seed)
{
    std::vector<std::pair<double, double>> out;
    for (const RunInputs& in : inputs) {
        RunFilter f;
        f.experiment = experiment;
        f.policy = policy;
        f.traceFingerprint = traceFingerprint(*in.trace);
        f.clusterFingerprint = in.cluster->fingerprint();
        int64_t id = 0;
        for (const RunInfo& r : store.listRuns(f))
            if (r.seed == seed)
                id = r.id; // listRuns is newest first: keep the oldest, as a resumed shard never writes twice
        if (id == 0)
            return {};
        const StoredRun s = store.loadRun(id, false);
        out.push_back({s.out.summary.meanJctMin, s.out.summary.meanFeeUsd});
    }
    return out;
}

/// reproduce --shipped: the checkpoint of learned row `policy` on `cluster`, <dir>/<policy>-<cluster>.sscp, checked
/// before anything runs. Throws UsageError for a missing file or one made for another variant or cluster (naming
/// both); the loader's own errors (another feature version, corruption) name the file and both versions.
std::string shippedCheckpointFor(const std::string& dir, const std::string& policy, const ClusterSpec& cluster)
{
    const std::string path = (std::filesystem::path(dir) / (policy + "-" + cluster.name + ".sscp")).string();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw UsageError("--shipped: no checkpoint for " + policy + " on " + cluster.name + " (looked for " + path
                         + "; resources/checkpoints/README.md has the command that makes it)");
    const learn::CheckpointInfo info = learn::readCheckpointInfo(path);
    if (info.policy != policy || info.clusterFingerprint != cluster.fingerprint())
        throw UsageError("--shipped: " + path + " is " + info.policy + " on cluster '" + info.clusterName
                         + "' (fingerprint " + info.clusterFingerprint + "), the row is " + policy + " on '"
                         + cluster.name + "' (fingerprint " + cluster.fingerprint() + ")");
    return path;
}

int cmdReproduce(Args& a)
{
    if (a.has("figure5"))
        return cmdFigure5(a);
    const std::vector<std::string> clusters = splitList(a.get("clusters", "das-small,das-medium,das-large"));
    std::vector<uint64_t> seeds;
    for (const std::string& s : splitList(a.get("seeds", "1,2,3")))
        seeds.push_back(std::stoull(s));
    const double holdout = a.getDouble("holdout", 0.3);
    const double validation = a.getDouble("validation", 0.0);
    if (!(validation >= 0 && validation < 1))
        throw UsageError("--validation must be in [0,1)");
    const int iterations = int(a.getInt("iterations", 10));
    const int evalEvery = int(a.getInt("eval-every", 2));
    const int episodeJobs = int(a.getInt("episode-jobs", 200));
    const int workers = workersFromArgs(a);
    // --shipped: the learned rows run the checkpoints in --checkpoints DIR (default: the shipped ones) instead of
    // training; runs stored under their own experiment name.
    const bool shipped = a.flag("shipped");
    const std::string ckptDir = a.get("checkpoints", checkpointDirectory());
    if (shipped && ckptDir.empty())
        throw UsageError("--shipped: no checkpoint folder found (pass --checkpoints DIR)");
    const std::string experiment = shipped ? "reproduce-shipped" : "reproduce";
    const std::string perfSpec = a.get("perf", "");
    const std::string outMd = a.get("out", "");
    // --load-per-gpus N: the arrival rate (after --load-scale) is the one meant for an N-GPU cluster; each
    // cluster of G GPUs sees it multiplied by G/N (submit times divided), so that queues form on every size.
    const double loadGpus = a.getDouble("load-per-gpus", 0);
    if (loadGpus < 0)
        throw UsageError("--load-per-gpus must be >= 0");
    // --rows: a subset of the table's rows, by label or policy (default: all)
    std::vector<std::pair<std::string, std::string>> rows;
    {
        const std::vector<std::string> want = splitList(a.get("rows", ""));
        for (const auto& r : kRows)
            if (want.empty() || std::find(want.begin(), want.end(), r.first) != want.end()
                || std::find(want.begin(), want.end(), r.second) != want.end())
                rows.push_back(r);
        for (const std::string& w : want)
            if (std::none_of(kRows.begin(), kRows.end(), [&](const auto& r) { return r.first == w || r.second == w; }))
                throw UsageError("--rows: no row '" + w + "' (rows: FIFO-FirstFit, ..., DAS, or their policies)");
    }
    // --db: every evaluation run is stored (experiment "reproduce"); cells already there are not run again.
    // --shard i/N: only cells i, i+N, ... (cells: cluster, row, seed in table order), no table.
    // --from-db: run nothing; the table from --db (after a Slurm merge). --slurm: a job array of shards.
    const std::string db = a.get("db", "");
    const auto [shardIndex, shardCount] = parseShard(a.get("shard", ""));
    const bool sharded = a.has("shard");
    const bool fromDb = a.flag("from-db");
    const bool slurm = a.has("slurm");
    if ((sharded || fromDb || slurm) && db.empty())
        throw UsageError("--shard, --from-db and --slurm need --db");
    if (slurm && (sharded || fromDb))
        throw UsageError("--slurm makes the shards and the final table itself: leave out --shard and --from-db");
    std::optional<SlurmArray> array;
    if (slurm) {
        array = slurmArrayFromArgs(a, "reproduce", db);
        // the tasks only fill their databases; the table (and --out) comes from the merged one
        array->finalCommand = "reproduce";
        array->finalOptions = array->options;
        array->finalOptions.push_back({"from-db", "", true});
        std::erase_if(array->options, [](const Args::Option& o) { return o.key == "out"; });
    }
    Trace raw;
    Trace full = loadTraceFromArgs(a, true, "trace", a.has("eval-windows") ? &raw : nullptr);
    const std::vector<EvalSlice> windows = evalWindowsFromArgs(a, raw);
    a.finish();
    if (shipped) // every checkpoint the table needs, before anything runs
        for (const std::string& cname : clusters) {
            const ClusterSpec cluster = readCluster(cname);
            for (const auto& [label, policy] : rows)
                if (isTrained(policy))
                    shippedCheckpointFor(ckptDir, policy, cluster);
        }
    if (array) // the trace and every option were checked here first
        return submitSlurmArray(*array);
    std::optional<RunStore> store;
    if (!db.empty())
        store.emplace(db, fromDb ? RunStore::Mode::ReadOnly : RunStore::Mode::Create);
    auto [trainAll, evalBase] = splitTrace(full, 1.0 - holdout);
    // Early stopping picks among training iterations on a validation slice cut from the END of the training
    // side, so the held-out (evaluation) jobs never influence which policy is kept.
    Trace trainBase = trainAll, validBase;
    if (validation > 0)
        std::tie(trainBase, validBase) = splitTrace(trainAll, 1.0 - validation);
    const PerfConfig perf = perfSpec.empty() ? learn::TrainConfig::defaultPerf() : PerfConfig::parse(perfSpec);
    const auto names = schedulerNames();
    // row -> cluster -> per evaluation slice (0: the held-out one, then --eval-windows) -> (jct, fee), seed means
    std::map<std::string, std::map<std::string, std::vector<std::pair<double, double>>>> res;
    const size_t nSlices = 1 + windows.size();
    size_t cellCount = 0, cellsRun = 0, cellsStored = 0; // cells: (cluster, row, seed) in table order
    std::string scaleNote;
    // Columns are named by the cluster's own name (a cluster file's path would make a poor header), and the
    // scratch checkpoints carry the process id so that reproduce runs side by side never share one.
    std::map<std::string, std::string> shown;
    auto fileSafe = [](std::string t) {
        for (char& ch : t)
            if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '+' || ch == '.'))
                ch = '_';
        return t;
    };
    for (const std::string& cname : clusters) {
        ClusterSpec cluster = readCluster(cname);
        shown[cname] = cluster.name.empty() ? cname : cluster.name;
        const double rate = loadGpus > 0 ? double(cluster.totalGpus()) / loadGpus : 1.0;
        auto scaled = [rate](Trace t) {
            for (Job& j : t.jobs)
                j.submit /= rate; // every part starts at t = 0, so this scales inter-arrival times only
            return t;
        };
        const Trace train = scaled(trainBase), valid = scaled(validBase);
        std::vector<Trace> evals{scaled(evalBase)};
        for (const EvalSlice& w : windows)
            evals.push_back(scaled(w.trace));
        std::vector<RunInputs> evalInputs;
        {
            auto c = std::make_shared<const ClusterSpec>(cluster);
            for (const Trace& t : evals)
                evalInputs.push_back({"", std::make_shared<const Trace>(t), c, nullptr, t.name, cname});
        }
        if (loadGpus > 0) {
            char buf[96];
            std::snprintf(buf, sizeof buf, "%s%s arrival rate x%.3g", scaleNote.empty() ? "" : ", ", shown[cname].c_str(),
                          rate);
            scaleNote += buf;
        }
        for (const auto& [label, policy] : rows) {
            if (std::find(names.begin(), names.end(), policy) == names.end())
                continue;
            std::vector<std::pair<double, double>> sums(nSlices, {0.0, 0.0});
            for (uint64_t seed : seeds) {
                const size_t cell = cellCount++;
                if (cell % shardCount != shardIndex)
                    continue;
                if (store) {
                    const auto have = storedCell(*store, experiment, evalInputs, policy, seed);
                    if (!have.empty()) {
                        ++cellsStored;
                        for (size_t k = 0; k < nSlices; ++k) {
                            sums[k].first += have[k].first;
                            sums[k].second += have[k].second;
                        }
                        continue;
                    }
                    if (fromDb)
                        throw UsageError("--from-db: " + db + " lacks the runs of " + policy + " seed "
                                         + std::to_string(seed) + " on " + shown[cname]
                                         + " (did every shard finish? `runs --db " + db + "` lists what it holds)");
                }
                ++cellsRun;
                RunSpec spec;
                spec.policy = policy;
                spec.config.seed = seed;
                spec.config.perf = perf;
                std::string ckpt;
                // The scratch checkpoint goes when this seed is done, also when training or the run throws.
                struct RemoveOnExit {
                    std::string& path;
                    ~RemoveOnExit()
                    {
                        if (!path.empty())
                            std::remove(path.c_str());
                    }
                } removeCkpt{ckpt};
                if (isTrained(policy) && shipped) {
                    spec.options.checkpoint = shippedCheckpointFor(ckptDir, policy, cluster);
                } else if (isTrained(policy)) {
                    learn::TrainConfig c = reproduceTrainConfig(policy, cluster, train, perf, seed, iterations,
                                                                episodeJobs, evalEvery);
                    c.validTrace = valid;
                    c.workers = workers;
                    ckpt = (std::filesystem::temp_directory_path()
                            / ("ss-reproduce-" + std::to_string(::getpid()) + "-" + policy + "-"
                               + fileSafe(shown[cname]) + "-" + std::to_string(seed) + ".sscp"))
                               .string();
                    trainAndSave(c, ckpt);
                    spec.options.checkpoint = ckpt;
                }
                // One run per evaluation slice, through the run layer's plan and executor.
                ExecOptions ex;
                ex.threads = workers; // results come back in plan order whatever thread ran them
                ex.onError = [](size_t, const std::string& e) { throw std::runtime_error(e); };
                std::vector<RunOutput> outs(nSlices);
                ex.onResult = [&](size_t k, RunOutput& o) { outs[k] = std::move(o); };
                executePlan(expandPlan(evalInputs, {policy}, {seed}, spec), ex);
                for (size_t k = 0; k < nSlices; ++k) {
                    sums[k].first += outs[k].summary.meanJctMin;
                    sums[k].second += outs[k].summary.meanFeeUsd;
                    if (store) {
                        // a learned run's checkpoint was scratch: the stored spec names it, the file is gone
                        store->saveRun(experiment, outs[k], {}, true);
                    }
                }
            }
            if (sharded)
                continue; // a shard holds only some seeds of a cell: the table comes from the merged database
            for (auto& [j, f] : sums) {
                j /= double(seeds.size());
                f /= double(seeds.size());
            }
            res[label][cname] = sums;
            std::fprintf(stderr, "%s on %s: JCT %.2f min, fee $%.3f", label.c_str(), shown[cname].c_str(),
                         sums[0].first, sums[0].second);
            if (nSlices > 1) {
                const auto [mj, mf] = meanOverSlices(sums);
                std::fprintf(stderr, "; over %zu slices JCT %.2f min, fee $%.3f", nSlices, mj, mf);
            }
            std::fprintf(stderr, "\n");
        }
    }
    if (sharded) {
        std::printf("reproduce shard %zu/%zu: %zu of %zu cells (cluster, row, seed) here: %zu run, %zu already in %s\n",
                    shardIndex, shardCount, cellsRun + cellsStored, cellCount, cellsRun, cellsStored, db.c_str());
        return 0;
    }
    if (store)
        std::fprintf(stderr, "reproduce: %zu cells run, %zu read from %s\n", cellsRun, cellsStored, db.c_str());
    // One table of mean JCT (min) and mean fee ($) per cluster, from `cell` (row, cluster) -> (jct, fee).
    auto table = [&](auto cell) {
        std::string t = "| Policy |";
        for (const auto& c : clusters)
            t += " " + shown[c] + " JCT | " + shown[c] + " Fee |";
        t += " Avg JCT | Avg Fee |\n|---|";
        for (size_t i = 0; i < clusters.size() + 1; ++i)
            t += "---|---|";
        t += "\n";
        for (const auto& [label, policy] : rows) {
            if (!res.count(label))
                continue;
            char buf[64];
            t += "| " + label + " |";
            double sj = 0, sf = 0;
            for (const auto& c : clusters) {
                auto [j, f] = cell(label, c);
                sj += j;
                sf += f;
                std::snprintf(buf, sizeof buf, " %.3f | %.3f |", j, f);
                t += buf;
            }
            std::snprintf(buf, sizeof buf, " %.3f | %.3f |\n", sj / double(clusters.size()),
                          sf / double(clusters.size()));
            t += buf;
        }
        return t;
    };
    std::string md = table([&](const std::string& r, const std::string& c) { return res[r][c][0]; });
    if (nSlices > 1) {
        std::string list = "the held-out slice";
        size_t jobs = evalBase.jobs.size();
        for (const EvalSlice& w : windows) {
            list += ", " + w.label;
            jobs += w.trace.jobs.size();
        }
        md += "\nMean over " + std::to_string(nSlices) + " evaluation slices (" + list + "; " + std::to_string(jobs)
              + " jobs), each slice weighing the same:\n\n";
        md += table([&](const std::string& r, const std::string& c) { return meanOverSlices(res[r][c]); });
        // A scale-free view: in how many slices a learned row is below every baseline.
        md += "\nSlices where the row is below every baseline (JCT, fee):\n\n| Policy |";
        for (const auto& c : clusters)
            md += " " + shown[c] + " |";
        md += "\n|---|";
        for (size_t i = 0; i < clusters.size(); ++i)
            md += "---|";
        md += "\n";
        for (size_t r = kBaselines; r < rows.size(); ++r) {
            const std::string& label = rows[r].first;
            if (!res.count(label))
                continue;
            md += "| " + label + " |";
            for (const auto& c : clusters) {
                int wj = 0, wf = 0;
                for (size_t k = 0; k < nSlices; ++k) {
                    double bj = HUGE_VAL, bf = HUGE_VAL;
                    for (size_t b = 0; b < kBaselines; ++b)
                        if (res.count(rows[b].first)) {
                            bj = std::min(bj, res[rows[b].first][c][k].first);
                            bf = std::min(bf, res[rows[b].first][c][k].second);
                        }
                    wj += res[label][c][k].first < bj;
                    wf += res[label][c][k].second < bf;
                }
                md += " " + std::to_string(wj) + "/" + std::to_string(nSlices) + ", " + std::to_string(wf) + "/"
                      + std::to_string(nSlices) + " |";
            }
            md += "\n";
        }
    }
    const std::string learned = shipped ? "learned rows: the checkpoints in " + ckptDir + ", no training"
                                        : std::to_string(iterations) + " training iterations per learned policy";
    std::printf("trace %s: train %zu jobs (+%zu validation), evaluate %zu jobs%s; %zu seed(s); %s%s%s\n\n%s",
                full.name.c_str(), trainBase.jobs.size(), validBase.jobs.size(), evalBase.jobs.size(),
                nSlices > 1 ? (" and " + std::to_string(windows.size()) + " more window(s)").c_str() : "", seeds.size(),
                learned.c_str(), scaleNote.empty() ? "" : "; ", scaleNote.c_str(), md.c_str());
    if (!outMd.empty()) {
        std::ofstream f(outMd);
        f << md;
    }
    return 0;
}


CliCommand c2("reproduce",
              "--trace FILE [--clusters das-small,das-medium,das-large] [--seeds 1,2,3] [--holdout 0.3] "
              "[--validation 0] [--iterations 10] [--eval-every 2] [--load-per-gpus N] [--eval-windows A:B,...] "
              "[--out TABLE.md] [--rows R1,R2,...] [--workers N] [--shipped [--checkpoints DIR]] [--db DB [--shard i/N | --from-db | --slurm [--slurm-tasks N] "
              "[--slurm-dir DIR] [--slurm-opt OPT]... [--slurm-no-submit]]] | --figure5 --trace FILE [--cluster das-small] "
              "[--heads-list 1,2,4,8] [--tau-list 16,32,64,128] [--seeds 1,2,3] [--iterations 10] [--out TABLE.md] "
              "[--csv FILE [--png PREFIX]] : the DAS Table 1 shape (--load-per-gpus: scale the arrival rate to each cluster's GPU count; "
              "--eval-windows: also evaluate on these windows of the trace, outside --window, and print the mean "
              "over all evaluation slices; --shipped: the learned rows score the shipped checkpoints "
              "(<variant>-<cluster>.sscp) instead of training, a missing or mismatched one refused before anything runs; --db: store every evaluation run, resumable; --slurm: cells as a Slurm job "
              "array into shard databases, merged, then the table from the merged one; --figure5: the seed's Figure 5, DAS "
              "JCT and fee over attention heads x RWGP history, RIFLING for reference, as a table, CSV and PNGs)",
              &cmdReproduce);

} // namespace
} // namespace ss::cli
#endif
