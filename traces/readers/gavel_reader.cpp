// Gavel traces (Narayanan et al., OSDI'20; github.com/stanford-futuredata/gavel scheduler/traces/): tab-separated,
// no header, one job per line.
// Two forms, told apart by the number of fields:
//   7 (legacy msr/seed=*/<vc>.trace): job_type, command, num_steps_arg, needs_data_dir, total_steps,
//     arrival_time, scale_factor
//   10 (physical_cluster/*.trace, utils.parse_trace at c4fa400): job_type, command, working_directory,
//     num_steps_arg, needs_data_dir, total_steps, scale_factor, priority_weight, SLO, arrival_time
// A job is defined in steps (iterations of its job_type's model), so total_steps becomes `work`.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>

#include "models/base/input_error.hpp"
#include "traces/readers/csv_reader.hpp"
#include "traces/readers/trace_format.hpp"

namespace dlsim {

namespace {

/// Where each field of one form is (-1 = the form has no such field), and the names used in messages.
struct Form {
    const char* name;
    std::size_t width;
    int job_type, needs_data_dir, total_steps, scale_factor, arrival_time, priority_weight, slo;
    std::array<const char*, 10> columns;
};

constexpr Form kMsr{
    "msr", 7,
    0,     3,
    4,     6,
    5,     -1,
    -1,    {"job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps", "arrival_time", "scale_factor"}};
constexpr Form kPhysical{"physical_cluster",
                         10,
                         0,
                         4,
                         5,
                         6,
                         9,
                         7,
                         8,
                         {"job_type", "command", "working_directory", "num_steps_arg", "needs_data_dir", "total_steps",
                          "scale_factor", "priority_weight", "SLO", "arrival_time"}};

std::string column_list(const Form& f) {
    std::string s;
    for (std::size_t i = 0; i < f.width; ++i) {
        if (i) s += ", ";
        s += f.columns[i];
    }
    return s;
}

class RowParser {
public:
    RowParser(const std::string& origin, std::uint32_t line, const Form& form, const std::vector<std::string_view>& f)
        : origin_(origin), line_(line), form_(form), f_(f) {}

    std::string_view raw(int c) const { return trim(f_[static_cast<std::size_t>(c)]); }

    [[noreturn]] void fail(int c, std::string_view expected) const {
        throw field_error(origin_, line_, form_.columns[static_cast<std::size_t>(c)],
                          fmt::format("{} (field {} of {}, {} form)", expected, c + 1, form_.width, form_.name),
                          raw(c));
    }

    long long integer(int c, long long lo, long long hi, std::string_view expected) const {
        auto v = parse_integer(raw(c));
        if (!v || *v < lo || *v > hi) fail(c, expected);
        return *v;
    }

