// The persistent allocation LP (policies/rounds/share_lp.hpp: Gavel's objectives, Narayanan et al., OSDI
// 2020, github.com/stanford-futuredata/gavel scheduler/policies/; policies/rounds/README.md) against optima
// worked by hand, its warm re-solves against cold solves of the same instances, and LinearProgram's row/column
// deletion.
//
// Two instances recur (W = GPUs per type, g = gang, T = aggregate iterations/s of the job on g GPUs of the type):
//   "2x2": W = {1, 1}; A: g 1, T {2, 1}; B: g 2, T {1, 1}. Capacity rows: a_t + 2·b_t <= 1.
//   "3x3": W = {1, 1, 1}; A: g 1, T {2, 0, 0}; B: g 1, T {1, 2, 0}; C: g 2, T {1, 1, 1}.
// Several objectives reduce on them to one max-min LP, solved once here:
//   2x2, maximize min(4/3·a_0 + 2/3·a_1, 2·(b_0 + b_1)). B's value is 2·(b_0 + b_1) <= (1 − a_0) + (1 − a_1): each
//   GPU-unit A takes costs B one unit, and A gains 4/3 per unit on type 0 against 2/3 on type 1, so a_1 = 0 and
//   4/3·a_0 = 2 − a_0: a_0 = 6/7, level 8/7. Both capacity rows are tight (spare capacity would raise B):
//   b_0 = (1 − 6/7)/2 = 1/14, b_1 = 1/2. X = A {6/7, 0}, B {1/14, 1/2}, unique.
//   3x3, maximize min(3·a_0, b_0 + 2·b_1, 2·(c_0 + c_1 + c_2)). C's value is the GPUs it holds (2 per unit of time
//   on 2 GPUs), at most 1 from type 2 (2·c_2 <= 1), which nobody else can use. At level z, A needs z/3 GPUs of
//   type 0, B at least z/2 (all on type 1, 2 per GPU; on type 0 it gets 1 per GPU), C z − 1 more from types 0, 1:
//   z/3 + z/2 + z − 1 <= 2 gives z* = 18/11, with a_0 = 6/11, b_1 = 9/11, c_2 = 1/2, and C's 7/11 GPUs split by
//   the capacity left: type 1 has 2/11 (c_1 = 1/11), type 0 has 5/11 (c_0 = 5/22). Every GPU is used and each job
//   at its cheapest, so X is unique: A {6/11, 0, 0}, B {0, 9/11, 0}, C {5/22, 1/11, 1/2}.
#include "models/base/input_error.hpp"
#include "policies/lp/analytic_centre.hpp"
#include "policies/lp/linear_program.hpp"
#include "policies/rounds/share_lp.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace dlsim;

