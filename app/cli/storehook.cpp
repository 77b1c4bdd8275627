#include "storehook.h"

#include <cstdio>

#include "io/export.h"
#include "io/traceio.h"
#include "store/runstore.h"

namespace ss::cli {

namespace {
bool endsWith(const std::string& s, const std::string& suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

void peekStoreOptions(Args& args)
{
    for (const char* k : {"db", "experiment", "jobs-out", "summary-out", "series-out", "chrome-trace"})
        (void)args.get(k);
}

bool wantsDecisionLog(Args& args)
{
    return !args.get("chrome-trace").empty();
}

long long saveRunIfAsked(Args& args, const RunOutput& out, const std::string& experiment, const std::string& config)
{
    const std::string db = args.get("db");
    const std::string exp = args.get("experiment", experiment);
    if (db.empty())
        return -1;
    RunStore store(db); // StoreError names the file
    const int64_t id = store.saveRun(exp.empty() ? std::string("default") : exp, out, config);
    std::fprintf(stderr, "saved run %lld (%s, seed %llu) to %s\n", (long long)id, out.policy.c_str(),
                 (unsigned long long)out.seed, db.c_str());
    return id;
}

bool resolveRunCluster(const RunOutput& out, const std::string& arg, ClusterSpec& cluster)
{
    if (!arg.empty()) {
        cluster = readCluster(arg);
        return true;
    }
    try {
        ClusterSpec c = makeClusterPreset(out.clusterName);
        c.finalize();
        if (c.fingerprint() == out.clusterFingerprint) {
            cluster = std::move(c);
            return true;
        }
    } catch (const std::exception&) {
        // Not a preset: machines stay unnamed in the export.
    }
    return false;
}

void exportIfAsked(Args& args, const RunOutput& out, const ClusterSpec* cluster)
{
    const std::string jobs = args.get("jobs-out");
    const std::string summary = args.get("summary-out");
    const std::string series = args.get("series-out");
    const std::string chrome = args.get("chrome-trace");
    if (!jobs.empty())
        writeJobsCsv(out, jobs);
    if (!summary.empty()) {
        if (endsWith(summary, ".csv"))
            writeSummaryCsv({&out}, summary);
        else
            writeSummaryJson(out, summary);
    }
    if (!series.empty())
        writeSeriesCsv(out, series);
    if (!chrome.empty()) {
        ClusterSpec resolved;
        if (!cluster && resolveRunCluster(out, {}, resolved))
            cluster = &resolved;
        writeChromeTrace(out, cluster, chrome);
    }
}

} // namespace ss::cli
