#pragma once
// Gavel's FIFO allocations (stanford-futuredata/gavel scheduler/policies/fifo.py, classes FIFOPolicy and
// FIFOPolicyWithPerf) as an allocation source for the round mechanism: jobs in arrival order (ties: trace
// order) get x = 1 on one GPU type while a type has room for their gang, every other entry is 0. The walk
// is strict: it stops at the first job that fits on no type (no job overtakes it).
//   - perf (`fifo_perf`, dlsim `fifo-het`): recomputed from scratch at every call; a job takes the type
//     with the highest throughput among those with room (ties: cluster order; Gavel's: type names sorted).
//     A job whose best type with room has throughput 0 is passed over (Gavel's newer code).
//   - agnostic (`fifo`, dlsim `gavel-fifo`): a job keeps the type it was given until it finishes; waiting
//     jobs draw a uniformly random type among those with room, from Rng(seed, "gavel-fifo-type").
// Deviations from Gavel's code, both in the agnostic mode: (1) Gavel draws an index but then uses the
// loop variable left over from its filter loop, i.e. the last type (in sorted name order) with any free
// GPU, a bug that makes its `fifo` prefer "v100"; dlsim uses the drawn type. (2) Before drawing, Gavel
// hands each finished job's type to the head of the queue if it fits there (dropping the head from this
// call's queue if it does not); dlsim draws for every waiting job.
#include "policies/allocation_source.hpp"
#include "traces/random.hpp"

#include <cstdint>
#include <vector>

namespace dlsim {

class FifoAllocation final : public AllocationSource {
public:
    /// `perf`: fastest type with room (fifo_perf); else a random type, kept until the job finishes (fifo).
    FifoAllocation(bool perf, std::uint64_t seed) : perf_(perf), rng_(seed, "gavel-fifo-type") {}
    std::span<const double> allocate(const AllocationInput& input, std::span<const Time> submit) override;

private:
    static constexpr std::int32_t kNone = -1;

    bool perf_;
    Rng rng_;
    std::vector<std::int32_t> kept_type_;  // agnostic: per job key, the type it holds in X (kNone: none)
    std::vector<std::uint32_t> order_;     // scratch: input positions in arrival order
    std::vector<double> room_;             // scratch: GPUs per type not yet given out
    std::vector<std::uint32_t> fits_;      // scratch: types with room for one job
    std::vector<double> x_;
};

}  // namespace dlsim
