// Microsoft Philly (ATC'19) in both published forms, told apart by content:
//  - the per-job CSV `timestamp,duration,num_gpus,gpu_time,cluster` (Pollux's philly.csv: no job id, no status,
//    rows not sorted);
//  - the raw `cluster_job_log` JSON list (status, vc, jobid, user, submitted_time, attempts with start/end times and
//    per-machine GPU lists), read one job element at a time so every message names the job's line.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "models/base/input_error.hpp"
#include "models/base/input_text.hpp"
#include "models/base/json_fields.hpp"
#include "traces/readers/csv_reader.hpp"
#include "traces/readers/row_parsing.hpp"
#include "traces/readers/trace_format.hpp"

namespace dlsim {

namespace {

constexpr std::string_view kCsvHeader = "timestamp,duration,num_gpus,gpu_time,cluster";

/// Position of the first character that is not whitespace (after a UTF-8 BOM), or npos.
std::size_t first_non_space(std::string_view text) {
    std::size_t i = text.size() - strip_bom(text).size();
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) ++i;
    return i < text.size() ? i : std::string_view::npos;
}

// ---------------------------------------------------------------------------------------------------------------
// The per-job CSV.

enum CsvColumn { kTimestamp, kDuration, kNumGpus, kGpuTime, kCluster, kNumCsvColumns };
constexpr std::array<const char*, kNumCsvColumns> kCsvColumnNames = {"timestamp", "duration", "num_gpus", "gpu_time",
                                                                     "cluster"};

[[noreturn]] void csv_fail(const CsvLines& csv, CsvColumn c, std::string_view expected, std::string_view got) {
    throw field_error(csv.origin(), csv.line(), kCsvColumnNames[c], expected, got);
}

Trace read_csv_form(const std::string& path, std::string text, const ReadOptions& options) {
    Trace trace;
    trace.path = path;
    trace.format = "philly";
    trace.wall_clock = true;
    // One record per line at most: reserving up front spares the copies of a growing vector.
    trace.jobs.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
    CsvLines csv(std::move(text), path, ',');
    std::vector<std::string_view> fields;
    if (!csv.next(fields)) throw InputError(fmt::format("{}: empty file, expected the header {}", path, kCsvHeader));

    std::array<int, kNumCsvColumns> where;
    where.fill(-1);
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string_view name = trim(i == 0 ? strip_bom(fields[i]) : fields[i]);
        int found = -1;
        for (int c = 0; c < kNumCsvColumns; ++c)
            if (name == kCsvColumnNames[c]) found = c;
        if (found < 0)
            throw InputError(
                fmt::format("{}:{}: unknown column '{}' in header (expected {})", path, csv.line(), name, kCsvHeader));
        if (where[found] >= 0)
            throw InputError(fmt::format("{}:{}: column '{}' appears twice in the header", path, csv.line(), name));
        where[found] = static_cast<int>(i);
    }
    for (int c = 0; c < kNumCsvColumns; ++c)
        if (where[c] < 0)
            throw InputError(fmt::format("{}:{}: missing column '{}' (the Philly per-job CSV has the header {})", path,
                                         csv.line(), kCsvColumnNames[c], kCsvHeader));
    const std::size_t width = fields.size();

