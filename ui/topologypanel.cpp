#include "topologypanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>

#include "clusterdocument.h"
#include "models.h"
#include "topologyeditorview.h"
#include "viewhelpers.h"

namespace ss::ui {

QStringList gpuTypeChoices(const ClusterSpec& spec)
{
    QStringList names;
    for (const GpuType& t : spec.types)
        names << QString::fromStdString(t.name);
    for (const GpuType& t : gpuTypeCatalog())
        if (!names.contains(QString::fromStdString(t.name)))
            names << QString::fromStdString(t.name);
    return names;
}

namespace {

/// The Machines table's GPU-type cell edits with a list of type names (the cluster's, then the catalogue's),
/// not a number box of type indices.
class GpuTypeDelegate : public QStyledItemDelegate {
public:
    GpuTypeDelegate(ClusterDocument* doc, QObject* parent) : QStyledItemDelegate(parent), m_doc(doc) {}
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex&) const override
    {
        auto* c = new QComboBox(parent);
        c->setObjectName(QStringLiteral("gpuTypeEditor"));
        c->addItems(gpuTypeChoices(m_doc->spec()));
        return c;
    }
    void setEditorData(QWidget* editor, const QModelIndex& index) const override
    {
        auto* c = static_cast<QComboBox*>(editor);
        c->setCurrentIndex(std::max(0, c->findText(index.data(Qt::DisplayRole).toString())));
    }
    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override
    {
        model->setData(index, static_cast<QComboBox*>(editor)->currentText(), Qt::EditRole);
    }
private:
    ClusterDocument* m_doc;
};

/// The Machines table's Switch cell edits with a list of the cluster's switch names, not a number box of
/// switch indices.
class SwitchDelegate : public QStyledItemDelegate {
public:
    SwitchDelegate(ClusterDocument* doc, QObject* parent) : QStyledItemDelegate(parent), m_doc(doc) {}
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex&) const override
    {
        auto* c = new QComboBox(parent);
        c->setObjectName(QStringLiteral("switchEditor"));
        for (const ss::Switch& sw : m_doc->spec().switches)
            c->addItem(QString::fromStdString(sw.name));
        return c;
    }
    void setEditorData(QWidget* editor, const QModelIndex& index) const override
    {
        auto* c = static_cast<QComboBox*>(editor);
        const int sw = index.data(Qt::EditRole).toInt();
        c->setCurrentIndex(sw >= 0 && sw < c->count() ? sw : 0);
    }
    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override
    {
        const int sw = static_cast<QComboBox*>(editor)->currentIndex();
        if (sw >= 0 && sw != index.data(Qt::EditRole).toInt())
            model->setData(index, sw, Qt::EditRole);
    }
private:
    ClusterDocument* m_doc;
};

} // namespace

