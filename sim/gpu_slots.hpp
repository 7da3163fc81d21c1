#pragma once
// Which GPUs of a node a job holds. The engine places jobs by node and count (NodeShare), not by GPU:
// the timeline and the Batsim job table need GPU numbers, so this gives each allocation the lowest free
// GPUs of its nodes, deterministically, and frees them when the job lets go. A job packed with a partner
// (space sharing, both at half a GPU) takes the partner's GPUs on the second of two layers, so the two
// never share a track of the timeline.
#include "models/allocation.hpp"
#include "models/cluster.hpp"

#include <vector>

namespace dlsim {

class GpuSlots {
public:
    /// One GPU a job holds: its node, its index within the node and its layer (1 = packed on a partner).
    struct Held {
        NodeIdx node = 0;
        int gpu = 0;
        int layer = 0;
    };

    GpuSlots(const Cluster& cluster, std::size_t num_jobs);

    /// Gives job j the GPUs of `a` (call on start, and on the new allocation of a resize); returns them.
    const std::vector<Held>& take(JobIdx j, const Allocation& a);
    /// Frees what job j holds (call on preempt, finish, and the old allocation of a resize).
    void release(JobIdx j);
    const std::vector<Held>& held(JobIdx j) const { return held_[j]; }
    /// The cluster-wide index of a held GPU (Node::first_gpu + its index within the node).
    GpuIdx global(const Held& h) const { return cluster_.nodes[h.node].first_gpu + static_cast<GpuIdx>(h.gpu); }

private:
    static constexpr JobIdx kFree = static_cast<JobIdx>(-1);
    /// Per GPU of the cluster (global index) and layer: the job on it, or kFree.
    JobIdx& owner(NodeIdx n, int gpu, int layer) {
        return owner_[2 * (cluster_.nodes[n].first_gpu + static_cast<GpuIdx>(gpu)) + static_cast<GpuIdx>(layer)];
    }
    const Cluster& cluster_;
    std::vector<JobIdx> owner_;
    std::vector<std::vector<Held>> held_;
};

}  // namespace dlsim
