// The analytic centre of Gavel's block-structured LP polytope (policies/lp/analytic_centre.hpp): centres worked by
// hand, symmetry, KKT on random instances, the Woodbury step against a dense solve, and the mixing step; and the
// sparse-row centre (policies/lp/row_centre.hpp) by hand and against the block solver.
#include "models/base/input_error.hpp"
#include "policies/lp/analytic_centre.hpp"
#include "policies/lp/dense_cholesky.hpp"
#include "policies/lp/row_centre.hpp"
#include "policies/rounds/max_min_share.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace dlsim;

namespace dlsim::test::analytic_centre_tests {

namespace {

constexpr double no_capacity = CentreProblem::no_capacity;
constexpr double no_floor = CentreProblem::no_floor;

Approx tight(double value) { return Approx(value).epsilon(1e-9).margin(1e-12); }

CentreProblem make_problem(std::size_t jobs, std::vector<double> capacity, std::vector<int> gang) {
    CentreProblem problem;
    problem.jobs = jobs;
    problem.types = capacity.size();
    problem.capacity = std::move(capacity);
    problem.gang = std::move(gang);
    problem.allowed.assign(jobs * problem.types, 1);
    return problem;
}

// The largest |∂φ/∂x_i| relative to the sum of the magnitudes of its terms, computed here from the formula
// (independently of the solver): 0 at the centre, up to rounding.
double kkt_residual(const CentreProblem& p, const std::vector<double>& x) {
    const std::size_t T = p.types;
    std::vector<double> type_slack = p.capacity;
    for (std::size_t m = 0; m < p.jobs; ++m)
        for (std::size_t t = 0; t < T; ++t) type_slack[t] -= p.gang[m] * x[m * T + t];
    double worst = 0.0;
    for (std::size_t m = 0; m < p.jobs; ++m) {
        double used = 0.0, floor = 0.0;
        for (std::size_t t = 0; t < T; ++t) {
            used += x[m * T + t];
            if (p.has_floor(m)) floor += p.floor_coeff[m * T + t] * x[m * T + t];
        }
        const double u = 1.0 - used;
        const double v = p.has_floor(m) ? floor - p.floor_rhs[m] : 1.0;
        // The floor terms w_v·log v + w_r·log(a·x) (plain: w_v = 1, w_r = 0).
        const double pull = p.floor_weight / v, push = p.has_floor(m) ? p.rate_weight / floor : 0.0;
        for (std::size_t t = 0; t < T; ++t) {
            if (!p.allowed[m * T + t]) continue;
            const double xi = x[m * T + t];
            const double a = p.has_floor(m) ? p.floor_coeff[m * T + t] : 0.0;
            const double cap = p.capacity[t] == no_capacity ? 0.0 : p.gang[m] / type_slack[t];
            const double r = 1.0 / xi - 1.0 / u - cap + a * (pull + push);
            const double scale = 1.0 / xi + 1.0 / u + cap + std::abs(a * pull) + std::abs(a * push);
            worst = std::max(worst, std::abs(r) / scale);
        }
    }
    return worst;
}

bool strictly_inside(const CentreProblem& p, const std::vector<double>& x) {
    const std::size_t T = p.types;
    std::vector<double> type_slack = p.capacity;
    for (std::size_t m = 0; m < p.jobs; ++m) {
        double used = 0.0, floor = 0.0;
        for (std::size_t t = 0; t < T; ++t) {
            const double xi = x[m * T + t];
            if (p.allowed[m * T + t] ? !(xi > 0) : xi != 0.0) return false;
            used += xi;
            type_slack[t] -= p.gang[m] * xi;
            if (p.has_floor(m)) floor += p.floor_coeff[m * T + t] * xi;
        }
        if (!(used < 1) || (p.has_floor(m) && !(floor > p.floor_rhs[m]))) return false;
    }
    for (double s : type_slack)
        if (!(s > 0)) return false;
    return true;
}

// A random instance and a strictly feasible start (zero_some: an LP-vertex-like start, some entries exactly 0 and
// some jobs with Σ_t x = 1, for the mixing step). Floors on about half the jobs, below the start's a·x.
struct RandomInstance {
    CentreProblem problem;
    std::vector<double> start;
};

RandomInstance random_instance(std::mt19937_64& rng, std::size_t max_jobs, std::size_t types, bool zero_some) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const int gangs[] = {1, 2, 4, 8};
    const std::size_t jobs = 1 + rng() % max_jobs;
    RandomInstance r;
    CentreProblem& p = r.problem;
    p.jobs = jobs;
    p.types = types;
    double total_gang = 0.0;
    for (std::size_t m = 0; m < jobs; ++m) {
        p.gang.push_back(gangs[rng() % 4]);
        total_gang += p.gang.back();
    }
    p.allowed.resize(jobs * types);
    for (auto& flag : p.allowed) flag = unit(rng) < 0.8;
    r.start.assign(jobs * types, 0.0);
    for (std::size_t m = 0; m < jobs; ++m) {
        double sum = 0.0;
        for (std::size_t t = 0; t < types; ++t)
            if (p.allowed[m * types + t] && !(zero_some && unit(rng) < 0.3))
                sum += r.start[m * types + t] = unit(rng) + 0.01;
        const double target = zero_some && unit(rng) < 0.3 ? 1.0 : 0.1 + 0.8 * unit(rng);
        if (sum > 0)
            for (std::size_t t = 0; t < types; ++t) r.start[m * types + t] *= target / sum;
    }
    // Capacity between "binding" and "ample" relative to the start's usage, which must fit.
    for (std::size_t t = 0; t < types; ++t) {
        double usage = 0.0;
        for (std::size_t m = 0; m < jobs; ++m) usage += p.gang[m] * r.start[m * types + t];
        const double roomy = total_gang / static_cast<double>(types);
        p.capacity.push_back(zero_some && unit(rng) < 0.3 ? usage : std::max(usage, 0.0) + 0.05 + unit(rng) * roomy);
        if (p.capacity.back() <= 0) p.capacity.back() = 1.0;
    }
    p.floor_coeff.assign(jobs * types, 0.0);
    p.floor_rhs.assign(jobs, no_floor);
    for (std::size_t m = 0; m < jobs; ++m) {
        if (unit(rng) < 0.5) continue;
        double level = 0.0;
        for (std::size_t t = 0; t < types; ++t) {
            p.floor_coeff[m * types + t] = 3.0 * unit(rng);
            level += p.floor_coeff[m * types + t] * r.start[m * types + t];
        }
        p.floor_rhs[m] = level > 0 ? level * (0.3 + 0.69 * unit(rng)) : -0.1;
    }
    return r;
}

// Solves H·d = r by Gaussian elimination with partial pivoting on the dense Hessian, built from its formula.
std::vector<double> dense_step(const CentreProblem& p, const std::vector<double>& x, const std::vector<double>& r) {
    const std::size_t T = p.types;
    const std::size_t n = p.jobs * T;
    std::vector<double> type_slack = p.capacity;
    std::vector<double> u(p.jobs), v(p.jobs, 1.0), rate(p.jobs, 1.0);
    for (std::size_t m = 0; m < p.jobs; ++m) {
        double used = 0.0, floor = 0.0;
        for (std::size_t t = 0; t < T; ++t) {
            used += x[m * T + t];
            type_slack[t] -= p.gang[m] * x[m * T + t];
            if (p.has_floor(m)) floor += p.floor_coeff[m * T + t] * x[m * T + t];
        }
        u[m] = 1 - used;
        if (p.has_floor(m)) v[m] = floor - p.floor_rhs[m], rate[m] = floor;
    }
    std::vector<double> h(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t mi = i / T, ti = i % T;
        if (!p.allowed[i]) {
            h[i * n + i] = 1.0;  // fixed at 0: identity row, zero right-hand side
            continue;
        }
        for (std::size_t j = 0; j < n; ++j) {
            const std::size_t mj = j / T, tj = j % T;
            if (!p.allowed[j]) continue;
            double value = 0.0;
            if (i == j) value += 1.0 / (x[i] * x[i]);
            if (mi == mj) {
                value += 1.0 / (u[mi] * u[mi]);
                if (p.has_floor(mi))
                    value += p.floor_coeff[i] * p.floor_coeff[j] *
                             (p.floor_weight / (v[mi] * v[mi]) + p.rate_weight / (rate[mi] * rate[mi]));
            }
            if (ti == tj && p.capacity[ti] != no_capacity)
                value += p.gang[mi] * p.gang[mj] / (type_slack[ti] * type_slack[ti]);
            h[i * n + j] = value;
        }
    }
    std::vector<double> b(r);
    for (std::size_t i = 0; i < n; ++i) {
        if (!p.allowed[i]) b[i] = 0.0;
    }
    for (std::size_t col = 0; col < n; ++col) {
        std::size_t pivot = col;
        for (std::size_t row = col + 1; row < n; ++row)
            if (std::abs(h[row * n + col]) > std::abs(h[pivot * n + col])) pivot = row;
        for (std::size_t k = 0; k < n; ++k) std::swap(h[col * n + k], h[pivot * n + k]);
        std::swap(b[col], b[pivot]);
        for (std::size_t row = col + 1; row < n; ++row) {
            const double factor = h[row * n + col] / h[col * n + col];
            for (std::size_t k = col; k < n; ++k) h[row * n + k] -= factor * h[col * n + k];
            b[row] -= factor * b[col];
        }
    }
    std::vector<double> d(n);
    for (std::size_t i = n; i-- > 0;) {
        double value = b[i];
        for (std::size_t k = i + 1; k < n; ++k) value -= h[i * n + k] * d[k];
        d[i] = value / h[i * n + i];
    }
    return d;
}

}  // namespace

