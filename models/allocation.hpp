#pragma once
// Where a running job holds GPUs: one GPU type (a gang never mixes types) and, per node, how many
// GPUs and what share of each. An allocation is a value: the engine keeps one per running job, policies
// read it through ClusterView::allocation, and explicit placements in decisions use its NodeShare.
#include "models/cluster.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace dlsim {

using JobIdx = std::uint32_t;

/// A GPU share in milli-GPUs: 1000 is a whole GPU. Packed jobs (space sharing: two jobs on the same
/// GPUs) hold each GPU at kHalfGpu; fractional jobs of other sizes do not exist yet.
inline constexpr int kWholeGpu = 1000;
inline constexpr int kHalfGpu = 500;
/// No job (e.g. an allocation that shares its GPUs with nobody).
inline constexpr JobIdx kNoPartner = UINT32_MAX;

/// One node's part of an allocation: `gpus` GPUs of the node, each held at `milli` / 1000.
struct NodeShare {
    NodeIdx node = 0;
    int gpus = 0;
    int milli = kWholeGpu;

    friend bool operator==(const NodeShare&, const NodeShare&) = default;
};

struct Allocation {
    GpuTypeIdx gpu_type = 0;
    std::vector<NodeShare> shares;  ///< in placement order; empty = holds nothing
    /// Space sharing: the job that holds exactly the same GPUs (both at kHalfGpu), or kNoPartner. The
    /// engine sets it on both jobs when it packs them and clears it on the survivor when either leaves.
    JobIdx partner = kNoPartner;

    bool empty() const { return shares.empty(); }
    /// GPUs held, whole or shared.
    int num_gpus() const {
        int n = 0;
        for (const NodeShare& s : shares) n += s.gpus;
        return n;
    }
    /// Type t and exactly these node shares, in any order (a renewed lease holds the same place).
    bool same_place(GpuTypeIdx t, std::span<const NodeShare> other) const;
    bool same_place(const Allocation& other) const { return same_place(other.gpu_type, other.shares); }
    bool packed() const { return partner != kNoPartner; }
    void clear() {
        shares.clear();
        partner = kNoPartner;
    }
};

}  // namespace dlsim
