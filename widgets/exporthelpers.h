#pragma once
// Export of any view (PNG, SVG, PDF chosen by the file suffix) and of tables (CSV, TSV to the clipboard).
#include <QString>

class QWidget;
class QCustomPlot;
class QAbstractItemModel;
class QAbstractItemView;
class QItemSelectionModel;

namespace ss::exporter {

/// File dialog filter: "PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)".
QString imageFilter();
/// Renders the widget into `path` (.png/.svg/.pdf). `caption` (e.g. "policy das, seed 42") is drawn under
/// the image so every export records what made it. False + *error on failure (unknown suffix, unwritable).
bool exportWidget(QWidget* widget, const QString& path, QString* error = nullptr, const QString& caption = {});
/// Same for a QCustomPlot, through its own vector/raster savers where it has them (sharper than a grab).
bool exportPlot(QCustomPlot* plot, const QString& path, QString* error = nullptr, const QString& caption = {});

} // namespace ss::exporter

namespace ss {

/// Tables out: CSV files (RFC 4180 quoting) and the selected cells as TSV (for pasting into spreadsheets).
class TableExport {
public:
    /// Header row + all rows (DisplayRole). `comment` lines (e.g. seed) are written first, prefixed "# ".
    static QString toCsv(const QAbstractItemModel* model, const QString& comment = {});
    static bool writeCsv(const QAbstractItemModel* model, const QString& path, QString* error = nullptr,
                         const QString& comment = {});
    /// The bounding rows x columns of the selection, tab separated; unselected cells inside it are empty.
    static QString selectionToTsv(const QItemSelectionModel* selection);
    /// Puts selectionToTsv() on the clipboard; returns the text.
    static QString copySelection(QAbstractItemView* view);
};

} // namespace ss
