#include "policies/fifo.hpp"

namespace dlsim {

void FifoPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    queue_.insert(queue_.end(), changes.arrived.begin(), changes.arrived.end());
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
