// The Gittins index table of 2D-Gittins (GittinsTable, tiresias.h) and the size-distribution reader.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "policy/tiresias.h"

namespace ss {

GittinsTable::GittinsTable(std::vector<double> sizes, double delta) : m_sizes(std::move(sizes)), m_delta(delta)
{
    std::sort(m_sizes.begin(), m_sizes.end());
    m_prefix.assign(m_sizes.size() + 1, 0.0);
    for (size_t i = 0; i < m_sizes.size(); ++i)
        m_prefix[i + 1] = m_prefix[i] + m_sizes[i];
}

double GittinsTable::index(double a) const
{
    if (m_sizes.empty() || a >= m_sizes.back())
        return 0.0;
    const size_t lo = size_t(std::upper_bound(m_sizes.begin(), m_sizes.end(), a) - m_sizes.begin());
    const size_t hi = size_t(std::upper_bound(m_sizes.begin(), m_sizes.end(), a + m_delta) - m_sizes.begin());
    return value(a, lo, hi);
}

size_t GittinsTable::upperFrom(double x, size_t from) const { return gallopUpperBound(m_sizes, x, from); }

double GittinsTable::index(double a, Hint& h) const
{
    if (m_sizes.empty() || a >= m_sizes.back())
        return 0.0;
    h.lo = upperFrom(a, h.lo);
    h.hi = upperFrom(a + m_delta, std::max(h.hi, h.lo));
    return value(a, h.lo, h.hi);
}

double GittinsTable::value(double a, size_t lo, size_t hi) const { return valueIn(a, lo, hi, windowSum(lo, hi)); }

double GittinsTable::valueIn(double a, size_t lo, size_t hi, double window) const
{
    const size_t n = m_sizes.size();
    const double rem = double(n - lo);
    const double p = double(hi - lo) / rem;
    const double e = (window - a * double(hi - lo) + m_delta * double(n - hi)) / rem;
    if (e <= 0)
        return std::numeric_limits<double>::max();
    return p * 1e6 / e;
}

double GittinsTable::slackAt(double a) const
{
    // value() is p * 1e6 / e = 1e6 * k / (sum over the window - a k + delta (n - hi)); the sum is a difference of
    // prefix sums, so allow far more than its rounding (a few units in the last place of the largest terms)
    return 2e-12 * (m_prefix.back() + double(m_sizes.size()) * (m_sizes.back() + m_delta + std::fabs(a)));
}

double GittinsTable::lowerValue(double a, size_t lo, size_t hi, double window) const
{
    const size_t n = m_sizes.size();
    if (lo >= n || hi <= lo)
        return 0.0;
    const double k = double(hi - lo);
    const double num = window - a * k + m_delta * double(n - hi);
    const double den = num + slackAt(a);
    if (!(den > 0))
        return 0.0;
    return 1e6 * k / den * (1 - 1e-9);
}

double GittinsTable::upperValue(double a, size_t lo, size_t hi, double window) const
{
    const size_t n = m_sizes.size();
    if (lo >= n || hi <= lo)
        return 0.0; // no sample in the window: the index is 0 (value() divides 0 by a positive e)
    const double k = double(hi - lo);
    const double num = window - a * k + m_delta * double(n - hi);
    const double den = num - slackAt(a);
    if (!(den > 0))
        return std::numeric_limits<double>::infinity();
    return 1e6 * k / den * (1 + 1e-9);
}

std::pair<double, double> GittinsTable::boundsAt(double a, double end, const Hint& h, double window) const
{
    if (m_sizes.empty() || a >= m_sizes.back())
        return {0.0, 0.0};
    // the index rises inside a piece: its minimum is at `a`, its supremum the limit at the piece's end
    return {lowerValue(a, h.lo, h.hi, window), upperValue(std::max(a, end), h.lo, h.hi, window)};
}

void GittinsTable::pieceStarts(std::vector<double>& at, std::vector<double>& low, std::vector<double>& high,
                               std::vector<std::pair<size_t, size_t>>* hints) const
{
    at.clear();
    low.clear();
    high.clear();
    if (hints)
        hints->clear();
    const size_t n = m_sizes.size();
    if (n == 0)
        return;
    // the window (a, a + delta] loses a sample when a reaches it and gains one when a + delta does
    std::vector<double> s, sd;
    s.reserve(n);
    sd.reserve(n);
    for (size_t i = 0; i < n; ++i)
        if (i == 0 || m_sizes[i] != m_sizes[i - 1]) {
            s.push_back(m_sizes[i]);
            sd.push_back(m_sizes[i] - m_delta);
        }
    at.resize(s.size() + sd.size());
    std::merge(s.begin(), s.end(), sd.begin(), sd.end(), at.begin());
    at.erase(std::unique(at.begin(), at.end()), at.end());
    low.reserve(at.size());
    size_t lo = 0, hi = 0;
    for (const double b : at) {
        // the positions index() finds at b (upper bounds of b and b + delta), both moving forward
        while (lo < n && !(b < m_sizes[lo]))
            ++lo;
        const double x = b + m_delta;
        while (hi < n && !(x < m_sizes[hi]))
            ++hi;
        const size_t h = std::max(lo, hi);
        low.push_back(b >= m_sizes.back() ? 0.0 : lowerValue(b, lo, h, windowSum(lo, h)));
        if (hints)
            hints->push_back({lo, h});
    }
    high.reserve(at.size());
    lo = hi = 0;
    for (size_t i = 0; i < at.size(); ++i) {
        const double b = at[i];
        while (lo < n && !(b < m_sizes[lo]))
            ++lo;
        while (hi < n && !(b + m_delta < m_sizes[hi]))
            ++hi;
        // up to the next piece start (the last piece starts at the largest sample, where the index is 0)
        const size_t h = std::max(lo, hi);
        high.push_back(b >= m_sizes.back() || i + 1 == at.size() ? 0.0 : upperValue(at[i + 1], lo, h, windowSum(lo, h)));
    }
}

std::vector<double> readSizeDistribution(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error(path + ": cannot open the size distribution (gittins.dist)");
    std::string line;
    long lineNo = 0;
    int col = -1;
    std::vector<double> out;
    auto split = [](const std::string& s) {
        std::vector<std::string> f;
        std::string cur;
        for (char c : s) {
            if (c == ',') {
                f.push_back(cur);
                cur.clear();
            } else if (c != '\r' && c != '"') {
                cur += c;
            }
        }
        f.push_back(cur);
        for (auto& x : f) {
            size_t a = x.find_first_not_of(" \t"), b = x.find_last_not_of(" \t");
            x = a == std::string::npos ? std::string() : x.substr(a, b - a + 1);
        }
        return f;
    };
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const auto f = split(line);
        if (col < 0) {
            for (size_t i = 0; i < f.size(); ++i) {
                std::string low = f[i];
                for (char& c : low)
                    c = char(std::tolower(static_cast<unsigned char>(c)));
                if (low == "duration")
                    col = int(i);
            }
            if (col >= 0)
                continue; // header
            if (f.size() != 1)
                throw std::runtime_error(path + ":" + std::to_string(lineNo) + ": column 'duration': no such column in the header");
            col = 0; // one bare column, no header: this line is data
        }
        if (size_t(col) >= f.size())
            throw std::runtime_error(path + ":" + std::to_string(lineNo) + ": column 'duration': missing");
        char* end = nullptr;
        const double v = std::strtod(f[size_t(col)].c_str(), &end);
        if (f[size_t(col)].empty() || *end != '\0' || !std::isfinite(v) || v < 0)
            throw std::runtime_error(path + ":" + std::to_string(lineNo) + ": column 'duration': not a non-negative number: '"
                                     + f[size_t(col)] + "'");
        out.push_back(v);
    }
    if (out.empty())
        throw std::runtime_error(path + ": column 'duration': no samples");
    return out;
}

} // namespace ss
