#pragma once
// Gavel's FIFO allocations (stanford-futuredata/gavel scheduler/policies/fifo.py, classes FIFOPolicy and
// FIFOPolicyWithPerf) as an allocation source for the round mechanism: jobs in arrival order (ties: trace
// order) get x = 1 on one GPU type while a type has room for their gang, every other entry is 0. The walk
// is strict: it stops at the first job that fits on no type (no job overtakes it).
//   - perf (`fifo_perf`, dlsim `fifo-het`): recomputed from scratch at every call; a job takes the type
//     with the highest throughput among those with room. A job whose pick has throughput 0 is passed over
//     (Gavel's newer code).
//   - agnostic (`fifo`, dlsim `gavel-fifo`): a job keeps the type it was given until it finishes; waiting
//     jobs draw a uniformly random type among those with room, from Rng(seed, "gavel-fifo-type").
// Two ways to pick (FifoPick):
//   - Intended: as above; ties between types go to the earlier in the given type order.
//   - GavelCode: what Gavel's code does. Types are listed by name (Gavel sorts "k80" < "p100" < "v100"), so
//     perf ties go to the first name. The agnostic mode (a) first hands each finished job's type to the head
//     of the queue if it fits there in what the jobs listed before it left (the head is dropped from this
//     call's queue if it does not), and (b) draws an index but then uses the loop variable left over from its
//     filter loop: the last listed type that still has a free GPU, even when it has fewer than the gang
//     needs (its count goes negative: more x = 1 on it than it holds, so the walk runs them in turn) and a
//     type leaves the list only when its count hits 0 exactly, taking the drawn index's type out instead.
//     In effect Gavel's `fifo` puts almost every job on "v100".
#include "models/base/random.hpp"
#include "policies/rounds/share_source.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace dlsim {

enum class FifoPick { Intended, GavelCode };

class FifoShare final : public ShareSource {
public:
    /// `perf`: fastest type with room (fifo_perf); else a random type, kept until the job finishes (fifo).
    /// `type_order`: the order types are listed in (GavelCode: by name; empty = index order).
    FifoShare(bool perf, FifoPick pick, std::vector<std::uint32_t> type_order, std::uint64_t seed)
        : perf_(perf), pick_(pick), type_order_(std::move(type_order)), rng_(seed, "gavel-fifo-type") {}
    std::span<const double> allocate(const ShareInput& input, std::span<const Time> submit) override;

private:
    static constexpr std::int32_t kNone = -1;
    /// Agnostic GavelCode: the replacement step (a) over the jobs allocated before this call.
    void hand_over_finished(const ShareInput& input);
    void give(const ShareInput& input, std::uint32_t i, std::uint32_t t);

    bool perf_;
    FifoPick pick_;
    std::vector<std::uint32_t> type_order_;
    Rng rng_;
    std::vector<std::int32_t> kept_type_;  // agnostic: per job key, the type it holds in X (kNone: none)
    std::vector<std::pair<Time, std::uint32_t>> allocated_;  // agnostic: (arrival, key) of the holders, in order
    std::vector<std::int32_t> position_;  // scratch: per key, its input position (kNone: not in the input)
    std::vector<std::uint32_t> queue_;    // scratch: input positions without a type, in arrival order
    std::size_t head_ = 0;                // scratch: the queue's head
    std::vector<double> room_;            // scratch: GPUs per type not yet given out
    std::vector<std::uint32_t> listed_;   // scratch: GavelCode's list of types with a free GPU
    std::vector<std::uint32_t> fits_;     // scratch: indices (into the type list) of types with room
    std::vector<double> x_;
};

}  // namespace dlsim
