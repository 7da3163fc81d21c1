// Unit tests of the building blocks, each against numbers derived by hand (or, for the random
// number generator, by an independent implementation of the published algorithm).
#include "models/cluster.hpp"
#include "models/base/input_error.hpp"
#include "models/profile.hpp"
#include "models/rate_model.hpp"
#include "policies/cluster_view.hpp"
#include "policies/placement/consolidated_placer.hpp"
#include "policies/registry.hpp"
#include "policies/type_choice.hpp"
#include "sim/cluster_state.hpp"
#include "sim/event_queue.hpp"
#include "sim/metrics.hpp"
#include "traces/readers/canonical_csv.hpp"
#include "traces/readers/csv_reader.hpp"
#include "models/base/random.hpp"
#include "traces/generate/synthetic.hpp"
#include "tests/support/placer_support.hpp"

// Print std::optional values in failure messages (only this file compares them).
#define CATCH_CONFIG_ENABLE_OPTIONAL_STRINGMAKER
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <compare>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;
using Catch::Matchers::Contains;

namespace {

// ---------------------------------------------------------------------------------------------
// Fixtures (kTwoRacks and kOneModelProfile: tests/support/cluster_fixtures.hpp)
// ---------------------------------------------------------------------------------------------

/// Every field of a CSV line as owned strings.
std::vector<std::string> owned(const std::vector<std::string_view>& f) { return {f.begin(), f.end()}; }

}  // namespace

// =============================================================================================
// EventQueue
// =============================================================================================

TEST_CASE("EventQueue: same instant pops Completion, Failure, Arrival, Timer", "[unit]") {
    EventQueue q;
    q.push(5, Phase::Timer, 0, 0);
    q.push(5, Phase::Arrival, 1, 0);
    q.push(5, Phase::Completion, 2, 0);
    q.push(5, Phase::Failure, 3, 0);
    q.push(3, Phase::Timer, 4, 0);  // earlier time beats every phase
    q.push(5, Phase::Arrival, 5, 0);
    q.push(5, Phase::Completion, 6, 0);
    REQUIRE(q.size() == 7u);

    std::vector<std::uint32_t> jobs;
    std::vector<Time> times;
    while (!q.empty()) {
        const Event e = q.pop();
        jobs.push_back(e.job);
        times.push_back(e.time);
    }
    // t=3 first; then at t=5: completions (2, 6 by insertion), failure 3, arrivals (1, 5), timer 0.
    CHECK(jobs == std::vector<std::uint32_t>{4, 2, 6, 3, 1, 5, 0});
    CHECK(times == std::vector<Time>{3, 5, 5, 5, 5, 5, 5});
}

TEST_CASE("EventQueue: same time and phase pop in insertion order, seq is a global counter", "[unit]") {
    EventQueue q;
    for (std::uint32_t j = 0; j < 20; ++j) q.push(100, Phase::Arrival, j, j * 7);
    for (std::uint32_t j = 0; j < 20; ++j) {
        REQUIRE(q.top().job == j);
        const Event e = q.pop();
        CHECK(e.job == j);
        CHECK(e.seq == j);
        CHECK(e.generation == j * 7);
        CHECK(e.phase == Phase::Arrival);
    }
    CHECK(q.empty());
    q.push(1, Phase::Timer, 99, 0);
    CHECK(q.pop().seq == 20u);  // the counter keeps going after the queue empties
}

TEST_CASE("EventQueue: interleaved pushes and pops", "[unit]") {
    EventQueue q;
    q.push(10, Phase::Arrival, 1, 0);
    q.push(20, Phase::Completion, 2, 0);
    CHECK(q.pop().job == 1u);  // (10, Arrival)
    q.push(20, Phase::Arrival, 3, 0);
    q.push(15, Phase::Timer, 4, 0);
    q.push(20, Phase::Completion, 5, 0);  // same key as job 2 but later seq
    CHECK(q.pop().job == 4u);             // (15, Timer)
    q.push(20, Phase::Completion, 6, 0);
    CHECK(q.pop().job == 2u);
    q.push(18, Phase::Arrival, 7, 0);  // earlier than everything left
    CHECK(q.pop().job == 7u);
    CHECK(q.pop().job == 5u);
    CHECK(q.pop().job == 6u);
    CHECK(q.pop().job == 3u);
    CHECK(q.empty());
}

TEST_CASE("EventQueue: random interleaved pushes and pops match an ordered-set reference", "[unit]") {
    // Reference: a std::set ordered by (time, phase, insertion number). Fixed seed.
    Rng rng(12345);
    EventQueue q;
    std::set<std::tuple<Time, int, std::uint64_t, std::uint32_t>> ref;
    std::uint64_t pushed = 0;
    Time now = 0;
    for (int round = 0; round < 300; ++round) {
        const int pushes = static_cast<int>(rng.below(6));
        for (int k = 0; k < pushes; ++k) {
            const Time t = now + static_cast<Time>(rng.below(4));  // never before the current instant
            const int ph = static_cast<int>(rng.below(4));
            const auto job = static_cast<std::uint32_t>(pushed);
            q.push(t, static_cast<Phase>(ph), job, 0);
            ref.emplace(t, ph, pushed++, job);
        }
        const int pops = static_cast<int>(rng.below(5));
        for (int k = 0; k < pops && !q.empty(); ++k) {
            const Event e = q.pop();
            const auto expect = *ref.begin();
            ref.erase(ref.begin());
            REQUIRE(e.time == std::get<0>(expect));
            REQUIRE(static_cast<int>(e.phase) == std::get<1>(expect));
            REQUIRE(e.seq == std::get<2>(expect));
            REQUIRE(e.job == std::get<3>(expect));
            now = e.time;
        }
        REQUIRE(q.size() == ref.size());
    }
    while (!q.empty()) {
        const Event e = q.pop();
        REQUIRE(e.job == std::get<3>(*ref.begin()));
        ref.erase(ref.begin());
    }
    CHECK(ref.empty());
    CHECK(pushed > 500u);
}

