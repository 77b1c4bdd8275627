#pragma once
// A small JSON reader/writer for the project's own files (clusters, Gavel tables). Every value remembers
// the line it started on so that errors can say "file:line: column 'field': reason".
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ss {

/// One JSON value. Objects keep their keys sorted (std::map) and the order of insertion is not kept.
class JsonValue {
public:
    enum class Kind { Null, Bool, Number, String, Array, Object };

    JsonValue() = default;
    static JsonValue makeNumber(double v);
    static JsonValue makeString(std::string s);
    static JsonValue makeBool(bool b);
    static JsonValue makeArray();
    static JsonValue makeObject();

    Kind kind() const { return m_kind; }
    long line() const { return m_line; }
    bool isNull() const { return m_kind == Kind::Null; }
    bool isNumber() const { return m_kind == Kind::Number; }
    bool isString() const { return m_kind == Kind::String; }
    bool isArray() const { return m_kind == Kind::Array; }
    bool isObject() const { return m_kind == Kind::Object; }
    bool isBool() const { return m_kind == Kind::Bool; }

    double number() const { return m_num; }
    bool boolean() const { return m_bool; }
    const std::string& string() const { return m_str; }
    const std::vector<JsonValue>& array() const { return m_arr; }
    std::vector<JsonValue>& array() { return m_arr; }
    const std::map<std::string, JsonValue>& object() const { return m_obj; }
    std::map<std::string, JsonValue>& object() { return m_obj; }
    /// Member of an object, nullptr when absent (or when this is not an object).
    const JsonValue* find(const std::string& key) const;
    JsonValue& operator[](const std::string& key) { return m_obj[key]; }
    void push(JsonValue v) { m_arr.push_back(std::move(v)); }

    static const char* kindName(Kind k);

private:
    friend class JsonParser;
    Kind m_kind = Kind::Null;
    long m_line = 0;
    double m_num = 0;
    bool m_bool = false;
    std::string m_str;
    std::vector<JsonValue> m_arr;
    std::map<std::string, JsonValue> m_obj;
};

/// Parses `text`; throws IoError(fileForErrors, line, "", reason) on malformed input. Depth is limited.
JsonValue parseJson(std::string_view text, const std::string& fileForErrors);
/// Serialises with `indent`-space indentation and a final newline (indent < 0: compact, one line, no final
/// newline); numbers are written in their shortest round-trip form.
std::string writeJson(const JsonValue& v, int indent = 2);
/// `s` as a JSON string literal, quotes included (the one escaper every JSON writer of the project uses).
std::string jsonQuote(const std::string& s);
/// Shortest text that reads back as exactly `v` (integers without ".0").
std::string formatNumber(double v);

/// Typed access that throws IoError naming the file, the value's line and the field.
class JsonReader {
public:
    explicit JsonReader(std::string file) : m_file(std::move(file)) {}
    const std::string& file() const { return m_file; }
    const JsonValue& member(const JsonValue& obj, const std::string& key) const; ///< required
    double number(const JsonValue& obj, const std::string& key) const;
    double number(const JsonValue& obj, const std::string& key, double dflt) const;
    std::string string(const JsonValue& obj, const std::string& key) const;
    std::string string(const JsonValue& obj, const std::string& key, const std::string& dflt) const;
    const std::vector<JsonValue>& array(const JsonValue& obj, const std::string& key, bool required) const;
    [[noreturn]] void fail(const JsonValue& at, const std::string& field, const std::string& reason) const;

private:
    std::string m_file;
};

} // namespace ss
