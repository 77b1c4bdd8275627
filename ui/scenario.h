#pragma once
// A scenario: trace + cluster + performance settings + policies + seeds, saved as a versioned JSON file
// (*.scenario.json). Paths inside the file are relative to the file, so a scenario folder can be moved.
// The Qt face of ss::Scenario: the format is read and written by the core (io/runio.h).
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <stdexcept>

#include "model/clusterspec.h"
#include "run/scenario.h"

namespace ss::ui {

/// A scenario file error: file, line (0 when unknown) and reason, shown in the error banner.
class ScenarioError : public std::runtime_error {
public:
    ScenarioError(QString file, int line, QString reason);
    QString file, reason;
    int line = 0;
    QString text() const; ///< "FILE:LINE: REASON"
};

struct Scenario {
    enum class ClusterSource { Preset, File, Inline };

    static constexpr int kVersion = 1;
    static constexpr const char* kFormat = "schedstudio-scenario";

    QString name;
    QString description;
    QString tracePath;        ///< absolute in memory; relative to the scenario file on disk
    QString traceFormat = QStringLiteral("auto");
    ClusterSource clusterSource = ClusterSource::Preset;
    QString clusterPreset = QStringLiteral("das-case");
    QString clusterPath;      ///< absolute in memory
    QString clusterJson;      ///< native cluster JSON when Inline (set by the topology editor)
    QString perf = QStringLiteral("ideal");   ///< PerfConfig::parse syntax
    QStringList policies{QStringLiteral("fifo+firstfit")};
    quint64 seed = 1;
    int seeds = 1;            ///< runs per policy: seed, seed+1, ...
    bool backfill = true;
    ss::Scenario core;        ///< what the GUI does not edit (params, checkpoint, variants) travels here

    /// The scenario as the core runs it (run/scenario.h).
    ss::Scenario toCoreScenario() const;

    /// The cluster as a readCluster argument or "" for Inline.
    QString clusterRef() const;
    /// The cluster it names (preset, file or inline JSON), finalized; `path` names the scenario in errors.
    /// Throws std::exception with a message on a bad cluster.
    ClusterSpec loadClusterSpec(const QString& path) const;
    QJsonObject toJson(const QString& baseDir) const;
    static Scenario fromJson(const QJsonObject& o, const QString& baseDir, const QString& fileForErrors);

    /// Throws ScenarioError (bad JSON with line, wrong format, newer version, missing field).
    static Scenario load(const QString& path);
    /// Throws ScenarioError when the file cannot be written.
    void save(const QString& path) const;
};

} // namespace ss::ui