// =============================================================================================
// ClusterState
// =============================================================================================

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
    CHECK_THROWS_AS(s.release(h1, 2), InternalError);          // job 2 does not hold job 1's GPUs
    CHECK(s.owner(8) == 1u);                                    // nothing was given back
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

// =============================================================================================
// ConsolidatedPlacer
// =============================================================================================

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

TEST_CASE("ConsolidatedPlacer: fewest nodes comes before one rack (DESIGN.md)", "[unit]") {
    // DESIGN.md "Rules of the model": "consolidated: the fewest nodes ..., then the fewest racks".
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

TEST_CASE("ConsolidatedPlacer: across racks, fewest racks among fewest-node placements (DESIGN.md)",
          "[unit]") {
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

// =============================================================================================
// pick_type
// =============================================================================================

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

TEST_CASE("pick_type: fastest by model rate, ties to cluster order, respects available", "[unit]") {
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
    j.runnable = 0b011;                                       // not c
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
    CHECK_THROWS_AS(parse_type_order("Fastest"), InputError);
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

// =============================================================================================
// resolve_params and the registry
// =============================================================================================

namespace {
std::vector<ParamSpec> sample_specs() {
    return {{"type_order", ParamType::Choice, "fastest", "which type", {"fastest", "spec"}},
            {"window", ParamType::Int, "10", "jobs looked at", {}},
            {"alpha", ParamType::Double, "0.5", "weight", {}},
            {"backfill", ParamType::Bool, "false", "allow backfill", {}}};
}
}  // namespace

TEST_CASE("resolve_params: defaults filled and values canonicalised", "[unit]") {
    const Params d = resolve_params("policy demo", sample_specs(), {});
    CHECK(d.values().size() == 4u);
    CHECK(d.get("type_order") == "fastest");
    CHECK(d.get_int("window") == 10);
    CHECK(d.get_double("alpha") == 0.5);
    CHECK_FALSE(d.get_bool("backfill"));
    CHECK(d.values().at("window").first == ParamType::Int);
    CHECK_THROWS_AS(d.get("nope"), InternalError);

    const Params p = resolve_params("policy demo", sample_specs(),
                                    {{"type_order", "spec"}, {"window", "7"}, {"alpha", "2.50"}, {"backfill", "1"}});
    CHECK(p.get("type_order") == "spec");
    CHECK(p.get_int("window") == 7);
    CHECK(p.get("alpha") == "2.5");
    CHECK(p.get_double("alpha") == 2.5);
    CHECK(p.get("backfill") == "true");
    CHECK(p.get_bool("backfill"));
}

TEST_CASE("resolve_params: unknown names and bad values are InputErrors naming what is valid", "[unit]") {
    const auto specs = sample_specs();
    CHECK_THROWS_AS(resolve_params("policy demo", specs, {{"widnow", "3"}}), InputError);
    CHECK_THROWS_WITH(resolve_params("policy demo", specs, {{"widnow", "3"}}),
                      Contains("widnow") && Contains("policy demo") && Contains("type_order") &&
                          Contains("window") && Contains("alpha") && Contains("backfill"));
    CHECK_THROWS_AS(resolve_params("policy demo", specs, {{"type_order", "slowest"}}), InputError);
    CHECK_THROWS_WITH(resolve_params("policy demo", specs, {{"type_order", "slowest"}}),
                      Contains("slowest") && Contains("fastest, spec") && Contains("type_order"));
    CHECK_THROWS_AS(resolve_params("d", specs, {{"window", "7x"}}), InputError);
    CHECK_THROWS_AS(resolve_params("d", specs, {{"window", ""}}), InputError);
    CHECK_THROWS_AS(resolve_params("d", specs, {{"window", "1.5"}}), InputError);
    CHECK_THROWS_AS(resolve_params("d", specs, {{"alpha", "inf"}}), InputError);
    CHECK_THROWS_AS(resolve_params("d", specs, {{"alpha", "x"}}), InputError);
    CHECK_THROWS_AS(resolve_params("d", specs, {{"backfill", "yes"}}), InputError);
    CHECK_THROWS_WITH(resolve_params("d", {}, {{"x", "1"}}), Contains("none"));
}

TEST_CASE("registry: built-in entries by name, unknown names list the valid ones", "[unit]") {
    const auto& fifo = builtin_policies().find("fifo");
    const Params p = resolve_params("fifo", fifo.params, {});
    CHECK(p.get("type_order") == "fastest");
    CHECK(fifo.make(p) != nullptr);
    CHECK_THROWS_AS(builtin_policies().find("fifoo"), InputError);
    CHECK_THROWS_WITH(builtin_policies().find("fifoo"), Contains("fifoo") && Contains("fifo, srtf"));
    CHECK_THROWS_WITH(builtin_placers().find("randomly"),
                      Contains("randomly") && Contains("consolidated, spread, random, strict-locality"));
}

// =============================================================================================
// percentile
// =============================================================================================

TEST_CASE("percentile: numpy linear interpolation", "[unit]") {
    const std::vector<double> v{1, 2, 3, 4};
    // position = q/100 * (n - 1): p50 -> 1.5, p95 -> 2.85, p99 -> 2.97.
    CHECK(percentile(v, 50) == Approx(2.5).margin(1e-12));
    CHECK(percentile(v, 95) == Approx(3.85).margin(1e-12));
    CHECK(percentile(v, 99) == Approx(3.97).margin(1e-12));
    CHECK(percentile(v, 0) == 1.0);
    CHECK(percentile(v, 100) == 4.0);
    CHECK(percentile(v, 25) == Approx(1.75).margin(1e-12));  // position 0.75

    const std::vector<double> one{7};
    CHECK(percentile(one, 0) == 7.0);
    CHECK(percentile(one, 50) == 7.0);
    CHECK(percentile(one, 99) == 7.0);
    CHECK(percentile(one, 100) == 7.0);

    // numpy.percentile([10, 20, 40, 80, 160], [50, 90]) = [40, 128]: positions 2 and 3.6.
    const std::vector<double> five{10, 20, 40, 80, 160};
    CHECK(percentile(five, 50) == Approx(40).margin(1e-12));
    CHECK(percentile(five, 90) == Approx(128).margin(1e-12));
}

// =============================================================================================
// Metrics
// =============================================================================================

namespace {
/// Two types: "a" on node 0 (4 GPUs), "b" on node 1 (4 GPUs).
const char* kTwoTypes =
    R"({"gpu_types": {"a": {}, "b": {}},
        "node_types": {"na": {"gpu_type": "a", "gpus": 4}, "nb": {"gpu_type": "b", "gpus": 4}},
        "racks": [{"node_type": "na", "nodes": 1}, {"node_type": "nb", "nodes": 1}]})";

Time sec(double s) { return to_time(s); }

/// Drives a Metrics observer the way the engine does, keeping the JobInfo records up to date.
struct MetricsDriver {
    MetricsDriver(const Cluster& c, std::size_t jobs, Time origin, std::size_t points)
        : m(c, jobs, origin, points), jobs(jobs), held(jobs) {}

    void arrive(Time t, JobIdx j) {
        this->jobs[j].submit = t;
        this->jobs[j].state = JobState::Queued;
        m.on_arrival(t, j, this->jobs[j]);
    }
    void start(Time t, JobIdx j, GpuTypeIdx type, int gpus) {
        JobInfo& x = this->jobs[j];
        if (x.first_start == kNever) x.first_start = t;
        x.state = JobState::Running;
        x.stint_start = t;
        x.gpu_type = type;
        x.alloc_gpus = gpus;
        held[j] = Allocation{type, {{0, gpus}}};
        m.on_start(t, j, x, held[j]);
    }
    void preempt(Time t, JobIdx j) {
        m.on_preempt(t, j, this->jobs[j], held[j]);
        this->jobs[j].attained += t - this->jobs[j].stint_start;
        this->jobs[j].state = JobState::Queued;
        this->jobs[j].alloc_gpus = 0;
        ++this->jobs[j].preemptions;
    }
    void finish(Time t, JobIdx j) {
        m.on_finish(t, j, this->jobs[j], held[j]);
        this->jobs[j].state = JobState::Finished;
        this->jobs[j].finish = t;
        this->jobs[j].alloc_gpus = 0;
    }

    Metrics m;
    std::vector<JobInfo> jobs;
    std::vector<Allocation> held;  // what each job holds (the engine's allocations)
};

/// The time unit of the hand-made run: 2^20 µs, so that the power-of-two bucket widths of
/// Metrics fall on whole units (5 points over 10 U -> width 2 U; 3 or 4 points -> width 4 U).
constexpr Time U = Time{1} << 20;

/// Three jobs over [0, 10 U] on kTwoTypes (a = type 0, b = type 1):
///   A: submit 0, runs on 2 a from 0 to 10.                                   JCT 10
///   B: submit 2, starts 4 on 3 b, finishes 8.                                 JCT 6
///   C: submit 3, 1 a from 5, preempted 6, restarts 7 on 1 b, finishes 9.      JCT 6
/// Piecewise values (busy a, busy b, queued, running):
///   [0,2) 2 0 0 1 | [2,3) 2 0 1 1 | [3,4) 2 0 2 1 | [4,5) 2 3 1 2 | [5,6) 3 3 0 3
///   [6,7) 2 3 1 2 | [7,8) 2 4 0 3 | [8,9) 2 1 0 2 | [9,10) 2 0 0 1
MetricsDriver three_job_run(const Cluster& c, std::size_t points) {
    MetricsDriver d(c, 3, 0, points);
    d.arrive(0, 0);
    d.start(0, 0, 0, 2);
    d.arrive(2 * U, 1);
    d.arrive(3 * U, 2);
    d.start(4 * U, 1, 1, 3);
    d.start(5 * U, 2, 0, 1);
    d.preempt(6 * U, 2);
    d.start(7 * U, 2, 1, 1);
    d.finish(8 * U, 1);
    d.finish(9 * U, 2);
    d.finish(10 * U, 0);
    return d;
}

/// ∫ (queued + running) dt over the series, in µs: the sum of JCTs by Little's identity.
double jobs_in_system_integral(const Timeseries& ts, Time last) {
    double sum = 0;
    for (std::size_t i = 0; i < ts.time.size(); ++i) {
        const double end = i + 1 < ts.time.size() ? ts.time[i + 1] : to_seconds(last);
        sum += (ts.queued[i] + ts.running[i]) * (end - ts.time[i]) * kMicrosPerSecond;
    }
    return sum;
}
}  // namespace

TEST_CASE("Metrics: one job busy 2 GPUs over [0, 10) s in 5 buckets", "[unit]") {
    const Cluster c = parse_cluster(kTwoTypes, "c.json");
    MetricsDriver d(c, 1, 0, 5);
    d.arrive(0, 0);
    d.start(0, 0, 0, 2);
    d.finish(sec(10), 0);

    // Bucket width: the smallest power of two (µs) w with 5·w >= 10^7, i.e. 2^21 µs = 2.097152 s;
    // ceil(10 / 2.097152) = 5 buckets, the last one [8.388608, 10) s.
    const Timeseries ts = d.m.timeseries();
    REQUIRE(ts.time.size() == 5u);
    REQUIRE(ts.busy.size() == 2u);
    for (std::size_t i = 0; i < 5; ++i) {
        INFO("bucket " << i);
        CHECK(ts.time[i] == Approx(2.097152 * static_cast<double>(i)).margin(1e-12));
        CHECK(ts.busy[0][i] == Approx(2.0).margin(1e-12));
        CHECK(ts.busy[1][i] == Approx(0.0).margin(1e-12));
        CHECK(ts.running[i] == Approx(1.0).margin(1e-12));
        CHECK(ts.queued[i] == Approx(0.0).margin(1e-12));
    }
    const Summary s = d.m.summarize(d.jobs, 3);
    CHECK(s.makespan == 10.0);
    CHECK(s.gpu_utilization == Approx(20.0 / 80.0).margin(1e-12));
    REQUIRE(s.gpu_utilization_by_type.size() == 2u);
    CHECK(s.gpu_utilization_by_type[0].first == "a");
    CHECK(s.gpu_utilization_by_type[0].second == Approx(0.5).margin(1e-12));
    CHECK(s.gpu_utilization_by_type[1].second == 0.0);
    CHECK(s.events == 3u);
}

TEST_CASE("Metrics: time-weighted bucket means of a hand-made run, Little's law", "[unit]") {
    const Cluster c = parse_cluster(kTwoTypes, "c.json");
    const MetricsDriver d = three_job_run(c, 5);
    const Timeseries ts = d.m.timeseries();
    REQUIRE(ts.time.size() == 5u);  // width 2 U
    const std::vector<double> busy_a{2, 2, 2.5, 2, 2}, busy_b{0, 0, 3, 3.5, 0.5};
    const std::vector<double> queued{0, 1.5, 0.5, 0.5, 0}, running{1, 1, 2.5, 2.5, 1.5};
    for (std::size_t i = 0; i < 5; ++i) {
        INFO("bucket " << i);
        CHECK(ts.time[i] == Approx(to_seconds(2 * U) * static_cast<double>(i)).margin(1e-12));
        CHECK(ts.busy[0][i] == Approx(busy_a[i]).margin(1e-9));
        CHECK(ts.busy[1][i] == Approx(busy_b[i]).margin(1e-9));
        CHECK(ts.queued[i] == Approx(queued[i]).margin(1e-9));
        CHECK(ts.running[i] == Approx(running[i]).margin(1e-9));
    }

    // Little's law: mean of (queued + running) over the window = λ·W = (3 / 10 U) · (22 U / 3) = 2.2.
    double mean_n = 0;
    for (std::size_t i = 0; i < 5; ++i) mean_n += (ts.queued[i] + ts.running[i]) / 5.0;
    const Summary s = d.m.summarize(d.jobs, 0);
    CHECK(mean_n == Approx(2.2).margin(1e-9));
    CHECK(s.avg_jct == Approx(to_seconds(22 * U) / 3.0).margin(1e-9));
    CHECK(mean_n == Approx(static_cast<double>(s.finished) / s.makespan * s.avg_jct).margin(1e-9));
    CHECK(jobs_in_system_integral(ts, 10 * U) == Approx(static_cast<double>(22 * U)).margin(1.0));
}

TEST_CASE("Metrics: fewer points widen the buckets by powers of two", "[unit]") {
    const Cluster c = parse_cluster(kTwoTypes, "c.json");
    // 3 points over 10 U: width 4 U (2 U · 3 < 10 U), so 3 buckets [0,4) [4,8) [8,10).
    // 4 points: 2 U · 4 = 8 U < 10 U too, so the same 4 U buckets (between points/2 and points of them).
    for (std::size_t points : {std::size_t{3}, std::size_t{4}}) {
        INFO("points " << points);
        const MetricsDriver d = three_job_run(c, points);
        const Timeseries ts = d.m.timeseries();
        REQUIRE(ts.time.size() == 3u);
        CHECK(ts.time[1] == Approx(to_seconds(4 * U)).margin(1e-12));
        CHECK(ts.time[2] == Approx(to_seconds(8 * U)).margin(1e-12));
        // Bucket 0: queued 1 on [2,3), 2 on [3,4) -> 3/4.   Bucket 1 [4,8): a 2,3,2,2; b 3,3,3,4;
        // queued 1,0,1,0; running 2,3,2,3.                  Bucket 2 [8,10): b 1,0; running 2,1.
        const std::vector<double> busy_a{2, 2.25, 2}, busy_b{0, 3.25, 0.5};
        const std::vector<double> queued{0.75, 0.5, 0}, running{1, 2.5, 1.5};
        for (std::size_t i = 0; i < 3; ++i) {
            INFO("bucket " << i);
            CHECK(ts.busy[0][i] == Approx(busy_a[i]).margin(1e-9));
            CHECK(ts.busy[1][i] == Approx(busy_b[i]).margin(1e-9));
            CHECK(ts.queued[i] == Approx(queued[i]).margin(1e-9));
            CHECK(ts.running[i] == Approx(running[i]).margin(1e-9));
        }
        // Whatever the bucketing, ∫ (queued + running) is the sum of the JCTs, 22 U.
        CHECK(jobs_in_system_integral(ts, 10 * U) == Approx(static_cast<double>(22 * U)).margin(1.0));
    }
}

TEST_CASE("Metrics: summary of the hand-made run", "[unit]") {
    const Cluster c = parse_cluster(kTwoTypes, "c.json");
    const MetricsDriver d = three_job_run(c, 5);
    const Summary s = d.m.summarize(d.jobs, 42);
    const double u = to_seconds(U);
    CHECK(s.jobs == 3u);
    CHECK(s.finished == 3u);
    CHECK(s.rejected == 0u);
    CHECK(s.unfinished == 0u);
    CHECK(s.events == 42u);
    CHECK(s.preemptions == 1u);
    CHECK(s.makespan == to_seconds(10 * U));
    CHECK(s.p50_jct == Approx(6 * u).margin(1e-12));            // sorted JCTs 6, 6, 10 U
    CHECK(s.p95_jct == Approx((6 + 0.9 * 4) * u).margin(1e-9));  // position 1.9
    CHECK(s.p99_jct == Approx((6 + 0.98 * 4) * u).margin(1e-9)); // position 1.98
    CHECK(s.avg_queueing_delay == Approx(4.0 / 3.0 * u).margin(1e-12));
    // Busy GPU-time: a = 2·10 + 1·1 = 21 U, b = 3·4 + 1·2 = 14 U; 8 GPUs over 10 U.
    CHECK(s.gpu_utilization == Approx(35.0 / 80.0).margin(1e-12));
    REQUIRE(s.gpu_utilization_by_type.size() == 2u);
    CHECK(s.gpu_utilization_by_type[0].second == Approx(21.0 / 40.0).margin(1e-12));
    CHECK(s.gpu_utilization_by_type[1].first == "b");
    CHECK(s.gpu_utilization_by_type[1].second == Approx(14.0 / 40.0).margin(1e-12));
    // C ran 1 U on a, then 2 U on b: its longest allocation is on b.
    CHECK(d.m.longest_type(0) == 0u);
    CHECK(d.m.longest_type(1) == 1u);
    CHECK(d.m.longest_type(2) == 1u);
}

TEST_CASE("Metrics: never more buckets than microseconds, none when points = 0", "[unit]") {
    const Cluster c = parse_cluster(kTwoTypes, "c.json");
    MetricsDriver d(c, 1, 100, 100);
    d.arrive(100, 0);
    d.start(100, 0, 1, 3);
    d.finish(105, 0);
    const Timeseries ts = d.m.timeseries();
    REQUIRE(ts.time.size() == 5u);  // [100, 105) µs in 1 µs buckets
    CHECK(ts.time[0] == Approx(100e-6).margin(1e-15));
    CHECK(ts.time[4] == Approx(104e-6).margin(1e-15));
    for (std::size_t i = 0; i < 5; ++i) {
        CHECK(ts.busy[1][i] == 3.0);
        CHECK(ts.busy[0][i] == 0.0);
    }
    CHECK(d.m.summarize(d.jobs, 0).makespan == Approx(5e-6).margin(1e-15));

    MetricsDriver none(c, 1, 0, 0);
    none.arrive(0, 0);
    none.start(0, 0, 0, 4);
    none.finish(sec(1), 0);
    CHECK(none.m.timeseries().time.empty());
    CHECK(none.m.summarize(none.jobs, 0).gpu_utilization == Approx(0.5).margin(1e-12));  // still integrated
}

// =============================================================================================
// CsvLines
// =============================================================================================

TEST_CASE("CsvLines: quotes, doubled quotes, CRLF, blank lines and line numbers", "[unit]") {
    std::string text =
        "a,b,c\r\n"                                 // 1
        "\r\n"                                      // 2 blank
        "\"x,y\",\"he said \"\"hi\"\"\",z\r\n"      // 3
        "   \n"                                     // 4 blank (spaces)
        "1,,3,\n"                                   // 5 trailing empty field
        "\t\r\n"                                    // 6 blank (tab)
        "\"\",last,\"q\"\n"                         // 7
        "plain, spaced ,\"a\"\"\"";                 // 8, no final newline
    CsvLines csv(text, "mem.csv", ',');
    std::vector<std::string_view> f;

    REQUIRE(csv.next(f));
    CHECK(csv.line() == 1u);
    CHECK(owned(f) == std::vector<std::string>{"a", "b", "c"});
    REQUIRE(csv.next(f));
    CHECK(csv.line() == 3u);
    CHECK(owned(f) == std::vector<std::string>{"x,y", "he said \"hi\"", "z"});
    REQUIRE(csv.next(f));
    CHECK(csv.line() == 5u);
    CHECK(owned(f) == std::vector<std::string>{"1", "", "3", ""});
    REQUIRE(csv.next(f));
    CHECK(csv.line() == 7u);
    CHECK(owned(f) == std::vector<std::string>{"", "last", "q"});
    REQUIRE(csv.next(f));
    CHECK(csv.line() == 8u);
    CHECK(owned(f) == std::vector<std::string>{"plain", " spaced ", "a\""});  // fields are not trimmed
    CHECK_FALSE(csv.next(f));
    CHECK(f.empty());
    CHECK(csv.origin() == "mem.csv");
}

TEST_CASE("CsvLines: other separators, unterminated quotes", "[unit]") {
    CsvLines semi("a;\"b;c\";d\n", "s.csv", ';');
    std::vector<std::string_view> f;
    REQUIRE(semi.next(f));
    CHECK(owned(f) == std::vector<std::string>{"a", "b;c", "d"});
    CHECK_FALSE(semi.next(f));

    CsvLines bad("h\n\n\"open,x\n", "bad.csv", ',');
    REQUIRE(bad.next(f));
    CHECK_THROWS_AS(bad.next(f), InputError);
    CsvLines bad2("h\n\n\"open,x\n", "bad.csv", ',');
    REQUIRE(bad2.next(f));
    CHECK_THROWS_WITH(bad2.next(f), Contains("bad.csv:3"));

    CHECK(trim(" \t x y \t") == "x y");
    CHECK(trim("   ").empty());
}

// =============================================================================================
// Canonical CSV round trip
// =============================================================================================

TEST_CASE("canonical CSV: write then parse round-trips every field", "[unit]") {
    Trace t;
    t.path = "mem";
    auto add = [&](std::string id, double submit, int gpus, double dur) -> JobRecord& {
        JobRecord j;
        j.id = std::move(id);
        j.submit_time = submit;
        j.num_gpus = gpus;
        j.duration = dur;
        t.jobs.push_back(j);
        return t.jobs.back();
    };
    {
        JobRecord& j = add("job,1", 0.0, 1, 3600.000001);
        j.model = t.strings.intern("ResNet-50 (batch size 64)");
        j.gpu_type = t.strings.intern("V100");
        j.allowed_gpu_types = t.strings.intern("v100|p100");
        j.user = t.strings.intern("alice");
        j.vc = t.strings.intern("vc,A");
        j.status = t.strings.intern("Pass");
        j.work = 12345.5;
        j.gpu_fraction = 0.5;
        j.priority = -2;
    }
    {
        JobRecord& j = add("q\"uote\"d", 0.1 + 0.2, 8, 1e-6);  // 0.30000000000000004
        j.model = t.strings.intern("Transformer, \"big\"");
        j.user = t.strings.intern("bob \"b\"");
        j.priority = 1.0 / 3.0;
    }
    add("plain", 123456789.123456, 1000000, 1e12);  // no optional field at all

    std::ostringstream out;
    write_canonical_csv(t, out);
    INFO(out.str());
    const Trace back = parse_canonical_csv(out.str(), "roundtrip.csv");
    REQUIRE(back.jobs.size() == t.jobs.size());
    for (std::size_t i = 0; i < t.jobs.size(); ++i) {
        const JobRecord& a = t.jobs[i];
        const JobRecord& b = back.jobs[i];
        INFO("job " << i);
        CHECK(b.id == a.id);
        CHECK(b.submit_time == a.submit_time);  // exact: shortest round-trip formatting
        CHECK(b.num_gpus == a.num_gpus);
        CHECK(b.duration == a.duration);
        CHECK(b.work == a.work);
        CHECK(b.gpu_fraction == a.gpu_fraction);
        CHECK(b.priority == a.priority);
        CHECK(back.strings[b.model] == t.strings[a.model]);
        CHECK(back.strings[b.gpu_type] == t.strings[a.gpu_type]);
        CHECK(back.strings[b.allowed_gpu_types] == t.strings[a.allowed_gpu_types]);
        CHECK(back.strings[b.user] == t.strings[a.user]);
        CHECK(back.strings[b.vc] == t.strings[a.vc]);
        CHECK(back.strings[b.status] == t.strings[a.status]);
        CHECK(b.line == i + 2);
    }
    CHECK(back.report.rows_read == 3u);
    CHECK(back.report.kept == 3u);

    // Only the used optional columns are written.
    Trace bare;
    JobRecord j;
    j.id = "x";
    j.num_gpus = 2;
    j.duration = 5;
    bare.jobs.push_back(j);
    std::ostringstream o2;
    write_canonical_csv(bare, o2);
    CHECK(o2.str() == "job_id,submit_time,num_gpus,duration\nx,0,2,5\n");
}

TEST_CASE("canonical CSV: a quoted field with a line break round-trips (RFC 4180)", "[unit]") {
    // write_canonical_csv quotes fields holding '\n' (RFC 4180), but CsvLines splits lines before
    // unquoting, so the file the writer produces is rejected as "unterminated quoted field".
    Trace t;
    JobRecord j;
    j.id = "two\nlines";
    j.duration = 1;
    t.jobs.push_back(j);
    std::ostringstream out;
    write_canonical_csv(t, out);
    Trace back;
    REQUIRE_NOTHROW(back = parse_canonical_csv(out.str(), "nl.csv"));
    REQUIRE(back.jobs.size() == 1u);
    CHECK(back.jobs[0].id == "two\nlines");
}

// =============================================================================================
// Rng and derive_seed
// =============================================================================================

TEST_CASE("Rng: known values of splitmix64 and xoshiro256**", "[unit]") {
    // splitmix64 from state 0 (reference values of Vigna's splitmix64.c).
    std::uint64_t st = 0;
    CHECK(splitmix64(st) == 0xe220a8397b1dcdafULL);
    CHECK(splitmix64(st) == 0x6e789e6aa1b965f4ULL);
    // xoshiro256** seeded with those four words (computed by an independent Python implementation).
    Rng r(0);
    CHECK(r.next() == 0x99ec5f36cb75f2b4ULL);
    CHECK(r.next() == 0xbf6e1f784956452aULL);
    CHECK(r.next() == 0x1a5f849d4933e6e0ULL);
    // FNV-1a of the purpose, xor the seed, one splitmix64 step.
    CHECK(derive_seed(42, "generate/arrivals") == 0x41064061b916792aULL);
}

TEST_CASE("Rng: deterministic, separate streams per purpose", "[unit]") {
    CHECK(derive_seed(42, "placement") == derive_seed(42, "placement"));
    CHECK(derive_seed(42, "placement") != derive_seed(42, "tie-breaks"));
    CHECK(derive_seed(42, "placement") != derive_seed(43, "placement"));
    CHECK(derive_seed(0, "") != derive_seed(1, ""));

    Rng a(7, "resample"), b(7, "resample"), c(7, "placement"), d(derive_seed(7, "resample"));
    int same_ac = 0;
    for (int i = 0; i < 1000; ++i) {
        const std::uint64_t x = a.next();
        REQUIRE(x == b.next());
        REQUIRE(x == d.next());
        same_ac += x == c.next();
    }
    CHECK(same_ac == 0);
}

TEST_CASE("Rng: uniform in [0, 1), exponential mean, below(n)", "[unit]") {
    Rng r(2024, "test");
    double lo = 1, hi = 0, sum = 0;
    int outside = 0;
    const int n = 200'000;
    for (int i = 0; i < n; ++i) {
        const double u = r.uniform();
        outside += u < 0.0 || u >= 1.0;
        lo = std::min(lo, u);
        hi = std::max(hi, u);
        sum += u;
    }
    CHECK(outside == 0);
    CHECK(lo < 1e-4);
    CHECK(hi > 1 - 1e-4);
    CHECK(sum / n == Approx(0.5).margin(0.005));  // SE = 0.29/sqrt(2e5) = 0.00065
    const double u = r.uniform(3.0, 5.0);
    CHECK(u >= 3.0);
    CHECK(u < 5.0);

    // Exponential with rate 2: mean 0.5, SE of the mean over 1e6 draws = 0.0005 (0.1 %).
    Rng e(99, "exp");
    double esum = 0;
    const int m = 1'000'000;
    for (int i = 0; i < m; ++i) esum += e.exponential(2.0);
    CHECK(esum / m == Approx(0.5).epsilon(0.01));

    Rng b(5, "below");
    std::array<int, 4> counts{};  // counts[3]: out of range
    for (int i = 0; i < 30'000; ++i) ++counts[std::min<std::uint64_t>(b.below(3), 3)];
    CHECK(counts[3] == 0);
    for (std::size_t k = 0; k < 3; ++k) CHECK(std::abs(counts[k] - 10'000) < 500);  // SD = 82
}

// =============================================================================================
// generate_gavel_mix
// =============================================================================================

TEST_CASE("generate_gavel_mix: deterministic in its options", "[unit]") {
    GavelMixOptions o;
    o.num_jobs = 500;
    o.jobs_per_hour = 30;
    o.seed = 7;
    const Trace a = generate_gavel_mix(o), b = generate_gavel_mix(o);
    REQUIRE(a.jobs.size() == 500u);
    REQUIRE(b.jobs.size() == 500u);
    for (std::size_t i = 0; i < a.jobs.size(); ++i) {
        REQUIRE(a.jobs[i].id == b.jobs[i].id);
        REQUIRE(a.jobs[i].submit_time == b.jobs[i].submit_time);
        REQUIRE(a.jobs[i].num_gpus == b.jobs[i].num_gpus);
        REQUIRE(a.jobs[i].duration == b.jobs[i].duration);
    }
    CHECK(a.jobs[0].submit_time == 0.0);
    CHECK(a.jobs[0].id == "0");
    CHECK(a.jobs[499].id == "499");

    o.seed = 8;
    const Trace c = generate_gavel_mix(o);
    CHECK(c.jobs[1].submit_time != a.jobs[1].submit_time);

    // Adding models leaves arrivals, sizes and durations unchanged (separate streams).
    o.seed = 7;
    o.models = {"m1", "m2"};
    const Trace d = generate_gavel_mix(o);
    int m1 = 0;
    for (std::size_t i = 0; i < d.jobs.size(); ++i) {
        REQUIRE(d.jobs[i].submit_time == a.jobs[i].submit_time);
        REQUIRE(d.jobs[i].num_gpus == a.jobs[i].num_gpus);
        REQUIRE(d.jobs[i].duration == a.jobs[i].duration);
        const std::string& name = d.strings[d.jobs[i].model];
        REQUIRE((name == "m1" || name == "m2"));
        m1 += name == "m1";
    }
    CHECK(std::abs(m1 - 250) < 60);  // SE = 11
    CHECK(a.strings[a.jobs[0].model].empty());

    o.num_jobs = 0;
    CHECK_THROWS_AS(generate_gavel_mix(o), InputError);
    o.num_jobs = 1;
    o.jobs_per_hour = 0;
    CHECK_THROWS_AS(generate_gavel_mix(o), InputError);
}

TEST_CASE("generate_gavel_mix: published statistics over 100k jobs", "[unit]") {
    GavelMixOptions o;
    o.num_jobs = 100'000;
    o.jobs_per_hour = 240;  // one per 15 s
    o.seed = 1;
    const Trace t = generate_gavel_mix(o);
    REQUIRE(t.jobs.size() == o.num_jobs);
    std::array<int, 9> by_gpus{};
    int long_jobs = 0, bad_gpus = 0, bad_duration = 0, backwards = 0, not_whole_us = 0;
    double prev = 0;
    for (const auto& j : t.jobs) {
        const bool ok = j.num_gpus == 1 || j.num_gpus == 2 || j.num_gpus == 4 || j.num_gpus == 8;
        bad_gpus += !ok;
        if (ok) ++by_gpus[static_cast<std::size_t>(j.num_gpus)];
        // 60·10^1.5 = 1897.37 s .. 60·10^4 = 600000 s
        bad_duration += j.duration < 1897.36 || j.duration > 600000.0;
        long_jobs += j.duration > 60e3;
        backwards += j.submit_time < prev;
        not_whole_us += j.submit_time != std::round(j.submit_time * 1e6) / 1e6;
        prev = j.submit_time;
    }
    CHECK(bad_gpus == 0);
    CHECK(bad_duration == 0);
    CHECK(backwards == 0);
    CHECK(not_whole_us == 0);
    const double n = static_cast<double>(o.num_jobs);
    CHECK(by_gpus[1] / n == Approx(0.70).margin(0.01));
    CHECK(by_gpus[2] / n == Approx(0.10).margin(0.01));
    CHECK(by_gpus[4] / n == Approx(0.15).margin(0.01));
    CHECK(by_gpus[8] / n == Approx(0.05).margin(0.01));
    CHECK(long_jobs / n == Approx(0.2).margin(0.01));
    // n - 1 exponential gaps: rate estimate within 2 % (SE 0.32 %).
    const double rate_per_hour = (n - 1) / t.jobs.back().submit_time * 3600.0;
    CHECK(rate_per_hour == Approx(240.0).epsilon(0.02));
}

// =============================================================================================
// Cluster
// =============================================================================================

namespace {
// Nodes: rack 0 = n0, n1 (small, 2 V100 each); rack 1 = n2 (old, 4 K80); rack 2 = n3 (old);
// rack 3 = n4 (big, 8 V100). GPUs: n0 0-1, n1 2-3, n2 4-7, n3 8-11, n4 12-19.
const char* kMixedCluster = R"({
  "name": "mixed",
  "reference_gpu_type": "k80",
  "gpu_types": {"V100": {"aliases": ["v100-SXM2-16GB", "Tesla V100"], "mem_gb": 16}, "K80": {"aliases": ["tesla-k80"]}},
  "node_types": {"big": {"gpu_type": "v100", "gpus": 8}, "small": {"gpu_type": "V100", "gpus": 2},
                 "old": {"gpu_type": "Tesla-K80", "gpus": 4}},
  "racks": [{"node_type": "small", "nodes": 2}, {"node_type": "old", "nodes": 1, "count": 2},
            {"node_type": "big", "nodes": 1}]})";
}  // namespace

TEST_CASE("Cluster: type lookup through aliases, case-insensitively", "[unit]") {
    const Cluster c = parse_cluster(kMixedCluster, "mixed.json");
    REQUIRE(c.gpu_types.size() == 2u);
    CHECK(c.gpu_types[0].name == "V100");  // file order is cluster order
    CHECK(c.gpu_types[1].name == "K80");
    CHECK(c.gpu_types[0].mem_gb == 16.0);
    CHECK(c.find_gpu_type("V100") == std::optional<GpuTypeIdx>(0));
    CHECK(c.find_gpu_type("v100") == std::optional<GpuTypeIdx>(0));
    CHECK(c.find_gpu_type("V100-sxm2-16gb") == std::optional<GpuTypeIdx>(0));
    CHECK(c.find_gpu_type("TESLA V100") == std::optional<GpuTypeIdx>(0));
    CHECK(c.find_gpu_type("k80") == std::optional<GpuTypeIdx>(1));
    CHECK(c.find_gpu_type("TESLA-K80") == std::optional<GpuTypeIdx>(1));
    CHECK(c.find_gpu_type("A100") == std::nullopt);
    CHECK(c.find_gpu_type("") == std::nullopt);
    CHECK(c.find_gpu_type("v100 ") == std::nullopt);
    CHECK(c.reference_gpu_type == 1u);
    CHECK(lower_ascii("AbC-9_Z") == "abc-9_z");

    const Cluster d = parse_cluster(R"({"gpu_types": {"x": {}, "y": {}},
        "node_types": {"n": {"gpu_type": "y", "gpus": 1}}, "racks": [{"node_type": "n", "nodes": 1}]})",
                                    "d.json");
    CHECK(d.reference_gpu_type == 0u);  // default: the first type
    CHECK(d.gpus_of_type(0) == 0);
    CHECK(d.gpus_of_type(1) == 1);

    // An alias that names another type is an input error.
    CHECK_THROWS_AS(parse_cluster(R"({"gpu_types": {"a": {}, "b": {"aliases": ["A"]}},
        "node_types": {"n": {"gpu_type": "a", "gpus": 1}}, "racks": [{"node_type": "n", "nodes": 1}]})",
                                  "dup.json"),
                    InputError);
}

