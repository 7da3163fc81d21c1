#include "traces/row_parsing.hpp"

#include "models/input_error.hpp"
#include "traces/csv_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>

namespace dlsim {

RowError field_error(std::string_view origin, std::uint32_t line, std::string_view column, std::string_view expected,
                     std::string_view got) {
    if (got.size() > 60) got = got.substr(0, 60);
    return RowError{fmt::format("bad {}", column),
                    fmt::format("{}:{}: column '{}': expected {}, got '{}'", origin, line, column, expected, got)};
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

std::optional<double> parse_double(std::string_view s) {
    s = trim(s);
    double v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<long long> parse_integer(std::string_view s) {
    s = trim(s);
    long long v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<double> parse_datetime(std::string_view text) {
    text = trim(text);
    if (text.size() < 19 || text.size() > 40) return std::nullopt;
    std::string s(text);
    if (s[10] == 'T') s[10] = ' ';
    std::tm tm{};
    const char* rest = strptime(s.c_str(), "%Y-%m-%d %H:%M:%S", &tm);
    if (rest == nullptr) return std::nullopt;
    double fraction = 0;
    if (*rest == '.') {
        const char* start = rest;
        ++rest;
        while (*rest >= '0' && *rest <= '9') ++rest;
        auto f = parse_double(std::string_view(start, static_cast<std::size_t>(rest - start)));
        if (!f) return std::nullopt;
        fraction = *f;
    }
    long offset = 0;
    if (*rest == 'Z') {
        ++rest;
    } else if (*rest == '+' || *rest == '-') {
        const int sign = *rest == '-' ? -1 : 1;
        ++rest;
        int hh = 0, mm = 0;
        if (std::sscanf(rest, "%2d:%2d", &hh, &mm) == 2) rest += 5;
        else if (std::sscanf(rest, "%2d%2d", &hh, &mm) == 2) rest += 4;
        else return std::nullopt;
        if (hh > 23 || mm > 59) return std::nullopt;
        offset = sign * (hh * 3600L + mm * 60L);
    }
    if (*rest != '\0') return std::nullopt;
    const std::tm written = tm;
    const std::time_t t = timegm(&tm);  // normalises impossible dates (April 31 -> May 1): reject those
    if (tm.tm_mday != written.tm_mday || tm.tm_mon != written.tm_mon || tm.tm_hour != written.tm_hour) return std::nullopt;
    return static_cast<double>(t - offset) + fraction;
}

void finish_trace(Trace& trace) {
    if (trace.jobs.empty())
        throw InputError(trace.report.rows_read == 0
                             ? fmt::format("{}: no job rows", trace.path)
                             : fmt::format("{}: none of the {} rows is a job dlsim can use (see the report: {})",
                                           trace.path, trace.report.rows_read,
                                           trace.report.dropped.empty() ? std::string("no reasons recorded")
                                                                        : trace.report.dropped.begin()->first));
    double first = trace.jobs.front().submit_time;
    for (const auto& j : trace.jobs) first = std::min(first, j.submit_time);
    if (first != 0)
        for (auto& j : trace.jobs) j.submit_time -= first;
    trace.time_origin += first;
    trace.report.kept = trace.jobs.size();
}

}  // namespace dlsim
