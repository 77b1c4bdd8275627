#include "io/textio.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace ss::io {

namespace {
constexpr size_t kChunk = 1 << 20;        // read granularity
constexpr size_t kMaxLine = 16u << 20;    // a longer "line" is not text we can read
}

LineReader::LineReader(const std::string& path) : m_file(path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw IoError(path, 0, "", "is a directory");
    m_fp = std::fopen(path.c_str(), "rb");
    if (!m_fp)
        throw IoError(path, 0, "", std::string("cannot open: ") + std::strerror(errno));
    m_size = uint64_t(st.st_size);
    // Small files get a small buffer (it grows when a line is longer); big ones read 1 MiB at a time.
    m_buf.resize(size_t(std::clamp<uint64_t>(m_size + 1, 4096, kChunk)));
}

LineReader::~LineReader()
{
    if (m_fp)
        std::fclose(m_fp);
}

double LineReader::fraction() const
{
    return m_size ? std::min(1.0, double(m_consumed) / double(m_size)) : 1.0;
}

bool LineReader::fill()
{
    if (m_eof)
        return false;
    if (m_begin > 0) {
        std::memmove(m_buf.data(), m_buf.data() + m_begin, m_end - m_begin);
        m_end -= m_begin;
        m_begin = 0;
    }
    if (m_end == m_buf.size()) {
        if (m_buf.size() >= kMaxLine)
            throw IoError(m_file, m_line + 1, "", "line longer than 16 MiB (not a text trace?)");
        m_buf.resize(m_buf.size() * 2);
    }
    const size_t n = std::fread(m_buf.data() + m_end, 1, m_buf.size() - m_end, m_fp);
    if (n == 0) {
        if (std::ferror(m_fp))
            throw IoError(m_file, m_line + 1, "", std::string("read error: ") + std::strerror(errno));
        m_eof = true;
        return false;
    }
    m_end += n;
    return true;
}

bool LineReader::next(std::string_view& line)
{
    for (;;) {
        const char* start = m_buf.data() + m_begin;
        const void* nl = std::memchr(start, '\n', m_end - m_begin);
        if (nl || (m_eof && m_end > m_begin)) {
            const char* stop = nl ? static_cast<const char*>(nl) : m_buf.data() + m_end;
            size_t len = size_t(stop - start);
            const size_t consumed = len + (nl ? 1 : 0);
            m_begin += consumed;
            m_consumed += consumed;
            if (len && start[len - 1] == '\r')
                --len;
            ++m_line;
            line = std::string_view(start, len);
            if (m_line == 1 && line.substr(0, 3) == "\xEF\xBB\xBF")
                line.remove_prefix(3);
            if (std::memchr(line.data(), '\0', line.size()))
                throw IoError(m_file, m_line, "", "binary data (NUL byte); not a text trace");
            return true;
        }
        if (!fill()) {
            if (m_end > m_begin)
                continue; // last line without a final newline
            return false;
        }
    }
}

const std::vector<std::string_view>& FieldSplitter::split(std::string_view line, char delim)
{
    m_f.clear();
    if (line.find('"') == std::string_view::npos) {
        size_t p = 0;
        for (;;) {
            const size_t q = line.find(delim, p);
            if (q == std::string_view::npos) {
                m_f.push_back(line.substr(p));
                break;
            }
            m_f.push_back(line.substr(p, q - p));
            p = q + 1;
        }
        return m_f;
    }
    // Quoted fields: unescape into a scratch buffer reserved up front so views stay valid.
    m_scratch.clear();
    m_scratch.reserve(line.size() + 1);
    size_t p = 0;
    for (;;) {
        if (p < line.size() && line[p] == '"') {
            const size_t begin = m_scratch.size();
            ++p;
            for (;;) {
                if (p >= line.size())
                    break; // unterminated: take what is there
                if (line[p] == '"') {
                    if (p + 1 < line.size() && line[p + 1] == '"') {
                        m_scratch += '"';
                        p += 2;
                        continue;
                    }
                    ++p;
                    break;
                }
                m_scratch += line[p++];
            }
            // text after the closing quote up to the delimiter is kept as is
            const size_t q = line.find(delim, p);
            const size_t stop = q == std::string_view::npos ? line.size() : q;
            m_scratch.append(line.substr(p, stop - p));
            m_f.push_back(std::string_view(m_scratch).substr(begin));
            if (q == std::string_view::npos)
                break;
            p = q + 1;
        } else {
            const size_t q = line.find(delim, p);
            if (q == std::string_view::npos) {
                m_f.push_back(line.substr(p));
                break;
            }
            m_f.push_back(line.substr(p, q - p));
            p = q + 1;
        }
    }
    return m_f;
}

const std::vector<std::string_view>& FieldSplitter::splitWhitespace(std::string_view line)
{
    m_f.clear();
    size_t p = 0;
    while (p < line.size()) {
        while (p < line.size() && (line[p] == ' ' || line[p] == '\t'))
            ++p;
        if (p >= line.size())
            break;
        size_t q = p;
        while (q < line.size() && line[q] != ' ' && line[q] != '\t')
            ++q;
        m_f.push_back(line.substr(p, q - p));
        p = q;
    }
    return m_f;
}

