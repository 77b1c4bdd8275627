#include "comparepanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

#include "ganttview.h"
#include "models.h"
#include "plothelpers.h"
#include "qcp.h"
#include "viewhelpers.h"

namespace ss::ui {

ComparePanel::ComparePanel(ExportMenus* exports, QWidget* parent) : QWidget(parent), m_exports(exports)
{
    auto* w = this;
    auto* v = new QVBoxLayout(w);
    auto* hint = new QLabel(tr("Runs ticked in Run history are compared (grouped by everything but the seed; "
                               "labels name what differs; ± is the standard deviation over distinct seeds)."), w);
    hint->setWordWrap(true);
    v->addWidget(hint);
    m_model = new CompareModel(this);
    m_table = makeTable(w);
    m_table->setObjectName(QStringLiteral("compareTable"));
    m_table->setModel(m_model);
    m_table->setMaximumHeight(170);
    // exports name the runs compared, not the scenario being edited
    const ExportMenus::Caption shown = [this] {
        return (m_runs.size() == 1 ? tr("Compare of 1 run:") : tr("Compare of %1 runs:").arg(m_runs.size())) +
               QLatin1Char('\n') + runsProvenance(m_runs);
    };
    exports->installTableExport(m_table, shown);
    v->addWidget(m_table);
    auto* tabs = new QTabWidget(w);
    auto* cdfPane = new QWidget(tabs);
    auto* cv = new QVBoxLayout(cdfPane);
    m_cdfLogX = new QCheckBox(tr("Log-scale JCT axis (long tails, e.g. Philly)"), cdfPane);
    m_cdfLogX->setObjectName(QStringLiteral("compareCdfLogX"));
    m_cdfPlot = makePlot(cdfPane);
    m_cdfPlot->setObjectName(QStringLiteral("compareCdf"));
    exports->installPlotExport(m_cdfPlot, m_cdfPlot, shown);
    cv->addWidget(m_cdfLogX, 0, Qt::AlignLeft);
    cv->addWidget(m_cdfPlot, 1);
    tabs->addTab(cdfPane, tr("JCT CDF"));
    connect(m_cdfLogX, &QCheckBox::toggled, this, &ComparePanel::refresh);
    auto* bars = new QWidget(tabs);
    auto* bv = new QVBoxLayout(bars);
    m_barMetric = new QComboBox(bars);
    m_barMetric->setObjectName(QStringLiteral("compareBarMetric"));
    for (int c = CompareModel::kFirstMetric; c <= CompareModel::kLastMetric; ++c)
        m_barMetric->addItem(CompareModel::metricName(c), c);
    m_barPlot = makePlot(bars);
    m_barPlot->setObjectName(QStringLiteral("compareBars"));
    exports->installPlotExport(m_barPlot, m_barPlot, shown);
    bv->addWidget(m_barMetric, 0, Qt::AlignLeft);
    bv->addWidget(m_barPlot, 1);
    tabs->addTab(bars, tr("Bars (± sd over seeds)"));
    connect(m_barMetric, &QComboBox::currentIndexChanged, this, &ComparePanel::refresh);

    auto* gpane = new QWidget(tabs);
    gpane->setObjectName(QStringLiteral("compareGanttPane"));
    auto* gv = new QVBoxLayout(gpane);
    m_ganttACombo = new QComboBox(gpane);
    m_ganttBCombo = new QComboBox(gpane);
    m_ganttACombo->setObjectName(QStringLiteral("compareGanttA"));
    m_ganttBCombo->setObjectName(QStringLiteral("compareGanttB"));
    m_ganttA = new ss::GanttView(gpane);
    m_ganttB = new ss::GanttView(gpane);
    gv->addWidget(hbox({new QLabel(tr("Top:"), gpane), m_ganttACombo}, gpane));
    gv->addWidget(m_ganttA, 1);
    gv->addWidget(hbox({new QLabel(tr("Bottom:"), gpane), m_ganttBCombo}, gpane));
    gv->addWidget(m_ganttB, 1);
    exports->installPlotExport(gpane, nullptr, [this] {
        QVector<RunPtr> two;
        for (QComboBox* c : {m_ganttACombo, m_ganttBCombo})
            if (RunPtr r = runFor(c))
                two << r;
        return tr("Gantt A / B:") + QLatin1Char('\n') + runsProvenance(two);
    });
    tabs->addTab(gpane, tr("Gantt A / B"));
    // One time axis for both charts: panning or zooming either moves the other.
    connect(m_ganttA, &ss::GanttView::viewRangeChanged, this, [this](double a, double b) {
        if (m_ganttB->viewStart() != a || m_ganttB->viewEnd() != b)
            m_ganttB->setViewRange(a, b);
    });
    connect(m_ganttB, &ss::GanttView::viewRangeChanged, this, [this](double a, double b) {
        if (m_ganttA->viewStart() != a || m_ganttA->viewEnd() != b)
            m_ganttA->setViewRange(a, b);
    });
    connect(m_ganttACombo, &QComboBox::currentIndexChanged, this, &ComparePanel::refreshGantts);
    connect(m_ganttBCombo, &QComboBox::currentIndexChanged, this, &ComparePanel::refreshGantts);
    connect(m_ganttA, &ss::GanttView::jobSelected, this, &ComparePanel::jobSelected);
    connect(m_ganttB, &ss::GanttView::jobSelected, this, &ComparePanel::jobSelected);
    v->addWidget(tabs, 1);
}

void ComparePanel::setRuns(const QVector<RunPtr>& runs)
{
    m_runs = runs;
    refresh();
}

void ComparePanel::refresh()
{
    m_model->setRuns(m_runs);
    // the policies' own figures sit right after the metrics, where they are seen without scrolling
    QHeaderView* hh = m_table->horizontalHeader();
    for (int k = 0; k < m_model->policyKeys().size(); ++k)
        hh->moveSection(hh->visualIndex(CompareModel::ColumnCount + k), CompareModel::kLastMetric + 1 + k);
    m_table->resizeColumnsToContents();
    {
        // the bar chart offers the metrics and every policy figure of the runs compared
        QSignalBlocker b(m_barMetric);
        const int keep = m_barMetric->currentData().toInt();
        m_barMetric->clear();
        for (int c = CompareModel::kFirstMetric; c <= CompareModel::kLastMetric; ++c)
            m_barMetric->addItem(CompareModel::metricName(c), c);
        for (int k = 0; k < m_model->policyKeys().size(); ++k)
            m_barMetric->addItem(tr("%1 (policy figure)").arg(m_model->policyKeys()[k]), CompareModel::ColumnCount + k);
        const int at = m_barMetric->findData(keep);
        m_barMetric->setCurrentIndex(at >= 0 ? at : 0);
    }

    std::vector<plots::NamedSeries> cdf;
    for (const RunPtr& r : m_runs) {
        if (cdf.size() >= 10)
            break;
        plots::NamedSeries s;
        s.name = r->name;
        if (r->jctSortedMin) { // sorted on the worker thread with the run
            s.values = *r->jctSortedMin;
        } else {
            for (const JobRecord& j : r->out->jobs)
                if (j.jct >= 0)
                    s.values.push_back(j.jct / 60.0);
        }
        cdf.push_back(std::move(s));
    }
    m_cdfPlot->clearPlottables();
    m_cdfPlot->clearGraphs();
    if (!cdf.empty())
        plots::plotCdf(m_cdfPlot, cdf, tr("JCT (min)"), m_cdfLogX->isChecked());
    m_barPlot->clearPlottables();
    const int metric = m_barMetric->currentData().toInt();
    const int key = metric - CompareModel::ColumnCount; // >= 0: a policy figure
    const QString metricLabel = key >= 0 ? m_model->policyKeys().value(key) : CompareModel::metricName(metric);
    QStringList cats;
    std::vector<std::vector<double>> mean(1), sd(1);
    for (const auto& g : m_model->groups()) {
        if (key >= 0 && (key >= g.policyRuns.size() || g.policyRuns[key] == 0))
            continue; // a group whose policy does not report this figure has no bar
        cats << g.label;
        mean[0].push_back(key >= 0 ? g.policyStat[key].mean : g.stat[metric].mean);
        sd[0].push_back(key >= 0 ? g.policyStat[key].sd : g.stat[metric].sd);
    }
    if (!cats.isEmpty())
        plots::plotGroupedBars(m_barPlot, cats, {metricLabel}, mean, sd, metricLabel);
    themePlotsUnder(this);

    auto fill = [this](QComboBox* c, int pick) {
        QSignalBlocker b(c);
        const int keep = c->currentData().toInt();
        c->clear();
        for (const RunPtr& r : m_runs)
            c->addItem(r->name, r->id);
        const int at = c->findData(keep);
        c->setCurrentIndex(at >= 0 && keep != 0 ? at : std::min(pick, c->count() - 1));
    };
    fill(m_ganttACombo, 0);
    fill(m_ganttBCombo, 1);
    if (m_ganttBCombo->count() >= 2 && m_ganttBCombo->currentIndex() == m_ganttACombo->currentIndex()) {
        // two panes on one run compare nothing: the bottom one takes the next run
        QSignalBlocker b(m_ganttBCombo);
        m_ganttBCombo->setCurrentIndex((m_ganttACombo->currentIndex() + 1) % m_ganttBCombo->count());
    }
    refreshGantts();
}

RunPtr ComparePanel::runFor(const QComboBox* c) const
{
    const int id = c->currentData().toInt();
    for (const RunPtr& r : m_runs)
        if (r->id == id)
            return r;
    return nullptr;
}

QString ComparePanel::captionOf(const QWidget* view) const
{
    return m_exports->captionFor(view);
}

void ComparePanel::refreshGantts()
{
    double t1 = 0;
    for (auto [combo, view] : {std::pair{m_ganttACombo, m_ganttA}, std::pair{m_ganttBCombo, m_ganttB}}) {
        RunPtr r = runFor(combo);
        if (r)
            showRunGantt(view, *r, ss::GanttRowMode::Machine);
        else
            view->setData({});
        if (r)
            t1 = std::max(t1, r->out->summary.makespanH * 3600.0);
    }
    if (t1 > 0) {
        m_ganttA->setViewRange(0, t1);
        m_ganttB->setViewRange(0, t1);
    }
}

void ComparePanel::selectJob(int job)
{
    m_ganttA->setSelectedJob(job);
    m_ganttB->setSelectedJob(job);
}

} // namespace ss::ui