TEST_CASE("analytic centre: one job on two types, with and without the capacity barrier", "[unit][lp]") {
    AnalyticCentre centre;
    // No capacity rows: maximize log x1 + log x2 + log(1 − x1 − x2). By symmetry x1 = x2 = x and
    // 1/x − 1/(1 − 2x) = 0, so x = 1/3.
    {
        const CentreProblem p = make_problem(1, {no_capacity, no_capacity}, {1});
        std::vector<double> x{0.1, 0.2};
        const auto outcome = centre.solve(p, x);
        REQUIRE(outcome.ok());
        CHECK(outcome.mixing == 0.0);
        CHECK(outcome.decrement < 1e-10);
        CHECK(x[0] == tight(1.0 / 3));
        CHECK(x[1] == tight(1.0 / 3));
    }
    // W = 1 on both types: + log(1 − x1) + log(1 − x2). Symmetric again: 1/x − 1/(1 − 2x) − 1/(1 − x) = 0
    // ⇔ (1 − 2x)(1 − x) − x(1 − x) − x(1 − 2x) = 1 − 5x + 5x² = 0, so x = (5 − √5)/10 = 0.2763932...
    {
        const CentreProblem p = make_problem(1, {1.0, 1.0}, {1});
        std::vector<double> x{0.1, 0.2};
        REQUIRE(centre.solve(p, x).ok());
        CHECK(x[0] == tight((5 - std::sqrt(5.0)) / 10));
        CHECK(x[1] == tight((5 - std::sqrt(5.0)) / 10));
    }
    // W = 1e6: 1/x − 1/(1 − 2x) = 1/(W − x). The left side has slope −9 − 18 = −27 at 1/3, so the capacity
    // barrier moves x by −1/(27·W) ≈ −3.7e-8 (to first order; the rest is O(1/W²)): below 1e-3 by far.
    {
        const CentreProblem p = make_problem(1, {1e6, 1e6}, {1});
        std::vector<double> x{0.1, 0.2};
        REQUIRE(centre.solve(p, x).ok());
        CHECK(x[0] == Approx(1.0 / 3 - 1.0 / 27e6).margin(1e-11));
        CHECK(x[1] == tight(x[0]));
    }
}

