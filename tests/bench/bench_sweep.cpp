// Sweep scaling (printed, not asserted): a 100-run sweep of 10k-job runs (fifo and srtf x 5 loads x 10
// seeds, Poisson re-sampling of the bundled trace) with one worker process and with one per core (CI runs it
// with fewer jobs per run: scripts/test.sh; the full size: scripts/bench.sh). Prints the
// sum of the runs' own wall times (what 100 separate `dlsim run`s would take), the sweep's wall time
// at --jobs 1 and --jobs <cores>, and the parallel efficiency against sum ÷ cores.
//   usage: bench_sweep [results-folder] [jobs-per-run=10000]
#include "models/base/json_fields.hpp"
#include "sim/app/sweep.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace dlsim;

namespace {

double timed_sweep(const SweepSpec& spec, const std::string& dir, unsigned jobs) {
    std::filesystem::remove_all(dir);
    SweepOptions o;
    o.out_dir = dir;
    o.jobs = jobs;
    o.resume = false;
    o.worker_binary = DLSIM_BINARY;  // each run in a process of the dlsim binary, as `dlsim sweep` does
    const auto t0 = std::chrono::steady_clock::now();
    if (run_sweep(spec, o) != 0) throw std::runtime_error("the benchmark sweep failed");
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    const std::string dir =
        argc > 1 ? argv[1] : (std::filesystem::temp_directory_path() / "dlsim-bench-sweep").string();
    const unsigned long jobs = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 10'000;
    std::filesystem::create_directories(dir);
    const std::string spec_path = dir + "/bench_sweep.json";
    std::ofstream(spec_path) << fmt::format(R"({{"name": "bench-sweep",
  "base": {{"trace": "{}/traces/samples/gavel_mix_default.csv", "resample_rate": 3, "resample_jobs": {},
           "job_records": false}},
  "grid": {{"policy": ["fifo", "srtf"], "load_scale": [0.6, 0.8, 1, 1.2, 1.4], "seed": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}}}})",
                                            DLSIM_SOURCE_DIR, jobs);
    const SweepSpec spec = load_sweep_spec(spec_path);
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());

    const double serial = timed_sweep(spec, dir + "/jobs1", 1);
    double sum_runs = 0;
    for (const SweepRun& run : spec.runs)
        sum_runs +=
            json_fields::parse_file(dir + "/jobs1/runs/" + run.id + ".json")["run"]["wall_seconds"].get<double>();
    const double parallel = timed_sweep(spec, dir + "/jobsN", cores);

    fmt::print("sweep of {} runs x {} jobs (fifo, srtf x 5 loads x 10 seeds), {} cores\n", spec.runs.size(), jobs,
               cores);
    fmt::print("  sum of single-run wall times   {:8.2f} s\n", sum_runs);
    fmt::print("  sweep --jobs 1                 {:8.2f} s\n", serial);
    fmt::print("  sweep --jobs {}                 {:8.2f} s   (sum / cores = {:.2f} s: {:.0f}% parallel efficiency)\n",
               cores, parallel, sum_runs / cores, 100 * (sum_runs / cores) / parallel);
    return 0;
}
