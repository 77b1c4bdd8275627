#include "io/json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "io/ioerror.h"

namespace ss {

JsonValue JsonValue::makeNumber(double v)
{
    JsonValue j;
    j.m_kind = Kind::Number;
    j.m_num = v;
    return j;
}
JsonValue JsonValue::makeString(std::string s)
{
    JsonValue j;
    j.m_kind = Kind::String;
    j.m_str = std::move(s);
    return j;
}
JsonValue JsonValue::makeBool(bool b)
{
    JsonValue j;
    j.m_kind = Kind::Bool;
    j.m_bool = b;
    return j;
}
JsonValue JsonValue::makeArray()
{
    JsonValue j;
    j.m_kind = Kind::Array;
    return j;
}
JsonValue JsonValue::makeObject()
{
    JsonValue j;
    j.m_kind = Kind::Object;
    return j;
}

const JsonValue* JsonValue::find(const std::string& key) const
{
    if (m_kind != Kind::Object)
        return nullptr;
    auto it = m_obj.find(key);
    return it == m_obj.end() ? nullptr : &it->second;
}

const char* JsonValue::kindName(Kind k)
{
    switch (k) {
    case Kind::Null: return "null";
    case Kind::Bool: return "a boolean";
    case Kind::Number: return "a number";
    case Kind::String: return "a string";
    case Kind::Array: return "an array";
    case Kind::Object: return "an object";
    }
    return "?";
}

class JsonParser {
public:
    JsonParser(std::string_view t, const std::string& f) : m_t(t), m_file(f) {}

    JsonValue parseDocument()
    {
        skipWs();
        if (m_p >= m_t.size())
            fail("empty document");
        JsonValue v = parseValue(0);
        skipWs();
        if (m_p < m_t.size())
            fail("unexpected text after the JSON value");
        return v;
    }

private:
    std::string_view m_t;
    const std::string& m_file;
    size_t m_p = 0;
    long m_line = 1;

    [[noreturn]] void fail(const std::string& reason) const { throw IoError(m_file, m_line, "", reason); }

    void skipWs()
    {
        while (m_p < m_t.size()) {
            const char c = m_t[m_p];
            if (c == '\n') {
                ++m_line;
                ++m_p;
            } else if (c == ' ' || c == '\t' || c == '\r') {
                ++m_p;
            } else {
                break;
            }
        }
    }