    while (csv.next(fields)) {
        ++trace.report.rows_read;
        try {
            if (fields.size() != width) throw field_count_error(path, csv.line(), width, fields.size());
            auto raw = [&](CsvColumn c) { return trim(fields[where[c]]); };
            auto fail = [&](CsvColumn c, std::string_view expected) { csv_fail(csv, c, expected, raw(c)); };
            JobRecord job;
            job.line = csv.line();
            job.id = "L" + std::to_string(csv.line());
            auto submit = parse_datetime(raw(kTimestamp));
            if (!submit) fail(kTimestamp, "a date-time YYYY-MM-DD HH:MM:SS");
            job.submit_time = *submit;
            auto duration = parse_double(raw(kDuration));
            if (!duration || *duration < 1e-6 || *duration > 1e12)
                fail(kDuration, "a duration in seconds > 0 (at least 1 us)");
            job.duration = *duration;
            auto gpus = parse_integer(raw(kNumGpus));
            if (!gpus || *gpus < 1 || *gpus > 1'000'000) fail(kNumGpus, "an integer number of GPUs >= 1");
            job.num_gpus = static_cast<int>(*gpus);
            const double expected_gpu_time = job.duration * job.num_gpus;
            auto gpu_time = parse_double(raw(kGpuTime));
            // The file's own consistency check: gpu_time = duration × num_gpus (exact in the published file).
            if (!gpu_time || std::abs(*gpu_time - expected_gpu_time) > 1e-9 * std::max(1.0, expected_gpu_time))
                fail(kGpuTime, fmt::format("duration x num_gpus = {}", expected_gpu_time));
            job.vc = trace.strings.intern(raw(kCluster));
            trace.jobs.push_back(std::move(job));
        } catch (const RowError& e) {
            handle_row_error(e, options.on_bad_line, trace.report);
        }
    }
    auto& a = trace.report.assumptions;
    a.push_back("job ids are 'L<line>': the per-job CSV has no job id column");
    a.push_back("timestamp is the submit time, a zone-less Philly wall-clock time read as UTC");
    a.push_back("no status column: every job's outcome is Unknown (passed, killed and failed jobs are mixed)");
    a.push_back(
        "a duration <= 0 is a malformed row, not repaired (the published philly.csv has none: its minimum "
        "is 1 s)");
    a.push_back("a gpu_time that differs from duration x num_gpus (relative 1e-9) makes the row malformed");
    if (options.time_unit != 0)
        a.push_back("--time-unit ignored: Philly times are wall-clock strings and durations are seconds");
    finish_trace(trace);
    return trace;
}

// ---------------------------------------------------------------------------------------------------------------
// The raw cluster_job_log JSON list.

using nlohmann::json;

/// One element of the top-level list: its text range and the line where it starts.
struct Element {
    std::size_t begin = 0, end = 0;
    std::uint32_t line = 0;
};

/// Splits the top-level JSON list into elements without parsing them, so each job is parsed on its own (its
/// errors name its line, and under --on-bad-line skip one broken job does not lose the file).
std::vector<Element> split_list(const std::string& path, const std::string& text, std::size_t open) {
    std::vector<Element> out;
    std::uint32_t line = 1;
    for (std::size_t i = 0; i < open; ++i) line += text[i] == '\n';
    std::size_t i = open + 1;
    auto skip_space = [&] {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
            line += text[i++] == '\n';
    };
    bool closed = false, expect_element = false;
    while (!closed) {
        skip_space();
        if (i >= text.size()) break;
        if (text[i] == ']' && !expect_element) {
            closed = true;
            ++i;
            break;
        }
        Element e{i, i, line};
        int depth = 0;
        bool in_string = false, escape = false, ended = false;
        for (; i < text.size(); ++i) {
            const char c = text[i];
            if (c == '\n') ++line;
            if (in_string) {
                if (escape)
                    escape = false;
                else if (c == '\\')
                    escape = true;
                else if (c == '"')
                    in_string = false;
                continue;
            }
            if (c == '"')
                in_string = true;
            else if (c == '{' || c == '[')
                ++depth;
            else if ((c == '}' || c == ']') && depth > 0)
                --depth;
            else if (depth == 0 && (c == ',' || c == ']')) {
                ended = true;
                break;
            }
        }
        if (!ended) break;
        e.end = i;
        while (e.end > e.begin && std::isspace(static_cast<unsigned char>(text[e.end - 1]))) --e.end;
        out.push_back(e);
        expect_element = text[i] == ',';
        closed = text[i] == ']';
        ++i;
    }
    if (!closed)
        throw InputError(
            fmt::format("{}:{}: the JSON list is not closed (expected ']' at the end of the file)", path, line));
    skip_space();
    if (i < text.size())
        throw InputError(
            fmt::format("{}:{}: text after the end of the JSON list: expected the end of the file", path, line));
    return out;
}

std::string shown(const json& v) {
    std::string s = v.dump();
    return s.size() > 60 ? s.substr(0, 60) : s;
}

/// Reads one job object; errors carry the job's line and the JSON path of the field.
class JobParser {
public:
    JobParser(const std::string& path, std::uint32_t line) : path_(path), line_(line) {}