TopologyPanel::TopologyPanel(ClusterDocument* doc, ExportMenus* exports, QWidget* parent)
    : QWidget(parent), m_doc(doc)
{
    auto* w = this;
    auto* v = new QVBoxLayout(w);
    QToolBar* tb = new QToolBar(w);
    QToolBar* const tb1 = tb;
    tb->setIconSize(QSize(16, 16));
    m_addCountSpin = new QSpinBox(w);
    m_addCountSpin->setRange(1, 512);
    m_addCountSpin->setPrefix(tr("× "));
    m_typeCombo = new QComboBox(w);
    m_gpuCountSpin = new QSpinBox(w);
    m_gpuCountSpin->setRange(0, 16);
    m_gpuCountSpin->setValue(4);
    m_gpuCountSpin->setSuffix(tr(" GPUs"));
    m_linkGbpsSpin = new QDoubleSpinBox(w);
    m_linkGbpsSpin->setRange(1, 10000);
    m_linkGbpsSpin->setValue(100);
    m_linkGbpsSpin->setSuffix(tr(" Gb/s"));
    m_presetCombo = new QComboBox(w);
    m_presetCombo->addItem(tr("Load preset…"));
    for (const std::string& n : clusterPresetNames())
        m_presetCombo->addItem(QString::fromStdString(n));

    tb->addAction(tr("Add machines"), this, [this] {
        if (m_doc->spec().switches.empty())
            m_doc->addSwitch(QString(), 100);
        m_doc->undoStack()->beginMacro(tr("Add machines"));
        const int type = m_doc->ensureGpuType(m_typeCombo->currentData().toString());
        m_doc->addMachines(m_addCountSpin->value(), std::max(0, type), m_gpuCountSpin->value(), firstSelectedSwitch());
        m_doc->undoStack()->endMacro();
    })->setToolTip(tr("Add machines of the chosen GPU type and count to the selected switch"));
    tb->addWidget(m_addCountSpin);
    tb->addAction(tr("Duplicate"), this, [this] { m_doc->duplicateMachines(selectedMachineRows()); });
    tb->addAction(tr("Remove"), this, [this] {
        m_doc->removeMachines(selectedMachineRows());
        for (int s : m_topology->selectedSwitches())
            m_doc->removeSwitch(s);
    });
    tb->addSeparator();
    tb->addWidget(m_typeCombo);
    tb->addAction(tr("Set type"), this, [this] {
          const std::vector<int> rows = selectedMachineRows();
          if (rows.empty())
              return;
          m_doc->undoStack()->beginMacro(tr("Set GPU type"));
          const int type = m_doc->ensureGpuType(m_typeCombo->currentData().toString());
          if (type >= 0)
              m_doc->setMachinesType(rows, type);
          m_doc->undoStack()->endMacro();
      })
        ->setToolTip(tr("Set the GPU type of every selected machine"));
    tb->addWidget(m_gpuCountSpin);
    tb->addAction(tr("Set count"), this, [this] { m_doc->setMachinesGpus(selectedMachineRows(), m_gpuCountSpin->value()); })
        ->setToolTip(tr("Set the GPU count of every selected machine"));
    // Two rows: machines on the first, switches, links and loading on the second, so nothing hides behind the
    // overflow arrow on a narrow dock (Load preset… did).
    auto* tb2 = new QToolBar(w);
    tb2->setObjectName(QStringLiteral("topologyToolBar2"));
    tb2->setIconSize(QSize(16, 16));
    tb = tb2;
    tb->addAction(tr("Add switch"), this, [this] { m_doc->addSwitch(QString(), 100); });
    tb->addAction(tr("Duplicate switch"), this, [this] {
        for (int s : m_topology->selectedSwitches())
            m_doc->duplicateSwitch(s);
    });
    tb->addWidget(m_linkGbpsSpin);
    tb->addAction(tr("Connect"), this, [this] {
        const QList<int> sw = m_topology->selectedSwitches();
        if (sw.size() != 2)
            Q_EMIT error(tr("Topology: select exactly two switches to connect (ctrl+click), or shift-drag between them."));
        else
            m_doc->addLink(sw[0], sw[1], m_linkGbpsSpin->value());
    });
    tb->addSeparator();
    tb->addWidget(m_presetCombo);
    tb->addAction(icon("open"), tr("Load file…"), this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Load cluster"));
        if (!p.isEmpty())
            Q_EMIT loadClusterRequested(p);
    });
    connect(m_presetCombo, &QComboBox::activated, this, [this](int i) {
        if (i > 0)
            Q_EMIT loadClusterRequested(m_presetCombo->itemText(i));
        m_presetCombo->setCurrentIndex(0);
    });
    v->addWidget(tb1);
    v->addWidget(tb2);

    m_validationLabel = new QLabel(w);
    m_validationLabel->setWordWrap(true);
    v->addWidget(m_validationLabel);

    auto* split = new QSplitter(Qt::Horizontal, w);
    m_topology = new ss::TopologyEditorView(split);
    split->addWidget(m_topology);
    exports->installPlotExport(m_topology, nullptr, exports->scenario());
    auto* tabs = new QTabWidget(split);
    m_machineModel = new MachineTableModel(m_doc, this);
    m_machineTable = makeTable(tabs);
    m_machineTable->setModel(m_machineModel);
    m_machineTable->setItemDelegateForColumn(MachineTableModel::GpuType, new GpuTypeDelegate(m_doc, m_machineTable));
    m_machineTable->setItemDelegateForColumn(MachineTableModel::Switch, new SwitchDelegate(m_doc, m_machineTable));
    m_machineTable->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_machineTable->verticalHeader()->setVisible(true);
    exports->installTableExport(m_machineTable, exports->scenario());
    tabs->addTab(m_machineTable, tr("Machines"));
    m_linkModel = new LinkTableModel(m_doc, this);
    auto* links = makeTable(tabs);
    links->setModel(m_linkModel);
    exports->installTableExport(links, exports->scenario());
    auto* linkPane = new QWidget(tabs);
    auto* lv = new QVBoxLayout(linkPane);
    lv->addWidget(links);
    auto* rmLink = new QPushButton(tr("Remove link"), linkPane);
    connect(rmLink, &QPushButton::clicked, this, [this, links] {
        const QModelIndex i = links->currentIndex();
        if (i.isValid())
            m_doc->removeLink(i.row());
    });
    lv->addWidget(rmLink);
    tabs->addTab(linkPane, tr("Links"));
    split->addWidget(tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({720, 480}); // the graph gets the room; the table scrolls
    v->addWidget(split, 1);

    connect(m_topology, &ss::TopologyEditorView::requestConnect, this,
            [this](int a, int b) { m_doc->addLink(a, b, m_linkGbpsSpin->value()); });
    connect(m_topology, &ss::TopologyEditorView::requestDelete, this, [this](QList<int> ms, QList<int> sws) {
        m_doc->removeMachines(std::vector<int>(ms.begin(), ms.end()));
        std::sort(sws.begin(), sws.end(), std::greater<int>());
        for (int s : sws)
            m_doc->removeSwitch(s);
    });
    connect(m_topology, &ss::TopologyEditorView::selectionChangedIds, this, [this](QList<int> ms, QList<int>) {
        QSignalBlocker b(m_machineTable->selectionModel());
        m_machineTable->clearSelection();
        for (int m : ms)
            m_machineTable->selectionModel()->select(m_machineModel->index(m, 0),
                                                     QItemSelectionModel::Select | QItemSelectionModel::Rows);
        m_machineTable->viewport()->update();
    });
}

