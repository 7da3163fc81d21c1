// Allocation-LP benchmark (Gavel's LP family): the persistent ShareLp across rounds, per objective.
// Scenario: `jobs` active jobs on 3 types (v100, p100, k80) of 36 GPUs each (108 GPUs for 2,000 jobs, so the
// capacity rows bind and every job's share is small), models drawn uniformly from models/profiles/gavel.json,
// gangs 1/2/4/8 w.p. .70/.10/.15/.05; a job's throughput on g GPUs of a type is the profile's measured
// throughput_n[g] where it has one, else g × the one-GPU figure. Remaining work: uniform 1–10 h at the job's
// v100 rate. Then `rounds` rounds of 360 s: every round ages all jobs by 360 s and takes 5 % of each job's
// remaining work, and the rounds cycle through five kinds: 10 departures; 10 arrivals; 5 % of the jobs re-rated
// (x U(0.9, 1.1) on each type); progress alone; 10 departures and 10 arrivals together. Prints per objective
// the cold first solve, the warm per-round time p50/p99/max (steady clock, ms) over all rounds and the p50 of
// each kind, the LPs and simplex iterations per round, and how many rounds fell back to a cold basis. Targets (printed,
// not asserted): gavel-las p50 < 5 ms, p99 < 50 ms; gavel-ftf and gavel-makespan p50 < 50 ms.
//   usage: bench_lp [jobs=2000] [rounds=100] [objectives=gavel-las,gavel-ftf,gavel-makespan,gavel-max-throughput]
// With BENCH_LP_TRACE set in the environment it also prints every round (time, LPs, iterations, objective).
#include "models/profile.hpp"
#include "policies/rounds/share_lp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace dlsim;

namespace {

using Clock = std::chrono::steady_clock;
const std::vector<std::string> type_names{"v100", "p100", "k80"};
constexpr double gpus_per_type = 36;

double percentile(std::vector<double> xs, double q) {
    if (xs.empty()) return 0;
    const auto k = static_cast<std::size_t>(q * static_cast<double>(xs.size() - 1));
    std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(k), xs.end());
    return xs[k];
}

struct Job {
    ShareJob job;
    std::vector<double> throughputs;
};

class Workload {
public:
    Workload(const ProfileSet& profiles, std::uint64_t seed) : profiles_(profiles), rng_(seed) {}

    Job draw() {
        Job j;
        j.job.key = next_key_++;
        const double u = uniform(0, 1);
        j.job.gang = u < 0.70 ? 1 : u < 0.80 ? 2 : u < 0.95 ? 4 : 8;
        const auto model = static_cast<std::size_t>(uniform(0, static_cast<double>(profiles_.models.size())));
        const ModelProfile& m = profiles_.models[std::min(model, profiles_.models.size() - 1)];
        for (const std::string& type : type_names) {
            double rate = 0;
            const auto one = m.throughput.find(type);
            if (one != m.throughput.end()) rate = one->second * j.job.gang;
            const auto table = m.throughput_n.find(type);
            if (table != m.throughput_n.end()) {
                const auto measured = table->second.find(j.job.gang);
                if (measured != table->second.end()) rate = measured->second;
            }
            j.throughputs.push_back(rate);
        }
        const double reference = std::max(j.throughputs[0], 1e-3);
        j.job.remaining = reference * uniform(3600, 36000);
        j.job.age = 0;
        return j;
    }
    double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }

private:
    const ProfileSet& profiles_;
    std::mt19937_64 rng_;
    std::uint32_t next_key_ = 1;
};

ShareInput to_input(const std::vector<Job>& jobs) {
    ShareInput input;
    input.capacities.assign(type_names.size(), gpus_per_type);
    for (const Job& j : jobs) {
        input.jobs.push_back(j.job);
        input.throughputs.insert(input.throughputs.end(), j.throughputs.begin(), j.throughputs.end());
    }
    return input;
}

ShareOptions options_for(const std::string& name) {
    ShareOptions options;
    if (name == "gavel-las")
        options.objective = ShareObjective::MaxMinFairness;
    else if (name == "gavel-ftf")
        options.objective = ShareObjective::FinishTimeFairness;
    else if (name == "gavel-makespan")
        options.objective = ShareObjective::Makespan;
    else if (name == "gavel-max-throughput")
        options.objective = ShareObjective::MaxThroughput;
    else
        throw std::runtime_error("bench_lp: unknown objective " + name);
    return options;
}