    [[noreturn]] void fail(std::string_view column, std::string_view expected, const json& got) const {
        throw field_error(path_, line_, column, expected, shown(got));
    }
    [[noreturn]] void missing(std::string_view column, std::string_view expected) const {
        throw field_error(path_, line_, column, expected, "(missing)");
    }

    /// An optional string field: absent or null is "".
    std::string_view string(const json& obj, const char* key) const {
        auto it = obj.find(key);
        if (it == obj.end() || it->is_null()) return {};
        if (!it->is_string()) fail(key, "a string", *it);
        const auto& s = it->get_ref<const std::string&>();
        if (s.find('\0') != std::string::npos) fail(key, "a string without NUL characters (\\u0000)", *it);
        return s;
    }

    /// A time; absent, null, "None" and "" are all missing (the README: logging errors, or still running).
    std::optional<double> time(const json& obj, const char* key, std::string_view column) const {
        auto it = obj.find(key);
        if (it == obj.end() || it->is_null()) return std::nullopt;
        if (!it->is_string()) fail(column, "a date-time YYYY-MM-DD HH:MM:SS or None", *it);
        const auto& s = it->get_ref<const std::string&>();
        if (s.empty() || s == "None") return std::nullopt;
        auto t = parse_datetime(s);
        if (!t) fail(column, "a date-time YYYY-MM-DD HH:MM:SS or None", *it);
        return t;
    }

private:
    const std::string& path_;
    std::uint32_t line_;
};

/// The GPU type of every machine in the machine list published beside the job log (`cluster_machine_list`
/// in the same folder, "machineId, number of GPUs, single GPU mem"), named as `dlsim trace cluster` names
/// Philly's types (gpu12gb, gpu24gb); empty when the folder has no such file.
std::map<std::string, std::string, std::less<>> machine_types(const std::string& path) {
    std::map<std::string, std::string, std::less<>> out;
    const std::filesystem::path list = std::filesystem::path(path).parent_path() / "cluster_machine_list";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(list, ec)) return out;
    static constexpr const char* kColumns[] = {"machineId", "number of GPUs", "single GPU mem"};
    CsvLines csv(list.string());
    std::vector<std::string_view> fields;
    require_header(csv, fields, kColumns, "machineId, number of GPUs, single GPU mem");
    while (csv.next(fields)) {
        const std::string_view mem = fields.size() == 3 ? trim(fields[2]) : std::string_view();
        const auto gb = mem.size() > 2 ? parse_double(mem.substr(0, mem.size() - 2)) : std::nullopt;
        if (!gb || *gb <= 0 || *gb > 1e6 || (mem.substr(mem.size() - 2) != "GB" && mem.substr(mem.size() - 2) != "gb"))
            throw InputError(
                field_error(list.string(), csv.line(), kColumns[2], "a memory size like '12GB'", mem).message);
        out[std::string(trim(fields[0]))] = fmt::format("gpu{}gb", *gb);
    }
    return out;
}

