#pragma once
// `tiresias`: discretised 2D-LAS (Gu et al., NSDI'19; POLICIES.md §6). A multi-level feedback queue on
// attained service: K queues split by `thresholds` (GPU-seconds with service=gpu, seconds with wall);
// jobs enter Q0 at its tail, fall to the tail of the next queue when their service since their last
// promotion crosses its queue's threshold, and are served queue by queue, in order of entry within a
// queue, running jobs ahead of waiting ones in the same queue (a job never preempts one of its own queue),
// in a SKIP walk that counts GPUs per type. Running jobs left out are preempted.
// Starvation promotion (`knob` > 0): a waiting job that has run since its last promotion goes back to the
// tail of Q0, its service counter reset, once it has waited knob × what it ran since then (as the
// shipped simulator: wall time waited against wall time run, counted from its first start after the
// promotion).
// Deviations from the shipped simulator, on purpose: the policy asks to be called at the exact instant of
// the next demotion or promotion (the simulator's demotion timer subtracts wall time from a GPU-time
// threshold and comes late for gangs); ties of entry are broken by arrival then trace order.
// Defaults (POLICIES.md §16.1): K = 2, thresholds [3600] GPU-s, knob 0. Per call: O(running × log running +
// waiting jobs walked, + waiting jobs in lower queues when knob > 0).
#include "policies/desired_state.hpp"
#include "policies/policy.hpp"
#include "policies/type_choice.hpp"

#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

class TiresiasPolicy final : public Policy {
public:
    /// `thresholds`: the service at which a job leaves queue k (ascending; K = size + 1 queues).
    TiresiasPolicy(TypeOrder order, std::vector<double> thresholds, bool gpu_service, double knob);
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    struct State {
        std::uint32_t queue = 0;
        std::uint64_t entry = 0;   // order of entry into its queue
        Time service_from = 0;     // attained wall time at its last promotion (or arrival)
        Time count_from = kNever;  // its first start since then (waiting counts from here; kNever: not yet)
    };
    /// (queue, entry, job): walk order among the waiting.
    using Key = std::tuple<std::uint32_t, std::uint64_t, JobIdx>;
    State& state(JobIdx j);
    /// Service since the last promotion, in the thresholds' unit.
    double service(const ClusterView& view, JobIdx j) const;
    void enter(JobIdx j, std::uint32_t queue);

    TypeOrder order_;
    std::vector<double> thresholds_;
    bool gpu_service_;
    double knob_;
    std::uint64_t entries_ = 0;
    std::vector<State> states_;
    std::set<Key> waiting_;
    std::vector<Key> running_;   // scratch
    std::vector<int> capacity_;  // scratch
    std::vector<JobIdx> to_preempt_, promoted_;
    DesiredState desired_;
};

}  // namespace dlsim
