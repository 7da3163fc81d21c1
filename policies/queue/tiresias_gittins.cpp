#include "policies/queue/tiresias_gittins.hpp"

#include <algorithm>

namespace dlsim {

TiresiasGittinsPolicy::TiresiasGittinsPolicy(TypeOrder order, std::vector<double> thresholds, bool gpu_service,
                                             double knob, double delta, bool compat, double margin_s, bool full_walk)
    : TiresiasPolicy(order, thresholds, gpu_service, knob, DemotionTimer::Exact, full_walk),
      distribution_(2 * thresholds.back()),
      delta_(delta > 0 ? delta
             : compat  ? kCompatDelta
                       : 0),
      compat_(compat),
      displacement_(margin_s) {}

double TiresiasGittinsPolicy::index(const ClusterView& view, JobIdx j, double a, double extra) const {
    const double delta = delta_ > 0 ? delta_ : std::max(1e-9, to_threshold(view, j) + extra);
    return distribution_.gittins(a, delta, compat_);
}

TiresiasGittinsPolicy::Key TiresiasGittinsPolicy::key(const ClusterView& view, JobIdx j, bool running) const {
    const JobInfo& job = view.job(j);
    const double a = total_service(view, j);
    double g = index(view, j, a, 0);
    if (running && job.state == JobState::Running) {
        // Credited with the service a displacement would waste: the better of G now and G that much earlier
        // (not before its last promotion, where its queue gap would not be defined).
        const double cost = displacement_.seconds(view, j) * (gpu_service() ? job.alloc_gpus : 1);
        const double back = std::min(cost, service(view, j));
        g = std::max(g, index(view, j, a - back, back));
    }
    return {Rank{queue(j), -g}, job.submit, j};
}

bool TiresiasGittinsPolicy::observe(const ClusterView& view, const Changes& changes) {
    for (JobIdx j : changes.finished) distribution_.add(total_service(view, j));
    return distribution_.refresh();
}

}  // namespace dlsim
