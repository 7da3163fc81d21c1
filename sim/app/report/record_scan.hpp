#pragma once
// The fast way through a result file as dlsim writes it: the top level is split into its members without
// lexing the job records as JSON values, everything but the records is parsed as JSON (it is small), and
// the records, flat objects of plain strings, numbers and null plus a pending_reasons object of numbers,
// are read straight into columns. A million records take about a third of the time nlohmann's parser
// needs. Anything it does not expect (an escaped string, a nested value, a wrong type, a missing field)
// makes it give up, and the caller parses the file the general way, which names what is wrong.
#include "sim/app/report/report_data.hpp"

#include <string_view>

namespace dlsim::report {

/// Fills the record columns, types and reasons of `d` and returns the rest of the document in `doc`
/// (with "jobs" an empty array) and the number of records; false when the text is not as expected.
bool scan_result(std::string_view text, ReportData& d, Json& doc, std::size_t& records);

}  // namespace dlsim::report
