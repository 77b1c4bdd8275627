#include "columnmapdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>

#include "viewhelpers.h"

namespace ss::ui {

namespace {
QString settingsKey(const QString& path)
{
    // one settings entry per file: the absolute path, percent-encoded so that '/' does not open groups
    return QStringLiteral("columnMaps/") + QString::fromLatin1(QUrl::toPercentEncoding(QFileInfo(path).absoluteFilePath()));
}
} // namespace

ColumnMapDialog::ColumnMapDialog(const ss::CsvPreview& preview, const std::map<std::string, std::string>& columns,
                                 const QString& timeFormat, const QStringList& notes, QWidget* parent)
    : QDialog(parent), m_preview(preview)
{
    setObjectName(QStringLiteral("columnMapDialog"));
    setWindowTitle(tr("Map the columns of %1").arg(QFileInfo(QString::fromStdString(preview.file)).fileName()));
    auto* v = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("<b>%1</b> is not one of the trace formats SchedStudio knows (Philly, Helios, PAI, "
                                "openb, Gavel, Tiresias, Chronus, Pollux, SWF, native). Say which column holds what: "
                                "submit time, GPUs and duration (or end time) are needed; the rest is optional. "
                                "The scenario keeps this mapping, and the studio remembers it for this file.")
                                 .arg(QFileInfo(QString::fromStdString(preview.file)).fileName().toHtmlEscaped()),
                             this);
    intro->setWordWrap(true);
    v->addWidget(intro);

    m_table = new QTableWidget(int(preview.rows.size()), int(preview.header.size()), this);
    m_table->setObjectName(QStringLiteral("columnMapPreview"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->setDefaultSectionSize(20);
    for (size_t r = 0; r < preview.rows.size(); ++r) {
        m_table->setVerticalHeaderItem(int(r), new QTableWidgetItem(QString::number(preview.firstDataLine + long(r))));
        for (size_t c = 0; c < preview.rows[r].size() && c < preview.header.size(); ++c)
            m_table->setItem(int(r), int(c), new QTableWidgetItem(QString::fromStdString(preview.rows[r][c])));
    }
    m_table->setMinimumHeight(150);
    v->addWidget(m_table, 1);

    auto* form = new QGroupBox(tr("Columns"), this);
    auto* grid = new QGridLayout(form);
    const auto& keys = ss::columnMapKeys();
    const int perColumn = int(keys.size() + 1) / 2;
    for (size_t i = 0; i < keys.size(); ++i) {
        const QString key = QString::fromLatin1(keys[i].key);
        const bool needed = keys[i].required || key == QLatin1String("duration");
        auto* label = new QLabel(needed ? QStringLiteral("<b>%1</b> *").arg(key) : key, form);
        label->setToolTip(tr(keys[i].meaning));
        auto* combo = new QComboBox(form);
        combo->setObjectName(QStringLiteral("map_") + key);
        combo->setToolTip(tr(keys[i].meaning));
        combo->addItem(tr("—"), QString());
        for (const std::string& h : preview.header)
            combo->addItem(QString::fromStdString(h), QString::fromStdString(h));
        if (auto it = columns.find(keys[i].key); it != columns.end()) {
            const int at = combo->findData(QString::fromStdString(it->second));
            if (at >= 0)
                combo->setCurrentIndex(at);
        }
        label->setBuddy(combo);
        const int row = int(i) % perColumn, col = int(i) / perColumn;
        grid->addWidget(label, row, col * 2);
        grid->addWidget(combo, row, col * 2 + 1);
        m_combos.insert(key, combo);
        connect(combo, &QComboBox::currentIndexChanged, this, &ColumnMapDialog::refresh);
    }
    auto* timeLabel = new QLabel(tr("<b>time unit</b>"), form);
    m_time = new QComboBox(form);
    m_time->setObjectName(QStringLiteral("timeFormat"));
    m_time->setEditable(true);
    m_time->setToolTip(tr("Unit of the submit, end, start and duration numbers, or a strptime format for dates "
                          "(%Y %m %d %H %M %S); durations are always numbers in the unit (seconds for dates)."));
    for (const QString& f : {QStringLiteral("s"), QStringLiteral("ms"), QStringLiteral("us"), QStringLiteral("min"),
                             QStringLiteral("h"), QStringLiteral("%Y-%m-%d %H:%M:%S")})
        m_time->addItem(f);
    m_time->setCurrentText(timeFormat.isEmpty() ? QStringLiteral("s") : timeFormat);
    timeLabel->setBuddy(m_time);
    grid->addWidget(timeLabel, perColumn, 0);
    grid->addWidget(m_time, perColumn, 1);
    v->addWidget(form);
    if (!notes.isEmpty()) {
        auto* n = new QLabel(tr("Guessed: %1").arg(notes.join(QStringLiteral("; "))), this);
        n->setWordWrap(true);
        v->addWidget(n);
    }
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("columnMapStatus"));
    m_status->setWordWrap(true);
    v->addWidget(m_status);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Load trace"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    v->addWidget(m_buttons);
    resize(900, 620);
    refresh();
}

std::map<std::string, std::string> ColumnMapDialog::columns() const
{
    std::map<std::string, std::string> m;
    for (auto it = m_combos.begin(); it != m_combos.end(); ++it) {
        const QString c = it.value()->currentData().toString();
        if (!c.isEmpty())
            m[it.key().toStdString()] = c.toStdString();
    }
    return m;
}

QString ColumnMapDialog::timeFormat() const
{
    const QString t = m_time->currentText().trimmed();
    return t == QLatin1String("s") ? QString() : t;
}

QString ColumnMapDialog::problem() const
{
    return QString::fromStdString(ss::checkColumnMap(m_preview, columns()));
}

void ColumnMapDialog::refresh()
{
    // the preview's headers say what each column is mapped to
    const auto m = columns();
    for (size_t c = 0; c < m_preview.header.size(); ++c) {
        QString text = QString::fromStdString(m_preview.header[c]);
        for (const auto& [k, col] : m)
            if (col == m_preview.header[c])
                text += QStringLiteral("\n→ ") + QString::fromStdString(k);
        m_table->setHorizontalHeaderItem(int(c), new QTableWidgetItem(text));
    }
    const QString p = problem();
    m_status->setText(p.isEmpty() ? tr("Ready: %n column(s) mapped.", nullptr, int(m.size())) : tr("Still needed: %1").arg(p));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(p.isEmpty());
}

bool ColumnMapDialog::remembered(const QString& path, std::map<std::string, std::string>* columns, QString* timeFormat)
{
    QSettings s = studioSettings();
    const QString k = settingsKey(path);
    const QVariantMap m = s.value(k + QStringLiteral("/columns")).toMap();
    if (m.isEmpty())
        return false;
    columns->clear();
    for (auto it = m.begin(); it != m.end(); ++it)
        (*columns)[it.key().toStdString()] = it.value().toString().toStdString();
    *timeFormat = s.value(k + QStringLiteral("/timeFormat")).toString();
    return true;
}

void ColumnMapDialog::remember(const QString& path, const std::map<std::string, std::string>& columns, const QString& timeFormat)
{
    QSettings s = studioSettings();
    QVariantMap m;
    for (const auto& [k, c] : columns)
        m.insert(QString::fromStdString(k), QString::fromStdString(c));
    const QString k = settingsKey(path);
    s.setValue(k + QStringLiteral("/columns"), m);
    s.setValue(k + QStringLiteral("/timeFormat"), timeFormat);
}

} // namespace ss::ui
