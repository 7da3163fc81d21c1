// Alibaba GPU 2023 ("openb") pod lists (Weng et al., ATC'23; github.com/alibaba/clusterdata cluster-trace-gpu-v2023):
// name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
// Times are seconds from the trace start. Pending pods (no scheduled_time) and CPU-only pods are dropped;
// a GPU-sharing pod (gpu_milli < 1000) keeps its share in gpu_fraction.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <utility>
#include <vector>

#include "models/base/input_error.hpp"
#include "traces/readers/csv_reader.hpp"
#include "traces/readers/trace_format.hpp"

namespace dlsim {

namespace {

enum Column {
    kName,
    kNumGpu,
    kGpuMilli,
    kGpuSpec,
    kPodPhase,
    kCreationTime,
    kDeletionTime,
    kScheduledTime,
    kNumColumns
};
constexpr std::array<const char*, kNumColumns> kColumnNames = {
    "name", "num_gpu", "gpu_milli", "gpu_spec", "pod_phase", "creation_time", "deletion_time", "scheduled_time"};

constexpr std::string_view kHeaderStart = "name,cpu_milli,memory_mib,num_gpu,gpu_milli";
constexpr const char* kPending = "pending (never scheduled)";
constexpr const char* kCpuOnly = "cpu-only";
constexpr const char* kZeroRunTime = "zero run time (deletion_time = scheduled_time)";

JobOutcome outcome_of(std::string_view phase) {
    if (phase == "Succeeded") return JobOutcome::Completed;
    if (phase == "Failed") return JobOutcome::Failed;
    return JobOutcome::Unknown;  // Running (the phase when the trace was taken), Pending, Unknown
}

/// Pod names must be unique among the kept pods. Checked after reading by sorting name hashes: a hash map of a
/// million names costs several times the rest of the reader. The later pod of a pair is the malformed one.
void drop_duplicate_names(Trace& trace, BadLinePolicy on_bad_line) {
    std::vector<std::pair<std::size_t, std::uint32_t>> keys;  // (hash of name, job index)
    keys.reserve(trace.jobs.size());
    for (std::uint32_t i = 0; i < trace.jobs.size(); ++i)
        keys.emplace_back(std::hash<std::string>{}(trace.jobs[i].id), i);
    std::sort(keys.begin(), keys.end());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> duplicates;  // (later index, first index)
    for (std::size_t g = 0; g < keys.size();) {
        std::size_t end = g + 1;
        while (end < keys.size() && keys[end].first == keys[g].first) ++end;
        for (std::size_t k = g + 1; k < end; ++k)  // indices ascend within a group of equal hashes
            for (std::size_t m = g; m < k; ++m)
                if (trace.jobs[keys[m].second].id == trace.jobs[keys[k].second].id) {
                    duplicates.emplace_back(keys[k].second, keys[m].second);
                    break;
                }
        g = end;
    }
    if (duplicates.empty()) return;
    std::sort(duplicates.begin(), duplicates.end());
    std::vector<bool> drop(trace.jobs.size(), false);
    for (const auto& [later, first] : duplicates) {
        const JobRecord& j = trace.jobs[later];
        handle_row_error(RowError{"duplicate name", fmt::format("{}:{}: column 'name': duplicate pod name '{}' (first "
                                                                "on line {})",
                                                                trace.path, j.line, j.id, trace.jobs[first].line)},
                         on_bad_line, trace.report);
        drop[later] = true;
    }
    std::size_t out = 0;
    for (std::size_t i = 0; i < trace.jobs.size(); ++i)
        if (!drop[i]) trace.jobs[out++] = std::move(trace.jobs[i]);
    trace.jobs.resize(out);
}

}  // namespace

bool detect_alibaba_openb(std::string_view, std::string_view first_line) {
    // The shorter prefix also claims the multigpu* variants, so that they get the reader's clear
    // "no time columns" error rather than "unknown format".
    return strip_bom(first_line).substr(0, kHeaderStart.size()) == kHeaderStart;
}

Trace read_alibaba_openb_trace(const std::string& path, const ReadOptions& options) {
    CsvLines csv(path);
    Trace trace;
    trace.path = path;
    trace.format = "alibaba-openb";
    const double unit = options.time_unit > 0 ? options.time_unit : 1.0;

    std::vector<std::string_view> fields;
    if (!csv.next(fields))
        throw InputError(
            fmt::format("{}: empty file, expected the openb pod-list header "
                        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                        "creation_time,deletion_time,scheduled_time",
                        path));
    std::array<int, kNumColumns> where;
    where.fill(-1);
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string_view name = trim(i == 0 ? strip_bom(fields[i]) : fields[i]);
        for (int c = 0; c < kNumColumns; ++c)
            if (name == kColumnNames[c]) where[c] = static_cast<int>(i);
    }
    for (int c = 0; c < kNumColumns; ++c) {
        if (where[c] >= 0) continue;
        const bool no_times = where[kCreationTime] < 0 && where[kDeletionTime] < 0 && where[kScheduledTime] < 0;
        throw InputError(fmt::format(
            "{}:{}: missing column '{}' in the openb pod-list header{}", path, csv.line(), kColumnNames[c],
            no_times ? " (this looks like a multigpu* variant, which has no time columns and cannot be replayed: "
                       "use openb_pod_list_default.csv or another variant with creation/deletion/scheduled times)"
                     : " (expected name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                       "creation_time,deletion_time,scheduled_time)"));
    }
    const std::size_t width = fields.size();

    while (csv.next(fields)) {
        ++trace.report.rows_read;
        try {
            if (fields.size() != width) throw field_count_error(path, csv.line(), width, fields.size());
            auto raw = [&](Column c) { return trim(fields[where[c]]); };
            auto fail = [&](Column c, std::string_view expected) -> RowError {
                return field_error(path, csv.line(), kColumnNames[c], expected, raw(c));
            };
            auto time = [&](Column c) {
                auto v = parse_double(raw(c));
                if (!v || *v < 0 || *v > 1e12) throw fail(c, "a time in seconds from the trace start (>= 0)");
                return *v * unit;
            };
            const std::string_view name = raw(kName);
            if (name.empty()) throw fail(kName, "a non-empty pod name");
            auto gpus = parse_integer(raw(kNumGpu));
            if (!gpus || *gpus < 0 || *gpus > 1'000'000) throw fail(kNumGpu, "an integer number of GPUs >= 0");
            auto milli = parse_integer(raw(kGpuMilli));
            if (!milli || *milli < 0 || *milli > 1000) throw fail(kGpuMilli, "an integer share of a GPU in 0..1000");
            if (*gpus > 0 && *milli == 0) throw fail(kGpuMilli, "a share of 1..1000 for a pod with GPUs");
            const std::string_view spec = raw(kGpuSpec);
            for (std::size_t start = 0; !spec.empty();) {
                const std::size_t cut = spec.find('|', start);
                if (trim(spec.substr(start, cut == std::string_view::npos ? cut : cut - start)).empty())
                    throw fail(kGpuSpec, "GPU type names separated by '|' (or empty for any type)");
                if (cut == std::string_view::npos) break;
                start = cut + 1;
            }
            const double created = time(kCreationTime);
            const double deleted = time(kDeletionTime);
            const bool pending = raw(kScheduledTime).empty();
            const double scheduled = pending ? 0 : time(kScheduledTime);
            if (!pending && deleted < scheduled)
                throw fail(kDeletionTime, fmt::format("a time >= scheduled_time ({})", raw(kScheduledTime)));
            // Pending first: the "897 pending" of the published figures counts every phase-Pending pod.
            if (pending) {
                ++trace.report.dropped[kPending];
                continue;
            }
            if (*gpus == 0) {
                ++trace.report.dropped[kCpuOnly];
                continue;
            }
            if (deleted - scheduled < 1e-6) {  // equal times (a run time below 1 us only with an odd --time-unit)
                ++trace.report.dropped[kZeroRunTime];
                continue;
            }
            JobRecord job;
            job.id = std::string(name);
            job.line = csv.line();
            job.submit_time = created;
            job.num_gpus = static_cast<int>(*gpus);
            job.duration = deleted - scheduled;
            job.gpu_fraction = static_cast<double>(*milli) / 1000.0;
            job.allowed_gpu_types = trace.strings.intern(spec);
            // A pod that allows one GPU model ran on that model: its original type (--type-choice original).
            if (!spec.empty() && spec.find('|') == std::string_view::npos) job.gpu_type = job.allowed_gpu_types;
            job.status = trace.strings.intern(raw(kPodPhase));
            job.outcome = outcome_of(raw(kPodPhase));
            trace.jobs.push_back(std::move(job));
        } catch (const RowError& e) {
            handle_row_error(e, options.on_bad_line, trace.report);
        }
    }

    drop_duplicate_names(trace, options.on_bad_line);

    auto& a = trace.report.assumptions;
    a.push_back("submit time = creation_time; run time = deletion_time - scheduled_time");
    a.push_back(
        "pods with an empty scheduled_time (phase Pending) never ran and are dropped as 'pending (never "
        "scheduled)'");
    a.push_back("pods with num_gpu = 0 are dropped as 'cpu-only'");
    a.push_back(
        "pod_phase is the phase when the trace was taken: Running pods still have a deletion_time and are "
        "replayed with outcome Unknown (Succeeded -> Completed, Failed -> Failed)");
    a.push_back(
        "gpu_milli < 1000 is a share of one GPU: the pod takes num_gpu whole GPUs (rounded up) and keeps "
        "gpu_fraction = gpu_milli/1000 for sharing policies");
    a.push_back("gpu_spec ('|'-separated) becomes allowed_gpu_types; empty = any type");
    a.push_back("a gpu_spec naming one GPU model is also the pod's gpu_type, the type it ran on");
    a.push_back(
        "pods with deletion_time = scheduled_time (none in the published files) are dropped as 'zero run "
        "time': the authors document no repair");
    if (options.time_unit > 0)
        a.push_back(fmt::format("times read in units of {} s (--time-unit) instead of seconds", options.time_unit));
    finish_trace(trace);
    return trace;
}

}  // namespace dlsim