TEST_CASE("Cluster: node and GPU numbering, per-type counts", "[unit]") {
    const Cluster c = parse_cluster(kMixedCluster, "mixed.json");
    REQUIRE(c.nodes.size() == 5u);
    CHECK(c.num_racks == 4u);
    CHECK(c.num_gpus() == 20u);
    const std::vector<GpuIdx> first{0, 2, 4, 8, 12};
    const std::vector<int> gpus{2, 2, 4, 4, 8};
    const std::vector<GpuTypeIdx> type{0, 0, 1, 1, 0};
    const std::vector<std::uint32_t> rack{0, 0, 1, 2, 3};
    for (NodeIdx n = 0; n < 5; ++n) {
        INFO("node " << n);
        CHECK(c.nodes[n].first_gpu == first[n]);
        CHECK(c.nodes[n].gpus == gpus[n]);
        CHECK(c.nodes[n].gpu_type == type[n]);
        CHECK(c.nodes[n].rack == rack[n]);
        for (int g = 0; g < gpus[n]; ++g) CHECK(c.node_of_gpu(first[n] + static_cast<GpuIdx>(g)) == n);
    }
    CHECK(c.node_types[c.nodes[4].node_type].name == "big");
    CHECK(c.gpus_of_type(0) == 12);
    CHECK(c.gpus_of_type(1) == 8);
    CHECK(c.max_node_gpus(0) == 8);
    CHECK(c.max_node_gpus(1) == 4);
}

