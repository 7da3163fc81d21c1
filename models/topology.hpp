#pragma once
// The cluster's network as a tree (models/README.md): nodes are the leaves, switches the inner vertices,
// one root. Every vertex but the root has an uplink bundle to its parent, two directed links (up, down)
// of the same capacity: a node's is its NICs (nics × nic_gbps), a switch's is derived from what is below
// it (Σ children's uplinks ÷ oversub) unless `links` overrides it. Rail-optimized fabrics are a tree in
// which a leaf switch holds a leaf group (scalable unit) and a node's bundle is all its rails (ideal split).
//
// Built once at load time with Boost.Graph (tree order, depths, and a widest-path check); a job's
// footprint then comes from closed forms over parents and depths: no graph search runs per event.
#include "models/cluster.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace dlsim {

using LinkIdx = std::uint32_t;
using VertexIdx = std::uint32_t;

/// One direction of a link bundle.
struct Link {
    double bytes_per_s = kUnlimited;
    double latency_s = 0;
    std::uint8_t tier = 0;  ///< 0: a node's NICs; k: the uplinks of tier k-1's switches (Topology::tier_names)
};

class Topology {
public:
    /// Builds the tree from a parsed, validated cluster.
    explicit Topology(const Cluster& cluster);

    const std::vector<Link>& links() const { return links_; }
    /// "nic", then one name per tier whose switches have uplinks ("leaf" = the leaf switches' uplinks).
    const std::vector<std::string>& tier_names() const { return tier_names_; }
    std::size_t num_vertices() const { return parent_.size(); }
    /// Nodes are vertices 0 .. nodes-1; switches follow.
    VertexIdx parent(VertexIdx v) const { return parent_[v]; }
    std::uint32_t depth(VertexIdx v) const { return depth_[v]; }
    /// Position in a depth-first order of the tree: a ring ordered by it enters and leaves every subtree once.
    std::uint32_t order(VertexIdx v) const { return order_[v]; }
    /// The link from vertex v up to its parent, and the one down to v.
    static LinkIdx up(VertexIdx v) { return 2 * v; }
    static LinkIdx down(VertexIdx v) { return 2 * v + 1; }
    /// Latency of crossing switch s (s >= nodes).
    double switch_latency(VertexIdx s) const { return switch_latency_[s]; }
    /// The leaf group (rack, or SU when rail-optimized) of a node: its parent switch.
    VertexIdx leaf_of(NodeIdx n) const { return parent_[n]; }
    /// Latency of one ring step from node a to node b (a != b): the NICs, the links and every switch on
    /// the path.
    double path_latency(NodeIdx a, NodeIdx b) const;
    /// The smallest capacity on the path from node a to node b, by walking the tree (closed form).
    double path_bottleneck(NodeIdx a, NodeIdx b) const;
    /// The same by a widest-path search over the Boost.Graph (dijkstra with min/max): for tests.
    double widest_path(NodeIdx a, NodeIdx b) const;
    /// True when no link limits anything (no fabric, no NICs, no intra-node links given): placement never
    /// changes a job's speed.
    bool ideal() const { return ideal_; }
    const Cluster& cluster() const { return *cluster_; }

private:
    const Cluster* cluster_;
    std::vector<VertexIdx> parent_;  // root: itself
    std::vector<std::uint32_t> depth_, order_;
    std::vector<double> switch_latency_;
    std::vector<Link> links_;  // 2 per vertex (up, down); the root's are unused (unlimited)
    std::vector<std::string> tier_names_;
    bool ideal_ = true;
};

/// Checks the fabric against the racks (explicit switch names exist, one root, no cycles, `links`
/// names a switch): an InputError naming the file and field.
void validate_fabric(const Cluster& cluster, const std::string& file);

}  // namespace dlsim
