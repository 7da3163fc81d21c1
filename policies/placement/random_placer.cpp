#include "policies/placement/random_placer.hpp"

#include <algorithm>
#include <utility>

namespace dlsim {

bool RandomPlacer::place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) {
    out.clear();
    const Cluster& cluster = view.cluster();
    if (n < 1 || view.free_gpus(t) < n) return false;
    slots_.clear();
    for (NodeIdx node = 0; node < cluster.nodes.size(); ++node)
        if (cluster.nodes[node].gpu_type == t) slots_.insert(slots_.end(), view.free_gpus_on(node), node);
    // The first n slots after a partial Fisher-Yates shuffle are a uniform n-subset.
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i)
        std::swap(slots_[i], slots_[i + rng_.below(slots_.size() - i)]);
    // One share per node, in node id order (the draw order carries no meaning).
    std::sort(slots_.begin(), slots_.begin() + n);
    slot_of_.assign(cluster.nodes.size(), -1);
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
        const NodeIdx node = slots_[i];
        if (slot_of_[node] < 0) {
            slot_of_[node] = static_cast<int>(out.size());
            out.push_back({node, 0});
        }
        ++out[static_cast<std::size_t>(slot_of_[node])].gpus;
    }
    return true;
}

}  // namespace dlsim
