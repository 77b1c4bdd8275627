#include "accelwindow.h"

#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "accelviews.h"
#include "backgroundjob.h"
#include "heatmapview.h"
#include "io/runio.h"
#include "plothelpers.h"
#include "policy/relmas/accelpolicies.h"
#include "qcp.h"
#include "viewhelpers.h"

namespace ss::ui {

using namespace ss::accel;

namespace {

// Sorts by the number behind the text when it has one ("12.4 ms" after "850 us").
class NumItem : public QTableWidgetItem {
public:
    using QTableWidgetItem::QTableWidgetItem;
    bool operator<(const QTableWidgetItem& o) const override
    {
        const QVariant a = data(Qt::UserRole), b = o.data(Qt::UserRole);
        if (a.isValid() && b.isValid())
            return a.toDouble() < b.toDouble();
        return QTableWidgetItem::operator<(o);
    }
};

QTableWidgetItem* cell(const QString& text, double sortKey = NAN)
{
    auto* it = new NumItem(text);
    if (!std::isnan(sortKey))
        it->setData(Qt::UserRole, sortKey);
    it->setFlags(it->flags() & ~Qt::ItemIsEditable);
    return it;
}

QTableWidget* makeTableWidget(const QStringList& headers, QWidget* parent)
{
    auto* t = new QTableWidget(0, int(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->setVisible(false);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

} // namespace

AccelWindow::AccelWindow(QWidget* parent) : QMainWindow(parent)
{
    setObjectName(QStringLiteral("accelWindow"));
    setWindowTitle(tr("SchedStudio — accelerator mode"));
    m_job = new BackgroundJob(this);
    m_exports = new ExportMenus(this);
    m_exports->caption = [this] { return provenance(); };

    auto* tb = addToolBar(tr("Accelerator"));
    tb->setObjectName(QStringLiteral("accelToolbar"));
    auto* run = tb->addAction(tr("Run all schedulers"));
    run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(run, &QAction::triggered, this, &AccelWindow::runAll);
    tb->addSeparator();
    tb->addWidget(new QLabel(tr(" Show: "), tb));
    m_policyBox = new QComboBox(tb);
    m_policyBox->setToolTip(tr("The scheduler whose run the Gantt, chip, cycle and teaching views show"));
    tb->addWidget(m_policyBox);
    connect(m_policyBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0 && i != m_policy)
            setPolicyIndex(i);
    });
    tb->addSeparator();
    auto* prev = tb->addAction(QStringLiteral("\u2039"));
    prev->setToolTip(tr("Previous cycle (Alt+Left)"));
    prev->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
    tb->addWidget(new QLabel(tr(" Cycle "), tb));
    m_cycleBox = new QSpinBox(tb);
    m_cycleBox->setRange(0, 0);
    m_cycleBox->setToolTip(tr("Scheduling cycle, counted from 1 (only cycles where a layer was ready and a "
                              "sub-accelerator idle: the scheduler decided)"));
    tb->addWidget(m_cycleBox);
    auto* next = tb->addAction(QStringLiteral("\u203a"));
    next->setToolTip(tr("Next cycle (Alt+Right)"));
    next->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));
    m_cycleLabel = new QLabel(tb);
    tb->addWidget(m_cycleLabel);
    connect(prev, &QAction::triggered, this, [this] { setCycle(m_cycle - 1); });
    connect(next, &QAction::triggered, this, [this] { setCycle(m_cycle + 1); });
    connect(m_cycleBox, &QSpinBox::valueChanged, this, [this](int v) {
        if (v - 1 != m_cycle)
            setCycle(v - 1);
    });

