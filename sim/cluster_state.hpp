#pragma once
// Who holds which GPU, and free capacity per node and per type kept up to date incrementally,
// with an index of nodes by free count so best-fit placement costs O(GPUs per node).
// A GPU has two holder slots: the second is taken only by `share` (space sharing: a job packed onto
// another's GPUs). A GPU is free when both slots are empty. Always-on check: never more than two
// holders, and two only through `share` onto GPUs their first holder holds alone.
#include "models/cluster.hpp"
#include "policies/cluster_view.hpp"

#include <cstdint>
#include <vector>

namespace dlsim {

class ClusterState {
public:
    static constexpr JobIdx kFree = UINT32_MAX;

    explicit ClusterState(const Cluster& cluster);

    int free_gpus(GpuTypeIdx t) const { return free_by_type_[t]; }
    int free_on(NodeIdx n) const { return free_on_node_[n]; }
    /// Lowest-numbered node of type t with exactly k free GPUs, or kNoNode.
    NodeIdx node_with_free(GpuTypeIdx t, int k) const;

    /// Gives `count` free GPUs of `node` (the lowest-numbered free ones) to job j, chaining them
    /// onto the job's list that starts at `head` (updated). Throws InternalError if they are not free.
    void allocate(NodeIdx node, int count, JobIdx j, GpuIdx& head);
    /// Space sharing: job j takes the second slot of every GPU on `partner`'s chain (from `partner_head`),
    /// chaining them onto j's list at `head`. Free counts do not change: the GPUs were busy already.
    /// Throws InternalError if a GPU of the chain is not held by `partner` alone.
    void share(GpuIdx partner_head, JobIdx partner, JobIdx j, GpuIdx& head);
    /// Job j lets go of every GPU on the chain starting at `head`; returns how many. A GPU becomes free
    /// when its other holder (if any) has let go too.
    int release(GpuIdx head, JobIdx j);
    /// Appends the GPUs on job j's chain from `head` to `out`, in chain order.
    void append_chain(GpuIdx head, JobIdx j, std::vector<GpuIdx>& out) const;
    /// GPUs held by anyone (for the end-of-run audit).
    std::size_t held() const;
    /// A holder of GPU g (the first slot's, else the second's), or kFree.
    JobIdx owner(GpuIdx g) const { return holder_[2 * g] != kFree ? holder_[2 * g] : holder_[2 * g + 1]; }
    /// How many jobs hold GPU g (0, 1 or 2).
    int holders(GpuIdx g) const { return (holder_[2 * g] != kFree) + (holder_[2 * g + 1] != kFree); }

    static constexpr GpuIdx kNoGpu = UINT32_MAX;

private:
    void set_free(NodeIdx n, int free);

    /// The slot (2g or 2g + 1) of GPU g that job j holds; throws InternalError if neither.
    std::size_t slot_of(GpuIdx g, JobIdx j, const char* what) const;

    const Cluster& cluster_;
    std::vector<JobIdx> holder_;  // [2g], [2g + 1]: GPU g's two holder slots
    std::vector<GpuIdx> next_;    // per slot: the next GPU of the same job (an intrusive list: no allocation)
    std::vector<int> free_on_node_;
    std::vector<int> free_by_type_;
    std::vector<std::uint32_t> local_;  // node -> index among nodes of its type
    std::vector<std::vector<NodeIdx>> nodes_of_type_;
    std::vector<std::vector<std::vector<std::uint64_t>>> by_free_;  // [type][free count] -> bitset of local ids
};

}  // namespace dlsim
