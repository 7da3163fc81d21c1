#pragma once
// The engine: pops events in (time, phase, seq) order, applies every event of an instant, then calls
// the policy once (if anything changed; once more at the same instant if it had starts declined),
// checks and applies its decisions, and keeps progress fluid.
//
// Space sharing: `pack` starts a queued job on a running job's GPUs (two holders per GPU in ClusterState,
// both allocations at half share, each naming the other as partner); the performance model is wrapped in
// PackedPerformance, which rates the pair. When either leaves, the engine makes the other whole again
// (its allocation's shares and partner) before the transition reports the rate changes.
//
// Every change of a job's GPUs (start, preempt, finish, resize, migrate; later kills) goes through one
// transition, `reallocate`: progress brought up to date, GPUs released and taken, the restart model
// charged, the performance model asked for new rates, every re-rated job's completion rescheduled
// (stale completions are dropped by a per-job generation), and observers told once.
#include "models/base/input_error.hpp"
#include "models/packed_performance.hpp"
#include "models/performance_model.hpp"
#include "models/restart_model.hpp"
#include "policies/policy.hpp"
#include "sim/cluster_state.hpp"
#include "sim/duration_histogram.hpp"
#include "sim/event_queue.hpp"
#include "sim/job_spec.hpp"
#include "sim/observer.hpp"
#include "sim/wait_ledger.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace dlsim {

struct SimOptions {
    Time restart_cost = 0;  ///< the default restart model's cost (FixedRestart), when `restart` is not set
    /// How fast jobs run given where everything runs; default: IsolatedPerformance over the rate model.
    PerformanceModel* performance = nullptr;
    /// What a change of allocation costs; default: FixedRestart(restart_cost).
    const RestartModel* restart = nullptr;
    /// The elastic job model policies see (ClusterView::elastic); usually the same object as `performance`.
    const ElasticView* elastic = nullptr;
};

struct SimStats {
    std::uint64_t events = 0;  ///< events applied (stale ones not counted)
    std::uint64_t policy_calls = 0;
    double policy_seconds = 0;           ///< wall time inside the policy (self-profiling only)
    DurationHistogram policy_call_time;  ///< wall time of each policy call (self-profiling only)
    double engine_seconds = 0;           ///< wall time of the whole event loop, policy included
    /// The run ended at stop_when_finished's condition with jobs left queued, running or not yet arrived.
    bool stopped_early = false;
};

/// Called from the event loop every few thousand events: simulated time now, jobs finished so far.
using ProgressFn = std::function<void(Time now, std::uint64_t finished)>;

/// A decision the engine refused: the rule it broke (`what`: "invalid decision: policy <rule> at <now> us")
/// and the job it named (kNoJob for a rule of the whole answer, e.g. a timer not after now). Every check
/// of a policy's answer throws it (Simulator::invalid, invalid_answer), whatever the policy's source; the
/// run names the policy and the job's trace id, and decides whose mistake it is: a built-in policy's is a
/// bug of dlsim (exit 1), code written outside dlsim (py:, exec:) broke the contract (exit 2). A broken
/// invariant of the engine itself is a plain InternalError.
class InvalidDecision : public InternalError {
public:
    static constexpr JobIdx kNoJob = static_cast<JobIdx>(-1);
    InvalidDecision(const std::string& what, JobIdx job) : InternalError(what), job_(job) {}
    JobIdx job() const { return job_; }  ///< the job the refused action named, or kNoJob

private:
    JobIdx job_;
};

/// Thrown when a job would finish past the end of engine time (2^63 µs): bad input (absurd durations,
/// work or throughputs), reported by the caller with the job's file and line.
struct TimeOverflow {
    JobIdx job;
    double finish_seconds;
};

class Simulator final : public ClusterView, private ProgressSource {
public:
    Simulator(const Cluster& cluster, const RateModel& rates, const ResolvedJobs& jobs, Policy& policy, Placer& placer,
              SimOptions options);

    void add_observer(Observer& o) { observers_.push_back(&o); }
    void set_progress(ProgressFn progress) { progress_ = std::move(progress); }
    /// Ends the run at the first instant after which every job with `wait_for[j]` set has finished (Gavel's
    /// continuous runs stop when the measured window is done). The instant's events are all applied, the
    /// policy is not called again, and the jobs still queued, running or not yet arrived stay as they are
    /// (unfinished). No job flagged: the run ends as usual.
    void stop_when_finished(std::vector<char> wait_for);
    /// Runs to the end; throws InvalidDecision on an invalid decision, InternalError on a broken invariant.
    SimStats run();

    // ClusterView
    Time now() const override { return now_; }
    const Cluster& cluster() const override { return cluster_; }
    const RateModel& rates() const override { return rates_; }
    const JobInfo& job(JobIdx j) const override { return jobs_[j]; }
    const Allocation& allocation(JobIdx j) const override;
    int free_gpus(GpuTypeIdx t) const override { return state_.free_gpus(t); }
    int free_gpus_on(NodeIdx n) const override { return state_.free_on(n); }
    NodeIdx node_with_free(GpuTypeIdx t, int k) const override { return state_.node_with_free(t, k); }
    std::span<const JobIdx> running_jobs() const override { return running_; }
    const RestartModel& restart_model() const override { return restart_; }
    const PerformanceModel& performance() const override { return performance_; }
    const ElasticView* elastic() const override { return elastic_; }

