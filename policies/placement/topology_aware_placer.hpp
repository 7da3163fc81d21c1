#pragma once
// `topology-aware` placement: among a few candidate placements, the one on which the job's predicted
// rate is the highest, asked of the performance model against the links' current loads (the network
// model's duty-cycle estimate: models/README.md). The candidates: the `consolidated` placement, and
// for every rack and every pod that can hold the job alone, the fewest-nodes fill inside it (nodes with
// the most free GPUs first, the remainder best fit). Ties go to the earlier candidate, consolidated
// first, so on an ideal network (every rate equal) it places exactly as `consolidated`. A job that fits
// on one node goes where `consolidated` puts it: no placement on one node communicates over links.
#include "policies/placement/consolidated_placer.hpp"
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
    std::vector<std::vector<std::pair<int, NodeIdx>>> by_rack_, by_pod_;  // scratch
    Allocation candidate_;                                                // scratch
};

}  // namespace dlsim
