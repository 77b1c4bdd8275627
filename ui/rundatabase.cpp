#include "rundatabase.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "ganttview.h"
#include "io/json.h"
#include "io/runio.h"
#include "io/traceio.h"
#include "model/clusterspec.h"
#include "store/runstore.h"

namespace ss::ui {

namespace {
constexpr const char* kConfigFormat = "schedstudio-studio-run"; // configs of runs saved before the run layer
constexpr const char* kExperiment = "studio";

// A trace good enough for the studio's views when the original file is gone: one job per record.
std::shared_ptr<const Trace> traceFromRecords(const RunOutput& out)
{
    auto t = std::make_shared<Trace>();
    t->name = out.traceName;
    t->jobs.resize(out.jobs.size());
    for (const JobRecord& r : out.jobs) {
        if (r.index < 0 || size_t(r.index) >= t->jobs.size())
            throw std::runtime_error("stored run has a job record with index " + std::to_string(r.index) +
                                     " out of range");
        Job& j = t->jobs[size_t(r.index)];
        j.id = r.id;
        j.submit = r.submit;
        j.gpus = r.gpus;
        j.duration = r.duration;
    }
    t->notes.push_back("rebuilt from the job records of a stored run (trace file not found)");
    return t;
}
} // namespace

void prepareGantt(RunEntry& run)
{
    if (!run.out || !run.cluster)
        return;
    if (run.out->log) {
        run.gantt[0] = std::make_shared<const GanttData>(buildGpuSegments(*run.out->log, *run.cluster, GanttRowMode::Gpu));
        run.gantt[1] = std::make_shared<const GanttData>(buildGpuSegments(*run.out->log, *run.cluster, GanttRowMode::Machine));
    } else {
        run.gantt[0] = run.gantt[1] = std::make_shared<const GanttData>(buildSegmentsFromJobs(run.out->jobs));
    }
    for (int i = 0; i < 2; ++i)
        run.ganttRows[i] = i == 1 && run.gantt[1] == run.gantt[0]
            ? run.ganttRows[0]
            : std::make_shared<const GanttRows>(indexGantt(run.gantt[i]->rowCount, run.gantt[i]->rowLabels, run.gantt[i]->segments));
    auto jct = std::make_shared<std::vector<double>>();
    jct->reserve(run.out->jobs.size());
    for (const JobRecord& j : run.out->jobs)
        if (j.jct >= 0)
            jct->push_back(j.jct / 60.0);
    std::sort(jct->begin(), jct->end());
    run.jctSortedMin = std::move(jct);
}

RunDatabase::RunDatabase(QObject* parent) : QObject(parent)
{
    // One thread: operations run in the order they were asked for (a rename never overtakes its save).
    m_pool.setMaxThreadCount(1);
    m_pool.setExpiryTimeout(5000);
}

RunDatabase::~RunDatabase()
{
    m_pool.waitForDone();
}

void RunDatabase::post(const QString& what, Task task)
{
    ++m_pending;
    const quint64 gen = m_generation;
    m_pool.start([this, gen, what, task = std::move(task)] {
        std::function<void()> done;
        QString error;
        try {
            done = task();
        } catch (const std::exception& e) {
            error = what + QStringLiteral(": ") + QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(
            this,
            [this, gen, done = std::move(done), error] {
                --m_pending;
                if (gen != m_generation)
                    return;
                if (!error.isEmpty())
                    Q_EMIT failed(error);
                else if (done)
                    done();
            },
            Qt::QueuedConnection);
    });
}

bool RunDatabase::waitForIdle(int ms)
{
    QElapsedTimer t;
    t.start();
    while (m_pending > 0 && t.elapsed() < ms) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (m_pending > 0)
            QThread::msleep(2);
    }
    return m_pending == 0;
}

void RunDatabase::open(const QString& path, bool create)
{
    ++m_generation;
    m_path = path;
    const std::string p = QFileInfo(path).absoluteFilePath().toStdString();
    post(tr("Open run database %1").arg(path), [this, p, path, create]() -> std::function<void()> {
        RunStore store(p, create ? RunStore::Mode::Create : RunStore::Mode::Existing);
        QVector<RunPtr> runs;
        QStringList skipped;
        std::map<std::string, std::shared_ptr<const Trace>> traces; // by fingerprint: runs share a trace
        for (const RunInfo& info : store.listRuns()) {
            StoredRun sr = store.loadRun(info.id, false);
            auto it = traces.find(info.traceFingerprint);
            try {
                auto e = entryFromStored(sr, it == traces.end() ? nullptr : it->second);
                prepareGantt(*e);
                traces[info.traceFingerprint] = e->trace;
                runs << e;
            } catch (const std::exception& ex) {
                skipped << QStringLiteral("run %1 (%2)").arg(info.id).arg(QString::fromUtf8(ex.what()));
            }
        }
        QString note;
        if (!skipped.isEmpty())
            note = tr("%1 stored run(s) cannot be shown: %2").arg(skipped.size()).arg(skipped.join(QStringLiteral("; ")));
        return [this, path, runs, note] { Q_EMIT opened(path, runs, note); };
    });
}

void RunDatabase::close()
{
    ++m_generation;
    m_path.clear();
    Q_EMIT closed();
}

void RunDatabase::save(RunPtr run, const QString& tracePath)
{
    if (!isOpen() || !run || !run->out)
        return;
    const std::string p = QFileInfo(m_path).absoluteFilePath().toStdString();
    const std::string config = configFor(*run, tracePath);
    const std::string name = run->name.toStdString();
    const int runId = run->id;
    post(tr("Save run '%1'").arg(run->name), [this, p, config, name, runId, run]() -> std::function<void()> {
        RunStore store(p, RunStore::Mode::Create);
        const int64_t id = store.saveRun(kExperiment, *run->out, config);
        store.renameRun(id, name);
        return [this, runId, id] { Q_EMIT saved(runId, qint64(id)); };
    });
}

void RunDatabase::rename(qint64 dbId, const QString& name)
{
    if (!isOpen() || dbId <= 0)
        return;
    const std::string p = QFileInfo(m_path).absoluteFilePath().toStdString();
    const std::string n = name.toStdString();
    post(tr("Rename stored run %1").arg(dbId), [p, dbId, n]() -> std::function<void()> {
        RunStore(p, RunStore::Mode::Existing).renameRun(dbId, n);
        return {};
    });
}

void RunDatabase::remove(qint64 dbId)
{
    if (!isOpen() || dbId <= 0)
        return;
    const std::string p = QFileInfo(m_path).absoluteFilePath().toStdString();
    post(tr("Delete stored run %1").arg(dbId), [p, dbId]() -> std::function<void()> {
        RunStore(p, RunStore::Mode::Existing).deleteRun(dbId);
        return {};
    });
}

void RunDatabase::loadLog(RunPtr run)
{
    if (!isOpen() || !run || run->dbId <= 0)
        return;
    const std::string p = QFileInfo(m_path).absoluteFilePath().toStdString();
    post(tr("Load stored run %1").arg(run->dbId), [this, p, run]() -> std::function<void()> {
        RunStore store(p, RunStore::Mode::Existing);
        StoredRun sr = store.loadRun(run->dbId, true);
        if (!sr.out.log)
            throw std::runtime_error("the stored run has no decision log");
        auto e = std::make_shared<RunEntry>(*run);
        e->out = std::make_shared<const RunOutput>(std::move(sr.out));
        e->logInDb = false;
        prepareGantt(*e);
        RunPtr r = e;
        return [this, r] { Q_EMIT logLoaded(r); };
    });
}

std::string RunDatabase::configFor(const RunEntry& run, const QString& tracePath)
{
    // The one run config (io/runio.h: the complete RunSpec, which reruns the run exactly) plus what the studio
    // needs to reopen it: its label, scenario, trace file and the cluster itself (it may be an edited one).
    JsonValue o = runSpecToJson(run.out->spec);
    JsonValue studio = JsonValue::makeObject();
    studio["name"] = JsonValue::makeString(run.name.toStdString());
    studio["scenario"] = JsonValue::makeString(run.scenario.toStdString());
    studio["cluster_label"] = JsonValue::makeString(run.clusterLabel.toStdString());
    if (!tracePath.isEmpty())
        studio["trace_path"] = JsonValue::makeString(QFileInfo(tracePath).absoluteFilePath().toStdString());
    o["studio"] = std::move(studio);
    if (run.cluster)
        o["cluster_spec"] = parseJson(clusterToJson(*run.cluster), "cluster");
    return writeJson(o, -1);
}

std::shared_ptr<RunEntry> RunDatabase::entryFromStored(const StoredRun& stored, std::shared_ptr<const Trace> trace)
{
    auto e = std::make_shared<RunEntry>();
    const RunOutput& out = stored.out;
    if (const QDateTime t = QDateTime::fromString(QString::fromStdString(stored.info.created), Qt::ISODate); t.isValid())
        e->finished = t;
    QJsonObject cfg = QJsonDocument::fromJson(QByteArray::fromStdString(stored.config)).object();
    // Runs saved by this version: the run config with a "studio" part; by earlier ones: the studio's own shape.
    const bool runConfig = cfg.value(QStringLiteral("format")).toString() == QLatin1String("schedstudio-run");
    if (runConfig) {
        QJsonObject legacy = cfg.value(QStringLiteral("studio")).toObject();
        if (cfg.value(QStringLiteral("cluster_spec")).isObject())
            legacy[QStringLiteral("cluster")] = cfg.value(QStringLiteral("cluster_spec"));
        cfg = legacy;
    }
    const bool ours = runConfig || cfg.value(QStringLiteral("format")).toString() == QLatin1String(kConfigFormat);

    // Cluster: the stored one, else a preset of the same name and fingerprint (runs saved by the CLI).
    std::shared_ptr<ClusterSpec> cluster;
    if (ours && cfg.value(QStringLiteral("cluster")).isObject()) {
        cluster = std::make_shared<ClusterSpec>(clusterFromJson(
            QJsonDocument(cfg.value(QStringLiteral("cluster")).toObject()).toJson().toStdString(), "stored run"));
        cluster->finalize();
    } else {
        try {
            cluster = std::make_shared<ClusterSpec>(makeClusterPreset(out.clusterName));
            cluster->finalize();
        } catch (const std::exception&) {
            cluster.reset();
        }
        if (cluster && cluster->fingerprint() != out.clusterFingerprint)
            cluster.reset();
    }
    if (!cluster)
        throw std::runtime_error("cluster '" + out.clusterName + "' is neither stored with the run nor a preset");

    // Trace: the given one or the file it came from when it is still the same, else rebuilt from the records.
    if (trace && traceFingerprint(*trace) != out.traceFingerprint)
        trace.reset();
    const QString tracePath = cfg.value(QStringLiteral("trace_path")).toString();
    if (!trace && !tracePath.isEmpty() && QFileInfo::exists(tracePath)) {
        try {
            auto t = std::make_shared<Trace>(readTrace(tracePath.toStdString()));
            if (traceFingerprint(*t) == out.traceFingerprint)
                trace = t;
        } catch (const std::exception&) {
            // A changed or unreadable file: fall back to the records below.
        }
    }
    if (!trace)
        trace = traceFromRecords(out);

    e->name = QString::fromStdString(stored.info.name);
    if (e->name.isEmpty())
        e->name = QStringLiteral("%1 seed %2").arg(QString::fromStdString(out.policy)).arg(out.seed);
    e->scenario = cfg.value(QStringLiteral("scenario")).toString();
    e->clusterLabel = cfg.value(QStringLiteral("cluster_label")).toString();
    if (e->clusterLabel.isEmpty())
        e->clusterLabel = QStringLiteral("%1 — %2 machines, %3 GPUs")
                              .arg(QString::fromStdString(cluster->name)).arg(cluster->machineCount()).arg(cluster->totalGpus());
    e->trace = std::move(trace);
    e->cluster = std::move(cluster);
    e->out = std::make_shared<const RunOutput>(stored.out);
    e->dbId = stored.info.id;
    e->logInDb = stored.info.hasLog && !stored.out.log;
    return e;
}

} // namespace ss::ui
