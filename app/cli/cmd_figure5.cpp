// reproduce --figure5: the seed's Figure 5 (ALGORITHMS §2.9), DAS's mean JCT and fee against the number of
// attention heads h of its ordering agent and the history length tau of its RWGP placement agent, with RIFLING
// as the reference line. For each (h, tau, seed) DAS is trained on the training side of the trace and scored on
// the held-out jobs, as `reproduce` does. Writes a table (--out), a CSV (--csv) and two PNG line charts (--png
// PREFIX: PREFIX-jct.png, PREFIX-fee.png, drawn by schedstudio-plot). Built only with LibTorch.
#ifdef SCHEDSTUDIO_HAVE_TORCH
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli.h"
#include "learn/learn.h"
#include "learn/trainer.h"
#include "learncli.h"
#include "loaders.h"
#include "run/runner.h"
#include "slurm.h"

namespace ss::cli {
namespace {

std::vector<int> intList(const std::string& text, const char* option)
{
    std::vector<int> out;
    for (const std::string& s : splitList(text)) {
        char* end = nullptr;
        const long v = std::strtol(s.c_str(), &end, 10);
        if (s.empty() || *end != '\0' || v < 1 || v > 4096)
            throw UsageError(std::string("--") + option + ": expected positive integers, got '" + s + "'");
        out.push_back(int(v));
    }
    if (out.empty())
        throw UsageError(std::string("--") + option + ": empty list");
    return out;
}

/// schedstudio-plot beside this program (build/app/gui/ when this is build/app/schedstudio-cli) or on PATH.
std::string plotTool()
{
    const std::filesystem::path self = selfExe();
    for (const auto& p : {self.parent_path() / "gui" / "schedstudio-plot", self.parent_path() / "schedstudio-plot"})
        if (std::filesystem::exists(p))
            return p.string();
    return "schedstudio-plot";
}

} // namespace

int cmdFigure5(Args& a)
{
    const std::string clusterArg = a.get("cluster", "das-small");
    std::vector<uint64_t> seeds;
    for (const std::string& s : splitList(a.get("seeds", "1,2,3")))
        seeds.push_back(std::stoull(s));
    const std::vector<int> heads = intList(a.get("heads-list", "1,2,4,8"), "heads-list");
    const std::vector<int> taus = intList(a.get("tau-list", "16,32,64,128"), "tau-list");
    const double holdout = a.getDouble("holdout", 0.3);
    const int iterations = int(a.getInt("iterations", 10));
    const int evalEvery = int(a.getInt("eval-every", 2));
    const int episodeJobs = int(a.getInt("episode-jobs", 200));
    const std::string perfSpec = a.get("perf", "");
    const std::string outMd = a.get("out", ""), csvPath = a.get("csv", ""), pngPrefix = a.get("png", "");
    a.flag("figure5");
    const Trace full = loadTraceFromArgs(a, true);
    a.finish();
    if (!pngPrefix.empty() && csvPath.empty())
        throw UsageError("--png draws from the CSV: give --csv FILE too");
    ClusterSpec cluster = readCluster(clusterArg);
    cluster.finalize();
    for (int h : heads)
        if (learn::TrainConfig {}.dModel % h != 0)
            throw UsageError("--heads-list: " + std::to_string(h) + " heads do not divide the model width "
                             + std::to_string(learn::TrainConfig {}.dModel));
    const auto [train, eval] = splitTrace(full, 1.0 - holdout);
    const PerfConfig perf = perfSpec.empty() ? learn::TrainConfig::defaultPerf() : PerfConfig::parse(perfSpec);

    struct Cell {
        double jct = 0, fee = 0;
    };
    std::map<std::pair<int, int>, Cell> das; // (h, tau) -> seed means
    Cell rifling;
    std::string csv = "line,heads,tau,seed,mean_jct_min,mean_fee_usd\n";
    auto scored = [&](const RunSpec& spec) {
        const RunOutput o = runSimulation(cluster, eval, spec);
        return Cell {o.summary.meanJctMin, o.summary.meanFeeUsd};
    };
    for (uint64_t seed : seeds) {
        RunSpec r;
        r.policy = "rifling";
        r.config.seed = seed;
        r.config.perf = perf;
        const Cell c = scored(r);
        rifling.jct += c.jct / double(seeds.size());
        rifling.fee += c.fee / double(seeds.size());
        for (int h : heads) // a flat reference line over the heads axis
            csv += "RIFLING," + std::to_string(h) + ",," + std::to_string(seed) + "," + std::to_string(c.jct) + ","
                   + std::to_string(c.fee) + "\n";
        std::fprintf(stderr, "RIFLING seed %llu: JCT %.2f min, fee $%.3f\n", (unsigned long long)seed, c.jct, c.fee);
    }
    for (int tau : taus)
        for (int h : heads)
            for (uint64_t seed : seeds) {
                learn::TrainConfig c = reproduceTrainConfig("das", cluster, train, perf, seed, iterations, episodeJobs,
                                                            evalEvery);
                c.heads = h;
                c.tau = tau;
                const std::string ckpt = (std::filesystem::temp_directory_path()
                                          / ("ss-figure5-" + std::to_string(::getpid()) + "-h" + std::to_string(h) + "-t"
                                             + std::to_string(tau) + "-" + std::to_string(seed) + ".sscp"))
                                             .string();
                trainAndSave(c, ckpt);
                RunSpec spec;
                spec.policy = "das";
                spec.config.seed = seed;
                spec.config.perf = perf;
                spec.options.checkpoint = ckpt;
                Cell got;
                try {
                    got = scored(spec);
                } catch (...) {
                    std::remove(ckpt.c_str());
                    throw;
                }
                std::remove(ckpt.c_str());
                Cell& m = das[{h, tau}];
                m.jct += got.jct / double(seeds.size());
                m.fee += got.fee / double(seeds.size());
                csv += "DAS tau=" + std::to_string(tau) + "," + std::to_string(h) + "," + std::to_string(tau) + ","
                       + std::to_string(seed) + "," + std::to_string(got.jct) + "," + std::to_string(got.fee) + "\n";
                std::fprintf(stderr, "DAS h=%d tau=%d seed %llu: JCT %.2f min, fee $%.3f\n", h, tau,
                             (unsigned long long)seed, got.jct, got.fee);
            }

    // the table: one row per tau, one column per h, "JCT / fee"; RIFLING below
    std::string md = "Mean JCT (min) / mean fee ($) of DAS on the held-out jobs, by attention heads h (columns) and "
                     "RWGP history length tau (rows); mean over " + std::to_string(seeds.size()) + " seed(s).\n\n| tau \\ h |";
    for (int h : heads)
        md += " " + std::to_string(h) + " |";
    md += "\n|---|";
    for (size_t i = 0; i < heads.size(); ++i)
        md += "---|";
    md += "\n";
    char buf[96];
    for (int tau : taus) {
        md += "| " + std::to_string(tau) + " |";
        for (int h : heads) {
            const Cell& c = das[{h, tau}];
            std::snprintf(buf, sizeof buf, " %.2f / %.3f |", c.jct, c.fee);
            md += buf;
        }
        md += "\n";
    }
    std::snprintf(buf, sizeof buf, "\nRIFLING (reference): %.2f / %.3f\n", rifling.jct, rifling.fee);
    md += buf;
    std::printf("trace %s: train %zu jobs, evaluate %zu jobs on %s; %d training iterations per cell\n\n%s",
                full.name.c_str(), train.jobs.size(), eval.jobs.size(), cluster.name.c_str(), iterations, md.c_str());
    if (!outMd.empty()) {
        std::ofstream f(outMd);
        f << md;
        if (!f)
            throw std::runtime_error(outMd + ": cannot write the table");
    }
    if (!csvPath.empty()) {
        std::ofstream f(csvPath);
        f << csv;
        if (!f)
            throw std::runtime_error(csvPath + ": cannot write the CSV");
    }
    if (!pngPrefix.empty()) {
        const std::string tool = plotTool();
        for (const auto& [col, label, suffix] :
             {std::tuple<const char*, const char*, const char*> {"mean_jct_min", "mean JCT (min)", "-jct.png"},
              {"mean_fee_usd", "mean fee ($)", "-fee.png"}}) {
            const std::string cmd = "QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} " + shellQuote(tool) + " --csv "
                                    + shellQuote(csvPath) + " --x heads --y " + col + " --group line --out "
                                    + shellQuote(pngPrefix + suffix) + " --xlabel " + shellQuote("attention heads h")
                                    + " --ylabel " + shellQuote(label) + " --title "
                                    + shellQuote(std::string("DAS ") + label + " by heads and RWGP history tau, RIFLING for reference");
            if (std::system(cmd.c_str()) != 0)
                throw std::runtime_error("--png: " + tool + " failed (is the studio built? it draws the charts)");
            std::printf("wrote %s%s\n", pngPrefix.c_str(), suffix);
        }
    }
    return 0;
}

} // namespace ss::cli
#endif
