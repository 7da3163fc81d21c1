#pragma once
// From "these jobs should run, there" to the actions that get there (the policy contract: policies/README.md).
// A policy that recomputes its whole wish at every call (srtf, Tiresias, Gavel's rounds) lists the jobs
// that should run, in priority order, each with its GPU type, GPU count and optionally exact nodes; the
// helper compares that with what runs now and emits, in an order that always finds GPUs free:
//   1. preempt every running job that is not wanted, and every one that must move (another type or other
//      nodes): all GPUs that will change hands are released first;
//   2. shrink the elastic jobs that are wanted on fewer GPUs;
//   3. in priority order: start the waiting and moving jobs, and grow the elastic ones that are wanted on
//      more GPUs.
// A wanted job already running on the same type, count (and nodes, if given) keeps its GPUs: no restart.
// A move is a preemption and a start at the same instant; the engine counts it as a migration. If the
// wish fits the free GPUs by count, no action can fail for lack of GPUs (a placer may still decline a
// start for fragmentation: the policy then finds the job in Changes::declined).
#include <span>
#include <vector>

#include "policies/policy.hpp"

namespace dlsim {

class DesiredState {
public:
    /// Forgets the last wish (keeps the storage).
    void clear();
    /// Job j should run on n GPUs of type t (on exactly `nodes` if given). Call in priority order.
    void want(JobIdx j, GpuTypeIdx t, int n, std::span<const NodeShare> nodes = {});
    /// Running job j stays exactly as it is (the cheap form of want() with its current allocation).
    void keep(JobIdx j) { mark(j); }
    /// Appends the actions that turn what runs now (per `view`) into the wish. A running job left out of the
    /// wish is preempted for `unwanted` (a round-based policy: RoundEnd; unstated, the engine names the job
    /// that took its GPUs); a move is a preemption the engine sees as one.
    void emit(const ClusterView& view, Decisions& out, StopCause unwanted = StopCause::Unstated);

private:
    struct Wish {
        JobIdx job;
        GpuTypeIdx gpu_type;
        int num_gpus;
        std::uint32_t nodes_begin, nodes_size;
    };
    enum class Fate : std::uint8_t { Keep, Move, Shrink, Grow, Start };
    void mark(JobIdx j);
    Fate fate(const ClusterView& view, const Wish& w) const;
    std::span<const NodeShare> nodes(const Wish& w) const {
        return std::span<const NodeShare>(nodes_).subspan(w.nodes_begin, w.nodes_size);
    }

    std::vector<Wish> wishes_;
    std::vector<NodeShare> nodes_;
    std::vector<std::uint32_t> wanted_;  // per job: the emit() number at which it was wanted
    std::uint32_t stamp_ = 1;
    std::vector<Fate> fates_;  // per wish, this emit's scratch
};

}  // namespace dlsim
