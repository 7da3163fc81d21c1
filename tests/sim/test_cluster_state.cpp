// The engine's record of who holds which GPU (sim/cluster_state.hpp): free counts, the free index and the
// per-job GPU chains, worked by hand on small clusters.
#include "models/base/input_error.hpp"
#include "models/cluster.hpp"
#include "sim/cluster_state.hpp"
#include "tests/support/cluster_fixtures.hpp"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::cluster_state_tests {

TEST_CASE("ClusterState: allocate and release keep free counts and the free index", "[unit]") {
    const Cluster c = parse_cluster(kTwoRacks, "c.json");
    ClusterState s(c);
    REQUIRE(c.nodes.size() == 4u);
    REQUIRE(c.num_gpus() == 16u);
    CHECK(s.free_gpus(0) == 16);
    for (NodeIdx n = 0; n < 4; ++n) CHECK(s.free_on(n) == 4);
    CHECK(s.node_with_free(0, 4) == 0u);  // all four have 4 free: the lowest
    CHECK(s.node_with_free(0, 3) == kNoNode);
    CHECK(s.node_with_free(0, 0) == kNoNode);
    CHECK(s.node_with_free(0, 5) == kNoNode);  // beyond any node
    CHECK(s.held() == 0u);

    GpuIdx h7 = ClusterState::kNoGpu;
    s.allocate(1, 3, 7, h7);  // GPUs 4, 5, 6
    CHECK(s.owner(4) == 7u);
    CHECK(s.owner(5) == 7u);
    CHECK(s.owner(6) == 7u);
    CHECK(s.owner(7) == ClusterState::kFree);
    CHECK(s.owner(3) == ClusterState::kFree);
    CHECK(s.free_on(1) == 1);
    CHECK(s.free_gpus(0) == 13);
    CHECK(s.node_with_free(0, 1) == 1u);
    CHECK(s.node_with_free(0, 4) == 0u);
    CHECK(s.held() == 3u);

    GpuIdx h8 = ClusterState::kNoGpu;
    s.allocate(1, 1, 8, h8);  // GPU 7
    CHECK(s.owner(7) == 8u);
    CHECK(h8 == 7u);
    CHECK(s.free_on(1) == 0);
    CHECK(s.node_with_free(0, 0) == 1u);
    CHECK(s.node_with_free(0, 1) == kNoNode);
    CHECK(s.free_gpus(0) == 12);

    // Node 0 taken whole: the lowest node with 4 free becomes node 2.
    GpuIdx h9 = ClusterState::kNoGpu;
    s.allocate(0, 4, 9, h9);
    CHECK(s.node_with_free(0, 4) == 2u);
    CHECK(s.node_with_free(0, 0) == 0u);  // nodes 0 and 1 both full: the lowest

    CHECK(s.release(h7, 7) == 3);
    CHECK(s.owner(4) == ClusterState::kFree);
    CHECK(s.owner(6) == ClusterState::kFree);
    CHECK(s.free_on(1) == 3);
    CHECK(s.node_with_free(0, 3) == 1u);
    CHECK(s.node_with_free(0, 0) == 0u);
    CHECK(s.free_gpus(0) == 11);

    // The lowest-numbered free GPUs are taken: 4 and 5 (7 is still job 8's).
    GpuIdx h10 = ClusterState::kNoGpu;
    s.allocate(1, 2, 10, h10);
    CHECK(s.owner(4) == 10u);
    CHECK(s.owner(5) == 10u);
    CHECK(s.owner(6) == ClusterState::kFree);
    CHECK(s.held() == 4u + 1u + 2u);

    CHECK(s.release(h10, 10) == 2);
    CHECK(s.release(h8, 8) == 1);
    CHECK(s.release(h9, 9) == 4);
    CHECK(s.held() == 0u);
    CHECK(s.free_gpus(0) == 16);
    CHECK(s.node_with_free(0, 4) == 0u);
    CHECK(s.node_with_free(0, 0) == kNoNode);
}

TEST_CASE("ClusterState: one job's chain across nodes is released whole", "[unit]") {
    const Cluster c = parse_cluster(kTwoRacks, "c.json");
    ClusterState s(c);
    GpuIdx h = ClusterState::kNoGpu;
    s.allocate(0, 2, 5, h);  // GPUs 0, 1
    s.allocate(3, 4, 5, h);  // GPUs 12..15
    CHECK(s.free_on(0) == 2);
    CHECK(s.free_on(3) == 0);
    CHECK(s.free_gpus(0) == 10);
    CHECK(s.node_with_free(0, 2) == 0u);
    CHECK(s.release(h, 5) == 6);
    CHECK(s.free_on(0) == 4);
    CHECK(s.free_on(3) == 4);
    CHECK(s.free_gpus(0) == 16);
    CHECK(s.node_with_free(0, 2) == kNoNode);
    for (GpuIdx g = 0; g < 16; ++g) CHECK(s.owner(g) == ClusterState::kFree);
}

TEST_CASE("ClusterState: taking held GPUs or releasing another job's throws InternalError", "[unit]") {
    const Cluster c = parse_cluster(kTwoRacks, "c.json");
    ClusterState s(c);
    GpuIdx h1 = ClusterState::kNoGpu, h2 = ClusterState::kNoGpu;
    s.allocate(2, 4, 1, h1);
    CHECK_THROWS_AS(s.allocate(2, 1, 2, h2), InternalError);  // node 2 is fully held
    CHECK(h2 == ClusterState::kNoGpu);
    s.allocate(0, 3, 2, h2);
    CHECK_THROWS_AS(s.allocate(0, 2, 3, h2), InternalError);  // only one free
    CHECK_THROWS_AS(s.allocate(0, 0, 3, h2), InternalError);  // an empty allocation is a bug too
    CHECK_THROWS_AS(s.release(h1, 2), InternalError);         // job 2 does not hold job 1's GPUs
    CHECK(s.owner(8) == 1u);                                  // nothing was given back
    CHECK(s.free_on(2) == 0);
    CHECK(s.free_gpus(0) == 16 - 4 - 3);
}

TEST_CASE("ClusterState: the free index works past 64 nodes of a type", "[unit]") {
    const Cluster c = parse_cluster(
        R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 2}},
            "racks": [{"node_type": "n", "nodes": 70}]})",
        "c.json");
    ClusterState s(c);
    GpuIdx h = ClusterState::kNoGpu;
    for (NodeIdx n = 0; n < 66; ++n) s.allocate(n, 2, 0, h);
    CHECK(s.node_with_free(0, 2) == 66u);  // in the second 64-bit word
    CHECK(s.node_with_free(0, 0) == 0u);
    GpuIdx h1 = ClusterState::kNoGpu;
    s.allocate(67, 1, 1, h1);
    CHECK(s.node_with_free(0, 1) == 67u);
    CHECK(s.free_gpus(0) == 140 - 132 - 1);
}

}  // namespace dlsim::test::cluster_state_tests
