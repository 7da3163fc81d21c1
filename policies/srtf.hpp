#pragma once
// `srtf`: preemptive shortest remaining time first, oracle on remaining work (POLICIES.md §4,
// DESIGN.md "Rules of the model"). At every call it walks all runnable jobs by remaining time
// (remaining work ÷ rate on the type it has, or would get: its fastest runnable type), ties by
// arrival then trace order, counting GPUs per type. A waiting job takes the fastest type with room
// (SKIP walk, so freed GPUs are filled greedily). A running job is re-placed as Tiresias does
// (`migrate=true`, the default): it keeps its GPUs if its type is still the fastest with room, and
// otherwise moves (a preemption and a restart) to the fastest type with room: up to a faster type
// that freed up, or over to another type when shorter jobs took its own. With `migrate=false` it
// keeps its GPUs if its type still has room. Running jobs left without room are preempted, so a job
// is preempted only for waiting jobs whose remaining time is shorter than its own.
//
// Why migration is the default: without it, a long job that shorter arrivals pushed onto a slow
// type stays there while the fast types idle (on the bundled trace, srtf's GPU utilization fell to
// a quarter of fifo's).
#include "policies/desired_state.hpp"
#include "policies/policy.hpp"
#include "policies/type_choice.hpp"

#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

class SrtfPolicy final : public Policy {
public:
    SrtfPolicy(TypeOrder order, bool migrate) : order_(order), migrate_(migrate) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// (remaining seconds, submit, job): the walk order.
    using Key = std::tuple<double, Time, JobIdx>;
    Key waiting_key(const ClusterView& view, JobIdx j) const;

    TypeOrder order_;
    bool migrate_;
    std::set<Key> waiting_;
    std::vector<Key> running_;   // scratch, rebuilt each call (bounded by the GPU count)
    std::vector<int> capacity_;  // scratch: GPUs per type not yet claimed in this walk
    std::vector<JobIdx> to_preempt_;
    DesiredState desired_;  // what the walk selects, turned into preemptions, moves and starts
};

}  // namespace dlsim
