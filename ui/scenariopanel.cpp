#include "scenariopanel.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QUndoStack>

#include <algorithm>

#include "clusterdocument.h"
#include "io/traceio.h"
#include "perf/perfmodel.h"
#include "policy/registry.h"
#include "viewhelpers.h"

namespace ss::ui {

namespace {
// Marks the group titles of the policy list (not policies: not checkable, hidden while filtering).
constexpr int kGroupHeaderRole = Qt::UserRole + 7;
} // namespace


ScenarioPanel::ScenarioPanel(ClusterDocument* cluster, QWidget* parent) : QWidget(parent), m_clusterDoc(cluster)
{
    auto* w = this;
    auto* form = new QFormLayout(w);
    m_nameEdit = new QLineEdit(w);
    form->addRow(tr("Name"), m_nameEdit);

    m_traceEdit = new QLineEdit(w);
    m_traceEdit->setObjectName(QStringLiteral("traceEdit"));
    m_traceEdit->setReadOnly(true);
    m_traceEdit->setPlaceholderText(tr("no trace — load or drop one"));
    auto* browse = new QToolButton(w);
    browse->setText(QStringLiteral("…"));
    connect(browse, &QToolButton::clicked, this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Load trace"));
        if (!p.isEmpty())
            Q_EMIT traceChosen(p);
    });
    auto* traceRow = new QWidget(w);
    auto* tl = new QHBoxLayout(traceRow);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->addWidget(m_traceEdit, 1);
    tl->addWidget(browse);
    form->addRow(tr("Trace"), traceRow);

    m_clusterLabel = new QLabel(w);
    m_clusterLabel->setObjectName(QStringLiteral("clusterLabel"));
    m_clusterLabel->setWordWrap(true);
    form->addRow(tr("Cluster"), m_clusterLabel);

    m_perfEdit = new QLineEdit(w);
    m_perfEdit->setToolTip(tr("Performance model: 'ideal' or key=value,… e.g. cross_machine=0.1,interference=0.05,"
                              "fluctuation_sd=0.05"));
    connect(m_perfEdit, &QLineEdit::editingFinished, this, [this] {
        try {
            PerfConfig::parse(m_perfEdit->text().toStdString());
            m_perfEdit->setStyleSheet(QString());
            m_perfEdit->setToolTip(QString());
        } catch (const std::exception& e) {
            m_perfEdit->setStyleSheet(QStringLiteral("QLineEdit { border: 1px solid #c9372c; }"));
            m_perfEdit->setToolTip(QString::fromUtf8(e.what()));
        }
    });
    form->addRow(tr("Perf model"), m_perfEdit);

    m_policyFilter = new QLineEdit(w);
    m_policyFilter->setPlaceholderText(tr("filter policies…"));
    m_policyFilter->setClearButtonEnabled(true);
    m_policyList = new QListWidget(w);
    m_policyList->setObjectName(QStringLiteral("policyList"));
    m_catalog = policyCatalog();
    rebuildPolicyList({});
    connect(m_policyFilter, &QLineEdit::textChanged, this, [this](const QString& t) {
        for (int i = 0; i < m_policyList->count(); ++i) {
            QListWidgetItem* it = m_policyList->item(i);
            it->setHidden(it->data(kGroupHeaderRole).toBool() ? !t.isEmpty() : !it->text().contains(t, Qt::CaseInsensitive));
        }
    });
    connect(m_policyList, &QListWidget::itemChanged, this, &ScenarioPanel::refreshPolicyCount);
    m_policyCountLabel = new QLabel(w);
    m_policyCountLabel->setObjectName(QStringLiteral("policyCount"));
    refreshPolicyCount();
    form->addRow(m_policyCountLabel, m_policyFilter);
    form->addRow(m_policyList);

    m_seedSpin = new QSpinBox(w);
    m_seedSpin->setRange(0, 1 << 30);
    m_seedsSpin = new QSpinBox(w);
    m_seedsSpin->setRange(1, 100);
    m_seedsSpin->setToolTip(tr("Runs per policy with seeds seed, seed+1, … (error bars in Compare)"));
    form->addRow(tr("Seed"), m_seedSpin);
    form->addRow(tr("Seeds per policy"), m_seedsSpin);
    m_backfillCheck = new QCheckBox(tr("Backfill (try later jobs when one does not fit)"), w);
    form->addRow(m_backfillCheck);

