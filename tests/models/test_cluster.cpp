// The cluster description (models/cluster.hpp): GPU types found through their aliases, and the numbering
// of nodes, GPUs and racks.
#include "models/base/input_error.hpp"
#include "models/cluster.hpp"
#include "tests/support/cluster_fixtures.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::cluster_tests {

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

}  // namespace dlsim::test::cluster_tests
