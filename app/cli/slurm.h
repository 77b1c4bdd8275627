#pragma once
// Commands that run as a Slurm job array (sweep --slurm): each array task runs its shard into its own
// database, and a task that depends on the whole array (afterok) merges them with `merge`.
#include <string>
#include <utility>
#include <vector>

#include "cli.h"

namespace ss::cli {

struct SlurmArray {
    std::string command;               ///< the CLI command each task runs ("sweep")
    std::vector<Args::Option> options; ///< its options, without --db, --shard and the --slurm ones
    std::string db;                    ///< where the merge task writes every run
    int tasks = 1;                     ///< array size = shard count
    std::string dir;                   ///< scripts, shard databases and logs
    std::vector<std::string> sbatchOptions; ///< extra `#SBATCH` options for every task (--slurm-opt, repeated)
    bool submit = true;                ///< false: write the scripts and print how to submit them
    /// After the merge, in the same dependent task: `finalCommand finalOptions --db DB` ("" = none), e.g.
    /// reproduce --from-db printing its table from the merged database.
    std::string finalCommand;
    std::vector<Args::Option> finalOptions;
};

/// The options of `args` that a command with --slurm hands to its tasks, and the Slurm settings read from
/// it: --slurm-tasks N (default 4), --slurm-dir DIR (default DB.slurm), --slurm-opt "--partition=gpu"
/// (repeated), --slurm-no-submit. Marks them used.
SlurmArray slurmArrayFromArgs(Args& args, const std::string& command, const std::string& db);

/// One word for bash, single-quoted.
std::string shellQuote(const std::string& s);

/// This program's own path (/proc/self/exe); throws when it cannot be read.
std::string selfExe();

/// --shard i/N: (i, N), with 0 <= i < N; ("", ...) gives (0, 1). Throws UsageError otherwise.
std::pair<size_t, size_t> parseShard(const std::string& shard);

/// Writes DIR/array.sbatch and DIR/merge.sbatch, and submits them with sbatch (SLURM_CONF and the rest of the
/// environment as they are): the array, then the merge with --dependency=afterok on it. Prints the job ids.
/// Returns 0, or 1 with a one-line error when sbatch fails.
int submitSlurmArray(const SlurmArray& s);

} // namespace ss::cli
