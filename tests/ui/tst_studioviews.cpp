// The studio's views say what they show (issue 22, split from tst_studiostate): the topology editor offers the
// catalogue's GPU types, a CSV of no known format opens through the column-mapping dialog, the banner does not
// move the layout, the Switch cell is a list of names, the policy list is grouped and counted, exports name what
// they show, and the stepper shows more than two rows.
#include <QCheckBox>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QUndoStack>
#include <QSet>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>

#include "clusterdocument.h"
#include "exporthelpers.h"
#include "policy/registry.h"
#include "columnmapdialog.h"
#include "qcp.h"
#include "ganttview.h"
#include "heatmapview.h"
#include "mainwindow.h"
#include "scenario.h"
#include "models.h"
#include "stepperpanel.h"
#include "topologypanel.h"
#include "viewhelpers.h"
#include "studiotestutil.h"

namespace {
/// The topology view's Machines table (the view shown).
QTableView* machinesTable(ss::ui::MainWindow& w)
{
    w.showView(QStringLiteral("topology"));
    for (QTableView* t : w.findChildren<QTableView*>())
        if (qobject_cast<ss::ui::MachineTableModel*>(t->model()))
            return t;
    return nullptr;
}
} // namespace

using namespace ss;
using namespace ss::ui;
using namespace studiotest;

class TestStudioViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void topologyEditorOffersCatalogueTypes();
    void csvWithoutKnownFormatIsMapped();
    void bannerDoesNotShiftTheLayout();
    void switchCellIsAListOfNames();
    void policyListIsGroupedAndCounted();
    void exportsSayWhatTheViewShows();
    void stepperShowsMoreThanTwoRows();

private:
    QTemporaryDir m_dir;
};

void TestStudioViews::initTestCase()
{
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
}

void TestStudioViews::topologyEditorOffersCatalogueTypes()
{
    // Issue 22 point 9: the GPU-type list offered only the cluster's types, and the type cell was a number box.
    MainWindow w;
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    ClusterDocument* doc = w.clusterDocument();
    const QStringList choices = gpuTypeChoices(doc->spec());
    QCOMPARE(choices.mid(0, 2), (QStringList{QStringLiteral("V100"), QStringLiteral("P100")})); // the cluster's first
    QVERIFY(choices.contains(QStringLiteral("K80")) && choices.contains(QStringLiteral("T4")));
    const size_t typesBefore = doc->spec().types.size();
    MachineTableModel model(doc);
    const QModelIndex cell = model.index(0, MachineTableModel::GpuType);
    QCOMPARE(cell.data(Qt::EditRole).toString(), QStringLiteral("V100")); // a name, not an index
    QVERIFY(model.setData(cell, QStringLiteral("K80"), Qt::EditRole));
    QCOMPARE(doc->spec().types.size(), typesBefore + 1);
    QCOMPARE(cell.data().toString(), QStringLiteral("K80"));
    doc->undoStack()->undo(); // one step: the machine's type and the catalogue type it brought
    QCOMPARE(doc->spec().types.size(), typesBefore);
    QCOMPARE(cell.data().toString(), QStringLiteral("V100"));
    QVERIFY(!model.setData(cell, QStringLiteral("no-such-gpu"), Qt::EditRole));
    // The Machines table edits that column with a list of names.
    QTableView* table = machinesTable(w);
    QVERIFY(table);
    QStyleOptionViewItem opt;
    std::unique_ptr<QWidget> editor(table->itemDelegateForColumn(MachineTableModel::GpuType)->createEditor(table, opt, cell));
    auto* combo = qobject_cast<QComboBox*>(editor.get());
    QVERIFY(combo);
    QVERIFY(combo->findText(QStringLiteral("K80")) >= 0);
    // "Load preset…" sits on the second toolbar row, not behind the first row's overflow arrow.
    auto* row2 = w.findChild<QToolBar*>(QStringLiteral("topologyToolBar2"));
    QVERIFY(row2);
    bool preset = false;
    for (QComboBox* c : row2->findChildren<QComboBox*>())
        preset = preset || c->itemText(0).startsWith(QLatin1String("Load preset"));
    QVERIFY(preset);
}

