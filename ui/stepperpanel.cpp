#include "stepperpanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSlider>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

#include "dasview.h"
#include "models.h"
#include "chronusview.h"
#include "oasisview.h"
#include "viewhelpers.h"

namespace ss::ui {

int StepperPanel::heightForRows(int rows) const
{
    // from the size hints, so it holds before the panel is first laid out
    const QLayout* l = layout();
    const QMargins m = l->contentsMargins();
    int h = m.top() + m.bottom();
    int shown = 0;
    for (int i = 0; i < l->count(); ++i) {
        QWidget* w = l->itemAt(i)->widget();
        if (!w || w->isHidden())
            continue;
        ++shown;
        h += w == m_queueTable ? m_queueTable->horizontalHeader()->sizeHint().height() + 2 * m_queueTable->frameWidth() +
                                     rows * m_queueTable->verticalHeader()->defaultSectionSize()
                               : w->sizeHint().height();
    }
    return h + std::max(0, shown - 1) * l->spacing();
}

QSize StepperPanel::sizeHint() const
{
    return {QWidget::sizeHint().width(), heightForRows(8)};
}

StepperPanel::StepperPanel(ExportMenus* exports, QWidget* parent) : QWidget(parent)
{
    auto* w = this;
    auto* v = new QVBoxLayout(w);
    auto mkButton = [w](const char* ic, const QString& tip) {
        auto* b = new QPushButton(icon(ic), QString(), w);
        b->setToolTip(tip);
        b->setFocusPolicy(Qt::NoFocus);
        return b;
    };
    auto* firstB = mkButton("first", tr("First decision (Home)"));
    auto* back = mkButton("step-back", tr("Step back (←)"));
    m_playButton = mkButton("play", tr("Play / pause (Space)"));
    m_playButton->setCheckable(true);
    auto* fwd = mkButton("step-forward", tr("Step forward (→)"));
    auto* lastB = mkButton("last", tr("Last decision (End)"));
    // Between two rounds (Gavel) or two placements most decisions only record arrivals and finishes: these two
    // skip to the previous / next one that decided something.
    auto* backSched = new QPushButton(tr("‹ decided"), w);
    backSched->setToolTip(tr("Previous decision that placed, preempted, allocated or rejected a job (Shift+←)"));
    backSched->setFocusPolicy(Qt::NoFocus);
    backSched->setObjectName(QStringLiteral("stepperPrevDecided"));
    auto* fwdSched = new QPushButton(tr("decided ›"), w);
    fwdSched->setToolTip(tr("Next decision that placed, preempted, allocated or rejected a job, e.g. the next Gavel "
                            "round (Shift+→)"));
    fwdSched->setFocusPolicy(Qt::NoFocus);
    fwdSched->setObjectName(QStringLiteral("stepperNextDecided"));
    m_speedCombo = new QComboBox(w);
    for (int s : {1, 2, 5, 10, 25, 100})
        m_speedCombo->addItem(tr("%1 / s").arg(s), s);
    m_speedCombo->setCurrentIndex(2);
    m_speedCombo->setToolTip(tr("Playback speed: decisions per second"));
    m_runCombo = new QComboBox(w);
    m_runCombo->setMinimumWidth(220);
    m_runCombo->setToolTip(tr("Run to step through"));
    m_gotoTimeEdit = new QLineEdit(w);
    m_gotoTimeEdit->setPlaceholderText(tr("go to time (min)"));
    m_gotoTimeEdit->setMaximumWidth(130);
    m_gotoJobEdit = new QLineEdit(w);
    m_gotoJobEdit->setPlaceholderText(tr("go to job id"));
    m_gotoJobEdit->setMaximumWidth(110);
    v->addWidget(hbox({new QLabel(tr("Run:"), w), m_runCombo, firstB, back, m_playButton, fwd, lastB, backSched, fwdSched, m_speedCombo,
                       m_gotoTimeEdit, m_gotoJobEdit}, w));
    m_slider = new QSlider(Qt::Horizontal, w);
    m_slider->setRange(0, 0);
    m_slider->setFocusPolicy(Qt::NoFocus);
    m_decisionLabel = new QLabel(tr("No run yet."), w);
    auto* sl = new QWidget(w);
    auto* sh = new QHBoxLayout(sl);
    sh->setContentsMargins(0, 0, 0, 0);
    sh->addWidget(m_slider, 1);
    sh->addWidget(m_decisionLabel);
    m_decisionLabel->setMinimumWidth(380);
    v->addWidget(sl);
    // The admission stage's verdicts at this decision, one line per job with its reason (e.g. OASiS's payoff
    // breakdown): rejected jobs never reach the queue table, and admitted ones may start at once.
    m_admissionLabel = new QLabel(w);
    m_admissionLabel->setObjectName(QStringLiteral("stepperAdmissions"));
    m_admissionLabel->setWordWrap(true);
    m_admissionLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_admissionLabel->hide();
    v->addWidget(m_admissionLabel);
    m_queueModel = new QueueModel(this);
    m_queueTable = makeTable(w);
    m_queueTable->setObjectName(QStringLiteral("stepperQueue"));
    m_gateColumn = new GateColumnModel(m_queueModel, QueueModel::PriorityStd, this); // DAS's δ column (dasview.h)
    m_queueTable->setModel(m_gateColumn);
    // a queued job dragged onto a machine of the cluster map forks the run with it started there
    m_queueTable->setDragEnabled(true);
    m_queueTable->setDragDropMode(QAbstractItemView::DragOnly);
    exports->installTableExport(m_queueTable);
    // The queue is what the stepper is for: it never shrinks below three rows (it showed two under the docks);
    // the default layout gives the stepper a third of the window (MainWindow::fitDefaultLayout).
    m_queueTable->setMinimumHeight(kMinQueueRows * m_queueTable->verticalHeader()->defaultSectionSize() +
                                   m_queueTable->horizontalHeader()->sizeHint().height() + 2 * m_queueTable->frameWidth() + 2);
    v->addWidget(m_queueTable, 1);

    m_playTimer = new QTimer(this);
    connect(m_playTimer, &QTimer::timeout, this, [this] {
        if (m_decision + 1 >= decisionCount()) {
            m_playButton->setChecked(false);
            return;
        }
        setDecision(m_decision + 1);
    });
    auto interval = [this] { return std::max(10, 1000 / m_speedCombo->currentData().toInt()); };
    connect(m_playButton, &QPushButton::toggled, this, [this, interval](bool on) {
        m_playButton->setIcon(icon(on ? "pause" : "play"));
        if (on) {
            if (m_decision + 1 >= decisionCount())
                setDecision(0);
            m_playTimer->start(interval());
        } else {
            m_playTimer->stop();
        }
    });
    connect(m_speedCombo, &QComboBox::currentIndexChanged, this, [this, interval] { m_playTimer->setInterval(interval()); });
    connect(firstB, &QPushButton::clicked, this, &StepperPanel::first);
    connect(back, &QPushButton::clicked, this, [this] { step(-1); });
    connect(fwd, &QPushButton::clicked, this, [this] { step(1); });
    connect(lastB, &QPushButton::clicked, this, &StepperPanel::last);
    connect(backSched, &QPushButton::clicked, this, [this] { stepScheduled(-1); });
    connect(fwdSched, &QPushButton::clicked, this, [this] { stepScheduled(1); });
    connect(m_slider, &QSlider::valueChanged, this, [this](int k) {
        if (k != m_decision)
            setDecision(k);
    });
    connect(m_gotoTimeEdit, &QLineEdit::returnPressed, this, [this] {
        bool ok = false;
        const double t = m_gotoTimeEdit->text().toDouble(&ok);
        if (ok)
            gotoTime(t * 60);
        else
            Q_EMIT error(tr("Go to time: '%1' is not a number of minutes").arg(m_gotoTimeEdit->text()));
    });
    connect(m_gotoJobEdit, &QLineEdit::returnPressed, this, [this] {
        bool ok = false;
        const qint64 id = m_gotoJobEdit->text().toLongLong(&ok);
        if (ok)
            gotoJob(id);
        else
            Q_EMIT error(tr("Go to job: '%1' is not a job id").arg(m_gotoJobEdit->text()));
    });
    connect(m_runCombo, &QComboBox::activated, this,
            [this](int i) { Q_EMIT runActivated(m_runCombo->itemData(i).toInt()); });
    connect(m_queueTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
        if (cur.isValid())
            Q_EMIT jobSelected(cur.data(JobIndexRole).toInt());
    });
}