TEST_CASE("analytic centre: identical jobs get identical fractions, equal across equal types", "[unit][lp]") {
    // 4 jobs of gang 2 on 3 types of W = 4, from an asymmetric start. The centre is unique, so it is symmetric:
    // x_{m,t} = x with 1/x − 1/(1 − 3x) − 2/(4 − 8x) = 0
    // ⇔ (1 − 3x)(2 − 4x) − x(2 − 4x) − x(1 − 3x) = 2 − 13x + 19x² = 0,
    // x = (13 − √17)/38 = 0.2336025...
    const CentreProblem p = make_problem(4, {4, 4, 4}, {2, 2, 2, 2});
    std::vector<double> x{0.5, 0.1, 0.1, 0.1, 0.5, 0.1, 0.1, 0.1, 0.5, 0.2, 0.2, 0.2};
    const auto outcome = AnalyticCentre().solve(p, x);
    REQUIRE(outcome.ok());
    CHECK(outcome.newton_steps < 20);
    for (double value : x) CHECK(value == tight((13 - std::sqrt(17.0)) / 38));
}

TEST_CASE("analytic centre: a floor pushes a job onto its fast type", "[unit][lp]") {
    AnalyticCentre centre;
    // One type, floor x >= 0.9: log x + log(1 − x) + log(x − 0.9); 1/x − 1/(1 − x) + 1/(x − 0.9) = 0
    // ⇔ 3x² − 3.8x + 0.9 = 0, root in (0.9, 1): x = (3.8 + √3.64)/6 = 0.95131306...
    {
        CentreProblem p = make_problem(1, {no_capacity}, {1});
        p.floor_coeff = {1.0};
        p.floor_rhs = {0.9};
        std::vector<double> x{0.99};
        REQUIRE(centre.solve(p, x).ok());
        CHECK(x[0] == tight((3.8 + std::sqrt(3.64)) / 6));
    }
    // Two types, a = (1, 0.1), b = 0.9: 1/x1 − 1/u + 1/v = 0, 1/x2 − 1/u + 0.1/v = 0 with u = 1 − x1 − x2,
    // v = x1 + 0.1·x2 − 0.9. Root (mpmath.findroot, 30 digits): x1 = 0.930534691878330, x2 = 0.0364926314202243.
    // The floor forces x1 > 0.9 and leaves the slow type a sliver.
    {
        CentreProblem p = make_problem(1, {no_capacity, no_capacity}, {1});
        p.floor_coeff = {1.0, 0.1};
        p.floor_rhs = {0.9};
        std::vector<double> x{0.95, 0.01};
        REQUIRE(centre.solve(p, x).ok());
        CHECK(x[0] == tight(0.930534691878330));
        CHECK(x[1] == tight(0.0364926314202243));
    }
}