namespace dlsim::test::share_lp_tests {

namespace {

constexpr double inf = LinearProgram::infinity;

struct JobSpec {
    int gang;
    std::vector<double> throughputs;
    double remaining = 1000;
    double age = 0;
    double weight = 1;
};

ShareInput make_input(std::vector<double> capacities, const std::vector<JobSpec>& jobs, std::uint32_t first_key = 1) {
    ShareInput input;
    input.capacities = std::move(capacities);
    std::uint32_t key = first_key;
    for (const JobSpec& spec : jobs) {
        input.jobs.push_back({key++, spec.gang, spec.weight, spec.remaining, spec.age});
        input.throughputs.insert(input.throughputs.end(), spec.throughputs.begin(), spec.throughputs.end());
    }
    return input;
}

ShareOptions options_for(ShareObjective objective, ThroughputView view = ThroughputView::Aware) {
    ShareOptions options;
    options.objective = objective;
    options.view = view;
    options.ftf_relative_tolerance = 1e-11;  // so that ρ* and X are pinned to 1e-9 and 1e-6
    return options;
}

// (B) within 1e-9, and x = 0 where T = 0.
void check_feasible(const ShareInput& input, const ShareResult& result) {
    const std::size_t types = input.types();
    REQUIRE(result.x.size() == input.jobs.size() * types);
    std::vector<double> used(types, 0.0);
    for (std::size_t i = 0; i < input.jobs.size(); ++i) {
        double share = 0;
        for (std::size_t t = 0; t < types; ++t) {
            const double x = result.fraction(i, t);
            REQUIRE(std::isfinite(x));
            REQUIRE(x >= 0);
            if (input.throughput(i, t) <= 0) REQUIRE(x == 0);
            share += x;
            used[t] += input.jobs[i].gang * x;
        }
        REQUIRE(share <= 1 + 1e-9);
    }
    for (std::size_t t = 0; t < types; ++t) REQUIRE(used[t] <= input.capacities[t] + 1e-9);
}

void check_x(const ShareResult& result, const std::vector<std::vector<double>>& expected) {
    for (std::size_t i = 0; i < expected.size(); ++i)
        for (std::size_t t = 0; t < expected[i].size(); ++t) {
            INFO("job " << i << " type " << t);
            CHECK(result.fraction(i, t) == Approx(expected[i][t]).margin(1e-6));
        }
}

Approx exact(double value) { return Approx(value).epsilon(1e-9).margin(1e-12); }

const std::vector<JobSpec> two_by_two{{1, {2, 1}}, {2, {1, 1}}};
const std::vector<JobSpec> three_by_three{{1, {2, 0, 0}}, {1, {1, 2, 0}}, {2, {1, 1, 1}}};
const std::vector<std::vector<double>> two_by_two_x{{6.0 / 7, 0}, {1.0 / 14, 0.5}};
const std::vector<std::vector<double>> three_by_three_x{{6.0 / 11, 0, 0}, {0, 9.0 / 11, 0}, {5.0 / 22, 1.0 / 11, 0.5}};

}  // namespace

TEST_CASE("linear program: deleting rows and columns keeps a warm basis", "[lp]") {
    // maximize 3x + 2y + z  s.t.  x + y + z <= 4 (r0),  x + 3y <= 6 (r1),  z <= 1 (r2),  x <= 3, y, z >= 0.
    // Without z this is test_lp.cpp's (3, 1), 11; z = 0 there since r0 is tight and x, y are worth more: 11.
    // With z: r0 binds, z costs 1 of r0 for 1, y costs 1 for 2 → z = 0 still; 11.
    LinearProgram lp(LpSense::Maximize);
    const int x = lp.add_column(0, 3, 3);
    const int y = lp.add_column(0, inf, 2);
    const int z = lp.add_column(0, inf, 1);
    const std::vector<LpTerm> r0{{x, 1}, {y, 1}, {z, 1}};
    const std::vector<LpTerm> r1{{x, 1}, {y, 3}};
    const std::vector<LpTerm> r2{{z, 1}};
    lp.add_row(-inf, 4, r0);
    lp.add_row(-inf, 6, r1);
    lp.add_row(-inf, 1, r2);
    REQUIRE(lp.solve() == LpStatus::Optimal);
    CHECK(lp.objective_value() == exact(11));
    CHECK(lp.last_cold());

    // Delete y (basic at 1) and r1: maximize 3x + z, x + z <= 4, z <= 1, x <= 3: (3, 1), 10. Warm, and the basis
    // survives (the basic y was pivoted out before GLPK removed it).
    const std::vector<int> rows{1};
    const std::vector<int> columns{y};
    lp.delete_rows_and_columns(rows, columns);
    CHECK(lp.rows() == 2);
    CHECK(lp.columns() == 2);
    REQUIRE(lp.solve() == LpStatus::Optimal);
    CHECK_FALSE(lp.last_cold());
    CHECK(lp.objective_value() == exact(10));
    CHECK(lp.column_value(0) == exact(3));
    CHECK(lp.column_value(1) == exact(1));  // z is column 1 now

    // Delete the row z <= 1 alone: z takes r0's remaining 1 anyway (x <= 3): still 10. Then r0 set whole to
    // 2x + z <= 4, the only row left: vertices (0, 0) 0, (2, 0) 6, (0, 4) 4 (x <= 3 does not bind): (2, 0), 6.
    const std::vector<int> last_row{1};
    lp.delete_rows(last_row);
    REQUIRE(lp.solve() == LpStatus::Optimal);
    CHECK(lp.objective_value() == exact(10));
    const std::vector<LpTerm> doubled{{0, 2}, {1, 1}};
    lp.set_row_terms(0, doubled);
    REQUIRE(lp.solve() == LpStatus::Optimal);
    CHECK(lp.objective_value() == exact(6));
    // And a column set whole: z's coefficient in r0 becomes 0.5 → (0, 8) is worth 8 > 6: 8.
    const std::vector<LpTerm> half{{0, 0.5}};
    lp.set_column_terms(1, half);
    REQUIRE(lp.solve() == LpStatus::Optimal);
    CHECK(lp.objective_value() == exact(8));

    const std::vector<int> twice{0, 0};
    CHECK_THROWS_AS(lp.delete_columns(twice), InternalError);
    const std::vector<int> outside{5};
    CHECK_THROWS_AS(lp.delete_rows(outside), InternalError);
    const std::vector<LpTerm> bad{{7, 1.0}};
    CHECK_THROWS_AS(lp.set_row_terms(0, bad), InternalError);
}

TEST_CASE("linear program: dual simplex re-solves bound changes and reports infeasibility", "[lp]") {
    // maximize x + y s.t. x + 2y <= 4, 3x + y <= 6, x, y in [0, 10]: (8/5, 6/5), 14/5. Then x + y >= 3 is
    // infeasible (14/5 is the most); then x + 2y <= 2 → vertices (2, 0) 2, (0, 1) 1, … 3x + y <= 6 at (2, 0): 2.
    LinearProgram lp(LpSense::Maximize);
    lp.set_method(LpMethod::DualPrimal);
    const int x = lp.add_column(0, 10, 1);
    const int y = lp.add_column(0, 10, 1);
    const std::vector<LpTerm> a{{x, 1}, {y, 2}};
    const std::vector<LpTerm> b{{x, 3}, {y, 1}};
    const std::vector<LpTerm> sum{{x, 1}, {y, 1}};
    const int first = lp.add_row(-inf, 4, a);
    lp.add_row(-inf, 6, b);
    const int total = lp.add_row(-inf, inf, sum);
    REQUIRE(lp.solve() == LpStatus::Optimal);
    CHECK(lp.objective_value() == exact(14.0 / 5));
    lp.set_row_bounds(total, 3, inf);
    CHECK(lp.solve() == LpStatus::Infeasible);
    lp.set_row_bounds(total, -inf, inf);
    lp.set_row_bounds(first, -inf, 2);
    REQUIRE(lp.solve() == LpStatus::Optimal);
    CHECK_FALSE(lp.last_cold());
    CHECK(lp.objective_value() == exact(2));
}

TEST_CASE("linear program: basis snapshots and the capped dual simplex first", "[lp]") {
    // maximize x + y s.t. x + 2y <= 4, 3x + y <= 6, x, y in [0, 10]: (8/5, 6/5), 14/5 with both rows tight.
    LinearProgram lp(LpSense::Maximize);
    const int x = lp.add_column(0, 10, 1);
    const int y = lp.add_column(0, 10, 1);
    const std::vector<LpTerm> a{{x, 1}, {y, 2}};
    const std::vector<LpTerm> b{{x, 3}, {y, 1}};
    lp.add_row(-inf, 4, a);
    lp.add_row(-inf, 6, b);
    REQUIRE(lp.solve() == LpStatus::Optimal);
    LinearProgram::BasisSnapshot optimum;
    lp.save_basis(optimum);
    CHECK(lp.column_basic(x));
    CHECK(lp.column_basic(y));
    CHECK_FALSE(lp.row_basic(0));

    // Another objective moves the basis (max x: (2, 0), row 0 slack); restoring puts the first optimum back,
    // and with the first objective it re-solves in no pivot.
    lp.set_objective(y, 0);
    REQUIRE(lp.solve() == LpStatus::Optimal);
    CHECK(lp.objective_value() == exact(2));
    CHECK(lp.row_basic(0));
    REQUIRE(lp.restore_basis(optimum));
    CHECK_FALSE(lp.row_basic(0));
    lp.set_objective(y, 1);
    lp.set_method(LpMethod::DualFirst);
    REQUIRE(lp.solve() == LpStatus::Optimal);
    CHECK(lp.last_iterations() == 0);
    CHECK(lp.objective_value() == exact(14.0 / 5));

    // A new row x + y <= 2 cuts the optimum off; the basis stays dual feasible and the dual simplex reaches
    // the new optimum 2 (e.g. (2, 0)) without a cold start.
    const std::vector<LpTerm> sum{{x, 1}, {y, 1}};
    const int cut = lp.add_row(-inf, 2, sum);
    REQUIRE(lp.solve() == LpStatus::Optimal);
    CHECK_FALSE(lp.last_cold());
    CHECK(lp.objective_value() == exact(2));

    // From a basis that is not dual feasible (objective now favours y, optimum (0, 2) = 4 on 2y), a dual
    // simplex capped at one pivot cannot finish: the primal simplex from the same start does, same optimum.
    lp.set_objective(x, 0);
    lp.set_objective(y, 2);
    lp.set_row_bounds(cut, -inf, 3);
    lp.set_dual_pivot_cap(1);
    REQUIRE(lp.solve() == LpStatus::Optimal);
    CHECK(lp.objective_value() == exact(4));
    CHECK(lp.column_value(y) == exact(2));

    // solve_expecting_optimum: a warm solve that ends without an optimum is tried again cold; an LP that is
    // really infeasible (x + y >= 7 > 3) stays so, and the answer says the retry was cold.
    lp.set_row_bounds(cut, 7, inf);
    CHECK(lp.solve_expecting_optimum() == LpStatus::Infeasible);
    CHECK(lp.last_cold());
    lp.set_row_bounds(cut, -inf, 3);
    REQUIRE(lp.solve_expecting_optimum() == LpStatus::Optimal);
    CHECK_FALSE(lp.last_cold());
    CHECK(lp.objective_value() == exact(4));

    // A snapshot of another shape is refused and changes nothing.
    LinearProgram::BasisSnapshot empty;
    CHECK_FALSE(lp.restore_basis(empty));
    CHECK_FALSE(lp.restore_basis(optimum));  // taken with two rows; the program has three
    CHECK(lp.solve() == LpStatus::Optimal);
    CHECK(lp.last_iterations() == 0);
}

TEST_CASE("allocation lp: max-min fairness by hand", "[lp]") {
    SECTION("2x2: z* = 8/7") {
        // T^prop_A = (2 + 1)/2 = 3/2, c_A = {4/3, 2/3}; T^prop_B = 1, c_B = 2·{1, 1}: the 2x2 LP of the header.
        ShareLp lp(options_for(ShareObjective::MaxMinFairness));
        const ShareInput input = make_input({1, 1}, two_by_two);
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(8.0 / 7));
        check_x(r, two_by_two_x);
        CHECK(r.lp_solves == 1);  // the optimum is unique: phase 1's vertex needs no phase 2
        CHECK(r.cold);
    }
    SECTION("3x3: z* = 18/11") {
        // T^prop_A = 2/3: c_A = {3, 0, 0}; T^prop_B = 1: c_B = {1, 2, 0}; T^prop_C = 1, g = 2: c_C = {2, 2, 2}.
        ShareLp lp(options_for(ShareObjective::MaxMinFairness));
        const ShareInput input = make_input({1, 1, 1}, three_by_three);
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(18.0 / 11));
        check_x(r, three_by_three_x);
    }
    SECTION("weights: w_B = 2 halves B's coefficients") {
        // 2x2 with w_B = 2: maximize min(4/3·a_0 + 2/3·a_1, (b_0 + b_1)) with B's value (2 − a_0 − a_1)/2; a_1 = 0,
        // 4/3·a_0 = 1 − a_0/2: a_0 = 6/11, z* = 8/11; b_0 = (1 − 6/11)/2 = 5/22, b_1 = 1/2.
        ShareLp lp(options_for(ShareObjective::MaxMinFairness));
        std::vector<JobSpec> jobs = two_by_two;
        jobs[1].weight = 2;
        const ShareInput input = make_input({1, 1}, jobs);
        const ShareResult& r = lp.solve(input);
        CHECK(r.objective == exact(8.0 / 11));
        check_x(r, {{6.0 / 11, 0}, {5.0 / 22, 0.5}});
    }
}