Trace read_json_form(const std::string& path, const std::string& text, std::size_t open, const ReadOptions& options) {
    Trace trace;
    trace.path = path;
    trace.format = "philly";
    trace.wall_clock = true;
    reject_nul_bytes(text, path);  // the CSV form is checked by CsvLines
    json_fields::check_nesting(text, path);
    const std::vector<Element> elements = split_list(path, text, open);
    std::map<std::string, std::uint32_t, std::less<>> seen;  // jobid -> line
    const std::string kIgnored = "attempts without start or end time ignored (logging errors)";
    const auto types = machine_types(path);

    for (const Element& e : elements) {
        ++trace.report.rows_read;
        try {
            JobParser p(path, e.line);
            json obj;
            try {
                obj = json::parse(text.begin() + static_cast<std::ptrdiff_t>(e.begin),
                                  text.begin() + static_cast<std::ptrdiff_t>(e.end));
            } catch (const json::parse_error& err) {
                const std::size_t upto = std::min<std::size_t>(err.byte > 0 ? err.byte - 1 : 0, e.end - e.begin);
                const auto at = e.line + static_cast<std::uint32_t>(std::count(
                                             text.begin() + static_cast<std::ptrdiff_t>(e.begin),
                                             text.begin() + static_cast<std::ptrdiff_t>(e.begin + upto), '\n'));
                std::string what = err.what();
                // nlohmann's own "line N, column M" counts from the job's start: keep only what went wrong.
                if (auto col = what.find("column"); col != std::string::npos)
                    if (auto colon = what.find(": ", col); colon != std::string::npos) what = what.substr(colon + 2);
                throw RowError{"invalid JSON",
                               fmt::format("{}:{}: expected a JSON job object: {}", path, at, printable(what))};
            } catch (const json::out_of_range& err) {  // a number beyond a double's range (1e400)
                std::string what = err.what();
                if (auto n = what.find("number overflow"); n != std::string::npos) what = what.substr(n);
                throw RowError{"number out of range", fmt::format("{}:{}: {}, expected a number within +-1.8e308", path,
                                                                  e.line, printable(what))};
            }
            if (!obj.is_object())
                p.fail("job", "a JSON object with status, vc, jobid, attempts, submitted_time, user", obj);

            JobRecord job;
            job.line = e.line;
            std::string_view id = p.string(obj, "jobid");
            if (id.empty()) p.missing("jobid", "a non-empty job id string");
            if (auto [it, fresh] = seen.try_emplace(std::string(id), e.line); !fresh)
                throw RowError{"duplicate jobid",
                               fmt::format("{}:{}: column 'jobid': duplicate id '{}' (first on line {})", path, e.line,
                                           id, it->second)};
            job.id = std::string(id);

            auto status_it = obj.find("status");
            if (status_it == obj.end()) p.missing("status", "one of Pass, Killed, Failed");
            const std::string_view status = p.string(obj, "status");
            if (status == "Pass")
                job.outcome = JobOutcome::Completed;
            else if (status == "Killed")
                job.outcome = JobOutcome::Killed;
            else if (status == "Failed")
                job.outcome = JobOutcome::Failed;
            else
                p.fail("status", "one of Pass, Killed, Failed", *status_it);

            auto submitted = p.time(obj, "submitted_time", "submitted_time");
            if (!submitted) p.missing("submitted_time", "a date-time YYYY-MM-DD HH:MM:SS");
            job.submit_time = *submitted;

            auto attempts_it = obj.find("attempts");
            if (attempts_it == obj.end() || !attempts_it->is_array())
                attempts_it == obj.end() ? p.missing("attempts", "a list of attempts")
                                         : p.fail("attempts", "a list of attempts", *attempts_it);
            const json& attempts = *attempts_it;

            // Every attempt is checked first, so a malformed one is reported even in a job that is then dropped.
            double run = 0;
            int gpus = 0, usable = 0, ignored = 0;
            std::string_view last_type;  // the GPU type of its last attempt with both times, when known
            bool still_running = false;
            for (std::size_t a = 0; a < attempts.size(); ++a) {
                const json& at = attempts[a];
                const std::string col = fmt::format("attempts[{}]", a);
                if (!at.is_object()) p.fail(col, "an object with start_time, end_time, detail", at);
                auto start = p.time(at, "start_time", col + ".start_time");
                auto end = p.time(at, "end_time", col + ".end_time");
                std::size_t count = 0;  // GPUs of this attempt, bounded before it is narrowed to int
                std::string_view type;  // the attempt's machines' one GPU type; "" = unknown or mixed
                bool mixed = false;
                if (auto d = at.find("detail"); d != at.end() && !d->is_null()) {
                    if (!d->is_array()) p.fail(col + ".detail", "a list of {ip, gpus}", *d);
                    for (std::size_t m = 0; m < d->size(); ++m) {
                        const json& machine = (*d)[m];
                        const std::string mcol = fmt::format("{}.detail[{}]", col, m);
                        if (!machine.is_object()) p.fail(mcol, "an object {ip, gpus}", machine);
                        if (auto m_type = types.find(p.string(machine, "ip")); m_type == types.end())
                            mixed = true;
                        else if (type.empty() || type == m_type->second)
                            type = m_type->second;
                        else
                            mixed = true;
                        auto g = machine.find("gpus");
                        if (g == machine.end() || !g->is_array()) {
                            if (g == machine.end()) p.missing(mcol + ".gpus", "a list of GPU names");
                            p.fail(mcol + ".gpus", "a list of GPU names", *g);
                        }
                        count += g->size();
                    }
                    if (count > 1'000'000) p.fail(col + ".detail", "at most 1,000,000 GPUs in one attempt", *d);
                }
                if (start && end) {
                    if (*end < *start)
                        p.fail(col + ".end_time", "a time at or after the attempt's start_time", at["end_time"]);
                    run += *end - *start;
                    gpus = std::max(gpus, static_cast<int>(count));
                    last_type = mixed ? std::string_view() : type;
                    ++usable;
                } else if (!end && a + 1 == attempts.size()) {
                    still_running = true;
                } else {
                    ++ignored;
                }
            }
            auto drop = [&](const char* reason) { ++trace.report.dropped[reason]; };
            if (attempts.empty())
                drop("no attempts (never scheduled)");
            else if (still_running)
                drop("still running at trace end");
            else if (usable == 0)
                drop("no attempt with both start and end time");
            else if (gpus == 0)
                drop("no GPUs in any attempt's detail");
            else if (run <= 0)
                drop("zero run time (start = end)");
            else {
                if (ignored > 0) ++trace.report.repaired[kIgnored];
                job.num_gpus = gpus;
                job.duration = run;
                job.user = trace.strings.intern(p.string(obj, "user"));
                job.vc = trace.strings.intern(p.string(obj, "vc"));
                job.status = trace.strings.intern(status);
                job.gpu_type = trace.strings.intern(last_type);
                trace.jobs.push_back(std::move(job));
            }
        } catch (const RowError& err) {
            handle_row_error(err, options.on_bad_line, trace.report);
        }
    }
    auto& a = trace.report.assumptions;
    a.push_back(
        "run time = sum of (end_time - start_time) over the attempts that have both (time between attempts "
        "is not run time)");
    a.push_back("num_gpus = the largest GPU count (sum of len(gpus) over detail) among those attempts");
    a.push_back(
        "attempts missing start_time or end_time (logging errors) add no run time; a None end_time on the "
        "last attempt means still running: the job is dropped");
    a.push_back(
        "submit time = submitted_time; times are zone-less Philly wall-clock times read as UTC; null, "
        "\"None\" and \"\" are missing times");
    a.push_back("status Pass/Killed/Failed -> outcome Completed/Killed/Failed; failed and killed jobs are kept");
    if (!types.empty())
        a.push_back(
            "gpu_type = the GPU type (gpu<mem>gb) of the machines of the job's last attempt with both times, "
            "from cluster_machine_list beside the log; none when they are unlisted or of two types");
    if (options.time_unit != 0) a.push_back("--time-unit ignored: Philly times are wall-clock strings");
    finish_trace(trace);
    return trace;
}

}  // namespace

