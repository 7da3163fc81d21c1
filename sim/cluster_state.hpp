#pragma once
// Who holds which GPU, and free capacity per node and per type kept up to date incrementally,
// with an index of nodes by free count so best-fit placement costs O(GPUs per node).
// Always-on check: a GPU is never held twice.
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
    /// Frees every GPU on the chain starting at `head`; returns how many.
    int release(GpuIdx head, JobIdx j);
    /// GPUs held by anyone (for the end-of-run audit).
    std::size_t held() const;
    JobIdx owner(GpuIdx g) const { return owner_[g]; }

    static constexpr GpuIdx kNoGpu = UINT32_MAX;

private:
    void set_free(NodeIdx n, int free);

    const Cluster& cluster_;
    std::vector<JobIdx> owner_;
    std::vector<GpuIdx> next_;     // the next GPU of the same job (an intrusive list: no allocation)
    std::vector<int> free_on_node_;
    std::vector<int> free_by_type_;
    std::vector<std::uint32_t> local_;                         // node -> index among nodes of its type
    std::vector<std::vector<NodeIdx>> nodes_of_type_;
    std::vector<std::vector<std::vector<std::uint64_t>>> by_free_;  // [type][free count] -> bitset of local ids
};

}  // namespace dlsim
