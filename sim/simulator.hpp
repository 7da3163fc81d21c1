#pragma once
// The engine: pops events in (time, phase, seq) order, applies every event of an instant, then calls
// the policy once (if anything changed), checks and applies its decisions, and keeps progress fluid.
#include "policies/policy.hpp"
#include "sim/cluster_state.hpp"
#include "sim/event_queue.hpp"
#include "sim/job_spec.hpp"
#include "sim/observer.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace dlsim {

struct SimOptions {
    Time restart_cost = 0;  ///< charged on every start after a preemption: GPUs held, no progress
};

struct SimStats {
    std::uint64_t events = 0;        ///< events applied (stale ones not counted)
    std::uint64_t policy_calls = 0;
    double policy_seconds = 0;       ///< wall time inside the policy (self-profiling only)
    double engine_seconds = 0;       ///< wall time of the whole event loop, policy included
};

/// Called from the event loop every few thousand events: simulated time now, jobs finished so far.
using ProgressFn = std::function<void(Time now, std::uint64_t finished)>;

/// Thrown when a job would finish past the end of engine time (2^63 µs): bad input (absurd durations,
/// work or throughputs), reported by the caller with the job's file and line.
struct TimeOverflow {
    JobIdx job;
    double finish_seconds;
};

class Simulator final : public ClusterView {
public:
    Simulator(const Cluster& cluster, const RateModel& rates, const ResolvedJobs& jobs, Policy& policy,
              Placer& placer, SimOptions options);

    void add_observer(Observer& o) { observers_.push_back(&o); }
    void set_progress(ProgressFn progress) { progress_ = std::move(progress); }
    /// Runs to the end; throws InternalError on a broken invariant or an invalid decision.
    SimStats run();

    // ClusterView
    Time now() const override { return now_; }
    const Cluster& cluster() const override { return cluster_; }
    const RateModel& rates() const override { return rates_; }
    const JobInfo& job(JobIdx j) const override { return jobs_[j]; }
    int free_gpus(GpuTypeIdx t) const override { return state_.free_gpus(t); }
    int free_gpus_on(NodeIdx n) const override { return state_.free_on(n); }
    NodeIdx node_with_free(GpuTypeIdx t, int k) const override { return state_.node_with_free(t, k); }
    std::span<const JobIdx> running_jobs() const override { return running_; }

    /// Every job's final state, in trace order.
    const std::vector<JobInfo>& jobs() const { return jobs_; }
    /// Hands the jobs' final states over once the run is done (no copy of a million records).
    std::vector<JobInfo> take_jobs() { return std::move(jobs_); }

private:
    void push_next_arrival();
    void arrive(JobIdx j);
    void complete(JobIdx j);
    void apply(const Action& a);
    void start(JobIdx j, GpuTypeIdx t, int n);
    void preempt(JobIdx j);
    void release(JobIdx j);
    void audit() const;

    const Cluster& cluster_;
    const RateModel& rates_;
    Policy& policy_;
    Placer& placer_;
    SimOptions options_;
    ClusterState state_;
    EventQueue queue_;
    std::vector<JobInfo> jobs_;
    std::vector<std::uint32_t> generation_;  // per job: bumps whenever its completion time changes
    std::vector<GpuIdx> gpus_of_;            // per job: head of its GPU chain in ClusterState
    std::vector<std::uint32_t> running_pos_; // per job: index in running_
    std::vector<JobIdx> running_;
    std::vector<JobIdx> arrival_order_;      // by (submit, trace order)
    std::size_t next_arrival_ = 0;
    std::vector<Observer*> observers_;
    // Scratch reused at every instant (no allocation per event).
    std::vector<JobIdx> arrived_, finished_;
    std::vector<NodeShare> shares_;
    Decisions decisions_;
    Time now_ = 0;
    std::uint32_t timer_generation_ = 0;
    SimStats stats_;
    ProgressFn progress_;
    std::uint64_t finished_count_ = 0, next_progress_ = 0;
};

}  // namespace dlsim
