#pragma once
// `fifo`: strict first-come-first-served (POLICIES.md §2). Jobs start in (arrival, trace order);
// nothing overtakes the head of the queue; no preemption; gangs are all-or-nothing.
#include "policies/policy.hpp"
#include "policies/type_choice.hpp"

#include <deque>
#include <vector>

namespace dlsim {

class FifoPolicy final : public Policy {
public:
    explicit FifoPolicy(TypeOrder order) : order_(order) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// Declined starts and requeued jobs go back to their place in arrival order.
    void take_back(const ClusterView& view, const Changes& changes);

    TypeOrder order_;
    std::deque<JobIdx> queue_;
    std::vector<int> available_;  // per type, this call's scratch (no allocation per call)
};

}  // namespace dlsim