StepperPanel::~StepperPanel() = default;

int StepperPanel::decisionCount() const
{
    return m_current && m_current->out->log ? int(m_current->out->log->records.size()) : 0;
}

void StepperPanel::setRun(RunPtr run)
{
    m_playButton->setChecked(false);
    m_current = std::move(run);
    m_replayer.reset();
    if (m_current && m_current->out->log)
        m_replayer = std::make_unique<Replayer>(*m_current->out->log);
    if (m_current)
        m_runCombo->setCurrentIndex(m_runCombo->findData(m_current->id));
    m_queueModel->setScoreMeaning(m_current ? priorityMeaning(m_current->policy()) : QString());
    m_slider->setRange(0, std::max(0, decisionCount() - 1));
    Q_EMIT runChanged();
    setDecision(decisionCount() > 0 ? 0 : -1);
}

void StepperPanel::replaceRun(const RunPtr& run)
{
    if (m_current && run && m_current->id == run->id)
        m_current = run; // same output: the replayer stays valid
}

void StepperPanel::setRunList(const QVector<RunPtr>& runs)
{
    QSignalBlocker b(m_runCombo);
    m_runCombo->clear();
    for (const RunPtr& r : runs)
        m_runCombo->addItem(r->name, r->id);
    if (m_current)
        m_runCombo->setCurrentIndex(m_runCombo->findData(m_current->id));
}

void StepperPanel::step(int delta)
{
    setDecision(std::max(0, m_decision + delta));
}