void TestStudioViews::csvWithoutKnownFormatIsMapped()
{
    // Issue 22 point 10: a plain id,submit,gpus,duration CSV could only be read with the CLI's --map. The studio
    // now opens the column-mapping dialog with a guess; accepted, the trace loads, the scenario keeps the map
    // (saved and reopened without asking), and the choice is remembered for the file. Cancelled, nothing changes.
    const QString csv = m_dir.filePath(QStringLiteral("plain.csv"));
    {
        QFile f(csv);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("job,arrival,ngpu,runtime_min,owner\n1,0,2,60,ann\n2,30,1,10,bob\n3,45,4,120,ann\n");
    }
    MainWindow w;
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    const QString before = w.currentScenario().tracePath;

    // cancelled: scenario and loaded trace as they were
    w.loadTrace(csv);
    auto* dlg = w.findChild<ColumnMapDialog*>(QStringLiteral("columnMapDialog"));
    QVERIFY(dlg);
    dlg->reject();
    QVERIFY(w.waitForIdle(20000));
    QCOMPARE(w.currentScenario().tracePath, before);
    QCOMPARE(int(w.trace()->jobs.size()), 24);
    QApplication::processEvents(); // the rejected dialog deletes itself

    w.loadTrace(csv);
    dlg = w.findChild<ColumnMapDialog*>(QStringLiteral("columnMapDialog"));
    QVERIFY(dlg);
    // the guess: names, not positions; "runtime_min" is a duration by prefix, "arrival" a submit time
    const auto guessed = dlg->columns();
    QCOMPARE(guessed.at("id"), std::string("job"));
    QCOMPARE(guessed.at("submit"), std::string("arrival"));
    QCOMPARE(guessed.at("gpus"), std::string("ngpu"));
    QCOMPARE(guessed.at("duration"), std::string("runtime_min"));
    QCOMPARE(guessed.at("user"), std::string("owner"));
    QVERIFY(dlg->problem().isEmpty());
    // unmapping gpus blocks the load and says why
    dlg->comboFor(QStringLiteral("gpus"))->setCurrentIndex(0);
    QVERIFY(dlg->problem().contains(QStringLiteral("gpus")));
    QVERIFY(!dlg->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->isEnabled());
    dlg->comboFor(QStringLiteral("gpus"))->setCurrentIndex(dlg->comboFor(QStringLiteral("gpus"))->findData(QStringLiteral("ngpu")));
    dlg->findChild<QComboBox*>(QStringLiteral("timeFormat"))->setCurrentText(QStringLiteral("min"));
    if (const QByteArray shots = qgetenv("SS_SCREENSHOT_DIR"); !shots.isEmpty())
        dlg->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/column-map-dialog.png"));
    dlg->accept();
    QVERIFY(w.waitForIdle(20000));
    QVERIFY(w.trace());
    QCOMPARE(int(w.trace()->jobs.size()), 3);
    QCOMPARE(w.trace()->jobs[0].duration, 3600.0); // 60 min
    QCOMPARE(w.trace()->jobs[1].submit, 1800.0);
    QCOMPARE(w.currentScenario().tracePath, QFileInfo(csv).absoluteFilePath());
    QCOMPARE(w.currentScenario().traceFormat, QStringLiteral("csv"));
    QCOMPARE(w.currentScenario().core.traceColumns.at("gpus"), std::string("ngpu"));
    QCOMPARE(w.currentScenario().core.traceTimeFormat, std::string("min"));

    // remembered for the file
    std::map<std::string, std::string> cols;
    QString tf;
    QVERIFY(ColumnMapDialog::remembered(csv, &cols, &tf));
    QCOMPARE(cols.at("duration"), std::string("runtime_min"));
    QCOMPARE(tf, QStringLiteral("min"));

    // saved and reopened: loads through the map, no dialog
    const QString out = m_dir.filePath(QStringLiteral("mapped.scenario.json"));
    QVERIFY(w.saveScenario(out));
    const QJsonObject trace = readJson(out)[QStringLiteral("trace")].toObject();
    QCOMPARE(trace[QStringLiteral("columns")].toObject()[QStringLiteral("submit")].toString(), QStringLiteral("arrival"));
    QCOMPARE(trace[QStringLiteral("time_format")].toString(), QStringLiteral("min"));
    MainWindow w2;
    QVERIFY(w2.openScenario(out));
    QVERIFY(w2.waitForIdle(20000));
    QVERIFY(!w2.findChild<ColumnMapDialog*>());
    QVERIFY(w2.trace());
    QCOMPARE(int(w2.trace()->jobs.size()), 3);
}

