#pragma once
// The Teaching mode dock: the current decision in plain words (teaching.h). The text is laid out only
// while the dock can be seen, or when asked for: on big runs it costs more than the rest of a step.
#include <QWidget>

#include "runentry.h"

class QTextBrowser;

namespace ss::ui {

class TeachingPanel : public QWidget {
    Q_OBJECT
public:
    explicit TeachingPanel(QWidget* parent = nullptr);

    /// Explains decision `k` of `run` (null or k < 0: a hint to run first); deferred while hidden.
    void showDecision(RunPtr run, int k);
    /// The explanation as plain text, brought up to date first.
    QString text();

Q_SIGNALS:
    void stepRequested(int delta);
    void caseStudyRequested(); ///< open and run the DAS case study
    void forkRequested();      ///< "What if?": fork the run here with another policy (the Fork dock shows the outcome)

protected:
    void showEvent(QShowEvent* e) override;

private:
    void render();

    RunPtr m_run;
    int m_decision = -1;
    bool m_dirty = false; ///< the text is behind the current decision (panel hidden)
    QTextBrowser* m_text = nullptr;
};

} // namespace ss::ui
