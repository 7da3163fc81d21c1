#pragma once
// Strict parsing of numbers and date-times from text fields, shared by every layer (trace readers,
// run configs, the command line).
#include <optional>
#include <string_view>

namespace dlsim {

/// `s` without leading and trailing spaces and tabs.
std::string_view trim(std::string_view s);

/// Strict number parsing of a trimmed field: the whole field, finite.
std::optional<double> parse_double(std::string_view s);
std::optional<long long> parse_integer(std::string_view s);

/// Seconds since the Unix epoch of "YYYY-MM-DD HH:MM:SS" (also with 'T', fractional seconds, and a
/// zone offset "+08:00", "+0800" or "Z"). Zone-less times are read as UTC, whatever the machine's zone.
std::optional<double> parse_datetime(std::string_view s);

}  // namespace dlsim
