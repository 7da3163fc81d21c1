// The Lingjun 2023 topology importer (`dlsim trace cluster --format lingjun`): groups, their order, the
// compact three-tier form, format detection, bad input, and the committed preset as its exact output.
#include "models/base/input_error.hpp"
#include "models/cluster.hpp"
#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"
#include "traces/import/cluster_import.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::lingjun_tests {

using Catch::Matchers::Contains;

namespace {

/// Rows out of order on purpose: P10 before P8, S10 before S2, and ASW S1 under two PSWs.
const char* kSmallTopo =
    "ip,DSW,PSW,ASW\n"
    "h1,G1,P10,S1\n"
    "h2,G1,P8,S10\n"
    "h3,G1,P8,S2\n"
    "h4,G1,P8,S10\n"
    "h5,G1,P10,S1\n"
    "h6,G1,P8,S1\n";

}  // namespace

TEST_CASE("lingjun topo.csv: one rack per (PSW, ASW) group, natural order, pod = PSW", "[traces]") {
    const std::string text = cluster_from_lingjun_topology(write_temp("topo.csv", kSmallTopo));
    const auto doc = nlohmann::json::parse(text);
    CHECK(doc["schema"] == "dlsim.cluster/1");
    // P8 (S1: h6; S2: h3; S10: h2, h4) then P10 (S1: h1, h5): S1 under P10 is another group than under P8.
    CHECK(doc["racks"] == nlohmann::json::parse(R"([
        {"name": "P8/S1", "node_type": "host8", "nodes": 1, "pod": 0},
        {"name": "P8/S2", "node_type": "host8", "nodes": 1, "pod": 0},
        {"name": "P8/S10", "node_type": "host8", "nodes": 2, "pod": 0},
        {"name": "P10/S1", "node_type": "host8", "nodes": 2, "pod": 1}])"));
    CHECK(doc["fabric"]["tiers"].size() == 3u);
    const std::string description = doc["description"];
    CHECK_THAT(description, Contains("6 hosts under 4 ToR groups (1-2 hosts each) under 2 PSWs (P8: 3 groups, 4 "
                                     "hosts; P10: 1 groups, 2 hosts) under one DSW (G1)"));
    CHECK_THAT(description, Contains("[A]"));
    CHECK_THAT(doc["source"].get<std::string>(), Contains("topo.csv: github.com/alibaba/alibaba-lingjun-dataset-2023"));

    const Cluster c = parse_cluster(text, "lingjun.json");
    CHECK(c.nodes.size() == 6u);
    CHECK(c.num_gpus() == 48u);  // 8 GPUs per host
    CHECK(c.num_racks == 4u);
    CHECK(c.nodes[3].rack == 2u);  // nodes 2, 3 are P8/S10
    CHECK(c.nodes[3].pod == 0u);
    CHECK(c.nodes[4].pod == 1u);

    // The same groups whatever the row order: reversed rows give the same spec.
    const std::string reversed =
        "ip,DSW,PSW,ASW\nh6,G1,P8,S1\nh5,G1,P10,S1\nh4,G1,P8,S10\nh3,G1,P8,S2\n"
        "h2,G1,P8,S10\nh1,G1,P10,S1\n";
    CHECK(cluster_from_lingjun_topology(write_temp("topo.csv", reversed)) == text);
}

