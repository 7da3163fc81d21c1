#pragma once
// `sjf`: shortest job first. Non-preemptive by default, as Helios's `sjf`; queued jobs are
// ranked by an oracle estimate, ties by (arrival, trace order):
//   - key=duration (default): the job's run time on the reference type (policies/queue/runtime_estimate.hpp);
//   - key=gpu_time: that duration × its GPUs;
//   - key=gpus: its GPUs (Tiresias's "smallest job first").
// `strict=true` (default, as Helios) stops the walk at the first job that does not fit (head-of-line
// blocking); `strict=false` skips it and starts smaller jobs behind it.
// The queue is an ordered set updated from what changed: a call costs O(changes × log n) plus the jobs it
// starts (and, with strict=false, the queued jobs it walks past while GPUs remain free).
//
// `preemptive=true` is Tiresias's `smallest_first_sim_jobs`: at every call all runnable jobs, running ones
// included, are walked in key order (SKIP: a job that does not fit is passed over, so strict must be
// false), and a running job left without room is preempted (it waits again with its progress and its
// key). Following the rule of every preemptive policy, a waiting job displaces a running one only
// for a real gain: with key=gpus a strictly smaller key (a tie keeps the incumbent; Tiresias's sort is
// stable on history instead), with the time keys a key shorter by more than the running job's restart
// cost plus `margin` (× its GPUs for gpu_time). Keys are fixed per job (total, not remaining: that is
// srtf), so running jobs are ranked afresh at each call in O(running × log running).
#include "policies/desired_state.hpp"
#include "policies/policy.hpp"
#include "policies/queue/displacement_cost.hpp"
#include "policies/queue/priority_walk.hpp"
#include "policies/type_choice.hpp"

#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace dlsim {

enum class SjfKey { Duration, GpuTime, Gpus };

SjfKey parse_sjf_key(const std::string& value);

class SjfPolicy final : public Policy {
public:
    SjfPolicy(TypeOrder order, SjfKey key, bool strict, bool preemptive = false, double margin_s = 0)
        : order_(order), key_(key), strict_(strict), preemptive_(preemptive), displacement_(margin_s) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// (key, arrival, job): the walk order.
    using Key = std::tuple<double, Time, JobIdx>;
    double key_of(const ClusterView& view, JobIdx j) const;
    void enqueue(const ClusterView& view, JobIdx j);
    /// preemptive: the walk over running and waiting jobs, and the actions that reach its selection.
    void walk_preemptive(const ClusterView& view, Decisions& out);

    TypeOrder order_;
    SjfKey key_;
    bool strict_;
    bool preemptive_;
    DisplacementCost displacement_;  // preemptive, time keys: what a displacement must gain
    std::set<Key> queue_;
    std::vector<int> available_;  // per type, this call's scratch
    std::vector<Key> running_;    // preemptive: scratch, rebuilt each call
    std::vector<JobIdx> to_preempt_;
    WalkReasons why_;  // the last full walk's reasons for the jobs it left waiting
    DesiredState desired_;
};

}  // namespace dlsim