TEST_CASE("allocation lp: agnostic max-min fairness and the spread", "[lp]") {
    SECTION("2x2: equal GPU-time, spread by W") {
        // T ≡ 1: z <= s_A, z <= 2·s_B, s_A + 2·s_B <= 2 (the capacity rows summed): z* = 1 with s_A = 1,
        // s_B = 1/2 (any other point at z = 1 needs more than 2 GPUs). Spread by W = {1, 1}: A {1/2, 1/2},
        // B {1/4, 1/4}; each type holds 1/2 + 2/4 = 1.
        ShareLp lp(options_for(ShareObjective::MaxMinFairness, ThroughputView::Agnostic));
        const ShareInput input = make_input({1, 1}, two_by_two);
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(1));
        check_x(r, {{0.5, 0.5}, {0.25, 0.25}});
    }
    SECTION("3x3 with weights: unique shares") {
        // W = {1, 1, 2}; g = {1, 2, 4}, w = {1, 1, 2}, every job runs everywhere: z <= s_A, z <= 2·s_B,
        // z <= 4·s_C/2, Σ g·s = s_A + 2·s_B + 4·s_C <= 4, s_A <= 1. z* = 1 (A's share), and z = 1 needs
        // s_A = 1, s_B = s_C = 1/2: 1 + 1 + 2 = 4 GPUs, all of them, so the shares are unique. Spread by W/4:
        // A {1/4, 1/4, 1/2}, B {1/8, 1/8, 1/4}, C {1/8, 1/8, 1/4}; type 0 holds 1/4 + 2/8 + 4/8 = 1.
        ShareLp lp(options_for(ShareObjective::MaxMinFairness, ThroughputView::Agnostic));
        const ShareInput input =
            make_input({1, 1, 2}, {{1, {3, 2, 1}}, {2, {1, 5, 2}, 1000, 0, 1}, {4, {2, 2, 7}, 1000, 0, 2}});
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(1));
        check_x(r, {{0.25, 0.25, 0.5}, {0.125, 0.125, 0.25}, {0.125, 0.125, 0.25}});
    }
    SECTION("a job that cannot use a type keeps the LP's x; the others fill what it leaves") {
        // W = {1, 1}; A runs on type 0 only, B on both. T' = 1 where T > 0: T^prop_A = 1/2, c_A = {2, 0};
        // c_B = {1, 1}. z* = 1 (B's share), phase 2 maximizes 2·a_0 + b_0 + b_1: a_0 = 1, b_1 = 1, b_0 = 0.
        // B is spread over the capacity A leaves, {0, 1}: B {0, 1}. Spreading B by W ({1/2, 1/2}) would put
        // 1.5 GPUs on type 0.
        ShareLp lp(options_for(ShareObjective::MaxMinFairness, ThroughputView::Agnostic));
        const ShareInput input = make_input({1, 1}, {{1, {4, 0}}, {1, {1, 3}}});
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(1));
        check_x(r, {{1, 0}, {0, 1}});
        CHECK(r.lp_solves == 2);  // phase 1 may end anywhere on B's face: phase 2 runs
    }
    SECTION("agnostic_spread = false leaves the LP's vertex, still feasible with the same shares") {
        ShareOptions options = options_for(ShareObjective::MaxMinFairness, ThroughputView::Agnostic);
        options.agnostic_spread = false;
        ShareLp lp(options);
        const ShareInput input = make_input({1, 1}, two_by_two);
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(1));
        CHECK(r.fraction(0, 0) + r.fraction(0, 1) == Approx(1).margin(1e-6));
        CHECK(r.fraction(1, 0) + r.fraction(1, 1) == Approx(0.5).margin(1e-6));
    }
}

