#include "policies/placement/topology_aware_placer.hpp"

#include <algorithm>

namespace dlsim {

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
    if (out.size() == 1) return true;
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
    return true;
}

}  // namespace dlsim