// The maximiser of a unimodal f on (low, high), by golden-section search (200 steps: to rounding).
template <class F>
double golden_section_argmax(const F& f, double low, double high) {
    const double ratio = (std::sqrt(5.0) - 1) / 2;
    for (int i = 0; i < 200; ++i) {
        const double a = high - ratio * (high - low), b = low + ratio * (high - low);
        if (f(a) < f(b))
            low = a;
        else
            high = b;
    }
    return (low + high) / 2;
}

// Gavel's FTF row and cone for one job (analytic_centre.hpp, "Weighted floors"): the barrier log(c − k·τ) +
// ½·log(τ·θ − 1) maximised over τ numerically, not by the closed form the header derives.
double cone_barrier(double theta, double c, double k) {
    const auto f = [&](double tau) { return std::log(c - k * tau) + 0.5 * std::log(tau * theta - 1); };
    return f(golden_section_argmax(f, 1 / theta, c / k));  // τ·θ > 1 and c − kτ > 0
}

TEST_CASE("analytic centre: weighted floors are Gavel's FTF cone program on its optimal face", "[unit][lp]") {
    AnalyticCentre centre;
    // One type, no capacity, floor x >= b = 0.5, weights (1.5, −1): φ = log x + log(1 − x) + 1.5·log(x − b) −
    // log x, so −1/(1 − x) + 1.5/(x − b) = 0 and x = (1.5 + b)/2.5 = 0.8 (the plain barrier gives 0.7887...).
    CentreProblem p = make_problem(1, {no_capacity}, {1});
    p.floor_coeff = {1.0};
    p.floor_rhs = {0.5};
    p.floor_weight = 1.5;
    p.rate_weight = -1.0;
    std::vector<double> x{0.9};
    REQUIRE(centre.solve(p, x).ok());
    CHECK(x[0] == tight(0.8));
    // The same job written as Gavel writes it, with c = 2, k = 1 (floor k/c = 0.5): maximise log x + log(1 − x) +
    // max_τ [log(c − kτ) + ½·log(τx − 1)] over x by golden section. Its maximiser is the weighted centre.
    {
        const auto g = [](double v) { return std::log(v) + std::log(1 - v) + cone_barrier(v, 2.0, 1.0); };
        CHECK(golden_section_argmax(g, 0.5 + 1e-12, 1 - 1e-12) == Approx(0.8).margin(1e-7));
    }
    // Weighted floors on random instances (floors made positive, as the weights require): the centre's gradient
    // vanishes, and the Woodbury step equals a dense solve of the weighted Hessian.
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        INFO("seed " << seed);
        std::mt19937_64 rng(5000 + seed);
        RandomInstance instance = random_instance(rng, 30, 1 + seed % 4, seed % 2 == 1);
        for (double& rhs : instance.problem.floor_rhs)
            if (rhs != no_floor && !(rhs > 0)) rhs = no_floor;
        instance.problem.floor_weight = 1.5;
        instance.problem.rate_weight = -1.0;
        std::vector<double> start = instance.start;
        REQUIRE(centre.solve(instance.problem, start).ok());
        CHECK(strictly_inside(instance.problem, start));
        CHECK(kkt_residual(instance.problem, start) < 1e-8);
        if (seed % 2 == 1) continue;  // the direction needs a strictly feasible point: the even seeds' starts
        std::vector<double> gradient, step;
        centre.newton_direction(instance.problem, instance.start, gradient, step);
        const std::vector<double> dense = dense_step(instance.problem, instance.start, gradient);
        double largest = 0.0, difference = 0.0;
        for (std::size_t i = 0; i < dense.size(); ++i) {
            largest = std::max(largest, std::abs(dense[i]));
            difference = std::max(difference, std::abs(dense[i] - step[i]));
        }
        CHECK(difference <= 1e-10 * largest);
    }
    // Weights that would make φ convex somewhere, or a floor <= 0 with a log-rate term, are refused.
    p.rate_weight = -1.5;
    CHECK_THROWS_AS(centre.solve(p, x), InternalError);
    p.rate_weight = -1.0;
    p.floor_rhs = {-0.1};
    CHECK_THROWS_AS(centre.solve(p, x), InternalError);
}

