#pragma once
// The network fields of a cluster spec (models/README.md), parsed and defaulted: per node type the
// links inside a node and its NICs, and the switch fabric above the nodes. Units are converted at load
// time: bandwidths in bytes/s (the spec writes Gb/s), latencies in seconds (the spec writes µs).
//
// A bandwidth that a spec does not give is unlimited (and its latency 0): the minimal cluster form, and
// every cluster without network fields, describe an ideal interconnect on which placement
// does not change a job's speed. A spec states what limits it.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace dlsim {

inline constexpr double kUnlimited = std::numeric_limits<double>::infinity();

/// How the GPUs of one node talk to each other.
enum class IntraKind : std::uint8_t { Ideal, NvSwitch, NvLink, Pcie };

struct IntraSpec {
    IntraKind kind = IntraKind::Ideal;
    double bytes_per_s = kUnlimited;          ///< per GPU, one direction (`gbps_per_gpu`)
    double latency_s = 0;                     ///< per ring step (`lat_us`)
    double eff = 1;                           ///< achievable fraction of bytes_per_s (`eff`)
    int sockets = 1;                          ///< CPU sockets the GPUs are split over evenly (PCIe)
    double xsocket_bytes_per_s = kUnlimited;  ///< the inter-socket link (`xsocket_gbps`)
};

struct NicSpec {
    int count = 1;                    ///< `nics`: NCCL opens one channel per usable NIC
    double bytes_per_s = kUnlimited;  ///< per NIC, one direction (`nic_gbps`)
    double eff = 1;                   ///< `nic_eff`
    double latency_s = 0;             ///< per ring step between nodes (`nic_lat_us`)
};

/// One tier of switches above the nodes, bottom up: tier 0 (leaf) holds the nodes of a rack (or of a
/// leaf group); with three tiers, tier 1 (spine) holds the racks of a pod; the top tier is one root
/// switch. `oversub` is the ratio at which links enter this tier from the one below (e.g. 4.0 on a
/// 4:1 oversubscribed `core`): each switch below sends up at most its downlink capacity ÷ oversub. The
/// leaf tier's links are the nodes' NICs, so its oversub must be 1.
struct TierSpec {
    std::string name;
    double oversub = 1;
    double latency_s = 0;  ///< per switch crossed (`lat_us`)
};

/// An explicit override of one derived link bundle (the spec's `links`): the uplink of a switch.
struct LinkOverride {
    std::string name;  ///< the switch, as `<tier>:<index>` (e.g. "leaf:3") or an explicit switch name
    double bytes_per_s = kUnlimited;
    double latency_s = -1;  ///< < 0: keep the derived value
};

/// A switch of the explicit form: a tree written out switch by switch; racks name their switch.
struct SwitchSpec {
    std::string name;
    std::string parent;              ///< empty: the root
    double oversub = 1;              ///< downlink ÷ uplink capacity, as for a tier
    double uplink_bytes_per_s = -1;  ///< > 0: the uplink bundle's capacity, instead of oversub
    double latency_s = 0;
};

struct FabricSpec {
    bool given = false;  ///< the spec has a `fabric` (else: one ideal switch above all nodes)
    bool rail_optimized = false;
    int nodes_per_leaf_group = 0;      ///< > 0: a leaf switch holds this many consecutive nodes, not a rack
    std::vector<TierSpec> tiers;       ///< bottom up; at most 3 (leaf, spine, core)
    std::vector<SwitchSpec> switches;  ///< the explicit form (then `tiers` is empty)
    std::vector<LinkOverride> links;
};

}  // namespace dlsim
