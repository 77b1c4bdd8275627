#include "viewhelpers.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QMenu>
#include <QPalette>
#include <QStyle>
#include <QTableView>

#include "exporthelpers.h"
#include "ganttview.h"
#include "plothelpers.h"
#include "qcp.h"

namespace ss::ui {

QString countOf(qsizetype n, const QString& one, const QString& many)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

QIcon icon(const char* name)
{
    return QIcon(QStringLiteral(":/icons/%1.svg").arg(QLatin1String(name)));
}

QWidget* hbox(std::initializer_list<QWidget*> ws, QWidget* parent)
{
    auto* w = new QWidget(parent);
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    for (QWidget* x : ws)
        l->addWidget(x);
    l->addStretch(1);
    return w;
}

QCustomPlot* makePlot(QWidget* parent)
{
    auto* p = new QCustomPlot(parent);
    p->setMinimumSize(220, 160);
    p->setNoAntialiasingOnDrag(true);
    return p;
}

QTableView* makeTable(QWidget* parent)
{
    auto* t = new QTableView(parent);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    t->verticalHeader()->setDefaultSectionSize(22);
    t->verticalHeader()->setVisible(false);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setWordWrap(false);
    return t;
}

QSettings studioSettings()
{
    return QSettings(QStringLiteral("SchedStudio"), QStringLiteral("schedstudio"));
}

QStringList recentFiles()
{
    return studioSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void addRecentFile(const QString& path)
{
    QStringList r = recentFiles();
    r.removeAll(path);
    r.prepend(path);
    while (r.size() > 10)
        r.removeLast();
    studioSettings().setValue(QStringLiteral("recentFiles"), r);
}

QPalette studioPalette(bool dark)
{
    QPalette p = qApp->style()->standardPalette();
    if (dark) {
        p.setColor(QPalette::Window, QColor(45, 47, 51));
        p.setColor(QPalette::WindowText, QColor(225, 228, 232));
        p.setColor(QPalette::Base, QColor(30, 32, 35));
        p.setColor(QPalette::AlternateBase, QColor(40, 42, 46));
        p.setColor(QPalette::Text, QColor(225, 228, 232));
        p.setColor(QPalette::Button, QColor(55, 58, 63));
        p.setColor(QPalette::ButtonText, QColor(225, 228, 232));
        p.setColor(QPalette::Highlight, QColor(53, 116, 212));
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::ToolTipBase, QColor(30, 32, 35));
        p.setColor(QPalette::ToolTipText, QColor(225, 228, 232));
        p.setColor(QPalette::PlaceholderText, QColor(140, 144, 150));
        p.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 120, 120));
        p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 120));
        p.setColor(QPalette::Link, QColor(110, 170, 255));
    }
    return p;
}

void themePlotsUnder(QObject* root)
{
    for (QCustomPlot* p : root->findChildren<QCustomPlot*>()) {
        plots::applyTheme(p, qApp->palette());
        p->replot(QCustomPlot::rpQueuedReplot);
    }
}

void showRunGantt(ss::GanttView* view, const RunEntry& run, ss::GanttRowMode mode)
{
    const int i = mode == ss::GanttRowMode::Gpu ? 0 : 1;
    if (run.gantt[i]) {
        // Rows were built and indexed with the run on the worker thread; the view only copies them.
        view->setDecisionLog(nullptr, nullptr);
        view->setRowMode(mode);
        if (run.ganttRows[i])
            view->setRows(*run.ganttRows[i], run.gantt[i]->t0, run.gantt[i]->t1);
        else
            view->setData(*run.gantt[i]);
    } else if (run.out->log) {
        view->setDecisionLog(run.out->log.get(), run.cluster.get());
        view->setRowMode(mode);
    } else {
        view->setData(buildSegmentsFromJobs(run.out->jobs));
    }
}

QString runProvenance(const RunEntry& run)
{
    const RunOutput& o = *run.out;
    QString s = QStringLiteral("%1 — policy %2 · seed %3 · trace %4 · cluster %5 · perf %6")
                    .arg(run.name, QString::fromStdString(o.policy))
                    .arg(o.seed)
                    .arg(QString::fromStdString(o.traceName), run.clusterLabel.isEmpty() ? QString::fromStdString(o.clusterName) : run.clusterLabel,
                         QString::fromStdString(o.perf));
    if (!o.spec.options.params.empty()) {
        QStringList kv;
        for (const auto& [k, v] : o.spec.options.params)
            kv << QString::fromStdString(k + "=" + v);
        s += QStringLiteral(" · ") + kv.join(QLatin1Char(','));
    }
    return s + QStringLiteral(" · run %1").arg(QString::fromStdString(o.spec.id()).left(12));
}

QString runsProvenance(const QVector<RunPtr>& runs, int limit)
{
    QStringList lines;
    for (const RunPtr& r : runs) {
        if (lines.size() == limit) {
            lines << QObject::tr("… and %1 more").arg(runs.size() - limit);
            break;
        }
        lines << runProvenance(*r);
    }
    return lines.join(QLatin1Char('\n'));
}

ExportMenus::ExportMenus(QObject* parent) : QObject(parent) {}

void ExportMenus::remember(QWidget* w, Caption c)
{
    m_captions.insert(w, std::move(c));
    connect(w, &QObject::destroyed, this, [this, w] { m_captions.remove(w); });
}

QString ExportMenus::captionFor(const QWidget* w) const
{
    const auto it = m_captions.find(w);
    if (it != m_captions.end() && *it)
        return (*it)();
    return caption ? caption() : QString();
}

ExportMenus::Caption ExportMenus::scenario() const
{
    return [this] { return scenarioCaption ? scenarioCaption() : QString(); };
}

void ExportMenus::installPlotExport(QWidget* w, QCustomPlot* plot, Caption viewCaption)
{
    remember(w, std::move(viewCaption));
    w->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(w, &QWidget::customContextMenuRequested, this, [this, w, plot](const QPoint& pos) {
        QMenu menu;
        menu.addAction(icon("export"), tr("Export image (PNG/SVG/PDF)…"), this, [this, w, plot] {
            const QString p = QFileDialog::getSaveFileName(w->window(), tr("Export"), QString(), exporter::imageFilter());
            if (p.isEmpty())
                return;
            QString err;
            const bool ok = plot ? exporter::exportPlot(plot, p, &err, captionFor(w))
                                 : exporter::exportWidget(w, p, &err, captionFor(w));
            if (!ok)
                Q_EMIT error(err);
            else
                Q_EMIT status(tr("Exported %1").arg(p));
        });
        menu.exec(w->mapToGlobal(pos));
    });
}

void ExportMenus::installTableExport(QTableView* view, Caption viewCaption)
{
    remember(view, std::move(viewCaption));
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    auto* copy = new QAction(tr("Copy"), view);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    view->addAction(copy);
    connect(copy, &QAction::triggered, this, [view] { TableExport::copySelection(view); });
    connect(view, &QWidget::customContextMenuRequested, this, [this, view, copy](const QPoint& pos) {
        QMenu menu;
        menu.addAction(copy);
        menu.addAction(icon("export"), tr("Export CSV…"), this, [this, view] {
            const QString p = QFileDialog::getSaveFileName(view->window(), tr("Export CSV"), QString(), tr("CSV (*.csv)"));
            if (p.isEmpty())
                return;
            QString err;
            if (!TableExport::writeCsv(view->model(), p, &err, captionFor(view)))
                Q_EMIT error(err);
        });
        menu.exec(view->viewport()->mapToGlobal(pos));
    });
}

} // namespace ss::ui
