// Parsing throughput of the trace readers on the public files in ../shared/data (printed, not
// asserted): rows/s and wall time per file. Files that are absent are listed as skipped. The PAI 2020,
// Helios and Acme logs are not in ../shared/data, so their readers are not measured here.
//   usage: bench_readers [shared-data-folder]
#include "traces/readers/trace_format.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

using namespace dlsim;

int main(int argc, char** argv) {
    const std::string root = argc > 1 ? argv[1] : DLSIM_SHARED_DATA;
    const std::pair<const char*, const char*> files[] = {
        {"philly", "traces/pollux/philly.csv"},
        {"alibaba-openb", "traces/alibaba_gpu_2023/csv/openb_pod_list_default.csv"},
        {"gavel", "traces/gavel/msr/seed=0/0e4a51.trace"},
        {"muri", "traces/muri/trace1.csv"},
        {"tiresias", "traces/tiresias/60_job.csv"},
    };
    fmt::print("{:<16} {:>10} {:>10} {:>12}  {}\n", "format", "rows", "seconds", "rows/s", "file");
    for (const auto& [format, rel] : files) {
        const std::string path = root + "/" + rel;
        if (!std::filesystem::exists(path)) {
            fmt::print("{:<16} skipped: {} not found\n", format, path);
            continue;
        }
        double best = 1e300;
        std::uint64_t rows = 0;
        for (int rep = 0; rep < 3; ++rep) {  // best of three: the least disturbed run
            const auto t0 = std::chrono::steady_clock::now();
            const Trace t = read_trace(path, format, {});
            best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            rows = t.report.rows_read;
        }
        fmt::print("{:<16} {:>10} {:>10.4f} {:>12.0f}  {}\n", format, rows, best, static_cast<double>(rows) / best,
                   rel);
    }
    return 0;
}