TEST_CASE("analytic centre: binding capacity couples the jobs", "[unit][lp]") {
    // 3 jobs of gang 1 on one type of W = 1: Σ_m [log x_m + log(1 − x_m)] + log(1 − Σ_m x_m). Symmetric:
    // 1/x − 1/(1 − x) − 1/(1 − 3x) = 0 ⇔ 1 − 6x + 7x² = 0, x = (3 − √2)/7 = 0.2265409...
    AnalyticCentre centre;
    {
        const CentreProblem p = make_problem(3, {1.0}, {1, 1, 1});
        std::vector<double> x{0.6, 0.1, 0.05};
        REQUIRE(centre.solve(p, x).ok());
        for (double value : x) CHECK(value == tight((3 - std::sqrt(2.0)) / 7));
        CHECK(kkt_residual(p, x) < 1e-12);
    }
    // Mixed gangs (1, 2, 4) on W = 3 and a second type W = 2 that job 3 may not use: no closed form, KKT holds.
    {
        CentreProblem p = make_problem(3, {3.0, 2.0}, {1, 2, 4});
        p.allowed[2 * 2 + 1] = 0;
        std::vector<double> x{0.2, 0.2, 0.2, 0.2, 0.3, 0.0};
        const auto outcome = centre.solve(p, x);
        REQUIRE(outcome.ok());
        CHECK(outcome.mixing == 0.0);
        CHECK(x[5] == 0.0);
        CHECK(strictly_inside(p, x));
        CHECK(kkt_residual(p, x) < 1e-8);
    }
}

TEST_CASE("analytic centre: KKT on 200 random instances", "[unit][lp]") {
    AnalyticCentre centre;  // one solver for all: buffers reused at varying sizes
    int most_steps = 0;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        INFO("seed " << seed);
        std::mt19937_64 rng(seed);
        RandomInstance instance = random_instance(rng, 50, 3, seed % 2 == 1);
        std::vector<double> x = instance.start;
        const auto outcome = centre.solve(instance.problem, x);
        INFO("status " << to_string(outcome.status) << ", steps " << outcome.newton_steps << ", mixing "
                       << outcome.mixing);
        REQUIRE(outcome.ok());
        CHECK(strictly_inside(instance.problem, x));
        CHECK(kkt_residual(instance.problem, x) < 1e-8);
        if (seed % 2 == 0) CHECK(outcome.mixing == 0.0);  // strictly feasible starts are kept
        if (seed % 10 == 0) {                             // deterministic: a fresh solver gives the same bits
            std::vector<double> again = instance.start;
            AnalyticCentre().solve(instance.problem, again);
            CHECK(again == x);
        }
        most_steps = std::max(most_steps, outcome.newton_steps);
    }
    CHECK(most_steps <= 60);
}

TEST_CASE("analytic centre: identical jobs as one job with a multiplicity", "[unit][lp]") {
    AnalyticCentre centre;
    // The 3 jobs on W = 1 of "binding capacity couples the jobs" as one job standing for 3:
    // 3·[log x + log(1 − x)] + log(1 − 3x), the same x = (3 − √2)/7.
    {
        CentreProblem p = make_problem(1, {1.0}, {1});
        p.multiplicity = {3};
        std::vector<double> x{0.1};
        REQUIRE(centre.solve(p, x).ok());
        CHECK(x[0] == tight((3 - std::sqrt(2.0)) / 7));
    }
    // Random instances with floors: job m repeated k_m = 1..4 times (each copy on its own row)
    // against one job of multiplicity k_m; and multiplicity 1 everywhere is bit for bit no multiplicity.
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        INFO("seed " << seed);
        std::mt19937_64 rng(5000 + seed);
        std::uniform_real_distribution<double> unit(0.0, 1.0);
        RandomInstance instance = random_instance(rng, 8, 3, false);
        CentreProblem classes = instance.problem;
        const std::size_t T = classes.types, jobs = classes.jobs;
        classes.multiplicity.clear();
        for (std::size_t m = 0; m < jobs; ++m) classes.multiplicity.push_back(static_cast<double>(1 + rng() % 4));
        CentreProblem full;
        full.types = T;
        std::vector<double> full_start, owner;
        for (std::size_t m = 0; m < jobs; ++m)
            for (int copy = 0; copy < static_cast<int>(classes.multiplicity[m]); ++copy) {
                full.gang.push_back(classes.gang[m]);
                full.floor_rhs.push_back(classes.floor_rhs[m]);
                owner.push_back(static_cast<double>(m));
                // Copies start apart (each inside its rows; a floor's copies start together, on its feasible side).
                const double shrink = classes.has_floor(m) ? 1.0 : 0.5 + 0.5 * unit(rng);
                for (std::size_t t = 0; t < T; ++t) {
                    full.allowed.push_back(classes.allowed[m * T + t]);
                    full.floor_coeff.push_back(classes.floor_coeff[m * T + t]);
                    full_start.push_back(instance.start[m * T + t] * (copy == 0 ? 1.0 : shrink));
                }
            }
        full.jobs = owner.size();
        // Room for k_m copies of the start (random_instance leaves it for one); the shrunk copies use less.
        for (std::size_t t = 0; t < T; ++t) {
            double usage = 0.0;
            for (std::size_t m = 0; m < jobs; ++m)
                usage += classes.multiplicity[m] * classes.gang[m] * instance.start[m * T + t];
            classes.capacity[t] = std::max(classes.capacity[t], usage + 0.05);
        }
        full.capacity = classes.capacity;
        std::vector<double> x_full = full_start, x_classes = instance.start;
        REQUIRE(centre.solve(full, x_full).ok());
        const auto class_outcome = centre.solve(classes, x_classes);
        INFO("classes: " << to_string(class_outcome.status) << " after " << class_outcome.newton_steps);
        REQUIRE(class_outcome.ok());
        for (std::size_t k = 0; k < full.jobs; ++k)
            for (std::size_t t = 0; t < T; ++t)
                CHECK(x_full[k * T + t] ==
                      Approx(x_classes[static_cast<std::size_t>(owner[k]) * T + t]).epsilon(1e-8).margin(1e-12));
        CHECK(kkt_residual(full, x_full) < 1e-8);

        CentreProblem ones = instance.problem;
        ones.multiplicity.assign(jobs, 1.0);
        std::vector<double> x_plain = instance.start, x_ones = instance.start;
        centre.solve(instance.problem, x_plain);
        centre.solve(ones, x_ones);
        CHECK(x_ones == x_plain);
    }
    CentreProblem bad = make_problem(1, {1.0}, {1});
    bad.multiplicity = {0.5};
    std::vector<double> x{0.1};
    CHECK_THROWS_AS(centre.solve(bad, x), InternalError);
}

