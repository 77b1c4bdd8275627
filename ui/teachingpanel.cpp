#include "teachingpanel.h"

#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

#include "teaching.h"
#include "viewhelpers.h"

namespace ss::ui {

TeachingPanel::TeachingPanel(QWidget* parent) : QWidget(parent)
{
    auto* w = this;
    auto* v = new QVBoxLayout(w);
    auto* intro = new QLabel(tr("A guided walk through the decisions of the current run: who goes first and "
                                "why, and which machine each job gets and why."), w);
    intro->setWordWrap(true);
    v->addWidget(intro);
    auto* prev = new QPushButton(tr("◀ Previous"), w);
    auto* next = new QPushButton(tr("Next ▶"), w);
    auto* das = new QPushButton(icon("teach"), tr("DAS case study"), w);
    auto* fork = new QPushButton(tr("What if? Fork here"), w);
    fork->setObjectName(QStringLiteral("teachingFork"));
    fork->setToolTip(tr("Rerun this run from the current decision with another policy and show what follows"));
    prev->setFocusPolicy(Qt::NoFocus);
    next->setFocusPolicy(Qt::NoFocus);
    v->addWidget(hbox({prev, next, das, fork}, w));
    m_text = new QTextBrowser(w);
    m_text->setOpenExternalLinks(false);
    v->addWidget(m_text, 1);
    connect(prev, &QPushButton::clicked, this, [this] { Q_EMIT stepRequested(-1); });
    connect(next, &QPushButton::clicked, this, [this] { Q_EMIT stepRequested(1); });
    connect(das, &QPushButton::clicked, this, &TeachingPanel::caseStudyRequested);
    connect(fork, &QPushButton::clicked, this, &TeachingPanel::forkRequested);
    m_text->setHtml(tr("<p>Open the DAS case study and run it; then step with Next or the → key.</p>"));
}

void TeachingPanel::showDecision(RunPtr run, int k)
{
    m_run = std::move(run);
    m_decision = k;
    if (!m_text->isVisible()) {
        m_dirty = true;
        return;
    }
    render();
}

QString TeachingPanel::text()
{
    if (m_dirty)
        render();
    return m_text->toPlainText();
}

void TeachingPanel::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    if (m_dirty)
        QTimer::singleShot(0, this, [this] {
            if (m_dirty)
                render();
        });
}

void TeachingPanel::render()
{
    m_dirty = false;
    if (!m_run || !m_run->out->log || m_decision < 0) {
        m_text->setHtml(tr("<p>Run the scenario first: teaching mode walks through the decisions of a run.</p>"));
        return;
    }
    m_text->setHtml(explainDecision(*m_run->out->log, m_decision, *m_run->trace, *m_run->cluster, m_run->policy()));
}

} // namespace ss::ui