    auto* central = new QWidget(this);
    auto* lay = new QVBoxLayout(central);
    lay->setContentsMargins(4, 4, 4, 4);
    m_banner = new QLabel(central);
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(QStringLiteral("QLabel { background: #fdecea; color: #611a15; padding: 6px; border-radius: 3px; }"));
    m_banner->hide();
    lay->addWidget(m_banner);
    m_summary = new QLabel(central);
    m_summary->setWordWrap(true);
    lay->addWidget(m_summary);
    auto* split = new QSplitter(Qt::Vertical, central);
    m_gantt = new AccelGanttView(split);
    m_gantt->setObjectName(QStringLiteral("accelGantt"));
    connect(m_gantt, &AccelGanttView::timeClicked, this, [this](double t) {
        if (m_policy >= 0)
            setCycle(std::max(0, cycleAt(m_runs[size_t(m_policy)]->cycles, t)));
    });
    m_exports->installPlotExport(m_gantt);
    m_tabs = new QTabWidget(split);
    // cycle: the ready layers and their scores
    auto* cyc = new QSplitter(Qt::Horizontal, m_tabs);
    m_ready = makeTableWidget({tr("Request"), tr("Tenant"), tr("Network"), tr("Layer"), tr("Slack"), tr("Deadline"),
                               tr("Started on")},
                              cyc);
    m_ready->setObjectName(QStringLiteral("accelReady"));
    m_exports->installTableExport(m_ready);
    m_heat = new HeatmapView(cyc);
    m_heat->setObjectName(QStringLiteral("accelScores"));
    m_exports->installPlotExport(m_heat);
    cyc->setStretchFactor(0, 1);
    cyc->setStretchFactor(1, 1);
    m_tabs->addTab(cyc, tr("Cycle"));
    // compare
    auto* cmp = new QSplitter(Qt::Horizontal, m_tabs);
    m_compare = makeTableWidget({tr("Scheduler"), tr("SLA met"), tr("Fairness"), tr("p50 latency"), tr("p99 latency"),
                                 tr("Energy (uJ)"), tr("Energy over lowest"), tr("Utilization"), tr("BW saturated"),
                                 tr("Decide (mean)")},
                                cmp);
    m_compare->setObjectName(QStringLiteral("accelCompare"));
    m_compare->setSortingEnabled(true);
    m_exports->installTableExport(m_compare, [this] { return provenance() + tr("; every scheduler of the scenario"); });
    m_bars = makePlot(cmp);
    m_exports->installPlotExport(m_bars, m_bars, [this] { return provenance() + tr("; every scheduler of the scenario"); });
    cmp->setStretchFactor(0, 3);
    cmp->setStretchFactor(1, 2);
    m_tabs->addTab(cmp, tr("Compare"));
    m_teaching = new QTextBrowser(m_tabs);
    m_teaching->setObjectName(QStringLiteral("accelTeaching"));
    m_tabs->addTab(m_teaching, tr("Teaching"));
    // the bars' category labels are fitted to the plot's width at replot: replot once the tab is shown
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int i) {
        if (i == 1)
            m_bars->replot();
    });
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    lay->addWidget(split, 1);
    setCentralWidget(central);

    auto* dock = new QDockWidget(tr("Chip"), this);
    dock->setObjectName(QStringLiteral("dock-chip"));
    m_chip = new ChipView(dock);
    dock->setWidget(m_chip);
    addDockWidget(Qt::RightDockWidgetArea, dock);

    connect(m_job, &BackgroundJob::progressChanged, this, [this](double f) {
        statusBar()->showMessage(tr("Running %1 … %2%").arg(m_job->title()).arg(int(100 * f)));
    });
    connect(m_job, &BackgroundJob::failed, this, [this](const QString& e) { showError(e); });
    resize(1500, 950);
}

AccelWindow::~AccelWindow() = default;

bool AccelWindow::isAcceleratorScenario(const QString& path)
{
    try {
        return readScenario(path.toStdString()).mode == Scenario::Mode::Accelerator;
    } catch (const std::exception&) {
        return false;
    }
}

QStringList AccelWindow::viewNames()
{
    return {QStringLiteral("gantt"), QStringLiteral("chip"), QStringLiteral("cycle"), QStringLiteral("compare"),
            QStringLiteral("teaching")};
}

void AccelWindow::showError(const QString& text)
{
    m_error = text;
    m_banner->setText(text);
    m_banner->setVisible(!text.isEmpty());
}

