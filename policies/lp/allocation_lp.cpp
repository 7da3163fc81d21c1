// STUB (lead, to unblock the round mechanism): a cold re-solve per call through solve_max_min_allocation,
// max-min only. Helper h1 replaces this file with the persistent, warm-started LP of every objective.
#include "policies/lp/allocation_lp.hpp"

#include "models/base/input_error.hpp"
#include "policies/lp/max_min_allocation.hpp"

namespace dlsim {

struct AllocationLp::State {
    AllocationOptions options;
    AllocationResult result;
};

AllocationLp::AllocationLp(AllocationOptions options) : state_(std::make_unique<State>()) {
    state_->options = options;
}
AllocationLp::~AllocationLp() = default;
AllocationLp::AllocationLp(AllocationLp&&) noexcept = default;
AllocationLp& AllocationLp::operator=(AllocationLp&&) noexcept = default;
const AllocationOptions& AllocationLp::options() const { return state_->options; }

const AllocationResult& AllocationLp::solve(const AllocationInput& input) {
    if (state_->options.objective != AllocationObjective::MaxMinFairness)
        throw InternalError("AllocationLp stub: only max-min fairness");
    std::vector<MaxMinJob> jobs(input.jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        jobs[i].gang = input.jobs[i].gang;
        jobs[i].weight = input.jobs[i].weight;
        jobs[i].throughputs.assign(input.throughputs.begin() + i * input.types(),
                                   input.throughputs.begin() + (i + 1) * input.types());
    }
    MaxMinAllocation a = solve_max_min_allocation(
        jobs, input.capacities,
        state_->options.view == ThroughputView::Agnostic ? ThroughputMode::Agnostic : ThroughputMode::Measured);
    state_->result.types = input.types();
    state_->result.x = a.fractions;
    state_->result.objective = a.z;
    state_->result.lp_solves = 2;
    state_->result.cold = true;
    return state_->result;
}

std::string_view to_string(AllocationObjective objective) {
    switch (objective) {
        case AllocationObjective::MaxMinFairness: return "max-min fairness";
        case AllocationObjective::FinishTimeFairness: return "finish-time fairness";
        case AllocationObjective::Makespan: return "makespan";
        case AllocationObjective::MaxThroughput: return "max throughput";
    }
    return "?";
}

}  // namespace dlsim
