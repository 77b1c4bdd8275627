#include "io/ioerror.h"

namespace ss {

static std::string ioMessage(const std::string& file, long line, const std::string& field, const std::string& reason)
{
    std::string m = file;
    if (line > 0)
        m += ":" + std::to_string(line);
    m += ": ";
    if (!field.empty())
        m += "column '" + field + "': ";
    // One line, always: reasons may quote file content.
    for (char c : reason)
        m += (c == '\n' || c == '\r') ? ' ' : c;
    return m;
}

IoError::IoError(std::string file, long line, std::string field, const std::string& reason)
    : std::runtime_error(ioMessage(file, line, field, reason))
    , m_file(std::move(file))
    , m_line(line)
    , m_field(std::move(field))
    , m_reason(reason)
{
}

} // namespace ss