    connect(m_nameEdit, &QLineEdit::textChanged, this, &ScenarioPanel::fieldEdited);
    connect(m_perfEdit, &QLineEdit::textChanged, this, &ScenarioPanel::fieldEdited);
    connect(m_policyList, &QListWidget::itemChanged, this, &ScenarioPanel::fieldEdited);
    connect(m_seedSpin, &QSpinBox::valueChanged, this, &ScenarioPanel::fieldEdited);
    connect(m_seedsSpin, &QSpinBox::valueChanged, this, &ScenarioPanel::fieldEdited);
    connect(m_backfillCheck, &QCheckBox::toggled, this, &ScenarioPanel::fieldEdited);

    auto* runButton = new QPushButton(icon("run"), tr("Run scenario"), w);
    connect(runButton, &QPushButton::clicked, this, &ScenarioPanel::runRequested);
    form->addRow(runButton);
}

void ScenarioPanel::fieldEdited()
{
    // While setScenario() fills the fields nobody may read them (scenario() would take half-set values).
    if (!m_filling)
        Q_EMIT edited();
}

void ScenarioPanel::setScenario(const Scenario& s, const QString& path)
{
    m_filling = true;
    m_scenario = s;
    m_path = path;
    m_nameEdit->setText(m_scenario.name);
    setTracePath(m_scenario.tracePath);
    m_perfEdit->setText(m_scenario.perf);
    rebuildPolicyList(m_scenario.policies);
    m_seedSpin->setValue(int(m_scenario.seed));
    m_seedsSpin->setValue(m_scenario.seeds);
    m_backfillCheck->setChecked(m_scenario.backfill);
    refreshClusterLabel();
    m_filling = false;
    Q_EMIT edited();
}

Scenario ScenarioPanel::scenario() const
{
    m_scenario.name = m_nameEdit->text();
    m_scenario.perf = m_perfEdit->text().trimmed().isEmpty() ? QStringLiteral("ideal") : m_perfEdit->text().trimmed();
    QStringList pol;
    for (int i = 0; i < m_policyList->count(); ++i)
        if (m_policyList->item(i)->checkState() == Qt::Checked)
            pol << m_policyList->item(i)->text();
    m_scenario.policies = pol;
    m_scenario.seed = quint64(m_seedSpin->value());
    m_scenario.seeds = m_seedsSpin->value();
    m_scenario.backfill = m_backfillCheck->isChecked();
    // An edited cluster travels inline; undoing back to the one the scenario names gives the source again.
    Scenario s = m_scenario;
    if (!m_clusterDoc->undoStack()->isClean()) {
        s.clusterSource = Scenario::ClusterSource::Inline;
        s.clusterJson = QString::fromStdString(clusterToJson(m_clusterDoc->spec()));
    }
    return s;
}

void ScenarioPanel::markSaved(const Scenario& s, const QString& path)
{
    m_scenario = s;
    m_path = path;
}

void ScenarioPanel::setTracePath(const QString& path)
{
    m_scenario.tracePath = path;
    m_traceEdit->setText(path);
    m_traceEdit->setToolTip(path);
    fieldEdited();
}

void ScenarioPanel::setTraceInput(const QString& path, const QString& format,
                                  const std::map<std::string, std::string>& columns, const QString& timeFormat)
{
    m_scenario.traceFormat = format.isEmpty() ? QStringLiteral("auto") : format;
    m_scenario.core.traceColumns = columns;
    m_scenario.core.traceTimeFormat = timeFormat.toStdString();
    setTracePath(path);
}

void ScenarioPanel::setClusterSource(const QString& pathOrPreset, bool isFile)
{
    if (isFile) {
        m_scenario.clusterSource = Scenario::ClusterSource::File;
        m_scenario.clusterPath = pathOrPreset;
    } else {
        m_scenario.clusterSource = Scenario::ClusterSource::Preset;
        m_scenario.clusterPreset = pathOrPreset;
    }
    fieldEdited();
}

namespace {
/// The heading a policy is listed under: learned ones, each system's joint policies, and the ordering +
/// placement pairs by their ordering (fifo + …, las + …), so a 50-entry list reads in short runs.
QString policyGroupTitle(const PolicyInfo& info)
{
    const QString name = QString::fromStdString(info.name);
    if (info.group == "learned")
        return ScenarioPanel::tr("Learned: DAS and its baselines");
    if (info.group == "joint") {
        if (name.startsWith(QLatin1String("gavel-")))
            return ScenarioPanel::tr("Gavel: LPs over GPU types");
        if (name == QLatin1String("chronus") || name == QLatin1String("oasis"))
            return ScenarioPanel::tr("Admission: Chronus, OASiS");
        return ScenarioPanel::tr("Joint: order + place");
    }
    const int plus = name.indexOf(QLatin1Char('+'));
    return ScenarioPanel::tr("Order by %1, then place").arg(plus > 0 ? name.left(plus) : name);
}
} // namespace

