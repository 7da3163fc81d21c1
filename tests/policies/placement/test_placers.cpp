// The placers other than `consolidated`: spread, random and strict-locality, each against placements worked
// out by hand, and through the registry and a run where it matters (the seed, a declined start).
#include "policies/placement/random_placer.hpp"
#include "policies/placement/spread_placer.hpp"
#include "policies/placement/strict_locality_placer.hpp"
#include "policies/registry.hpp"
#include "tests/support/placer_support.hpp"
#include "tests/support/test_support.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::placers_tests {

namespace {

int total(const std::vector<NodeShare>& out) {
    int n = 0;
    for (const auto& s : out) n += s.gpus;
    return n;
}

/// Runs fifo with placer `placement` and seed `seed` on a trace without files.
RunOutcome run_with(const RunInputs& in, const std::string& placement, std::uint64_t seed = 0) {
    RunConfig c;
    c.policy = "fifo";
    c.placement = placement;
    c.seed = seed;
    c.out.clear();
    return simulate(in, c);
}

}  // namespace

// =============================================================================================
// spread
// =============================================================================================

TEST_CASE("SpreadPlacer: one GPU per node, round-robin over racks, then again", "[unit]") {
    World w(kTwoRacks, kOneModelProfile);
    SpreadPlacer p;
    std::vector<NodeShare> out;
    // Visiting order: rack 0's node 0, rack 1's node 2, rack 0's node 1, rack 1's node 3.
    REQUIRE(p.place(w.view, 0, 1, out));
    CHECK(shares(out) == Shares{{0, 1}});
    REQUIRE(p.place(w.view, 0, 2, out));
    CHECK(shares(out) == Shares{{0, 1}, {2, 1}});  // two racks before a second node in rack 0
    REQUIRE(p.place(w.view, 0, 3, out));
    CHECK(shares(out) == Shares{{0, 1}, {2, 1}, {1, 1}});
    REQUIRE(p.place(w.view, 0, 4, out));
    CHECK(shares(out) == Shares{{0, 1}, {2, 1}, {1, 1}, {3, 1}});
    // 6 GPUs: every node once (4), then nodes 0 and 2 a second time.
    REQUIRE(p.place(w.view, 0, 6, out));
    CHECK(shares(out) == Shares{{0, 2}, {2, 2}, {1, 1}, {3, 1}});
    REQUIRE(p.place(w.view, 0, 16, out));
    CHECK(shares(out) == Shares{{0, 4}, {2, 4}, {1, 4}, {3, 4}});
    CHECK_FALSE(p.place(w.view, 0, 17, out));
}

TEST_CASE("SpreadPlacer: busy nodes are skipped; a node gives only what is free", "[unit]") {
    World w(kTwoRacks, kOneModelProfile);
    SpreadPlacer p;
    std::vector<NodeShare> out;
    w.take(0, 4, 0);  // node 0 full
    w.take(2, 3, 1);  // node 2: 1 free
    // Order: node 1 (rack 0), node 2 (rack 1), node 3 (rack 1; rack 0 has no second node).
    // Pass 1: 1, 2, 3 -> 3 GPUs; pass 2: node 1, node 2 has none left, node 3 -> 5.
    REQUIRE(p.place(w.view, 0, 5, out));
    CHECK(shares(out) == Shares{{1, 2}, {2, 1}, {3, 2}});
    REQUIRE(p.place(w.view, 0, 9, out));
    CHECK(shares(out) == Shares{{1, 4}, {2, 1}, {3, 4}});
    CHECK_FALSE(p.place(w.view, 0, 10, out));
    CHECK(out.empty());
}

TEST_CASE("SpreadPlacer: a small rack is visited as often as a large one", "[unit]") {
    // Rack 0 = nodes 0, 1, 2; rack 1 = node 3. 2 GPUs per node.
    World w(R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 2}},
                "racks": [{"node_type": "n", "nodes": 3}, {"node_type": "n", "nodes": 1}]})",
            kOneModelProfile);
    SpreadPlacer p;
    std::vector<NodeShare> out;
    // Order: 0, 3, 1, 2.
    REQUIRE(p.place(w.view, 0, 3, out));
    CHECK(shares(out) == Shares{{0, 1}, {3, 1}, {1, 1}});
    REQUIRE(p.place(w.view, 0, 5, out));
    CHECK(shares(out) == Shares{{0, 2}, {3, 1}, {1, 1}, {2, 1}});
}

// =============================================================================================
// random
// =============================================================================================