TEST_CASE("allocation lp: finish-time fairness by hand", "[lp]") {
    // With age = 0 and I = 0 (first call), D_m = R_m/θ^iso_m and ρ_m = θ^iso_m/θ_m: min max ρ is max min θ_m/θ^iso_m.
    SECTION("2x2: ρ* = 7/8, then I_m over a second call") {
        // M = 2. x^iso_A = (1/2)/max(1, 2/2) = 1/2 per type: θ^iso_A = 3/2. x^iso_B = (1/4)/max(1, 2/4) = 1/4 per
        // type: θ^iso_B = 1/2. θ_A/θ^iso_A = 4/3·a_0 + 2/3·a_1, θ_B/θ^iso_B = 2·(b_0 + b_1): the 2x2 LP, 8/7, so
        // ρ* = 7/8. Phase 2 maximizes Σ θ_m/θ^iso_m, the same as max-min's: X as there.
        ShareLp lp(options_for(ShareObjective::FinishTimeFairness));
        std::vector<JobSpec> jobs = two_by_two;
        jobs[0].remaining = 3000;
        jobs[1].remaining = 1000;
        ShareInput input = make_input({1, 1}, jobs);
        const ShareResult& first = lp.solve(input);
        check_feasible(input, first);
        CHECK(first.objective == exact(7.0 / 8));
        check_x(first, two_by_two_x);
        CHECK(first.lp_solves > 10);

        // 100 s later: R_A = 2700, R_B = 900. I_A = (3000 − 2700)/(3/2) = 200, I_B = (1000 − 900)/(1/2) = 200
        // (M unchanged, so θ^iso too). D_A = 200 + 2700/(3/2) = 2000, D_B = 200 + 900/(1/2) = 2000.
        // ρ_A = (100 + 2700/θ_A)/2000, ρ_B = (100 + 900/θ_B)/2000: equal when θ_A = 3·θ_B. With a_1 = 0 (A gains
        // twice as much per GPU on type 0, B the same on both), θ_A = 2·a_0, θ_B = (2 − a_0)/2: 2·a_0/3 = 1 − a_0/2,
        // a_0 = 6/7, θ_A = 12/7, θ_B = 4/7: ρ* = (100 + 2700·7/12)/2000 = 1675/2000. (With I = 0 it would be
        // 1675/1800.) X is the 2x2 X again.
        input.jobs[0].remaining = 2700;
        input.jobs[1].remaining = 900;
        input.jobs[0].age = input.jobs[1].age = 100;
        const ShareResult& second = lp.solve(input);
        check_feasible(input, second);
        CHECK(second.objective == exact(1675.0 / 2000));
        check_x(second, two_by_two_x);
        CHECK_FALSE(second.cold);

        // The elapsed denominator (Gavel's earlier code): D_A = 100 + 2700/(3/2) = 1900, D_B = 100 + 900/(1/2) =
        // 1900; the same balance θ_A = 3·θ_B, so the same X, and ρ* = 1675/1900.
        ShareOptions elapsed = options_for(ShareObjective::FinishTimeFairness);
        elapsed.ftf_elapsed_denominator = true;
        ShareLp gavel_earlier(elapsed);
        const ShareResult& by_age = gavel_earlier.solve(input);
        check_feasible(input, by_age);
        CHECK(by_age.objective == exact(1675.0 / 1900));
        check_x(by_age, two_by_two_x);
    }
    SECTION("3x3: ρ* = 11/18") {
        // M = 3: x^iso = 1/3 per type for g = 1, (1/6)/max(1, 3/6) = 1/6 for C. Counting only types a job can use:
        // θ^iso_A = 2/3, θ^iso_B = 1/3 + 2/3 = 1, θ^iso_C = 3/6 = 1/2. θ/θ^iso: 3·a_0, b_0 + 2·b_1,
        // 2·(c_0 + c_1 + c_2): the 3x3 LP, 18/11, so ρ* = 11/18, X as there.
        ShareLp lp(options_for(ShareObjective::FinishTimeFairness));
        const ShareInput input = make_input({1, 1, 1}, three_by_three);
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(11.0 / 18));
        check_x(r, three_by_three_x);
    }
    SECTION("agnostic 2x2: the reference column, ρ* = 1") {
        // T' = T_{m,0} on both types: A {2, 2}, B {1, 1}. θ^iso_A = 2, θ^iso_B = 1/2; θ_A/θ^iso_A = s_A,
        // θ_B/θ^iso_B = 2·s_B with s_A + 2·s_B <= 2: 1 at s_A = 1, s_B = 1/2 — the isolated point is optimal,
        // ρ* = 1. Spread: A {1/2, 1/2}, B {1/4, 1/4}.
        ShareLp lp(options_for(ShareObjective::FinishTimeFairness, ThroughputView::Agnostic));
        const ShareInput input = make_input({1, 1}, two_by_two);
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(1));
        check_x(r, {{0.5, 0.5}, {0.25, 0.25}});
    }
    SECTION("jobs with R = 0 are skipped; ages push ρ") {
        // 2x2 plus a finished job C (R = 0, g 1, T {1, 1}): M = 3, so x^iso_A = 1/3 per type, θ^iso_A = 1;
        // x^iso_B = (1/6)/max(1, 2/6) = 1/6, θ^iso_B = 1/3. C gets nothing. With ages 0, I = 0: maximize
        // min(θ_A/1, 3·θ_B) = min(2·a_0 + a_1, 3/2·(2 − a_0 − a_1)) at a_1 = 0: 2·a_0 = 3 − 3/2·a_0, a_0 = 6/7,
        // ratio 12/7, ρ* = 7/12. X: A {6/7, 0}, B {1/14, 1/2}, C {0, 0}.
        ShareLp lp(options_for(ShareObjective::FinishTimeFairness));
        std::vector<JobSpec> jobs = two_by_two;
        jobs.push_back({1, {1, 1}, 0});
        const ShareInput input = make_input({1, 1}, jobs);
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(7.0 / 12));
        check_x(r, {{6.0 / 7, 0}, {1.0 / 14, 0.5}, {0, 0}});
    }
}

