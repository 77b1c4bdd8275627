#pragma once
// A finished run kept by the studio (in memory; persisted by the run store when available).
#include <QDateTime>
#include <QString>
#include <QtGlobal>
#include <memory>
#include <vector>

#include "model/clusterspec.h"
#include "model/job.h"
#include "run/runner.h"

namespace ss {
struct GanttData;
struct GanttRows;
}

namespace ss::ui {

struct RunEntry {
    int id = 0;                      ///< session-unique id (run history, compare selection)
    QString name;                    ///< user label; defaults to "policy seed N"
    QString scenario;                ///< scenario name the run came from
    QString clusterLabel;
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const ClusterSpec> cluster;
    std::shared_ptr<const RunOutput> out;
    qint64 dbId = 0;                 ///< id in the project database; 0 = not stored
    QDateTime finished = QDateTime::currentDateTimeUtc(); ///< when the run ended (a stored run: when it was saved)
    bool logInDb = false;            ///< the database holds a decision log that is not loaded yet
    /// Gantt rows built off the GUI thread (prepareGantt): [0] one row per GPU, [1] per machine. Null =
    /// build when shown.
    std::shared_ptr<const GanttData> gantt[2];
    /// The same rows indexed for the view (sorted per row), so that showing a big run costs the GUI thread a copy.
    std::shared_ptr<const GanttRows> ganttRows[2];
    /// JCTs of the jobs that finished, in minutes, ascending (the Compare tab's CDF); null = compute when shown.
    std::shared_ptr<const std::vector<double>> jctSortedMin;
    QString policy() const { return QString::fromStdString(out->policy); }
};

using RunPtr = std::shared_ptr<const RunEntry>;

/// Builds the entry's Gantt rows (both modes) from its decision log, or from its job records when it has
/// none. Slow on big runs: call it on a worker thread before the entry reaches the GUI.
void prepareGantt(RunEntry& run);

} // namespace ss::ui
