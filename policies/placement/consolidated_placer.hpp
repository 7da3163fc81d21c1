#pragma once
// `consolidated` placement: the fewest nodes, then the fewest racks.
// A job that fits on one node goes to the best-fitting node (fewest free GPUs that still hold it;
// ties: lowest node id). A wider job takes the fewest nodes possible (nodes with the most free GPUs
// first, the remainder best-fit), and among such placements one rack if one suffices (lowest rack id),
// else the fewest racks it finds by adding racks in order of free GPUs.
#include "policies/policy.hpp"

#include <vector>

namespace dlsim {

class ConsolidatedPlacer final : public Placer {
public:
    bool place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) override;

    /// Greedy fewest-nodes fill of n GPUs from candidates (free, node): most free first, the remainder
    /// best fit; appends the shares to `out` if given; returns the nodes used, or 0 if they cannot hold n.
    static std::size_t fill(std::vector<std::pair<int, NodeIdx>>& candidates, int n, std::vector<NodeShare>* out);

private:
    std::vector<std::vector<std::pair<int, NodeIdx>>> by_rack_;  // scratch
    std::vector<std::pair<int, NodeIdx>> all_;                   // scratch
    std::vector<std::pair<int, std::uint32_t>> rack_order_;      // scratch: (free, rack)
};

}  // namespace dlsim
