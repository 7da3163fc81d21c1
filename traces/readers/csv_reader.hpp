#pragma once
// Line-by-line CSV splitting shared by the CSV trace readers: RFC 4180 quoting, CRLF, blank lines.
#include "models/base/parse.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

class CsvLines {
public:
    /// Reads the whole file; a missing file is an InputError naming it.
    explicit CsvLines(const std::string& path, char separator = ',');
    /// Splits text already in memory; `origin` names it in messages.
    CsvLines(std::string text, std::string origin, char separator);

    /// Next non-blank line split into fields (views into an internal buffer valid until the next call).
    /// Returns false at the end of the file.
    bool next(std::vector<std::string_view>& fields);
    /// 1-based number of the line where the record last returned starts.
    std::uint32_t line() const { return line_; }
    const std::string& origin() const { return origin_; }

private:
    std::string text_, origin_, unquoted_;
    std::size_t pos_ = 0;
    std::uint32_t line_ = 0, consumed_ = 0;
    char sep_;
};

/// The whole file in one read into a string sized up front (traces can be hundreds of MB; a
/// stringstream copy costs twice as much). A missing file is an InputError naming it.
std::string read_whole_file(const std::string& path);

/// Rejects a NUL byte anywhere in a trace's text with an InputError "<origin>:<line>:<column>: ..." (the
/// 1-based byte column in that line). Every trace reader calls it on the whole text before reading rows,
/// so no job id, name or other string field can carry one (CsvLines does it for the readers built on it).
void reject_nul_bytes(std::string_view text, std::string_view origin);

/// Drops a leading UTF-8 byte-order mark (Excel writes one at the start of CSV files).
std::string_view strip_bom(std::string_view s);

/// Reads the first record and requires exactly `columns` (trimmed, after a BOM); `shown` is the header
/// as the messages quote it. A missing or different header is an InputError naming file:line and column.
void require_header(CsvLines& csv, std::vector<std::string_view>& fields, std::span<const char* const> columns,
                    std::string_view shown);

/// The record just read must have exactly `count` fields, else an InputError
/// "file:line: expected <count> fields (<shown>), got <n>".
void require_fields(const CsvLines& csv, std::span<const std::string_view> fields, std::size_t count,
                    std::string_view shown);

}  // namespace dlsim