std::vector<int> TopologyPanel::selectedMachineRows() const
{
    std::vector<int> rows;
    for (int m : m_topology->selectedMachines())
        rows.push_back(m);
    for (const QModelIndex& i : m_machineTable->selectionModel()->selectedRows())
        rows.push_back(i.row());
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

int TopologyPanel::firstSelectedSwitch() const
{
    const QList<int> sw = m_topology->selectedSwitches();
    if (!sw.isEmpty())
        return sw.first();
    const auto rows = selectedMachineRows();
    if (!rows.empty())
        return m_doc->spec().machines[size_t(rows.front())].sw;
    return 0;
}

void TopologyPanel::refresh()
{
    const ClusterSpec& spec = m_doc->spec();
    m_topology->setCluster(spec);
    const QString v = m_doc->validationMessage();
    m_validationLabel->setText(v.isEmpty() ? tr("✔ Cluster is valid: %1 machines, %2 GPUs, %3 switches, %4 links")
                                                 .arg(spec.machineCount()).arg(spec.totalGpus())
                                                 .arg(spec.switches.size()).arg(spec.links.size())
                                           : QStringLiteral("⚠ ") + v);
    m_validationLabel->setStyleSheet(v.isEmpty() ? QString() : QStringLiteral("color: #c9372c; font-weight: bold;"));
    const QString cur = m_typeCombo->currentData().toString();
    QSignalBlocker block(m_typeCombo);
    m_typeCombo->clear();
    for (const QString& name : gpuTypeChoices(spec))
        m_typeCombo->addItem(spec.typeIndex(name.toStdString()) >= 0 ? name : tr("%1 (catalogue)").arg(name), name);
    const int at = m_typeCombo->findData(cur);
    m_typeCombo->setCurrentIndex(at >= 0 ? at : 0);
}

} // namespace ss::ui