bool AccelWindow::openScenario(const QString& path)
{
    try {
        auto s = std::make_unique<AccelScenario>(readAccelScenario(path.toStdString()));
        for (const std::string& p : s->policies)
            makeAccelScheduler(p, s->params); // an unknown scheduler or parameter is an error now, not at run time
        m_job->cancel();
        m_runs.clear();
        m_policy = m_cycle = -1;
        m_gantt->setRun(nullptr, nullptr);
        m_chip->setRun(nullptr, nullptr, nullptr);
        m_cost = std::make_unique<CostTable>(s->workload.chip, s->workload.networks);
        m_scenario = std::move(s);
    } catch (const std::exception& e) {
        showError(tr("Cannot open %1: %2").arg(path, QString::fromUtf8(e.what())));
        return false;
    }
    showError(QString());
    const Workload& w = m_scenario->workload;
    setWindowTitle(tr("%1 — SchedStudio accelerator mode").arg(QString::fromStdString(m_scenario->name)));
    m_summary->setText(tr("<b>%1</b>: chip %2 (%3 sub-accelerators sharing %4 GB/s), %5 requests from %6 tenants "
                          "over %7 networks, scheduling cycle T<sub>s</sub> = %8. Schedulers: %9.")
                           .arg(QString::fromStdString(m_scenario->name), QString::fromStdString(w.chip.name))
                           .arg(w.chip.subs.size())
                           .arg(w.chip.bandwidth / 1000, 0, 'f', 1)
                           .arg(w.requests.size())
                           .arg(w.tenants.size())
                           .arg(w.networks.size())
                           .arg(accelTime(m_scenario->sim.period))
                           .arg(QString::fromStdString([&] {
                               std::string s;
                               for (const std::string& p : m_scenario->policies)
                                   s += (s.empty() ? "" : ", ") + p;
                               return s;
                           }())));
    m_policyBox->blockSignals(true);
    m_policyBox->clear();
    m_policyBox->blockSignals(false);
    m_compare->setRowCount(0);
    m_ready->setRowCount(0);
    m_heat->setMatrix(0, 0, {});
    m_teaching->clear();
    m_chip->setRun(&m_scenario->workload, m_cost.get(), nullptr);
    statusBar()->showMessage(tr("Opened %1").arg(QFileInfo(path).fileName()));
    return true;
}

bool AccelWindow::isRunning() const { return m_job->isRunning(); }

bool AccelWindow::waitForIdle(int ms) { return m_job->waitForIdle(ms); }

void AccelWindow::runAll()
{
    if (!m_scenario)
        return;
    // the run works on copies: opening another scenario meanwhile cannot pull them away
    auto sc = std::make_shared<AccelScenario>(*m_scenario);
    auto cost = std::make_shared<CostTable>(sc->workload.chip, sc->workload.networks);
    showError(QString());
    m_job->start(tr("%1 schedulers").arg(sc->policies.size()), [sc, cost, this](const BackgroundJob::Progress& progress) {
        auto out = std::make_shared<std::vector<std::unique_ptr<StudioRun>>>();
        for (size_t i = 0; i < sc->policies.size(); ++i) {
            if (!progress(double(i) / double(sc->policies.size())))
                return std::function<void()>();
            out->push_back(std::make_unique<StudioRun>(
                runPolicyForStudio(sc->workload, *cost, sc->policies[i], sc->params, sc->sim)));
        }
        return std::function<void()>([this, out] {
            m_runs = std::move(*out);
            fillCompare();
            m_policyBox->blockSignals(true);
            m_policyBox->clear();
            for (const auto& r : m_runs)
                m_policyBox->addItem(QString::fromStdString(r->policy));
            m_policyBox->blockSignals(false);
            m_policy = -1;
            setPolicyIndex(m_runs.empty() ? -1 : 0);
            statusBar()->showMessage(tr("Ran %1").arg(countOf(qsizetype(m_runs.size()), tr("scheduler"), tr("schedulers"))));
        });
    });
}