TEST_CASE("analytic centre: the Woodbury step equals a dense solve", "[unit][lp]") {
    AnalyticCentre centre;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        INFO("seed " << seed);
        std::mt19937_64 rng(1000 + seed);
        RandomInstance instance = random_instance(rng, 6, 1 + seed % 8, false);
        if (seed % 5 == 0) instance.problem.capacity[0] = no_capacity;
        std::vector<double> gradient, step;
        const double decrement = centre.newton_direction(instance.problem, instance.start, gradient, step);
        const std::vector<double> dense = dense_step(instance.problem, instance.start, gradient);
        double largest = 0.0, difference = 0.0, dense_decrement = 0.0;
        for (std::size_t i = 0; i < dense.size(); ++i) {
            largest = std::max(largest, std::abs(dense[i]));
            difference = std::max(difference, std::abs(dense[i] - step[i]));
            dense_decrement += gradient[i] * dense[i];
        }
        if (largest == 0) {  // every entry fixed at 0 (no allowed type): nothing to step
            CHECK(difference == 0.0);
            continue;
        }
        CHECK(difference / largest < 1e-10);
        CHECK(decrement == Approx(dense_decrement).epsilon(1e-10));
    }
}

TEST_CASE("dense cholesky: four rows at a time gives a row at a time's bits, and solves", "[unit][lp]") {
    // cholesky_factor works four rows at a time; each entry must still be summed in one row's order, so the
    // factor is bit for bit the plain loop's (the centres' results, and so the reference runs, depend on it).
    std::mt19937_64 rng(77);
    std::uniform_real_distribution<double> entry(-1.0, 1.0);
    for (std::size_t n = 1; n <= 13; ++n) {
        INFO("n " << n);
        const std::size_t stride = n + 2;  // a slot wider than the matrix, as the centres' buffers are
        std::vector<double> b(n * n), a(n * stride, 0.0);
        for (double& v : b) v = entry(rng);
        for (std::size_t i = 0; i < n; ++i)  // A = B·B^T + I: symmetric positive definite
            for (std::size_t j = 0; j < n; ++j) {
                double v = i == j ? 1.0 : 0.0;
                for (std::size_t k = 0; k < n; ++k) v += b[i * n + k] * b[j * n + k];
                a[i * stride + j] = v;
            }
        std::vector<double> plain = a;  // the plain loop, one row at a time
        for (std::size_t j = 0; j < n; ++j) {
            double diagonal = plain[j * stride + j];
            for (std::size_t k = 0; k < j; ++k) diagonal -= plain[j * stride + k] * plain[j * stride + k];
            const double pivot = std::sqrt(diagonal);
            plain[j * stride + j] = pivot;
            for (std::size_t i = j + 1; i < n; ++i) {
                double value = plain[i * stride + j];
                for (std::size_t k = 0; k < j; ++k) value -= plain[i * stride + k] * plain[j * stride + k];
                plain[i * stride + j] = value / pivot;
            }
        }
        std::vector<double> factor = a;
        REQUIRE(cholesky_factor(factor.data(), n, stride));
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) CHECK(factor[i * stride + j] == plain[i * stride + j]);
        // And it solves: A·x = r for a known x.
        std::vector<double> x(n), r(n, 0.0);
        for (double& v : x) v = entry(rng);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) r[i] += a[std::max(i, j) * stride + std::min(i, j)] * x[j];
        cholesky_solve(factor.data(), n, stride, r.data());
        for (std::size_t i = 0; i < n; ++i) CHECK(r[i] == Approx(x[i]).margin(1e-10));
    }
    // Not positive definite: refused.
    std::vector<double> indefinite = {1.0, 0.0, 2.0, 1.0};  // lower triangle of [[1, 2], [2, 1]]
    CHECK_FALSE(cholesky_factor(indefinite.data(), 2, 2));
}