void ScenarioPanel::rebuildPolicyList(const QStringList& first)
{
    // The scenario's policies come first, in its order (scenario() lists them in list order), so the choice is
    // seen without scrolling; every other policy under its heading, each with its description and knobs.
    const QSignalBlocker block(m_policyList);
    m_policyList->clear();
    auto addHeader = [this](const QString& title) {
        auto* header = new QListWidgetItem(title, m_policyList);
        header->setFlags(Qt::ItemIsEnabled); // not selectable nor checkable, but drawn in the normal colour
        header->setData(kGroupHeaderRole, true);
        QFont f = header->font();
        f.setBold(true);
        header->setFont(f);
    };
    auto addPolicy = [this](const PolicyInfo& info, bool checked) {
        auto* it = new QListWidgetItem(QString::fromStdString(info.name), m_policyList);
        it->setFlags(it->flags() | Qt::ItemIsUserCheckable);
        it->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
        QString tip = QStringLiteral("<b>%1</b> (%2)<br>%3").arg(QString::fromStdString(info.name).toHtmlEscaped(),
                                                               QString::fromStdString(info.group),
                                                               QString::fromStdString(info.description).toHtmlEscaped());
        for (const ParamSpec& p : info.params)
            tip += QStringLiteral("<br><code>%1</code> = %2: %3")
                       .arg(QString::fromStdString(p.key), QString::fromStdString(p.dflt.empty() ? "(default)" : p.dflt).toHtmlEscaped(),
                            QString::fromStdString(p.help).toHtmlEscaped());
        it->setToolTip(tip);
    };
    QStringList shown;
    for (const QString& name : first)
        for (const PolicyInfo& info : m_catalog)
            if (QString::fromStdString(info.name) == name && !shown.contains(name)) {
                if (shown.isEmpty())
                    addHeader(tr("In this scenario"));
                addPolicy(info, true);
                shown << name;
            }
    // headings in a fixed order: learned, the joint systems, then the orderings alphabetically
    std::vector<std::pair<int, QString>> order;
    for (const PolicyInfo& info : m_catalog) {
        const QString t = policyGroupTitle(info);
        const int rank = info.group == "learned" ? 0 : info.group == "joint" ? 1 : 2;
        if (std::find(order.begin(), order.end(), std::pair{rank, t}) == order.end())
            order.emplace_back(rank, t);
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [rank, title] : order) {
        bool headed = false;
        for (const PolicyInfo& info : m_catalog) {
            const QString name = QString::fromStdString(info.name);
            if (shown.contains(name) || policyGroupTitle(info) != title)
                continue;
            if (!headed)
                addHeader(title);
            headed = true;
            addPolicy(info, false);
        }
    }
    if (m_policyFilter && !m_policyFilter->text().isEmpty())
        Q_EMIT m_policyFilter->textChanged(m_policyFilter->text());
    refreshPolicyCount();
}

void ScenarioPanel::refreshPolicyCount()
{
    if (!m_policyCountLabel)
        return;
    int ticked = 0, all = 0;
    for (int i = 0; i < m_policyList->count(); ++i) {
        const QListWidgetItem* it = m_policyList->item(i);
        if (it->data(kGroupHeaderRole).toBool())
            continue;
        ++all;
        ticked += it->checkState() == Qt::Checked;
    }
    m_policyCountLabel->setText(tr("Policies\n%1 of %2 ticked").arg(ticked).arg(all));
}

QString ScenarioPanel::tickedCountText() const { return m_policyCountLabel ? m_policyCountLabel->text() : QString(); }

bool ScenarioPanel::hasPolicy(const QString& name) const
{
    for (QListWidgetItem* it : m_policyList->findItems(name, Qt::MatchExactly))
        if (!it->data(kGroupHeaderRole).toBool())
            return true;
    return false;
}

QStringList ScenarioPanel::missingPolicies(const Scenario& s) const
{
    QStringList missing;
    for (const QString& p : s.policies)
        if (!hasPolicy(p))
            missing << p;
    return missing;
}

QString ScenarioPanel::clusterLabel() const
{
    const ClusterSpec& c = m_clusterDoc->spec();
    QString s = QStringLiteral("%1 — %2 machines, %3 GPUs")
                    .arg(QString::fromStdString(c.name)).arg(c.machineCount()).arg(c.totalGpus());
    if (!m_clusterDoc->undoStack()->isClean())
        s += tr(" (edited)");
    return s;
}

void ScenarioPanel::refreshClusterLabel()
{
    m_clusterLabel->setText(clusterLabel());
}

} // namespace ss::ui
