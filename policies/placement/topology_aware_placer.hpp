#pragma once
// `topology-aware` placement: among the candidate placements it builds, the one on which the job's
// predicted rate is the highest, asked of the performance model against the links' current loads (the
// network model's duty-cycle estimate: models/README.md). The candidates, in this order:
//   1. the `consolidated` placement (the fewest nodes, then the fewest racks);
//   2. for every rack and every pod that can hold the job alone, the fewest-nodes fill inside it (nodes
//      with the most free GPUs first, the remainder best fit);
//   3. for every rack that can hold the job alone, the job spread inside it: one GPU per node with a free
//      GPU, round-robin over the rack's nodes, those with the most free GPUs first (spread across the
//      fewest racks: one);
//   4. the `spread` placement over the whole type (one GPU per node, round-robin over racks).
// Ties go to the earlier candidate, consolidated first, so on an ideal network (every rate equal) it
// places exactly as `consolidated`. Spread candidates win only where a node's own links are slower than
// its NICs for the job (say PCIe GPUs whose ring crosses a slow inter-socket link), so they are weighed
// for jobs that fit one node too.
#include "policies/placement/consolidated_placer.hpp"
#include "policies/placement/spread_placer.hpp"
#include "policies/policy.hpp"

#include <vector>

namespace dlsim {

class TopologyAwarePlacer final : public Placer {
public:
    bool place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) override;
    bool place_job(const ClusterView& view, JobIdx j, GpuTypeIdx t, int n, std::vector<NodeShare>& out) override;

private:
    /// Keeps `candidate` in `out` if the job's predicted rate on it beats `best`.
    void consider(const ClusterView& view, JobIdx j, GpuTypeIdx t, std::vector<NodeShare>& out, double& best);

    ConsolidatedPlacer consolidated_;
    SpreadPlacer spread_;
    std::vector<std::vector<std::pair<int, NodeIdx>>> by_rack_, by_pod_;  // scratch
    std::vector<NodeShare> spread_out_;                                   // scratch
    Allocation candidate_;                                                // scratch
};

}  // namespace dlsim
