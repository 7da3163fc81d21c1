// Python policy overhead: the in-process Python FIFO (policies/foreign/examples/fifo.py, through the
// embedded interpreter) against the native fifo on the same generated trace, on 1,024 GPUs. Prints each
// run's simulate() wall time and time in the policy, the per-call cost of each, and the ratios; the target
// is the whole Python run within 10x of the native one. The two schedules must be the same (checked).
//   usage: bench_python_policy [jobs=100000] [jobs_per_hour=22]
#include "models/profile.hpp"
#include "sim/app/run.hpp"
#include "tests/bench/gavel_mix_trace.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>

using namespace dlsim;

int main(int argc, char** argv) {
    const std::size_t jobs = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100'000;
    const double rate = argc > 2 ? std::strtod(argv[2], nullptr) : 22.0;  // load ~0.69 (bench_fifo_million)
    RunInputs in;
    in.cluster = parse_cluster(R"({"gpu_types": {"V100": {}},
        "node_types": {"dgx": {"gpu_type": "V100", "gpus": 8}}, "racks": [{"node_type": "dgx", "nodes": 16, "count": 8}]})",
                               "bench-1024.json");
    in.profiles = load_profiles(std::string(DLSIM_SOURCE_DIR) + "/models/profiles/gavel.json");
    in.trace = bench::gavel_mix_trace(in.profiles, jobs, rate);

    struct Figures {
        double wall, policy, calls;
        Summary summary;
    };
    auto run = [&](const std::string& policy) {
        RunConfig c;
        c.policy = policy;
        c.out.clear();
        const auto t0 = std::chrono::steady_clock::now();
        const RunOutcome o = simulate(in, c);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return Figures{wall, o.stats.policy_seconds, static_cast<double>(o.stats.policy_calls), o.summary};
    };
    const std::string python = "py:" + std::string(DLSIM_SOURCE_DIR) + "/policies/foreign/examples/fifo.py:Fifo";
    run(python);  // starts the interpreter and warms the caches: not timed
    const Figures native = run("fifo"), py = run(python);

    fmt::print("bench_python_policy: fifo vs {} on {} jobs at {} jobs/h, {} GPUs, {:.0f} policy calls\n", python, jobs,
               rate, in.cluster.num_gpus(), native.calls);
    fmt::print("  native fifo       simulate {:.3f} s, in policy {:.3f} s ({:.2f} us/call)\n", native.wall,
               native.policy, 1e6 * native.policy / native.calls);
    fmt::print("  Python fifo.py    simulate {:.3f} s, in policy {:.3f} s ({:.2f} us/call)\n", py.wall, py.policy,
               1e6 * py.policy / py.calls);
    fmt::print("  Python overhead   {:.2f} us/call; whole run {:.1f}x native (target <= 10x)\n",
               1e6 * (py.policy - native.policy) / py.calls, py.wall / native.wall);
    const bool same = py.summary.avg_jct == native.summary.avg_jct && py.summary.makespan == native.summary.makespan &&
                      py.calls == native.calls;
    fmt::print("  same schedule     {}\n", same ? "yes" : "NO");
    return same ? 0 : 1;
}
