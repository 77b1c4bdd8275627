#pragma once
// A first look at a CSV the readers do not recognise: its header and first rows, and a guess of which
// column holds what (the keys of TraceReadOptions::columnMap), for the studio's column-mapping dialog and
// `schedstudio-cli inspect-csv`. The mapping itself is read by the generic CSV reader (--format csv --map).
#include <map>
#include <string>
#include <vector>

namespace ss {

/// One key of a column map: what the generic CSV reader reads from the column mapped to it.
struct ColumnMapKey {
    const char* key;
    const char* meaning;
    bool required; ///< submit and gpus; duration or end (one of the two) is checked separately
};
/// Every key the generic CSV reader knows, in the order a form should list them.
const std::vector<ColumnMapKey>& columnMapKeys();
bool isColumnMapKey(const std::string& key);

struct CsvPreview {
    std::string file;
    char delimiter = ',';
    std::vector<std::string> header;              ///< trimmed column names
    std::vector<std::vector<std::string>> rows;   ///< the first data rows (at most maxRows), fields trimmed
    long firstDataLine = 2;                       ///< file line of rows[0]
};

/// Header and the first `maxRows` data rows (blank lines skipped; comma, or tab when the header has tabs and no
/// comma). Throws IoError (file, line) on an empty or unreadable file, binary data, or a header with an empty or
/// repeated column name.
CsvPreview previewCsv(const std::string& path, int maxRows = 20);

struct ColumnGuess {
    std::map<std::string, std::string> columns; ///< key -> column name
    std::string timeFormat;                     ///< "" (seconds), "ms", or a strptime format
    std::vector<std::string> notes;             ///< one line per choice that was not a plain name match
};

/// Which column holds what, from the names (id / job_id, submit / submit_time / arrival, gpus / num_gpu, ...) and,
/// for the time unit, from the values of the first rows (ISO dates -> "%Y-%m-%d %H:%M:%S"; epoch milliseconds -> "ms").
ColumnGuess guessColumnMap(const CsvPreview& preview);

/// "" when `columns` (with `timeFormat`) is a mapping the generic reader accepts for this header, else why not
/// (a missing required key, an unknown key, a column not in the header).
std::string checkColumnMap(const CsvPreview& preview, const std::map<std::string, std::string>& columns);

} // namespace ss
