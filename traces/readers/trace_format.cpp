#include "traces/readers/trace_format.hpp"

#include "models/base/input_error.hpp"
#include "models/base/input_text.hpp"
#include "traces/readers/canonical_csv.hpp"
#include "traces/readers/csv_reader.hpp"

#include <fmt/format.h>

#include <fstream>

namespace dlsim {

Trace read_canonical_trace(const std::string& path, const ReadOptions& options) {
    return read_canonical_csv(path, options.on_bad_line);
}

bool detect_canonical(std::string_view, std::string_view first_line) {
    // Tried last, after every format whose header also starts with job_id: any other job_id header is
    // taken as a canonical CSV so that its reader names the missing or unknown column.
    return is_canonical_header(first_line) || strip_bom(first_line).substr(0, 7) == "job_id,";
}

std::span<const TraceFormat> trace_formats() {
    // Detection tries them in this order; the canonical CSV, the catch-all for job_id headers, is last.
    static const TraceFormat kFormats[] = {
        {"philly",
         "Philly: the per-job CSV (timestamp,duration,num_gpus,gpu_time,cluster) and the raw cluster_job_log JSON",
         detect_philly, read_philly_trace},
        {"gavel", "Gavel: tab-separated traces, 7-column (msr) and 10-column (physical_cluster) forms", detect_gavel,
         read_gavel_trace},
        {"tiresias", "Tiresias: CSV with submit_time and duration in seconds", detect_tiresias, read_tiresias_trace},
        {"muri", "Muri: CSV with submit_time and duration in milliseconds", detect_muri, read_muri_trace},
        {"alibaba-openb", "Alibaba GPU 2023 (openb) pod lists", detect_alibaba_openb, read_alibaba_openb_trace},
        {"alibaba-pai2020", "Alibaba PAI 2020: headerless pai_job_table + pai_task_table, joined per job",
         detect_alibaba_pai2020, read_alibaba_pai2020_trace},
        {"helios", "Helios cluster_log.csv (wall-clock times)", detect_helios, read_helios_trace},
        {"acme", "Acme (Seren/Kalos) job traces (ISO times with zone offsets)", detect_acme, read_acme_trace},
        {"pollux",
         "Pollux/Sia workloads (name,time,application,num_replicas,batch_size): elastic jobs, work from goodput",
         detect_pollux, read_pollux_trace},
        {"csv", "dlsim's canonical CSV (job_id,submit_time,num_gpus,duration,...)", detect_canonical,
         read_canonical_trace},
    };
    return kFormats;
}

const TraceFormat& find_trace_format(const std::string& name) {
    std::string names;
    for (const auto& f : trace_formats()) {
        if (name == f.name) return f;
        names += (names.empty() ? "" : ", ") + std::string(f.name);
    }
    throw InputError(fmt::format("--trace-format: unknown format '{}' (valid: auto, {})", name, names));
}

Trace read_trace(const std::string& path, const std::string& format, const ReadOptions& options) {
    if (format != "auto") return find_trace_format(format).read(path, options);
    check_input_file(path);  // a directory is named as such, not read as an empty file
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot open file", path));
    std::string first;
    std::getline(in, first);
    if (!first.empty() && first.back() == '\r') first.pop_back();
    std::string names;
    for (const auto& f : trace_formats()) {
        if (f.detect(path, first)) return f.read(path, options);
        names += (names.empty() ? "" : ", ") + std::string(f.name);
    }
    if (first.empty())
        throw InputError(
            fmt::format("{}: empty file, expected a trace (a canonical one starts with the header "
                        "job_id,submit_time,num_gpus,duration)",
                        path));
    throw InputError(
        fmt::format("{}:1: cannot tell the trace format from the file name and first line '{}' "
                    "(give --trace-format, one of: {})",
                    path, printable(first.substr(0, 80)), names));
}

}  // namespace dlsim
