#pragma once
// The walk of the preemptive queue policies that rank running and waiting jobs on one key (las,
// tiresias): running jobs and waiting ones (an ordered set) merged in key order, a running job first
// when the first key element ties (the incumbent keeps its GPUs), GPUs counted per type over the whole
// cluster (SKIP: a job that does not fit is passed over). A running job that still fits on its type is
// kept, one that does not is listed in `preempted`; a waiting job that fits is wanted on the type `order`
// gives it and leaves the set. `on_selected(j)` is told of every job that will run.
//
// `start_in_free_gpus` is the same walk's fast path for the common call (an arrival, a completion): it
// gives the same answer without visiting the running jobs, or says that it cannot.
#include "policies/desired_state.hpp"
#include "policies/type_choice.hpp"

#include <climits>
#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

/// Why the jobs a walk leaves waiting wait: the jobs it let run hold the GPUs they would need, each of
/// those ranked before them or fitting where they did not; `priority` names the lowest-ranked of them. One
/// common reason for all (Decisions::wait_rest), so a walk adds O(1) to a call and no job's reason flips
/// between walks that pass it over and walks that never reach it.
struct WalkReasons {
    JobIdx last_selected = kNobody;
    void clear() { last_selected = kNobody; }
    /// The reason, into the answer.
    void explain(Decisions& out) const {
        out.wait_rest(last_selected == kNobody ? WaitReason::Resources : WaitReason::Priority, last_selected);
    }
    /// After the fast path (start_in_free_gpus): the jobs left waiting rank as the last full walk left them
    /// and keep its reason; a newcomer that did not fit in the free GPUs waits for GPUs.
    static void explain_fast_path(Decisions& out) {
        out.keep_waits = true;
        out.wait_rest(WaitReason::Resources);
    }
};

/// `running`: any range of keys in walk order (a sorted vector, or a std::set kept up to date).
template <class Key, class Running, class OnSelected>
void walk_priority(const ClusterView& view, TypeOrder order, const Running& running, std::set<Key>& waiting,
                   std::vector<int>& capacity, DesiredState& desired, std::vector<JobIdx>& preempted, WalkReasons* why,
                   OnSelected on_selected) {
    const Cluster& cluster = view.cluster();
    capacity.resize(cluster.gpu_types.size());
    int unclaimed = 0;
    for (GpuTypeIdx t = 0; t < capacity.size(); ++t) unclaimed += capacity[t] = cluster.gpus_of_type(t);
    desired.clear();
    preempted.clear();
    if (why) why->clear();
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
                if (why) why->last_selected = j;
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
                if (why) why->last_selected = j;
                w = waiting.erase(w);
            } else {
                ++w;
            }
        }
    }
}

/// Scratch of start_in_free_gpus (kept by the policy so that a call allocates nothing).
template <class Key>
struct FreeGpuWalk {
    std::vector<int> free, unlimited;
    std::vector<std::pair<typename std::set<Key>::iterator, GpuTypeIdx>> chosen;
};

/// The fast path of walk_priority. Walking the waiting jobs in order, each one either fits in the GPUs
/// free now on its preferred type (the one pick_type gives with every GPU free, when no tie between equally
/// fast types is broken by room), or comes after every
/// running job (`ahead_of_running(key)` false) and is skipped when it does not fit: then the full walk
/// would keep every running job (each finds at least the GPUs it holds) and start exactly these jobs, on
/// these types, in this order. So they are started (`on_start(j)` is told), and it returns true.
/// Otherwise (a job that could displace a running one) it returns false having changed nothing, and
/// the caller walks in full. Cost: the waiting jobs walked, not the running ones.
template <class Key, class AheadOfRunning, class OnStart>
bool start_in_free_gpus(const ClusterView& view, TypeOrder order, std::set<Key>& waiting, FreeGpuWalk<Key>& s,
                        AheadOfRunning ahead_of_running, Decisions& out, OnStart on_start) {
    const std::size_t types = view.cluster().gpu_types.size();
    s.free.resize(types);
    s.unlimited.assign(types, INT_MAX);
    s.chosen.clear();
    int unclaimed = 0;
    for (GpuTypeIdx t = 0; t < types; ++t) unclaimed += s.free[t] = view.free_gpus(t);
    bool ahead = true;  // keys only grow along the set: once a job is behind every running one, so are the rest
    for (auto w = waiting.begin(); w != waiting.end(); ++w) {
        if (ahead) ahead = ahead_of_running(*w);
        if (!ahead && unclaimed == 0) break;
        const JobInfo& job = view.job(std::get<2>(*w));
        const auto t = pick_type(view, job, order, s.free);
        // Ahead of a running job, the full walk counts that job's GPUs as room: the type holds only if it
        // is the preferred one and no tie is broken by room (type_ties=most_free).
        if (t &&
            (!ahead || (t == pick_type(view, job, order, s.unlimited) && !choice_depends_on_room(view, job, order)))) {
            s.free[*t] -= job.num_gpus;
            unclaimed -= job.num_gpus;
            s.chosen.push_back({w, *t});
        } else if (ahead) {
            return false;
        }
    }
    for (const auto& [w, t] : s.chosen) {
        const JobIdx j = std::get<2>(*w);
        out.start(j, t, view.job(j).num_gpus);
        on_start(j);
        waiting.erase(w);
    }
    return true;
}

}  // namespace dlsim
