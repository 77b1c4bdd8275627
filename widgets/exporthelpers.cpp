#include "exporthelpers.h"

#include "qcp.h"

#include <QAbstractItemModel>
#include <QAbstractItemView>
#include <QClipboard>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QItemSelectionModel>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>
#include <algorithm>
#include <functional>

namespace ss::exporter {

namespace {

enum class Kind { Png, Svg, Pdf, Unknown };

constexpr int kPngScale = 2;

Kind kindOf(const QString& path)
{
    const QString s = QFileInfo(path).suffix().toLower();
    if (s == QLatin1String("png"))
        return Kind::Png;
    if (s == QLatin1String("svg"))
        return Kind::Svg;
    if (s == QLatin1String("pdf"))
        return Kind::Pdf;
    return Kind::Unknown;
}

bool fail(QString* error, const QString& msg)
{
    if (error)
        *error = msg;
    return false;
}

// The caption is wrapped to the image's width (one line per run when it lists several): never cut off.
int captionHeight(const QString& caption, const QFont& font, int width)
{
    if (caption.isEmpty())
        return 0;
    const QRect r = QFontMetrics(font).boundingRect(QRect(0, 0, std::max(40, width - 8), 100000),
                                                    Qt::AlignLeft | Qt::TextWordWrap | Qt::TextWrapAnywhere, caption);
    return r.height() + 8;
}

void drawCaption(QPainter& p, const QRect& area, const QString& caption, const QPalette& pal)
{
    if (caption.isEmpty())
        return;
    p.fillRect(area, pal.color(QPalette::Window));
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(area.adjusted(4, 4, -4, -4), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap | Qt::TextWrapAnywhere,
               caption);
}

// Draws `render(painter)` (content of size `size`) plus a caption strip into the file; all three formats
// share this so a widget and a plot export the same way.
bool paintTo(const QString& path, QSize size, const QString& caption, const QFont& font, const QPalette& pal,
             const std::function<void(QCPPainter&)>& render, QString* error)
{
    const Kind k = kindOf(path);
    if (k == Kind::Unknown)
        return fail(error, QStringLiteral("%1: unknown image format (use .png, .svg or .pdf)").arg(path));
    if (size.isEmpty())
        return fail(error, QStringLiteral("%1: nothing to export (empty view)").arg(path));
    const int ch = captionHeight(caption, font, size.width());
    const QSize total(size.width(), size.height() + ch);
    if (k == Kind::Png) {
        // Raster at kPngScale device pixels per point: the same layout as on screen, sharp enough to print.
        QImage img(total * kPngScale, QImage::Format_ARGB32_Premultiplied);
        img.setDevicePixelRatio(kPngScale);
        img.fill(pal.color(QPalette::Window));
        {
            QCPPainter p(&img);
            p.setRenderHint(QPainter::Antialiasing);
            p.setRenderHint(QPainter::TextAntialiasing);
            p.setFont(font);
            render(p);
            drawCaption(p, QRect(0, size.height(), size.width(), ch), caption, pal);
        }
        if (!img.save(path, "PNG"))
            return fail(error, QStringLiteral("%1: cannot write file").arg(path));
        return true;
    }
    if (k == Kind::Svg) {
        // QSvgGenerator reports no errors: probe that the file can be written first.
        {
            QFile probe(path);
            if (!probe.open(QIODevice::WriteOnly))
                return fail(error, QStringLiteral("%1: cannot write file (%2)").arg(path, probe.errorString()));
        }
        QSvgGenerator gen;
        gen.setFileName(path);
        gen.setSize(total);
        gen.setViewBox(QRect(QPoint(0, 0), total));
        gen.setTitle(caption.isEmpty() ? QStringLiteral("SchedStudio") : caption);
        gen.setDescription(QStringLiteral("Exported by SchedStudio"));
        QCPPainter p;
        if (!p.begin(&gen))
            return fail(error, QStringLiteral("%1: cannot write file").arg(path));
        p.setMode(QCPPainter::pmVectorized);
        p.setMode(QCPPainter::pmNoCaching);
        p.setFont(font);
        render(p);
        drawCaption(p, QRect(0, size.height(), size.width(), ch), caption, pal);
        p.end();
    } else {
        QPdfWriter pdf(path);
        pdf.setResolution(72); // one point per pixel: the page is exactly the view's size
        pdf.setPageSize(QPageSize(QSizeF(total), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setCreator(QStringLiteral("SchedStudio"));
        pdf.setTitle(caption);
        QCPPainter p;
        if (!p.begin(&pdf))
            return fail(error, QStringLiteral("%1: cannot write file").arg(path));
        p.setMode(QCPPainter::pmVectorized);
        p.setMode(QCPPainter::pmNoCaching);
        p.setFont(font);
        render(p);
        drawCaption(p, QRect(0, size.height(), size.width(), ch), caption, pal);
        p.end();
    }
    if (QFileInfo(path).size() <= 0)
        return fail(error, QStringLiteral("%1: export produced an empty file").arg(path));
    return true;
}

} // namespace

QSize minPlotExportSize()
{
    return {960, 600};
}

int pngScale()
{
    return kPngScale;
}

QString imageFilter()
{
    return QStringLiteral("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)");
}

bool exportWidget(QWidget* widget, const QString& path, QString* error, const QString& caption)
{
    if (!widget)
        return fail(error, QStringLiteral("%1: no view to export").arg(path));
    if (auto* plot = qobject_cast<QCustomPlot*>(widget))
        return exportPlot(plot, path, error, caption);
    return paintTo(path, widget->size(), caption, widget->font(), widget->palette(),
                   [widget](QCPPainter& p) { widget->render(&p, QPoint(), QRegion(), QWidget::DrawWindowBackground | QWidget::DrawChildren); },
                   error);
}

bool exportPlot(QCustomPlot* plot, const QString& path, QString* error, const QString& caption)
{
    if (!plot)
        return fail(error, QStringLiteral("%1: no plot to export").arg(path));
    plot->replot(QCustomPlot::rpImmediateRefresh); // a queued replot may still be pending
    // A plot lays itself out again at any size: a small pane (a docked plot can be 384 x 221) is exported at
    // least kMinPlotSize, so axis labels and legends have room; the on-screen plot is left as it is.
    const QSize size = plot->size().expandedTo(minPlotExportSize());
    const bool ok = paintTo(path, size, caption, plot->font(), plot->palette(),
                            [&](QCPPainter& p) { plot->toPainter(&p, size.width(), size.height()); }, error);
    if (size != plot->size())
        plot->replot(QCustomPlot::rpQueuedReplot); // toPainter laid the plot out at the export size
    return ok;
}

} // namespace ss::exporter

namespace ss {

namespace {
QString csvField(QString s)
{
    if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n')) ||
        s.contains(QLatin1Char('\r')) || s.startsWith(QLatin1Char(' ')) || s.endsWith(QLatin1Char(' '))) {
        s.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + s + QLatin1Char('"');
    }
    return s;
}
} // namespace

QString TableExport::toCsv(const QAbstractItemModel* model, const QString& comment)
{
    QString out;
    if (!comment.isEmpty())
        for (const QString& line : comment.split(QLatin1Char('\n')))
            out += QStringLiteral("# ") + line + QLatin1Char('\n');
    if (!model)
        return out;
    const int rows = model->rowCount(), cols = model->columnCount();
    QStringList fields;
    for (int c = 0; c < cols; ++c)
        fields << csvField(model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString());
    out += fields.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (int r = 0; r < rows; ++r) {
        fields.clear();
        for (int c = 0; c < cols; ++c)
            fields << csvField(model->data(model->index(r, c), Qt::DisplayRole).toString());
        out += fields.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return out;
}

bool TableExport::writeCsv(const QAbstractItemModel* model, const QString& path, QString* error, const QString& comment)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error)
            *error = QStringLiteral("%1: cannot write file (%2)").arg(path, f.errorString());
        return false;
    }
    f.write(toCsv(model, comment).toUtf8());
    if (!f.commit()) {
        if (error)
            *error = QStringLiteral("%1: cannot write file (%2)").arg(path, f.errorString());
        return false;
    }
    return true;
}