    double number(int c, std::string_view expected, bool (*ok)(double)) const {
        auto v = parse_double(raw(c));
        if (!v || !ok(*v)) fail(c, expected);
        return *v;
    }

private:
    const std::string& origin_;
    std::uint32_t line_;
    const Form& form_;
    const std::vector<std::string_view>& f_;
};

void add_assumptions(Trace& trace, const Form& form, double unit) {
    auto& a = trace.report.assumptions;
    a.push_back(fmt::format("no header: the {}-field {} form was told from the number of tab-separated fields ({})",
                            form.width, form.name, column_list(form)));
    a.push_back(
        "work = total_steps, in iterations of the job_type's profile model (job_type is kept as the model "
        "name as written)");
    a.push_back(
        "the format has no run time: duration is a placeholder equal to total_steps seconds (1 iteration/s), "
        "unused because work is given");
    a.push_back("the format has no job ids: each job's id is 'L<line>', its line in the file");
    a.push_back("the format has no status: every job's outcome is Unknown");
    a.push_back(unit == 1 ? std::string("arrival_time is in seconds from the trace start")
                          : fmt::format("arrival_time is in units of {} s (--time-unit)", unit));
    if (&form == &kPhysical) {
        a.push_back(
            "command, working_directory, num_steps_arg and needs_data_dir only matter on a physical cluster "
            "and are ignored");
        a.push_back(
            "priority_weight becomes priority; SLO (-1 = none) is checked but not kept (the canonical record "
            "has no SLO)");
    } else {
        a.push_back("command, num_steps_arg and needs_data_dir only matter on a physical cluster and are ignored");
        a.push_back("the msr form has no priority_weight: priority is left at 0 (not given)");
    }
}

}  // namespace

Trace read_gavel_trace(const std::string& path, const ReadOptions& options) {
    Trace trace;
    trace.path = path;
    trace.format = "gavel";
    const double unit = options.time_unit > 0 ? options.time_unit : 1.0;
    // Gavel's parse_trace splits on tabs with no quoting (a command may hold quotes), so CsvLines'
    // RFC 4180 unquoting is not used: lines are split on '\t' as they are.
    const std::string text = read_whole_file(path);
    reject_nul_bytes(text, path);
    trace.jobs.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
    std::vector<std::string_view> fields;
    const Form* form = nullptr;
    std::uint32_t form_line = 0;
    std::uint32_t line = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        ++line;
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        std::string_view row(text.data() + pos, end - pos);
        pos = end + 1;
        if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
        if (trim(row).empty()) continue;
        ++trace.report.rows_read;
        fields.clear();
        for (std::size_t start = 0;;) {
            const std::size_t cut = row.find('\t', start);
            if (cut == std::string_view::npos) {
                fields.push_back(row.substr(start));
                break;
            }
            fields.push_back(row.substr(start, cut - start));
            start = cut + 1;
        }
        try {
            if (form == nullptr) {
                if (fields.size() != kMsr.width && fields.size() != kPhysical.width)
                    throw RowError{"wrong number of fields",
                                   fmt::format("{}:{}: expected 7 tab-separated fields (msr form: {}) or 10 "
                                               "(physical_cluster form: {}), got {}",
                                               path, line, column_list(kMsr), column_list(kPhysical), fields.size())};
                form = fields.size() == kMsr.width ? &kMsr : &kPhysical;
                form_line = line;
                add_assumptions(trace, *form, unit);
            } else if (fields.size() != form->width) {
                throw RowError{
                    "wrong number of fields",
                    fmt::format("{}:{}: expected {} tab-separated fields ({} form, as on line {}: {}), got {}", path,
                                line, form->width, form->name, form_line, column_list(*form), fields.size())};
            }
            const RowParser p(path, line, *form, fields);
            JobRecord job;
            job.line = line;
            const std::string_view job_type = p.raw(form->job_type);
            if (job_type.empty()) p.fail(form->job_type, "a job type (a model name of the Gavel profile)");
            p.integer(form->needs_data_dir, 0, 1, "0 or 1");
            const long long steps =
                p.integer(form->total_steps, 1, 1'000'000'000'000LL, "an integer number of steps >= 1 (at most 1e12)");
            job.num_gpus =
                static_cast<int>(p.integer(form->scale_factor, 1, 1'000'000, "an integer number of GPUs >= 1"));
            const double arrival =
                p.number(form->arrival_time, "a time in seconds >= 0", [](double v) { return v >= 0 && v <= 1e15; });
            job.submit_time = arrival * unit;
            if (job.submit_time > 1e12) p.fail(form->arrival_time, "a time of at most 1e12 s");
            if (form->priority_weight >= 0)
                job.priority = p.number(form->priority_weight, "a priority weight > 0", [](double v) { return v > 0; });
            if (form->slo >= 0)
                p.number(form->slo, "an SLO > 0 or -1 (none)", [](double v) { return v == -1 || v > 0; });
            job.work = static_cast<double>(steps);
            job.duration = static_cast<double>(steps);  // placeholder: 1 iteration/s (see the assumptions)
            job.id = fmt::format("L{}", line);
            job.model = trace.strings.intern(job_type);
            trace.jobs.push_back(std::move(job));
        } catch (const RowError& e) {
            handle_row_error(e, options.on_bad_line, trace.report);
        }
    }
    finish_trace(trace);
    return trace;
}

bool detect_gavel(std::string_view path, std::string_view first_line) {
    if (path.size() >= 6 && path.substr(path.size() - 6) == ".trace") return true;
    const auto tabs = std::count(first_line.begin(), first_line.end(), '\t');
    return tabs == 6 || tabs == 9;
}

}  // namespace dlsim
