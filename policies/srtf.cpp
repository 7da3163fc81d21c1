#include "policies/srtf.hpp"

#include <algorithm>

namespace dlsim {

SrtfPolicy::Key SrtfPolicy::key(const ClusterView& view, JobIdx j) {
    const JobInfo& job = view.job(j);
    // The best-case rate is fixed per job: computed once, at its first ranking.
    if (j >= best_rate_.size()) best_rate_.resize(std::max<std::size_t>(j + 1, 2 * best_rate_.size()), 0.0);
    if (best_rate_[j] == 0) best_rate_[j] = view.rates().rate(job.model, fastest_type(view, job), job.num_gpus);
    const double seconds = job.remaining_at(view.now()) / best_rate_[j];
    return {gpu_weighted_ ? seconds * job.num_gpus : seconds, job.submit, j};
}

void SrtfPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    for (JobIdx j : changes.arrived) waiting_.insert(key(view, j));
    // Starts the engine declined and moves it could not place: back to waiting (a job selected from
    // waiting_ left it; a declined move was running and never was in it).
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list)
            if (view.job(j).state == JobState::Queued) waiting_.insert(key(view, j));

    // Running jobs on the same basis as waiting ones (best-case remaining time), less what displacing
    // them would cost: a waiting job overtakes a running one only when it is shorter by more than the
    // restart cost plus the margin.
    running_.clear();
    for (JobIdx j : view.running_jobs()) {
        Key k = key(view, j);
        const double cost = displacement_.seconds(view, j);
        std::get<0>(k) -= gpu_weighted_ ? cost * view.job(j).num_gpus : cost;
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
        const bool take_running = r != running_.end() && (w == waiting_.end() || unclaimed == 0 || *r < *w);
        if (take_running) {
            const JobIdx j = std::get<2>(*r);
            const JobInfo& job = view.job(j);
            const bool room_here = capacity_[job.gpu_type] >= job.alloc_gpus;
            std::optional<GpuTypeIdx> t = room_here ? std::optional(job.gpu_type) : std::nullopt;
            if (migrate_) {
                // Re-placed from scratch (Tiresias): the fastest type with room now, which may be a faster
                // one that freed up (taken only if the time saved exceeds the restart cost plus the
                // margin), or another type when shorter jobs took its own.
                const auto best = pick_type(view, job, order_, capacity_);
                if (best && (!room_here || saves_time(view, j, *best))) t = best;
            }
            if (t) {
                capacity_[*t] -= job.num_gpus;
                unclaimed -= job.num_gpus;
                if (*t == job.gpu_type) desired_.keep(j);
                else desired_.want(j, *t, job.num_gpus);  // a move: a preemption and a restart elsewhere
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
    for (JobIdx j : to_preempt_) waiting_.insert(key(view, j));
    desired_.emit(view, out);
}

bool SrtfPolicy::saves_time(const ClusterView& view, JobIdx j, GpuTypeIdx t) const {
    const JobInfo& job = view.job(j);
    if (t == job.gpu_type) return false;
    if (!(job.rate > 0)) return true;  // stalled where it is
    const double left = job.remaining_at(view.now());
    const double here = left / job.rate, there = left / view.rates().rate(job.model, t, job.num_gpus);
    return here - there > displacement_.seconds(view, j);
}

}  // namespace dlsim
