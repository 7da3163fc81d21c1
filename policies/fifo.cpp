#include "policies/fifo.hpp"

#include <algorithm>

namespace dlsim {

void FifoPolicy::take_back(const ClusterView& view, const Changes& changes) {
    const auto before = [&](JobIdx a, JobIdx b) {
        return view.job(a).submit != view.job(b).submit ? view.job(a).submit < view.job(b).submit : a < b;
    };
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list) queue_.insert(std::lower_bound(queue_.begin(), queue_.end(), j, before), j);
}

void FifoPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    for (JobIdx j : changes.arrived) queue_.push_back(j);  // (a range insert costs more per call)
    // Declined starts (and jobs the engine requeued) go back to their place in arrival order: a declined
    // head blocks the queue until the placer can fit it (strict).
    if (!changes.declined.empty() || !changes.requeued.empty()) take_back(view, changes);
    const std::size_t types = view.cluster().gpu_types.size();
    available_.resize(types);
    for (GpuTypeIdx t = 0; t < types; ++t) available_[t] = view.free_gpus(t);
    // Walk from the head; stop at the first job that does not fit (head-of-line blocking).
    while (!queue_.empty()) {
        const JobIdx j = queue_.front();
        const JobInfo& job = view.job(j);
        auto t = pick_type(view, job, order_, available_);
        if (!t) break;
        out.start(j, *t, job.num_gpus);
        available_[*t] -= job.num_gpus;
        queue_.pop_front();
    }
}

}  // namespace dlsim