TEST_CASE("lingjun topo.csv: detected by its header; bad input names file, line and field", "[traces]") {
    CHECK(is_lingjun_topology(write_temp("any_name.csv", kSmallTopo)));
    CHECK(is_lingjun_topology(write_temp("crlf.csv", "\xEF\xBB\xBFip,DSW,PSW,ASW\r\nh1,G1,P1,S1\r\n")));
    CHECK_FALSE(is_lingjun_topology(write_temp("other.csv", "ip,DSW,PSW\nh1,G1,P1\n")));
    CHECK_FALSE(is_lingjun_topology(temp_path("missing.csv")));
    // Detection through the CLI: no --format, a name that says nothing.
    const std::string in = write_temp("net_layout.csv", kSmallTopo), out = temp_path("lingjun_out.json");
    const CliResult r = run_cli("trace cluster " + in + " --out " + out);
    CHECK(r.exit_code == 0);
    CHECK(slurp(out) == cluster_from_lingjun_topology(in));

    auto bad = [](const std::string& text) { return write_temp("topo_bad.csv", text); };
    CHECK_THROWS_WITH(cluster_from_lingjun_topology(bad("")), Contains("topo_bad.csv: empty file, expected the header "
                                                                       "'ip,DSW,PSW,ASW'"));
    CHECK_THROWS_WITH(cluster_from_lingjun_topology(bad("ip,DSW,PSW\nh1,G1,P1\n")),
                      Contains("topo_bad.csv:1: expected the header 'ip,DSW,PSW,ASW' (4 columns), got 3 columns"));
    CHECK_THROWS_WITH(cluster_from_lingjun_topology(bad("ip,DSW,ToR,ASW\nh1,G1,P1,S1\n")),
                      Contains("topo_bad.csv:1: header column 3 should be 'PSW'"));
    CHECK_THROWS_WITH(cluster_from_lingjun_topology(bad("ip,DSW,PSW,ASW\n")),
                      Contains("topo_bad.csv: no hosts after the header"));
    CHECK_THROWS_WITH(cluster_from_lingjun_topology(bad("ip,DSW,PSW,ASW\nh1,G1,P1,S1\nh2,G1,,S1\n")),
                      Contains("topo_bad.csv:3: column 'PSW': expected the host's PSW (aggregation switch), got ''"));
    CHECK_THROWS_WITH(cluster_from_lingjun_topology(bad("ip,DSW,PSW,ASW\nh1,G1,P1, \n")),
                      Contains("topo_bad.csv:2: column 'ASW': expected the host's ASW (ToR switch), got ''"));
    CHECK_THROWS_WITH(cluster_from_lingjun_topology(bad("ip,DSW,PSW,ASW\n,G1,P1,S1\n")),
                      Contains("topo_bad.csv:2: column 'ip'"));
    CHECK_THROWS_WITH(cluster_from_lingjun_topology(bad("ip,DSW,PSW,ASW\nh1,G1,P1,S1\nh2,G1,P1\n")),
                      Contains("topo_bad.csv:3: expected 4 fields (ip,DSW,PSW,ASW), got 3"));
    CHECK_THROWS_WITH(cluster_from_lingjun_topology(bad("ip,DSW,PSW,ASW\nh1,G1,P1,S1\nh1,G1,P1,S2\n")),
                      Contains("topo_bad.csv:3: column 'ip': expected a host not listed before, got 'h1'"));
    CHECK_THROWS_WITH(cluster_from_lingjun_topology(bad("ip,DSW,PSW,ASW\nh1,G1,P1,S1\nh2,G2,P1,S1\n")),
                      Contains("topo_bad.csv:3: column 'DSW': expected 'G1' as on line 2"));
    CHECK_THROWS_AS(cluster_from_lingjun_topology(temp_path("no_such_topo.csv")), InputError);
}

TEST_CASE("lingjun real data: the committed preset is exactly the importer's output", "[traces][shared-data]") {
    const std::string topo = std::string(DLSIM_SHARED_DATA) + "/lingjun2023/topo.csv";
    if (!shared_data_present(topo)) return;
    const std::string text = cluster_from_lingjun_topology(topo);
    CHECK(text == slurp(std::string(DLSIM_SOURCE_DIR) + "/models/clusters/alibaba_lingjun.json"));
    // PROVENANCE.txt's figures: 847 hosts, 119 (PSW, ASW) groups of 2-8 hosts under 3 PSWs.
    const Cluster c = parse_cluster(text, "alibaba_lingjun.json");
    CHECK(c.nodes.size() == 847u);
    CHECK(c.num_racks == 119u);
    CHECK_THAT(nlohmann::json::parse(text)["description"].get<std::string>(),
               Contains("847 hosts under 119 ToR groups (2-8 hosts each) under 3 PSWs"));
}

}  // namespace dlsim::test::lingjun_tests
