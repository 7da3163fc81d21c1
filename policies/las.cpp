#include "policies/las.hpp"

#include "policies/priority_walk.hpp"

#include <algorithm>

namespace dlsim {

LasPolicy::Key LasPolicy::key(const ClusterView& view, JobIdx j) const {
    const JobInfo& job = view.job(j);
    const double wall = to_seconds(job.attained_at(view.now()));
    return {gpu_service_ ? wall * job.num_gpus : wall, job.submit, j};
}

double LasPolicy::hysteresis(const ClusterView& view, JobIdx j) const {
    const double seconds = displacement_.seconds(view, j);
    return gpu_service_ ? seconds * view.job(j).alloc_gpus : seconds;
}

void LasPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    for (JobIdx j : changes.arrived) waiting_.insert(key(view, j));
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list)
            if (view.job(j).state == JobState::Queued) waiting_.insert(key(view, j));

    running_.clear();
    for (JobIdx j : view.running_jobs()) {
        Key k = key(view, j);
        std::get<0>(k) -= hysteresis(view, j);
        running_.push_back(k);
    }
    std::sort(running_.begin(), running_.end());

    walk_priority(view, order_, running_, waiting_, capacity_, desired_, to_preempt_, [](JobIdx) {});
    for (JobIdx j : to_preempt_) waiting_.insert(key(view, j));
    desired_.emit(view, out);
    // Re-rank at the next quantum while some job waits (the running ones' service keeps growing).
    if (!waiting_.empty() && quantum_ > 0) out.next_call = view.now() + quantum_;
}

}  // namespace dlsim
