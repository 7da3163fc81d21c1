// The `consolidated` placer (policies/placement/consolidated_placer.hpp) against placements worked out by
// hand: one node by best fit, then the fewest nodes, then the fewest racks.
#include "policies/placement/consolidated_placer.hpp"
#include "tests/support/cluster_fixtures.hpp"
#include "tests/support/placer_support.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::consolidated_placer_tests {

TEST_CASE("ConsolidatedPlacer: one node, best fit, ties to the lowest id", "[unit]") {
    World w(kTwoRacks, kOneModelProfile);
    ConsolidatedPlacer p;
    std::vector<NodeShare> out;

    // All free: a 2-GPU job goes to node 0 (all tie at 4 free).
    REQUIRE(p.place(w.view, 0, 2, out));
    CHECK(shares(out) == Shares{{0, 2}});

    // Free: node 0 -> 3, node 1 -> 2, node 2 -> 1, node 3 -> 4.
    w.take(0, 1, 0);
    w.take(1, 2, 1);
    w.take(2, 3, 2);
    REQUIRE(p.place(w.view, 0, 1, out));
    CHECK(shares(out) == Shares{{2, 1}});
    REQUIRE(p.place(w.view, 0, 2, out));
    CHECK(shares(out) == Shares{{1, 2}});
    REQUIRE(p.place(w.view, 0, 3, out));
    CHECK(shares(out) == Shares{{0, 3}});
    REQUIRE(p.place(w.view, 0, 4, out));
    CHECK(shares(out) == Shares{{3, 4}});

    // Node 3 -> 2 free as well: 2-GPU job ties between nodes 1 and 3, goes to node 1.
    w.take(3, 2, 3);
    REQUIRE(p.place(w.view, 0, 2, out));
    CHECK(shares(out) == Shares{{1, 2}});
}

TEST_CASE("ConsolidatedPlacer: wider than a node, fewest nodes inside one rack", "[unit]") {
    World w(kTwoRacks, kOneModelProfile);
    ConsolidatedPlacer p;
    std::vector<NodeShare> out;

    // All free: 8 GPUs fill rack 0 (nodes 0 and 1), 6 GPUs take node 0 whole and 2 of node 1.
    REQUIRE(p.place(w.view, 0, 8, out));
    CHECK(sorted(shares(out)) == Shares{{0, 4}, {1, 4}});
    REQUIRE(p.place(w.view, 0, 6, out));
    CHECK(sorted(shares(out)) == Shares{{0, 4}, {1, 2}});

    // Free: node 0 -> 1, node 1 -> 4, nodes 2, 3 -> 3. Rack 0 holds 5 < 6; rack 1 holds 6 on 2 nodes.
    // (Across racks, node 1 + node 2 would also be 2 nodes: the single rack wins.)
    w.take(0, 3, 0);
    w.take(2, 1, 1);
    w.take(3, 1, 2);
    REQUIRE(p.place(w.view, 0, 6, out));
    CHECK(sorted(shares(out)) == Shares{{2, 3}, {3, 3}});

    // 5 GPUs: rack 0 needs 2 nodes (4 + 1), rack 1 needs 2 nodes (3 + 2): the lower rack.
    REQUIRE(p.place(w.view, 0, 5, out));
    CHECK(sorted(shares(out)) == Shares{{0, 1}, {1, 4}});
}

TEST_CASE("ConsolidatedPlacer: a rack that needs fewer nodes beats a lower rack", "[unit]") {
    // 2 racks x 3 nodes x 4 GPUs: nodes 0-2 in rack 0, 3-5 in rack 1.
    World w(R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 4}},
                "racks": [{"node_type": "n", "nodes": 3, "count": 2}]})",
            kOneModelProfile);
    ConsolidatedPlacer p;
    std::vector<NodeShare> out;
    // Free: rack 0 -> 3, 3, 3 (8 GPUs need 3 nodes); rack 1 -> 4, 4, 1 (8 GPUs on 2 nodes).
    w.take(0, 1, 0);
    w.take(1, 1, 1);
    w.take(2, 1, 2);
    w.take(5, 3, 3);
    REQUIRE(p.place(w.view, 0, 8, out));
    CHECK(sorted(shares(out)) == Shares{{3, 4}, {4, 4}});
}

