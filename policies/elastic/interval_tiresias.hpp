#pragma once
// `pollux-tiresias`: Tiresias (Gu et al., NSDI'19) as Pollux's artifact runs it as a baseline (petuum/adaptdl
// branch osdi21-artifact, simulator/tiresias.py): two queues split at `threshold` GPU-seconds of attained
// service (wall time holding GPUs × the job's GPUs), each served in order of entry, every job a rigid gang
// of its trace's GPU count, no starvation promotion, and decisions only every `interval` seconds. Each tick
// it walks Q0 then Q1 and runs every job whose gang still fits in the GPUs left (a job that does not fit is
// skipped, not waited for); running jobs left out are preempted. A new gang is placed as the artifact does:
// GPUs taken from the node with the most free ones first.
#include "policies/policy.hpp"

#include <vector>

namespace dlsim {

class IntervalTiresiasPolicy final : public Policy {
public:
    IntervalTiresiasPolicy(double interval, double threshold) : interval_(interval), threshold_(threshold) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    double interval_, threshold_;
    std::vector<JobIdx> arrived_;  // arrived since the last tick, in arrival order
    std::vector<JobIdx> q0_, q1_;  // in order of entry
};

}  // namespace dlsim
