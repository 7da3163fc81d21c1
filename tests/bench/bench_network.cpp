// Network-model benchmark: 100,000 jobs on models/clusters/fat_tree_10240.json
// (5 pods x 8 racks x 32 nodes x 8 A100, 1 x 100 Gb/s per node, 4:1 at the racks' uplinks), run as
// `dlsim run` runs it (simulate(), fifo, consolidated) under each contention mode. Prints wall time,
// events/s, re-rates and the wall time of each component solve (p50/p99), peak RSS, mean JCT and the
// busiest tier's utilisation. Targets on a 2-core machine: maxmin and duty under 120 s each, re-rate
// p50 <= 200 us, under 4 GiB; none under 10 s. Figures only: nothing here is asserted.
//
// Workload: rows of the Pollux artifact's philly.csv ($DLSIM_SHARED_DATA/traces/pollux/philly.csv)
// drawn uniformly with replacement (stream Rng(seed 42, "bench-network")), each giving a job its
// num_gpus (capped at 128; no row is above) and its duration, truncated at 8 h (6% of the rows; the
// longest run 53 days, which no 1-2 day arrival span can carry in steady state), so the pair keeps
// Philly's joint distribution. Arrivals are Poisson at the rate that makes the offered load (sum of
// duration x GPUs over the mean arrival span x 10,240 GPUs) equal `load` (default 0.75): about 0.9
// jobs/s, 100,000 jobs over 1.3 days. Slowdowns by the network stretch jobs, so the carried load of
// the contention modes is somewhat higher. Models round-robin over ResNet-50,
// VGG-16 and BERT-large (params and grad_dtype from their papers; A100 throughputs [A]), so every
// job that spans nodes all-reduces its gradients over the fabric. Each mode runs in a child process,
// so its peak RSS is its own. Exits 77 (skipped) when the shared data is missing.
// With Philly's sizes few jobs span nodes under `consolidated` (no job needs more than a rack), so
// the network is barely loaded; a fourth argument names another placer (e.g. `random`, which scatters
// every job's GPUs over the free ones) to stress the contention solves.
//   usage: bench_network [jobs=100000] [modes=none,duty,maxmin] [load=0.75] [placement=consolidated]
#include "models/base/random.hpp"
#include "models/cluster.hpp"
#include "models/network_model.hpp"
#include "models/profile.hpp"
#include "sim/app/run.hpp"

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
constexpr int kMaxGpus = 128;
constexpr double kMaxDuration = 8 * 3600.0;  // s

// [A] iterations/s of one A100 at a typical per-GPU batch (ResNet-50 256 images, VGG-16 128 images,
// BERT-large 64 sequences of 128 tokens, mixed precision): round figures, ~0.1-0.17 s per iteration.
constexpr const char* kProfiles = R"({"schema": "dlsim.profile/1",
 "source": "bench_network: params from the models' papers; A100 throughputs [A] round figures",
 "units": "iterations/s",
 "models": {
  "ResNet-50": {"params": 25557032, "grad_dtype": "fp32", "throughput": {"a100": 10}},
  "VGG-16": {"params": 138357544, "grad_dtype": "fp32", "throughput": {"a100": 8}},
  "BERT-large": {"params": 340000000, "grad_dtype": "fp16", "throughput": {"a100": 6}}
 }})";

struct PhillyRow {
    int gpus = 1;
    double duration = 0;
};

struct PhillyTable {
    std::vector<PhillyRow> rows;
    std::size_t capped = 0;     // rows above kMaxGpus
    std::size_t truncated = 0;  // rows longer than kMaxDuration
};

/// num_gpus and duration of every row of the Pollux philly.csv (header timestamp,duration,num_gpus,...).
PhillyTable read_philly(const std::string& path) {
    PhillyTable t;
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const std::size_t a = line.find(','), b = line.find(',', a + 1), c = line.find(',', b + 1);
        if (a == std::string::npos || b == std::string::npos || c == std::string::npos) continue;
        PhillyRow r;
        r.duration = std::strtod(line.c_str() + a + 1, nullptr);
        r.gpus = static_cast<int>(std::strtol(line.c_str() + b + 1, nullptr, 10));
        if (r.gpus < 1 || !(r.duration > 0)) continue;
        if (r.gpus > kMaxGpus) {
            ++t.capped;
            r.gpus = kMaxGpus;
        }
        if (r.duration > kMaxDuration) {
            ++t.truncated;
            r.duration = kMaxDuration;
        }
        t.rows.push_back(r);
    }
    return t;
}

