// Measured step times as Pollux's and Sia's simulators read them: placement keys (the smallest rotation),
// interpolation within a table, the fall-back from a measured placement to its (nodes, replicas) shape, and
// Pollux's own measurements read through the bundled models/profiles/pollux_elastic.json.
#include "models/measured_steps.hpp"
#include "models/profile.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace dlsim;

namespace dlsim::test::measured_steps_tests {

namespace {

StepTable table(std::vector<double> b, std::vector<double> step, std::vector<double> sync) {
    return StepTable{std::move(b), std::move(step), std::move(sync)};
}

}  // namespace

TEST_CASE("measured steps: placement keys are the smallest rotation of the per-node GPU counts", "[unit]") {
    CHECK(placement_key(std::vector<int>{2, 4}) == 24);
    CHECK(placement_key(std::vector<int>{4, 2}) == 24);
    CHECK(placement_key(std::vector<int>{4, 4, 1}) == 144);  // rotations 441, 414, 144
    CHECK(placement_key(std::vector<int>{3, 1, 3, 2}) == 1323);
    CHECK(placement_key(std::vector<int>{0, 3, 0}) == 3);
    CHECK(placement_key(std::vector<int>{}) == 0);
    CHECK(placement_key(std::vector<int>{10}) == 0);
    CHECK(placement_key(std::vector<int>(20, 1)) == 0);
    CHECK(placement_key(std::vector<int>(19, 1)) == 1'111'111'111'111'111'111ULL);
}

TEST_CASE("measured steps: linear between knots, a measured placement first, its shape outside its range", "[unit]") {
    const StepTable t = table({4, 8}, {1.0, 2.0}, {0.1, 0.3});
    CHECK(t.at(6)->step == Approx(1.5).epsilon(1e-15));
    CHECK(t.at(6)->sync == Approx(0.2).epsilon(1e-15));
    CHECK(t.at(8)->step == 2.0);
    CHECK_FALSE(t.at(3.5));
    CHECK_FALSE(t.at(8.5));

    MeasuredSteps m;
    m.placements.emplace(24, table({4, 8}, {1.0, 2.0}, {0.5, 0.5}));
    m.shapes.emplace(std::pair{2, 6}, table({2, 16}, {3.0, 10.0}, {1.0, 1.0}));
    m.shapes.emplace(std::pair{16, 17}, table({1, 2}, {7.0, 8.0}, {1.0, 1.0}));
    CHECK(m.at(std::vector<int>{4, 2}, 6)->step == Approx(1.5).epsilon(1e-15));   // the placement, rotated
    CHECK(m.at(std::vector<int>{4, 2}, 10)->step == Approx(7.0).epsilon(1e-15));  // beyond it: shape 2x6
    CHECK(m.at(std::vector<int>{3, 3}, 6)->step == Approx(5.0).epsilon(1e-15));   // not measured: shape 2x6
    CHECK_FALSE(m.at(std::vector<int>{3, 3}, 20));
    CHECK_FALSE(m.at(std::vector<int>{2, 2}, 6));
    // More than 16 nodes are looked up as 16 (the simulators' cap).
    CHECK(m.at(std::vector<int>(17, 1), 1)->step == 7.0);
}

TEST_CASE("measured steps: pollux_elastic.json reproduces Pollux's measured placements and scalability points",
          "[unit]") {
    std::ifstream f(std::string(DLSIM_SOURCE_DIR) + "/models/profiles/pollux_elastic.json");
    REQUIRE(f);
    std::stringstream text;
    text << f.rdbuf();
    const ProfileSet set = parse_profiles(text.str(), "pollux_elastic.json");
    const GoodputProfile& cifar10 = *set.models[*set.find_model("cifar10")].goodput;
    const MeasuredSteps& m = *cifar10.measured_for("t4");
    // simulator/traces/cifar10/placements.csv: placement 1 at local_bsz 32: 0.0427886962890625 s, sync
    // 0.0004995360016822816 s; at 45: 0.05048525333404541 s. Linear between: at 40, 8/13 of the way.
    CHECK(m.at(std::vector<int>{1}, 32)->step == Approx(0.0427886962890625).epsilon(1e-11));
    CHECK(m.at(std::vector<int>{1}, 32)->sync == Approx(0.0004995360016822816).epsilon(1e-11));
    CHECK(m.at(std::vector<int>{1}, 40)->step ==
          Approx(0.0427886962890625 + 8.0 / 13 * (0.05048525333404541 - 0.0427886962890625)).epsilon(1e-11));
    // scalability.csv's first row, 6 nodes x 1 GPU at 32 (no placement of 6 nodes was measured as such): a
    // vertex of the interpolation, where it takes the measured value.
    CHECK(m.at(std::vector<int>{1, 1, 1, 1, 1, 1}, 32)->step == Approx(0.14090566635131835).epsilon(1e-11));
    CHECK(m.at(std::vector<int>{1, 1, 1, 1, 1, 1}, 32)->sync == Approx(0.09941204528808593).epsilon(1e-11));
}

}  // namespace dlsim::test::measured_steps_tests