// =============================================================================================
// RateModel
// =============================================================================================

TEST_CASE("RateModel: single, rate and single_by_name", "[unit]") {
    const Cluster c = parse_cluster(kMixedCluster, "mixed.json");
    // resnet: V100 through its alias, K80 by name, P100 only in the profile.
    // bert: no K80 entry (cannot run there). both: name beats alias.
    const ProfileSet p = parse_profiles(R"({"models": {
        "resnet": {"throughput": {"V100-SXM2-16GB": 4.0, "k80": 1.0, "P100": 2.5}},
        "bert":   {"throughput": {"tesla v100": 3.0}},
        "both":   {"throughput": {"v100-sxm2-16gb": 6.0, "V100": 5.0, "K80": 0}}}})",
                                        "p.json");
    const RateModel r(c, p);
    const ModelIdx resnet = 0, bert = 1, both = 2;
    CHECK(r.single(resnet, 0) == 4.0);
    CHECK(r.single(resnet, 1) == 1.0);
    CHECK(r.single(bert, 0) == 3.0);
    CHECK(r.single(bert, 1) == 0.0);
    CHECK(r.single(both, 0) == 5.0);
    CHECK(r.single(both, 1) == 0.0);
    CHECK(r.single(kNoModel, 0) == 1.0);
    CHECK(r.single(kNoModel, 1) == 1.0);
    CHECK(r.rate(resnet, 0, 4) == 16.0);
    CHECK(r.rate(resnet, 1, 3) == 3.0);
    CHECK(r.rate(kNoModel, 1, 3) == 3.0);
    CHECK(r.rate(bert, 1, 8) == 0.0);

    CHECK(r.single_by_name(resnet, "v100") == std::optional<double>(4.0));       // cluster type
    CHECK(r.single_by_name(resnet, "Tesla V100") == std::optional<double>(4.0)); // cluster alias
    CHECK(r.single_by_name(resnet, "p100") == std::optional<double>(2.5));       // profile-only type
    CHECK(r.single_by_name(bert, "P100") == std::optional<double>(0.0));         // known type, not for bert
    CHECK(r.single_by_name(bert, "k80") == std::optional<double>(0.0));
    CHECK(r.single_by_name(resnet, "A100") == std::nullopt);
    CHECK(r.single_by_name(kNoModel, "K80") == std::optional<double>(1.0));
    CHECK(r.single_by_name(kNoModel, "P100") == std::optional<double>(1.0));
    CHECK(r.single_by_name(kNoModel, "A100") == std::nullopt);
}
