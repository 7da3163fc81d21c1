#include "traces/readers/canonical_csv.hpp"

#include "models/base/csv_out.hpp"
#include "models/base/input_error.hpp"
#include "traces/readers/csv_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

namespace dlsim {

namespace {

enum Column {
    kJobId,
    kSubmitTime,
    kNumGpus,
    kDuration,
    kModel,
    kGpuType,
    kAllowedGpuTypes,
    kGpuFraction,
    kWork,
    kUser,
    kVc,
    kStatus,
    kPriority,
    kMinNumGpus,
    kMaxNumGpus,
    kNumColumns
};
constexpr std::array<const char*, kNumColumns> kColumnNames = {
    "job_id", "submit_time", "num_gpus", "duration", "model",    "gpu_type",     "allowed_gpu_types", "gpu_fraction",
    "work",   "user",        "vc",       "status",   "priority", "min_num_gpus", "max_num_gpus"};
constexpr long long kMaxJobGpus = 1'000'000;
constexpr int kRequired = 4;  // the first four columns

class RowParser {
public:
    RowParser(const CsvLines& csv, const std::array<int, kNumColumns>& where) : csv_(csv), where_(where) {}

    bool has(Column c) const { return where_[c] >= 0; }

    std::string_view raw(const std::vector<std::string_view>& f, Column c) const { return trim(f[where_[c]]); }

    [[noreturn]] void fail(Column c, std::string_view expected, std::string_view got) const {
        throw field_error(csv_.origin(), csv_.line(), kColumnNames[c], expected, got);
    }

    double number(const std::vector<std::string_view>& f, Column c, double lo, bool lo_inclusive, double hi,
                  std::string_view expected) const {
        auto v = parse_double(raw(f, c));
        if (!v || *v < lo || (!lo_inclusive && *v == lo) || *v > hi) fail(c, expected, raw(f, c));
        return *v;
    }

    /// An integer in [lo, hi], checked before it is narrowed to int.
    int integer(const std::vector<std::string_view>& f, Column c, long long lo, long long hi,
                std::string_view expected) const {
        auto v = parse_integer(raw(f, c));
        if (!v || *v < lo || *v > hi) fail(c, expected, raw(f, c));
        return static_cast<int>(*v);
    }

private:
    const CsvLines& csv_;
    const std::array<int, kNumColumns>& where_;
};

Trace parse(CsvLines& csv, BadLinePolicy on_bad_line) {
    Trace trace;
    trace.path = csv.origin();
    trace.format = "csv";
    std::vector<std::string_view> fields;
    if (!csv.next(fields))
        throw InputError(fmt::format(
            "{}: empty file, expected a header line starting job_id,submit_time,num_gpus,duration", csv.origin()));

    std::array<int, kNumColumns> where;
    where.fill(-1);
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string_view name = trim(i == 0 ? strip_bom(fields[i]) : fields[i]);
        int found = -1;
        for (int c = 0; c < kNumColumns; ++c)
            if (name == kColumnNames[c]) found = c;
        if (found < 0) {
            std::string all;
            for (auto n : kColumnNames) all += (all.empty() ? "" : ", ") + std::string(n);
            throw InputError(fmt::format("{}:{}: unknown column '{}' in header (expected columns: {})", csv.origin(),
                                         csv.line(), name, all));
        }
        if (where[found] >= 0)
            throw InputError(
                fmt::format("{}:{}: column '{}' appears twice in the header", csv.origin(), csv.line(), name));
        where[found] = static_cast<int>(i);
    }
    for (int c = 0; c < kRequired; ++c)
        if (where[c] < 0)
            throw InputError(
                fmt::format("{}:{}: missing required column '{}' (a canonical trace needs "
                            "job_id,submit_time,num_gpus,duration)",
                            csv.origin(), csv.line(), kColumnNames[c]));
    const std::size_t width = fields.size();
    RowParser row(csv, where);
    std::map<std::string, std::uint32_t, std::less<>> seen;  // job id -> line

