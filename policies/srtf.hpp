#pragma once
// `srtf`: preemptive shortest remaining time first, oracle on remaining work (POLICIES.md §4,
// DESIGN.md "Rules of the model"). At every call it walks all runnable jobs by remaining time
// (remaining work ÷ rate on the type it has, or would get: its fastest runnable type), ties by
// arrival then trace order, counting GPUs per type. A running job keeps its GPUs if they are still
// free in the walk; a waiting job takes the fastest type with room (SKIP walk, so freed GPUs are
// filled greedily). Running jobs the walk did not select are preempted. So a job is preempted only
// for waiting jobs whose remaining time is shorter than its own.
#include "policies/policy.hpp"
#include "policies/type_choice.hpp"

#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

class SrtfPolicy final : public Policy {
public:
    explicit SrtfPolicy(TypeOrder order) : order_(order) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// (remaining seconds, submit, job): the walk order.
    using Key = std::tuple<double, Time, JobIdx>;
    Key waiting_key(const ClusterView& view, JobIdx j) const;

    TypeOrder order_;
    std::set<Key> waiting_;
    std::vector<Key> running_;    // scratch, rebuilt each call (bounded by the GPU count)
    std::vector<int> capacity_;   // scratch: GPUs per type not yet claimed in this walk
    std::vector<JobIdx> to_preempt_, to_start_;
    std::vector<GpuTypeIdx> start_type_;
};

}  // namespace dlsim