QString TableExport::selectionToTsv(const QItemSelectionModel* selection)
{
    if (!selection || !selection->model() || !selection->hasSelection())
        return {};
    const QModelIndexList idx = selection->selectedIndexes();
    if (idx.isEmpty())
        return {};
    int r0 = INT_MAX, r1 = -1, c0 = INT_MAX, c1 = -1;
    for (const QModelIndex& i : idx) {
        r0 = std::min(r0, i.row());
        r1 = std::max(r1, i.row());
        c0 = std::min(c0, i.column());
        c1 = std::max(c1, i.column());
    }
    std::vector<QStringList> grid(size_t(r1 - r0 + 1), QStringList());
    for (auto& row : grid)
        for (int c = c0; c <= c1; ++c)
            row << QString();
    for (const QModelIndex& i : idx) {
        QString t = i.data(Qt::DisplayRole).toString();
        t.replace(QLatin1Char('\t'), QLatin1Char(' ')).replace(QLatin1Char('\n'), QLatin1Char(' '));
        grid[size_t(i.row() - r0)][i.column() - c0] = t;
    }
    QString out;
    for (const auto& row : grid)
        out += row.join(QLatin1Char('\t')) + QLatin1Char('\n');
    return out;
}

QString TableExport::copySelection(QAbstractItemView* view)
{
    if (!view)
        return {};
    const QString t = selectionToTsv(view->selectionModel());
    if (!t.isEmpty())
        if (QClipboard* cb = QGuiApplication::clipboard())
            cb->setText(t);
    return t;
}

} // namespace ss
