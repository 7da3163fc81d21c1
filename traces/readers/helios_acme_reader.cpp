// Readers of two Slurm-style job logs with wall-clock times:
//  - Helios (SenseTime, Hu et al., SC'21, github.com/S-Lab-System-Group/HeliosData) `cluster_log.csv`:
//    zone-less "YYYY-MM-DD HH:MM:SS" times, a `vc` column;
//  - Acme (Shanghai AI Lab, NSDI'24, github.com/InternLM/AcmeTrace) `trace_seren.csv` and `trace_kalos.csv`:
//    ISO times with a zone offset, a workload `type` and `gpu_time` (Kalos adds memory, fail and stop columns
//    in the middle).
// Both are read by column name from the header, so reordered or extended variants work.
#include "models/base/input_error.hpp"
#include "traces/readers/csv_reader.hpp"
#include "traces/readers/trace_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>

namespace dlsim {

namespace {

enum Column {
    kJobId,
    kUser,
    kVc,
    kGpuNum,
    kCpuNum,
    kNodeNum,
    kType,
    kState,
    kSubmitTime,
    kStartTime,
    kEndTime,
    kDuration,
    kQueue,
    kGpuTime,
    kMemPerPod,
    kSharedMemPerPod,
    kFailTime,
    kStopTime,
    kNumColumns
};
constexpr std::array<const char*, kNumColumns> kColumnNames = {
    "job_id",      "user",       "vc",       "gpu_num",  "cpu_num", "node_num", "type",           "state",
    "submit_time", "start_time", "end_time", "duration", "queue",   "gpu_time", "mem_per_pod_GB", "shared_mem_per_pod",
    "fail_time",   "stop_time"};
/// Columns read but not used for the job record (listed in the report's assumptions when present).
constexpr std::array<Column, 8> kUnused = {kCpuNum,    kNodeNum,         kType,     kQueue,
                                           kMemPerPod, kSharedMemPerPod, kFailTime, kStopTime};

/// What differs between the two formats.
struct Flavour {
    const char* format;
    const char* header;              ///< the published header, for messages
    std::array<Column, 8> required;  ///< kNumColumns pads the list
    bool acme;
};

constexpr Flavour kHelios = {
    "helios",
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue",
    {kJobId, kGpuNum, kState, kSubmitTime, kStartTime, kEndTime, kDuration, kNumColumns},
    false};
constexpr Flavour kAcme = {
    "acme",
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time",
    {kJobId, kGpuNum, kState, kSubmitTime, kStartTime, kEndTime, kDuration, kGpuTime},
    true};

/// The five terminal states both logs document (Acme README note 1; Helios uses the same Slurm words).
JobOutcome outcome_of(std::string_view state, bool& known) {
    known = true;
    if (state == "COMPLETED") return JobOutcome::Completed;
    if (state == "CANCELLED") return JobOutcome::Killed;
    if (state == "FAILED" || state == "TIMEOUT" || state == "NODE_FAIL") return JobOutcome::Failed;
    known = false;
    return JobOutcome::Unknown;
}

class RowParser {
public:
    RowParser(const CsvLines& csv, const std::array<int, kNumColumns>& where, const std::vector<std::string_view>& f)
        : csv_(csv), where_(where), f_(f) {}

    bool has(Column c) const { return where_[c] >= 0; }
    std::string_view raw(Column c) const { return has(c) ? trim(f_[where_[c]]) : std::string_view(); }

    [[noreturn]] void fail(Column c, std::string_view expected, std::string_view got) const {
        throw field_error(csv_.origin(), csv_.line(), kColumnNames[c], expected, got);
    }

    double datetime(Column c) const {
        auto t = parse_datetime(raw(c));
        if (!t) fail(c, "a date-time YYYY-MM-DD HH:MM:SS (optionally with a zone offset such as +08:00)", raw(c));
        return *t;
    }