TEST_CASE("analytic centre: a vertex start is mixed into the interior", "[unit][lp]") {
    AnalyticCentre centre;
    // (1, 0) on {x >= 0, x1 + x2 <= 1}: x2 and u are 0 there and 1/3 at p = (1/3, 1/3); no floor bounds θ from
    // above, so θ = (0 + 1)/2 = 1/2, the start becomes (2/3, 1/6), and Newton goes on to (1/3, 1/3).
    {
        const CentreProblem p = make_problem(1, {no_capacity, no_capacity}, {1});
        std::vector<double> x{1.0, 0.0};
        const auto outcome = centre.solve(p, x);
        REQUIRE(outcome.ok());
        CHECK(outcome.mixing == 0.5);
        CHECK(x[0] == tight(1.0 / 3));
        CHECK(x[1] == tight(1.0 / 3));
    }
    // The max-min LP's vertex (tests/policies/lp/test_lp.cpp): W = {1, 1}, c_1 = {4/3, 2/3}, c_2 = {1, 1}, z* = 1, X =
    // [[1, 0], [0, 1]]. Floors a = c, b = z*·(1 − 1e-6). p = min(1/3, W_t/(2·G_t) = 1/4) = 1/4 everywhere violates both
    // floors, which bound θ from above: job 2's slack 1e-6 against p's −1/2 gives θ ≈ 1e-6. Job 2 stays within
    // 1e-6 of x_21 + x_22 = 1 on the whole face, so job 1 has about one
    // unit of time left over the two types and needs 4/3·x_11 + 2/3·x_12 >= 1: x_11 >= 1/2 on the face. The
    // centre spreads job 1 over both types where the vertex put it on type 0 alone.
    {
        const std::vector<MaxMinJob> jobs{{1, 1.0, {2, 1}}, {1, 1.0, {1, 1}}};
        const MaxMinShare lp = solve_max_min_share(jobs, {1, 1}, ThroughputMode::Measured);
        REQUIRE(lp.z == Approx(1).margin(1e-9));
        CentreProblem p = make_problem(2, {1.0, 1.0}, {1, 1});
        p.floor_coeff = {4.0 / 3, 2.0 / 3, 1.0, 1.0};
        p.floor_rhs = {lp.z * (1 - 1e-6), lp.z * (1 - 1e-6)};
        std::vector<double> x = lp.fractions;
        const auto outcome = centre.solve(p, x);
        REQUIRE(outcome.ok());
        CHECK(outcome.mixing > 0.0);
        CHECK(outcome.mixing < 1e-5);
        CHECK(strictly_inside(p, x));
        CHECK(kkt_residual(p, x) < 1e-8);
        CHECK(x[0] > 0.5);
        CHECK(x[0] < 0.99);
        CHECK(x[1] > 0.01);
        CHECK(x[2] + x[3] > 1 - 1e-6);
    }
}

TEST_CASE("analytic centre: no strictly feasible point leaves the input unchanged", "[unit][lp]") {
    AnalyticCentre centre;
    // Floor x >= 1 with x < 1 from Σ_t x <= 1: the set is the single point x = 1.
    {
        CentreProblem p = make_problem(1, {no_capacity}, {1});
        p.floor_coeff = {1.0};
        p.floor_rhs = {1.0};
        std::vector<double> x{1.0};
        const auto outcome = centre.solve(p, x);
        CHECK(outcome.status == CentreStatus::NoInterior);
        CHECK(!outcome.ok());
        CHECK(x == std::vector<double>{1.0});
    }
    // W = 0 on a type a job may use: x_{m,t} > 0 is impossible.
    {
        const CentreProblem p = make_problem(1, {0.0, 1.0}, {1});
        std::vector<double> x{0.0, 0.5};
        CHECK(centre.solve(p, x).status == CentreStatus::NoInterior);
        CHECK(x == std::vector<double>{0.0, 0.5});
    }
    // Malformed input is our bug.
    {
        CentreProblem p = make_problem(1, {1.0}, {0});
        std::vector<double> x{0.5};
        CHECK_THROWS_AS(centre.solve(p, x), InternalError);
        p.gang = {1};
        std::vector<double> wrong_size{0.5, 0.5};
        CHECK_THROWS_AS(centre.solve(p, wrong_size), InternalError);
    }
}

