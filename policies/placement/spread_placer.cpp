#include "policies/placement/spread_placer.hpp"

#include <algorithm>

namespace dlsim {

bool SpreadPlacer::place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) {
    out.clear();
    const Cluster& cluster = view.cluster();
    if (n < 1 || view.free_gpus(t) < n) return false;
    by_rack_.resize(cluster.num_racks);
    for (auto& r : by_rack_) r.clear();
    for (NodeIdx node = 0; node < cluster.nodes.size(); ++node)
        if (cluster.nodes[node].gpu_type == t && view.free_gpus_on(node) > 0)
            by_rack_[cluster.nodes[node].rack].push_back(node);
    // The visiting order: the k-th node of every rack, for k = 0, 1, ...
    order_.clear();
    std::size_t deepest = 0;
    for (const auto& r : by_rack_) deepest = std::max(deepest, r.size());
    for (std::size_t k = 0; k < deepest; ++k)
        for (const auto& r : by_rack_)
            if (k < r.size()) order_.push_back(r[k]);
    given_.assign(cluster.nodes.size(), 0);
    slot_.assign(cluster.nodes.size(), -1);
    // Passes over that order, one GPU per node that still has one free, until the job is placed. Each pass
    // gives at least one GPU (free_gpus(t) >= n), so this ends.
    while (n > 0) {
        for (NodeIdx node : order_) {
            if (n == 0) break;
            if (given_[node] == view.free_gpus_on(node)) continue;
            if (slot_[node] < 0) {
                slot_[node] = static_cast<int>(out.size());
                out.push_back({node, 0});
            }
            ++out[static_cast<std::size_t>(slot_[node])].gpus;
            ++given_[node];
            --n;
        }
    }
    return true;
}

}  // namespace dlsim
