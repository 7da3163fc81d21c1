// The network model (models/README.md) against hand-computed numbers: ring all-reduce (as NCCL defines it,
// github.com/NVIDIA/nccl-tests doc/PERFORMANCE.md: 2(n−1)/n · S / B plus 2(n−1) latency steps) on one
// NVSwitch node, over NICs, and behind an oversubscribed uplink; contention between two jobs on one uplink
// under every mode; re-rating confined to the changed component.
#include "models/network_model.hpp"

#include "models/base/input_error.hpp"
#include "models/cluster.hpp"
#include "models/measured_scaling.hpp"
#include "models/profile.hpp"
#include "models/rate_model.hpp"
#include "models/topology.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace dlsim;

namespace dlsim::test::network_tests {

namespace {

/// 1e-9 relative.
bool exact(double got, double want) { return std::abs(got - want) <= 1e-9 * std::abs(want); }

/// One model per entry: name, single-GPU iterations/s on type "g", parameters (fp32 gradients).
ProfileSet profile(std::vector<std::tuple<std::string, double, long long>> models) {
    std::string text = R"({"schema": "dlsim.profile/1", "models": {)";
    for (std::size_t i = 0; i < models.size(); ++i) {
        const auto& [name, thr, params] = models[i];
        text += (i ? "," : "") + ("\"" + name + "\": {\"throughput\": {\"g\": " + std::to_string(thr) +
                                  "}, \"params\": " + std::to_string(params) + "}");
    }
    return parse_profiles(text + "}}", "test-profile");
}

/// A cluster, its topology, rates and a network model in one place.
struct Net {
    Cluster cluster;
    ProfileSet profiles;
    RateModel rates;
    Topology topology;
    NetworkPerformance model;
    std::vector<RateChange> changed;

    Net(const std::string& spec, ProfileSet p, ContentionMode mode)
        : cluster(parse_cluster(spec, "test-cluster")),
          profiles(std::move(p)),
          rates(cluster, profiles),
          topology(cluster),
          model(topology, rates, comm_models(), NetworkOptions{.mode = mode}) {}

