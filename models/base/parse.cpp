#include "models/base/parse.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

namespace dlsim {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
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
    if (text.find('\0') != std::string_view::npos) return std::nullopt;  // strptime would stop there
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
        // Exactly HH:MM or HHMM, digit by digit: sscanf's %2d also takes one digit or a sign, and the
        // fixed step past it then ran beyond the end of the text ("+1:2").
        const auto digit = [&](std::size_t i) { return rest[i] >= '0' && rest[i] <= '9'; };
        const auto two = [&](std::size_t i) { return (rest[i] - '0') * 10 + (rest[i + 1] - '0'); };
        int hh = 0, mm = 0;
        if (digit(0) && digit(1) && rest[2] == ':' && digit(3) && digit(4)) {
            hh = two(0);
            mm = two(3);
            rest += 5;
        } else if (digit(0) && digit(1) && digit(2) && digit(3)) {
            hh = two(0);
            mm = two(2);
            rest += 4;
        } else {
            return std::nullopt;
        }
        if (hh > 23 || mm > 59) return std::nullopt;
        offset = sign * (hh * 3600L + mm * 60L);
    }
    if (*rest != '\0') return std::nullopt;
    const std::tm written = tm;
    const std::time_t t = timegm(&tm);  // normalises impossible dates (April 31 -> May 1): reject those
    if (tm.tm_mday != written.tm_mday || tm.tm_mon != written.tm_mon || tm.tm_hour != written.tm_hour)
        return std::nullopt;
    return static_cast<double>(t - offset) + fraction;
}

}  // namespace dlsim