TEST_CASE("allocation lp: makespan by hand", "[lp]") {
    SECTION("2x2 exact: T* = 700 s") {
        // R = {1200, 400}: maximize y with 2·a_0 + a_1 >= 1200·y, b_0 + b_1 >= 400·y. θ/R is the 2x2 LP's value
        // over 800 (4/3·a_0 + 2/3·a_1 = (2·a_0 + a_1)/1.5 and 2·(b_0 + b_1) = (b_0 + b_1)/0.5), so y* = (8/7)/800
        // = 1/700: T* = 700 s. Phase 2 maximizes Σ θ_m/R_m, the max-min phase 2 over 800: X as there.
        ShareLp lp(options_for(ShareObjective::Makespan));
        std::vector<JobSpec> jobs = two_by_two;
        jobs[0].remaining = 1200;
        jobs[1].remaining = 400;
        const ShareInput input = make_input({1, 1}, jobs);
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(700));
        check_x(r, two_by_two_x);
        CHECK(r.lp_solves == 2);
    }
    SECTION("3x3 exact: T* = 1100 s") {
        // R = {1200, 1800, 900} = 1800·{2/3, 1, 1/2}: θ_m/R_m = (3·a_0, b_0 + 2·b_1, 2·(c_0 + c_1 + c_2))/1800,
        // the 3x3 LP over 1800: y* = (18/11)/1800, T* = 1100 s, X as there.
        ShareLp lp(options_for(ShareObjective::Makespan));
        std::vector<JobSpec> jobs = three_by_three;
        jobs[0].remaining = 1200;
        jobs[1].remaining = 1800;
        jobs[2].remaining = 900;
        const ShareInput input = make_input({1, 1, 1}, jobs);
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(1100));
        check_x(r, three_by_three_x);
    }
    SECTION("agnostic 2x2: reference column, T* = 700 s") {
        // T' = {2, 2} and {1, 1}: 2·s_A >= 1200·y, s_B >= 400·y, s_A + 2·s_B <= 2 (capacity rows summed). Both
        // bind at the optimum: 2·s_A/1200 = s_B/400 gives s_A = 3/2·s_B, and 7/2·s_B = 2: s_B = 4/7, s_A = 6/7,
        // y* = (12/7)/1200 = 1/700.
        // Spread: A {3/7, 3/7}, B {2/7, 2/7}; each type holds 3/7 + 4/7 = 1.
        ShareLp lp(options_for(ShareObjective::Makespan, ThroughputView::Agnostic));
        std::vector<JobSpec> jobs = two_by_two;
        jobs[0].remaining = 1200;
        jobs[1].remaining = 400;
        const ShareInput input = make_input({1, 1}, jobs);
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(700));
        check_x(r, {{3.0 / 7, 3.0 / 7}, {2.0 / 7, 2.0 / 7}});
    }
    SECTION("Gavel's bisection: within 5 % above, on the grid the rule walks") {
        // Feasible ⇔ T >= 700. From [100, 1e6]: midpoints (lo + hi)/2, hi on feasible, lo otherwise, until
        // 1.05·lo >= hi. The walk, replayed by hand here in a loop over the same rule, ends at hi = 733.3…; the
        // test checks the LP agrees step for step (the LP's feasibility decides every step).
        double lo = 100, hi = 1e6;
        while (1.05 * lo < hi) {
            const double mid = (lo + hi) / 2;
            (mid >= 700 ? hi : lo) = mid;
        }
        ShareOptions options = options_for(ShareObjective::Makespan);
        options.gavel_makespan_bisection = true;
        ShareLp lp(options);
        std::vector<JobSpec> jobs = two_by_two;
        jobs[0].remaining = 1200;
        jobs[1].remaining = 400;
        const ShareInput input = make_input({1, 1}, jobs);
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(hi));
        CHECK(r.objective >= 700);
        CHECK(r.objective <= 700 * 1.05);
        // The returned X meets every job's rate at T: θ_m >= R_m/T.
        CHECK(2 * r.fraction(0, 0) + r.fraction(0, 1) >= 1200 / hi - 1e-9);
        CHECK(r.fraction(1, 0) + r.fraction(1, 1) >= 400 / hi - 1e-9);
    }
    SECTION("Gavel's bisection moves the window ×10 when nothing in it is feasible") {
        // One job, g 1, T {1}, W {1}, R = 5e6 iterations: feasible ⇔ T >= 5e6 s, beyond 1e6. The window
        // [1e3, 1e7] contains it; the result is within 5 % above 5e6.
        ShareOptions options = options_for(ShareObjective::Makespan);
        options.gavel_makespan_bisection = true;
        ShareLp lp(options);
        const ShareInput input = make_input({1}, {{1, {1}, 5e6}});
        const ShareResult& r = lp.solve(input);
        CHECK(r.objective >= 5e6);
        CHECK(r.objective <= 5e6 * 1.05);
        CHECK(r.fraction(0, 0) >= 5e6 / r.objective - 1e-9);
    }
}

TEST_CASE("allocation lp: max throughput by hand", "[lp]") {
    SECTION("2x2 raw: 5/2") {
        // Per GPU: A 2 on type 0, 1 on type 1; B 1/2 anywhere. A takes type 0 whole (a_0 = 1, its share), B the
        // other type (b_1 = 1/2): 2 + 1/2 = 5/2, unique (type 0 is full, A's share too).
        ShareLp lp(options_for(ShareObjective::MaxThroughput));
        const ShareInput input = make_input({1, 1}, two_by_two);
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(2.5));
        check_x(r, {{1, 0}, {0, 0.5}});
        CHECK(r.lp_solves == 1);
    }
    SECTION("2x2 normalised by T^prop: 11/6") {
        // T/T^prop: A {4/3, 2/3}, B {1, 1} (1/2 per GPU). Same point: 4/3 + 1/2 = 11/6.
        ShareOptions options = options_for(ShareObjective::MaxThroughput);
        options.normalize_throughput_sum = true;
        ShareLp lp(options);
        const ShareInput input = make_input({1, 1}, two_by_two);
        const ShareResult& r = lp.solve(input);
        CHECK(r.objective == exact(11.0 / 6));
        check_x(r, {{1, 0}, {0, 0.5}});
    }
    SECTION("3x3 raw: 9/2, not the greedy 4") {
        // B {3, 2, 0} instead: B is fastest on type 0 (3 > A's 2), but B there leaves A nothing. With b_0 = β:
        // a_0 = 1 − β, b_1 = 1 − β, C takes β/2 of type 1 and 1/2 of type 2: 2(1 − β) + 3β + 2(1 − β) + β/2 + 1/2
        // = 9/2 − β/2, so β = 0: A {1, 0, 0}, B {0, 1, 0}, C {0, 0, 1/2}, 9/2 (greedy B-first gives 4).
        ShareLp lp(options_for(ShareObjective::MaxThroughput));
        std::vector<JobSpec> jobs = three_by_three;
        jobs[1].throughputs = {3, 2, 0};
        const ShareInput input = make_input({1, 1, 1}, jobs);
        const ShareResult& r = lp.solve(input);
        check_feasible(input, r);
        CHECK(r.objective == exact(4.5));
        check_x(r, {{1, 0, 0}, {0, 1, 0}, {0, 0, 0.5}});
    }
}

