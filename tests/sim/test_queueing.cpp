// Queueing theory with fixed seeds: the mean response time (not the waiting time), over enough jobs that
// the tolerance is at least 3 standard errors of the sample mean. Jobs without a model run their duration
// exactly, so a cluster of c single-GPU slots under fifo is an M/M/c FCFS queue.
#include "models/base/random.hpp"
#include "tests/support/test_support.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::queueing_tests {

namespace {

/// Poisson arrivals at rate lambda of single-GPU jobs whose durations `size()` draws (at least 1 µs: the
/// engine's time resolution).
template <class Size>
Trace poisson_trace(std::size_t jobs, double lambda, std::uint64_t seed, Size size) {
    Trace t;
    t.path = "poisson-trace";
    t.format = "generated";
    Rng arrivals(seed, "test/arrivals");
    double now = 0;
    t.jobs.reserve(jobs);
    for (std::size_t i = 0; i < jobs; ++i) {
        now += arrivals.exponential(lambda);
        JobRecord r;
        r.id = std::to_string(i);
        r.submit_time = now;
        r.num_gpus = 1;
        r.duration = std::max(1e-6, size());
        r.line = static_cast<std::uint32_t>(i + 2);
        t.jobs.push_back(std::move(r));
    }
    return t;
}

/// Poisson arrivals at rate lambda, exponential service with mean 1/mu, single-GPU jobs.
Trace mm_trace(std::size_t jobs, double lambda, double mu, std::uint64_t seed) {
    Rng service(seed, "test/service");
    return poisson_trace(jobs, lambda, seed, [&] { return service.exponential(mu); });
}

/// `trace` on `servers` single-GPU slots under `policy` (with one k=v `param` if given).
RunOutcome run_slots(std::size_t servers, Trace trace, const std::string& policy, const std::string& param = "",
                     std::size_t timeseries_points = 1000) {
    RunInputs in;
    in.cluster = parse_cluster(homogeneous_cluster_json(1, static_cast<int>(servers)), "cluster.json");
    in.profiles = parse_profiles(kUnusedProfile, "profile.json");
    in.trace = std::move(trace);
    RunConfig c;
    c.policy = policy;
    if (!param.empty()) add_param(c, param);
    c.out.clear();
    c.timeseries_points = timeseries_points;
    return simulate(in, c);
}

RunOutcome run_mm(std::size_t servers, std::size_t jobs, double lambda, double mu, std::uint64_t seed,
                  const std::string& policy = "fifo", const std::string& param = "") {
    return run_slots(servers, mm_trace(jobs, lambda, mu, seed), policy, param);
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

TEST_CASE("M/M/1 las at rho = 0.5 over 200k jobs, quantum 1/50 of the mean: the same mean response time as FCFS",
          "[slow][queueing]") {
    // With exponential sizes every size-blind work-conserving discipline has the same mean number in
    // system, so least-attained-service (here discretised by its quantum) matches FCFS: 1/(mu - lambda).
    const auto o = run_mm(1, 200'000, 0.5, 1.0, 11, "las", "quantum=0.02");
    REQUIRE(o.summary.finished == 200'000);
    CHECK(o.summary.avg_jct == Approx(2.0).epsilon(0.03));
    const auto fifo = run_mm(1, 200'000, 0.5, 1.0, 11);
    CHECK(o.summary.avg_jct == Approx(fifo.summary.avg_jct).epsilon(0.03));
}

TEST_CASE("M/M/1 fifo at rho = 0.8 over 1M jobs: mean response time 1/(mu - lambda)", "[slow][queueing]") {
    const auto o = run_mm(1, 1'000'000, 0.8, 1.0, 12);
    REQUIRE(o.summary.finished == 1'000'000);
    CHECK(o.summary.avg_jct == Approx(5.0).epsilon(0.03));
}

TEST_CASE("M/M/8 fifo, lambda = 6, mu = 1, over 200k jobs: Erlang-C mean response time; Little's law",
          "[slow][queueing]") {
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

namespace {

/// FCFS on c identical servers, computed independently of the engine: each job in arrival order takes
/// the server that frees first (Kiefer-Wolfowitz). Returns every job's finish time.
std::vector<double> fcfs_finish(const Trace& t, std::size_t servers) {
    std::vector<double> free_at(servers, 0.0), finish;
    for (const JobRecord& r : t.jobs) {
        auto earliest = std::min_element(free_at.begin(), free_at.end());
        // Times as the engine keeps them: whole microseconds.
        const double start = std::max(*earliest, std::round(r.submit_time * 1e6) / 1e6);
        *earliest = start + std::round(r.duration * 1e6) / 1e6;
        finish.push_back(*earliest);
    }
    return finish;
}

/// Preemptive SRPT on one server, computed independently: at each arrival or completion the job with
/// the least remaining work runs (ties: earlier arrival). Exact in whole microseconds.
std::vector<double> srpt_finish(const Trace& t) {
    const std::size_t n = t.jobs.size();
    std::vector<std::int64_t> remaining(n), submit(n);
    for (std::size_t i = 0; i < n; ++i) {
        submit[i] = std::llround(t.jobs[i].submit_time * 1e6);
        remaining[i] = std::llround(t.jobs[i].duration * 1e6);
    }
    std::vector<double> finish(n, -1);
    std::set<std::pair<std::int64_t, std::size_t>> ready;  // (remaining, arrival index)
    std::int64_t now = 0;
    std::size_t next = 0;
    while (next < n || !ready.empty()) {
        if (ready.empty()) now = std::max(now, submit[next]);
        while (next < n && submit[next] <= now) {
            ready.insert({remaining[next], next});
            ++next;
        }
        auto [left, j] = *ready.begin();
        const std::int64_t until = next < n ? std::min(now + left, submit[next]) : now + left;
        ready.erase(ready.begin());
        left -= until - now;
        now = until;
        if (left == 0)
            finish[j] = static_cast<double>(now) / 1e6;
        else
            ready.insert({left, j});
    }
    return finish;
}

}  // namespace

TEST_CASE("fifo on 1 and 3 GPUs: every job's finish equals an independent FCFS recursion", "[queueing]") {
    for (std::size_t servers : {1, 3}) {
        INFO(servers << " servers");
        const double lambda = 0.9 * static_cast<double>(servers);
        const auto o = run_mm(servers, 3'000, lambda, 1.0, 21);
        const auto expected = fcfs_finish(mm_trace(3'000, lambda, 1.0, 21), servers);
        std::size_t mismatches = 0;
        for (std::size_t j = 0; j < expected.size(); ++j)
            mismatches += std::abs(to_seconds(o.jobs[j].finish) - expected[j]) > 1e-6;
        CHECK(mismatches == 0);
    }
}

TEST_CASE("srtf on 1 GPU: every job's finish equals an independent preemptive SRPT simulation", "[queueing]") {
    // Heavy load (rho = 0.95) so that preemptions are many; 3,000 jobs.
    const auto o = run_mm(1, 3'000, 0.95, 1.0, 22, "srtf");
    const auto expected = srpt_finish(mm_trace(3'000, 0.95, 1.0, 22));
    REQUIRE(o.summary.preemptions > 100);
    std::size_t mismatches = 0;
    for (std::size_t j = 0; j < expected.size(); ++j)
        mismatches += std::abs(to_seconds(o.jobs[j].finish) - expected[j]) > 1e-6 * (1 + o.jobs[j].preemptions);
    CHECK(mismatches == 0);
}

namespace {

/// Balanced-means hyperexponential sizes (high variance, as DL jobs' sizes have): with probability p rate
/// 2p/m, else rate 2(1−p)/m; mean m, E[S²] = m²/(2p) + m²/(2(1−p)); p = 0.0476 gives a squared CV of about 10.
struct HyperExp {
    double p = 0.0476, m = 1;
    double rate1() const { return 2 * p / m; }
    double rate2() const { return 2 * (1 - p) / m; }
    double second_moment() const { return m * m / (2 * p) + m * m / (2 * (1 - p)); }
    /// ∫₀ˣ t f(t) dt and ∫₀ˣ t² f(t) dt, closed forms per exponential branch.
    double partial1(double x) const { return branch1(p, rate1(), x) + branch1(1 - p, rate2(), x); }
    double partial2(double x) const { return branch2(p, rate1(), x) + branch2(1 - p, rate2(), x); }
    double tail(double x) const { return p * std::exp(-rate1() * x) + (1 - p) * std::exp(-rate2() * x); }
    double density(double x) const {
        return p * rate1() * std::exp(-rate1() * x) + (1 - p) * rate2() * std::exp(-rate2() * x);
    }
    static double branch1(double w, double mu, double x) { return w / mu * (1 - std::exp(-mu * x) * (1 + mu * x)); }
    static double branch2(double w, double mu, double x) {
        const double y = mu * x;
        return w * 2 / (mu * mu) * (1 - std::exp(-y) * (1 + y + y * y / 2));
    }
};

RunOutcome run_hyperexp(std::size_t jobs, double lambda, const HyperExp& h, std::uint64_t seed,
                        const std::string& policy) {
    Rng branch(seed, "test/branch"), service(seed, "test/service");
    Trace t = poisson_trace(jobs, lambda, seed,
                            [&] { return service.exponential(branch.uniform() < h.p ? h.rate1() : h.rate2()); });
    return run_slots(1, std::move(t), policy, "", 0);
}

/// Schrage–Miller's M/G/1 SRPT mean response time, integrated numerically:
/// E[T(x)] = λ(∫₀ˣ t²dF + x²(1−F(x))) / (2(1−ρ(x))²) + ∫₀ˣ dt/(1−ρ(t)), ρ(x) = λ∫₀ˣ t dF; E[T] = ∫ E[T(x)] dF(x).
double srpt_mean_response(double lambda, const HyperExp& h) {
    // Trapezoids on a grid fine near 0 and out to where the tail is negligible (e^-40 of the slow branch).
    const double end = 40 / h.rate1();
    const int steps = 400'000;
    double residence = 0, mean = 0, prev_x = 0, prev_inv = 1, prev_integrand = 0;
    for (int i = 1; i <= steps; ++i) {
        const double u = static_cast<double>(i) / steps;
        const double x = end * u * u;  // denser near 0
        const double rho_x = lambda * h.partial1(x);
        const double inv = 1 / (1 - rho_x);
        residence += (x - prev_x) * (inv + prev_inv) / 2;
        const double waiting = lambda * (h.partial2(x) + x * x * h.tail(x)) / (2 * (1 - rho_x) * (1 - rho_x));
        const double integrand = (waiting + residence) * h.density(x);
        mean += (x - prev_x) * (integrand + prev_integrand) / 2;
        prev_x = x;
        prev_inv = inv;
        prev_integrand = integrand;
    }
    return mean;
}

}  // namespace

TEST_CASE("M/G/1 with hyperexponential sizes (SCV 10) at rho = 0.7: fifo matches Pollaczek-Khinchine, srtf SRPT",
          "[slow][queueing]") {
    const HyperExp h;
    const double lambda = 0.7;
    // Pollaczek–Khinchine: E[T] = E[S] + λE[S²] / (2(1−ρ)).
    const double pk = h.m + lambda * h.second_moment() / (2 * (1 - lambda * h.m));
    const auto fifo = run_hyperexp(2'000'000, lambda, h, 21, "fifo");
    REQUIRE(fifo.summary.finished == 2'000'000);
    CHECK(fifo.summary.avg_jct == Approx(pk).epsilon(0.05));
    const double srpt = srpt_mean_response(lambda, h);
    const auto srtf = run_hyperexp(2'000'000, lambda, h, 21, "srtf");
    REQUIRE(srtf.summary.finished == 2'000'000);
    CHECK(srtf.summary.avg_jct == Approx(srpt).epsilon(0.03));
    WARN("P-K " << pk << " fifo " << fifo.summary.avg_jct << "; SRPT " << srpt << " srtf " << srtf.summary.avg_jct);
}

namespace {

/// Jobs of the FB test: enough that 3% is at least 3 standard errors (checked by batch means). At 1M jobs
/// the standard error was 1.08% (las 2.5432 against FB 2.5435); at 2M 0.79% (las 2.5624, +0.74%), 31 s.
/// The quantum adds no measurable bias: arrivals (service 0) preempt at once, and the quantum only sets
/// how finely jobs of equal service alternate. On the same 1M-job sample, quantum m/10, m/50 and m/100
/// give 2.54333, 2.54315 and 2.54327 (within 0.007%).
constexpr std::size_t kFbJobs = 2'000'000;

/// Foreground-background (FB, least attained service) M/G/1 mean response time (Schrage 1967;
/// Kleinrock vol. 2 §4.6), integrated numerically: a job of size x sees the system truncated at x,
///   T(x) = λ m2(x) / (2 (1 − ρ(x))²) + x / (1 − ρ(x)),  ρ(x) = λ E[min(S, x)], m2(x) = E[min(S, x)²],
/// and E[T] = ∫ T(x) dF(x). Trapezoids on `steps` points of a grid dense near 0, out to e^-40 of the tail.
double fb_mean_response(double lambda, const HyperExp& h, int steps) {
    const double end = 40 / h.rate1();
    double mean = 0, prev_x = 0, prev_integrand = 0;
    for (int i = 1; i <= steps; ++i) {
        const double u = static_cast<double>(i) / steps;
        const double x = end * u * u;
        const double rho_x = lambda * (h.partial1(x) + x * h.tail(x));
        const double m2_x = h.partial2(x) + x * x * h.tail(x);
        const double t = lambda * m2_x / (2 * (1 - rho_x) * (1 - rho_x)) + x / (1 - rho_x);
        const double integrand = t * h.density(x);
        mean += (x - prev_x) * (integrand + prev_integrand) / 2;
        prev_x = x;
        prev_integrand = integrand;
    }
    return mean;
}

/// Standard error of the mean JCT by batch means (50 batches of consecutive jobs, which are nearly
/// independent when a batch spans many busy periods).
double batch_standard_error(const RunOutcome& o) {
    const std::size_t batches = 50, per = o.jobs.size() / batches;
    std::vector<double> means;
    for (std::size_t b = 0; b < batches; ++b) {
        double sum = 0;
        for (std::size_t j = b * per; j < (b + 1) * per; ++j) sum += to_seconds(o.jobs[j].finish - o.jobs[j].submit);
        means.push_back(sum / static_cast<double>(per));
    }
    double mean = 0, var = 0;
    for (double m : means) mean += m / batches;
    for (double m : means) var += (m - mean) * (m - mean) / (batches - 1);
    return std::sqrt(var / batches);
}

}  // namespace

TEST_CASE("M/G/1 with hyperexponential sizes (SCV 10) at rho = 0.7: las with quantum m/50 matches the FB formula",
          "[slow][queueing]") {
    const HyperExp h;
    const double lambda = 0.7;
    const double fb = fb_mean_response(lambda, h, 400'000);
    // The quadrature has converged: halving the grid moves it by far less than the tolerance.
    CHECK(fb_mean_response(lambda, h, 200'000) == Approx(fb).epsilon(1e-5));
    // FB favours the many small jobs of a high-variance distribution: far below FCFS (P-K: 13.87).
    CHECK(fb < 5);
    Rng branch(31, "test/branch"), service(31, "test/service");
    Trace t = poisson_trace(kFbJobs, lambda, 31,
                            [&] { return service.exponential(branch.uniform() < h.p ? h.rate1() : h.rate2()); });
    const auto las = run_slots(1, std::move(t), "las", "quantum=0.02", 0);
    REQUIRE(las.summary.finished == kFbJobs);
    const double se = batch_standard_error(las);
    CHECK(3 * se <= 0.03 * fb);  // the tolerance is at least 3 standard errors
    CHECK(las.summary.avg_jct == Approx(fb).epsilon(0.03));
    WARN("FB " << fb << " las " << las.summary.avg_jct << " (standard error " << se << ", " << las.summary.preemptions
               << " preemptions)");
}

// -----------------------------------------------------------------------------------------------------------
// The same formulas at CI's sizes (tag [statistical], CTest `statistical-short`): the [slow] cases above stay
// as they are and run in scripts/bench.sh; these check each formula over the fewest jobs (or at a lower
// load) at which its tolerance is still at least 3 standard errors of the sample mean, with the [slow]
// cases' tolerances (3%, and 5% for Pollaczek-Khinchine).
//
// Standard error (SE) of a mean response time, by batch means: the run's jobs in arrival order cut into
// B = 50 batches of consecutive jobs, x̄_b the mean response time of batch b and x̄ their mean,
//   SE = sqrt( Σ_b (x̄_b − x̄)² / (B (B − 1)) )                                    (batch_standard_error)
// (response times of nearby jobs are correlated, so the plain s/√n would understate it; batches spanning
// many busy periods are nearly independent). Each case checks 3·SE <= tolerance × expected on its own run,
// and its comment gives the SE measured on it.
// -----------------------------------------------------------------------------------------------------------

namespace {

/// The run's mean response time is `expected` within `tolerance` (relative), and the tolerance is at least
/// 3 standard errors of the sample mean (batch means, above).
void check_mean_response(const RunOutcome& o, double expected, double tolerance) {
    const double se = batch_standard_error(o);
    INFO("mean response time " << o.summary.avg_jct << ", expected " << expected << ", standard error " << se << " ("
                               << 100 * se / expected << "%)");
    CHECK(3 * se <= tolerance * expected);
    CHECK(o.summary.avg_jct == Approx(expected).epsilon(tolerance));
}

/// Exponential sizes of mean 1 as a HyperExp: with p = 1/2 both branches have rate 2p/m = 1/m.
constexpr HyperExp kExponential{0.5, 1};

}  // namespace

TEST_CASE("M/M/1 fifo at rho = 0.5, 200k jobs: 1/(mu - lambda) within 3%, at least 3 standard errors",
          "[queueing][statistical]") {
    // SE about 0.6% of E[T] = 2: the waiting time's asymptotic variance
    // ρ(2 + 5ρ − 4ρ² + ρ³)/(μ²(1 − ρ)⁴) = 29 (Daley 1968) gives sqrt(29 / 200,000) = 0.012; batch means on
    // this run: 0.0154 (0.77%), so 3 SE = 2.3%.
    const auto o = run_mm(1, 200'000, 0.5, 1.0, 41);
    REQUIRE(o.summary.finished == 200'000);
    check_mean_response(o, 2.0, 0.03);
}

TEST_CASE("M/M/1 las at rho = 0.5, 200k jobs, quantum 1/10 of the mean: FCFS's mean response time within 3%",
          "[queueing][statistical]") {
    // With exponential sizes every size-blind work-conserving discipline has FCFS's mean number in system,
    // whatever its quantum; m/10 costs a fifth of m/50's timer events. SE on this run: 0.60% (3 SE = 1.8%).
    const auto o = run_mm(1, 200'000, 0.5, 1.0, 42, "las", "quantum=0.1");
    REQUIRE(o.summary.finished == 200'000);
    check_mean_response(o, 2.0, 0.03);
    const auto fifo = run_mm(1, 200'000, 0.5, 1.0, 42);
    CHECK(o.summary.avg_jct == Approx(fifo.summary.avg_jct).epsilon(0.03));
}

TEST_CASE("M/M/8 fifo, lambda = 6, mu = 1, 200k jobs: Erlang-C mean response time within 3%; Little's law",
          "[queueing][statistical]") {
    // SE on this run: 0.0077, 0.65% of Erlang C's 1.17849 (3 SE = 2.0%).
    const double expected = erlang_c_response(8, 6.0, 1.0);
    const auto o = run_mm(8, 200'000, 6.0, 1.0, 43);
    REQUIRE(o.summary.finished == 200'000);
    check_mean_response(o, expected, 0.03);
    // Little's law on the time series, and busy GPUs averaging lambda/mu = 6 of 8, as in the [slow] case.
    const double throughput = static_cast<double>(o.summary.finished) / o.summary.makespan;
    CHECK(mean_in_system(o) == Approx(throughput * o.summary.avg_jct).epsilon(0.01));
    CHECK(o.summary.gpu_utilization == Approx(0.75).epsilon(0.02));
}

TEST_CASE("M/M/1 srtf at rho = 0.7, 200k jobs: SRPT mean response time within 3%", "[queueing][statistical]") {
    // Schrage-Miller's SRPT formula (srpt_mean_response) with exponential sizes. At rho = 0.8 (the [slow]
    // case) 200k jobs give an SE of 1.2% (3 SE above 3%); at 0.7, 0.67% on this run (3 SE = 2.0%).
    const auto o = run_mm(1, 200'000, 0.7, 1.0, 44, "srtf");
    REQUIRE(o.summary.finished == 200'000);
    check_mean_response(o, srpt_mean_response(0.7, kExponential), 0.03);
}

TEST_CASE("M/G/1, hyperexponential sizes (SCV 10), rho = 0.3, 1M jobs: fifo matches Pollaczek-Khinchine within 5%",
          "[queueing][statistical]") {
    // The sizes' rare long jobs dominate the variance: at rho = 0.5 the SE over 1M jobs is 1.7% (3 SE above
    // 5%); at 0.3, 0.66% on this run (3 SE = 2.0%).
    const HyperExp h;
    const double lambda = 0.3;
    const double pk = h.m + lambda * h.second_moment() / (2 * (1 - lambda * h.m));
    const auto o = run_hyperexp(1'000'000, lambda, h, 45, "fifo");
    REQUIRE(o.summary.finished == 1'000'000);
    check_mean_response(o, pk, 0.05);
}

TEST_CASE("M/G/1, hyperexponential sizes (SCV 10), rho = 0.5, 600k jobs: srtf matches SRPT within 3%",
          "[queueing][statistical]") {
    // SE on this run: 0.69% (3 SE = 2.1%; 0.86% over 400k jobs).
    const HyperExp h;
    const auto o = run_hyperexp(600'000, 0.5, h, 46, "srtf");
    REQUIRE(o.summary.finished == 600'000);
    check_mean_response(o, srpt_mean_response(0.5, h), 0.03);
}

TEST_CASE("M/G/1, hyperexponential sizes (SCV 10), rho = 0.5, 600k jobs: las, quantum m/10, matches FB within 3%",
          "[queueing][statistical]") {
    // The quantum adds no measurable bias (m/10, m/50 and m/100 within 0.007% of each other on the [slow]
    // case's sample). SE on this run: 0.76% (3 SE = 2.3%; 0.98% over 400k jobs).
    const HyperExp h;
    Rng branch(47, "test/branch"), service(47, "test/service");
    Trace t = poisson_trace(600'000, 0.5, 47,
                            [&] { return service.exponential(branch.uniform() < h.p ? h.rate1() : h.rate2()); });
    const auto o = run_slots(1, std::move(t), "las", "quantum=0.1", 0);
    REQUIRE(o.summary.finished == 600'000);
    check_mean_response(o, fb_mean_response(0.5, h, 400'000), 0.03);
}

TEST_CASE("M/M/1 FCFS: every job's pending time is its queueing delay (nothing is preempted)", "[queueing]") {
    // Under fifo on one slot a job waits once, before its first start, and then runs to its finish:
    // pending_time = JCT - time holding the GPU = first start - submit, exactly, for every job.
    const auto o = run_mm(1, 2'000, 0.8, 1.0, 48);
    REQUIRE(o.summary.finished == 2'000);
    std::size_t waited = 0;
    for (const JobInfo& j : o.jobs) {
        REQUIRE(j.preemptions == 0u);
        CHECK(pending_time(j) == j.first_start - j.submit);
        waited += j.first_start > j.submit;
    }
    CHECK(waited > 1'000);  // at load 0.8 most jobs wait: the check is not over zeros
    CHECK(o.summary.avg_pending_time == o.summary.avg_queueing_delay);
    CHECK(o.summary.avg_pending_time > 0);
}

}  // namespace dlsim::test::queueing_tests
