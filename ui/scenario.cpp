#include "scenario.h"

#include <QFileInfo>
#include <QJsonDocument>

#include "io/ioerror.h"
#include "io/runio.h"
#include "io/traceio.h"

namespace ss::ui {

ScenarioError::ScenarioError(QString f, int l, QString r)
    : std::runtime_error((f + QLatin1Char(':') + QString::number(l) + QStringLiteral(": ") + r).toStdString()),
      file(std::move(f)), reason(std::move(r)), line(l)
{
}

QString ScenarioError::text() const
{
    return line > 0 ? QStringLiteral("%1:%2: %3").arg(file).arg(line).arg(reason)
                    : QStringLiteral("%1: %2").arg(file, reason);
}

QString Scenario::clusterRef() const
{
    switch (clusterSource) {
    case ClusterSource::Preset: return clusterPreset;
    case ClusterSource::File: return clusterPath;
    case ClusterSource::Inline: return {};
    }
    return {};
}

// The file format lives in the core (io/runio.h: readScenario / writeScenario); this class is its Qt face.
namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

ss::Scenario toCore(const Scenario& s)
{
    ss::Scenario c = s.core;
    c.name = s.name.toStdString();
    c.description = s.description.toStdString();
    c.tracePath = s.tracePath.toStdString();
    c.traceFormat = s.traceFormat.toStdString();
    c.clusterSource = ss::Scenario::ClusterSource(int(s.clusterSource));
    c.clusterPreset = s.clusterPreset.toStdString();
    c.clusterPath = s.clusterPath.toStdString();
    c.clusterJson = s.clusterJson.toStdString();
    c.perf = s.perf.toStdString();
    c.policies.clear();
    for (const QString& p : s.policies)
        c.policies.push_back(p.toStdString());
    c.seed = s.seed;
    c.seeds = s.seeds;
    c.backfill = s.backfill;
    return c;
}

Scenario fromCore(const ss::Scenario& c)
{
    Scenario s;
    s.core = c;
    s.name = q(c.name);
    s.description = q(c.description);
    s.tracePath = q(c.tracePath);
    s.traceFormat = q(c.traceFormat);
    s.clusterSource = Scenario::ClusterSource(int(c.clusterSource));
    s.clusterPreset = q(c.clusterPreset);
    s.clusterPath = q(c.clusterPath);
    s.clusterJson = q(c.clusterJson);
    s.perf = q(c.perf);
    s.policies.clear();
    for (const std::string& p : c.policies)
        s.policies << q(p);
    s.seed = c.seed;
    s.seeds = c.seeds;
    s.backfill = c.backfill;
    return s;
}

ScenarioError toScenarioError(const IoError& e)
{
    const QString reason = e.field().empty() ? q(e.reason()) : QStringLiteral("field '%1': %2").arg(q(e.field()), q(e.reason()));
    return ScenarioError(q(e.file()), int(e.line()), reason);
}

} // namespace

ss::Scenario Scenario::toCoreScenario() const { return toCore(*this); }

QJsonObject Scenario::toJson(const QString& baseDir) const
{
    const std::string text = writeJson(scenarioToJson(toCore(*this), baseDir.toStdString()));
    return QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
}

Scenario Scenario::fromJson(const QJsonObject& o, const QString& baseDir, const QString& file)
{
    try {
        return fromCore(scenarioFromJson(QJsonDocument(o).toJson().toStdString(), baseDir.toStdString(), file.toStdString()));
    } catch (const IoError& e) {
        ScenarioError err = toScenarioError(e);
        throw ScenarioError(file, 0, err.reason); // lines of a re-serialised object mean nothing to the user
    }
}

Scenario Scenario::load(const QString& path)
{
    ss::Scenario core;
    try {
        core = readScenario(path.toStdString());
    } catch (const IoError& e) {
        throw toScenarioError(e);
    }
    // The accelerator mode (RELMAS) has its own window (MainWindow::openScenario sends it there); read as a GPU
    // scenario it would show an empty one and a save would drop its accelerator fields, so it is refused whole.
    if (core.mode == ss::Scenario::Mode::Accelerator)
        throw ScenarioError(path, 0, QStringLiteral("mode: an accelerator-mode scenario (RELMAS), not a GPU-cluster "
                                                    "one: open it with File \u25b8 Open scenario, which shows it in "
                                                    "the accelerator window"));
    return fromCore(core);
}

void Scenario::save(const QString& path) const
{
    try {
        writeScenario(toCore(*this), path.toStdString());
    } catch (const IoError& e) {
        throw ScenarioError(path, 0, QStringLiteral("cannot write: ") + q(e.reason()));
    } catch (const std::exception& e) {
        throw ScenarioError(path, 0, QStringLiteral("cannot write: ") + QString::fromUtf8(e.what()));
    }
}

ClusterSpec Scenario::loadClusterSpec(const QString& path) const
{
    ClusterSpec spec;
    if (clusterSource == ClusterSource::Inline)
        spec = clusterFromJson(clusterJson.toStdString(), path.toStdString());
    else
        spec = readCluster(clusterRef().toStdString());
    spec.finalize();
    return spec;
}

} // namespace ss::ui