    double number(Column c, std::string_view expected) const {
        auto v = parse_double(raw(c));
        if (!v || *v < 0) fail(c, expected, raw(c));
        return *v;
    }

private:
    const CsvLines& csv_;
    const std::array<int, kNumColumns>& where_;
    const std::vector<std::string_view>& f_;
};

/// "a (2), b (1)" from a count map.
std::string list_counts(const std::map<std::string, std::uint64_t, std::less<>>& counts) {
    std::string s;
    for (const auto& [name, n] : counts) s += fmt::format("{}{} ({})", s.empty() ? "" : ", ", name, n);
    return s;
}

Trace read_cluster_log(const std::string& path, const ReadOptions& options, const Flavour& flavour) {
    CsvLines csv(path);
    Trace trace;
    trace.path = path;
    trace.format = flavour.format;
    trace.wall_clock = true;
    ReadReport& report = trace.report;

    std::vector<std::string_view> fields;
    if (!csv.next(fields))
        throw InputError(
            fmt::format("{}: empty file, expected the {} header {}", path, flavour.format, flavour.header));
    std::array<int, kNumColumns> where;
    where.fill(-1);
    std::vector<std::string> unknown;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string_view name = trim(i == 0 ? strip_bom(fields[i]) : fields[i]);
        auto it = std::find_if(kColumnNames.begin(), kColumnNames.end(), [&](const char* n) { return name == n; });
        if (it == kColumnNames.end()) {
            unknown.emplace_back(name);
            continue;
        }
        const auto c = static_cast<std::size_t>(it - kColumnNames.begin());
        if (where[c] >= 0)
            throw InputError(fmt::format("{}:{}: column '{}' appears twice in the header", path, csv.line(), name));
        where[c] = static_cast<int>(i);
    }
    for (Column c : flavour.required)
        if (c != kNumColumns && where[c] < 0)
            throw InputError(
                fmt::format("{}:{}: missing required column '{}' in the header (a {} trace has the "
                            "header {})",
                            path, csv.line(), kColumnNames[c], flavour.format, flavour.header));
    const std::size_t width = fields.size();
    // A kept row holds three 19-character times, so no file holds more than bytes / 64 of them: reserving that
    // touches no memory until used and saves re-copying a growing vector of a million records.
    std::error_code size_error;
    const auto bytes = std::filesystem::file_size(path, size_error);
    if (!size_error) trace.jobs.reserve(std::min<std::uintmax_t>(bytes / 64 + 16, 50'000'000));

    RowParser row(csv, where, fields);
    std::map<std::string, std::uint64_t, std::less<>> odd_states;
    std::uint64_t duration_with_queue = 0, no_gpu_time = 0;

    while (csv.next(fields)) {
        ++report.rows_read;
        try {
            if (fields.size() != width) throw field_count_error(path, csv.line(), width, fields.size());
            const std::string_view id = row.raw(kJobId);
            if (id.empty()) row.fail(kJobId, "a non-empty job id", id);
            const auto gpus = parse_integer(row.raw(kGpuNum));
            if (!gpus || *gpus < 0 || *gpus > 1'000'000)
                row.fail(kGpuNum, "an integer number of GPUs >= 0", row.raw(kGpuNum));
            if (*gpus == 0) {  // CPU-only jobs are not ours to simulate: their other columns are not checked
                ++report.dropped["cpu-only"];
                continue;
            }
            const std::string_view state = row.raw(kState);
            if (state.empty())
                row.fail(kState, "a job state (COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL)", state);
            const double submit = row.datetime(kSubmitTime);
            if (row.raw(kStartTime).empty()) {
                ++report.dropped["never started (no start_time)"];
                continue;
            }
            const double start = row.datetime(kStartTime);
            if (row.raw(kEndTime).empty()) {
                ++report.dropped["not finished (no end_time)"];
                continue;
            }
            const double end = row.datetime(kEndTime);
            if (end < start)
                row.fail(kEndTime, fmt::format("a time at or after start_time '{}'", row.raw(kStartTime)),
                         row.raw(kEndTime));
            const double run = end - start;
            const double duration = row.number(kDuration, "a number of seconds >= 0");
            if (std::abs(duration - run) > 1) {
                // Acme's Kalos log (its README's own example rows) counts the queue in `duration`.
                if (flavour.acme && std::abs(duration - (end - submit)) <= 1)
                    ++duration_with_queue;
                else if (flavour.acme)
                    row.fail(kDuration,
                             fmt::format("end_time - start_time = {} s or end_time - submit_time = {} s "
                                         "(within 1 s)",
                                         run, end - submit),
                             row.raw(kDuration));
                else
                    row.fail(kDuration, fmt::format("end_time - start_time = {} s (within 1 s)", run),
                             row.raw(kDuration));
            }
            if (row.has(kGpuTime)) {
                if (row.raw(kGpuTime).empty()) {
                    ++no_gpu_time;
                } else {
                    const double gpu_time = row.number(kGpuTime, "GPU-seconds >= 0");
                    const double expected = duration * static_cast<double>(*gpus);
                    if (std::abs(gpu_time - expected) > 1e-6 * std::max(1.0, expected))
                        row.fail(kGpuTime, fmt::format("duration x gpu_num = {} x {} = {}", duration, *gpus, expected),
                                 row.raw(kGpuTime));
                }
            }
            if (run <= 0) {  // under the logs' 1 s resolution; the authors document no repair
                ++report.dropped["zero run time (end_time = start_time)"];
                continue;
            }
            JobRecord job;
            job.id = std::string(id);
            job.submit_time = submit;
            job.num_gpus = static_cast<int>(*gpus);
            job.duration = run;
            job.line = csv.line();
            if (row.has(kUser)) job.user = trace.strings.intern(row.raw(kUser));
            if (row.has(kVc)) job.vc = trace.strings.intern(row.raw(kVc));
            job.status = trace.strings.intern(state);
            bool known = true;
            job.outcome = outcome_of(state, known);
            if (!known) ++odd_states[std::string(state)];
            trace.jobs.push_back(std::move(job));
        } catch (const RowError& e) {
            handle_row_error(e, options.on_bad_line, report);
        }
    }

