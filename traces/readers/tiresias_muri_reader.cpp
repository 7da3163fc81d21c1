// Tiresias (Gu et al., NSDI'19, github.com/SymbioticLab/Tiresias simulator/) and Muri (Zhao et al., SIGCOMM'22,
// github.com/Rivendile/Muri simulator/trace-data/) simulator traces: CSV with a header.
//   Tiresias 60_job.csv: job_id,num_gpu,submit_time,iterations,model_name,duration,interval (seconds)
//   Muri: job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,interval,iteration_time,
//         resource_time_0,resource_time_1,resource_time_2,priority (times in milliseconds)
// Both simulators read rows by column name (csv.DictReader), so columns are found by name here too.
// The two formats share this code and differ in the default time unit.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "models/base/input_error.hpp"
#include "traces/readers/csv_reader.hpp"
#include "traces/readers/trace_format.hpp"

namespace dlsim {

namespace {

/// What tells Tiresias and Muri apart: the name, the header and the unit of their time columns.
struct Flavor {
    const char* format;
    const char* header;        ///< the published header, for messages and detection
    std::size_t detect_chars;  ///< length of the header prefix that identifies the format
    double default_unit;       ///< s per unit of submit_time and duration
    const char* unit_words;    ///< how the default unit is named in the report
};

constexpr Flavor kTiresias{"tiresias", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval",
                           sizeof("job_id,num_gpu,submit_time,iterations,model_name,duration") - 1, 1.0,
                           "seconds (Tiresias's unit)"};
constexpr Flavor kMuri{"muri",
                       "job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,interval,iteration_time,"
                       "resource_time_0,resource_time_1,resource_time_2,priority",
                       sizeof("job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration") - 1, 0.001,
                       "milliseconds (Muri's simulator divides them by 1000)"};

enum Column { kJobId, kNumGpu, kSubmitTime, kDuration, kModelName, kPriority, kNumColumns };
constexpr std::array<const char*, kNumColumns> kColumnNames = {"job_id",   "num_gpu",    "submit_time",
                                                               "duration", "model_name", "priority"};
constexpr int kRequired = 4;  // job_id, num_gpu, submit_time, duration

/// Job ids already read, as indices into the trace's jobs: open addressing with the hash kept beside the
/// index, since a node-based map costs about half a second per million ids.
class IdIndex {
public:
    explicit IdIndex(std::size_t rows) : slots_(std::bit_ceil(2 * rows + 2)), mask_(slots_.size() - 1) {}

    /// The index of the job with this id, or -1 (and the free slot `add` will fill).
    long long find(std::string_view id, const std::vector<JobRecord>& jobs) {
        hash_ = std::hash<std::string_view>{}(id);
        const auto tag = static_cast<std::uint32_t>(hash_ >> 32);
        for (slot_ = hash_ & mask_; slots_[slot_].index != 0; slot_ = (slot_ + 1) & mask_)
            if (slots_[slot_].tag == tag && jobs[slots_[slot_].index - 1].id == id) return slots_[slot_].index - 1;
        return -1;
    }
    /// Records job `index` under the id of the last `find` that found nothing.
    void add(std::size_t index) {
        slots_[slot_] = {static_cast<std::uint32_t>(index + 1), static_cast<std::uint32_t>(hash_ >> 32)};
    }

private:
    struct Slot {
        std::uint32_t index = 0;  ///< job index + 1; 0 = free
        std::uint32_t tag = 0;    ///< high bits of the id's hash
    };
    std::vector<Slot> slots_;
    std::size_t mask_, slot_ = 0, hash_ = 0;
};

Trace read_flavor(const std::string& path, const ReadOptions& options, const Flavor& flavor) {
    Trace trace;
    trace.path = path;
    trace.format = flavor.format;
    const double unit = options.time_unit > 0 ? options.time_unit : flavor.default_unit;
    // A unit that is 1/k of a second (Muri's 0.001) divides by k, so whole milliseconds give the correctly
    // rounded seconds (927475000 ms -> 927475 s exactly, where * 0.001 can be off by an ulp).
    const double per_second = std::round(1 / unit);
    const bool divide = unit < 1 && std::abs(per_second * unit - 1) < 1e-12;
    auto seconds = [&](double v) { return divide ? v / per_second : v * unit; };
    std::string text = read_whole_file(path);
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    CsvLines csv(std::move(text), path, ',');
    std::vector<std::string_view> fields;
    if (!csv.next(fields))
        throw InputError(fmt::format("{}: empty file, expected the {} header {}", path, flavor.format, flavor.header));

    std::array<int, kNumColumns> where;
    where.fill(-1);
    std::string ignored;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string_view name = i == 0 ? strip_bom(trim(fields[i])) : trim(fields[i]);
        int found = -1;
        for (int c = 0; c < kNumColumns; ++c)
            if (name == kColumnNames[c]) found = c;
        if (found < 0) {
            if (!ignored.empty()) ignored += ", ";
            ignored += name;
            continue;
        }
        if (where[found] >= 0)
            throw InputError(fmt::format("{}:{}: column '{}' appears twice in the header", path, csv.line(), name));
        where[found] = static_cast<int>(i);
    }
    for (int c = 0; c < kRequired; ++c)
        if (where[c] < 0)
            throw InputError(fmt::format("{}:{}: missing required column '{}' (a {} trace has the header {})", path,
                                         csv.line(), kColumnNames[c], flavor.format, flavor.header));

