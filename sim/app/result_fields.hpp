#pragma once
// The result schema, defined once (sim/app/RESULTS.md): the summary keys, the per-job record fields
// and which of them go in the `--jobs-csv` table and the sweep index. The JSON writer, the CSV writer,
// the sweep index (index_metrics) and the `dlsim run` summary table all walk these tables, so a field
// is added in exactly one place:
//   - a summary key: one row in kSummary (result_fields.cpp) with its JSON writer, whether it is an
//     index column, and where the console table shows it;
//   - a job field: one row in kJobs with the function that gives its value as a Cell and whether it
//     is a CSV column.
// Job records are formatted straight into the output buffer (no per-record strings, seconds from
// integer microseconds without going through a double): a million-job result is written in about a
// second or less, most of it the kernel's copy of ~250 MB.
#include "models/base/record_out.hpp"
#include "sim/app/run.hpp"
#include "sim/metrics.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dlsim::result_fields {

using record_out::Buffer;

// ---------------------------------------------------------------- summary

/// How a summary value appears in the console table: a part of its row ("label value", parts joined
/// by three spaces), or an aside in parentheses after the row's previous part ("(value label, ...)").
enum class Show : std::uint8_t { Part, Aside };

struct SummaryField {
    std::string_view name;  ///< JSON key in `summary`, index column when in_index
    /// What a figure's axis calls it ("mean JCT"), and the unit of its JSON value: "s", "share" (of 1),
    /// "jobs", "count", "GPU-s", "GPU-h", or "" (a ratio, a flag or an object). scripts/plot.py labels
    /// its axes from these (h for s, % for share; its copy is checked against `dlsim list fields --json`).
    std::string_view axis, unit;
    std::string_view description;                 ///< for the documentation and `--help`-style listings
    void (*write_json)(Buffer&, const Summary&);  ///< the JSON value
    bool in_index;                                ///< a column of the sweep index (index.csv, index.json "metrics")
    int console_row;                              ///< row of console_rows() that shows it; -1: not on the console
    Show show;
    std::string_view label;                       ///< console label ("" = the value alone)
    std::string (*console_text)(const Summary&);  ///< console value; an empty text hides it
};

/// Every summary key, in JSON order.
std::span<const SummaryField> summary_fields();

/// Labels of the console table's rows, in print order.
std::span<const std::string_view> console_rows();

/// The summary object as JSON, keys in table order.
void write_summary_json(Buffer& out, const Summary& s);

/// The console table: (row label, text) for every row with something to show. `extra` parts
/// (row label, text) are appended to their row (for figures outside the summary, e.g. policy calls).
std::vector<std::pair<std::string, std::string>> console_lines(
    const Summary& s, const std::vector<std::pair<std::string_view, std::string>>& extra = {});

/// The summary keys that are sweep index columns, in table order.
const std::vector<std::string>& index_metrics();

/// The summary object `measure`: the window (by, from, to) and how many jobs it holds.
std::string measure_summary_json(const Summary& s);

// ---------------------------------------------------------------- job records

/// One value of a job record, as both writers see it.
struct Cell {
    enum class Kind : std::uint8_t {
        Absent,   ///< left out of the JSON record; empty in the CSV
        Null,     ///< JSON null; empty in the CSV
        Int,      ///< `number`
        Seconds,  ///< `number` microseconds, written as seconds (shortest round-trip form)
        Text,     ///< `text`: a JSON string; a CSV cell quoted per RFC 4180 when it needs it
        Real,     ///< `real`, shortest round-trip form
        Waits,    ///< `waits`: {"reason": seconds, ...} for the reasons with time > 0 (JSON only)
    };
    Kind kind = Kind::Null;
    std::int64_t number = 0;
    std::string_view text;
    double real = 0;
    const WaitTotals* waits = nullptr;
};

/// What a job field's value is computed from.
struct JobRow {
    const RunInputs& in;
    const RunOutcome& out;
    JobIdx j;
};

struct JobField {
    std::string_view name;  ///< JSON key in each record, CSV column when in_csv
    std::string_view description;
    Cell (*value)(const JobRow&);
    bool in_csv;  ///< a column of --jobs-csv
};

/// Every job record field, in JSON order.
std::span<const JobField> job_fields();

/// The `--jobs-csv` header line (with its newline).
std::string jobs_csv_header();

/// One job record as a JSON object ({...}, absent fields left out).
void write_job_json(Buffer& out, const JobRow& row);
/// One job as a CSV line (with its newline).
void write_job_csv(Buffer& out, const JobRow& row);

// ---------------------------------------------------------------- formatting (models/base/record_out.hpp)

using record_out::append_csv_text;
using record_out::append_json_string;
using record_out::append_seconds;
using record_out::csv_text;

}  // namespace dlsim::result_fields
