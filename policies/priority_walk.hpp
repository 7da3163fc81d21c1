#pragma once
// The walk of the preemptive queue policies that rank running and waiting jobs on one key (las,
// tiresias): running jobs (ranked afresh each call) and waiting ones (an ordered set) merged in key order,
// a running job first when the first key element ties (the incumbent keeps its GPUs), GPUs counted per
// type over the whole cluster (SKIP: a job that does not fit is passed over). A running job that still
// fits on its type is kept, one that does not is listed in `preempted`; a waiting job that fits is wanted
// on the type `order` gives it and leaves the set. `on_selected(j)` is told of every job that will run.
#include "policies/desired_state.hpp"
#include "policies/type_choice.hpp"

#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

template <class Key, class OnSelected>
void walk_priority(const ClusterView& view, TypeOrder order, const std::vector<Key>& running, std::set<Key>& waiting,
                   std::vector<int>& capacity, DesiredState& desired, std::vector<JobIdx>& preempted,
                   OnSelected on_selected) {
    const Cluster& cluster = view.cluster();
    capacity.resize(cluster.gpu_types.size());
    int unclaimed = 0;
    for (GpuTypeIdx t = 0; t < capacity.size(); ++t) unclaimed += capacity[t] = cluster.gpus_of_type(t);
    desired.clear();
    preempted.clear();
    auto w = waiting.begin();
    auto r = running.begin();
    while (r != running.end() || (w != waiting.end() && unclaimed > 0)) {
        const bool take_running =
            r != running.end() && (w == waiting.end() || unclaimed == 0 || std::get<0>(*r) <= std::get<0>(*w));
        if (take_running) {
            const JobIdx j = std::get<2>(*r);
            const JobInfo& job = view.job(j);
            if (capacity[job.gpu_type] >= job.alloc_gpus) {
                capacity[job.gpu_type] -= job.alloc_gpus;
                unclaimed -= job.alloc_gpus;
                desired.keep(j);
                on_selected(j);
            } else {
                preempted.push_back(j);
            }
            ++r;
        } else {
            const JobIdx j = std::get<2>(*w);
            const JobInfo& job = view.job(j);
            if (auto t = pick_type(view, job, order, capacity)) {
                capacity[*t] -= job.num_gpus;
                unclaimed -= job.num_gpus;
                desired.want(j, *t, job.num_gpus);
                on_selected(j);
                w = waiting.erase(w);
            } else {
                ++w;
            }
        }
    }
}

}  // namespace dlsim
