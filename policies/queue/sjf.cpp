#include "policies/queue/sjf.hpp"

#include "models/base/input_error.hpp"
#include "policies/queue/priority_walk.hpp"
#include "policies/queue/queue_walk.hpp"
#include "policies/queue/runtime_estimate.hpp"

#include <algorithm>

namespace dlsim {

SjfKey parse_sjf_key(const std::string& value) {
    if (value == "duration") return SjfKey::Duration;
    if (value == "gpu_time") return SjfKey::GpuTime;
    if (value == "gpus") return SjfKey::Gpus;
    throw InputError("parameter key: expected duration, gpu_time or gpus, got '" + value + "'");
}

double SjfPolicy::key_of(const ClusterView& view, JobIdx j) const {
    const JobInfo& job = view.job(j);
    if (key_ == SjfKey::Gpus) return job.num_gpus;
    const double duration = reference_duration(view, job);
    return key_ == SjfKey::GpuTime ? duration * job.num_gpus : duration;
}

void SjfPolicy::enqueue(const ClusterView& view, JobIdx j) { queue_.emplace(key_of(view, j), view.job(j).submit, j); }

void SjfPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    for (JobIdx j : changes.arrived) enqueue(view, j);
    // A declined start (the placer could not fit it) and a job the engine requeued wait again in order.
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list)
            if (view.job(j).state == JobState::Queued) enqueue(view, j);
    if (preemptive_) {
        walk_preemptive(view, out);
        return;
    }
    const std::size_t types = view.cluster().gpu_types.size();
    available_.resize(types);
    int free = 0;
    for (GpuTypeIdx t = 0; t < types; ++t) free += available_[t] = view.free_gpus(t);
    start_in_order(view, queue_, order_, available_, free, strict_, out);
}

void SjfPolicy::walk_preemptive(const ClusterView& view, Decisions& out) {
    running_.clear();
    for (JobIdx j : view.running_jobs()) {
        Key k{key_of(view, j), view.job(j).submit, j};
        // The incumbent's head start: nothing for key=gpus (the walk keeps a running job on a tie), the
        // restart cost plus the margin in the key's units for the time keys.
        if (key_ != SjfKey::Gpus) {
            const double cost = displacement_.seconds(view, j);
            std::get<0>(k) -= key_ == SjfKey::GpuTime ? cost * view.job(j).alloc_gpus : cost;
        }
        running_.push_back(k);
    }
    std::sort(running_.begin(), running_.end());
    walk_priority(view, order_, running_, queue_, available_, desired_, to_preempt_, &why_, [](JobIdx) {});
    for (JobIdx j : to_preempt_) enqueue(view, j);
    desired_.emit(view, out);
    why_.explain(out);
}

}  // namespace dlsim
