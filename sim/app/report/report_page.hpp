#pragma once
// The report pages: the page's HTML, CSS and JavaScript (sim/app/report/assets/, compiled into the binary)
// with the data inlined, so one file opens anywhere with nothing else: no network, no server.
#include "sim/app/report/report_data.hpp"

#include <string>
#include <string_view>

namespace dlsim::report {

/// An asset file of sim/app/report/assets/ by name ("report.js"); empty when there is none.
std::string_view asset(std::string_view name);

/// The page of one run.
std::string run_page(const ReportData& data);

/// The page of a sweep: its index (index.json's parameters, metrics and runs) and, per run, the link
/// to its report (empty: none).
std::string sweep_page(const std::string& dir, const Json& index, const std::vector<std::string>& links);

}  // namespace dlsim::report
