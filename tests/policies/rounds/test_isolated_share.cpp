// Gavel's `isolated` allocation (policies/rounds/isolated_share.hpp), by hand.
#include "policies/rounds/isolated_share.hpp"

#include <catch2/catch.hpp>

using namespace dlsim;

namespace dlsim::test::isolated_share_tests {

namespace {

ShareInput input_of(std::vector<double> capacities, std::vector<int> gangs, std::vector<double> throughputs) {
    ShareInput in;
    in.capacities = std::move(capacities);
    for (std::size_t i = 0; i < gangs.size(); ++i) in.jobs.push_back({static_cast<std::uint32_t>(i), gangs[i]});
    in.throughputs = std::move(throughputs);
    return in;
}

}  // namespace

TEST_CASE("gavel-isolated: 1/M of each type, capped at a time fraction of 1, none where a job cannot run",
          "[unit][gavel]") {
    IsolatedShare isolated;
    // 2 types of 2 GPUs; M = 4. One-GPU job: 2/4 = 0.5 of each type, sum 1 -> (0.5, 0.5). Two-GPU job: 2/8 =
    // 0.25 of each. A one-GPU job that runs only on type 1: 0.5 there, 0 on type 0.
    const ShareInput in = input_of({2, 2}, {1, 2, 1, 1}, {1, 1, 2, 3, 0, 5, 1, 1});
    const auto x = isolated.allocate(in, {});
    REQUIRE(x.size() == 8);
    CHECK(x[0] == 0.5);
    CHECK(x[1] == 0.5);
    CHECK(x[2] == 0.25);
    CHECK(x[3] == 0.25);
    CHECK(x[4] == 0.0);
    CHECK(x[5] == 0.5);
    // M = 1 on 2 + 2 GPUs: 2/1 per type, sum 4 -> capped: (0.5, 0.5).
    const auto alone = isolated.allocate(input_of({2, 2}, {1}, {1, 1}), {});
    CHECK(alone[0] == 0.5);
    CHECK(alone[1] == 0.5);
    // Feasible: Σ_m g_m·x_{m,t} <= W_t on the first instance: 0.5 + 0.5 + 0 + 0.5 = 1.5 on type 0 (<= 2).
}

}  // namespace dlsim::test::isolated_share_tests
