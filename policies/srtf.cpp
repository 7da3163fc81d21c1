#include "policies/srtf.hpp"

#include <algorithm>

namespace dlsim {

SrtfPolicy::Key SrtfPolicy::waiting_key(const ClusterView& view, JobIdx j) const {
    const JobInfo& job = view.job(j);
    const double rate = view.rates().rate(job.model, fastest_type(view, job), job.num_gpus);
    return {job.remaining_at(view.now()) / rate, job.submit, j};
}

void SrtfPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    const Time now = view.now();
    for (JobIdx j : changes.arrived) waiting_.insert(waiting_key(view, j));
    // Starts the engine declined and moves it could not place: back to waiting (a job selected from
    // waiting_ left it; a declined move was running and never was in it).
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list)
            if (view.job(j).state == JobState::Queued) waiting_.insert(waiting_key(view, j));

    running_.clear();
    for (JobIdx j : view.running_jobs()) {
        const JobInfo& job = view.job(j);
        running_.emplace_back(to_seconds(job.finish - now), job.submit, j);
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
        const bool take_running = r != running_.end() && (w == waiting_.end() || unclaimed == 0 || *r < *w);
        if (take_running) {
            const JobIdx j = std::get<2>(*r);
            const JobInfo& job = view.job(j);
            // Re-placed from scratch (Tiresias): the fastest type with room now, which may be a faster
            // one that freed up, or another type when shorter jobs took its own.
            const auto t = migrate_                                    ? pick_type(view, job, order_, capacity_)
                           : capacity_[job.gpu_type] >= job.alloc_gpus ? std::optional(job.gpu_type)
                                                                       : std::nullopt;
            if (t) {
                capacity_[*t] -= job.num_gpus;
                unclaimed -= job.num_gpus;
                desired_.want(j, *t, job.num_gpus);  // on another type: a move (a preemption and a restart)
            } else {
                to_preempt_.push_back(j);  // not wanted: the helper preempts it
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
    // After the walk, which must not meet them among the waiting.
    for (JobIdx j : to_preempt_) waiting_.insert(waiting_key(view, j));
    desired_.emit(view, out);
}

}  // namespace dlsim
