#include "traces/readers/csv_reader.hpp"

#include "models/base/input_error.hpp"
#include "models/base/input_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

namespace dlsim {

std::string_view strip_bom(std::string_view s) {
    if (s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
    return s;
}

void require_header(CsvLines& csv, std::vector<std::string_view>& fields, std::span<const char* const> columns,
                    std::string_view shown) {
    const std::string& path = csv.origin();
    if (!csv.next(fields)) throw InputError(fmt::format("{}: empty file, expected the header '{}'", path, shown));
    if (fields.size() != columns.size())
        throw InputError(fmt::format("{}:{}: expected the header '{}' ({} columns), got {} columns", path, csv.line(),
                                     shown, columns.size(), fields.size()));
    for (std::size_t i = 0; i < columns.size(); ++i) {
        const std::string_view name = trim(i == 0 ? strip_bom(fields[i]) : fields[i]);
        if (name != columns[i])
            throw InputError(fmt::format("{}:{}: header column {} should be '{}', got '{}' (expected the header '{}')",
                                         path, csv.line(), i + 1, columns[i], name, shown));
    }
}

void require_fields(const CsvLines& csv, std::span<const std::string_view> fields, std::size_t count,
                    std::string_view shown) {
    if (fields.size() != count)
        throw InputError(fmt::format("{}:{}: expected {} fields ({}), got {}", csv.origin(), csv.line(), count, shown,
                                     fields.size()));
}

void reject_nul_bytes(std::string_view text, std::string_view origin) {
    const std::size_t at = text.find('\0');
    if (at == std::string_view::npos) return;
    const std::string_view before = text.substr(0, at);
    const auto line = 1 + std::count(before.begin(), before.end(), '\n');
    const std::size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
    throw InputError(fmt::format("{}:{}:{}: NUL byte, expected text without NUL characters (a binary or UTF-16 file?)",
                                 origin, line, at - line_start + 1));
}

std::string read_whole_file(const std::string& path) { return read_input_file(path); }

CsvLines::CsvLines(const std::string& path, char separator) : CsvLines(read_whole_file(path), path, separator) {}

CsvLines::CsvLines(std::string text, std::string origin, char separator)
    : text_(std::move(text)), origin_(std::move(origin)), sep_(separator) {
    reject_nul_bytes(text_, origin_);
}

bool CsvLines::next(std::vector<std::string_view>& fields) {
    fields.clear();
    while (pos_ < text_.size()) {
        line_ = ++consumed_;
        std::size_t end = text_.find('\n', pos_);
        if (end == std::string::npos) end = text_.size();
        std::string_view row(text_.data() + pos_, end - pos_);
        // A quoted field may hold line breaks (RFC 4180): extend the record while a quote is open.
        if (row.find('"') != std::string_view::npos) {
            while (std::count(row.begin(), row.end(), '"') % 2 == 1 && end < text_.size()) {
                end = text_.find('\n', end + 1);
                if (end == std::string::npos) end = text_.size();
                ++consumed_;
                row = std::string_view(text_.data() + pos_, end - pos_);
            }
        }
        pos_ = end + 1;
        if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
        if (trim(row).empty()) continue;
        if (row.find('"') == std::string_view::npos) {
            // Fast path: no quoting.
            std::size_t start = 0;
            for (;;) {
                std::size_t cut = row.find(sep_, start);
                if (cut == std::string_view::npos) {
                    fields.push_back(row.substr(start));
                    break;
                }
                fields.push_back(row.substr(start, cut - start));
                start = cut + 1;
            }
            return true;
        }
        // Quoted fields: unquote into a buffer sized up front so views stay valid.
        unquoted_.clear();
        unquoted_.reserve(row.size());
        std::vector<std::pair<std::size_t, std::size_t>> spans;
        std::size_t i = 0, start = 0;
        bool quoted = false;
        while (i <= row.size()) {
            if (i == row.size() || (!quoted && row[i] == sep_)) {
                spans.emplace_back(start, unquoted_.size() - start);
                start = unquoted_.size();
                ++i;
                if (i > row.size()) break;
                continue;
            }
            char c = row[i];
            if (c == '"') {
                if (quoted && i + 1 < row.size() && row[i + 1] == '"') {
                    unquoted_.push_back('"');
                    i += 2;
                    continue;
                }
                quoted = !quoted;
                ++i;
                continue;
            }
            unquoted_.push_back(c);
            ++i;
        }
        if (quoted) throw InputError(fmt::format("{}:{}: unterminated quoted field", origin_, line_));
        for (auto [s, n] : spans) fields.emplace_back(unquoted_.data() + s, n);
        return true;
    }
    return false;
}

}  // namespace dlsim
