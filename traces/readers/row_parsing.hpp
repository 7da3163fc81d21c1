#pragma once
// What every trace reader shares: numbers and date-times parsed strictly, row errors that name
// file:line, the column and what was expected, and the --on-bad-line policy applied in one place.
#include "models/base/parse.hpp"
#include "traces/job_record.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dlsim {

enum class BadLinePolicy { Error, Skip };

/// A malformed row. Under BadLinePolicy::Skip it is dropped and counted by `reason`.
struct RowError {
    std::string reason;   ///< short, for the report: "bad duration", "wrong number of fields", ...
    std::string message;  ///< the full "file:line: column 'x': expected ..., got '...'"
};

/// The RowError for one field: "<origin>:<line>: column '<column>': expected <expected>, got '<got>'".
RowError field_error(std::string_view origin, std::uint32_t line, std::string_view column, std::string_view expected,
                     std::string_view got);

/// The RowError for a row whose field count differs from the header's.
RowError field_count_error(std::string_view origin, std::uint32_t line, std::size_t expected, std::size_t got);

/// Rethrows as an InputError (policy Error) or counts the row as dropped in the report (policy Skip).
void handle_row_error(const RowError& e, BadLinePolicy policy, ReadReport& report);

/// Common end of every reader: shifts submit times so the earliest job arrives at 0 (remembering the
/// shift in `trace.time_origin`) unless `rebase` is false (a format whose time 0 is meaningful), and fails
/// with a clear message when no job is left.
void finish_trace(Trace& trace, bool rebase = true);

}  // namespace dlsim
