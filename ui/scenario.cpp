#include "scenario.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

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

static QString relativeTo(const QString& baseDir, const QString& path)
{
    if (path.isEmpty() || baseDir.isEmpty())
        return path;
    return QDir(baseDir).relativeFilePath(path);
}

static QString absoluteFrom(const QString& baseDir, const QString& path)
{
    if (path.isEmpty() || QDir::isAbsolutePath(path) || baseDir.isEmpty())
        return path;
    return QDir::cleanPath(QDir(baseDir).absoluteFilePath(path));
}

QJsonObject Scenario::toJson(const QString& baseDir) const
{
    QJsonObject o;
    o[QStringLiteral("format")] = QLatin1String(kFormat);
    o[QStringLiteral("version")] = kVersion;
    o[QStringLiteral("name")] = name;
    if (!description.isEmpty())
        o[QStringLiteral("description")] = description;
    QJsonObject trace;
    trace[QStringLiteral("path")] = relativeTo(baseDir, tracePath);
    trace[QStringLiteral("format")] = traceFormat;
    o[QStringLiteral("trace")] = trace;
    QJsonObject cluster;
    switch (clusterSource) {
    case ClusterSource::Preset: cluster[QStringLiteral("preset")] = clusterPreset; break;
    case ClusterSource::File: cluster[QStringLiteral("file")] = relativeTo(baseDir, clusterPath); break;
    case ClusterSource::Inline:
        cluster[QStringLiteral("inline")] = QJsonDocument::fromJson(clusterJson.toUtf8()).object();
        break;
    }
    o[QStringLiteral("cluster")] = cluster;
    o[QStringLiteral("perf")] = perf;
    o[QStringLiteral("policies")] = QJsonArray::fromStringList(policies);
    o[QStringLiteral("seed")] = QString::number(seed);
    o[QStringLiteral("seeds")] = seeds;
    o[QStringLiteral("backfill")] = backfill;
    return o;
}

Scenario Scenario::fromJson(const QJsonObject& o, const QString& baseDir, const QString& file)
{
    auto fail = [&](const QString& why) { return ScenarioError(file, 0, why); };
    if (o.value(QStringLiteral("format")).toString() != QLatin1String(kFormat))
        throw fail(QStringLiteral("field 'format': not a SchedStudio scenario (expected \"%1\")").arg(QLatin1String(kFormat)));
    const QJsonValue v = o.value(QStringLiteral("version"));
    if (!v.isDouble())
        throw fail(QStringLiteral("field 'version': missing or not a number"));
    if (v.toInt() > kVersion)
        throw fail(QStringLiteral("field 'version': file version %1 is newer than this SchedStudio supports (%2); "
                                  "update SchedStudio").arg(v.toInt()).arg(kVersion));
    if (v.toInt() < 1)
        throw fail(QStringLiteral("field 'version': invalid version %1").arg(v.toInt()));

    Scenario s;
    s.name = o.value(QStringLiteral("name")).toString();
    s.description = o.value(QStringLiteral("description")).toString();
    const QJsonValue tr = o.value(QStringLiteral("trace"));
    if (tr.isString()) {
        s.tracePath = absoluteFrom(baseDir, tr.toString());
    } else if (tr.isObject()) {
        s.tracePath = absoluteFrom(baseDir, tr.toObject().value(QStringLiteral("path")).toString());
        s.traceFormat = tr.toObject().value(QStringLiteral("format")).toString(QStringLiteral("auto"));
    } else if (!tr.isUndefined() && !tr.isNull()) {
        throw fail(QStringLiteral("field 'trace': expected a path or {\"path\":...,\"format\":...}"));
    }
    const QJsonValue cl = o.value(QStringLiteral("cluster"));
    if (cl.isString()) {
        s.clusterSource = ClusterSource::Preset;
        s.clusterPreset = cl.toString();
    } else if (cl.isObject()) {
        const QJsonObject c = cl.toObject();
        if (c.contains(QStringLiteral("preset"))) {
            s.clusterSource = ClusterSource::Preset;
            s.clusterPreset = c.value(QStringLiteral("preset")).toString();
        } else if (c.contains(QStringLiteral("file"))) {
            s.clusterSource = ClusterSource::File;
            s.clusterPath = absoluteFrom(baseDir, c.value(QStringLiteral("file")).toString());
        } else if (c.value(QStringLiteral("inline")).isObject()) {
            s.clusterSource = ClusterSource::Inline;
            s.clusterJson = QString::fromUtf8(
                QJsonDocument(c.value(QStringLiteral("inline")).toObject()).toJson(QJsonDocument::Compact));
        } else {
            throw fail(QStringLiteral("field 'cluster': expected one of 'preset', 'file' or 'inline'"));
        }
    } else if (!cl.isUndefined()) {
        throw fail(QStringLiteral("field 'cluster': expected a preset name or an object"));
    }
    s.perf = o.value(QStringLiteral("perf")).toString(QStringLiteral("ideal"));
    if (o.contains(QStringLiteral("policies"))) {
        if (!o.value(QStringLiteral("policies")).isArray())
            throw fail(QStringLiteral("field 'policies': expected an array of policy names"));
        s.policies.clear();
        for (const QJsonValue& p : o.value(QStringLiteral("policies")).toArray()) {
            if (!p.isString())
                throw fail(QStringLiteral("field 'policies': every entry must be a string"));
            s.policies << p.toString();
        }
    }
    const QJsonValue seed = o.value(QStringLiteral("seed"));
    if (seed.isString()) {
        bool ok = false;
        s.seed = seed.toString().toULongLong(&ok);
        if (!ok)
            throw fail(QStringLiteral("field 'seed': '%1' is not an unsigned integer").arg(seed.toString()));
    } else if (seed.isDouble()) {
        if (seed.toDouble() < 0)
            throw fail(QStringLiteral("field 'seed': must not be negative"));
        s.seed = quint64(seed.toDouble());
    }
    s.seeds = o.value(QStringLiteral("seeds")).toInt(1);
    if (s.seeds < 1 || s.seeds > 1000)
        throw fail(QStringLiteral("field 'seeds': must be between 1 and 1000"));
    s.backfill = o.value(QStringLiteral("backfill")).toBool(true);
    return s;
}

Scenario Scenario::load(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw ScenarioError(path, 0, QStringLiteral("cannot open: ") + f.errorString());
    const QByteArray data = f.readAll();
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(data, &err);
    if (err.error != QJsonParseError::NoError) {
        const int line = 1 + int(data.left(err.offset).count('\n'));
        throw ScenarioError(path, line, QStringLiteral("invalid JSON: ") + err.errorString());
    }
    if (!doc.isObject())
        throw ScenarioError(path, 1, QStringLiteral("expected a JSON object"));
    return fromJson(doc.object(), QFileInfo(path).absolutePath(), path);
}

void Scenario::save(const QString& path) const
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        throw ScenarioError(path, 0, QStringLiteral("cannot write: ") + f.errorString());
    f.write(QJsonDocument(toJson(QFileInfo(path).absolutePath())).toJson(QJsonDocument::Indented));
    if (!f.commit())
        throw ScenarioError(path, 0, QStringLiteral("cannot write: ") + f.errorString());
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
