// Which GPU type a job goes to (policies/type_choice.hpp): pick_type in fastest and spec order, and
// fastest_type, on three types whose speeds are worked by hand.
#include "models/base/input_error.hpp"
#include "policies/cluster_view.hpp"
#include "policies/type_choice.hpp"
#include "tests/support/placer_support.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <optional>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::type_choice_tests {

namespace {
/// Types in cluster order: a (idx 0), b (1), c (2), 8 GPUs each.
const char* kThreeTypes =
    R"({"gpu_types": {"a": {}, "b": {}, "c": {}},
        "node_types": {"na": {"gpu_type": "a", "gpus": 8}, "nb": {"gpu_type": "b", "gpus": 8},
                       "nc": {"gpu_type": "c", "gpus": 8}},
        "racks": [{"node_type": "na", "nodes": 1}, {"node_type": "nb", "nodes": 1}, {"node_type": "nc", "nodes": 1}]})";
/// Model 0 "m": a 1, b 3, c 3 (b and c tie). Model 1 "z": a 2, b 5, c 9.
const char* kThreeTypeProfile =
    R"({"models": {"m": {"throughput": {"a": 1, "b": 3, "c": 3}}, "z": {"throughput": {"a": 2, "b": 5, "c": 9}}}})";
}  // namespace

TEST_CASE("pick_type: fastest by model rate, equal room ties to cluster order, respects available", "[unit]") {
    World w(kThreeTypes, kThreeTypeProfile);
    REQUIRE(w.cluster.gpu_types[1].name == "b");
    JobInfo j;
    j.model = 0;
    j.num_gpus = 2;
    j.runnable = 0b111;
    using A = std::array<int, 3>;
    auto pick = [&](A avail, TypeOrder o = TypeOrder::Fastest) { return pick_type(w.view, j, o, avail); };

    CHECK(pick({8, 8, 8}) == std::optional<GpuTypeIdx>(1));  // b and c tie at 3: b comes first
    CHECK(pick({8, 1, 8}) == std::optional<GpuTypeIdx>(2));  // b has no room for 2
    CHECK(pick({8, 1, 1}) == std::optional<GpuTypeIdx>(0));
    CHECK(pick({2, 1, 1}) == std::optional<GpuTypeIdx>(0));  // exactly enough
    CHECK(pick({1, 1, 1}) == std::nullopt);

    j.model = 1;
    CHECK(pick({8, 8, 8}) == std::optional<GpuTypeIdx>(2));  // z is fastest on c
    j.runnable = 0b011;                                      // not c
    CHECK(pick({8, 8, 8}) == std::optional<GpuTypeIdx>(1));
    j.runnable = 0b001;
    CHECK(pick({8, 8, 8}) == std::optional<GpuTypeIdx>(0));
    CHECK(pick({1, 8, 8}) == std::nullopt);  // the only runnable type is full
    j.runnable = 0;
    CHECK(pick({8, 8, 8}) == std::nullopt);

    // A job without a model runs equally fast everywhere: the first type with room.
    j.model = kNoModel;
    j.runnable = 0b110;
    CHECK(pick({8, 8, 8}) == std::optional<GpuTypeIdx>(1));
    CHECK(pick({8, 0, 8}) == std::optional<GpuTypeIdx>(2));
}

TEST_CASE("pick_type: spec order takes the first runnable type with room", "[unit]") {
    World w(kThreeTypes, kThreeTypeProfile);
    JobInfo j;
    j.model = 1;  // fastest on c, but spec order ignores speed
    j.num_gpus = 4;
    j.runnable = 0b111;
    using A = std::array<int, 3>;
    auto pick = [&](A avail) { return pick_type(w.view, j, TypeOrder::Spec, avail); };
    CHECK(pick({8, 8, 8}) == std::optional<GpuTypeIdx>(0));
    CHECK(pick({3, 8, 8}) == std::optional<GpuTypeIdx>(1));
    CHECK(pick({3, 3, 4}) == std::optional<GpuTypeIdx>(2));
    CHECK(pick({3, 3, 3}) == std::nullopt);
    j.runnable = 0b100;
    CHECK(pick({8, 8, 8}) == std::optional<GpuTypeIdx>(2));

    CHECK(parse_type_order("spec") == TypeOrder::Spec);
    CHECK(parse_type_order("fastest") == TypeOrder::Fastest);
    CHECK(parse_type_order("fastest", "cluster_order") == TypeOrder::FastestClusterOrder);
    CHECK(parse_type_order("spec", "cluster_order") == TypeOrder::Spec);
    CHECK_THROWS_AS(parse_type_order("Fastest"), InputError);
    CHECK_THROWS_AS(parse_type_order("fastest", "most-free"), InputError);
}

