#pragma once
// What displacing a running job costs it (the rule of every preemptive policy: it preempts or
// moves a job only when the gain exceeds the restart cost plus a margin): the restart model's charge for
// restarting it somewhere else (another GPU type stands for "elsewhere"), plus the policy's margin.
#include "policies/cluster_view.hpp"

namespace dlsim {

class DisplacementCost {
public:
    explicit DisplacementCost(double margin_s) : margin_(margin_s) {}
    /// Seconds: running job j's restart cost elsewhere plus the margin.
    double seconds(const ClusterView& view, JobIdx j) const {
        const Allocation& now = view.allocation(j);
        elsewhere_.gpu_type = now.gpu_type + 1;
        elsewhere_.shares = now.shares;  // the same GPU count (a model may charge by it); reuses its storage
        return to_seconds(view.restart_model().cost({j, view.job(j).model, &now, elsewhere_, true})) + margin_;
    }

private:
    double margin_;
    mutable Allocation elsewhere_;  // scratch: "another place" for the restart model
};

}  // namespace dlsim