void AccelWindow::fillCompare()
{
    double lowest = 0;
    for (const auto& r : m_runs)
        lowest = lowest == 0 ? r->metrics.energyUj : std::min(lowest, r->metrics.energyUj);
    m_compare->setSortingEnabled(false);
    m_compare->setRowCount(int(m_runs.size()));
    QStringList names;
    std::vector<double> sla, over;
    for (size_t i = 0; i < m_runs.size(); ++i) {
        const AccelMetrics& m = m_runs[i]->metrics;
        double u = 0;
        for (double x : m.utilization)
            u += x / double(std::max<size_t>(1, m.utilization.size()));
        const double eo = lowest > 0 ? 100 * (m.energyUj / lowest - 1) : 0;
        const int r = int(i);
        m_compare->setItem(r, 0, cell(QString::fromStdString(m_runs[i]->policy)));
        m_compare->setItem(r, 1, cell(QStringLiteral("%1%").arg(100 * m.slaRate, 0, 'f', 1), m.slaRate));
        m_compare->setItem(r, 2, cell(QString::number(m.fairness, 'f', 3), m.fairness));
        m_compare->setItem(r, 3, cell(accelTime(m.p50LatencyUs), m.p50LatencyUs));
        m_compare->setItem(r, 4, cell(accelTime(m.p99LatencyUs), m.p99LatencyUs));
        m_compare->setItem(r, 5, cell(QString::number(m.energyUj, 'f', 1), m.energyUj));
        m_compare->setItem(r, 6, cell(QStringLiteral("%1%").arg(eo, 0, 'f', 2), eo));
        m_compare->setItem(r, 7, cell(QStringLiteral("%1%").arg(100 * u, 0, 'f', 1), u));
        m_compare->setItem(r, 8, cell(QStringLiteral("%1%").arg(100 * m.saturatedFraction, 0, 'f', 1), m.saturatedFraction));
        m_compare->setItem(r, 9, cell(QStringLiteral("%1 us").arg(m.decideMeanUs, 0, 'f', 2), m.decideMeanUs));
        names << QString::fromStdString(m_runs[i]->policy);
        sla.push_back(100 * m.slaRate);
        over.push_back(eo);
    }
    m_compare->setSortingEnabled(true);
    // bars: SLA satisfaction and energy overhead per scheduler (the two figures RELMAS claims about)
    std::vector<std::vector<double>> mean(2);
    for (size_t i = 0; i < sla.size(); ++i) {
        mean[0].push_back(sla[i]);
        mean[1].push_back(over[i]);
    }
    plots::plotGroupedBars(m_bars, names, {tr("SLA met (%)"), tr("energy over lowest (%)")}, mean, {}, tr("%"));
    // room above 100 % for the legend
    double top = 100;
    for (double x : sla)
        top = std::max(top, x);
    for (double x : over)
        top = std::max(top, x);
    m_bars->yAxis->setRange(0, top * 1.35);
    m_bars->plotLayout()->insertRow(0);
    m_bars->plotLayout()->addElement(0, 0, new QCPTextElement(m_bars, tr("SLA satisfaction and energy overhead per scheduler")));
    m_bars->replot();
}

void AccelWindow::setPolicyIndex(int i)
{
    if (i < 0 || size_t(i) >= m_runs.size()) {
        m_policy = -1;
        m_gantt->setRun(nullptr, nullptr);
        return;
    }
    m_policy = i;
    if (m_policyBox->currentIndex() != i) {
        m_policyBox->blockSignals(true);
        m_policyBox->setCurrentIndex(i);
        m_policyBox->blockSignals(false);
    }
    showRun();
}

void AccelWindow::showRun()
{
    const StudioRun& r = *m_runs[size_t(m_policy)];
    // another scheduler: stay at the same simulated time
    const double tWas = m_gantt->cursorTime();
    m_gantt->setRun(&m_scenario->workload, &r);
    m_chip->setRun(&m_scenario->workload, m_cost.get(), &r);
    const int n = int(r.cycles.size());
    m_cycleBox->blockSignals(true);
    m_cycleBox->setRange(n > 0 ? 1 : 0, n);
    m_cycleBox->blockSignals(false);
    m_cycleLabel->setText(r.cyclesTotal > r.cycles.size()
                              ? tr(" of %1 (the first %2 kept)").arg(r.cyclesTotal).arg(n)
                              : tr(" of %1").arg(n));
    m_cycle = -1;
    setCycle(tWas >= 0 ? std::max(0, cycleAt(r.cycles, tWas)) : 0);
}

void AccelWindow::setCycle(int k)
{
    if (m_policy < 0)
        return;
    const auto& cycles = m_runs[size_t(m_policy)]->cycles;
    if (cycles.empty() || k < 0 || size_t(k) >= cycles.size())
        return;
    m_cycle = k;
    m_cycleBox->blockSignals(true);
    m_cycleBox->setValue(k + 1);
    m_cycleBox->blockSignals(false);
    showCycle();
}

