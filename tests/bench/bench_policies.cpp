// Queue-policy benchmark: 1,000,000 jobs drawn with the Pollux artifact's
// philly.csv empirical sizes and durations (as `dlsim trace generate --sizes empirical --durations
// empirical --from .../pollux/philly.csv --no-models`: the same library call, seed 42), arriving as Poisson
// at the rate that loads a homogeneous 4,096-GPU cluster (512 nodes x 8) to 90%: rate = 0.9 x GPUs /
// E[g x d], E over the file's rows (the generator draws a row's pair uniformly). Each policy runs in a
// child process (so its peak RSS is its own run's, trace included) through the engine directly, with the
// policy wrapped in a decorator that times every decide() call on a steady clock. Prints per policy:
// wall seconds of the run, peak RSS, events/s, per-call policy time p50/p99/max, preemptions and
// migrations per job, mean JCT. Target (printed, not asserted): tiresias under 20 s and under 1 GiB.
// Exits 77 (skipped) when the shared data is missing.
//   usage: bench_policies [jobs=1000000] [gpus=4096] [policies=tiresias,las,srtf] [load=0.9]
#include "models/cluster.hpp"
#include "models/profile.hpp"
#include "models/rate_model.hpp"
#include "policies/registry.hpp"
#include "sim/app/run.hpp"
#include "sim/job_spec.hpp"
#include "sim/simulator.hpp"
#include "traces/generate/synthetic.hpp"
#include "traces/readers/trace_format.hpp"

#include "in_child.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

using namespace dlsim;

namespace {

constexpr int kSkipped = 77;
using Clock = std::chrono::steady_clock;

/// Times every call of the wrapped policy (self-profiling only: nothing simulated depends on it).
class TimedPolicy final : public Policy {
public:
    explicit TimedPolicy(Policy& inner) : inner_(inner) { micros_.reserve(1 << 22); }
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override {
        const auto t0 = Clock::now();
        inner_.decide(view, changes, out);
        micros_.push_back(static_cast<float>(std::chrono::duration<double, std::micro>(Clock::now() - t0).count()));
    }
    std::vector<float>& micros() { return micros_; }

private:
    Policy& inner_;
    std::vector<float> micros_;
};

double percentile(std::vector<float>& xs, double q) {
    if (xs.empty()) return 0;
    const auto k = static_cast<std::size_t>(q * static_cast<double>(xs.size() - 1));
    std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(k), xs.end());
    return xs[k];
}

