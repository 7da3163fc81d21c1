#pragma once
// Trace formats by name (`--trace-format NAME`) or detected from a file's name and first line.
// One reader per published format, each in its own file under traces/, each mapping rows onto the
// canonical job record and reporting what it kept, dropped and repaired.
#include "traces/job_record.hpp"
#include "traces/readers/row_parsing.hpp"

#include <span>
#include <string>
#include <string_view>

namespace dlsim {

struct ReadOptions {
    BadLinePolicy on_bad_line = BadLinePolicy::Error;
    /// Seconds per unit of the file's relative time columns; 0 = the format's own default
    /// (`--time-unit`, e.g. Muri's milliseconds are 0.001).
    double time_unit = 0;
};

struct TraceFormat {
    const char* name;
    const char* description;
    /// True when a file with this name and first line is in this format.
    bool (*detect)(std::string_view path, std::string_view first_line);
    Trace (*read)(const std::string& path, const ReadOptions& options);
};

/// Every format, in the order detection tries them (the canonical CSV last).
std::span<const TraceFormat> trace_formats();

/// The format named `name`, or an InputError listing the valid names.
const TraceFormat& find_trace_format(const std::string& name);

/// Reads `path` in `format`; "auto" detects it (an InputError says what was tried if none fits).
Trace read_trace(const std::string& path, const std::string& format, const ReadOptions& options);

// The readers (each in traces/<format>_reader.cpp).
Trace read_canonical_trace(const std::string& path, const ReadOptions& options);
bool detect_canonical(std::string_view path, std::string_view first_line);
Trace read_philly_trace(const std::string& path, const ReadOptions& options);
bool detect_philly(std::string_view path, std::string_view first_line);
Trace read_gavel_trace(const std::string& path, const ReadOptions& options);
bool detect_gavel(std::string_view path, std::string_view first_line);
Trace read_tiresias_trace(const std::string& path, const ReadOptions& options);
bool detect_tiresias(std::string_view path, std::string_view first_line);
Trace read_muri_trace(const std::string& path, const ReadOptions& options);
bool detect_muri(std::string_view path, std::string_view first_line);
Trace read_alibaba_openb_trace(const std::string& path, const ReadOptions& options);
bool detect_alibaba_openb(std::string_view path, std::string_view first_line);
Trace read_alibaba_pai2020_trace(const std::string& path, const ReadOptions& options);
bool detect_alibaba_pai2020(std::string_view path, std::string_view first_line);
Trace read_helios_trace(const std::string& path, const ReadOptions& options);
bool detect_helios(std::string_view path, std::string_view first_line);
Trace read_acme_trace(const std::string& path, const ReadOptions& options);
bool detect_acme(std::string_view path, std::string_view first_line);
Trace read_pollux_trace(const std::string& path, const ReadOptions& options);
bool detect_pollux(std::string_view path, std::string_view first_line);

}  // namespace dlsim
