// Shared by tst_fork, tst_startstate and tst_snapshot: the das-case cluster, a contended trace generated for it, and the CLI
// with its output as text.
#pragma once
#include <QString>
#include <QStringList>

#include "../clirun.h"
#include "model/clusterspec.h"
#include "model/tracegen.h"
#include "run/runspec.h"

namespace forkfix {

inline ss::ClusterSpec dasCase()
{
    ss::ClusterSpec c = ss::makeClusterPreset("das-case");
    c.finalize();
    return c;
}

/// `jobs` jobs of at most 4 GPUs at load 1.3 on the 32 GPUs of das-case: queues form, forks have work to change.
inline ss::Trace contended(int jobs, uint64_t seed)
{
    ss::TraceGenConfig g;
    g.jobs = jobs;
    g.seed = seed;
    g.load = 1.3;
    g.clusterGpus = 32;
    g.maxGpus = 4;
    return ss::generateTrace(g);
}

/// A run of `policy` under the default performance model, its decision log kept (forks need it).
inline ss::RunSpec runSpec(const std::string& policy, uint64_t seed = 7)
{
    ss::RunSpec s;
    s.policy = policy;
    s.config.seed = seed;
    s.config.perf = ss::PerfConfig::parse("default");
    s.keepDecisionLog = true;
    return s;
}

struct Cli {
    int code = -1;
    QString out, err;
};
inline Cli cli(const QStringList& args)
{
    const sstest::CliResult r = sstest::runCli(args);
    return {r.code, QString::fromUtf8(r.out), QString::fromUtf8(r.err)};
}

} // namespace forkfix