void AccelWindow::showCycle()
{
    const StudioRun& run = *m_runs[size_t(m_policy)];
    const CycleRecord& c = run.cycles[size_t(m_cycle)];
    const Workload& w = m_scenario->workload;
    // layers started this cycle run from c.now: show the chip just after the decision
    m_chip->setTime(c.now);
    m_gantt->setCursorTime(c.now);
    std::vector<int> startedOn(c.ready.size(), -1);
    for (const Assignment& a : c.assignments)
        startedOn[size_t(a.ready)] = a.sub;
    m_ready->setSortingEnabled(false);
    m_ready->setRowCount(int(c.ready.size()));
    QStringList rows, cols;
    for (size_t i = 0; i < c.ready.size(); ++i) {
        const ReadyLayer& r = c.ready[i];
        const Network& net = w.networks[size_t(r.network)];
        const int row = int(i);
        m_ready->setItem(row, 0, cell(QString::number(r.request), r.request));
        m_ready->setItem(row, 1, cell(QString::fromStdString(w.tenants[size_t(r.tenant)].name)));
        m_ready->setItem(row, 2, cell(QString::fromStdString(net.name)));
        m_ready->setItem(row, 3, cell(QStringLiteral("%1/%2 %3").arg(r.layer + 1).arg(net.layers.size())
                                          .arg(QString::fromStdString(net.layers[size_t(r.layer)].name)), r.layer));
        m_ready->setItem(row, 4, cell(accelTime(r.slack), r.slack));
        m_ready->setItem(row, 5, cell(accelTime(r.deadline), r.deadline));
        m_ready->setItem(row, 6, cell(startedOn[i] >= 0 ? QString::fromStdString(w.chip.subs[size_t(startedOn[i])].name)
                                                        : QStringLiteral("\u2014")));
        if (startedOn[i] >= 0)
            for (int col = 0; col < m_ready->columnCount(); ++col) {
                QFont f = m_ready->item(row, col)->font();
                f.setBold(true);
                m_ready->item(row, col)->setFont(f);
            }
        rows << QStringLiteral("r%1 %2 L%3").arg(r.request).arg(QString::fromStdString(net.name)).arg(r.layer + 1);
    }
    for (const SubAccel& s : w.chip.subs)
        cols << QStringLiteral("%1 %2").arg(QString::fromStdString(s.name), QString::fromLatin1(toString(s.dataflow)));
    const int R = int(c.ready.size()), S = int(w.chip.subs.size());
    std::vector<float> v = c.scores;
    if (v.size() != size_t(R) * size_t(S))
        v.assign(size_t(R) * size_t(S), NAN);
    m_heat->setMatrix(R, S, std::move(v), rows, cols);
    m_heat->setColorRange(0, 1);
    m_heat->setTitle(tr("Cycle %1 (%2): layer \u00d7 sub-accelerator score").arg(m_cycle + 1).arg(QString::fromStdString(run.policy)));
    m_heat->setToolTip(tr("Each ready layer's best isolated latency divided by its latency on that sub-accelerator: "
                          "1 = its fastest dataflow, lower = slower there, 0 = busy this cycle."));
    m_teaching->setPlainText(teachingText());
    statusBar()->showMessage(tr("%1 · cycle %2 of %3 at %4 · %5 ready, %6 started")
                                 .arg(QString::fromStdString(run.policy))
                                 .arg(m_cycle + 1)
                                 .arg(run.cycles.size())
                                 .arg(accelTime(c.now))
                                 .arg(c.ready.size())
                                 .arg(c.assignments.size()));
}

QString AccelWindow::teachingText() const
{
    if (m_policy < 0 || m_cycle < 0)
        return {};
    const StudioRun& run = *m_runs[size_t(m_policy)];
    const CycleRecord& c = run.cycles[size_t(m_cycle)];
    return QString::fromStdString(explainCycle(m_scenario->workload, *m_cost, c, run.policy, m_cycle + 1)) +
           QStringLiteral("\n\n") + tr("How %1 decides: %2").arg(QString::fromStdString(run.policy),
                                                               QString::fromStdString(accelPolicyRule(run.policy)));
}

bool AccelWindow::showView(const QString& name)
{
    if (name == QLatin1String("cycle"))
        m_tabs->setCurrentIndex(0);
    else if (name == QLatin1String("compare"))
        m_tabs->setCurrentIndex(1);
    else if (name == QLatin1String("teaching"))
        m_tabs->setCurrentIndex(2);
    else if (name == QLatin1String("gantt"))
        m_gantt->setFocus();
    else if (name == QLatin1String("chip"))
        findChild<QDockWidget*>(QStringLiteral("dock-chip"))->raise();
    else
        return false;
    return true;
}

QString AccelWindow::provenance() const
{
    if (!m_scenario)
        return {};
    QString s = tr("accelerator scenario %1 (chip %2, %3 requests, seed %4)")
                    .arg(QString::fromStdString(m_scenario->name), QString::fromStdString(m_scenario->workload.chip.name))
                    .arg(m_scenario->workload.requests.size())
                    .arg(m_scenario->sim.seed);
    if (m_policy >= 0)
        s += tr("; shown: %1").arg(QString::fromStdString(m_runs[size_t(m_policy)]->policy));
    return s;
}

} // namespace ss::ui
