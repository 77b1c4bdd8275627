#pragma once
// A finished run kept by the studio (in memory; persisted by the run store when available).
#include <QString>
#include <memory>

#include "model/clusterspec.h"
#include "model/job.h"
#include "sim/runner.h"

namespace ss::ui {

struct RunEntry {
    int id = 0;                      ///< session-unique id (run history, compare selection)
    QString name;                    ///< user label; defaults to "policy seed N"
    QString scenario;                ///< scenario name the run came from
    QString clusterLabel;
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const ClusterSpec> cluster;
    std::shared_ptr<const RunOutput> out;
    QString policy() const { return QString::fromStdString(out->policy); }
};

using RunPtr = std::shared_ptr<const RunEntry>;

} // namespace ss::ui
