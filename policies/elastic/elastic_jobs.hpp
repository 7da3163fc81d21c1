#pragma once
// What the elastic policies share: the jobs a policy is scheduling (every job it has seen arrive and not
// finish, in trace order), the GPU type they share, and turning a GPU count per job into decisions.
#include "policies/policy.hpp"

#include <span>
#include <vector>

namespace dlsim {

/// Keeps `active` as the jobs not yet finished in arrival order (the order of Changes::arrived): appends
/// this call's arrivals, drops its finished jobs.
void track_arrival_order(std::vector<JobIdx>& active, const Changes& changes);

/// For a policy that decides only every `interval_seconds`, at its multiples (the artifacts' time-stepped
/// simulators): while it has jobs left (`busy`), asks to be called at the next multiple after now; true
/// when this call is one of those ticks (a timer call), and otherwise says its jobs wait for that timer
/// (Decisions::keep_waits). Idle, it asks for nothing: the next arrival calls.
bool interval_tick(const ClusterView& view, const Changes& changes, double interval_seconds, bool busy, Decisions& out);

/// The jobs not yet finished, in trace order (JobIdx ascending), kept from the calls' Changes.
class ActiveJobs {
public:
    /// Adds arrivals and jobs put back in the queue; drops finished and rejected jobs.
    void update(const ClusterView& view, const Changes& changes);
    std::span<const JobIdx> jobs() const { return jobs_; }
    bool empty() const { return jobs_.empty(); }

private:
    void insert(JobIdx j);
    std::vector<JobIdx> jobs_;
};

/// The GPU type the elastic policies schedule: the one with the most GPUs (the lowest index on ties). Pollux's
/// and the AFS authors' simulators have one type; a job that cannot run on this one gets no GPUs.
GpuTypeIdx elastic_pool_type(const Cluster& cluster);
/// GPUs per node of type t (the largest such node): the step-time predictions fill nodes this many at a time.
int gpus_per_node(const Cluster& cluster, GpuTypeIdx t);
/// Nodes needed for k GPUs filled `per_node` at a time.
inline int nodes_for(int k, int per_node) { return (k + per_node - 1) / per_node; }
/// True when job j may change its GPU count: it has goodput data and a range (min_gpus < max_gpus).
bool is_elastic(const ClusterView& view, JobIdx j);

/// Turns a target GPU count per job (on type t) into decisions. Running jobs whose count is unchanged are
/// left alone; running jobs going to 0 are preempted first; then queued jobs are started, on explicit
/// placements when asked (smallest count first, each from the node with the most free GPUs, Pollux's
/// simulator's rule) as far as the GPUs free after the preemptions allow; then running jobs shrink and grow
/// (Decisions::resize: the run's placer re-places them); the starts that did not fit before the resizes come
/// last, placed by the run's placer.
class CountApplier {
public:
    void apply(const ClusterView& view, std::span<const JobIdx> jobs, std::span<const int> counts, GpuTypeIdx t,
               bool explicit_starts, Decisions& out);

private:
    std::vector<int> free_;                    // per node: free GPUs of type t once the preemptions apply
    std::vector<std::size_t> starts_, later_;  // indices into jobs
    std::vector<NodeShare> shares_;
};

}  // namespace dlsim
