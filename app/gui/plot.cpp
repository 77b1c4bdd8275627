// schedstudio-plot: a line chart (PNG) from a CSV table, for the reproduction scripts:
//   schedstudio-plot --csv IN.csv --x COLUMN --y COLUMN --group COLUMN --out OUT.png [--title T] [--xlabel L] [--ylabel L] [--logy]
// Rows with the same (group, x) are averaged (seeds); one line per group, x sorted. Runs offscreen
// (set QT_QPA_PLATFORM=offscreen on a machine without a display).
#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QTextStream>

#include <cstdio>
#include <map>

#include "plothelpers.h"

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Line chart (PNG) of a CSV table: one line per group, mean over repeated rows."));
    p.addHelpOption();
    const QCommandLineOption csv(QStringLiteral("csv"), QStringLiteral("Input CSV (header row)."), QStringLiteral("FILE"));
    const QCommandLineOption out(QStringLiteral("out"), QStringLiteral("Output PNG."), QStringLiteral("FILE"));
    const QCommandLineOption xs(QStringLiteral("x"), QStringLiteral("x column."), QStringLiteral("NAME"));
    const QCommandLineOption ys(QStringLiteral("y"), QStringLiteral("y column."), QStringLiteral("NAME"));
    const QCommandLineOption gs(QStringLiteral("group"), QStringLiteral("Column naming the line."), QStringLiteral("NAME"));
    const QCommandLineOption title(QStringLiteral("title"), QStringLiteral("Title."), QStringLiteral("TEXT"));
    const QCommandLineOption xl(QStringLiteral("xlabel"), QStringLiteral("x axis label."), QStringLiteral("TEXT"));
    const QCommandLineOption yl(QStringLiteral("ylabel"), QStringLiteral("y axis label."), QStringLiteral("TEXT"));
    const QCommandLineOption logy(QStringLiteral("logy"), QStringLiteral("Logarithmic y axis."));
    p.addOptions({csv, out, xs, ys, gs, title, xl, yl, logy});
    p.process(app);
    for (const auto* o : {&csv, &out, &xs, &ys, &gs})
        if (!p.isSet(*o)) {
            std::fprintf(stderr, "schedstudio-plot: --%s is required\n", qPrintable(o->names().front()));
            return 2;
        }
    QFile f(p.value(csv));
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        std::fprintf(stderr, "schedstudio-plot: %s: cannot open\n", qPrintable(p.value(csv)));
        return 1;
    }
    QTextStream in(&f);
    const QStringList header = in.readLine().split(QLatin1Char(','));
    const int cx = int(header.indexOf(p.value(xs))), cy = int(header.indexOf(p.value(ys))), cg = int(header.indexOf(p.value(gs)));
    if (cx < 0 || cy < 0 || cg < 0) {
        std::fprintf(stderr, "schedstudio-plot: %s:1: no column %s\n", qPrintable(p.value(csv)),
                     qPrintable(cx < 0 ? p.value(xs) : cy < 0 ? p.value(ys) : p.value(gs)));
        return 1;
    }
    std::map<QString, std::map<double, std::pair<double, int>>> lines; // group -> x -> (sum y, n)
    QStringList order;
    int lineNo = 1;
    while (!in.atEnd()) {
        const QString line = in.readLine();
        ++lineNo;
        if (line.trimmed().isEmpty())
            continue;
        const QStringList v = line.split(QLatin1Char(','));
        bool okx = false, oky = false;
        const double x = v.value(cx).toDouble(&okx), y = v.value(cy).toDouble(&oky);
        if (!okx || !oky) {
            std::fprintf(stderr, "schedstudio-plot: %s:%d: column %s or %s is not a number\n", qPrintable(p.value(csv)), lineNo,
                         qPrintable(p.value(xs)), qPrintable(p.value(ys)));
            return 1;
        }
        const QString g = v.value(cg);
        if (!order.contains(g))
            order << g;
        auto& cell = lines[g][x];
        cell.first += y;
        cell.second += 1;
    }
    QCustomPlot plot;
    plot.resize(900, 560);
    ss::plots::applyTheme(&plot, app.palette());
    for (int i = 0; i < order.size(); ++i) {
        QVector<double> x, y;
        for (const auto& [xv, s] : lines[order[i]]) {
            x << xv;
            y << s.first / s.second;
        }
        QCPGraph* gr = plot.addGraph();
        gr->setName(order[i]);
        gr->setData(x, y, true);
        gr->setPen(QPen(ss::plots::seriesColor(i), 2));
        gr->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
    }
    plot.xAxis->setLabel(p.isSet(xl) ? p.value(xl) : p.value(xs));
    plot.yAxis->setLabel(p.isSet(yl) ? p.value(yl) : p.value(ys));
    if (p.isSet(logy)) {
        plot.yAxis->setScaleType(QCPAxis::stLogarithmic);
        plot.yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    }
    if (p.isSet(title)) {
        plot.plotLayout()->insertRow(0);
        plot.plotLayout()->addElement(0, 0, new QCPTextElement(&plot, p.value(title), QFont(QStringLiteral("sans"), 11, QFont::Bold)));
    }
    plot.legend->setVisible(true);
    plot.rescaleAxes();
    plot.yAxis->setRangeLower(p.isSet(logy) ? plot.yAxis->range().lower * 0.8 : 0);
    plot.yAxis->setRangeUpper(plot.yAxis->range().upper * 1.1);
    const double span = plot.xAxis->range().size();
    plot.xAxis->setRange(plot.xAxis->range().lower - 0.05 * span, plot.xAxis->range().upper + 0.05 * span);
    if (!plot.savePng(p.value(out), 900, 560)) {
        std::fprintf(stderr, "schedstudio-plot: %s: cannot write\n", qPrintable(p.value(out)));
        return 1;
    }
    return 0;
}
