#pragma once
// `sjf`: non-preemptive shortest job first (POLICIES.md §3, Helios's `sjf`). Queued jobs are ranked by an
// oracle estimate, ties by (arrival, trace order):
//   - key=duration (default): the job's run time on the cluster's reference type (work ÷ its rate there on
//     its gang; on its fastest runnable type when it cannot run on the reference type);
//   - key=gpu_time: that duration × its GPUs;
//   - key=gpus: its GPUs (Tiresias's "smallest job first", here without preemption).
// `strict=true` (default, as Helios) stops the walk at the first job that does not fit (head-of-line
// blocking); `strict=false` skips it and starts smaller jobs behind it. Running jobs are never preempted.
// The queue is an ordered set updated from what changed: a call costs O(changes × log n) plus the jobs it
// starts (and, with strict=false, the queued jobs it walks past while GPUs remain free).
#include "policies/policy.hpp"
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
    SjfPolicy(TypeOrder order, SjfKey key, bool strict) : order_(order), key_(key), strict_(strict) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    double key_of(const ClusterView& view, JobIdx j) const;
    void enqueue(const ClusterView& view, JobIdx j);

    TypeOrder order_;
    SjfKey key_;
    bool strict_;
    std::set<std::tuple<double, Time, JobIdx>> queue_;  // (key, arrival, job)
    std::vector<int> available_;                         // per type, this call's scratch
};

}  // namespace dlsim