namespace {

/// The block problem as sparse rows (RowCentre's form): variables the allowed entries in job-major order; per job
/// its share row and (if any) its floor row; per finite type its capacity row. Plain floor weights only.
RowCentreProblem as_rows(const CentreProblem& p, std::vector<std::int64_t>& variable_of) {
    variable_of.assign(p.jobs * p.types, -1);
    std::size_t n = 0;
    for (std::size_t e = 0; e < p.jobs * p.types; ++e)
        if (p.allowed[e]) variable_of[e] = static_cast<std::int64_t>(n++);
    RowCentreProblem rows;
    rows.clear(n);
    for (std::size_t m = 0; m < p.jobs; ++m) {
        for (std::size_t t = 0; t < p.types; ++t)
            if (variable_of[m * p.types + t] >= 0)
                rows.add(static_cast<std::uint32_t>(variable_of[m * p.types + t]), -1);
        rows.end_row(1);
        if (!p.has_floor(m)) continue;
        for (std::size_t t = 0; t < p.types; ++t)
            if (variable_of[m * p.types + t] >= 0)
                rows.add(static_cast<std::uint32_t>(variable_of[m * p.types + t]), p.floor_coeff[m * p.types + t]);
        rows.end_row(-p.floor_rhs[m]);
    }
    for (std::size_t t = 0; t < p.types; ++t) {
        if (!std::isfinite(p.capacity[t])) continue;
        for (std::size_t m = 0; m < p.jobs; ++m)
            if (variable_of[m * p.types + t] >= 0)
                rows.add(static_cast<std::uint32_t>(variable_of[m * p.types + t]), -p.gang[m]);
        rows.end_row(p.capacity[t]);
    }
    return rows;
}

}  // namespace

TEST_CASE("row centre: centres worked by hand, with a floor the reference violates", "[unit][lp]") {
    RowCentre centre;
    // max log x1 + log x2 + log(1 − x1 − x2): by symmetry 1/x = 1/(1 − 2x), x = 1/3. Start at the vertex (1, 0).
    RowCentreProblem share;
    share.clear(2);
    share.add(0, -1);
    share.add(1, -1);
    share.end_row(1);
    std::vector<double> x{1, 0};
    auto outcome = centre.solve(share, {0.25, 0.25}, x);
    REQUIRE(outcome.interior);
    CHECK(outcome.converged);
    CHECK(x[0] == tight(1.0 / 3));
    CHECK(x[1] == tight(1.0 / 3));
    // Add the floor 2·x1 − 1 >= 0, which the reference (0.25, 0.25) violates. ∂/∂x2: x2 = (1 − x1)/2; then
    // 1/x1 − 2/(1 − x1) + 2/(2·x1 − 1) = 0, i.e. 8·x1² − 7·x1 + 1 = 0: x1 = (7 + √17)/16 (the root above 1/2).
    RowCentreProblem floored = share;
    floored.add(0, 2);
    floored.end_row(-1);
    x = {1, 0};
    outcome = centre.solve(floored, {0.25, 0.25}, x);
    REQUIRE(outcome.interior);
    CHECK(outcome.converged);
    CHECK(x[0] == tight((7 + std::sqrt(17.0)) / 16));
    CHECK(x[1] == tight((9 - std::sqrt(17.0)) / 32));
    // A start that does not satisfy the violated floor strictly: no interior found, x unchanged.
    x = {0.5, 0.5};
    CHECK_FALSE(centre.solve(floored, {0.25, 0.25}, x).interior);
    CHECK(x == std::vector<double>{0.5, 0.5});
}

TEST_CASE("row centre: the same centre as the block solver on 100 random instances", "[unit][lp]") {
    AnalyticCentre block;
    RowCentre rows;
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
        INFO("seed " << seed);
        std::mt19937_64 rng(seed);
        RandomInstance instance = random_instance(rng, 30, 3, seed % 2 == 1);
        std::vector<double> expected = instance.start;
        REQUIRE(block.solve(instance.problem, expected).ok());
        std::vector<std::int64_t> variable_of;
        const RowCentreProblem problem = as_rows(instance.problem, variable_of);
        // Reference: AnalyticCentre's, min(1/(k_m + 1), W_t/(2·G_t)) on the allowed entries.
        const CentreProblem& p = instance.problem;
        std::vector<double> gang_total(p.types, 0.0), x(problem.variables), reference(problem.variables);
        for (std::size_t m = 0; m < p.jobs; ++m)
            for (std::size_t t = 0; t < p.types; ++t)
                if (p.allowed[m * p.types + t]) gang_total[t] += p.gang[m];
        for (std::size_t m = 0; m < p.jobs; ++m) {
            double allowed = 0;
            for (std::size_t t = 0; t < p.types; ++t) allowed += p.allowed[m * p.types + t];
            for (std::size_t t = 0; t < p.types; ++t)
                if (const auto v = variable_of[m * p.types + t]; v >= 0) {
                    x[v] = instance.start[m * p.types + t];
                    reference[v] = std::min(1 / (allowed + 1), p.capacity[t] / (2 * gang_total[t]));
                }
        }
        const auto outcome = rows.solve(problem, reference, x);
        REQUIRE(outcome.interior);
        CHECK(outcome.converged);
        for (std::size_t e = 0; e < p.jobs * p.types; ++e)
            if (variable_of[e] >= 0) CHECK(x[variable_of[e]] == Approx(expected[e]).epsilon(1e-7).margin(1e-10));
    }
}

}  // namespace dlsim::test::analytic_centre_tests
