// Analytic-centre timing (policies/lp/analytic_centre.hpp): a max-min instance of M jobs on 3 types of 36 GPUs
// (Gavel's 36:36:36 cluster) with random throughputs (the faster types 1.5–2.5× and 2.5–4.5× the slowest) and
// gangs {1, 1, 1, 2, 4, 8}, seed 7. GLPK solves the max-min LP (policies/lp/max_min_share), its vertex
// starts the centre with floors a = c_m, b_m = z*·(1 − 1e-6). Prints wall and CPU time per centre solve (best of
// the repeats and mean), Newton steps, the mixing θ and the decrement at the result. Printed, not asserted.
//   usage: bench_analytic_centre [jobs=2000] [repeats=10]
#include "policies/lp/analytic_centre.hpp"
#include "policies/rounds/max_min_share.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <vector>

using namespace dlsim;

int main(int argc, char** argv) {
    const std::size_t jobs = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 2000;
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 10;
    const std::size_t types = 3;
    const std::vector<double> capacity{36, 36, 36};

    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const int gangs[] = {1, 1, 1, 2, 4, 8};
    std::vector<MaxMinJob> lp_jobs;
    for (std::size_t m = 0; m < jobs; ++m) {
        const double base = 0.5 + unit(rng);
        lp_jobs.push_back({gangs[rng() % 6], 1.0, {base, base * (1.5 + unit(rng)), base * (2.5 + 2 * unit(rng))}});
    }
    const auto lp_start = std::chrono::steady_clock::now();
    const MaxMinShare lp = solve_max_min_share(lp_jobs, capacity, ThroughputMode::Measured);
    const double lp_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - lp_start).count();

    // c_{m,t} = g_m·T_{m,t}/T^prop_m with T^prop_m = Σ_t T_{m,t}·W_t/Σ_t W_t (Gavel's proportional throughput,
    // github.com/stanford-futuredata/gavel scheduler/policies/proportional.py), as in the LP.
    CentreProblem problem;
    problem.jobs = jobs;
    problem.types = types;
    problem.capacity = capacity;
    problem.allowed.assign(jobs * types, 1);
    problem.floor_coeff.resize(jobs * types);
    problem.floor_rhs.assign(jobs, lp.z * (1 - 1e-6));
    for (std::size_t m = 0; m < jobs; ++m) {
        problem.gang.push_back(lp_jobs[m].gang);
        const auto& throughput = lp_jobs[m].throughputs;
        const double proportional = (throughput[0] + throughput[1] + throughput[2]) / 3;
        for (std::size_t t = 0; t < types; ++t)
            problem.floor_coeff[m * types + t] = lp_jobs[m].gang * throughput[t] / proportional;
    }

    AnalyticCentre centre;
    std::vector<double> x;
    AnalyticCentre::Outcome outcome;
    double best_wall = 1e300, total_wall = 0, total_cpu = 0;
    for (int k = 0; k < repeats; ++k) {
        x = lp.fractions;
        const auto start = std::chrono::steady_clock::now();
        const std::clock_t cpu_start = std::clock();
        outcome = centre.solve(problem, x);
        const double cpu = 1000.0 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
        const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        best_wall = std::min(best_wall, wall);
        total_wall += wall;
        total_cpu += cpu;
    }
    std::vector<double> gradient, step;
    const double decrement = centre.newton_direction(problem, x, gradient, step);
    // How far the centre spreads jobs: the mean over jobs of 1 − (largest type share of its time).
    double spread = 0.0;
    for (std::size_t m = 0; m < jobs; ++m) {
        double sum = 0.0, largest = 0.0;
        for (std::size_t t = 0; t < types; ++t) {
            sum += x[m * types + t];
            largest = std::max(largest, x[m * types + t]);
        }
        spread += 1.0 - largest / sum;
    }
    std::printf("analytic centre, M=%zu T=%zu: %s, %d Newton steps, mixing %.3g, decrement at the result %.2g\n", jobs,
                types, to_string(outcome.status), outcome.newton_steps, outcome.mixing, decrement);
    std::printf("  per solve: best %.2f ms wall, mean %.2f ms wall, mean %.2f ms CPU (%d repeats)\n", best_wall,
                total_wall / repeats, total_cpu / repeats, repeats);
    std::printf("  GLPK max-min LP: %.0f ms wall, z* = %.6g; mean off-main-type share at the centre %.3f\n", lp_ms,
                lp.z, spread / static_cast<double>(jobs));
    return outcome.ok() ? 0 : 1;
}
