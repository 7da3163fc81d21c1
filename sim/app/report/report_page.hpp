#pragma once
// The report pages: the page's HTML, CSS and JavaScript (sim/app/report/assets/, compiled into the binary)
// with the data inlined, so one file opens anywhere with nothing else: no network, no server.
#include "sim/app/report/report_data.hpp"

#include <functional>
#include <string>
#include <string_view>

namespace dlsim::report {

/// An asset file of sim/app/report/assets/ by name ("report.js"); empty when there is none.
std::string_view asset(std::string_view name);

/// Where a page goes, piece by piece (a million-job page is written without ever being whole in memory).
using Sink = std::function<void(std::string_view)>;

/// The page of one run.
void run_page(const ReportData& data, const Sink& out);

/// The page of a sweep: its index (index.json's parameters, metrics and runs) and, per run, the link
/// to its report (empty: none).
void sweep_page(const std::string& dir, const Json& index, const std::vector<std::string>& links, const Sink& out);

}  // namespace dlsim::report
