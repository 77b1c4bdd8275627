#pragma once
// The What-if dock: pick one change (cluster preset, load factor, policy); the window has the
// RunController rerun the original and the change with the same seeds; the panel shows the outcome.
#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;

namespace ss::ui {

class WhatIfPanel : public QWidget {
    Q_OBJECT
public:
    explicit WhatIfPanel(QWidget* parent = nullptr);

public Q_SLOTS:
    void showRunning(const QString& description);
    void showResult(const QString& description, double meanJctBefore, double meanJctAfter);
    /// The scenario's ticked policies: the what-if reruns the first, and says so.
    void setScenarioPolicies(const QStringList& policies);

Q_SIGNALS:
    /// Empty cluster preset / policy: unchanged.
    void whatIfRequested(const QString& clusterPreset, double loadFactor, const QString& policy);

private:
    QComboBox* m_cluster = nullptr;
    QDoubleSpinBox* m_load = nullptr;
    QComboBox* m_policy = nullptr;
    QLabel* m_result = nullptr;
    QLabel* m_base = nullptr; ///< which policy the what-if reruns
};

} // namespace ss::ui