void TestStudioViews::bannerDoesNotShiftTheLayout()
{
    // Issue 22 point 13: the error banner used to sit in the menu area and push every dock down when shown.
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    QApplication::processEvents();
    QMap<QString, QRect> before;
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
        if (d->isVisible())
            before[d->objectName()] = d->geometry();
    QVERIFY(!before.isEmpty());
    w.loadTrace(QStringLiteral("/etc/passwd"));
    QVERIFY(w.waitForIdle(20000));
    QApplication::processEvents();
    QVERIFY(!w.bannerText().isEmpty());
    QVERIFY2(!w.bannerText().contains(QLatin1String("--map")), qPrintable(w.bannerText())); // no CLI options in the studio
    QVERIFY2(w.bannerText().contains(QLatin1String("Map trace columns")), qPrintable(w.bannerText()));
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
        if (before.contains(d->objectName()))
            QCOMPARE(d->geometry(), before[d->objectName()]);
    auto* banner = w.findChild<QFrame*>(QStringLiteral("errorBanner"));
    QVERIFY(banner && banner->isVisible());
    QVERIFY(w.rect().contains(banner->geometry()));
    for (QToolBar* t : w.findChildren<QToolBar*>(QString(), Qt::FindDirectChildrenOnly))
        if (t->isVisible() && w.toolBarArea(t) == Qt::TopToolBarArea)
            QVERIFY2(banner->geometry().top() > t->geometry().bottom(), "the banner does not hide the toolbar");
    if (const QByteArray shots = qgetenv("SS_SCREENSHOT_DIR"); !shots.isEmpty())
        w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/error-banner.png"));
}

void TestStudioViews::switchCellIsAListOfNames()
{
    // Issue 22 point 9: the Machines table's Switch cell was a number box of switch indices.
    MainWindow w;
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    ClusterDocument* doc = w.clusterDocument();
    doc->addSwitch(QStringLiteral("rack-b"), 100);
    const int last = int(doc->spec().switches.size()) - 1;
    QVERIFY(last >= 1);
    QTableView* table = machinesTable(w);
    QVERIFY(table);
    const QModelIndex cell = table->model()->index(0, MachineTableModel::Switch);
    QStyleOptionViewItem opt;
    QAbstractItemDelegate* delegate = table->itemDelegateForColumn(MachineTableModel::Switch);
    QVERIFY(delegate);
    std::unique_ptr<QWidget> editor(delegate->createEditor(table, opt, cell));
    auto* combo = qobject_cast<QComboBox*>(editor.get());
    QVERIFY2(combo, "the Switch cell edits with a list");
    QCOMPARE(combo->count(), last + 1);
    QCOMPARE(combo->itemText(last), QStringLiteral("rack-b"));
    QCOMPARE(combo->itemText(0), QString::fromStdString(doc->spec().switches[0].name));
    delegate->setEditorData(combo, cell);
    QCOMPARE(combo->currentIndex(), doc->spec().machines[0].sw);
    combo->setCurrentIndex(last);
    delegate->setModelData(combo, table->model(), cell);
    QCOMPARE(doc->spec().machines[0].sw, last);
    QCOMPARE(cell.data().toString(), QStringLiteral("rack-b"));
    doc->undoStack()->undo();
    QCOMPARE(doc->spec().machines[0].sw, 0);
}

void TestStudioViews::policyListIsGroupedAndCounted()
{
    // Issue 22 point 13: the 50-entry policy list had no groups, tooltips or ticked count.
    MainWindow w;
    QVERIFY(w.openScenario(kSample));
    QVERIFY(w.waitForIdle(20000));
    auto* list = w.findChild<QListWidget*>(QStringLiteral("policyList"));
    auto* count = w.findChild<QLabel*>(QStringLiteral("policyCount"));
    QVERIFY(list && count);
    const QStringList policies = w.currentScenario().policies;
    QVERIFY(policies.size() >= 2);
    auto isHeader = [](const QListWidgetItem* it) { return !(it->flags() & Qt::ItemIsUserCheckable); };
    // the scenario's policies first, ticked, in its order, under their own heading
    QVERIFY(isHeader(list->item(0)));
    for (int k = 0; k < policies.size(); ++k) {
        QCOMPARE(list->item(1 + k)->text(), policies[k]);
        QCOMPARE(list->item(1 + k)->checkState(), Qt::Checked);
    }
    // every policy once, with a tooltip; the Gavel policies together under one heading that names Gavel
    const int all = int(ss::policyCatalog().size());
    int items = 0, headers = 0;
    QString heading;
    QSet<QString> seen;
    for (int i = 0; i < list->count(); ++i) {
        const QListWidgetItem* it = list->item(i);
        if (isHeader(it)) {
            heading = it->text();
            ++headers;
            continue;
        }
        ++items;
        QVERIFY2(!seen.contains(it->text()), qPrintable(it->text()));
        seen.insert(it->text());
        QVERIFY2(!it->toolTip().isEmpty(), qPrintable(it->text()));
        if (it->text().startsWith(QLatin1String("gavel-")) && !policies.contains(it->text()))
            QVERIFY2(heading.contains(QLatin1String("Gavel")), qPrintable(heading));
        if (it->text().startsWith(QLatin1String("las+")) && !policies.contains(it->text()))
            QVERIFY2(heading.contains(QLatin1String("las")), qPrintable(heading));
    }
    QCOMPARE(items, all);
    QVERIFY(headers >= 6);
    QCOMPARE(count->text(), QStringLiteral("Policies\n%1 of %2 ticked").arg(policies.size()).arg(all));
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->text() == QLatin1String("gavel-las")) {
            list->item(i)->setCheckState(Qt::Checked);
            break;
        }
    QCOMPARE(count->text(), QStringLiteral("Policies\n%1 of %2 ticked").arg(policies.size() + 1).arg(all));
    QCOMPARE(w.currentScenario().policies.last(), QStringLiteral("gavel-las"));
}