TEST_CASE("RandomPlacer: feasible, and the same seed gives the same placements", "[unit]") {
    World w(kTwoRacks, kOneModelProfile);
    w.take(1, 3, 0);  // node 1: 1 free
    RandomPlacer a(7), b(7), c(8);
    std::vector<NodeShare> oa, ob, oc;
    bool differs = false;
    for (int i = 0; i < 50; ++i) {
        const int n = 1 + i % 13;  // 13 GPUs are free
        REQUIRE(a.place(w.view, 0, n, oa));
        REQUIRE(b.place(w.view, 0, n, ob));
        REQUIRE(c.place(w.view, 0, n, oc));
        CHECK(shares(oa) == shares(ob));
        differs = differs || shares(oa) != shares(oc);
        CHECK(total(oa) == n);
        for (std::size_t k = 0; k < oa.size(); ++k) {
            CHECK(oa[k].gpus >= 1);
            CHECK(oa[k].gpus <= w.state.free_on(oa[k].node));
            if (k > 0) CHECK(oa[k - 1].node < oa[k].node);  // one share per node, in id order
        }
    }
    CHECK(differs);  // another seed, another stream
    CHECK_FALSE(a.place(w.view, 0, 14, oa));
}

TEST_CASE("RandomPlacer: a uniform subset of the free GPUs (hypergeometric node shares)", "[unit]") {
    // 2 nodes x 2 GPUs, 2 GPUs wanted: of the C(4,2) = 6 pairs of GPUs, 1 is node 0 alone, 1 node 1 alone,
    // 4 split one-one. Over 60,000 draws each frequency is within 0.01 (> 6 standard errors) of 1/6, 1/6, 2/3.
    World w(R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 2}},
                "racks": [{"node_type": "n", "nodes": 2}]})",
            kOneModelProfile);
    RandomPlacer p(1);
    std::vector<NodeShare> out;
    std::map<Shares, int> seen;
    const int draws = 60'000;
    for (int i = 0; i < draws; ++i) {
        REQUIRE(p.place(w.view, 0, 2, out));
        ++seen[shares(out)];
    }
    CHECK(seen.size() == 3u);
    CHECK(seen[Shares{{0, 2}}] / double(draws) == Approx(1.0 / 6).margin(0.01));
    CHECK(seen[Shares{{1, 2}}] / double(draws) == Approx(1.0 / 6).margin(0.01));
    CHECK(seen[Shares{{0, 1}, {1, 1}}] / double(draws) == Approx(2.0 / 3).margin(0.01));
}

TEST_CASE("random placer: the registry seeds it with the run's seed", "[unit]") {
    World w(kTwoRacks, kOneModelProfile);
    const auto& entry = builtin_placers().find("random");
    const Params params = resolve_params("placement random", entry.params, {});
    auto from_registry = entry.make(params, MakeContext{42});
    RandomPlacer direct(42);
    std::vector<NodeShare> a, b;
    for (int n = 1; n <= 16; ++n) {
        REQUIRE(from_registry->place(w.view, 0, n, a));
        REQUIRE(direct.place(w.view, 0, n, b));
        CHECK(shares(a) == shares(b));
    }
}

TEST_CASE("random placement in a run: same seed, same result; the seed is in the run id", "[engine]") {
    // 16 one-GPU jobs on 4 nodes x 4 GPUs: the placements land in the event log only, so compare run ids and
    // the results, which must be identical for one seed.
    std::string trace = "job_id,submit_time,num_gpus,duration\n";
    for (int j = 0; j < 16; ++j) trace += "j" + std::to_string(j) + "," + std::to_string(j) + ",2,100\n";
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(4, 4), kUnusedProfile, trace);
    const RunOutcome a = run_with(in, "random", 5), b = run_with(in, "random", 5), c = run_with(in, "random", 6);
    CHECK(a.run_id == b.run_id);
    CHECK(a.run_id != c.run_id);
    REQUIRE(a.jobs.size() == b.jobs.size());
    for (std::size_t j = 0; j < a.jobs.size(); ++j) CHECK(finish_s(a, j) == finish_s(b, j));
}

// =============================================================================================
// strict-locality
// =============================================================================================