    while (csv.next(fields)) {
        ++trace.report.rows_read;
        try {
            if (fields.size() != width) throw field_count_error(csv.origin(), csv.line(), width, fields.size());
            JobRecord job;
            job.line = csv.line();
            std::string_view id = row.raw(fields, kJobId);
            if (id.empty()) row.fail(kJobId, "a non-empty job id", id);
            job.submit_time = row.number(fields, kSubmitTime, 0, true, 1e12, "a time in seconds >= 0");
            auto gpus = parse_integer(row.raw(fields, kNumGpus));
            if (!gpus || *gpus < 1 || *gpus > kMaxJobGpus)
                row.fail(kNumGpus, "an integer number of GPUs >= 1", row.raw(fields, kNumGpus));
            job.num_gpus = static_cast<int>(*gpus);
            job.duration = row.number(fields, kDuration, 1e-6, true, 1e12, "a duration in seconds > 0 (at least 1 us)");
            if (row.has(kWork) && !row.raw(fields, kWork).empty())
                job.work = row.number(fields, kWork, 0, false, 1e18, "a work in iterations > 0");
            if (row.has(kGpuFraction) && !row.raw(fields, kGpuFraction).empty())
                job.gpu_fraction = row.number(fields, kGpuFraction, 0, false, 1, "a fraction in (0, 1]");
            if (row.has(kPriority) && !row.raw(fields, kPriority).empty())
                job.priority = row.number(fields, kPriority, -1e300, true, 1e300, "a number");
            // The elastic range, each side optional: an empty cell (or no column) leaves it at num_gpus.
            if (row.has(kMinNumGpus) && !row.raw(fields, kMinNumGpus).empty())
                job.min_num_gpus =
                    row.integer(fields, kMinNumGpus, 1, job.num_gpus,
                                fmt::format("an integer number of GPUs in 1..num_gpus ({})", job.num_gpus));
            if (row.has(kMaxNumGpus) && !row.raw(fields, kMaxNumGpus).empty())
                job.max_num_gpus = row.integer(
                    fields, kMaxNumGpus, job.num_gpus, kMaxJobGpus,
                    fmt::format("an integer number of GPUs in num_gpus ({})..{}", job.num_gpus, kMaxJobGpus));
            if (row.has(kAllowedGpuTypes)) {
                std::string_view allowed = row.raw(fields, kAllowedGpuTypes);
                for (std::size_t start = 0; !allowed.empty();) {
                    std::size_t cut = allowed.find('|', start);
                    std::string_view name =
                        trim(allowed.substr(start, cut == std::string_view::npos ? cut : cut - start));
                    if (name.empty()) row.fail(kAllowedGpuTypes, "GPU type names separated by '|'", allowed);
                    if (cut == std::string_view::npos) break;
                    start = cut + 1;
                }
            }
            if (auto [it, fresh] = seen.try_emplace(std::string(id), csv.line()); !fresh)
                throw RowError{"duplicate job_id",
                               fmt::format("{}:{}: column 'job_id': duplicate id '{}' (first on line {})", csv.origin(),
                                           csv.line(), id, it->second)};
            job.id = std::string(id);
            auto intern = [&](Column c) { return row.has(c) ? trace.strings.intern(row.raw(fields, c)) : StrId{0}; };
            job.model = intern(kModel);
            job.gpu_type = intern(kGpuType);
            job.allowed_gpu_types = intern(kAllowedGpuTypes);
            job.user = intern(kUser);
            job.vc = intern(kVc);
            job.status = intern(kStatus);
            trace.jobs.push_back(std::move(job));
            ++trace.report.kept;
        } catch (const RowError& e) {
            handle_row_error(e, on_bad_line, trace.report);
        }
    }
    if (trace.jobs.empty())
        throw InputError(trace.report.rows_read == 0
                             ? fmt::format("{}: no job rows after the header", csv.origin())
                             : fmt::format("{}: every one of the {} rows was malformed and skipped", csv.origin(),
                                           trace.report.rows_read));
    return trace;
}

}  // namespace

bool is_canonical_header(std::string_view line) {
    line = strip_bom(line);
    int required = 0;
    for (std::size_t start = 0;;) {
        const std::size_t cut = line.find(',', start);
        const std::string_view name = trim(line.substr(start, cut == std::string_view::npos ? cut : cut - start));
        const auto it = std::find(kColumnNames.begin(), kColumnNames.end(), name);
        if (it == kColumnNames.end()) return false;
        required += it - kColumnNames.begin() < kRequired;
        if (cut == std::string_view::npos) break;
        start = cut + 1;
    }
    return required == kRequired;
}

Trace read_canonical_csv(const std::string& path, BadLinePolicy on_bad_line) {
    CsvLines csv(path);
    return parse(csv, on_bad_line);
}

Trace parse_canonical_csv(std::string text, const std::string& origin, BadLinePolicy on_bad_line) {
    CsvLines csv(std::move(text), origin, ',');
    return parse(csv, on_bad_line);
}

void write_canonical_csv(const Trace& trace, std::ostream& out) {
    bool use[kNumColumns] = {true, true, true, true};
    for (const auto& j : trace.jobs) {
        use[kModel] |= j.model != 0;
        use[kGpuType] |= j.gpu_type != 0;
        use[kAllowedGpuTypes] |= j.allowed_gpu_types != 0;
        use[kGpuFraction] |= j.gpu_fraction != 1;
        use[kWork] |= j.work != 0;
        use[kUser] |= j.user != 0;
        use[kVc] |= j.vc != 0;
        use[kStatus] |= j.status != 0;
        use[kPriority] |= j.priority != 0;
        use[kMinNumGpus] |= j.min_num_gpus != 0;
        use[kMaxNumGpus] |= j.max_num_gpus != 0;
    }
    std::string header;
    for (int c = 0; c < kNumColumns; ++c) {
        if (!use[c]) continue;
        if (!header.empty()) header.push_back(',');
        header.append(kColumnNames[c]);
    }
    out << header << '\n';
    auto field = [](std::string& line, std::string_view s) {
        line.push_back(',');
        csv_out::append_field(line, s);
    };
    std::string line;
    for (const auto& j : trace.jobs) {
        line.clear();
        field(line, j.id);
        line.erase(0, 1);  // no separator before the first field
        line.append(fmt::format(",{},{},{}", j.submit_time, j.num_gpus, j.duration));
        if (use[kModel]) field(line, trace.strings[j.model]);
        if (use[kGpuType]) field(line, trace.strings[j.gpu_type]);
        if (use[kAllowedGpuTypes]) field(line, trace.strings[j.allowed_gpu_types]);
        if (use[kGpuFraction]) line.append(fmt::format(",{}", j.gpu_fraction));
        if (use[kWork]) line.append(j.work != 0 ? fmt::format(",{}", j.work) : std::string(","));
        if (use[kUser]) field(line, trace.strings[j.user]);
        if (use[kVc]) field(line, trace.strings[j.vc]);
        if (use[kStatus]) field(line, trace.strings[j.status]);
        if (use[kPriority]) line.append(fmt::format(",{}", j.priority));
        // 0 is "absent": an empty cell, which reads back as absent.
        if (use[kMinNumGpus]) line.append(j.min_num_gpus != 0 ? fmt::format(",{}", j.min_num_gpus) : std::string(","));
        if (use[kMaxNumGpus]) line.append(j.max_num_gpus != 0 ? fmt::format(",{}", j.max_num_gpus) : std::string(","));
        out << line << '\n';
    }
}

}  // namespace dlsim
