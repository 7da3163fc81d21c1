// Decision time of the elastic policies (printed, not asserted): wall time of each scheduling round (the
// policy's timer calls, when it re-plans every job) at 64 GPUs (Pollux's 16 x 4 T4 and one of its load-2.0
// workloads) and at 2,048 GPUs (512 x 4 T4, the same workload 32 times over: 32 copies of every job, same
// arrival times). Percentiles are exact over the rounds timed. Sia reports a median of 96 ms per round at 64
// GPUs and about 1 s at 2,048 (Jayaram Subramanya et al., SOSP'23).
//   usage: bench_elastic [rounds-at-2048=120] [policy ...]
// Policies: `pollux`, and `sia` when it is registered, unless named. Each run at 2,048 GPUs stops after its
// first `rounds` rounds (120: two simulated hours, while the cluster fills); the 64-GPU run goes to the end.
// Needs the shared data's Pollux workloads (exit 77 without them).
#include "policies/registry.hpp"
#include "sim/app/resolved_run.hpp"
#include "sim/app/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace dlsim;

namespace {

/// Thrown by TimedPolicy once it has timed enough rounds: ends the run early.
struct Enough {};

struct Rounds {
    std::vector<double> seconds;  ///< wall time of each timer call
    std::size_t most_running = 0;
};

/// Times the wrapped policy's timer calls (its scheduling rounds); other calls are passed through untimed.
class TimedPolicy final : public Policy {
public:
    TimedPolicy(std::unique_ptr<Policy> inner, std::shared_ptr<Rounds> rounds, std::size_t limit)
        : inner_(std::move(inner)), rounds_(std::move(rounds)), limit_(limit) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override {
        if (!changes.timer) return inner_->decide(view, changes, out);
        if (rounds_->seconds.size() >= limit_) throw Enough{};
        const auto t0 = std::chrono::steady_clock::now();
        inner_->decide(view, changes, out);
        rounds_->seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        rounds_->most_running = std::max(rounds_->most_running, view.running_jobs().size());
    }

private:
    std::unique_ptr<Policy> inner_;
    std::shared_ptr<Rounds> rounds_;
    std::size_t limit_;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/// A Pollux-format workload made of `copies` copies of every job of `path` (names suffixed, same times).
std::string replicate_workload(const std::string& path, int copies, const std::string& out) {
    std::istringstream in(slurp(path));
    std::string header, line, text;
    std::getline(in, header);
    text = header + "\n";
    std::vector<std::string> rows;
    while (std::getline(in, line))
        if (!line.empty()) rows.push_back(line);
    for (const std::string& row : rows)
        for (int c = 0; c < copies; ++c) {
            const auto comma = row.find(',');
            text += fmt::format("{}-c{}{}\n", row.substr(0, comma), c, row.substr(comma));
        }
    std::ofstream(out, std::ios::binary) << text;
    return out;
}

/// Pollux's cluster preset with `nodes` nodes instead of 16.
std::string scaled_cluster(int nodes, const std::string& out) {
    std::string text = slurp(std::string(DLSIM_SOURCE_DIR) + "/models/clusters/pollux_16x4_t4.json");
    const std::string from = "\"nodes\": 16}";
    const auto at = text.find(from);
    if (at == std::string::npos) throw std::runtime_error("pollux_16x4_t4.json: no \"nodes\": 16 to scale");
    text.replace(at, from.size(), fmt::format("\"nodes\": {}}}", nodes));
    std::ofstream(out, std::ios::binary) << text;
    return out;
}

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q / 100 * static_cast<double>(v.size())));
    return v[std::max<std::size_t>(rank, 1) - 1];
}

void bench(const std::string& policy, const std::string& trace, const std::string& cluster, int gpus,
           std::size_t limit) {
    RunConfig c;
    c.policy = policy;
    c.trace = trace;
    c.trace_format = "pollux";
    c.cluster = cluster;
    c.profiles = std::string(DLSIM_SOURCE_DIR) + "/models/profiles/pollux_elastic.json";
    c.restart.restart_cost = 30;
    c.restart.first_start = true;
    c.job_records = false;
    c.out.clear();
    ResolvedRun run = resolve(c);
    auto rounds = std::make_shared<Rounds>();
    const auto inner = run.policy.entry;
    run.policy.entry = std::make_shared<RegistryEntry<Policy>>(RegistryEntry<Policy>{
        inner->name, inner->description, inner->params,
        [inner, rounds, limit](const Params& p, const MakeContext& context) -> std::unique_ptr<Policy> {
            return std::make_unique<TimedPolicy>(inner->make(p, context), rounds, limit);
        }});
    const RunInputs in = load_inputs(c);
    const auto t0 = std::chrono::steady_clock::now();
    bool whole = true;
    try {
        simulate(in, run);
    } catch (const Enough&) {
        whole = false;
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto& s = rounds->seconds;
    fmt::print(
        "{:>7} {:5} GPUs {:6} jobs: {:4} rounds{}, per round p50 {:8.2f} ms  p99 {:8.2f} ms  max {:8.2f} ms"
        "  (most running {}; run {:.1f} s)\n",
        policy, gpus, in.trace.jobs.size(), s.size(), whole ? " (whole run)" : "", 1e3 * percentile(s, 50),
        1e3 * percentile(s, 99), 1e3 * (s.empty() ? 0 : *std::max_element(s.begin(), s.end())), rounds->most_running,
        wall);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t limit = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 120;
    std::vector<std::string> policies;
    for (int i = 2; i < argc; ++i) policies.emplace_back(argv[i]);
    if (policies.empty()) {
        policies.emplace_back("pollux");
        // Sia's entry joins here once it is registered.
        for (const auto& e : builtin_policies().entries())
            if (e.name == "sia") policies.emplace_back("sia");
    }
    const std::string workload = std::string(DLSIM_SHARED_DATA) + "/traces/pollux/workloads-2.0/workload-1.csv";
    if (!std::filesystem::exists(workload)) {
        fmt::print("bench_elastic: skipped: {} not found\n", workload);
        return 77;
    }
    const auto dir = std::filesystem::temp_directory_path() / "dlsim-bench-elastic";
    std::filesystem::create_directories(dir);
    const std::string big_trace = replicate_workload(workload, 32, (dir / "workload-2.0-x32.csv").string());
    const std::string big_cluster = scaled_cluster(512, (dir / "pollux_512x4_t4.json").string());
    try {
        for (const std::string& p : policies) {
            bench(p, workload, std::string(DLSIM_SOURCE_DIR) + "/models/clusters/pollux_16x4_t4.json", 64,
                  static_cast<std::size_t>(-1));
            bench(p, big_trace, big_cluster, 2048, limit);
        }
    } catch (const std::exception& e) {
        fmt::print(stderr, "bench_elastic: {}\n", e.what());
        return 1;
    }
    return 0;
}
