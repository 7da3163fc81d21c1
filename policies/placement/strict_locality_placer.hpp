#pragma once
// `strict-locality` placement: Philly's YARN-CS behaviour (Jeon et al., ATC'19 §2-3 [R]): a gang is
// placed only where its locality constraint holds, otherwise it waits in the queue, even when enough
// GPUs are free elsewhere (the fragmentation delay that paper measures).
//   - A job that fits on one node of type t (n <= S, S = the largest node of type t) runs on one node:
//     the best fit, the node with the fewest free GPUs that still hold n (ties: lowest node id); if no
//     node has n free, it waits.
//   - A larger job needs k = ceil(n / S) nodes of size S that are entirely free, all in ONE rack. Among
//     the racks with at least k such nodes it takes the best fit, the rack with the fewest of them (so
//     racks with more whole free nodes stay available for wider jobs; ties: lowest rack id), and there
//     its k lowest-id free nodes: S GPUs on each, n - (k-1)·S on the last. Else it waits.
// Waiting is `place` returning false: the engine reports the start as declined and the job stays queued.
#include "policies/policy.hpp"

#include <vector>

namespace dlsim {

class StrictLocalityPlacer final : public Placer {
public:
    bool place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) override;

private:
    std::vector<std::vector<NodeIdx>> whole_by_rack_;  // scratch: per rack, its entirely free nodes of size S
};

}  // namespace dlsim
