#include "policies/sjf.hpp"

#include "models/base/input_error.hpp"

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
    const GpuTypeIdx ref = view.cluster().reference_gpu_type;
    const GpuTypeIdx t = (job.runnable >> ref) & 1 ? ref : fastest_type(view, job);
    const double duration = job.work / view.rates().rate(job.model, t, job.num_gpus);
    return key_ == SjfKey::GpuTime ? duration * job.num_gpus : duration;
}

void SjfPolicy::enqueue(const ClusterView& view, JobIdx j) { queue_.emplace(key_of(view, j), view.job(j).submit, j); }

void SjfPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    for (JobIdx j : changes.arrived) enqueue(view, j);
    // A declined start (the placer could not fit it) and a job the engine requeued wait again in order.
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list) enqueue(view, j);
    const std::size_t types = view.cluster().gpu_types.size();
    available_.resize(types);
    int free = 0;
    for (GpuTypeIdx t = 0; t < types; ++t) free += available_[t] = view.free_gpus(t);
    for (auto it = queue_.begin(); it != queue_.end() && free > 0;) {
        const JobIdx j = std::get<2>(*it);
        const JobInfo& job = view.job(j);
        const auto t = pick_type(view, job, order_, available_);
        if (!t) {
            if (strict_) break;
            ++it;
            continue;
        }
        out.start(j, *t, job.num_gpus);
        available_[*t] -= job.num_gpus;
        free -= job.num_gpus;
        it = queue_.erase(it);
    }
}

}  // namespace dlsim
