// Whole-run benchmark: fifo over a generated 1,000,000-job trace on a 1,024-GPU
// cluster. Prints events/s, jobs/s, wall time and peak RSS; targets on a 2-core machine:
// >= 2 M events/s, under 15 s, under 1 GiB.
//   usage: bench_fifo_million [jobs=1000000] [jobs_per_hour=22] [policy=fifo]
#include "models/profile.hpp"
#include "sim/app/run.hpp"
#include "tests/bench/gavel_mix_trace.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <chrono>
#include <cstdlib>
#include <filesystem>

using namespace dlsim;

int main(int argc, char** argv) {
    const std::size_t jobs = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
    // 128 nodes x 8 V100; the Gavel mix needs about 31.9 V100 GPU-hours per job, so 22 jobs/h is a
    // load of about 0.69.
    const double rate = argc > 2 ? std::strtod(argv[2], nullptr) : 22.0;
    const std::string policy = argc > 3 ? argv[3] : "fifo";
    using clock = std::chrono::steady_clock;
    auto seconds = [](clock::time_point a, clock::time_point b) {
        return std::chrono::duration<double>(b - a).count();
    };

    const auto t0 = clock::now();
    RunInputs in;
    in.cluster = parse_cluster(R"({"gpu_types": {"V100": {"aliases": ["v100"]}},
        "node_types": {"dgx": {"gpu_type": "V100", "gpus": 8}}, "racks": [{"node_type": "dgx", "nodes": 16, "count": 8}]})",
                               "bench-1024.json");
    in.profiles = load_profiles(std::string(DLSIM_SOURCE_DIR) + "/models/profiles/gavel.json");
    in.trace = bench::gavel_mix_trace(in.profiles, jobs, rate);
    const auto t1 = clock::now();

    RunConfig c;
    c.policy = policy;
    c.out = (std::filesystem::temp_directory_path() / "dlsim-bench-result.json").string();
    const RunOutcome o = simulate(in, c);
    const auto t2 = clock::now();
    write_outputs(in, c, o, RunSelfProfile{seconds(t0, clock::now()), peak_rss_mb()});
    const auto t3 = clock::now();
    std::filesystem::remove(c.out);

    const double sim = seconds(t1, t2);
    fmt::print("bench_fifo_million: policy {}, {} jobs at {} jobs/h on {} GPUs\n", policy, jobs, rate,
               in.cluster.num_gpus());
    const double jobs_run = static_cast<double>(std::max<std::uint64_t>(1, o.summary.jobs));
    fmt::print(
        "  finished          {} (makespan {:.0f} h, GPU utilization {:.1f}%, avg JCT {:.1f} h, "
        "{:.2f} preemptions and {:.2f} migrations per job)\n",
        o.summary.finished, o.summary.makespan / 3600, 100 * o.summary.gpu_utilization, o.summary.avg_jct / 3600,
        static_cast<double>(o.summary.preemptions) / jobs_run, static_cast<double>(o.summary.migrations) / jobs_run);
    fmt::print("  trace generation  {:.3f} s\n", seconds(t0, t1));
    const double loop = o.stats.engine_seconds;
    fmt::print(
        "  event loop        {:.3f} s  ({} events, {:.2f} M events/s, {:.2f} M jobs/s, {} policy calls, "
        "{:.3f} s in policy)\n",
        loop, o.stats.events, static_cast<double>(o.stats.events) / loop / 1e6, static_cast<double>(jobs) / loop / 1e6,
        o.stats.policy_calls, o.stats.policy_seconds);
    fmt::print("  simulate()        {:.3f} s  (resolve jobs, event loop, summary, time series: {:.2f} M events/s)\n",
               sim, static_cast<double>(o.stats.events) / sim / 1e6);
    fmt::print("  result JSON       {:.3f} s\n", seconds(t2, t3));
    fmt::print("  wall total        {:.3f} s\n", seconds(t0, t3));
    fmt::print("  peak RSS          {:.0f} MiB\n", peak_rss_mb());
    return 0;
}
