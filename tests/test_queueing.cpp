// Queueing theory with fixed seeds (DESIGN.md "Clarifications": mean response time, enough jobs that
// the tolerance is at least 3 standard errors). Jobs without a model run their duration exactly, so
// a cluster of c single-GPU slots under fifo is an M/M/c FCFS queue.
#include "test_support.hpp"
#include "traces/random.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dlsim;
using namespace dlsim::test;

namespace {

/// Poisson arrivals at rate lambda, exponential service with mean 1/mu, single-GPU jobs.
Trace mm_trace(std::size_t jobs, double lambda, double mu, std::uint64_t seed) {
    Trace t;
    t.path = "mm-trace";
    t.format = "generated";
    Rng arrivals(seed, "test/arrivals"), service(seed, "test/service");
    double now = 0;
    t.jobs.reserve(jobs);
    for (std::size_t i = 0; i < jobs; ++i) {
        now += arrivals.exponential(lambda);
        JobRecord r;
        r.id = std::to_string(i);
        r.submit_time = now;
        r.num_gpus = 1;
        // At least 1 µs: the engine's time resolution.
        r.duration = std::max(1e-6, service.exponential(mu));
        r.line = static_cast<std::uint32_t>(i + 2);
        t.jobs.push_back(std::move(r));
    }
    return t;
}

RunOutcome run_mm(std::size_t servers, std::size_t jobs, double lambda, double mu, std::uint64_t seed,
                  const std::string& policy = "fifo") {
    RunInputs in;
    in.cluster = parse_cluster(homogeneous_cluster_json(1, static_cast<int>(servers)), "cluster.json");
    in.profiles = parse_profiles(kUnusedProfile, "profile.json");
    in.trace = mm_trace(jobs, lambda, mu, seed);
    RunConfig c;
    c.policy = policy;
    c.out.clear();
    c.timeseries_points = 1000;
    return simulate(in, c);
}

/// Erlang-C mean response time of M/M/c: P(wait) / (c·mu − lambda) + 1/mu.
double erlang_c_response(int c, double lambda, double mu) {
    const double a = lambda / mu;
    double sum = 0, term = 1;  // term = a^k / k!
    for (int k = 0; k < c; ++k) {
        sum += term;
        term *= a / (k + 1);
    }
    const double top = term * c / (c - a);  // a^c/c! · c/(c−a)
    const double p_wait = top / (sum + top);
    return p_wait / (c * mu - lambda) + 1 / mu;
}

/// Time-average of queued + running jobs over [first submit, last finish], from the time series
/// (equal-width buckets from the first submit; the last one ends at the last finish).
double mean_in_system(const RunOutcome& o) {
    const auto& ts = o.timeseries;
    const double end = ts.time.front() + o.summary.makespan;
    double integral = 0;
    for (std::size_t i = 0; i < ts.time.size(); ++i) {
        const double len = (i + 1 < ts.time.size() ? ts.time[i + 1] : end) - ts.time[i];
        integral += (ts.queued[i] + ts.running[i]) * len;
    }
    return integral / o.summary.makespan;
}

}  // namespace

TEST_CASE("M/M/1 fifo at rho = 0.5 over 200k jobs: mean response time 1/(mu - lambda)", "[slow][queueing]") {
    const auto o = run_mm(1, 200'000, 0.5, 1.0, 11);
    REQUIRE(o.summary.finished == 200'000);
    CHECK(o.summary.avg_jct == Approx(2.0).epsilon(0.03));
}

TEST_CASE("M/M/1 fifo at rho = 0.8 over 1M jobs: mean response time 1/(mu - lambda)", "[slow][queueing]") {
    const auto o = run_mm(1, 1'000'000, 0.8, 1.0, 12);
    REQUIRE(o.summary.finished == 1'000'000);
    CHECK(o.summary.avg_jct == Approx(5.0).epsilon(0.03));
}

TEST_CASE("M/M/8 fifo, lambda = 6, mu = 1, over 200k jobs: Erlang-C mean response time; Little's law", "[slow][queueing]") {
    const double expected = erlang_c_response(8, 6.0, 1.0);
    // By hand: sum_{k<8} 6^k/k! = 300.143, 6^8/8! x 8/2 = 166.63, P(wait) = 0.3570, W_q = 0.1785.
    CHECK(expected == Approx(1.17849).epsilon(1e-4));
    const auto o = run_mm(8, 200'000, 6.0, 1.0, 13);
    REQUIRE(o.summary.finished == 200'000);
    CHECK(o.summary.avg_jct == Approx(expected).epsilon(0.03));

    // Little's law on the time series: time-average of queued + running = throughput x mean JCT.
    REQUIRE(o.timeseries.time.size() > 500);
    REQUIRE(o.timeseries.time.size() <= 1000);
    const double throughput = static_cast<double>(o.summary.finished) / o.summary.makespan;
    CHECK(mean_in_system(o) == Approx(throughput * o.summary.avg_jct).epsilon(0.01));
    // Busy GPUs average lambda/mu = 6 of 8 (utilization 0.75).
    CHECK(o.summary.gpu_utilization == Approx(0.75).epsilon(0.02));
}

TEST_CASE("Little's law holds on a small fifo run too", "[queueing]") {
    const auto o = run_mm(2, 5'000, 1.5, 1.0, 14);
    // Every job's whole sojourn lies in [first submit, last finish], so the identity is exact up to rounding.
    CHECK(mean_in_system(o) * o.summary.makespan == Approx(o.summary.avg_jct * 5'000).epsilon(1e-9));
}

TEST_CASE("M/M/1 srtf at rho = 0.8 over 1M jobs: SRPT mean response time", "[slow][queueing]") {
    // SRPT for M/G/1 (Schrage & Miller 1966): E[T] = ∫ ( λ m2(x) / (2 (1-ρ(x))^2) + ∫_0^x dt/(1-ρ(t)) ) dF(x),
    // with ρ(x) = λ ∫_0^x t dF(t) and m2(x) = ∫_0^x t² dF(t) + x² (1 - F(x)). Exponential service, μ = 1.
    const double lambda = 0.8;
    auto rho = [&](double x) { return lambda * (1 - std::exp(-x) * (1 + x)); };
    auto m2 = [&](double x) { return 2 - std::exp(-x) * (x * x + 2 * x + 2) + x * x * std::exp(-x); };
    double expected = 0, inner = 0;
    const double dx = 1e-4;
    for (double x = dx / 2; x < 60; x += dx) {
        inner += dx / (1 - rho(x));  // midpoint rule for ∫_0^x dt/(1-ρ(t))
        const double waiting = lambda * m2(x) / (2 * (1 - rho(x)) * (1 - rho(x)));
        expected += (waiting + inner) * std::exp(-x) * dx;
    }
    CHECK(expected < 5.0);  // SRPT beats FCFS (5.0 at this load)
    const auto o = run_mm(1, 1'000'000, lambda, 1.0, 15, "srtf");
    REQUIRE(o.summary.finished == 1'000'000);
    CHECK(o.summary.avg_jct == Approx(expected).epsilon(0.03));
}
