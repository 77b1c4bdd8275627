#include "jobcolors.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ss {

QColor jobColor(int jobIndex)
{
    return QColor::fromRgb(jobRgb(jobIndex));
}

QRgb jobRgb(int jobIndex)
{
    if (jobIndex < 0)
        return qRgb(150, 150, 150);
    // Golden-ratio steps spread consecutive hues evenly; a slow second cycle in saturation/value keeps
    // indices whose hues nearly coincide (every 55th or so) apart. HSV->RGB by hand: the Gantt chart calls
    // this per drawn rectangle, and QColor's conversions dominated its paint time.
    const double x = 0.11 + jobIndex * 0.6180339887498949;
    const double h = (x - std::floor(x)) * 6.0;
    const int band = (jobIndex / 7) % 3;
    const double s = band == 0 ? 0.62 : band == 1 ? 0.78 : 0.50;
    const double v = band == 0 ? 0.90 : band == 1 ? 0.76 : 0.84;
    const int sector = std::min(5, int(h));
    const double f = h - sector;
    const double p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    double r, g, b;
    switch (sector) {
    case 0: r = v, g = t, b = p; break;
    case 1: r = q, g = v, b = p; break;
    case 2: r = p, g = v, b = t; break;
    case 3: r = p, g = q, b = v; break;
    case 4: r = t, g = p, b = v; break;
    default: r = v, g = p, b = q; break;
    }
    return qRgb(int(std::lround(r * 255)), int(std::lround(g * 255)), int(std::lround(b * 255)));
}

bool isDarkPalette(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightnessF() < palette.color(QPalette::WindowText).lightnessF();
}

QColor selectionColor(const QPalette& palette)
{
    return isDarkPalette(palette) ? QColor(255, 255, 255) : QColor(0, 0, 0);
}

QRgb scoreRgb(double t)
{
    // Viridis control points (matplotlib), interpolated linearly: perceptually ordered and readable in grey.
    static const std::array<std::array<int, 3>, 9> pts = {{{68, 1, 84},
                                                           {71, 44, 122},
                                                           {59, 81, 139},
                                                           {44, 113, 142},
                                                           {33, 144, 141},
                                                           {39, 173, 129},
                                                           {92, 200, 99},
                                                           {170, 220, 50},
                                                           {253, 231, 37}}};
    static const std::array<QRgb, 256> lut = [] {
        std::array<QRgb, 256> l{};
        for (int i = 0; i < 256; ++i) {
            const double x = i / 255.0 * double(pts.size() - 1);
            const int k = std::min(int(x), int(pts.size()) - 2);
            const double f = x - k;
            auto mix = [&](int c) { return int(std::lround(pts[size_t(k)][size_t(c)] * (1 - f) + pts[size_t(k + 1)][size_t(c)] * f)); };
            l[size_t(i)] = qRgb(mix(0), mix(1), mix(2));
        }
        return l;
    }();
    if (!(t >= 0))
        t = 0; // also NaN
    if (t > 1)
        t = 1;
    return lut[size_t(t * 255.0 + 0.5)];
}

} // namespace ss