TEST_CASE("ConsolidatedPlacer: fewest nodes comes before one rack", "[unit]") {
    // `consolidated` takes the fewest nodes, then the fewest racks (policies/README.md).
    // 2 racks x 3 nodes x 4 GPUs. Free: rack 0 -> 3, 3, 3 (7 GPUs need 3 nodes there);
    // rack 1 -> 4, 0, 0 (cannot hold 7). Across racks, node 3 (4) + node 0 (3) is 2 nodes.
    World w(R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 4}},
                "racks": [{"node_type": "n", "nodes": 3, "count": 2}]})",
            kOneModelProfile);
    ConsolidatedPlacer p;
    std::vector<NodeShare> out;
    w.take(0, 1, 0);
    w.take(1, 1, 1);
    w.take(2, 1, 2);
    w.take(4, 4, 3);
    w.take(5, 4, 4);
    REQUIRE(p.place(w.view, 0, 7, out));
    CHECK(out.size() == 2u);
    CHECK(sorted(shares(out)) == Shares{{0, 3}, {3, 4}});
}

TEST_CASE("ConsolidatedPlacer: across racks, fewest racks among fewest-node placements", "[unit]") {
    // 3 racks x 2 nodes x 4 GPUs: rack 0 = nodes 0,1; rack 1 = 2,3; rack 2 = 4,5.
    // Free: rack 0 -> 4, 1; rack 1 -> 4, 1; rack 2 -> 3, 3. No rack holds 10 (they hold 5, 5, 6).
    // Two nodes hold at most 4 + 4 = 8, so 10 GPUs need 3 nodes; a 3-node placement on 2 racks exists
    // (node 0 + nodes 4, 5: 4 + 3 + 3 = 10), so the placement must use 3 nodes on 2 racks.
    World w(R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 4}},
                "racks": [{"node_type": "n", "nodes": 2, "count": 3}]})",
            kOneModelProfile);
    ConsolidatedPlacer p;
    std::vector<NodeShare> out;
    w.take(1, 3, 0);
    w.take(3, 3, 1);
    w.take(4, 1, 2);
    w.take(5, 1, 3);
    REQUIRE(p.place(w.view, 0, 10, out));
    int total = 0;
    std::set<std::uint32_t> racks;
    for (const auto& s : out) {
        CHECK(s.gpus <= w.state.free_on(s.node));
        total += s.gpus;
        racks.insert(w.cluster.nodes[s.node].rack);
    }
    CHECK(total == 10);
    CHECK(out.size() == 3u);
    CHECK(racks.size() == 2u);
}

TEST_CASE("ConsolidatedPlacer: false when the type has too few free GPUs", "[unit]") {
    // Two types: "a" on nodes 0-1 (4 GPUs each), "b" on node 2 (2 GPUs).
    World w(R"({"gpu_types": {"a": {}, "b": {}},
                "node_types": {"na": {"gpu_type": "a", "gpus": 4}, "nb": {"gpu_type": "b", "gpus": 2}},
                "racks": [{"node_type": "na", "nodes": 2}, {"node_type": "nb", "nodes": 1}]})",
            R"({"models": {"m": {"throughput": {"a": 1, "b": 1}}}})");
    ConsolidatedPlacer p;
    std::vector<NodeShare> out{{9, 9}};
    CHECK_FALSE(p.place(w.view, 1, 3, out));  // type b has 2 GPUs in all
    CHECK(out.empty());
    CHECK_FALSE(p.place(w.view, 0, 9, out));  // type a has 8
    REQUIRE(p.place(w.view, 1, 2, out));      // type b's own node, not type a's
    CHECK(shares(out) == Shares{{2, 2}});

    // Type a with 5 free: fragmented over two nodes, a 5-GPU job still fits, a 6-GPU job does not.
    w.take(0, 1, 0);
    w.take(1, 2, 1);
    REQUIRE(p.place(w.view, 0, 5, out));
    CHECK(sorted(shares(out)) == Shares{{0, 3}, {1, 2}});
    CHECK_FALSE(p.place(w.view, 0, 6, out));
    CHECK(out.empty());
}

}  // namespace dlsim::test::consolidated_placer_tests