Trace make_trace(const PhillyTable& philly, std::size_t jobs, double load, double gpus,
                 const std::vector<std::string>& models, double* rate_out) {
    Trace trace;
    trace.format = "generated";
    trace.path = fmt::format("bench_network(jobs={},load={},philly rows,seed=42)", jobs, load);
    std::vector<StrId> ids;
    for (const auto& m : models) ids.push_back(trace.strings.intern(m));
    Rng rng(42, "bench-network");
    trace.jobs.resize(jobs);
    double gpu_seconds = 0;
    for (std::size_t i = 0; i < jobs; ++i) {
        const PhillyRow& r = philly.rows[rng.below(philly.rows.size())];
        JobRecord& j = trace.jobs[i];
        j.id = std::to_string(i);
        j.num_gpus = r.gpus;
        j.duration = r.duration;
        j.model = ids[i % ids.size()];
        gpu_seconds += r.duration * r.gpus;
    }
    // Poisson arrivals whose mean span carries the drawn GPU-seconds at `load` on the whole cluster.
    const double rate = static_cast<double>(jobs) * load * gpus / gpu_seconds;
    double t = 0;
    for (JobRecord& j : trace.jobs) {
        t += rng.exponential(rate);
        j.submit_time = t;
    }
    trace.report.rows_read = trace.report.kept = jobs;
    *rate_out = rate;
    return trace;
}

double percentile(std::vector<float> xs, double q) {
    if (xs.empty()) return 0;
    const auto k = static_cast<std::size_t>(q * static_cast<double>(xs.size() - 1));
    std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(k), xs.end());
    return xs[k];
}

