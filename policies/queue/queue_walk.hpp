#pragma once
// The walk of the non-preemptive queue policies (sjf, qssf): start queued jobs in queue order while GPUs
// are free, each on the type `order` picks among the `available` GPUs per type. `strict` stops at the
// first job that does not fit (head-of-line blocking, Helios); otherwise it is passed over (SKIP). It
// gives the reasons of the jobs it leaves waiting (Decisions::wait_rest).
#include "policies/policy.hpp"
#include "policies/type_choice.hpp"

#include <vector>

namespace dlsim {

/// `queue`: an ordered set of tuples whose element 2 is the job; started jobs leave it. `free` is the
/// sum of `available`, which is updated.
template <class Queue>
void start_in_order(const ClusterView& view, Queue& queue, TypeOrder order, std::vector<int>& available, int free,
                    bool strict, Decisions& out) {
    // Why the rest waits: strictly, behind the first job that does not fit; else for GPUs (what the walk
    // passed over does not fit, and it stops when no GPU is left).
    out.wait_rest(WaitReason::Resources);
    for (auto it = queue.begin(); it != queue.end() && free > 0;) {
        const JobIdx j = std::get<2>(*it);
        const JobInfo& job = view.job(j);
        const auto t = pick_type(view, job, order, available);
        if (!t) {
            if (strict) {
                out.wait(j, WaitReason::Resources);
                out.wait_rest(WaitReason::HeadOfLine, j);
                break;
            }
            ++it;
            continue;
        }
        out.start(j, *t, job.num_gpus);
        available[*t] -= job.num_gpus;
        free -= job.num_gpus;
        it = queue.erase(it);
    }
}

}  // namespace dlsim
