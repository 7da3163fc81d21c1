#include "traces/readers/row_parsing.hpp"

#include "models/base/input_error.hpp"
#include "models/base/input_text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dlsim {

RowError field_error(std::string_view origin, std::uint32_t line, std::string_view column, std::string_view expected,
                     std::string_view got) {
    if (got.size() > 60) got = got.substr(0, 60);
    return RowError{fmt::format("bad {}", column), fmt::format("{}:{}: column '{}': expected {}, got '{}'", origin,
                                                               line, printable(column), expected, printable(got))};
}

RowError field_count_error(std::string_view origin, std::uint32_t line, std::size_t expected, std::size_t got) {
    return RowError{"wrong number of fields",
                    fmt::format("{}:{}: expected {} fields as in the header, got {}", origin, line, expected, got)};
}

void handle_row_error(const RowError& e, BadLinePolicy policy, ReadReport& report) {
    if (policy == BadLinePolicy::Error) throw InputError(e.message);
    ++report.dropped[e.reason];
    if (report.first_errors.size() < 5) report.first_errors.push_back(e.message);
}

void finish_trace(Trace& trace, bool rebase) {
    if (trace.jobs.empty())
        throw InputError(trace.report.rows_read == 0
                             ? fmt::format("{}: no job rows", trace.path)
                             : fmt::format("{}: none of the {} rows is a job dlsim can use (see the report: {})",
                                           trace.path, trace.report.rows_read,
                                           trace.report.dropped.empty() ? std::string("no reasons recorded")
                                                                        : trace.report.dropped.begin()->first));
    double first = trace.jobs.front().submit_time;
    for (const auto& j : trace.jobs) first = std::min(first, j.submit_time);
    if (rebase && first != 0) {
        for (auto& j : trace.jobs) j.submit_time -= first;
        trace.time_origin += first;
    }
    trace.report.kept = trace.jobs.size();
}

}  // namespace dlsim
