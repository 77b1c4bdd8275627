#pragma once
// Experiment plans: inputs (trace x cluster x what-if variant) x policies x seeds, expanded into complete
// RunSpecs whose identities are known before anything runs (for sweep resume and merges).
#include <memory>
#include <string>
#include <vector>

#include "run/runspec.h"

namespace ss {

/// One trace + cluster pair a plan runs on (a what-if variant is another RunInputs).
struct RunInputs {
    std::string label;                              ///< "" for the base; the variant's name otherwise
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const ClusterSpec> cluster;     ///< finalized
    std::shared_ptr<const ThroughputTable> table;   ///< may be null
    std::string traceSource, clusterSource;         ///< file names / preset, recorded in each spec
};

struct PlannedRun {
    size_t inputs = 0;    ///< index into ExperimentPlan::inputs
    RunSpec spec;         ///< complete: spec.id() is the run's identity
    std::string label;    ///< "policy seed S [variant]"
};

struct ExperimentPlan {
    std::vector<RunInputs> inputs;
    std::vector<PlannedRun> runs;

    /// Adds one run on inputs[inputs]; completes the spec's identity fields from those inputs.
    PlannedRun& add(size_t inputs, RunSpec spec);
};

/// inputs x policies x seeds (in that order), each from `base` with its policy and seed replaced.
ExperimentPlan expandPlan(std::vector<RunInputs> inputs, const std::vector<std::string>& policies,
                          const std::vector<uint64_t>& seeds, const RunSpec& base);

} // namespace ss
