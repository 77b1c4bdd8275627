#pragma once
// One colour per job index, shared by every view so that a job looks the same in the cluster map, the Gantt
// chart, the heatmaps and the tables. Golden-ratio hue steps keep neighbouring indices far apart in hue.
#include <QColor>
#include <QPalette>

namespace ss {

/// The colour of job `jobIndex` (index into the sorted trace). Deterministic; mid value so it reads on
/// both light and dark backgrounds. Negative indices give a neutral grey.
QColor jobColor(int jobIndex);
/// Same as jobColor(), as a packed QRgb (for image-based painters).
QRgb jobRgb(int jobIndex);
/// Whether a palette is dark (window colour darker than its text).
bool isDarkPalette(const QPalette& palette);
/// A colour that marks the selected job (outline) and stands out on the palette's base colour.
QColor selectionColor(const QPalette& palette);
/// Sequential colour map (viridis-like) for scores: t in [0,1] -> colour; t is clamped.
QRgb scoreRgb(double t);

} // namespace ss
