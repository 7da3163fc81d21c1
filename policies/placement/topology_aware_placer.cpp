#include "policies/placement/topology_aware_placer.hpp"

#include <algorithm>

namespace dlsim {

namespace {

/// One GPU per node of `group` (free, node) in node order, round-robin, until n are given; false if the
/// group's free GPUs cannot hold n (then `out` is left partial).
bool spread_fill(const std::vector<std::pair<int, NodeIdx>>& group, int n, std::vector<NodeShare>& out) {
    int free = 0;
    for (const auto& [f, node] : group) free += f;
    if (free < n) return false;
    for (const auto& [f, node] : group) out.push_back({node, 0});
    while (n > 0)
        for (std::size_t i = 0; i < group.size() && n > 0; ++i)
            if (out[i].gpus < group[i].first) {
                ++out[i].gpus;
                --n;
            }
    std::erase_if(out, [](const NodeShare& s) { return s.gpus == 0; });
    return true;
}

}  // namespace

bool TopologyAwarePlacer::place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) {
    return consolidated_.place(view, t, n, out);
}

void TopologyAwarePlacer::consider(const ClusterView& view, JobIdx j, GpuTypeIdx t, std::vector<NodeShare>& out,
                                   double& best) {
    candidate_.gpu_type = t;
    const double rate = view.performance().predicted_rate(view.job(j).model, candidate_);
    if (rate > best) {
        best = rate;
        out.assign(candidate_.shares.begin(), candidate_.shares.end());
    }
}

bool TopologyAwarePlacer::place_job(const ClusterView& view, JobIdx j, GpuTypeIdx t, int n,
                                    std::vector<NodeShare>& out) {
    if (!consolidated_.place(view, t, n, out)) return false;
    if (n == 1) return true;  // one GPU communicates over no link: every placement is as fast
    const Cluster& cluster = view.cluster();
    candidate_.gpu_type = t;
    candidate_.shares.assign(out.begin(), out.end());
    double best = -1;
    consider(view, j, t, out, best);
    by_rack_.resize(cluster.num_racks);
    for (auto& r : by_rack_) r.clear();
    std::uint32_t pods = 0;
    for (const Node& node : cluster.nodes) pods = std::max(pods, node.pod + 1);
    by_pod_.resize(pods);
    for (auto& p : by_pod_) p.clear();
    for (NodeIdx node = 0; node < cluster.nodes.size(); ++node) {
        if (cluster.nodes[node].gpu_type != t) continue;
        const int free = view.free_gpus_on(node);
        if (free == 0) continue;
        by_rack_[cluster.nodes[node].rack].emplace_back(free, node);
        by_pod_[cluster.nodes[node].pod].emplace_back(free, node);
    }
    for (auto* groups : {&by_rack_, &by_pod_})
        for (auto& group : *groups) {
            candidate_.shares.clear();
            if (ConsolidatedPlacer::fill(group, n, &candidate_.shares) != 0) consider(view, j, t, out, best);
        }
    // `fill` left each rack's nodes sorted by free GPUs (most first, then id): the order spread_fill visits.
    for (const auto& rack : by_rack_) {
        if (rack.size() < 2) continue;  // one node: the same placement as its fill
        candidate_.shares.clear();
        if (spread_fill(rack, n, candidate_.shares)) consider(view, j, t, out, best);
    }
    if (spread_.place(view, t, n, spread_out_)) {
        candidate_.shares.assign(spread_out_.begin(), spread_out_.end());
        consider(view, j, t, out, best);
    }
    return true;
}

}  // namespace dlsim
