// Shared by the studio-state suites (tst_studiostate, tst_studioviews): the bundled das-case scenario, JSON files
// in and out, and opening a scenario and waiting for its runs.
#pragma once
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include "mainwindow.h"

namespace studiotest {

inline const QString kSample = QStringLiteral(SS_SOURCE_DIR "/sample-traces/das-case.scenario.json");
inline const QString kSampleTrace = QStringLiteral(SS_SOURCE_DIR "/sample-traces/das-case.csv");

inline QJsonObject readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

inline bool writeJson(const QString& path, const QJsonObject& o)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(QJsonDocument(o).toJson()) > 0;
}

/// Opens the scenario, runs it and waits for the runs.
inline bool openAndRun(ss::ui::MainWindow& w, const QString& path)
{
    return w.openScenario(path) && w.waitForIdle(20000) && w.runScenario() && w.waitForIdle(60000);
}

} // namespace studiotest