std::string readWholeFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw IoError(path, 0, "", "cannot open");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool iequals(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

std::string lower(std::string_view s)
{
    std::string r(s);
    for (auto& c : r)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return r;
}

void fail(const FieldRef& at, const std::string& reason)
{
    throw IoError(at.file, at.line, std::string(at.column), reason);
}

static std::string shown(std::string_view t)
{
    std::string s;
    for (char c : t.substr(0, 40))
        s += (static_cast<unsigned char>(c) >= 32 && static_cast<unsigned char>(c) < 127) ? c : '?';
    if (t.size() > 40)
        s += "...";
    return s;
}

double parseNumber(std::string_view text, const FieldRef& at)
{
    std::string_view t = trim(text);
    if (t.empty())
        fail(at, "empty; a number is required");
    if (t.front() == '+')
        t.remove_prefix(1);
    double v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc::result_out_of_range)
        fail(at, "number out of range '" + shown(t) + "'");
    if (ec != std::errc() || p != t.data() + t.size())
        fail(at, "expected a number, found '" + shown(t) + "'");
    if (!std::isfinite(v))
        fail(at, "expected a finite number, found '" + shown(t) + "'");
    return v;
}

double parseNumberOr(std::string_view text, double dflt, const FieldRef& at)
{
    if (trim(text).empty())
        return dflt;
    return parseNumber(text, at);
}

int64_t parseInt(std::string_view text, const FieldRef& at)
{
    std::string_view t = trim(text);
    if (t.empty())
        fail(at, "empty; an integer is required");
    int64_t v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc() && p == t.data() + t.size())
        return v;
    const double d = parseNumber(t, at);
    if (d != std::floor(d) || std::fabs(d) > 9e15)
        fail(at, "expected an integer, found '" + shown(t) + "'");
    return int64_t(d);
}

int64_t daysFromCivil(int64_t y, unsigned m, unsigned d)
{
    // Howard Hinnant's algorithm: exact for the proleptic Gregorian calendar.
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = unsigned(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + int64_t(doe) - 719468;
}

static bool digits(std::string_view t, size_t pos, size_t n, int& out)
{
    if (pos + n > t.size())
        return false;
    int v = 0;
    for (size_t i = 0; i < n; ++i) {
        const char c = t[pos + i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    out = v;
    return true;
}

bool parseIsoDateTime(std::string_view t, double& out)
{
    t = trim(t);
    int y, mo, d, h = 0, mi = 0, s = 0;
    if (!digits(t, 0, 4, y) || t.size() < 10 || t[4] != '-' || !digits(t, 5, 2, mo) || t[7] != '-'
        || !digits(t, 8, 2, d))
        return false;
    size_t p = 10;
    double frac = 0;
    if (p < t.size()) {
        if ((t[p] != ' ' && t[p] != 'T') || !digits(t, p + 1, 2, h) || t.size() < p + 9 || t[p + 3] != ':'
            || !digits(t, p + 4, 2, mi) || t[p + 6] != ':' || !digits(t, p + 7, 2, s))
            return false;
        p += 9;
        if (p < t.size() && t[p] == '.') {
            size_t q = p + 1;
            double scale = 0.1;
            while (q < t.size() && t[q] >= '0' && t[q] <= '9') {
                frac += (t[q] - '0') * scale;
                scale /= 10;
                ++q;
            }
            p = q;
        }
        if (p < t.size() && t[p] == 'Z')
            ++p;
        if (p != t.size())
            return false;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
        return false;
    out = double(daysFromCivil(y, unsigned(mo), unsigned(d)) * 86400 + h * 3600 + mi * 60 + s) + frac;
    return true;
}

bool parseTimeWithFormat(std::string_view t, std::string_view fmt, double& out)
{
    t = trim(t);
    int y = 1970, mo = 1, d = 1, h = 0, mi = 0, s = 0;
    size_t p = 0;
    for (size_t i = 0; i < fmt.size(); ++i) {
        if (fmt[i] != '%' || i + 1 == fmt.size()) {
            if (p >= t.size() || t[p] != fmt[i])
                return false;
            ++p;
            continue;
        }
        const char c = fmt[++i];
        auto num = [&](int maxDigits, int& v) {
            int n = 0, acc = 0;
            while (n < maxDigits && p < t.size() && t[p] >= '0' && t[p] <= '9') {
                acc = acc * 10 + (t[p++] - '0');
                ++n;
            }
            v = acc;
            return n > 0;
        };
        bool ok = true;
        switch (c) {
        case 'Y': ok = num(4, y); break;
        case 'm': ok = num(2, mo); break;
        case 'd': ok = num(2, d); break;
        case 'H': ok = num(2, h); break;
        case 'M': ok = num(2, mi); break;
        case 'S': ok = num(2, s); break;
        case '%': ok = p < t.size() && t[p++] == '%'; break;
        default: return false;
        }
        if (!ok)
            return false;
    }
    if (p != t.size() || mo < 1 || mo > 12 || d < 1 || d > 31)
        return false;
    out = double(daysFromCivil(y, unsigned(mo), unsigned(d)) * 86400 + h * 3600 + mi * 60 + s);
    return true;
}

Header::Header(const std::vector<std::string_view>& fields)
{
    for (auto f : fields)
        m_names.push_back(lower(trim(f)));
}

int Header::index(std::string_view name) const
{
    for (size_t i = 0; i < m_names.size(); ++i)
        if (iequals(m_names[i], name))
            return int(i);
    return -1;
}

int Header::require(std::string_view name, const std::string& file, long line) const
{
    const int i = index(name);
    if (i < 0)
        throw IoError(file, line, std::string(name), "column missing from the header");
    return i;
}

} // namespace ss::io