    /// How long each job waited for each reason (exact once it finished).
    const WaitLedger& waits() const { return waits_; }
    std::vector<WaitTotals> take_wait_totals() { return waits_.take_totals(); }
    /// Every job's final state, in trace order.
    const std::vector<JobInfo>& jobs() const { return jobs_; }
    /// Hands the jobs' final states over once the run is done (no copy of a million records).
    std::vector<JobInfo> take_jobs() { return std::move(jobs_); }

private:
    void push_next_arrival();
    void arrive(JobIdx j);
    void complete(JobIdx j);
    /// Calls the policy with what changed and applies its decisions; true if it asked for a start,
    /// resize or move that had to be declined or requeued.
    bool call_policy(bool timer);
    void apply(const Action& a, std::span<const NodeShare> placement);
    /// Running job j is about to lose its GPUs for `cause`: noted with the GPUs it holds, so that the
    /// cause can be settled after the call (settle_stops).
    void note_stop(JobIdx j, StopCause cause, JobIdx by);
    /// Derives each unstated cause of the call's preemptions and tells the observers.
    void settle_stops();
    /// The placer an action names (made from the registry on first use), or the run's.
    Placer& placer_for(PlacerChoice choice);
    void start(JobIdx j, GpuTypeIdx t, int n, std::span<const NodeShare> placement);
    void pack(JobIdx j, JobIdx partner);
    /// Job j, packed with `partner`, is leaving their GPUs: the partner holds them whole again, and both
    /// are credited the time they spent packed.
    void unpack(JobIdx j, JobIdx partner);
    void resize(JobIdx j, int n, std::span<const NodeShare> placement);
    void migrate(JobIdx j, GpuTypeIdx t, std::span<const NodeShare> placement);
    /// The one transition: job j now holds `to` (nullptr: nothing; it goes back to the queue or finishes).
    /// `to` is the engine's scratch: it is swapped with the job's slot in allocs_.
    void reallocate(JobIdx j, Allocation* to, Transition why);
    /// Brings a running job's progress up to date and reschedules its completion at a new rate (and its
    /// next progress-driven re-rate, if the performance model asks for one).
    void rerate(JobIdx j, double rate, int batch_size);
    /// Job j reached the point its performance model asked to be re-rated at (Phase::Rerate).
    void progressed(JobIdx j);
    /// Re-rates every job in rate_changes_ and tells the observers of all but `except` (kNoPartner: all).
    void apply_rate_changes(JobIdx except);
    double remaining_work(JobIdx j) const override { return jobs_[j].remaining_at(now_); }
    /// Fills `scratch_` with n GPUs of type t on `placement` (checked) or where the placer says; false
    /// when the placer cannot fit them. Checks the action's type, count and free GPUs first.
    bool place(JobIdx j, GpuTypeIdx t, int n, std::span<const NodeShare> placement, const char* action);
    /// Job j's GPUs back to the free pool (how many), or `a`'s GPUs taken for it: only the GPU ownership,
    /// no transition (a resize or move lends a job's own GPUs to the placer, then takes them back).
    int return_gpus(JobIdx j);
    void take_gpus(JobIdx j, const Allocation& a);
    /// An invalid action: throws InvalidDecision("invalid decision: policy <what> at <now> us", the acting job).
    [[noreturn]] void invalid(const std::string& what) const;
    /// The same for a rule of the whole answer (no job named), e.g. its timer.
    [[noreturn]] void invalid_answer(const std::string& what) const;
    void audit() const;

    const Cluster& cluster_;
    const RateModel& rates_;
    Policy& policy_;
    Placer& placer_;
    Placer* action_placer_;  // the placer of the action being applied (the run's, or a policy's preference)
    JobIdx acting_job_ = 0;  // the job of the action being applied (named by InvalidDecision)
    std::unique_ptr<Placer> preferred_[std::size(kPlacerChoiceNames)];  // made on first use
    std::unique_ptr<PerformanceModel> own_performance_;
    std::unique_ptr<RestartModel> own_restart_;
    PackedPerformance performance_;  // space sharing over the run's model (or IsolatedPerformance)
    const RestartModel& restart_;
    const ElasticView* elastic_;
    ClusterState state_;
    EventQueue queue_;
    std::vector<JobInfo> jobs_;
    std::vector<std::uint32_t> generation_;   // per job: bumps whenever its completion time changes
    std::vector<double> rerate_below_;        // per job: the remaining work its pending Rerate event is for
    std::vector<GpuIdx> gpus_of_;             // per job: head of its GPU chain in ClusterState
    std::vector<Time> packed_since_;          // per job: when its current packing began (while packed)
    std::vector<std::uint32_t> running_pos_;  // per job: index in running_ (and allocs_)
    std::vector<Allocation> allocs_;          // allocs_[p]: what running_[p] holds; never shrinks (storage reused)
    std::vector<JobIdx> stopped_now_;         // jobs that lost their GPUs at this instant (a restart is a move)
    std::vector<JobIdx> running_;
    std::vector<JobIdx> arrival_order_;  // by (submit, trace order)
    std::size_t next_arrival_ = 0;
    std::vector<Observer*> observers_;
    WaitLedger waits_;
    std::vector<StopNote> stops_;              // the preemptions of the current policy call
    std::vector<std::uint32_t> stop_gpus_at_;  // per stop: where its GPUs begin in stop_gpus_
    std::vector<GpuIdx> stop_gpus_;
    // Scratch reused at every instant (no allocation per event).
    std::vector<JobIdx> arrived_, finished_, requeued_, declined_;
    Allocation scratch_;
    std::vector<RateChange> rate_changes_;
    Decisions decisions_;
    Time now_ = 0;
    std::uint32_t timer_generation_ = 0;
    SimStats stats_;
    ProgressFn progress_;
    std::uint64_t finished_count_ = 0, next_progress_ = 0;
    std::vector<char> wait_for_;     // stop_when_finished: the jobs the run ends after (empty: none)
    std::uint64_t waiting_for_ = 0;  // how many of them have not finished yet
};

}  // namespace dlsim
