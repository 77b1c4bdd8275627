#pragma once
// The errors every reader throws. Its own header so that json, textio and the readers need not include
// each other for it.
#include <stdexcept>
#include <string>

namespace ss {

/// A reading error. what() is one line: "FILE:LINE: column 'FIELD': REASON" (line/field omitted when unknown).
class IoError : public std::runtime_error {
public:
    IoError(std::string file, long line, std::string field, const std::string& reason);
    const std::string& file() const { return m_file; }
    long line() const { return m_line; }
    const std::string& field() const { return m_field; }
    const std::string& reason() const { return m_reason; } ///< without file, line and field
private:
    std::string m_file;
    long m_line;
    std::string m_field;
    std::string m_reason;
};

/// Reading was cancelled through the progress callback.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

} // namespace ss