    JsonValue parseValue(int depth)
    {
        if (depth > 200)
            fail("nesting too deep");
        skipWs();
        if (m_p >= m_t.size())
            fail("unexpected end of file");
        JsonValue v;
        v.m_line = m_line;
        const char c = m_t[m_p];
        if (c == '{') {
            v.m_kind = JsonValue::Kind::Object;
            ++m_p;
            skipWs();
            if (m_p < m_t.size() && m_t[m_p] == '}') {
                ++m_p;
                return v;
            }
            for (;;) {
                skipWs();
                if (m_p >= m_t.size() || m_t[m_p] != '"')
                    fail("expected a string key");
                std::string key = parseString();
                skipWs();
                if (m_p >= m_t.size() || m_t[m_p] != ':')
                    fail("expected ':' after key \"" + key + "\"");
                ++m_p;
                JsonValue member = parseValue(depth + 1);
                v.m_obj.insert_or_assign(std::move(key), std::move(member));
                skipWs();
                if (m_p >= m_t.size())
                    fail("unexpected end of file in an object");
                if (m_t[m_p] == ',') {
                    ++m_p;
                    continue;
                }
                if (m_t[m_p] == '}') {
                    ++m_p;
                    return v;
                }
                fail("expected ',' or '}' in an object");
            }
        }
        if (c == '[') {
            v.m_kind = JsonValue::Kind::Array;
            ++m_p;
            skipWs();
            if (m_p < m_t.size() && m_t[m_p] == ']') {
                ++m_p;
                return v;
            }
            for (;;) {
                v.m_arr.push_back(parseValue(depth + 1));
                skipWs();
                if (m_p >= m_t.size())
                    fail("unexpected end of file in an array");
                if (m_t[m_p] == ',') {
                    ++m_p;
                    continue;
                }
                if (m_t[m_p] == ']') {
                    ++m_p;
                    return v;
                }
                fail("expected ',' or ']' in an array");
            }
        }
        if (c == '"') {
            v.m_kind = JsonValue::Kind::String;
            v.m_str = parseString();
            return v;
        }
        if (m_t.substr(m_p, 4) == "true") {
            m_p += 4;
            v.m_kind = JsonValue::Kind::Bool;
            v.m_bool = true;
            return v;
        }
        if (m_t.substr(m_p, 5) == "false") {
            m_p += 5;
            v.m_kind = JsonValue::Kind::Bool;
            return v;
        }
        if (m_t.substr(m_p, 4) == "null") {
            m_p += 4;
            return v;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            size_t e = m_p + 1;
            while (e < m_t.size()) {
                const char d = m_t[e];
                if ((d >= '0' && d <= '9') || d == '.' || d == 'e' || d == 'E' || d == '+' || d == '-')
                    ++e;
                else
                    break;
            }
            double num = 0;
            auto [ptr, ec] = std::from_chars(m_t.data() + m_p, m_t.data() + e, num);
            if (ec != std::errc() || ptr != m_t.data() + e)
                fail("malformed number '" + std::string(m_t.substr(m_p, e - m_p)) + "'");
            m_p = e;
            v.m_kind = JsonValue::Kind::Number;
            v.m_num = num;
            return v;
        }
        // Python's json.dump writes these for non-finite floats; accept them rather than reject real files.
        if (m_t.substr(m_p, 3) == "NaN" || m_t.substr(m_p, 8) == "Infinity" || m_t.substr(m_p, 9) == "-Infinity") {
            const bool neg = c == '-';
            const bool nan = c == 'N';
            m_p += nan ? 3 : (neg ? 9 : 8);
            v.m_kind = JsonValue::Kind::Number;
            v.m_num = nan ? std::nan("") : (neg ? -HUGE_VAL : HUGE_VAL);
            return v;
        }
        fail(std::string("unexpected character '") + (c >= 32 && c < 127 ? std::string(1, c) : "\\x" + hex(c))
             + "'");
    }

    static std::string hex(char c)
    {
        char b[4];
        std::snprintf(b, sizeof b, "%02x", unsigned(static_cast<unsigned char>(c)));
        return b;
    }

    static void appendUtf8(std::string& out, uint32_t cp)
    {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }

    uint32_t parseHex4()
    {
        if (m_p + 4 > m_t.size())
            fail("truncated \\u escape");
        uint32_t cp = 0;
        auto [ptr, ec] = std::from_chars(m_t.data() + m_p, m_t.data() + m_p + 4, cp, 16);
        if (ec != std::errc() || ptr != m_t.data() + m_p + 4)
            fail("malformed \\u escape");
        m_p += 4;
        return cp;
    }

    std::string parseString()
    {
        ++m_p; // opening quote
        std::string out;
        for (;;) {
            if (m_p >= m_t.size())
                fail("unterminated string");
            const char c = m_t[m_p++];
            if (c == '"')
                return out;
            if (c == '\n')
                fail("newline inside a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_p >= m_t.size())
                fail("unterminated string");
            const char e = m_t[m_p++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                uint32_t cp = parseHex4();
                if (cp >= 0xD800 && cp < 0xDC00 && m_t.substr(m_p, 2) == "\\u") {
                    m_p += 2;
                    const uint32_t lo = parseHex4();
                    if (lo >= 0xDC00 && lo < 0xE000)
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
                appendUtf8(out, cp);
                break;
            }
            default: fail(std::string("unknown escape '\\") + e + "'");
            }
        }
    }
};

JsonValue parseJson(std::string_view text, const std::string& fileForErrors)
{
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3);
    return JsonParser(text, fileForErrors).parseDocument();
}

std::string formatNumber(double v)
{
    if (!std::isfinite(v))
        return "null"; // JSON has no NaN/Inf; writers must not produce them for valid data
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        char buf[32];
        auto [p, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(v));
        return std::string(buf, p);
    }
    char buf[64];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, p);
}

