#pragma once
// The column-mapping dialog: a CSV no reader recognises is shown as a preview of its first rows beside one
// drop-down per field the generic reader knows (submit, gpus, duration or end, id, user, ...), filled with a
// guess from the header names (io/csvpreview.h) or with what the user chose for the same file before. The
// mapping it returns is what `schedstudio-cli --format csv --map ...` reads, and the scenario keeps it.
#include <QDialog>
#include <QMap>
#include <QString>

#include <map>
#include <string>

#include "io/csvpreview.h"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QTableWidget;

namespace ss::ui {

class ColumnMapDialog : public QDialog {
    Q_OBJECT
public:
    /// `columns` / `timeFormat`: the mapping to start from (a remembered one, or guessColumnMap's); `notes`: why
    /// the guess chose what it did (shown under the form).
    ColumnMapDialog(const ss::CsvPreview& preview, const std::map<std::string, std::string>& columns,
                    const QString& timeFormat, const QStringList& notes, QWidget* parent = nullptr);

    std::map<std::string, std::string> columns() const;
    /// "" (seconds), "ms", "us", "min", "h" or a strptime format.
    QString timeFormat() const;
    /// The combo box of one key (tests, and focus for a key the check says is missing).
    QComboBox* comboFor(const QString& key) const { return m_combos.value(key); }
    /// "" when the mapping can be read, else what is missing (also shown in the dialog).
    QString problem() const;

    /// The mapping chosen for `path` before ("" time format and empty columns when none).
    static bool remembered(const QString& path, std::map<std::string, std::string>* columns, QString* timeFormat);
    static void remember(const QString& path, const std::map<std::string, std::string>& columns, const QString& timeFormat);

private:
    void refresh();
    ss::CsvPreview m_preview;
    QMap<QString, QComboBox*> m_combos;
    QComboBox* m_time = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_status = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace ss::ui
