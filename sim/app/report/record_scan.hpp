#pragma once
// The fast way through a result file as dlsim writes it: the top level is split into its members without
// lexing the job records as JSON values, everything but the records is parsed as JSON (it is small), and
// the records, flat objects of plain strings, numbers and null plus a pending_reasons object of numbers,
// are read straight into columns. A million records take about a third of the time nlohmann's parser
// needs. Anything it does not expect (an escaped string, a nested value, a wrong type, a missing field)
// makes it give up, and the caller parses the file the general way, which names what is wrong.
#include "sim/app/report/report_data.hpp"

#include <string_view>
#include <utility>
#include <vector>

namespace dlsim::report {

/// Fills the record columns, types and reasons of `d` and returns the rest of the document in `doc`
/// (with "jobs" an empty array) and the number of records; false when the text is not as expected.
bool scan_result(std::string_view text, ReportData& d, Json& doc, std::size_t& records);

/// One event-log line as dlsim writes it: a flat object of strings, numbers and booleans, and `nodes`, a
/// list of [node, gpus]. Values are views into the line.
struct FlatLine {
    struct Field {
        std::string_view key, text;  ///< text: a string's characters, or a number's or literal's token
        bool is_string = false, is_number = false;
        double number = 0;
    };
    std::vector<Field> fields;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> nodes;
    bool has_nodes = false;
    const Field* find(std::string_view key) const {
        for (const Field& f : fields)
            if (f.key == key) return &f;
        return nullptr;
    }
};

/// Reads a line into `out` (reusing its storage); false when it is not a line as dlsim writes it or a
/// field the report reads has a type it does not expect (the caller then parses it the general way, which
/// names what is wrong).
bool scan_log_line(std::string_view line, FlatLine& out);

}  // namespace dlsim::report
