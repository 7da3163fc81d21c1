#pragma once
// `spread` placement: the opposite of `consolidated`, the baseline that shows what locality is worth.
// The job's GPUs go to as many nodes, and those over as many racks, as its size allows:
//   - the nodes of type t with a free GPU are visited rack by rack, round-robin (rack 0's lowest node,
//     rack 1's lowest node, ..., then each rack's next node; a rack with no node left is skipped), racks
//     and nodes in id order;
//   - each visit gives the node one GPU; when every node has had its turn and GPUs remain, the same order
//     is walked again, skipping nodes with nothing left free.
// So a job of n GPUs gets min(n, nodes with a free GPU) nodes, one GPU on each while nodes remain, and
// never two GPUs on a node while a node of the type with a free GPU is unused. Deterministic: no ties.
#include "policies/policy.hpp"

#include <vector>

namespace dlsim {

class SpreadPlacer final : public Placer {
public:
    bool place(const ClusterView& view, GpuTypeIdx t, int n, std::vector<NodeShare>& out) override;

private:
    std::vector<std::vector<NodeIdx>> by_rack_;  // scratch: nodes with a free GPU, per rack
    std::vector<NodeIdx> order_;                 // scratch: the round-robin visiting order
    std::vector<int> given_, slot_;              // scratch: per node, GPUs given and index in `out`
};

}  // namespace dlsim
