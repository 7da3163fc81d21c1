#pragma once
// `consolidated` placement (DESIGN.md "Rules of the model"): the fewest nodes, then the fewest racks.
// A job that fits on one node goes to the best-fitting node (fewest free GPUs that still hold it;
// ties: lowest node id). A wider job prefers one rack: among racks that can hold it, the one needing
// the fewest nodes (ties: lowest rack id); inside the chosen set it takes the nodes with the most free
// GPUs first and fills the remainder best-fit.
#include "policies/policy.hpp"

#include <vector>

namespace dlsim {

class ConsolidatedPlacer final : public Placer {
public:
    bool place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) override;

private:
    /// Greedy fewest-nodes fill of n GPUs from candidates (free, node); returns nodes used or 0.
    static std::size_t fill(std::vector<std::pair<int, NodeIdx>>& candidates, int n, std::vector<NodeShare>* out);

    std::vector<std::vector<std::pair<int, NodeIdx>>> by_rack_;  // scratch
    std::vector<std::pair<int, NodeIdx>> all_;                   // scratch
};

}  // namespace dlsim