    std::vector<CommModel> comm_models() const {
        std::vector<CommModel> out;
        for (const ModelProfile& m : profiles.models) out.push_back({static_cast<double>(m.gradient_bytes()), 3, 25e6});
        return out;
    }
    /// Starts job j of model m on (node, gpus) shares; returns its rate.
    double start(JobIdx j, ModelIdx m, std::vector<NodeShare> shares) {
        changed.clear();
        model.allocated(0, j, m, Allocation{0, std::move(shares)}, changed);
        REQUIRE(!changed.empty());
        REQUIRE(changed.front().job == j);
        return changed.front().rate;
    }
};

constexpr double kS = 100e6 * 4;     // 100 M fp32 parameters
constexpr double kTcomp = 0.1;       // 10 iterations/s on one GPU
constexpr double kCollectives = 16;  // ⌈4e8 / 25e6⌉

double ring(int n, double bandwidth, double alpha) {
    return kCollectives * 2 * (n - 1) * alpha + 2.0 * (n - 1) / n * kS / bandwidth;
}
double rate_of(int n, double t_comm) { return n / std::cbrt(std::pow(kTcomp, 3) + std::pow(t_comm, 3)); }

}  // namespace

TEST_CASE("network: an 8-GPU job's all-reduce on one NVSwitch node, over NICs, and behind a 4:1 uplink", "[network]") {
    SECTION("one NVSwitch node: 300 GB/s per GPU at η 0.7, 1 µs per step") {
        Net net(R"({"gpu_types": {"g": {}}, "node_types": {"dgx": {"gpu_type": "g", "gpus": 8,
                    "intra": {"kind": "nvswitch", "gbps_per_gpu": 2400, "eff": 0.7, "lat_us": 1}}},
                    "racks": [{"node_type": "dgx", "nodes": 1}]})",
                profile({{"m", 10, 100'000'000}}), ContentionMode::Duty);
        const double t_comm = ring(8, 0.7 * 300e9, 1e-6);
        CHECK(exact(t_comm, 16 * 14 * 1e-6 + 1.75 * 4e8 / 210e9));
        const double rate = net.start(0, 0, {{0, 8}});
        CHECK(exact(net.model.comm_seconds_now(0), t_comm));
        CHECK(exact(rate, rate_of(8, t_comm)));
    }
    SECTION("8 single-GPU nodes: a ring over 100 Gb/s NICs at η 0.9, 5 µs + 0.5 µs through the switch") {
        Net net(R"({"gpu_types": {"g": {}}, "node_types": {"one": {"gpu_type": "g", "gpus": 1,
                    "nics": 1, "nic_gbps": 100, "nic_eff": 0.9, "nic_lat_us": 5}},
                    "fabric": {"tiers": [{"name": "leaf", "lat_us": 0.5}]},
                    "racks": [{"node_type": "one", "nodes": 8}]})",
                profile({{"m", 10, 100'000'000}}), ContentionMode::Duty);
        std::vector<NodeShare> shares;
        for (NodeIdx n = 0; n < 8; ++n) shares.push_back({n, 1});
        const double t_comm = ring(8, 0.9 * 12.5e9, 5.5e-6);
        const double rate = net.start(0, 0, shares);
        CHECK(exact(net.model.comm_seconds_now(0), t_comm));
        CHECK(exact(rate, rate_of(8, t_comm)));
        CHECK(exact(net.model.bandwidth(0), 12.5e9));
    }
    SECTION("two racks of two 4-GPU PCIe nodes, spine 4:1: the rack uplink (2 × 12.5 GB/s ÷ 4) is the bottleneck") {
        Net net(R"({"gpu_types": {"g": {}}, "node_types": {"pcie4": {"gpu_type": "g", "gpus": 4,
                    "intra": {"kind": "pcie"}, "nics": 1, "nic_gbps": 100, "nic_eff": 0.9, "nic_lat_us": 5}},
                    "fabric": {"tiers": [{"name": "leaf", "lat_us": 0.5}, {"name": "spine", "oversub": 4, "lat_us": 0.5}]},
                    "racks": [{"node_type": "pcie4", "nodes": 2, "count": 2}]})",
                profile({{"m", 10, 100'000'000}}), ContentionMode::Duty);
        const auto& links = net.topology.links();
        CHECK(exact(links[net.topology.up(net.topology.leaf_of(0))].bytes_per_s, 2 * 12.5e9 / 4));
        CHECK(exact(net.topology.path_bottleneck(0, 2), 6.25e9));
        CHECK(exact(net.topology.widest_path(0, 2), 6.25e9));  // Boost.Graph's widest path agrees
        CHECK(exact(net.topology.widest_path(0, 1), 12.5e9));
        // Node 0 (rack 0) and node 2 (rack 1), 4 GPUs each. Intra: PCIe gen 3 15.75 GB/s × 0.8 = 12.6 GB/s;
        // inter: one channel at min(NIC 12.5, uplink 6.25) GB/s × 0.9 = 5.625 GB/s. α: 5 µs + leaf, spine,
        // leaf at 0.5 µs = 6.5 µs (more than PCIe's 2 µs).
        CHECK(exact(net.topology.path_latency(0, 2), 6.5e-6));
        const double t_comm = ring(8, 0.9 * 6.25e9, 6.5e-6);
        const double rate = net.start(0, 0, {{0, 4}, {2, 4}});
        CHECK(exact(net.model.comm_seconds_now(0), t_comm));
        CHECK(exact(rate, rate_of(8, t_comm)));
        CHECK(net.model.record(0).max_racks == 2);
    }
}

namespace {

/// Two racks of four 4-GPU nodes with one 100 Gb/s NIC each; the spine is 4:1, so each rack's uplink
/// carries 4 × 12.5 / 4 = 12.5 GB/s. Two 16-GPU jobs take two nodes in each rack: both rings cross
/// both racks' uplinks, each with one channel.
const char* kTwoRacks = R"({"gpu_types": {"g": {}}, "node_types": {"n4": {"gpu_type": "g", "gpus": 4,
    "nics": 1, "nic_gbps": 100, "nic_eff": 1, "nic_lat_us": 0}},
    "fabric": {"tiers": [{"name": "leaf"}, {"name": "spine", "oversub": 4}]},
    "racks": [{"node_type": "n4", "nodes": 4, "count": 2}]})";
constexpr double kUplink = 12.5e9;

std::vector<NodeShare> job_a() { return {{0, 4}, {1, 4}, {4, 4}, {5, 4}}; }
std::vector<NodeShare> job_b() { return {{2, 4}, {3, 4}, {6, 4}, {7, 4}}; }

/// Communication time of a 16-GPU ring (4 nodes, 4 GPUs each, ideal intra) at per-channel bandwidth x;
/// no latency. `s` gradient bytes.
double comm16(double s, double x) { return 2.0 * 15 / 16 * s / x; }
double phi16(double s, double t_comp, double x) {
    const double tc = comm16(s, x);
    return tc / std::cbrt(std::pow(t_comp, 3) + std::pow(tc, 3));
}

}  // namespace

