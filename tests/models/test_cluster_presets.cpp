// Every preset in models/clusters/ loads, has the size its description states (numbers stated by hand
// here), and one uplink per preset has the capacity worked out by hand from its NICs and oversub.
#include "models/cluster.hpp"
#include "models/topology.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>

using namespace dlsim;

namespace dlsim::test::cluster_presets_tests {

namespace {

const std::string kDir = std::string(DLSIM_SOURCE_DIR) + "/models/clusters/";
constexpr double kGbps = 1e9 / 8;  // bytes/s per Gb/s

struct Expected {
    const char* file;
    std::size_t gpus, nodes;
    std::uint32_t racks;
};

// Hand-stated sizes (each from the preset's description).
const Expected kPresets[] = {
    {"minimal.json", 1, 1, 1},
    {"gavel_simulated.json", 108, 27, 3},
    {"gavel_108.json", 108, 27, 3},                  // 3 racks x 9 servers x 4 GPUs
    {"gavel_compat_108.json", 108, 108, 3},          // 3 racks x 36 servers x 1 GPU (Gavel's simulator)
    {"philly.json", 2490, 552, 2},                   // 321 x 2 + 231 x 8
    {"dgx_a100_superpod.json", 320, 40, 10},         // 2 SUs x 20 nodes x 8 GPUs, racks of 4
    {"leaf_spine_4to1_v100_pcie.json", 256, 64, 8},  // 8 racks x 8 servers x 4 GPUs
    {"alibaba_lingjun.json", 6776, 847, 119},        // 847 hosts x 8 GPUs, 119 (PSW, ASW) groups
    {"fat_tree_10240.json", 10240, 1280, 40},        // 5 pods x 8 racks x 32 nodes x 8 GPUs
    {"tiresias_blox_32x4.json", 128, 32, 4},         // 4 racks x 8 servers x 4 GPUs
    {"pollux_16x4_t4.json", 64, 16, 1},              // 16 x g4dn.12xlarge (4 T4)
    {"sia_homog_16x4_t4.json", 64, 16, 1},           // 16 aws nodes x 4 T4
    {"sia_hetero_64.json", 64, 11, 3},               // 6 x 4 T4 + 2 x 8 A100 + 3 x 8 RTX 2080 Ti
};

double up(const Topology& t, VertexIdx v) { return t.links()[t.up(v)].bytes_per_s; }

}  // namespace

TEST_CASE("cluster presets: every file in models/clusters loads with its stated size", "[unit]") {
    std::set<std::string> listed;
    for (const auto& e : kPresets) {
        INFO(e.file);
        listed.insert(e.file);
        const Cluster c = load_cluster(kDir + e.file);
        CHECK(c.num_gpus() == e.gpus);
        CHECK(c.nodes.size() == e.nodes);
        CHECK(c.num_racks == e.racks);
        const Topology topo(c);  // the fabric builds
        CHECK(topo.num_vertices() > c.nodes.size());
    }
    // A new preset must be added to the table above.
    for (const auto& f : std::filesystem::directory_iterator(kDir))
        if (f.path().extension() == ".json") CHECK(listed.count(f.path().filename().string()) == 1u);
}

TEST_CASE("cluster presets: uplink capacities by hand", "[unit]") {
    SECTION("gavel_108: a rack's leaf uplink = 9 servers x 10 Gb/s, non-blocking") {
        const Cluster c = load_cluster(kDir + "gavel_108.json");
        const Topology t(c);
        CHECK(up(t, 0) == Approx(10 * kGbps));                 // a server's one NIC
        CHECK(up(t, t.leaf_of(0)) == Approx(9 * 10 * kGbps));  // 11.25 GB/s
        CHECK(t.path_bottleneck(0, 9) == Approx(10 * kGbps));  // V100 rack to P100 rack: the NICs limit
        CHECK_FALSE(t.ideal());
    }
    SECTION("philly: the 8-GPU rack's uplink = 231 nodes x 100 Gb/s") {
        const Cluster c = load_cluster(kDir + "philly.json");
        const Topology t(c);
        CHECK(c.nodes[321].gpus == 8);
        CHECK(up(t, t.leaf_of(321)) == Approx(231 * 100 * kGbps));  // 2.8875 TB/s
        CHECK(up(t, t.leaf_of(0)) == Approx(321 * 100 * kGbps));
    }
    SECTION("dgx_a100_superpod: rails of an SU share one leaf group; its uplink = 20 x 8 x 200 Gb/s") {
        const Cluster c = load_cluster(kDir + "dgx_a100_superpod.json");
        const Topology t(c);
        CHECK(up(t, 0) == Approx(8 * 200 * kGbps));  // 200 GB/s per node
        CHECK(t.leaf_of(19) == t.leaf_of(0));
        CHECK(t.leaf_of(20) != t.leaf_of(0));
        CHECK(up(t, t.leaf_of(0)) == Approx(20 * 8 * 200 * kGbps));  // 4 TB/s, non-blocking
        CHECK(t.path_bottleneck(0, 39) == Approx(8 * 200 * kGbps));
        CHECK(t.widest_path(0, 39) == Approx(t.path_bottleneck(0, 39)));
    }
    SECTION("leaf_spine_4to1_v100_pcie: a rack's spine uplink = 8 x 100 Gb/s / 4") {
        const Cluster c = load_cluster(kDir + "leaf_spine_4to1_v100_pcie.json");
        const Topology t(c);
        CHECK(up(t, 0) == Approx(100 * kGbps));                     // 12.5 GB/s
        CHECK(up(t, t.leaf_of(0)) == Approx(8 * 100 * kGbps / 4));  // 25 GB/s
        // One pair alone is limited by its NICs; the 4:1 uplink binds when the rack's 8 nodes send at once.
        CHECK(t.path_bottleneck(0, 8) == Approx(100 * kGbps));
        CHECK(t.widest_path(0, 8) == Approx(100 * kGbps));
        CHECK(t.links()[t.up(t.leaf_of(0))].tier == 1);
    }
    SECTION("alibaba_lingjun: ToR P8/S1 (8 hosts) and PSW P8 (179 hosts), 4 x 200 Gb/s per host, 1:1") {
        const Cluster c = load_cluster(kDir + "alibaba_lingjun.json");
        const Topology t(c);
        CHECK(c.nodes[0].rack == 0u);
        CHECK(up(t, 0) == Approx(4 * 200 * kGbps));  // 100 GB/s per host
        const VertexIdx tor = t.leaf_of(0), psw = t.parent(tor);
        CHECK(up(t, tor) == Approx(8 * 4 * 200 * kGbps));            // 800 GB/s
        CHECK(t.parent(psw) == t.parent(t.parent(t.leaf_of(846))));  // one DSW above all
        CHECK(t.depth(0) == 3u);
    }
    SECTION("fat_tree_10240: a rack's spine uplink = 32 x 100 Gb/s / 4, a pod's core uplink = 8 of those") {
        const Cluster c = load_cluster(kDir + "fat_tree_10240.json");
        const Topology t(c);
        const VertexIdx leaf = t.leaf_of(0), spine = t.parent(leaf);
        CHECK(up(t, 0) == Approx(100 * kGbps));                         // one NIC, 12.5 GB/s
        CHECK(up(t, leaf) == Approx(32 * 100 * kGbps / 4));             // 100 GB/s
        CHECK(up(t, spine) == Approx(8 * 32 * 100 * kGbps / 4));        // 800 GB/s, 1:1 into the core
        CHECK(t.parent(spine) == t.parent(t.parent(t.leaf_of(1279))));  // one core above all
        CHECK(t.parent(spine) != t.parent(t.leaf_of(1279)));            // node 1279 is in another pod
        CHECK(t.links()[t.up(spine)].tier == 2);
    }
}

// A three-tier fabric: a spine's uplink is derived from the leaf uplinks below it (the spine of this
// preset once came out as 0 B/s because switches did not add to their parent's capacity).
TEST_CASE("cluster presets: alibaba_lingjun PSW P8's uplink = 179 hosts x 4 x 200 Gb/s", "[unit]") {
    const Cluster c = load_cluster(kDir + "alibaba_lingjun.json");
    const Topology t(c);
    const VertexIdx psw = t.parent(t.leaf_of(0));
    CHECK(up(t, psw) == Approx(179 * 4 * 200 * kGbps));           // 17.9 TB/s, 1:1
    CHECK(t.path_bottleneck(0, 846) == Approx(4 * 200 * kGbps));  // P8 to P12: the hosts' NICs
}

TEST_CASE("cluster presets: Pollux's and Sia's clusters have their GPUs per type, named as the profiles key them",
          "[unit]") {
    struct Count {
        const char* type;  ///< lower-cased, as a profile keys it
        int gpus, per_node;
    };
    const std::pair<const char*, std::vector<Count>> cases[] = {
        {"pollux_16x4_t4.json", {{"t4", 64, 4}}},
        {"sia_homog_16x4_t4.json", {{"t4", 64, 4}}},
        {"sia_hetero_64.json", {{"t4", 24, 4}, {"a100", 16, 8}, {"rtx", 24, 8}}},
    };
    for (const auto& [file, counts] : cases) {
        INFO(file);
        const Cluster c = load_cluster(kDir + file);
        CHECK(c.gpu_types.size() == counts.size());
        for (const auto& k : counts) {
            INFO(k.type);
            const auto t = c.find_gpu_type(k.type);
            REQUIRE(t);
            CHECK(lower_ascii(c.gpu_types[*t].name) == k.type);  // the name itself, lower-cased
            CHECK(c.gpus_of_type(*t) == k.gpus);
            for (const auto& n : c.nodes)
                if (n.gpu_type == *t) CHECK(n.gpus == k.per_node);
        }
    }
    // Sia's measurement-file names reach the same types.
    const Cluster h = load_cluster(kDir + "sia_hetero_64.json");
    CHECK(h.find_gpu_type("aws") == h.find_gpu_type("t4"));
    CHECK(h.find_gpu_type("dgx-ext") == h.find_gpu_type("a100"));
    CHECK(h.find_gpu_type("dgx") == h.find_gpu_type("a100"));
    // 50 Gb/s per T4 node (Pollux's testbed).
    const Cluster p = load_cluster(kDir + "pollux_16x4_t4.json");
    const Topology topo(p);
    CHECK(up(topo, 0) == Approx(50 * kGbps));  // nominal; the efficiency applies to transfers
}

}  // namespace dlsim::test::cluster_presets_tests