namespace {

// A random instance: `jobs` jobs on 3 types, gangs 1/2/4/8 w.p. .70/.10/.15/.05, throughputs in [0.5, 20]
// with a 15 % chance of 0 per type (never on all types), ages, remaining work.
struct RandomJobs {
    std::mt19937_64 rng;
    std::uint32_t next_key = 1;

    explicit RandomJobs(std::uint64_t seed) : rng(seed) {}
    double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }
    JobSpec job(std::size_t types) {
        const double u = uniform(0, 1);
        JobSpec spec{u < 0.70 ? 1 : u < 0.80 ? 2 : u < 0.95 ? 4 : 8, {}};
        bool any = false;
        for (std::size_t t = 0; t < types; ++t) {
            const double throughput = uniform(0, 1) < 0.15 ? 0.0 : uniform(0.5, 20);
            any = any || throughput > 0;
            spec.throughputs.push_back(throughput);
        }
        if (!any) spec.throughputs[0] = uniform(0.5, 20);
        spec.remaining = uniform(0, 1) < 0.05 ? 0.0 : uniform(100, 1e5);
        spec.age = uniform(0, 5000);
        spec.weight = uniform(0, 1) < 0.2 ? 5.0 : 1.0;
        return spec;
    }
};

std::vector<ShareOptions> every_variant() {
    std::vector<ShareOptions> variants;
    for (ShareObjective objective : {ShareObjective::MaxMinFairness, ShareObjective::FinishTimeFairness,
                                     ShareObjective::Makespan, ShareObjective::MaxThroughput})
        for (ThroughputView view : {ThroughputView::Aware, ThroughputView::Agnostic}) {
            ShareOptions options;
            options.objective = objective;
            options.view = view;
            variants.push_back(options);
        }
    ShareOptions bisection;
    bisection.objective = ShareObjective::Makespan;
    bisection.gavel_makespan_bisection = true;
    variants.push_back(bisection);
    ShareOptions normalised;
    normalised.objective = ShareObjective::MaxThroughput;
    normalised.normalize_throughput_sum = true;
    variants.push_back(normalised);
    return variants;
}

}  // namespace

TEST_CASE("allocation lp: every result is feasible on random instances", "[lp]") {
    // 30 seeds × 10 variants = 300 instances of 1–40 jobs on W drawn from {0, 1, …, 16} per type.
    int instances = 0;
    for (std::uint64_t seed = 1; seed <= 30; ++seed)
        for (const ShareOptions& options : every_variant()) {
            RandomJobs random(seed);
            std::vector<double> capacities;
            for (int t = 0; t < 3; ++t) capacities.push_back(std::floor(random.uniform(0, 17)));
            const auto count = static_cast<std::size_t>(random.uniform(1, 41));
            std::vector<JobSpec> jobs;
            for (std::size_t i = 0; i < count; ++i) jobs.push_back(random.job(3));
            const ShareInput input = make_input(capacities, jobs);
            ShareLp lp(options);
            INFO("seed " << seed << " objective " << to_string(options.objective));
            check_feasible(input, lp.solve(input));
            ++instances;
        }
    CHECK(instances == 300);
}

TEST_CASE("allocation lp: warm re-solves after arrivals, departures and changes match cold solves", "[lp]") {
    // One ShareLp lives across 12 calls; a second one with warm_start = false sees the same calls (same FTF
    // bookkeeping, every call from the standard basis), and for the objectives without history a fresh
    // ShareLp solves each instance once. Each call: some jobs leave, some arrive (more or fewer than left, so
    // slots are reused, appended and deleted), remaining work drops by up to 10 %, a few throughputs change.
    for (const ShareOptions& base : every_variant()) {
        ShareOptions options = base;
        options.ftf_relative_tolerance = 1e-12;
        ShareOptions cold_options = options;
        cold_options.warm_start = false;
        ShareLp warm(options);
        ShareLp cold(cold_options);
        RandomJobs random(77);
        const std::vector<double> capacities{12, 8, 16};
        std::vector<JobSpec> jobs;
        std::vector<std::uint32_t> keys;
        for (int i = 0; i < 40; ++i) {
            jobs.push_back(random.job(3));
            keys.push_back(random.next_key++);
        }
        int warm_calls = 0;
        for (int call = 0; call < 12; ++call) {
            ShareInput input;
            input.capacities = capacities;
            for (std::size_t i = 0; i < jobs.size(); ++i) {
                input.jobs.push_back({keys[i], jobs[i].gang, jobs[i].weight, jobs[i].remaining, jobs[i].age});
                input.throughputs.insert(input.throughputs.end(), jobs[i].throughputs.begin(),
                                         jobs[i].throughputs.end());
            }
            INFO("objective " << to_string(options.objective) << " agnostic "
                              << (options.view == ThroughputView::Agnostic) << " call " << call);
            const ShareResult& w = warm.solve(input);
            const ShareResult& c = cold.solve(input);
            check_feasible(input, w);
            CHECK(c.cold);
            if (!w.cold) ++warm_calls;
            CHECK(w.objective == Approx(c.objective).epsilon(1e-9));
            if (options.objective != ShareObjective::FinishTimeFairness) {
                ShareLp fresh(options);
                CHECK(w.objective == Approx(fresh.solve(input).objective).epsilon(1e-9));
            }
            // Next call: departures (3 or 7), arrivals (5), progress and a few throughput changes.
            const int leaving = call % 2 == 0 ? 3 : 7;
            for (int d = 0; d < leaving && !jobs.empty(); ++d) {
                const auto at = static_cast<std::size_t>(random.uniform(0, static_cast<double>(jobs.size())));
                jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(std::min(at, jobs.size() - 1)));
                keys.erase(keys.begin() + static_cast<std::ptrdiff_t>(std::min(at, keys.size() - 1)));
            }
            for (int a = 0; a < 5; ++a) {
                jobs.push_back(random.job(3));
                keys.push_back(random.next_key++);
            }
            for (JobSpec& job : jobs) {
                job.remaining *= random.uniform(0.9, 1.0);
                job.age += 360;
                if (random.uniform(0, 1) < 0.1)
                    for (double& throughput : job.throughputs)
                        if (throughput > 0) throughput *= random.uniform(0.8, 1.2);
            }
        }
        CHECK(warm_calls >= 9);
    }
}

