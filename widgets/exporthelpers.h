#pragma once
// Export of any view (PNG, SVG, PDF chosen by the file suffix) and of tables (CSV, TSV to the clipboard).
#include <QSize>
#include <QString>

class QWidget;
class QCustomPlot;
class QAbstractItemModel;
class QAbstractItemView;
class QItemSelectionModel;

namespace ss::exporter {

/// File dialog filter: "PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)".
QString imageFilter();
/// Renders the widget into `path` (.png/.svg/.pdf). `caption` (what made the view: the runs shown, their
/// policy, seed, trace, cluster) is drawn under the image, wrapped to its width, so every export records what
/// made it. PNG is rendered at pngScale() pixels per point. False + *error on failure (unknown suffix,
/// unwritable).
bool exportWidget(QWidget* widget, const QString& path, QString* error = nullptr, const QString& caption = {});
/// Same for a QCustomPlot, laid out again at no less than minPlotExportSize() (points).
bool exportPlot(QCustomPlot* plot, const QString& path, QString* error = nullptr, const QString& caption = {});
QSize minPlotExportSize();
int pngScale();

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
