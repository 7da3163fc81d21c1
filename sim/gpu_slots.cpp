#include "sim/gpu_slots.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

namespace dlsim {

GpuSlots::GpuSlots(const Cluster& cluster, std::size_t num_jobs)
    : cluster_(cluster), owner_(2 * cluster.num_gpus(), kFree), held_(num_jobs) {}

const std::vector<GpuSlots::Held>& GpuSlots::take(JobIdx j, const Allocation& a) {
    release(j);
    std::vector<Held>& mine = held_[j];
    if (a.packed() && a.partner < held_.size() && !held_[a.partner].empty()) {
        // The partner's GPUs, on whichever layer it leaves free.
        for (const Held& p : held_[a.partner]) {
            const int layer = owner(p.node, p.gpu, 0) == kFree ? 0 : 1;
            owner(p.node, p.gpu, layer) = j;
            mine.push_back({p.node, p.gpu, layer});
        }
        return mine;
    }
    for (const NodeShare& s : a.shares) {
        int need = s.gpus;
        for (int g = 0; g < cluster_.nodes[s.node].gpus && need > 0; ++g)
            if (owner(s.node, g, 0) == kFree && owner(s.node, g, 1) == kFree) {
                owner(s.node, g, 0) = j;
                mine.push_back({s.node, g, 0});
                --need;
            }
        // The engine never gives more GPUs than a node has free: a shortfall is a bug of dlsim.
        if (need > 0)
            throw InternalError(
                fmt::format("GPU slots: node {} has {} fewer free GPUs than job {} was given", s.node, need, j));
    }
    return mine;
}

void GpuSlots::release(JobIdx j) {
    for (const Held& h : held_[j]) owner(h.node, h.gpu, h.layer) = kFree;
    held_[j].clear();
}

}  // namespace dlsim