TEST_CASE("allocation lp: max-min's capacity blocks stay right through mass departures and regrowth", "[lp]") {
    // Max-min counts capacity through blocks of 32 slots (share_lp.cpp, Layout). 100 jobs fill four blocks;
    // 70 leave (70 dormant slots > max(16, 100/8): they are deleted and every row and column index shifts); 90
    // arrive (the emptied blocks take them first, then new blocks); then 20 leave and 20 arrive. At each step the
    // persistent LP must reach the optimum of a fresh LP of the same jobs, and stay feasible: a slot counted in
    // the wrong row, or a block row left behind, would break one or the other.
    for (const ThroughputView view : {ThroughputView::Aware, ThroughputView::Agnostic}) {
        const ShareOptions options = options_for(ShareObjective::MaxMinFairness, view);
        ShareLp lp(options);
        RandomJobs random(2024);
        std::vector<JobSpec> jobs;
        std::vector<std::uint32_t> keys;
        const auto arrive = [&](int count) {
            for (int a = 0; a < count; ++a) {
                jobs.push_back(random.job(3));
                keys.push_back(random.next_key++);
            }
        };
        const auto leave = [&](int count) {
            for (int d = 0; d < count; ++d) {
                const auto at =
                    static_cast<std::size_t>(random.uniform(0, static_cast<double>(jobs.size()))) % jobs.size();
                jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(at));
                keys.erase(keys.begin() + static_cast<std::ptrdiff_t>(at));
            }
        };
        const auto check_step = [&](const char* step) {
            ShareInput input;
            input.capacities = {12, 8, 16};
            for (std::size_t i = 0; i < jobs.size(); ++i) {
                input.jobs.push_back({keys[i], jobs[i].gang, jobs[i].weight, jobs[i].remaining, jobs[i].age});
                const std::vector<double>& t = jobs[i].throughputs;
                input.throughputs.insert(input.throughputs.end(), t.begin(), t.end());
            }
            INFO(step << ", agnostic " << (view == ThroughputView::Agnostic) << ", " << jobs.size() << " jobs");
            const ShareResult& warm = lp.solve(input);
            check_feasible(input, warm);
            ShareLp fresh(options);
            CHECK(warm.objective == Approx(fresh.solve(input).objective).epsilon(1e-9));
        };
        arrive(100);
        check_step("100 jobs");
        leave(70);
        check_step("70 left");
        arrive(90);
        check_step("90 arrived");
        leave(20);
        arrive(20);
        check_step("20 left, 20 arrived");
    }
}

TEST_CASE("allocation lp: empty input, unservable jobs and malformed input", "[lp]") {
    ShareLp lp(options_for(ShareObjective::MaxMinFairness));
    ShareInput input = make_input({1, 1}, {});
    CHECK(lp.solve(input).objective == 0);
    CHECK(lp.solve(input).x.empty());
    // A job whose only type has no GPUs gets nothing and does not pin z* at 0: the other job gets its share 1.
    input = make_input({0, 1}, {{1, {5, 0}}, {1, {1, 1}}});
    const ShareResult& r = lp.solve(input);
    CHECK(r.objective == exact(1));
    check_x(r, {{0, 0}, {0, 1}});

    ShareInput unsorted = make_input({1}, {{1, {1}}, {1, {1}}});
    unsorted.jobs[1].key = unsorted.jobs[0].key;
    CHECK_THROWS_AS(lp.solve(unsorted), InternalError);
    ShareInput negative = make_input({1}, {{1, {-1}}});
    CHECK_THROWS_AS(lp.solve(negative), InternalError);
    ShareInput mismatched = make_input({1, 1}, {{1, {1, 1}}});
    mismatched.throughputs.pop_back();
    CHECK_THROWS_AS(lp.solve(mismatched), InternalError);
    ShareOptions agnostic = options_for(ShareObjective::FinishTimeFairness, ThroughputView::Agnostic);
    agnostic.reference_type = 4;
    ShareLp bad_reference(agnostic);
    CHECK_THROWS_AS(bad_reference.solve(make_input({1}, {{1, {1}}})), InternalError);
}

TEST_CASE("allocation lp: an unchanged max-min LP is not re-solved", "[lp]") {
    // The 2x2 max-min instance (z* = 8/7); remaining work and age do not enter max-min, so a call that changes
    // only them returns the same X without an LP. A throughput change re-solves: T_A = {2, 1} → {3, 1} gives
    // T^prop_A = 2, c_A = {3/2, 1/2}: 3/2·a_0 = 2 − a_0, a_0 = 4/5, z* = 6/5.
    ShareLp lp(options_for(ShareObjective::MaxMinFairness));
    ShareInput input = make_input({1, 1}, two_by_two);
    CHECK(lp.solve(input).lp_solves == 1);  // a unique optimum: no phase 2
    input.jobs[0].remaining = 10;
    input.jobs[1].age = 500;
    const ShareResult& same = lp.solve(input);
    CHECK(same.lp_solves == 0);
    CHECK(same.objective == exact(8.0 / 7));
    check_x(same, two_by_two_x);
    input.throughputs[0] = 3;
    const ShareResult& changed = lp.solve(input);
    CHECK(changed.lp_solves == 1);
    CHECK_FALSE(changed.cold);
    CHECK(changed.objective == exact(6.0 / 5));
    check_x(changed, {{0.8, 0}, {0.1, 0.5}});
}