void run_mode(const RunInputs& in, ContentionMode mode, const std::string& placement) {
    using clock = std::chrono::steady_clock;
    RunConfig c;
    c.policy = "fifo";
    c.placement = placement;
    c.network = mode;
    c.time_network_solves = true;
    const auto t0 = clock::now();
    const RunOutcome o = simulate(in, c);
    const double wall = std::chrono::duration<double>(clock::now() - t0).count();

    const Summary& s = o.summary;
    const NetworkSummary& n = s.network;
    const double jobs = static_cast<double>(std::max<std::uint64_t>(1, s.jobs));
    std::size_t multi_node = 0, multi_rack = 0;
    for (const JobNetworkRecord& r : o.network) {
        multi_node += r.max_nodes > 1;
        multi_rack += r.max_racks > 1;
    }
    double solve_total = 0, solve_max = 0;
    for (float us : o.network_solve_micros) {
        solve_total += us;
        solve_max = std::max(solve_max, static_cast<double>(us));
    }
    fmt::print("mode {}\n", contention_mode_name(mode));
    fmt::print("  jobs              {} ({} finished; {} spanned nodes, {} spanned racks)\n", s.jobs, s.finished,
               multi_node, multi_rack);
    fmt::print("  events            {}\n", o.stats.events);
    fmt::print("  wall              {:.2f} s simulate() ({:.2f} s event loop)\n", wall, o.stats.engine_seconds);
    fmt::print("  events/s          {:.3f} M (simulate())\n", static_cast<double>(o.stats.events) / wall / 1e6);
    fmt::print("  re-rates          {} ({} jobs re-rated, {} full solves)\n", n.rerates, n.jobs_rerated, n.full_solves);
    fmt::print("  re-rate time      p50 {:.1f} us, p99 {:.1f} us, max {:.0f} us, total {:.2f} s over {} solves\n",
               percentile(o.network_solve_micros, 0.50), percentile(o.network_solve_micros, 0.99), solve_max,
               solve_total / 1e6, o.network_solve_micros.size());
    fmt::print("  peak RSS          {:.0f} MiB\n", peak_rss_mb());
    fmt::print("  mean JCT          {:.2f} h (p99 {:.1f} h, mean queueing {:.2f} h, GPU utilisation {:.1f}%)\n",
               s.avg_jct / 3600, s.p99_jct / 3600, s.avg_queueing_delay / 3600, 100 * s.gpu_utilization);
    fmt::print("  per job           {:.3f} preemptions, {:.3f} migrations\n", static_cast<double>(s.preemptions) / jobs,
               static_cast<double>(s.migrations) / jobs);
    fmt::print("  busiest tier      {} at {:.1f}%", n.busiest_tier.empty() ? "-" : n.busiest_tier,
               100 * n.busiest_tier_utilization);
    for (std::size_t i = 0; i < n.tier_utilization.size(); ++i)
        fmt::print("{}{} {:.1f}%", i ? ", " : " (every tier: ", n.tier_utilization[i].first,
                   100 * n.tier_utilization[i].second);
    fmt::print("{}\n", n.tier_utilization.empty() ? "" : ")");
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t jobs = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100'000;
    const std::string mode_list = argc > 2 ? argv[2] : "none,duty,maxmin";
    const double load = argc > 3 ? std::strtod(argv[3], nullptr) : 0.75;
    const std::string placement = argc > 4 ? argv[4] : "consolidated";
    std::vector<ContentionMode> modes;
    for (std::size_t start = 0; start <= mode_list.size();) {
        const std::size_t cut = std::min(mode_list.find(',', start), mode_list.size());
        const auto m = parse_contention_mode(mode_list.substr(start, cut - start));
        if (!m) {
            fmt::print(stderr, "bench_network: unknown mode in '{}' (expected {})\n", mode_list,
                       contention_mode_names());
            return 2;
        }
        modes.push_back(*m);
        start = cut + 1;
    }
    if (jobs == 0 || !(load > 0)) {
        fmt::print(stderr,
                   "usage: bench_network [jobs=100000] [modes=none,duty,maxmin] [load=0.75] "
                   "[placement=consolidated]\n");
        return 2;
    }

    const std::string philly_path = std::string(DLSIM_SHARED_DATA) + "/traces/pollux/philly.csv";
    if (!std::ifstream(philly_path)) {
        fmt::print("bench_network: skipped: {} not found (configure with -DDLSIM_SHARED_DATA=DIR)\n", philly_path);
        return kSkipped;
    }
    const PhillyTable philly = read_philly(philly_path);
    if (philly.rows.empty()) {
        fmt::print(stderr, "bench_network: no usable rows in {}\n", philly_path);
        return 1;
    }
    RunInputs in;
    in.cluster = load_cluster(std::string(DLSIM_SOURCE_DIR) + "/models/clusters/fat_tree_10240.json");
    in.profiles = parse_profiles(kProfiles, "bench_network profiles");
    std::vector<std::string> models;
    for (const auto& m : in.profiles.models) models.push_back(m.name);
    double rate = 0;
    in.trace = make_trace(philly, jobs, load, static_cast<double>(in.cluster.num_gpus()), models, &rate);

    std::size_t above8 = 0;
    double gpus = 0;
    for (const JobRecord& j : in.trace.jobs) {
        above8 += j.num_gpus > 8;
        gpus += j.num_gpus;
    }
    fmt::print("bench_network: {} jobs on {} GPUs ({} nodes of 8), fifo + {}, offered load {}\n", jobs,
               in.cluster.num_gpus(), in.cluster.nodes.size(), placement, load);
    fmt::print("  philly.csv        {} rows, {} above {} GPUs (capped), {} longer than {:.0f} h (truncated)\n",
               philly.rows.size(), philly.capped, kMaxGpus, philly.truncated, kMaxDuration / 3600);
    fmt::print("  drawn jobs        mean {:.2f} GPUs, {} above 8 GPUs; arrivals {:.4f}/s over {:.1f} days\n",
               gpus / static_cast<double>(jobs), above8, rate, in.trace.jobs.back().submit_time / 86400);
    std::fflush(stdout);

    int status = 0;
    for (ContentionMode mode : modes) {
        if (!bench::run_in_child("bench_network", contention_mode_name(mode), [&] { run_mode(in, mode, placement); }))
            status = 1;
    }
    return status;
}