TEST_CASE("network: two 16-GPU jobs across one oversubscribed uplink, under every contention mode", "[network]") {
    // 100 M parameters and 10 it/s: alone, T_comm = 2·15/16·4e8 / 12.5e9 = 0.06 s against T_comp = 0.1 s.
    const ProfileSet p = profile({{"m", 10, 100'000'000}});
    auto run = [&](ContentionMode mode) {
        Net net(kTwoRacks, p, mode);
        net.start(0, 0, job_a());
        net.start(1, 0, job_b());
        return std::pair{net.model.bandwidth(0), net.model.bandwidth(1)};
    };
    const auto none = run(ContentionMode::None);
    CHECK(exact(none.first, kUplink));  // each as if alone: all of it
    CHECK(exact(none.second, kUplink));
    const auto maxmin = run(ContentionMode::MaxMin);
    CHECK(exact(maxmin.first, kUplink / 2));  // each half
    CHECK(exact(maxmin.second, kUplink / 2));

    // duty: x = C / (1 + φ(x)), the same for both; solved here by bisection to 1e-12.
    double lo = kUplink / 2, hi = kUplink;
    for (int i = 0; i < 200; ++i) {
        const double mid = (lo + hi) / 2;
        (mid < kUplink / (1 + phi16(kS, kTcomp, mid)) ? lo : hi) = mid;
    }
    // The model's own procedure, by hand: Jacobi sweeps from the isolated duty cycles, stopping at a
    // relative change below 1e-3 or after 10 sweeps (as the model iterates). The same arithmetic, so exact.
    auto sweeps = [&](bool duty_mode) {
        double x = kUplink, phi = phi16(kS, kTcomp, x);
        for (int sweep = 0; sweep < 10; ++sweep) {
            const double s = phi + phi;
            const double next = duty_mode ? kUplink / (1 + s - 1 * phi) : (s > 1 ? kUplink / (1 * s) : kUplink / 1);
            const double change = std::abs(next - x) / x;
            x = next;
            phi = phi16(kS, kTcomp, x);
            if (change < 1e-3) break;
        }
        return x;
    };
    const auto duty = run(ContentionMode::Duty);
    CHECK(duty.first == duty.second);
    CHECK(exact(duty.first, sweeps(true)));
    CHECK(std::abs(duty.first - lo) / lo < 5e-3);  // and near the exact fixed point
    // interleave: U = 2φ; x = C / U when U > 1. φ alone = 0.06 / (0.1³ + 0.06³)^(1/3) ≈ 0.565 → U > 1.
    lo = kUplink / 2, hi = kUplink;
    for (int i = 0; i < 200; ++i) {
        const double mid = (lo + hi) / 2;
        const double u = 2 * phi16(kS, kTcomp, mid);
        (mid < (u > 1 ? kUplink / u : kUplink) ? lo : hi) = mid;
    }
    const auto interleave = run(ContentionMode::Interleave);
    CHECK(exact(interleave.first, sweeps(false)));
    CHECK(std::abs(interleave.first - lo) / lo < 5e-3);
    // The order the spec states on one bottleneck: interleave ≥ duty ≥ maxmin.
    CHECK(interleave.first >= duty.first);
    CHECK(duty.first >= maxmin.first);
    CHECK(duty.first < kUplink);

    SECTION("priority: the job with more compute per byte gets the link; the other what it leaves idle") {
        // Model "dense" computes 4× longer per iteration than "light" for the same gradients.
        Net net(kTwoRacks, profile({{"light", 10, 100'000'000}, {"dense", 2.5, 100'000'000}}),
                ContentionMode::Priority);
        net.start(0, 0, job_a());
        net.start(1, 1, job_b());
        CHECK(exact(net.model.bandwidth(1), kUplink));  // the higher-intensity job: its full rate
        const double phi_dense = phi16(kS, 0.4, kUplink);
        CHECK(exact(net.model.bandwidth(0), kUplink * (1 - phi_dense)));
    }
}

