#include "whatifpanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "model/clusterspec.h"
#include "policy/registry.h"
#include "viewhelpers.h"

namespace ss::ui {

WhatIfPanel::WhatIfPanel(QWidget* parent) : QWidget(parent)
{
    auto* w = this;
    auto* v = new QVBoxLayout(w);
    auto* intro = new QLabel(tr("Duplicate the current scenario, change one thing, rerun both with the same seeds, "
                                "and compare the original with the change."), w);
    intro->setWordWrap(true);
    v->addWidget(intro);
    m_base = new QLabel(w);
    m_base->setObjectName(QStringLiteral("whatIfBasePolicy"));
    m_base->setWordWrap(true);
    v->addWidget(m_base);
    auto* form = new QFormLayout;
    m_cluster = new QComboBox(w);
    m_cluster->addItem(tr("(same cluster)"));
    for (const std::string& n : clusterPresetNames())
        m_cluster->addItem(QString::fromStdString(n));
    m_load = new QDoubleSpinBox(w);
    m_load->setRange(0.1, 10);
    m_load->setSingleStep(0.25);
    m_load->setValue(1.0);
    m_load->setSuffix(tr(" × load"));
    m_load->setToolTip(tr("Arrival rate factor: 2 × load submits every job twice as early"));
    m_policy = new QComboBox(w);
    m_policy->addItem(tr("(same policy)"));
    for (const std::string& n : schedulerNames())
        m_policy->addItem(QString::fromStdString(n));
    form->addRow(tr("Cluster"), m_cluster);
    form->addRow(tr("Load"), m_load);
    form->addRow(tr("Policy"), m_policy);
    v->addLayout(form);
    auto* go = new QPushButton(icon("run"), tr("Run what-if and compare"), w);
    v->addWidget(go, 0, Qt::AlignLeft);
    m_result = new QLabel(w);
    m_result->setWordWrap(true);
    m_result->setTextFormat(Qt::RichText);
    v->addWidget(m_result);
    v->addStretch(1);
    connect(go, &QPushButton::clicked, this, [this] {
        Q_EMIT whatIfRequested(m_cluster->currentIndex() == 0 ? QString() : m_cluster->currentText(), m_load->value(),
                               m_policy->currentIndex() == 0 ? QString() : m_policy->currentText());
    });
}

void WhatIfPanel::setScenarioPolicies(const QStringList& policies)
{
    if (policies.isEmpty())
        m_base->setText(tr("Tick a policy in the Scenario panel: the what-if reruns it."));
    else if (policies.size() == 1)
        m_base->setText(tr("Reruns <b>%1</b>, the scenario's policy.").arg(policies.first()));
    else
        m_base->setText(tr("Reruns <b>%1</b>, the first ticked policy; the %n other ticked one(s) are not rerun "
                           "(%2).", nullptr, int(policies.size() - 1))
                            .arg(policies.first(), policies.mid(1).join(QStringLiteral(", "))));
}

void WhatIfPanel::showRunning(const QString& desc)
{
    m_result->setText(tr("Running original and “%1”…").arg(desc));
}

void WhatIfPanel::showResult(const QString& desc, double a, double b)
{
    m_result->setText(tr("<b>%1</b>: mean JCT %2 min → %3 min (%4%5 %). See Compare.")
                          .arg(desc).arg(a, 0, 'f', 1).arg(b, 0, 'f', 1)
                          .arg(b >= a ? QStringLiteral("+") : QString())
                          .arg(a > 0 ? 100 * (b - a) / a : 0.0, 0, 'f', 1));
}

} // namespace ss::ui
