#pragma once
// `random` placement: a uniformly random feasible placement, for baselines and sensitivity studies.
// "Uniform" over GPUs: the job's n GPUs are a uniformly random n-subset of the free GPUs of type t
// (a partial Fisher-Yates shuffle over the free GPU slots, nodes in id order), so a node's share
// follows the multivariate hypergeometric law. The draws come from the run's own placement stream,
// Rng(seed, "placement") (models/base/random.hpp), advanced by every placement of the run: the same seed
// and the same run give the same placements, and no other random draw shifts them.
#include "models/base/random.hpp"
#include "policies/policy.hpp"

#include <cstdint>
#include <vector>

namespace dlsim {

class RandomPlacer final : public Placer {
public:
    explicit RandomPlacer(std::uint64_t seed) : rng_(seed, "placement") {}
    bool place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) override;

private:
    Rng rng_;
    std::vector<NodeIdx> slots_;  // scratch: one entry per free GPU of type t, nodes in id order
    std::vector<int> slot_of_;    // scratch: per node, its index in `out` (-1: not used)
};

}  // namespace dlsim
