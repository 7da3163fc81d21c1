// Pollux (Qiao et al., OSDI'21; github.com/petuum/adaptdl branch osdi21-artifact, simulator/workloads*/) and Sia
// (Jayaram Subramanya et al., SOSP'23; github.com/siasosp23/artifacts sia-simulator/workloads/) workload CSVs:
//   name,time,application,num_replicas,batch_size
// One elastic job per row: `time` is seconds from the window start (an integer in Pollux's files, a float in
// Sia's), `application` the model, `num_replicas` the GPUs the job asked for, `batch_size` its initial total
// batch size. There is no run time: a job's work is its application's completion work in the goodput model.
// Both simulators read rows by column name (pandas), so columns are found by name here too.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "models/base/input_error.hpp"
#include "traces/readers/csv_reader.hpp"
#include "traces/readers/trace_format.hpp"

namespace dlsim {

namespace {

enum Column { kName, kTime, kApplication, kNumReplicas, kBatchSize, kNumColumns };
constexpr std::array<const char*, kNumColumns> kColumnNames = {"name", "time", "application", "num_replicas",
                                                               "batch_size"};
constexpr std::string_view kHeader = "name,time,application,num_replicas,batch_size";

}  // namespace

bool detect_pollux(std::string_view, std::string_view first_line) {
    first_line = strip_bom(first_line);
    if (!first_line.empty() && first_line.back() == '\r') first_line.remove_suffix(1);
    return first_line == kHeader;
}

Trace read_pollux_trace(const std::string& path, const ReadOptions& options) {
    Trace trace;
    trace.path = path;
    trace.format = "pollux";
    const double unit = options.time_unit > 0 ? options.time_unit : 1.0;
    std::string text = read_whole_file(path);
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    CsvLines csv(std::move(text), path, ',');
    std::vector<std::string_view> fields;
    if (!csv.next(fields))
        throw InputError(fmt::format("{}: empty file, expected the pollux header {}", path, kHeader));

    std::array<int, kNumColumns> where;
    where.fill(-1);
    std::string ignored;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string_view name = i == 0 ? strip_bom(trim(fields[i])) : trim(fields[i]);
        int found = -1;
        for (int c = 0; c < kNumColumns; ++c)
            if (name == kColumnNames[c]) found = c;
        if (found < 0) {
            ignored += (ignored.empty() ? "" : ", ") + std::string(name);
            continue;
        }
        if (where[found] >= 0)
            throw InputError(fmt::format("{}:{}: column '{}' appears twice in the header", path, csv.line(), name));
        where[found] = static_cast<int>(i);
    }
    for (int c = 0; c < kNumColumns; ++c)
        if (where[c] < 0)
            throw InputError(fmt::format("{}:{}: missing required column '{}' (a pollux workload has the header {})",
                                         path, csv.line(), kColumnNames[c], kHeader));

    auto& a = trace.report.assumptions;
    a.push_back(options.time_unit > 0 ? fmt::format("time is in units of {} s (--time-unit)", unit)
                                      : std::string("time is in seconds from the workload's start, kept as given (not "
                                                    "shifted to the first job: policies that decide every interval "
                                                    "tick where Pollux's and Sia's simulators do)"));
    a.push_back("id = name, model = application, num_gpus = num_replicas, batch_size = batch_size as given");
    a.push_back(
        "the format has no run time: duration and work are 0 and a job's work is its application's completion "
        "work in the goodput model (the profile must have goodput data for every application)");
    a.push_back("the format has no GPU-count range: min/max_num_gpus are left to the policy (0 = not given)");
    a.push_back("the format has no status: every job's outcome is Unknown");
    if (!ignored.empty()) a.push_back(fmt::format("columns not used by dlsim: {}", ignored));

    const std::size_t width = fields.size();
    trace.jobs.reserve(lines);
    std::map<std::string, std::uint32_t, std::less<>> seen;  // name -> first line (workloads are small)
    while (csv.next(fields)) {
        ++trace.report.rows_read;
        const std::uint32_t line = csv.line();
        auto raw = [&](Column c) { return trim(fields[static_cast<std::size_t>(where[c])]); };
        auto fail = [&](Column c, std::string_view expected) {
            throw field_error(path, line, kColumnNames[c], expected, raw(c));
        };
        try {
            if (fields.size() != width) throw field_count_error(path, line, width, fields.size());
            JobRecord job;
            job.line = line;
            const std::string_view name = raw(kName);
            if (name.empty()) fail(kName, "a non-empty job name");
            auto time = parse_double(raw(kTime));
            if (!time || *time < 0 || *time * unit > 1e12) fail(kTime, "a time in seconds >= 0 (at most 1e12 s)");
            job.submit_time = *time * unit;
            const std::string_view application = raw(kApplication);
            if (application.empty()) fail(kApplication, "an application name (a model of the profile)");
            auto replicas = parse_integer(raw(kNumReplicas));
            if (!replicas || *replicas < 1 || *replicas > 1'000'000)
                fail(kNumReplicas, "an integer number of GPUs >= 1");
            job.num_gpus = static_cast<int>(*replicas);
            auto batch = parse_integer(raw(kBatchSize));
            if (!batch || *batch < 1 || *batch > 1'000'000'000) fail(kBatchSize, "an integer batch size >= 1");
            job.batch_size = static_cast<int>(*batch);
            if (auto it = seen.find(name); it != seen.end())
                throw RowError{"duplicate name", fmt::format("{}:{}: column 'name': duplicate name '{}' (first on "
                                                             "line {})",
                                                             path, line, name, it->second)};
            seen.emplace(std::string(name), line);
            job.id = std::string(name);
            job.model = trace.strings.intern(application);
            trace.jobs.push_back(std::move(job));
        } catch (const RowError& e) {
            handle_row_error(e, options.on_bad_line, trace.report);
        }
    }
    finish_trace(trace, false);  // time 0 is the workload's start, as in the artifacts' simulators
    return trace;
}

}  // namespace dlsim
