// Pipe-protocol benchmark: the whole run's wall time and the per-call overhead of a policy served
// over the pipe (`exec:`, here the Python FIFO through policies/foreign/dlsim_pipe_client.py) against the native
// fifo, on the same trace: N jobs of Gavel's mix (seed 42) arriving at 2 jobs/hour (70% GPU utilization, a
// queue that stays bounded) on the bundled 108-GPU cluster (V100, P100, K80; Gavel's profile). Both runs go
// through simulate(), as `dlsim run` does; per-call times are the engine's own self-profile
// (SimStats::policy_call_time). CPU time (dlsim's and the child's, which is reaped by the end of the run) is
// printed too: on a shared machine it is steadier. The target (printed, not asserted: a noisy machine must
// not fail CI) is the pipe run within 50x of the native one. The two runs' summaries must agree (the FIFOs
// are the same policy): exit 1 otherwise.
//   usage: bench_pipe [jobs=100000] [FILE.py:CLASS=policies/foreign/examples/fifo.py:Fifo] [jobs_per_hour=2]
#include "models/profile.hpp"
#include "sim/app/run.hpp"
#include "tests/bench/gavel_mix_trace.hpp"

#include <fmt/format.h>

#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <string>

using namespace dlsim;

namespace {

using Clock = std::chrono::steady_clock;

struct Figures {
    double wall = 0;
    double cpu = 0;  ///< user + system CPU seconds of dlsim and of the children reaped during the run
    RunOutcome outcome;
};

double cpu_seconds() {
    double total = 0;
    for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
        rusage u{};
        getrusage(who, &u);
        for (const timeval& t : {u.ru_utime, u.ru_stime})
            total += static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
    }
    return total;
}

Figures run(const RunInputs& in, const std::string& policy) {
    RunConfig c;
    c.policy = policy;
    c.out.clear();
    const auto t0 = Clock::now();
    const double cpu0 = cpu_seconds();
    Figures f;
    f.outcome = simulate(in, c);
    f.wall = std::chrono::duration<double>(Clock::now() - t0).count();
    f.cpu = cpu_seconds() - cpu0;
    return f;
}

void print(const char* label, const Figures& f) {
    const SimStats& s = f.outcome.stats;
    const double calls = static_cast<double>(std::max<std::uint64_t>(1, s.policy_calls));
    fmt::print(
        "  {:<7} wall {:7.3f} s   CPU {:7.3f} s   policy {:7.3f} s over {} calls: mean {:7.2f} us, "
        "p50 {:7.2f} us, p99 {:7.2f} us, max {:8.0f} us\n",
        label, f.wall, f.cpu, s.policy_seconds, s.policy_calls, 1e6 * s.policy_seconds / calls,
        1e6 * s.policy_call_time.percentile(50), 1e6 * s.policy_call_time.percentile(99),
        1e6 * s.policy_call_time.max());
}

}  // namespace

int main(int argc, char** argv) {
    const std::string source = DLSIM_SOURCE_DIR;
    const std::size_t jobs = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100'000;
    const std::string file_class = argc > 2 ? argv[2] : source + "/policies/foreign/examples/fifo.py:Fifo";
    const double rate = argc > 3 ? std::strtod(argv[3], nullptr) : 2.0;
    if (jobs == 0 || !(rate > 0)) {
        fmt::print(stderr, "usage: bench_pipe [jobs=100000] [FILE.py:CLASS] [jobs_per_hour=2]\n");
        return 2;
    }
    RunInputs in;
    in.cluster = load_cluster(source + "/models/clusters/gavel_simulated.json");
    in.profiles = load_profiles(source + "/models/profiles/gavel.json");
    in.trace = bench::gavel_mix_trace(in.profiles, jobs, rate);

    const std::string pipe = "exec:/usr/bin/python3 " + source + "/policies/foreign/dlsim_pipe_client.py " + file_class;
    fmt::print("bench_pipe: {} jobs of Gavel's mix at {} jobs/h on {} GPUs (3 types); pipe policy {}\n", jobs, rate,
               in.cluster.num_gpus(), file_class);
    const Figures native = run(in, "fifo");
    print("native", native);
    const Figures piped = run(in, pipe);
    print("pipe", piped);
    const double calls = static_cast<double>(std::max<std::uint64_t>(1, piped.outcome.stats.policy_calls));
    fmt::print(
        "  pipe / native: whole run {:.1f}x wall (target within 50x), {:.1f}x CPU (both processes); pipe "
        "overhead per call {:.2f} us\n",
        piped.wall / native.wall, piped.cpu / native.cpu,
        1e6 * (piped.outcome.stats.policy_seconds - native.outcome.stats.policy_seconds) / calls);
    const Summary& a = native.outcome.summary;
    const Summary& b = piped.outcome.summary;
    if (a.finished != b.finished || a.avg_jct != b.avg_jct || a.makespan != b.makespan) {
        fmt::print(stderr, "bench_pipe: the pipe FIFO's schedule differs from the native fifo's (avg JCT {} vs {})\n",
                   b.avg_jct, a.avg_jct);
        return 1;
    }
    fmt::print("  same schedule: {} finished, avg JCT {:.2f} h\n", a.finished, a.avg_jct / 3600);
    return 0;
}
