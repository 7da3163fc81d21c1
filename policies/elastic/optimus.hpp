#pragma once
// `optimus`: Pollux's "Optimus+Oracle" (Qiao et al., OSDI'21, section 5; github.com/petuum/adaptdl branch
// osdi21-artifact, simulator/optimus.py), after Optimus (Peng et al., EuroSys'18): every interval, each job
// gets one GPU, then GPUs go one at a time to the job whose remaining time falls most (marginal gain).
// policies/elastic/README.md gives the rule.
#include "models/base/sim_time.hpp"
#include "policies/elastic/elastic_jobs.hpp"
#include "policies/policy.hpp"

#include <vector>

namespace dlsim {

class OptimusPolicy final : public Policy {
public:
    explicit OptimusPolicy(Time interval) : interval_(interval) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// Seconds job j's remaining iterations would take less on k + 1 GPUs than on k (0 where it cannot grow).
    double gain(const ClusterView& view, std::size_t i, int free) const;
    /// The step time the oracle reads for job j on k GPUs packed per_node_ to a node, at its trace batch
    /// split as optimus.py splits it (at least one accumulation step on one GPU).
    double predicted_step(const ClusterView& view, JobIdx j, int k) const;

    Time interval_;
    ActiveJobs active_;
    CountApplier applier_;
    // Per active job (same index), reused across calls.
    std::vector<int> counts_;
    std::vector<double> remaining_, gain_;
    std::vector<char> elastic_;
    GpuTypeIdx type_ = 0;
    int per_node_ = 1;
    mutable std::vector<int> placement_;  // GPUs per node of a predicted placement
};

}  // namespace dlsim
