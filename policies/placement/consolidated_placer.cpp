#include "policies/placement/consolidated_placer.hpp"

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
    // The fewest nodes possible: the greedy fill over all nodes (largest first) is optimal.
    const std::size_t fewest = fill(all_, n, nullptr);
    if (fewest == 0) return false;
    // Then the fewest racks: one rack if one holds the job on that many nodes (lowest rack id) ...
    for (std::uint32_t r = 0; r < by_rack_.size(); ++r)
        if (fill(by_rack_[r], n, nullptr) == fewest) return fill(by_rack_[r], n, &out) != 0;
    // ... else the shortest run of racks, most free GPUs first, that still needs only that many nodes
    // (a heuristic: the exact minimum is a set-cover problem).
    rack_order_.clear();
    for (std::uint32_t r = 0; r < by_rack_.size(); ++r) {
        int free = 0;
        for (const auto& [f, node] : by_rack_[r]) free += f;
        if (free > 0) rack_order_.emplace_back(free, r);
    }
    std::sort(rack_order_.begin(), rack_order_.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    all_.clear();
    for (const auto& [free, r] : rack_order_) {
        all_.insert(all_.end(), by_rack_[r].begin(), by_rack_[r].end());
        if (fill(all_, n, nullptr) == fewest) break;
    }
    return fill(all_, n, &out) != 0;
}

}  // namespace dlsim