static void writeString(std::string& out, const std::string& s)
{
    out += '"';
    for (const char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char b[8];
                std::snprintf(b, sizeof b, "\\u%04x", unsigned(c));
                out += b;
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

std::string jsonQuote(const std::string& s)
{
    std::string out;
    out.reserve(s.size() + 2);
    writeString(out, s);
    return out;
}

static bool isScalarArray(const JsonValue& v)
{
    for (const auto& e : v.array())
        if (e.isArray() || e.isObject())
            return false;
    return true;
}

static void writeValue(std::string& out, const JsonValue& v, int indent, int level)
{
    // indent < 0: one line, no spaces (compact)
    const bool compact = indent < 0;
    const std::string pad(compact ? 0 : size_t(indent * (level + 1)), ' ');
    const std::string padEnd(compact ? 0 : size_t(indent * level), ' ');
    const char* nl = compact ? "" : "\n";
    switch (v.kind()) {
    case JsonValue::Kind::Null: out += "null"; break;
    case JsonValue::Kind::Bool: out += v.boolean() ? "true" : "false"; break;
    case JsonValue::Kind::Number: out += formatNumber(v.number()); break;
    case JsonValue::Kind::String: writeString(out, v.string()); break;
    case JsonValue::Kind::Array:
        if (v.array().empty()) {
            out += "[]";
        } else if (compact || isScalarArray(v)) {
            out += '[';
            for (size_t i = 0; i < v.array().size(); ++i) {
                if (i)
                    out += compact ? "," : ", ";
                writeValue(out, v.array()[i], indent, level + 1);
            }
            out += ']';
        } else {
            out += "[\n";
            for (size_t i = 0; i < v.array().size(); ++i) {
                out += pad;
                writeValue(out, v.array()[i], indent, level + 1);
                out += i + 1 < v.array().size() ? ",\n" : "\n";
            }
            out += padEnd + "]";
        }
        break;
    case JsonValue::Kind::Object:
        if (v.object().empty()) {
            out += "{}";
            break;
        }
        out += '{';
        out += nl;
        {
            size_t i = 0;
            for (const auto& [k, m] : v.object()) {
                out += pad;
                writeString(out, k);
                out += compact ? ":" : ": ";
                writeValue(out, m, indent, level + 1);
                if (++i < v.object().size())
                    out += ',';
                out += nl;
            }
        }
        out += padEnd + "}";
        break;
    }
}

std::string writeJson(const JsonValue& v, int indent)
{
    std::string out;
    writeValue(out, v, indent, 0);
    if (indent >= 0)
        out += '\n';
    return out;
}

// ---- JsonReader ----

void JsonReader::fail(const JsonValue& at, const std::string& field, const std::string& reason) const
{
    throw IoError(m_file, at.line(), field, reason);
}

const JsonValue& JsonReader::member(const JsonValue& obj, const std::string& key) const
{
    if (!obj.isObject())
        fail(obj, key, std::string("expected an object, found ") + JsonValue::kindName(obj.kind()));
    const JsonValue* v = obj.find(key);
    if (!v)
        fail(obj, key, "missing");
    return *v;
}

double JsonReader::number(const JsonValue& obj, const std::string& key) const
{
    const JsonValue& v = member(obj, key);
    if (!v.isNumber())
        fail(v, key, std::string("expected a number, found ") + JsonValue::kindName(v.kind()));
    if (!std::isfinite(v.number()))
        fail(v, key, "must be finite");
    return v.number();
}

double JsonReader::number(const JsonValue& obj, const std::string& key, double dflt) const
{
    if (!obj.find(key))
        return dflt;
    return number(obj, key);
}

std::string JsonReader::string(const JsonValue& obj, const std::string& key) const
{
    const JsonValue& v = member(obj, key);
    if (!v.isString())
        fail(v, key, std::string("expected a string, found ") + JsonValue::kindName(v.kind()));
    return v.string();
}

std::string JsonReader::string(const JsonValue& obj, const std::string& key, const std::string& dflt) const
{
    if (!obj.find(key))
        return dflt;
    return string(obj, key);
}

const std::vector<JsonValue>& JsonReader::array(const JsonValue& obj, const std::string& key, bool required) const
{
    static const std::vector<JsonValue> empty;
    if (!required && !obj.find(key))
        return empty;
    const JsonValue& v = member(obj, key);
    if (!v.isArray())
        fail(v, key, std::string("expected an array, found ") + JsonValue::kindName(v.kind()));
    return v.array();
}

} // namespace ss
