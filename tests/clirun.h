// Runs the real schedstudio-cli binary (SS_CLI, set by ss_add_qtest) from the source tree, as a user would.
#pragma once
#include <QByteArray>
#include <QProcess>
#include <QStringList>

namespace sstest {

struct CliResult {
    int code = -1; ///< exit code; -1 when the process crashed or timed out
    QByteArray out, err;
};

inline CliResult runCli(const QStringList& args, int timeoutMs = 120000)
{
    QProcess p;
    p.setWorkingDirectory(QStringLiteral(SS_SOURCE_DIR));
    p.start(QStringLiteral(SS_CLI), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {-1, p.readAllStandardOutput(), p.readAllStandardError() + "\n(timed out)"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

} // namespace sstest