void run(const ProfileSet& profiles, const std::string& name, std::size_t job_count, int rounds) {
    Workload workload(profiles, 42);
    std::vector<Job> jobs;
    for (std::size_t i = 0; i < job_count; ++i) jobs.push_back(workload.draw());
    ShareLp lp(options_for(name));

    auto t0 = Clock::now();
    const ShareResult& first = lp.solve(to_input(jobs));
    const double cold_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const int cold_iterations = first.simplex_iterations;
    const double cold_objective = first.objective;

    // Round kinds, in turn: 10 departures; 10 arrivals; 5 % of the jobs re-rated (throughputs x U(0.9, 1.1), as
    // a network or packing change would); progress only; and a heavy one, 10 departures and 10 arrivals.
    const char* const kinds[] = {"10 out", "10 in", "5% re-rated", "progress", "10 out+10 in"};
    constexpr int kind_count = 5;
    std::vector<double> ms, by_kind[kind_count];
    long long lps = 0, iterations = 0;
    int cold_rounds = 0;
    for (int round = 0; round < rounds; ++round) {
        for (Job& j : jobs) {
            j.job.age += 360;
            j.job.remaining *= 0.95;
        }
        const int kind = round % kind_count;
        const auto depart = [&] {
            for (int d = 0; d < 10 && !jobs.empty(); ++d) {
                const auto at = static_cast<std::size_t>(workload.uniform(0, static_cast<double>(jobs.size())));
                jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(std::min(at, jobs.size() - 1)));
            }
        };
        const auto arrive = [&] {
            for (int a = 0; a < 10; ++a) jobs.push_back(workload.draw());
        };
        if (kind == 0 || kind == 4) depart();
        if (kind == 1 || kind == 4) arrive();
        if (kind == 2)
            for (std::size_t c = 0; c < jobs.size() / 20; ++c) {
                Job& j =
                    jobs[static_cast<std::size_t>(workload.uniform(0, static_cast<double>(jobs.size()))) % jobs.size()];
                for (double& rate : j.throughputs) rate *= workload.uniform(0.9, 1.1);
            }
        const ShareInput input = to_input(jobs);
        t0 = Clock::now();
        const ShareResult& r = lp.solve(input);
        const double elapsed = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        ms.push_back(elapsed);
        if (std::getenv("BENCH_LP_TRACE"))
            fmt::print("  round {} ({}) {:.2f} ms {} LPs {} it obj {:.6g}\n", round, kinds[kind], elapsed, r.lp_solves,
                       r.simplex_iterations, r.objective);
        by_kind[kind].push_back(elapsed);
        lps += r.lp_solves;
        iterations += r.simplex_iterations;
        cold_rounds += r.cold ? 1 : 0;
    }
    const double per_round = rounds > 0 ? 1.0 / rounds : 0;
    fmt::print(
        "{:<22} cold {:8.1f} ms ({:5d} it, objective {:.6g}) | warm p50 {:7.2f} p99 {:7.2f} max {:7.2f} ms"
        " | {:5.1f} LPs, {:7.1f} it/round, {} cold rounds\n",
        name, cold_ms, cold_iterations, cold_objective, percentile(ms, 0.5), percentile(ms, 0.99),
        ms.empty() ? 0.0 : *std::max_element(ms.begin(), ms.end()), static_cast<double>(lps) * per_round,
        static_cast<double>(iterations) * per_round, cold_rounds);
    fmt::print("{:<22} p50 by round kind:", "");
    for (int k = 0; k < kind_count; ++k)
        fmt::print(" {} {:.2f} ms{}", kinds[k], percentile(by_kind[k], 0.5), k + 1 < kind_count ? ";" : "\n");
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t jobs = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2000;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 100;
    const std::string list = argc > 3 ? argv[3] : "gavel-las,gavel-ftf,gavel-makespan,gavel-max-throughput";
    const ProfileSet profiles = load_profiles(std::string(DLSIM_SOURCE_DIR) + "/models/profiles/gavel.json");
    fmt::print(
        "bench_lp: {} jobs on 3 x {} GPUs (v100, p100, k80), {} rounds (in turn: 10 out; 10 in; 5 % re-rated;"
        " progress; 10 out + 10 in; all: 5 % of R done, ages +360 s)\n",
        jobs, gpus_per_type, rounds);
    std::stringstream names(list);
    std::string name;
    while (std::getline(names, name, ',')) run(profiles, name, jobs, rounds);
    fmt::print("targets: gavel-las p50 < 5 ms, p99 < 50 ms; gavel-ftf, gavel-makespan p50 < 50 ms\n");
    return 0;
}