TEST_CASE("pick_type: equally fast types go to the one with the most room, or cluster order", "[unit]") {
    World w(kThreeTypes, kThreeTypeProfile);
    JobInfo j;
    j.num_gpus = 2;
    j.runnable = 0b111;
    using A = std::array<int, 3>;
    auto pick = [&](A avail, TypeOrder o = TypeOrder::Fastest) { return pick_type(w.view, j, o, avail); };

    // No model: a, b and c tie. The most available GPUs win; equal room falls back to cluster order.
    j.model = kNoModel;
    CHECK(pick({3, 8, 5}) == std::optional<GpuTypeIdx>(1));
    CHECK(pick({3, 5, 8}) == std::optional<GpuTypeIdx>(2));
    CHECK(pick({8, 5, 8}) == std::optional<GpuTypeIdx>(0));
    CHECK(pick({1, 5, 5}) == std::optional<GpuTypeIdx>(1));
    CHECK(pick({3, 8, 5}, TypeOrder::FastestClusterOrder) == std::optional<GpuTypeIdx>(0));
    CHECK(pick({1, 8, 5}, TypeOrder::FastestClusterOrder) == std::optional<GpuTypeIdx>(1));
    CHECK(choice_depends_on_room(w.view, j, TypeOrder::Fastest));
    CHECK_FALSE(choice_depends_on_room(w.view, j, TypeOrder::FastestClusterOrder));
    CHECK_FALSE(choice_depends_on_room(w.view, j, TypeOrder::Spec));

    // Model m: b and c tie at 3, a is slower: room decides between b and c only, never for a.
    j.model = 0;
    CHECK(pick({8, 2, 4}) == std::optional<GpuTypeIdx>(2));
    CHECK(pick({8, 4, 4}) == std::optional<GpuTypeIdx>(1));
    CHECK(pick({8, 4, 4}, TypeOrder::FastestClusterOrder) == std::optional<GpuTypeIdx>(1));
    CHECK(pick({8, 2, 4}, TypeOrder::FastestClusterOrder) == std::optional<GpuTypeIdx>(1));
    CHECK(pick({8, 1, 1}) == std::optional<GpuTypeIdx>(0));  // neither has room: the slower type with room
    CHECK(choice_depends_on_room(w.view, j, TypeOrder::Fastest));
    j.runnable = 0b101;  // a and c: c is strictly fastest
    CHECK_FALSE(choice_depends_on_room(w.view, j, TypeOrder::Fastest));
    CHECK(pick({8, 8, 2}) == std::optional<GpuTypeIdx>(2));

    // Model z: a 2, b 5, c 9, no tie: room never decides among types with room.
    j.model = 1;
    j.runnable = 0b111;
    CHECK(pick({8, 8, 2}) == std::optional<GpuTypeIdx>(2));
    CHECK_FALSE(choice_depends_on_room(w.view, j, TypeOrder::Fastest));
}

TEST_CASE("fastest_type ignores what is free and respects the mask", "[unit]") {
    World w(kThreeTypes, kThreeTypeProfile);
    JobInfo j;
    j.model = 0;
    j.runnable = 0b111;
    CHECK(fastest_type(w.view, j) == 1u);  // tie b/c -> b
    j.runnable = 0b101;
    CHECK(fastest_type(w.view, j) == 2u);
    j.model = 1;
    j.runnable = 0b011;
    CHECK(fastest_type(w.view, j) == 1u);
}

TEST_CASE("pick_type: room is the share of the type's GPUs available, then the count", "[unit]") {
    // a: one node of 2 GPUs, b: two nodes of 8 (16 GPUs).
    World w(R"({"gpu_types": {"a": {}, "b": {}},
                "node_types": {"na": {"gpu_type": "a", "gpus": 2}, "nb": {"gpu_type": "b", "gpus": 8}},
                "racks": [{"node_type": "na", "nodes": 1}, {"node_type": "nb", "nodes": 2}]})",
            R"({"models": {"m": {"throughput": {"a": 1, "b": 1}}}})");
    JobInfo j;
    j.model = kNoModel;
    j.num_gpus = 1;
    j.runnable = 0b11;
    using A = std::array<int, 2>;
    auto pick = [&](A avail) { return pick_type(w.view, j, TypeOrder::Fastest, avail); };
    CHECK(pick({2, 16}) == std::optional<GpuTypeIdx>(1));  // both wholly free: more GPUs
    CHECK(pick({2, 15}) == std::optional<GpuTypeIdx>(0));  // 2/2 > 15/16
    CHECK(pick({1, 9}) == std::optional<GpuTypeIdx>(1));   // 9/16 > 1/2
    CHECK(pick({1, 8}) == std::optional<GpuTypeIdx>(1));   // 8/16 = 1/2: more GPUs
    CHECK(pick({1, 7}) == std::optional<GpuTypeIdx>(0));   // 1/2 > 7/16
    CHECK(more_room(w.cluster, A{1, 9}, 1, 0));
    CHECK_FALSE(more_room(w.cluster, A{1, 8}, 0, 1));
}

}  // namespace dlsim::test::type_choice_tests