// A job inside one node crosses no finite link and has no NIC cap: maxmin's progressive filling once
// never froze it and looped for ever (found by bench_network, whose first job is such a job).
TEST_CASE("network: a one-node job next to a multi-node one gets its isolated rate under every mode", "[network]") {
    const ProfileSet p = profile({{"m", 10, 100'000'000}});
    for (ContentionMode mode : {ContentionMode::None, ContentionMode::Penalty, ContentionMode::MaxMin,
                                ContentionMode::Duty, ContentionMode::Interleave, ContentionMode::Priority}) {
        Net iso(kTwoRacks, p, ContentionMode::None);
        Net net(kTwoRacks, p, mode);
        CHECK(exact(net.start(0, 0, {{0, 4}}), iso.start(0, 0, {{0, 4}})));
        net.start(1, 0, job_b());
        CHECK(exact(net.start(2, 0, {{1, 4}}), iso.start(2, 0, {{1, 4}})));
    }
}

TEST_CASE("network: a change re-rates only the jobs that share links with it", "[network]") {
    // Two racks of two 4-GPU nodes behind a 4:1 spine. Jobs A and C share rack 0's NICs; B runs in rack 1.
    Net net(R"({"gpu_types": {"g": {}}, "node_types": {"n4": {"gpu_type": "g", "gpus": 4,
                "nics": 1, "nic_gbps": 100}},
                "fabric": {"tiers": [{"name": "leaf"}, {"name": "spine", "oversub": 4}]},
                "racks": [{"node_type": "n4", "nodes": 2, "count": 2}]})",
            profile({{"m", 10, 100'000'000}}), ContentionMode::Duty);
    net.start(0, 0, {{0, 2}, {1, 2}});  // A
    net.start(1, 0, {{2, 2}, {3, 2}});  // B, rack 1
    CHECK(net.model.summary().rerates == 2);
    CHECK(net.model.summary().jobs_rerated == 2);
    const double b_rate = net.changed.front().rate;
    net.start(2, 0, {{0, 2}, {1, 2}});  // C shares A's NICs: the component is {A, C}
    CHECK(net.model.summary().rerates == 3);
    CHECK(net.model.summary().jobs_rerated == 4);
    REQUIRE(net.changed.size() == 2);  // C, then A slowed down; B untouched
    CHECK(net.changed[1].job == 0);
    for (const RateChange& c : net.changed) CHECK(c.job != 1);
    net.changed.clear();
    net.model.released(10, 2, Allocation{0, {{0, 2}, {1, 2}}}, net.changed);  // C leaves: A alone again
    CHECK(net.model.summary().rerates == 4);
    CHECK(net.model.summary().jobs_rerated == 5);
    REQUIRE(net.changed.size() == 1);
    CHECK(net.changed[0].job == 0);
    CHECK(exact(net.changed[0].rate, b_rate));  // A's rate alone equals B's (same shape)
}

TEST_CASE("network: the full solve past the threshold gives the component solve's numbers", "[network]") {
    const ProfileSet p = profile({{"m", 10, 100'000'000}, {"n", 4, 50'000'000}});
    for (ContentionMode mode :
         {ContentionMode::Duty, ContentionMode::MaxMin, ContentionMode::Interleave, ContentionMode::Priority}) {
        Net component(kTwoRacks, p, mode);
        Net full(kTwoRacks, p, mode);
        NetworkOptions all{.mode = mode, .full_solve_above = 0};
        NetworkPerformance full_model(full.topology, full.rates, full.comm_models(), all);
        std::vector<RateChange> a, b;
        const std::vector<std::vector<NodeShare>> jobs = {
            {{0, 2}, {4, 2}}, {{0, 2}, {1, 2}}, {{5, 4}, {6, 4}}, {{2, 4}, {7, 4}}};
        for (JobIdx j = 0; j < jobs.size(); ++j) {
            component.model.allocated(0, j, j % 2, Allocation{0, jobs[j]}, a);
            full_model.allocated(0, j, j % 2, Allocation{0, jobs[j]}, b);
        }
        CHECK(full_model.summary().full_solves == 4);
        for (JobIdx j = 0; j < jobs.size(); ++j) CHECK(component.model.bandwidth(j) == full_model.bandwidth(j));
    }
}

TEST_CASE("network: an ideal cluster (no network fields) rates every job exactly as the isolated model", "[network]") {
    Net net(R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 2}},
                "racks": [{"node_type": "n", "nodes": 4}]})",
            profile({{"m", 7.3, 100'000'000}}), ContentionMode::Duty);
    CHECK(net.topology.ideal());
    CHECK(net.start(0, 0, {{0, 1}, {1, 2}, {3, 2}}) == net.rates.rate(0, 0, 5));
}