    // Duplicate ids: sort once (no per-row set of strings), then report the later rows in file order.
    std::vector<std::uint32_t> order(trace.jobs.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return trace.jobs[a].id < trace.jobs[b].id; });
    std::vector<std::pair<std::uint32_t, std::uint32_t>> duplicates;  // (job index, line of the first)
    for (std::size_t i = 1, first = 0; i < order.size(); ++i) {
        if (trace.jobs[order[i]].id != trace.jobs[order[first]].id)
            first = i;
        else
            duplicates.emplace_back(order[i], trace.jobs[order[first]].line);
    }
    if (!duplicates.empty()) {
        std::sort(duplicates.begin(), duplicates.end());
        std::vector<bool> drop(trace.jobs.size(), false);
        for (const auto& [j, first_line] : duplicates) {
            const auto& job = trace.jobs[j];
            handle_row_error(RowError{"duplicate job_id", fmt::format("{}:{}: column 'job_id': duplicate id '{}' "
                                                                      "(first on line {})",
                                                                      path, job.line, job.id, first_line)},
                             options.on_bad_line, report);
            drop[j] = true;
        }
        std::size_t kept = 0;
        for (std::size_t j = 0; j < trace.jobs.size(); ++j)
            if (!drop[j] && kept++ != j) trace.jobs[kept - 1] = std::move(trace.jobs[j]);
        trace.jobs.resize(kept);
    }

    auto& a = report.assumptions;
    a.push_back(
        "state -> outcome: COMPLETED = completed, CANCELLED = killed (by its user), FAILED, TIMEOUT and "
        "NODE_FAIL = failed (as the Acme README counts them)");
    if (!odd_states.empty())
        a.push_back(fmt::format("states outside the documented five are kept with outcome unknown: {}",
                                list_counts(odd_states)));
    a.push_back(
        "run time = end_time - start_time (s); rows without a start_time (never started) or an end_time "
        "(not finished) are dropped, and so are rows with end_time = start_time (under the 1 s resolution): "
        "the authors document no repair");
    a.push_back("CPU-only rows (gpu_num = 0) are dropped before their other columns are checked");
    if (flavour.acme) {
        a.push_back("times carry their zone offset (Seren +08:00, Kalos +00:00); a time without one is read as UTC");
        a.push_back(
            "type (the workload type: pretraining, SFT, evaluation, debug, ...) is not kept: the canonical "
            "record has no field for it, and using it as the model would match no throughput profile");
        a.push_back(
            "gpu_time must equal duration x gpu_num (the README's definition); duration must equal "
            "end_time - start_time within 1 s, or end_time - submit_time (Kalos)");
        if (duration_with_queue > 0)
            a.push_back(
                fmt::format("{} rows' duration is end_time - submit_time (it includes the queue, as in the "
                            "Kalos example rows of the README): their run time is still end_time - start_time",
                            duration_with_queue));
        if (no_gpu_time > 0) a.push_back(fmt::format("{} rows have an empty gpu_time, left unchecked", no_gpu_time));
    } else {
        a.push_back(
            "times have no zone and are read as UTC: they are the cluster's local clock (UTC+8), so hours "
            "of day are local hours");
        a.push_back("the duration column must equal end_time - start_time within 1 s");
    }
    std::string unused;
    for (Column c : kUnused)
        if (where[c] >= 0) unused += fmt::format("{}{}", unused.empty() ? "" : ", ", kColumnNames[c]);
    if (!unused.empty()) a.push_back("columns not used: " + unused);
    if (!unknown.empty()) {
        std::string names;
        for (const auto& n : unknown) names += fmt::format("{}'{}'", names.empty() ? "" : ", ", n);
        a.push_back("unknown columns ignored: " + names);
    }
    if (options.time_unit != 0)
        a.push_back("--time-unit ignored: every time is a date-time and run times are computed from them");
    finish_trace(trace);
    return trace;
}

}  // namespace

Trace read_helios_trace(const std::string& path, const ReadOptions& options) {
    return read_cluster_log(path, options, kHelios);
}

bool detect_helios(std::string_view, std::string_view first_line) {
    return strip_bom(first_line).starts_with("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time");
}

Trace read_acme_trace(const std::string& path, const ReadOptions& options) {
    return read_cluster_log(path, options, kAcme);
}

bool detect_acme(std::string_view, std::string_view first_line) {
    const std::string_view h = strip_bom(first_line);
    // Seren and Kalos both start this way; Kalos puts its memory columns between cpu_num and type.
    return h.starts_with("job_id,user,node_num,gpu_num,") && h.find(",type,") != std::string_view::npos &&
           h.find(",gpu_time") != std::string_view::npos;
}

}  // namespace dlsim
