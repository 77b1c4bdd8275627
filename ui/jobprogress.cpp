#include "jobprogress.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>

#include "runcontroller.h"
#include "viewhelpers.h"

namespace ss::ui {

JobProgress::JobProgress(RunController* runs, QWidget* parent) : QWidget(parent)
{
    auto* l = new QHBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    m_bar = new QProgressBar(this);
    m_bar->setRange(0, 1000);
    m_bar->setMaximumWidth(220);
    auto* stop = new QToolButton(this);
    stop->setIcon(icon("stop"));
    stop->setText(tr("Stop"));
    stop->setToolTip(tr("Stop the running job (Esc)"));
    stop->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_live = new QLabel(this);
    m_live->setObjectName(QStringLiteral("runLiveStatus"));
    l->addWidget(m_live);
    l->addWidget(m_bar);
    l->addWidget(stop);
    setVisible(false);
    connect(stop, &QToolButton::clicked, runs, &RunController::cancel);
    connect(runs, &RunController::liveStatus, m_live, &QLabel::setText);
    connect(runs, &RunController::jobStarted, this, [this] {
        m_live->clear();
        m_bar->setValue(0);
        setVisible(true);
    });
    connect(runs, &RunController::progress, this, [this](double f) { m_bar->setValue(int(f * 1000)); });
    connect(runs, &RunController::jobEnded, this, [this, runs] {
        if (!runs->isLoading() && !runs->isRunning())
            setVisible(false);
    });
}

} // namespace ss::ui