void TestStudioViews::exportsSayWhatTheViewShows()
{
    // Issue 22 point 11: the PNG footer and the CSV header described the scenario being edited, not the runs the
    // view shows. After the runs, the scenario gets another trace; Compare's exports still name both runs as they
    // were made, the stepper's names its run, and the trace table's names the new trace.
    MainWindow w;
    QVERIFY(openAndRun(w, kSample)); // das + fifo+firstfit on das-case.csv
    const QString copy = m_dir.filePath(QStringLiteral("renamed-trace.csv"));
    QVERIFY(QFile::copy(kSampleTrace, copy));
    w.loadTrace(copy);
    QVERIFY(w.waitForIdle(20000));
    QVERIFY(w.currentScenario().tracePath.endsWith(QLatin1String("renamed-trace.csv")));
    w.showView(QStringLiteral("compare"));
    auto* exports = w.findChild<ExportMenus*>();
    QVERIFY(exports);
    auto* cdf = w.findChild<QCustomPlot*>(QStringLiteral("compareCdf"));
    auto* bars = w.findChild<QCustomPlot*>(QStringLiteral("compareBars"));
    auto* table = w.findChild<QTableView*>(QStringLiteral("compareTable"));
    auto* gantts = w.findChild<QWidget*>(QStringLiteral("compareGanttPane"));
    QVERIFY(cdf && bars && table && gantts);
    for (QWidget* v : {static_cast<QWidget*>(cdf), static_cast<QWidget*>(bars), static_cast<QWidget*>(table), gantts}) {
        const QString c = exports->captionFor(v);
        QVERIFY2(c.contains(QLatin1String("policy das ")) && c.contains(QLatin1String("policy fifo+firstfit ")), qPrintable(c));
        QVERIFY2(c.contains(QLatin1String("trace das-case")), qPrintable(c));
        QVERIFY2(!c.contains(QLatin1String("renamed-trace")), qPrintable(c));
        QVERIFY2(c.contains(QStringLiteral(" · run ")), qPrintable(c)); // each run's identity
    }
    // the CSV of the compare table carries it as "# " lines
    const QString csv = TableExport::toCsv(table->model(), exports->captionFor(table));
    QVERIFY2(csv.startsWith(QLatin1String("# Compare of 2 runs:\n# ")), qPrintable(csv.left(200)));
    // the stepper's table: the run it shows
    auto* queue = w.findChild<QTableView*>(QStringLiteral("stepperQueue"));
    QVERIFY(queue);
    const QString sc = exports->captionFor(queue);
    QVERIFY2(sc.contains(QLatin1String("trace das-case")) && sc.contains(QStringLiteral(" · run ")), qPrintable(sc));
    // the trace table shows the scenario's (new) trace
    const QString tc = exports->captionFor(w.findChild<QTableView*>(QStringLiteral("traceJobs")));
    QVERIFY2(tc.contains(QLatin1String("renamed-trace.csv")), qPrintable(tc));
}

void TestStudioViews::stepperShowsMoreThanTwoRows()
{
    // Issue 22 point 13: in the default layout the stepper's queue table showed two rows. The default layout now
    // gives it eight rows (at most 40 % of the window), and it never shrinks below StepperPanel::kMinQueueRows.
    studioSettings().remove(QStringLiteral("window")); // a first start: no layout saved by an earlier window
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(openAndRun(w, kSample));
    w.setDecision(30);
    QTest::qWait(50);
    auto* queue = w.findChild<QTableView*>(QStringLiteral("stepperQueue"));
    QVERIFY(queue && queue->isVisible());
    QVERIFY(queue->model()->rowCount() >= 6);
    auto visibleRows = [queue] { return queue->viewport()->height() / queue->rowHeight(0); };
    QVERIFY2(visibleRows() >= 8, qPrintable(QString::number(visibleRows())));
    w.resize(1100, 600);
    QTest::qWait(50);
    QVERIFY2(visibleRows() >= StepperPanel::kMinQueueRows - 1, qPrintable(QString::number(visibleRows()))); // a scroll bar may take one
}

QTEST_MAIN(TestStudioViews)
#include "tst_studioviews.moc"
