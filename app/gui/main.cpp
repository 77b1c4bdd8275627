// schedstudio: the desktop studio. With --screenshot it renders the window offscreen and exits
// (for docs and tests): schedstudio [--db FILE] --scenario FILE [--run] [--goto-decision K] [--view NAME] --screenshot OUT.png
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPixmap>
#include <QTimer>

#include <cstdio>
#include <cstdlib>

#include "accelwindow.h"
#include "mainwindow.h"

int main(int argc, char** argv)
{
    // Headless hook: render offscreen unless a display (e.g. Xvfb) is there.
    bool wantsShot = false;
    for (int i = 1; i < argc; ++i)
        if (QByteArray(argv[i]) == "--screenshot")
            wantsShot = true;
    if (wantsShot && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("SchedStudio"));
    QApplication::setOrganizationName(QStringLiteral("SchedStudio"));
    QApplication::setApplicationVersion(QStringLiteral(SCHEDSTUDIO_VERSION));

    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("SchedStudio: what-if studio for GPU-cluster scheduling"));
    cli.addHelpOption();
    cli.addVersionOption();
    QCommandLineOption scenarioOpt(QStringLiteral("scenario"), QStringLiteral("Open a *.scenario.json file."), QStringLiteral("FILE"));
    QCommandLineOption runOpt(QStringLiteral("run"), QStringLiteral("Run the scenario after opening it."));
    QCommandLineOption gotoOpt(QStringLiteral("goto-decision"), QStringLiteral("Step to decision K (1-based)."), QStringLiteral("K"));
    QCommandLineOption viewOpt(QStringLiteral("view"),
                               QStringLiteral("Bring a view to the front: %1.").arg(ss::ui::MainWindow::viewNames().join(QStringLiteral(", "))),
                               QStringLiteral("NAME"));
    QCommandLineOption shotOpt(QStringLiteral("screenshot"), QStringLiteral("Save the window as PNG and exit."), QStringLiteral("OUT.png"));
    QCommandLineOption darkOpt(QStringLiteral("dark"), QStringLiteral("Use the dark theme."));
    QCommandLineOption sizeOpt(QStringLiteral("size"), QStringLiteral("Window size for --screenshot (default 1600x1000)."), QStringLiteral("WxH"));
    QCommandLineOption dbOpt(QStringLiteral("db"),
                             QStringLiteral("Keep the run history in this project database (SQLite; created when missing)."),
                             QStringLiteral("FILE"));
    QCommandLineOption forkOpt(QStringLiteral("fork"),
                               QStringLiteral("Fork the current run at the current decision (after --goto-decision): policy=P, "
                                              "place=JOB:M1,M2, fail=M1,M2, drain=M, queue-first=J1,J2, add=N:M or burst=FILE; shows the Fork view."),
                               QStringLiteral("CHANGE"));
    cli.addOptions({scenarioOpt, runOpt, gotoOpt, viewOpt, shotOpt, darkOpt, sizeOpt, dbOpt, forkOpt});
    cli.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A scenario, trace or cluster file to open."), QStringLiteral("[file]"));
    cli.process(app);

    ss::ui::MainWindow w;
    if (cli.isSet(darkOpt))
        w.setDarkTheme(true);
    const bool shot = cli.isSet(shotOpt);
    int W = 1600, H = 1000;
    if (shot) {
        // Deterministic pictures: the default layout at a fixed size, whatever the saved settings say.
        w.resetLayout();
        if (cli.isSet(sizeOpt)) {
            const QStringList wh = cli.value(sizeOpt).split(QLatin1Char('x'));
            if (wh.size() == 2) {
                W = wh[0].toInt();
                H = wh[1].toInt();
            }
        }
        w.resize(W, H);
    }
    if (cli.isSet(dbOpt))
        w.openDatabase(cli.value(dbOpt));
    QString scenario = cli.value(scenarioOpt);
    if (scenario.isEmpty() && !cli.positionalArguments().isEmpty())
        scenario = cli.positionalArguments().first();
    if (!scenario.isEmpty()) {
        if (scenario.endsWith(QLatin1String(".scenario.json"))) {
            if (!w.openScenario(scenario) && shot) {
                std::fprintf(stderr, "schedstudio: %s\n", qPrintable(w.bannerText()));
                return 2;
            }
        } else {
            w.loadTrace(scenario);
        }
    }
    if (!scenario.isEmpty() && ss::ui::AccelWindow::isAcceleratorScenario(scenario)) {
        // The accelerator mode (RELMAS) has its own window; openScenario() opened it and started its runs.
        // --goto-decision K is its cycle K, --view one of its views.
        ss::ui::AccelWindow* a = w.acceleratorWindow();
        w.show();
        a->show();
        a->raise();
        if (shot)
            a->resize(W, H);
        if (!shot && !cli.isSet(gotoOpt) && !cli.isSet(viewOpt))
            return app.exec();
        a->waitForIdle(600000);
        if (cli.isSet(gotoOpt))
            a->setCycle(cli.value(gotoOpt).toInt() - 1);
        if (cli.isSet(viewOpt) && !a->showView(cli.value(viewOpt))) {
            std::fprintf(stderr, "schedstudio: unknown accelerator view '%s' (one of %s)\n", qPrintable(cli.value(viewOpt)),
                         qPrintable(ss::ui::AccelWindow::viewNames().join(QStringLiteral(", "))));
            return 2;
        }
        if (!shot)
            return app.exec();
        for (int i = 0; i < 10; ++i) {
            QApplication::processEvents();
            QApplication::sendPostedEvents();
        }
        if (!a->errorText().isEmpty())
            std::fprintf(stderr, "schedstudio: %s\n", qPrintable(a->errorText()));
        if (!a->grab().toImage().save(cli.value(shotOpt))) {
            std::fprintf(stderr, "schedstudio: cannot write %s\n", qPrintable(cli.value(shotOpt)));
            return 1;
        }
        return 0;
    }
    w.show();
    if (!shot && !cli.isSet(runOpt) && !cli.isSet(gotoOpt) && !cli.isSet(viewOpt) && !cli.isSet(forkOpt))
        return app.exec();

    auto finish = [&]() -> int {
        w.waitForIdle(600000);
        if (cli.isSet(gotoOpt)) {
            const int k = cli.value(gotoOpt).toInt();
            w.setDecision(k - 1);
        }
        if (cli.isSet(forkOpt)) {
            if (!w.forkHere(cli.value(forkOpt))) {
                std::fprintf(stderr, "schedstudio: %s\n", qPrintable(w.bannerText()));
                return 2;
            }
            w.waitForIdle(600000);
            if (!w.bannerText().isEmpty())
                std::fprintf(stderr, "schedstudio: %s\n", qPrintable(w.bannerText()));
            if (!cli.isSet(viewOpt))
                w.showView(QStringLiteral("fork"));
        }
        if (cli.isSet(viewOpt) && !w.showView(cli.value(viewOpt))) {
            std::fprintf(stderr, "schedstudio: unknown view '%s' (one of %s)\n", qPrintable(cli.value(viewOpt)),
                         qPrintable(ss::ui::MainWindow::viewNames().join(QStringLiteral(", "))));
            return 2;
        }
        if (!shot)
            return -1;
        // Let layouts settle and queued replots run before grabbing.
        for (int i = 0; i < 10; ++i) {
            QApplication::processEvents();
            QApplication::sendPostedEvents();
        }
        const QImage img = w.grab().toImage();
        if (!img.save(cli.value(shotOpt))) {
            std::fprintf(stderr, "schedstudio: cannot write %s\n", qPrintable(cli.value(shotOpt)));
            return 1;
        }
        if (!w.bannerText().isEmpty())
            std::fprintf(stderr, "schedstudio: banner: %s\n", qPrintable(w.bannerText()));
        return 0;
    };
    w.waitForIdle(600000);
    if (cli.isSet(runOpt)) {
        if (!w.runScenario()) {
            std::fprintf(stderr, "schedstudio: %s\n", qPrintable(w.bannerText()));
            if (shot)
                return 2;
        }
    }
    const int rc = finish();
    if (rc >= 0)
        return rc;
    return app.exec();
}
