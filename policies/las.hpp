#pragma once
// `las`: preemptive least attained service (POLICIES.md §5; Blox's and Synergy's LAS, the 1-D limit of
// Tiresias). At arrivals, completions and every `quantum` it walks all runnable jobs in order of attained
// service, ties by arrival then trace order, and selects them while their gangs fit (SKIP walk, GPUs
// counted per type); running jobs left out are preempted and wait with their service kept.
//   - service=gpu (default): GPU-seconds, so a g-GPU gang's service grows g times faster (Tiresias's 2D
//     argument); service=wall: seconds held (Blox).
//   - A running job keeps its GPUs on a tie, and a waiting job displaces it only when its service is lower
//     by more than what the displacement costs the running job: (restart cost + `margin`) × its GPUs in
//     GPU-second units (wall: seconds), DESIGN.md's rule for every preemptive policy.
//   - A waiting job takes the type `type_order` gives it among those with room; running jobs keep theirs.
// Equal jobs alternate once per quantum: processor sharing at the quantum's granularity.
// Waiting jobs sit in an ordered set (their service does not change while they wait); running jobs are
// ranked afresh at each call, so a call costs O(running × log running + changes × log n).
#include "policies/desired_state.hpp"
#include "policies/displacement_cost.hpp"
#include "policies/policy.hpp"
#include "policies/type_choice.hpp"

#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

class LasPolicy final : public Policy {
public:
    LasPolicy(TypeOrder order, bool gpu_service, double quantum_s, double margin_s)
        : order_(order), gpu_service_(gpu_service), quantum_(to_time(quantum_s)), displacement_(margin_s) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// (attained service, submit, job): the walk order.
    using Key = std::tuple<double, Time, JobIdx>;
    Key key(const ClusterView& view, JobIdx j) const;
    /// Service a waiting job must be below a running one by to displace it.
    double hysteresis(const ClusterView& view, JobIdx j) const;

    TypeOrder order_;
    bool gpu_service_;
    Time quantum_;
    DisplacementCost displacement_;
    std::set<Key> waiting_;
    std::vector<Key> running_;   // scratch, rebuilt each call
    std::vector<int> capacity_;  // scratch: GPUs per type not yet claimed in this walk
    std::vector<JobIdx> to_preempt_;
    DesiredState desired_;
};

}  // namespace dlsim
