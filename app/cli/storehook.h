#pragma once
// Options shared by commands that produce runs (run, compare): --db FILE [--experiment NAME] saves the run,
// --jobs-out / --summary-out / --series-out / --chrome-trace export it. Read them before Args::finish()
// (peekStoreOptions) when a command checks its options before it runs.
#include <string>

#include "cli.h"
#include "model/clusterspec.h"
#include "run/runner.h"

namespace ss::cli {

/// Marks the store/export options as known so that Args::finish() called before the run accepts them.
void peekStoreOptions(Args& args);
/// True when an export needs the decision log in memory (--chrome-trace): set RunSpec::keepDecisionLog.
bool wantsDecisionLog(Args& args);
/// With --db FILE: saves `out` under --experiment NAME (else `experiment`) and prints the run id to stderr.
/// Returns the new run id, or -1 when --db was not given. `config` ("" = the run's complete spec, the
/// default) is the config JSON stored with the run.
long long saveRunIfAsked(Args& args, const RunOutput& out, const std::string& experiment,
                         const std::string& config = {});
/// --jobs-out FILE (CSV), --summary-out FILE (.csv = CSV, else JSON), --series-out FILE (CSV),
/// --chrome-trace FILE (Chrome trace JSON; GPUs are mapped to machines with `cluster` when given).
void exportIfAsked(Args& args, const RunOutput& out, const ClusterSpec* cluster = nullptr);

/// The cluster a stored run used, for machine names in exports: `arg` (preset or file) when given, else
/// the preset named like the run's cluster if its fingerprint matches; nullopt-like empty spec otherwise.
bool resolveRunCluster(const RunOutput& out, const std::string& arg, ClusterSpec& cluster);

} // namespace ss::cli