TEST_CASE("allocation lp: FTF's centre is the centre of its optimal face under Gavel's barrier weights", "[lp]") {
    // Six jobs on 4 + 4 + 4 GPUs, the elapsed denominator (Gavel-compatible mode). θ^iso = Σ_t T/3 (x^iso =
    // (4/6)/max(1, 12/6) per type). F runs alike everywhere (T = 2, 2, 2): full time on any mix gives θ_F = 2 =
    // θ^iso_F, so ρ_F >= 1 and F pins ρ* = 1 (A, old and nearly done, could reach (10000 + 100/2)/D_A = 0.9965).
    // Every floor is then θ^iso_m, which six jobs meet with half the GPUs: the optimal face is wide, and the
    // tie-break decides X.
    const ShareInput input = make_input({4, 4, 4}, {{1, {2, 1, 0.5}, 100, 10000},
                                                    {1, {3, 2, 1}, 5000, 0},
                                                    {1, {1, 3, 1}, 8000, 200},
                                                    {1, {1, 1, 2}, 3000, 400},
                                                    {1, {4, 1, 1}, 6000, 100},
                                                    {1, {2, 2, 2}, 4000, 300}});
    ShareOptions options = options_for(ShareObjective::FinishTimeFairness);
    options.ftf_elapsed_denominator = true;
    const ShareResult vertex = ShareLp(options).solve(input);
    options.centre = true;
    ShareLp lp(options);
    const ShareResult& r = lp.solve(input);
    check_feasible(input, r);
    CHECK(r.objective == Approx(1).epsilon(1e-9));
    CHECK(vertex.objective == Approx(r.objective).epsilon(1e-12));
    CHECK(r.fraction(5, 0) + r.fraction(5, 1) + r.fraction(5, 2) == Approx(1).margin(1e-5));  // F full time

    // The face as analytic_centre.hpp states it: floors θ_m >= R_m/(ρ*·D_m − age_m), lowered by 1e-6.
    CentreProblem face;
    face.jobs = input.jobs.size();
    face.types = 3;
    face.capacity = input.capacities;
    for (std::size_t i = 0; i < face.jobs; ++i) {
        const ShareJob& job = input.jobs[i];
        double iso = 0;
        for (std::size_t t = 0; t < 3; ++t) iso += input.throughput(i, t) / 3;
        const double d = job.age + job.remaining / iso;
        face.gang.push_back(job.gang);
        for (std::size_t t = 0; t < 3; ++t) {
            face.allowed.push_back(1);
            face.floor_coeff.push_back(input.throughput(i, t));
        }
        face.floor_rhs.push_back(job.remaining / (r.objective * d - job.age) * (1 - 1e-6));
    }
    const auto centre_of = [&](double floor_weight, double rate_weight) {
        face.floor_weight = floor_weight;
        face.rate_weight = rate_weight;
        std::vector<double> x = vertex.x;
        REQUIRE(AnalyticCentre().solve(face, x).ok());
        return x;
    };
    const std::vector<double> weighted = centre_of(1.5, -1.0), plain = centre_of(1.0, 0.0);
    double to_weighted = 0, plain_apart = 0;
    for (std::size_t k = 0; k < weighted.size(); ++k) {
        to_weighted = std::max(to_weighted, std::abs(r.x[k] - weighted[k]));
        plain_apart = std::max(plain_apart, std::abs(plain[k] - weighted[k]));
    }
    CHECK(to_weighted < 1e-6);
    CHECK(plain_apart > 1e-2);  // the weights matter here: the test tells the two barriers apart
}

TEST_CASE("allocation lp: the centre tie-break spreads the jobs that do not pin the optimum", "[lp]") {
    // Two types of 100 GPUs. A runs alike on both (T = 1, 1: c_A = 1, 1); B twice as fast on type 0 (T = 2, 1:
    // T^prop = 1.5, c_B = 4/3, 2/3). z* = 1, pinned by A (c_A·x <= Σx <= 1). The optimal face: A's share = 1,
    // split freely; B anywhere with 2·x_B0 + x_B1 >= 1.5 and x_B0 + x_B1 <= 1. Phase 2 puts B on type 0 alone
    // (the vertex); the centre keeps B off the face's edges: both of its types get time, and A's split is
    // nearly even (exactly even but for the capacity barrier, which B's use of type 0 tilts by < 1e-2).
    const ShareInput input = make_input({100, 100}, {{1, {1, 1}}, {1, {2, 1}}});
    ShareOptions options = options_for(ShareObjective::MaxMinFairness);
    ShareLp vertex(options);
    const ShareResult v = vertex.solve(input);
    check_feasible(input, v);
    CHECK(v.fraction(1, 0) == Approx(1).margin(1e-6));
    CHECK(v.fraction(1, 1) == Approx(0).margin(1e-6));
    CHECK(v.lp_solves == 2);  // phase 1's vertex is not phase 2's

    options.centre = true;
    ShareLp centre(options);
    const ShareResult& c = centre.solve(input);
    check_feasible(input, c);
    CHECK(c.objective == exact(1));
    // The objective holds at the centre (within its 1e-6 slack): min_m c_m·x_m >= z*·(1 − 1e-6).
    CHECK(c.fraction(0, 0) + c.fraction(0, 1) >= 1 - 1.01e-6);
    CHECK(4.0 / 3 * c.fraction(1, 0) + 2.0 / 3 * c.fraction(1, 1) >= 1 - 1.01e-6);
    CHECK(c.fraction(0, 0) == Approx(0.5).margin(1e-2));
    CHECK(c.fraction(1, 1) > 0.05);
    CHECK(c.fraction(1, 0) + c.fraction(1, 1) < 1 - 0.05);  // B's share row is not tight either
    // B's region {x >= 0, x0 + x1 <= 1, 2·x0 + x1 >= 1.5} has its centre strictly inside: x0 in (0.5, 1).
    CHECK(c.fraction(1, 0) > 0.5);
    CHECK(c.fraction(1, 0) < 1);

    SECTION("identical jobs get identical shares, and the agnostic view's centre is the symmetric split") {
        ShareOptions agnostic = options_for(ShareObjective::MaxMinFairness, ThroughputView::Agnostic);
        agnostic.centre = true;
        ShareLp lp(agnostic);
        const ShareInput same = make_input({36, 36, 36}, {{1, {3, 2, 1}}, {1, {3, 2, 1}}, {1, {3, 2, 1}}});
        const ShareResult& r = lp.solve(same);
        check_feasible(same, r);
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t t = 0; t < 3; ++t) CHECK(r.fraction(i, t) == Approx(r.fraction(0, 0)).epsilon(1e-9));
    }
    SECTION("the centre is solved once per class of identical jobs, which then share their fractions") {
        // Jobs 0, 1 and 3 alike (T = 3, 2, 1: c = 1.5, 1, 0.5), job 2 another model on 2 GPUs (c = 2 on each
        // type), 2 GPUs of each type. The alike jobs split type 0 (2/3 each) and fill their share row on type 1
        // (1/3): z* = 1.5·2/3 + 1/3 = 4/3. Job 2 needs 2·(x_1 + x_2) >= 4/3 and the centre spreads it over types
        // 1 and 2. The alike jobs, one class, get the same bits.
        const ShareInput mixed =
            make_input({2, 2, 2}, {{1, {3, 2, 1}}, {1, {3, 2, 1}}, {2, {1, 1, 1}}, {1, {3, 2, 1}}});
        const ShareResult& r = centre.solve(mixed);
        check_feasible(mixed, r);
        CHECK(r.objective == Approx(4.0 / 3).epsilon(1e-9));
        for (std::size_t t = 0; t < 3; ++t) {
            CHECK(r.fraction(1, t) == r.fraction(0, t));
            CHECK(r.fraction(3, t) == r.fraction(0, t));
        }
        CHECK(r.fraction(0, 0) == Approx(2.0 / 3).margin(1e-5));
        CHECK(r.fraction(0, 1) == Approx(1.0 / 3).margin(1e-5));
        CHECK(2 * (r.fraction(2, 1) + r.fraction(2, 2)) >= 4.0 / 3 * (1 - 1.01e-6));
        CHECK(r.fraction(2, 1) > 0.1);
        CHECK(r.fraction(2, 2) > 0.1);
    }
}

}  // namespace dlsim::test::share_lp_tests
