#pragma once
// The Run history dock: every run of the session (and of the project database when one is open), to
// open in the stepper, rename, delete, export or tick for Compare.
#include <QWidget>

#include "runentry.h"

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace ss::ui {

class ExportMenus;
class RunHistoryModel;

class HistoryPanel : public QWidget {
    Q_OBJECT
public:
    HistoryPanel(RunHistoryModel* history, ExportMenus* exports, QWidget* parent = nullptr);

public Q_SLOTS:
    void setDatabaseText(const QString& text);

Q_SIGNALS:
    /// Open `run` in the stepper; `showMap`: bring the cluster map to the front too.
    void openRequested(const ss::ui::RunPtr& run, bool showMap);
    void removeRequested(int row); ///< a row of the history model
    void compareRequested();
    void error(const QString& message);

private:
    int currentRow() const; ///< the history model's row of the table's current index, or -1
    void exportRunJobs(const RunPtr& run);

    RunHistoryModel* m_history;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_dbLabel = nullptr;
};

} // namespace ss::ui