Trace read_philly_trace(const std::string& path, const ReadOptions& options) {
    std::string text = read_input_file(path);
    const std::size_t first = first_non_space(text);
    if (first == std::string::npos)
        throw InputError(
            fmt::format("{}: empty file, expected the Philly per-job CSV header {} or a cluster_job_log "
                        "JSON list",
                        path, kCsvHeader));
    if (text[first] == '[') return read_json_form(path, text, first, options);
    return read_csv_form(path, std::move(text), options);
}

bool detect_philly(std::string_view path, std::string_view first_line) {
    std::string_view line = trim(strip_bom(first_line));
    if (line.substr(0, kCsvHeader.size()) == kCsvHeader) {
        std::string_view rest = trim(line.substr(kCsvHeader.size()));
        return rest.empty();
    }
    // The JSON list: '[' first, and a file named like Philly's or a job object on the first line.
    char first = line.empty() ? '\0' : line.front();
    if (line.empty()) {
        std::ifstream in{std::string(path), std::ios::binary};
        char buf[4096];
        in.read(buf, sizeof buf);
        const auto pos = first_non_space(std::string_view(buf, static_cast<std::size_t>(in.gcount())));
        if (pos != std::string_view::npos) first = buf[pos];
    }
    if (first != '[') return false;
    const std::string_view name =
        path.substr(path.find_last_of('/') == std::string_view::npos ? 0 : path.find_last_of('/') + 1);
    return name.find("cluster_job_log") != std::string_view::npos || line.find("\"jobid\"") != std::string_view::npos;
}

}  // namespace dlsim
