#pragma once
// The canonical trace CSV (traces/README.md): header with job_id, submit_time, num_gpus, duration
// and the optional columns. Strict: every error names file:line, the column and what was expected.
#include "traces/job_record.hpp"
#include "traces/readers/row_parsing.hpp"

#include <ostream>
#include <string>
#include <string_view>

namespace dlsim {

/// Reads and validates a canonical CSV trace. Under BadLinePolicy::Skip a malformed row is dropped
/// and counted by reason in the trace's report; header errors are always fatal.
Trace read_canonical_csv(const std::string& path, BadLinePolicy on_bad_line = BadLinePolicy::Error);
/// Same from text in memory; `origin` names it in messages.
Trace parse_canonical_csv(std::string text, const std::string& origin,
                          BadLinePolicy on_bad_line = BadLinePolicy::Error);

/// True when every name in this header line is a canonical column and the required ones are there
/// (how `--trace-format auto` recognises the canonical CSV among formats whose headers also start job_id).
bool is_canonical_header(std::string_view line);

/// Writes the canonical CSV, with the optional columns that any job uses.
void write_canonical_csv(const Trace& trace, std::ostream& out);

}  // namespace dlsim
