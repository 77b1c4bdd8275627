#include "historypanel.h"

#include <QFileDialog>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "exporthelpers.h"
#include "models.h"
#include "viewhelpers.h"

namespace ss::ui {

HistoryPanel::HistoryPanel(RunHistoryModel* history, ExportMenus* exports, QWidget* parent)
    : QWidget(parent), m_history(history)
{
    auto* w = this;
    auto* v = new QVBoxLayout(w);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_history);
    m_proxy->setSortRole(SortRole);
    m_table = makeTable(w);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    exports->installTableExport(m_table, [this] {
        const int n = m_proxy->rowCount();
        return n == 1 ? tr("Run history: 1 run") : tr("Run history: %1 runs").arg(n);
    });
    connect(m_history, &QAbstractItemModel::rowsInserted, m_table, [this] { m_table->resizeColumnsToContents(); });
    auto* open = new QPushButton(tr("Open in stepper"), w);
    auto* rename = new QPushButton(tr("Rename…"), w);
    auto* del = new QPushButton(tr("Delete"), w);
    auto* exp = new QPushButton(icon("export"), tr("Export jobs CSV…"), w);
    auto* compare = new QPushButton(tr("Compare ticked"), w);
    m_dbLabel = new QLabel(w);
    m_dbLabel->setWordWrap(true);
    m_dbLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    v->addWidget(m_dbLabel);
    v->addWidget(hbox({open, rename, del, exp, compare}, w));
    v->addWidget(m_table, 1);
    connect(open, &QPushButton::clicked, this, [this] {
        if (currentRow() >= 0)
            Q_EMIT openRequested(m_history->run(currentRow()), true);
    });
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
        if (i.column() != RunHistoryModel::Name)
            Q_EMIT openRequested(m_history->run(m_proxy->mapToSource(i).row()), false);
    });
    connect(rename, &QPushButton::clicked, this, [this] {
        const int r = currentRow();
        if (r < 0)
            return;
        bool ok = false;
        const QString n = QInputDialog::getText(this, tr("Rename run"), tr("Name"), QLineEdit::Normal,
                                                m_history->run(r)->name, &ok);
        if (ok)
            m_history->setData(m_history->index(r, RunHistoryModel::Name), n, Qt::EditRole);
    });
    connect(del, &QPushButton::clicked, this, [this] {
        if (currentRow() >= 0)
            Q_EMIT removeRequested(currentRow());
    });
    connect(exp, &QPushButton::clicked, this, [this] {
        if (currentRow() >= 0)
            exportRunJobs(m_history->run(currentRow()));
    });
    connect(compare, &QPushButton::clicked, this, &HistoryPanel::compareRequested);
}

int HistoryPanel::currentRow() const
{
    const QModelIndex i = m_table->currentIndex();
    return i.isValid() ? m_proxy->mapToSource(i).row() : -1;
}

void HistoryPanel::setDatabaseText(const QString& text)
{
    m_dbLabel->setText(text);
}

void HistoryPanel::exportRunJobs(const RunPtr& run)
{
    const QString p = QFileDialog::getSaveFileName(this, tr("Export job results"), run->name + QStringLiteral(".csv"),
                                                   tr("CSV (*.csv)"));
    if (p.isEmpty())
        return;
    JobTableModel model;
    model.setTrace(run->trace, run->out);
    QString err;
    if (!TableExport::writeCsv(&model, p, &err,
                               tr("policy %1, seed %2, cluster %3").arg(run->policy()).arg(run->out->seed).arg(run->clusterLabel)))
        Q_EMIT error(err);
}

} // namespace ss::ui