    auto& a = trace.report.assumptions;
    a.push_back(options.time_unit > 0 ? fmt::format("submit_time and duration are in units of {} s (--time-unit)", unit)
                                      : fmt::format("submit_time and duration are in {}", flavor.unit_words));
    a.push_back(
        "'iterations' counts iterations of the original job, not of a dlsim profile model, so work is not set: "
        "the run time comes from duration");
    a.push_back("the format has no status: every job's outcome is Unknown");
    if (!ignored.empty()) a.push_back(fmt::format("columns not used by dlsim: {}", ignored));
    if (where[kPriority] >= 0) a.push_back("priority is kept as given");

    const std::size_t width = fields.size();
    trace.jobs.reserve(lines);
    IdIndex seen(lines);
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
            const std::string_view id = raw(kJobId);
            if (id.empty()) fail(kJobId, "a non-empty job id");
            auto gpus = parse_integer(raw(kNumGpu));
            if (!gpus || *gpus < 1 || *gpus > 1'000'000) fail(kNumGpu, "an integer number of GPUs >= 1");
            job.num_gpus = static_cast<int>(*gpus);
            auto submit = parse_double(raw(kSubmitTime));
            if (!submit || *submit < 0 || seconds(*submit) > 1e12) fail(kSubmitTime, "a time >= 0 (at most 1e12 s)");
            job.submit_time = seconds(*submit);
            auto duration = parse_double(raw(kDuration));
            if (!duration || seconds(*duration) < 1e-6 || seconds(*duration) > 1e12)
                fail(kDuration, unit == 1 ? "a duration in seconds > 0 (at least 1 us)"
                                          : fmt::format("a duration > 0 in units of {} s (at least 1 us)", unit));
            job.duration = seconds(*duration);
            if (where[kPriority] >= 0 && !raw(kPriority).empty()) {
                auto p = parse_double(raw(kPriority));
                if (!p) fail(kPriority, "a number");
                job.priority = *p;
            }
            if (const long long first = seen.find(id, trace.jobs); first >= 0)
                throw RowError{"duplicate job_id",
                               fmt::format("{}:{}: column 'job_id': duplicate id '{}' (first on line {})", path, line,
                                           id, trace.jobs[first].line)};
            job.id = std::string(id);
            if (where[kModelName] >= 0) job.model = trace.strings.intern(raw(kModelName));
            seen.add(trace.jobs.size());
            trace.jobs.push_back(std::move(job));
        } catch (const RowError& e) {
            handle_row_error(e, options.on_bad_line, trace.report);
        }
    }
    finish_trace(trace);
    return trace;
}

bool detect_flavor(std::string_view first_line, const Flavor& flavor) {
    const std::string_view prefix(flavor.header, flavor.detect_chars);
    first_line = strip_bom(first_line);
    // The prefix must end at a column boundary ("...,duration" is not "...,duration_s").
    return first_line.substr(0, prefix.size()) == prefix &&
           (first_line.size() == prefix.size() || first_line[prefix.size()] == ',' ||
            first_line[prefix.size()] == '\r');
}

}  // namespace

Trace read_tiresias_trace(const std::string& path, const ReadOptions& options) {
    return read_flavor(path, options, kTiresias);
}

bool detect_tiresias(std::string_view, std::string_view first_line) { return detect_flavor(first_line, kTiresias); }

Trace read_muri_trace(const std::string& path, const ReadOptions& options) { return read_flavor(path, options, kMuri); }

bool detect_muri(std::string_view, std::string_view first_line) { return detect_flavor(first_line, kMuri); }

}  // namespace dlsim