TEST_CASE("StrictLocalityPlacer: a job that fits one node gets the best-fitting node, or waits", "[unit]") {
    World w(kTwoRacks, kOneModelProfile);
    StrictLocalityPlacer p;
    std::vector<NodeShare> out;
    REQUIRE(p.place(w.view, 0, 2, out));
    CHECK(shares(out) == Shares{{0, 2}});  // all tie at 4 free: lowest id
    // Free: node 0 -> 3, node 1 -> 2, node 2 -> 4, node 3 -> 1.
    w.take(0, 1, 0);
    w.take(1, 2, 1);
    w.take(3, 3, 2);
    REQUIRE(p.place(w.view, 0, 1, out));
    CHECK(shares(out) == Shares{{3, 1}});
    REQUIRE(p.place(w.view, 0, 2, out));
    CHECK(shares(out) == Shares{{1, 2}});
    REQUIRE(p.place(w.view, 0, 3, out));
    CHECK(shares(out) == Shares{{0, 3}});
    REQUIRE(p.place(w.view, 0, 4, out));
    CHECK(shares(out) == Shares{{2, 4}});
    // Node 2 busy too: 4 GPUs are free (3 + 1 on nodes 0 and 3) but no node holds them: wait.
    w.take(2, 4, 3);
    CHECK_FALSE(p.place(w.view, 0, 4, out));
    CHECK(out.empty());
}

TEST_CASE("StrictLocalityPlacer: a wider job needs whole free nodes in one rack", "[unit]") {
    World w(kTwoRacks, kOneModelProfile);
    StrictLocalityPlacer p;
    std::vector<NodeShare> out;
    w.take(0, 1, 0);  // rack 0 has no whole free node left
    // 8 GPUs = 2 nodes: rack 1's nodes 2 and 3.
    REQUIRE(p.place(w.view, 0, 8, out));
    CHECK(shares(out) == Shares{{2, 4}, {3, 4}});
    // 6 GPUs = ceil(6/4) = 2 nodes, 4 on the first and 2 on the second.
    REQUIRE(p.place(w.view, 0, 6, out));
    CHECK(shares(out) == Shares{{2, 4}, {3, 2}});
    // One GPU busy in rack 1 as well: 12 GPUs are free (3 + 4 + 4 + 1), but no rack has 2 whole nodes.
    w.take(3, 3, 1);
    CHECK(w.view.free_gpus(0) == 12);
    CHECK_FALSE(p.place(w.view, 0, 5, out));
    CHECK_FALSE(p.place(w.view, 0, 8, out));
    CHECK(out.empty());
}

TEST_CASE("StrictLocalityPlacer: the rack with the fewest whole free nodes that suffice", "[unit]") {
    // 2 racks x 3 nodes x 4 GPUs: rack 0 = nodes 0-2 (all free), rack 1 = nodes 3-5 (node 5 partly busy).
    World w(R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 4}},
                "racks": [{"node_type": "n", "nodes": 3, "count": 2}]})",
            kOneModelProfile);
    StrictLocalityPlacer p;
    std::vector<NodeShare> out;
    w.take(5, 1, 0);
    REQUIRE(p.place(w.view, 0, 8, out));  // rack 1 has 2 whole nodes, rack 0 has 3: rack 1
    CHECK(shares(out) == Shares{{3, 4}, {4, 4}});
    REQUIRE(p.place(w.view, 0, 12, out));  // 3 nodes: only rack 0
    CHECK(shares(out) == Shares{{0, 4}, {1, 4}, {2, 4}});
    CHECK_FALSE(p.place(w.view, 0, 13, out));  // 4 nodes in one rack: none
}

TEST_CASE("strict-locality in a run: a start it cannot place is declined and the job waits", "[engine]") {
    // 3 nodes x 4 GPUs in one rack. a (3 GPUs) takes node 0, b (3 GPUs) node 1 (best fit), leaving 1 + 1 + 4 free.
    // c (5 GPUs, at t = 1) needs 2 whole free nodes: only node 2 is whole, so it waits until a ends at 100 and
    // finishes at 110. consolidated starts it at once on node 2 and node 0's last GPU.
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(3, 4), kUnusedProfile,
                                          "job_id,submit_time,num_gpus,duration\n"
                                          "a,0,3,100\n"
                                          "b,0,3,200\n"
                                          "c,1,5,10\n");
    const RunOutcome strict = run_with(in, "strict-locality");
    CHECK(start_s(strict, 2) == 100.0);
    CHECK(finish_s(strict, 2) == 110.0);
    CHECK(finish_s(strict, 1) == 200.0);
    const RunOutcome consolidated = run_with(in, "consolidated");
    CHECK(start_s(consolidated, 2) == 1.0);
    CHECK(finish_s(consolidated, 2) == 11.0);
}

}  // namespace dlsim::test::placers_tests