void run_policy(const RunInputs& in, const std::string& name) {
    const auto t0 = Clock::now();
    const RateModel rates(in.cluster, in.profiles);
    const ResolvedJobs resolved = resolve_jobs(in.trace, in.cluster, in.profiles, rates, false);
    const auto& entry = builtin_policies().find(name);
    auto policy = entry.make(resolve_params("policy " + name, entry.params, {}));
    const auto& placer_entry = builtin_placers().find("consolidated");
    auto placer = placer_entry.make(resolve_params("placement consolidated", placer_entry.params, {}));
    TimedPolicy timed(*policy);
    Simulator sim(in.cluster, rates, resolved, timed, *placer, SimOptions{});
    const SimStats stats = sim.run();
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();

    double jct = 0, preemptions = 0, migrations = 0, finished = 0;
    for (const JobInfo& j : sim.jobs()) {
        preemptions += j.preemptions;
        migrations += j.migrations;
        if (j.state != JobState::Finished) continue;
        jct += to_seconds(j.finish - j.submit);
        ++finished;
    }
    const double jobs = static_cast<double>(std::max<std::size_t>(1, sim.jobs().size()));
    auto& us = timed.micros();
    const double max_us = us.empty() ? 0 : *std::max_element(us.begin(), us.end());
    fmt::print("policy {}\n", name);
    fmt::print("  wall              {:.2f} s (resolve + event loop; {:.2f} s in the policy over {} calls)\n", wall,
               stats.policy_seconds, stats.policy_calls);
    fmt::print("  peak RSS          {:.0f} MiB\n", peak_rss_mb());
    fmt::print("  events/s          {:.3f} M ({} events)\n", static_cast<double>(stats.events) / wall / 1e6,
               stats.events);
    fmt::print("  policy call       p50 {:.2f} us, p99 {:.2f} us, max {:.0f} us\n", percentile(us, 0.50),
               percentile(us, 0.99), max_us);
    fmt::print("  per job           {:.3f} preemptions, {:.3f} migrations\n", preemptions / jobs, migrations / jobs);
    fmt::print("  mean JCT          {:.2f} h over {:.0f} finished jobs\n", jct / std::max(1.0, finished) / 3600,
               finished);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t jobs = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
    const int gpus = argc > 2 ? std::atoi(argv[2]) : 4096;
    const std::string list = argc > 3 ? argv[3] : "tiresias,las,srtf";
    const double load = argc > 4 ? std::strtod(argv[4], nullptr) : 0.9;
    if (jobs == 0 || gpus < 8 || gpus % 8 != 0 || !(load > 0)) {
        fmt::print(stderr,
                   "usage: bench_policies [jobs=1000000] [gpus=4096, a multiple of 8] "
                   "[policies=tiresias,las,srtf] [load=0.9]\n");
        return 2;
    }
    std::vector<std::string> policies;
    for (std::size_t start = 0; start <= list.size();) {
        const std::size_t cut = std::min(list.find(',', start), list.size());
        policies.push_back(list.substr(start, cut - start));
        start = cut + 1;
    }

    const std::string philly = std::string(DLSIM_SHARED_DATA) + "/traces/pollux/philly.csv";
    if (!std::ifstream(philly)) {
        fmt::print("bench_policies: skipped: {} not found (configure with -DDLSIM_SHARED_DATA=DIR)\n", philly);
        return kSkipped;
    }
    const auto t0 = Clock::now();
    GavelMixOptions g;
    g.num_jobs = jobs;
    g.seed = 42;
    g.sizes = SizeDistribution::Empirical;
    g.durations = DurationDistribution::Empirical;
    ReadOptions ro;
    for (const auto& j : read_trace(philly, "auto", ro).jobs) g.empirical.emplace_back(j.num_gpus, j.duration);
    double gpu_seconds = 0;
    for (const auto& [n, d] : g.empirical) gpu_seconds += n * d;
    const double mean_gpu_seconds = gpu_seconds / static_cast<double>(g.empirical.size());
    const double rate = load * gpus / mean_gpu_seconds;  // jobs per second
    g.jobs_per_hour = rate * 3600;

    RunInputs in;
    in.cluster = parse_cluster(fmt::format(R"({{"gpu_types": {{"V100": {{}}}},
        "node_types": {{"dgx": {{"gpu_type": "V100", "gpus": 8}}}}, "racks": [{{"node_type": "dgx", "nodes": {}}}]}})",
                                           gpus / 8),
                               "bench-policies-cluster.json");
    in.profiles =
        parse_profiles(R"({"models": {"unused": {"throughput": {"V100": 1}}}})", "bench-policies-profile.json");
    in.trace = generate_gavel_mix(g);
    const double generation = std::chrono::duration<double>(Clock::now() - t0).count();
    fmt::print(
        "bench_policies: {} jobs (philly.csv empirical sizes and durations, {} rows, E[g x d] = {:.0f} GPU-s) "
        "on {} GPUs at load {}\n",
        jobs, g.empirical.size(), mean_gpu_seconds, gpus, load);
    fmt::print(
        "  arrival rate      {:.6f} jobs/s = {:.2f} jobs/h ({} x GPUs / E[g x d]); span {:.1f} days; trace "
        "generated in {:.2f} s\n",
        rate, rate * 3600, load, in.trace.jobs.back().submit_time / 86400, generation);
    std::fflush(stdout);

    int status = 0;
    for (const std::string& name : policies) {
        if (!bench::run_in_child("bench_policies", name, [&] { run_policy(in, name); })) status = 1;
    }
    return status;
}