bool StepperPanel::decidedSomething(const DecisionRecord& r)
{
    if (!r.preempted.empty() || !r.allocation.empty())
        return true;
    for (const PlacementRecord& p : r.placements)
        if (!p.slots.empty())
            return true;
    for (const AdmissionRecord& a : r.admissions)
        if (a.verdict != Admit::Accept)
            return true;
    return false;
}

void StepperPanel::stepScheduled(int dir)
{
    const int n = decisionCount();
    if (n == 0 || dir == 0)
        return;
    const auto& recs = m_current->out->log->records;
    for (int k = m_decision + (dir > 0 ? 1 : -1); k >= 0 && k < n; k += dir > 0 ? 1 : -1)
        if (decidedSomething(recs[size_t(k)])) {
            setDecision(k);
            return;
        }
}

void StepperPanel::togglePlay()
{
    m_playButton->click();
}

void StepperPanel::gotoTime(double t)
{
    if (!decisionCount())
        return;
    const auto& recs = m_current->out->log->records;
    auto it = std::lower_bound(recs.begin(), recs.end(), t, [](const DecisionRecord& r, double v) { return r.time < v; });
    setDecision(std::min(int(it - recs.begin()), int(recs.size()) - 1));
}

void StepperPanel::gotoJob(qint64 id)
{
    if (!decisionCount())
        return;
    const Trace& tr_ = *m_current->trace;
    int job = -1;
    for (size_t i = 0; i < tr_.jobs.size(); ++i)
        if (tr_.jobs[i].id == id)
            job = int(i);
    if (job < 0) {
        Q_EMIT error(tr("Go to job: no job with id %1 in this trace").arg(id));
        return;
    }
    const auto& recs = m_current->out->log->records;
    int arrived = -1;
    for (size_t k = 0; k < recs.size(); ++k) {
        for (const PlacementRecord& p : recs[k].placements)
            if (p.job == job && !p.slots.empty()) {
                setDecision(int(k));
                Q_EMIT jobSelected(job);
                return;
            }
        if (arrived < 0 && std::find(recs[k].arrived.begin(), recs[k].arrived.end(), job) != recs[k].arrived.end())
            arrived = int(k);
    }
    if (arrived >= 0)
        setDecision(arrived);
    Q_EMIT jobSelected(job);
}

// The admission stage at one decision in the label: how many arriving jobs each verdict got (the list below the
// slider gives each job's reason).
static QString admissionSummary(const DecisionRecord& r)
{
    if (r.admissions.empty())
        return {};
    int n[3] = {0, 0, 0};
    for (const AdmissionRecord& a : r.admissions)
        ++n[std::min(2, int(a.verdict))];
    QString s = QObject::tr(" · admission: %1 accepted").arg(n[0]);
    if (n[1])
        s += QObject::tr(", %1 rejected").arg(n[1]);
    if (n[2])
        s += QObject::tr(", %1 deferred").arg(n[2]);
    return s;
}

void StepperPanel::setDecision(int k)
{
    const int n = decisionCount();
    if (n == 0) {
        m_decision = -1;
        m_decisionLabel->setText(m_current ? tr("This run has no decision log.") : tr("No run yet: press Run."));
        m_gateColumn->setDecision(nullptr, -1);
        m_queueModel->setDecision(nullptr, nullptr, -1);
        m_admissionLabel->hide();
        Q_EMIT decisionChanged(-1);
        return;
    }
    k = std::clamp(k, 0, n - 1);
    m_decision = k;
    const DecisionRecord& r = m_current->out->log->records[size_t(k)];
    const bool chronus = isChronusPolicy(m_current->policy());
    m_replayer->seek(k);
    {
        QSignalBlocker b(m_slider);
        m_slider->setValue(k);
    }
    m_decisionLabel->setText(tr("Decision %1 / %2 · t = %3 · %4 arrived · %5 finished · %6 placed")
                                 .arg(k + 1).arg(n).arg(formatDuration(r.time)).arg(r.arrived.size())
                                 .arg(r.finished.size())
                                 .arg(std::count_if(r.placements.begin(), r.placements.end(),
                                                    [](const PlacementRecord& p) { return !p.slots.empty(); }))
                             + (chronus ? chronusAdmissionSummary(r) : admissionSummary(r)));
    // Chronus: the lease boundary's plan and each verdict in its own words (its engine verdict is always accept)
    QStringList lines = chronus ? chronusStepperLines(r, *m_current->trace) : admissionLines(r, *m_current->trace);
    if (lines.size() > 8) {
        const int more = int(lines.size()) - 7;
        lines = lines.mid(0, 7);
        lines << tr("… and %1 more").arg(more);
    }
    m_admissionLabel->setText(lines.join(QLatin1Char('\n')));
    m_admissionLabel->setVisible(!lines.isEmpty());
    int freeGpus = 0; // whole GPUs nobody holds once this decision is applied
    for (const auto& h : m_replayer->holders())
        freeGpus += h.empty() ? 1 : 0;
    m_gateColumn->setDecision(m_current->out->log, k);
    m_queueModel->setDecision(m_current->trace, m_current->out->log, k, freeGpus);
    Q_EMIT decisionChanged(k);
}

} // namespace ss::ui
