#include "policies/consolidated_placer.hpp"

#include <algorithm>

namespace dlsim {

std::size_t ConsolidatedPlacer::fill(std::vector<std::pair<int, NodeIdx>>& c, int n, std::vector<NodeShare>* out) {
    // Most free first, then lowest id.
    std::sort(c.begin(), c.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::size_t used = 0;
    std::size_t i = 0;
    while (n > 0 && i < c.size()) {
        if (c[i].first <= n) {
            if (out) out->push_back({c[i].second, c[i].first});
            n -= c[i].first;
            ++used;
            ++i;
            continue;
        }
        // The remainder fits on one node: best fit, the fewest free GPUs that still hold it
        // (the last such node in this order; among equals the lowest id).
        std::size_t best = i;
        for (std::size_t k = i; k < c.size() && c[k].first >= n; ++k)
            if (c[k].first < c[best].first) best = k;
        if (out) out->push_back({c[best].second, n});
        n = 0;
        ++used;
    }
    return n == 0 ? used : 0;
}

bool ConsolidatedPlacer::place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) {
    out.clear();
    const Cluster& cluster = view.cluster();
    if (view.free_gpus(t) < n) return false;
    // One node: best fit through the engine's free-count index, O(GPUs per node).
    for (int k = n; k <= cluster.max_node_gpus(t); ++k) {
        const NodeIdx node = view.node_with_free(t, k);
        if (node != kNoNode) {
            out.push_back({node, n});
            return true;
        }
    }
    // Several nodes: a scan of the type's nodes (only for jobs wider than any free node).
    by_rack_.resize(cluster.num_racks);
    for (auto& r : by_rack_) r.clear();
    all_.clear();
    for (NodeIdx node = 0; node < cluster.nodes.size(); ++node) {
        if (cluster.nodes[node].gpu_type != t) continue;
        const int free = view.free_gpus_on(node);
        if (free == 0) continue;
        by_rack_[cluster.nodes[node].rack].emplace_back(free, node);
        all_.emplace_back(free, node);
    }
    std::size_t best_nodes = 0;
    std::uint32_t best_rack = 0;
    for (std::uint32_t r = 0; r < by_rack_.size(); ++r) {
        const std::size_t used = fill(by_rack_[r], n, nullptr);
        if (used != 0 && (best_nodes == 0 || used < best_nodes)) { best_nodes = used; best_rack = r; }
    }
    if (best_nodes != 0) return fill(by_rack_[best_rack], n, &out) != 0;
    return fill(all_, n, &out) != 0;
}

}  // namespace dlsim
