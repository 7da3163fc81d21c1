#include "policies/las.hpp"

#include <algorithm>

namespace dlsim {

LasPolicy::Key LasPolicy::key(const ClusterView& view, JobIdx j) const {
    const JobInfo& job = view.job(j);
    const double wall = to_seconds(job.attained_at(view.now()));
    return {gpu_service_ ? wall * job.num_gpus : wall, job.submit, j};
}

double LasPolicy::hysteresis(const ClusterView& view, JobIdx j) const {
    const JobInfo& job = view.job(j);
    const Allocation& now = view.allocation(j);
    elsewhere_.gpu_type = now.gpu_type + 1;  // a restart anywhere else
    const double seconds = to_seconds(view.restart_model().cost({j, job.model, &now, elsewhere_, true})) + margin_;
    return gpu_service_ ? seconds * job.alloc_gpus : seconds;
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

    const Cluster& cluster = view.cluster();
    capacity_.resize(cluster.gpu_types.size());
    int unclaimed = 0;
    for (GpuTypeIdx t = 0; t < capacity_.size(); ++t) unclaimed += capacity_[t] = cluster.gpus_of_type(t);

    desired_.clear();
    to_preempt_.clear();
    auto w = waiting_.begin();
    auto r = running_.begin();
    while (r != running_.end() || (w != waiting_.end() && unclaimed > 0)) {
        // The incumbent first on equal (hysteresis-adjusted) service.
        const bool take_running = r != running_.end() &&
                                  (w == waiting_.end() || unclaimed == 0 || std::get<0>(*r) <= std::get<0>(*w));
        if (take_running) {
            const JobIdx j = std::get<2>(*r);
            const JobInfo& job = view.job(j);
            if (capacity_[job.gpu_type] >= job.alloc_gpus) {
                capacity_[job.gpu_type] -= job.alloc_gpus;
                unclaimed -= job.alloc_gpus;
                desired_.keep(j);
            } else {
                to_preempt_.push_back(j);
            }
            ++r;
        } else {
            const JobIdx j = std::get<2>(*w);
            const JobInfo& job = view.job(j);
            if (auto t = pick_type(view, job, order_, capacity_)) {
                capacity_[*t] -= job.num_gpus;
                unclaimed -= job.num_gpus;
                desired_.want(j, *t, job.num_gpus);
                w = waiting_.erase(w);
            } else {
                ++w;
            }
        }
    }
    for (JobIdx j : to_preempt_) waiting_.insert(key(view, j));
    desired_.emit(view, out);
    // Re-rank at the next quantum while some job waits (the running ones' service keeps growing).
    if (!waiting_.empty() && quantum_ > 0) out.next_call = view.now() + quantum_;
}

}  // namespace dlsim
