// Alibaba PAI 2020 (Weng et al., NSDI'22; github.com/alibaba/clusterdata cluster-trace-gpu-v2020): headerless
// pai_job_table (job_name,inst_id,user,status,start_time,end_time)
// joined per job with pai_task_table (job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,
// plan_gpu,gpu_type) read from the same folder. The job's start_time is its SUBMIT time; the tasks give its
// GPUs, GPU type and run time.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "models/base/input_error.hpp"
#include "traces/readers/csv_reader.hpp"
#include "traces/readers/trace_format.hpp"

namespace dlsim {

namespace {

enum JobColumn { kJobName, kInstId, kUser, kJobStatus, kJobStart, kJobEnd, kJobColumns };
constexpr std::array<const char*, kJobColumns> kJobColumnNames = {"job_name", "inst_id",    "user",
                                                                  "status",   "start_time", "end_time"};
enum TaskColumn {
    kTaskJob,
    kTaskName,
    kInstNum,
    kTaskStatus,
    kTaskStart,
    kTaskEnd,
    kPlanCpu,
    kPlanMem,
    kPlanGpu,
    kGpuType,
    kTaskColumns
};
constexpr std::array<const char*, kTaskColumns> kTaskColumnNames = {"job_name",   "task_name", "inst_num", "status",
                                                                    "start_time", "end_time",  "plan_cpu", "plan_mem",
                                                                    "plan_gpu",   "gpu_type"};
constexpr std::array<std::string_view, 5> kGpuTypes = {"V100", "V100M32", "P100", "T4", "MISC"};

/// What the tasks of one job add up to.
struct TaskSum {
    long long gpus = 0;  ///< sum of inst_num * ceil(plan_gpu / 100)
    int tasks = 0;
    double plan_gpu = 0;  ///< of the last task (used when the job has one task)
    double first_start = std::numeric_limits<double>::infinity();
    double last_end = -std::numeric_limits<double>::infinity();
    StrId gpu_type = 0;          ///< of the first GPU task with a disclosed type
    bool typed = false;          ///< a GPU task has given the type (even MISC = none)
    bool missing_time = false;   ///< a task has an empty start_time or end_time
    bool malformed = false;      ///< a task row was malformed and skipped
    std::uint32_t job_line = 0;  ///< line of the job row that joined these tasks (0 = none yet)
};

/// The per-job sums by job name: an open-addressing table over one vector of sums and one buffer of names,
/// because a node-based map of a million names costs several times the rest of the reader.
class TaskSums {
public:
    /// The sums of `name`, or nullptr.
    TaskSum* find(std::string_view name) {
        const std::size_t h = std::hash<std::string_view>{}(name);
        for (std::size_t i = h & mask_; !slots_.empty() && slots_[i] != 0; i = (i + 1) & mask_)
            if (matches(slots_[i] - 1, h, name)) return &sums_[slots_[i] - 1];
        return nullptr;
    }
    /// The sums of `name`, added empty if new.
    TaskSum& find_or_add(std::string_view name) {
        if (TaskSum* s = find(name)) return *s;
        if (2 * (sums_.size() + 1) > slots_.size()) grow();
        const std::size_t h = std::hash<std::string_view>{}(name);
        sums_.emplace_back();
        keys_.push_back(Key{h, names_.size(), name.size()});
        names_.append(name);
        place(h, static_cast<std::uint32_t>(sums_.size()));
        return sums_.back();
    }
    const std::vector<TaskSum>& all() const { return sums_; }

private:
    struct Key {
        std::size_t hash, offset, size;
    };
    bool matches(std::uint32_t k, std::size_t h, std::string_view name) const {
        return keys_[k].hash == h && std::string_view(names_).substr(keys_[k].offset, keys_[k].size) == name;
    }
    void place(std::size_t h, std::uint32_t index_plus_one) {
        std::size_t i = h & mask_;
        while (slots_[i] != 0) i = (i + 1) & mask_;
        slots_[i] = index_plus_one;
    }
    void grow() {
        slots_.assign(std::max<std::size_t>(64, 2 * slots_.size()), 0);
        mask_ = slots_.size() - 1;
        for (std::uint32_t k = 0; k < keys_.size(); ++k) place(keys_[k].hash, k + 1);
    }
    std::vector<TaskSum> sums_;
    std::vector<Key> keys_;
    std::string names_;
    std::vector<std::uint32_t> slots_;  // index into sums_ + 1; 0 = empty
    std::size_t mask_ = 0;
};

/// pai_job_table* -> pai_task_table* in the same folder (so sampled copies keep their pairing).
std::string task_table_path(const std::string& job_path) {
    const std::filesystem::path p(job_path);
    std::string name = p.filename().string();
    const std::size_t at = name.find("pai_job_table");
    if (at == std::string::npos) return (p.parent_path() / "pai_task_table.csv").string();
    name.replace(at, 13, "pai_task_table");
    return (p.parent_path() / name).string();
}

/// Reads the task table into per-job sums. Malformed task rows are errors, or under Skip mark their job.
TaskSums read_tasks(const std::string& path, Trace& trace, const ReadOptions& options, std::uint64_t& bad_tasks) {
    if (!std::filesystem::exists(path))
        throw InputError(
            fmt::format("{}: the PAI 2020 reader joins pai_job_table with the task table, expected "
                        "beside it at {} (headerless: {})",
                        trace.path, path,
                        "job_name,task_name,inst_num,status,start_time,end_time,"
                        "plan_cpu,plan_mem,plan_gpu,gpu_type"));
    CsvLines csv(path);
    const double unit = options.time_unit > 0 ? options.time_unit : 1.0;
    TaskSums sums;
    std::vector<std::string_view> f;
    ReadReport scratch;  // task rows are not trace rows: their jobs are what the report counts
    while (csv.next(f)) {
        try {
            if (f.size() != kTaskColumns)
                throw RowError{"wrong number of fields",
                               fmt::format("{}:{}: expected {} fields (job_name,task_name,inst_num,status,start_time,"
                                           "end_time,plan_cpu,plan_mem,plan_gpu,gpu_type), got {}",
                                           path, csv.line(), static_cast<int>(kTaskColumns), f.size())};
            auto raw = [&](TaskColumn c) { return trim(f[c]); };
            auto fail = [&](TaskColumn c, std::string_view expected) -> RowError {
                return field_error(path, csv.line(), kTaskColumnNames[c], expected, raw(c));
            };
            if (raw(kTaskJob).empty()) throw fail(kTaskJob, "a non-empty job name");
            auto inst = parse_double(raw(kInstNum));
            if (!inst || *inst < 1 || *inst > 1e6 || *inst != std::floor(*inst))
                throw fail(kInstNum, "a whole number of instances >= 1");
            double plan_gpu = 0;
            if (!raw(kPlanGpu).empty()) {
                auto v = parse_double(raw(kPlanGpu));
                if (!v || *v < 0 || *v > 1e6) throw fail(kPlanGpu, "a percentage of a GPU >= 0, or empty");
                plan_gpu = *v;
            }
            const std::string_view type = raw(kGpuType);
            if (!type.empty() && std::find(kGpuTypes.begin(), kGpuTypes.end(), type) == kGpuTypes.end())
                throw fail(kGpuType, "one of V100, V100M32, P100, T4, MISC, or empty");
            auto time = [&](TaskColumn c) -> std::optional<double> {
                if (raw(c).empty()) return std::nullopt;
                auto v = parse_double(raw(c));
                if (!v || *v < 0 || *v > 1e12) throw fail(c, "a time in seconds >= 0, or empty");
                return *v * unit;
            };
            const auto start = time(kTaskStart), end = time(kTaskEnd);
            if (start && end && *end < *start)
                throw fail(kTaskEnd, fmt::format("a time >= start_time ({})", raw(kTaskStart)));

            TaskSum& s = sums.find_or_add(raw(kTaskJob));
            ++s.tasks;
            s.plan_gpu = plan_gpu;
            if (plan_gpu > 0) {
                s.gpus += static_cast<long long>(*inst) * static_cast<long long>(std::ceil(plan_gpu / 100.0));
                if (!s.typed && !type.empty()) {
                    s.typed = true;
                    s.gpu_type = type == "MISC" ? StrId{0} : trace.strings.intern(type);
                }
            }
            if (!start || !end) {
                s.missing_time = true;
            } else {
                s.first_start = std::min(s.first_start, *start);
                s.last_end = std::max(s.last_end, *end);
            }
        } catch (const RowError& e) {
            handle_row_error(e, options.on_bad_line, scratch);
            ++bad_tasks;
            if (!f.empty() && !trim(f[0]).empty()) sums.find_or_add(trim(f[0])).malformed = true;
            if (trace.report.first_errors.size() < 5) trace.report.first_errors.push_back(e.message);
        }
    }
    return sums;
}

}  // namespace

bool detect_alibaba_pai2020(std::string_view path, std::string_view) {
    return std::filesystem::path(path).filename().string().find("pai_job_table") != std::string::npos;
}

Trace read_alibaba_pai2020_trace(const std::string& path, const ReadOptions& options) {
    Trace trace;
    trace.path = path;
    trace.format = "alibaba-pai2020";
    const double unit = options.time_unit > 0 ? options.time_unit : 1.0;
    CsvLines csv(path);  // opened first, so a missing job table is named before its task table
    const std::string task_path = task_table_path(path);
    std::uint64_t bad_tasks = 0;
    auto sums = read_tasks(task_path, trace, options, bad_tasks);

    std::vector<std::string_view> f;
    auto& dropped = trace.report.dropped;
    while (csv.next(f)) {
        ++trace.report.rows_read;
        try {
            if (f.size() != kJobColumns)
                throw RowError{"wrong number of fields",
                               fmt::format("{}:{}: expected {} fields (job_name,inst_id,user,status,start_time,"
                                           "end_time), got {}",
                                           path, csv.line(), static_cast<int>(kJobColumns), f.size())};
            auto raw = [&](JobColumn c) { return trim(f[c]); };
            auto fail = [&](JobColumn c, std::string_view expected) -> RowError {
                return field_error(path, csv.line(), kJobColumnNames[c], expected, raw(c));
            };
            const std::string_view name = raw(kJobName);
            if (name.empty()) throw fail(kJobName, "a non-empty job name");
            const std::string_view status = raw(kJobStatus);
            if (status.empty()) throw fail(kJobStatus, "a status (Terminated, Failed, Running, Waiting)");
            auto time = [&](JobColumn c) -> std::optional<double> {
                if (raw(c).empty()) return std::nullopt;
                auto v = parse_double(raw(c));
                if (!v || *v < 0 || *v > 1e12) throw fail(c, "a time in seconds >= 0, or empty");
                return *v * unit;
            };
            const auto submit = time(kJobStart);
            time(kJobEnd);  // checked, not used: the tasks give the run time
            // A repeated job row would join the same tasks twice; one without tasks is dropped anyway.
            TaskSum* const tasks = sums.find(name);
            if (tasks) {
                if (tasks->job_line != 0)
                    throw RowError{"duplicate job_name",
                                   fmt::format("{}:{}: column 'job_name': duplicate job '{}' (first on line {})", path,
                                               csv.line(), name, tasks->job_line)};
                tasks->job_line = csv.line();
            }
            if (status == "Running") {
                ++dropped["still running"];
                continue;
            }
            if (status == "Waiting") {
                ++dropped["never started"];
                continue;
            }
            if (!submit) {
                ++dropped["no submit time (empty start_time)"];
                continue;
            }
            if (!tasks) {
                ++dropped["no tasks in the task table"];
                continue;
            }
            const TaskSum& s = *tasks;
            if (s.malformed) {
                ++dropped["a task row was malformed"];
                continue;
            }
            if (s.gpus == 0) {
                ++dropped["cpu-only"];
                continue;
            }
            if (s.missing_time) {
                ++dropped["a task has no start_time or end_time"];
                continue;
            }
            if (s.gpus > 1'000'000) throw fail(kJobName, "a job whose tasks ask for at most 1,000,000 GPUs");

            JobRecord job;
            job.id = std::string(name);
            job.line = csv.line();
            job.submit_time = *submit;
            job.num_gpus = static_cast<int>(s.gpus);
            job.duration = s.last_end - s.first_start;
            if (job.duration < 1e-6) {
                job.duration = 1;  // as the PAI authors' sample simulator does
                ++trace.report.repaired["zero run time set to 1 s"];
            }
            if (s.tasks == 1 && s.plan_gpu < 100) job.gpu_fraction = s.plan_gpu / 100.0;
            job.gpu_type = s.gpu_type;
            job.user = trace.strings.intern(raw(kUser));
            job.status = trace.strings.intern(status);
            job.outcome = status == "Terminated" ? JobOutcome::Completed
                          : status == "Failed"   ? JobOutcome::Failed
                                                 : JobOutcome::Unknown;
            trace.jobs.push_back(std::move(job));
        } catch (const RowError& e) {
            handle_row_error(e, options.on_bad_line, trace.report);
        }
    }

    std::uint64_t orphans = 0;
    for (const TaskSum& s : sums.all())
        if (s.job_line == 0) orphans += static_cast<std::uint64_t>(s.tasks);
    auto& a = trace.report.assumptions;
    a.push_back(fmt::format("tasks read from {}, joined to the jobs by job_name", task_path));
    a.push_back(
        "submit time = the job's start_time (PAI's submit time); times are seconds shifted by a constant, "
        "so the dates are not real");
    a.push_back(
        "GPUs = sum over the job's tasks of inst_num * ceil(plan_gpu / 100); tasks with plan_gpu empty or 0 "
        "add none, and a job without GPUs is dropped as 'cpu-only'");
    a.push_back("gpu_fraction = plan_gpu / 100 when the job is a single task with plan_gpu < 100");
    a.push_back("gpu_type = that of the job's first GPU task; MISC (older, undisclosed GPUs) gives no type");
    a.push_back(
        "run time = latest task end_time - earliest task start_time; a zero run time is set to 1 s as in "
        "the PAI sample simulator; a job with a task lacking start_time or end_time is dropped");
    a.push_back(
        "status Terminated -> Completed, Failed -> Failed, other words -> Unknown; Running and Waiting jobs "
        "are dropped ('still running', 'never started')");
    a.push_back("id = job_name (the join key); inst_id has no canonical column and is not kept");
    if (bad_tasks > 0)
        a.push_back(
            fmt::format("{} malformed task rows were skipped (--on-bad-line skip) and their jobs dropped", bad_tasks));
    if (orphans > 0) a.push_back(fmt::format("{} task rows name no job of the job table and were ignored", orphans));
    if (options.time_unit > 0)
        a.push_back(fmt::format("times read in units of {} s (--time-unit) instead of seconds", options.time_unit));
    finish_trace(trace);
    return trace;
}

}  // namespace dlsim