TEST_CASE("network: bad network fields name the field", "[network][bad-input]") {
    auto error_of = [](const std::string& spec) {
        try {
            parse_cluster(spec, "c.json");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string head = R"({"gpu_types": {"g": {}}, )";
    CHECK_THAT(error_of(head + R"("node_types": {"n": {"gpu_type": "g", "gpus": 2, "intra": {"kind": "nvlinq"}}},
                                  "racks": [{"node_type": "n", "nodes": 1}]})"),
               Catch::Contains("c.json: node_types.n.intra.kind: expected one of nvswitch, nvlink, pcie"));
    CHECK_THAT(error_of(head + R"("node_types": {"n": {"gpu_type": "g", "gpus": 2, "nic_gbps": 0}},
                                  "racks": [{"node_type": "n", "nodes": 1}]})"),
               Catch::Contains("node_types.n.nic_gbps: expected a bandwidth in Gb/s (> 0)"));
    CHECK_THAT(error_of(head + R"("node_types": {"n": {"gpu_type": "g", "gpus": 2}},
                                  "fabric": {"tiers": [{"name": "leaf", "oversub": 2}]},
                                  "racks": [{"node_type": "n", "nodes": 1}]})"),
               Catch::Contains("fabric.tiers[0].oversub: expected 1"));
    CHECK_THAT(error_of(head + R"("node_types": {"n": {"gpu_type": "g", "gpus": 2}},
                                  "fabric": {"tiers": [{}, {}, {}, {}]},
                                  "racks": [{"node_type": "n", "nodes": 1}]})"),
               Catch::Contains("fabric.tiers: expected an array of 1 to 3 tiers"));
    CHECK_THAT(error_of(head + R"("node_types": {"n": {"gpu_type": "g", "gpus": 2}},
                                  "switches": [{"name": "a", "parent": "b"}, {"name": "b", "parent": "a"}],
                                  "racks": [{"node_type": "n", "nodes": 1, "switch": "a"}]})"),
               Catch::Contains("form a cycle"));
    CHECK_THAT(error_of(head + R"("node_types": {"n": {"gpu_type": "g", "gpus": 2}},
                                  "fabric": {"tiers": [{"name": "leaf"}, {"name": "spine"}]},
                                  "links": [{"switch": "leaf:9", "gbps": 10}],
                                  "racks": [{"node_type": "n", "nodes": 1}]})"),
               Catch::Contains("links[0].switch: expected a switch"));
}

TEST_CASE("network: the explicit switch form builds the same tree as the compact form", "[network]") {
    const std::string nodes = R"("gpu_types": {"g": {}}, "node_types": {"n4": {"gpu_type": "g", "gpus": 4,
        "nics": 1, "nic_gbps": 100}},)";
    const Cluster compact =
        parse_cluster("{" + nodes + R"("fabric": {"tiers": [{"name": "leaf"}, {"name": "spine", "oversub": 4}]},
        "racks": [{"node_type": "n4", "nodes": 4, "count": 2}]})",
                      "compact");
    const Cluster written = parse_cluster("{" + nodes + R"("switches": [{"name": "spine"},
        {"name": "tor0", "parent": "spine", "oversub": 4}, {"name": "tor1", "parent": "spine", "oversub": 4}],
        "racks": [{"node_type": "n4", "nodes": 4, "switch": "tor0"}, {"node_type": "n4", "nodes": 4, "switch": "tor1"}]})",
                                          "explicit");
    const Topology a(compact), b(written);
    for (NodeIdx x = 0; x < 8; ++x)
        for (NodeIdx y = 0; y < 8; ++y)
            if (x != y) CHECK(a.path_bottleneck(x, y) == b.path_bottleneck(x, y));
    CHECK(a.path_bottleneck(0, 4) == 12.5e9);
}

