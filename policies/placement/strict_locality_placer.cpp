#include "policies/placement/strict_locality_placer.hpp"

namespace dlsim {

bool StrictLocalityPlacer::place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) {
    out.clear();
    const Cluster& cluster = view.cluster();
    const int size = cluster.max_node_gpus(t);
    if (n < 1 || size < 1 || view.free_gpus(t) < n) return false;
    if (n <= size) {
        // One node, best fit, through the engine's free-count index.
        for (int k = n; k <= size; ++k) {
            const NodeIdx node = view.node_with_free(t, k);
            if (node != kNoNode) {
                out.push_back({node, n});
                return true;
            }
        }
        return false;
    }
    const int k = (n + size - 1) / size;
    whole_by_rack_.resize(cluster.num_racks);
    for (auto& r : whole_by_rack_) r.clear();
    for (NodeIdx node = 0; node < cluster.nodes.size(); ++node) {
        const Node& nd = cluster.nodes[node];
        if (nd.gpu_type == t && nd.gpus == size && view.free_gpus_on(node) == size)
            whole_by_rack_[nd.rack].push_back(node);
    }
    const std::vector<NodeIdx>* best = nullptr;
    for (const auto& r : whole_by_rack_)
        if (static_cast<int>(r.size()) >= k && (best == nullptr || r.size() < best->size())) best = &r;
    if (best == nullptr) return false;
    for (int i = 0; i < k; ++i)
        out.push_back({(*best)[static_cast<std::size_t>(i)], i + 1 < k ? size : n - (k - 1) * size});
    return true;
}

}  // namespace dlsim