TEST_CASE("network: max-min on a parking lot and a dumbbell with unequal caps", "[network]") {
    const ProfileSet p = profile({{"m", 10, 100'000'000}});
    SECTION("parking lot: a long job over three NICs, a short one on each: every job gets C/2") {
        // n0..n2 have 100 Gb/s NICs (the chain's links), n3..n5 1000 Gb/s (never binding).
        Net net(R"({"gpu_types": {"g": {}}, "node_types": {
                    "slow": {"gpu_type": "g", "gpus": 2, "nics": 1, "nic_gbps": 100},
                    "fast": {"gpu_type": "g", "gpus": 1, "nics": 1, "nic_gbps": 1000}},
                    "racks": [{"node_type": "slow", "nodes": 3}, {"node_type": "fast", "nodes": 3}]})",
                p, ContentionMode::MaxMin);
        net.start(0, 0, {{0, 1}, {1, 1}, {2, 1}});  // the long job
        for (JobIdx k = 0; k < 3; ++k) net.start(1 + k, 0, {{k, 1}, {3 + k, 1}});
        for (JobIdx j = 0; j < 4; ++j) CHECK(exact(net.model.bandwidth(j), 12.5e9 / 2));
    }
    SECTION("dumbbell: a job held to 2 GB/s by its NIC leaves the rest of the shared uplink to the other") {
        // Racks: 0 = {thin n0}, 1 = {wide n1, n2}, 2 = {wide n3}; `links` sets racks 0 and 1's uplinks to
        // 100 Gb/s. A = n0 + n1 (capped by n0's 16 Gb/s NIC), B = n2 + n3: both cross rack 1's uplink.
        Net net(R"({"gpu_types": {"g": {}}, "node_types": {
                    "thin": {"gpu_type": "g", "gpus": 1, "nics": 1, "nic_gbps": 16},
                    "wide": {"gpu_type": "g", "gpus": 1, "nics": 1, "nic_gbps": 100}},
                    "fabric": {"tiers": [{"name": "leaf"}, {"name": "spine"}]},
                    "links": [{"switch": "leaf:0", "gbps": 100}, {"switch": "leaf:1", "gbps": 100}],
                    "racks": [{"node_type": "thin", "nodes": 1}, {"node_type": "wide", "nodes": 2},
                              {"node_type": "wide", "nodes": 1}]})",
                p, ContentionMode::MaxMin);
        net.start(0, 0, {{0, 1}, {1, 1}});
        net.start(1, 0, {{2, 1}, {3, 1}});
        CHECK(exact(net.model.bandwidth(0), 2e9));
        CHECK(exact(net.model.bandwidth(1), 12.5e9 - 2e9));
    }
}

TEST_CASE("network: measured multi-GPU throughputs calibrate the intra-node ring", "[network]") {
    // γ = 1, 10 it/s alone, 16 it/s measured on 2 GPUs: T_iter(2) = 2/16 = 0.125 s = 0.1 s compute +
    // 0.025 s all-reduce, so the effective bandwidth is 2·1/2 · 4e8 B / 0.025 s = 1.6e10 B/s, and a 2-GPU
    // job on one node runs at exactly the measured 16 it/s. 4 GPUs measured at 40 it/s (faster than
    // linear: no cost) and 8 at 40 it/s (T_comm = 0.1 s → 2·7/8 · 4e8 / 0.1 = 7e9 B/s): median 1.6e10.
    const std::string cluster = R"({"gpu_types": {"g": {}}, "node_types": {"n8": {"gpu_type": "g", "gpus": 8,
        "intra": {"kind": "nvlink", "lat_us": 0}, "nics": 1, "nic_gbps": 100}}, "racks": [{"node_type": "n8", "nodes": 2}]})";
    ProfileSet p = parse_profiles(R"({"models": {"m": {"throughput": {"g": 10}, "params": 100000000, "gamma": 1,
        "throughput_n": {"g": {"2": 16, "4": 40, "8": 40}}}}})",
                                  "measured.json");
    const Cluster c = parse_cluster(cluster, "c.json");
    const std::vector<CommModel> comm = {comm_model(p.models[0])};
    const std::vector<double> measured = measured_intra_bandwidths(c, p, comm);
    REQUIRE(measured.size() == 1);
    CHECK(exact(measured[0], 1.6e10));
    const RateModel rates(c, p);
    const Topology topo(c);
    NetworkPerformance model(topo, rates, comm, NetworkOptions{}, {}, measured);
    std::vector<RateChange> changed;
    model.allocated(0, 0, 0, Allocation{0, {{0, 2}}}, changed);
    CHECK(exact(changed.at(0).rate, 16));
    // On a cluster that describes no network, communication stays free.
    const Cluster ideal = parse_cluster(R"({"gpu_types": {"g": {}}, "node_types": {"n8": {"gpu_type": "g", "gpus": 8}},
        "racks": [{"node_type": "n8", "nodes": 2}]})",
                                        "ideal.json");
    const RateModel ideal_rates(ideal, p);
    const Topology ideal_topo(ideal);
    NetworkPerformance free(ideal_topo, ideal_rates, comm, NetworkOptions{}, {}, measured);
    changed.clear();
    free.allocated(0, 0, 0, Allocation{0, {{0, 2}}}, changed);
    CHECK(changed.at(0).rate == 20);
}

}  // namespace dlsim::test::network_tests
