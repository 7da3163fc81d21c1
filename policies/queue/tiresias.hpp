#pragma once
// `tiresias`: discretised 2D-LAS (Gu et al., NSDI'19; github.com/SymbioticLab/Tiresias simulator/run_sim.py,
// dlas_sim_jobs). A multi-level feedback queue on
// attained service: K queues split by `thresholds` (GPU-seconds with service=gpu, seconds with wall);
// jobs enter Q0 at its tail, fall to the tail of the next queue when their service since their last
// promotion crosses its queue's threshold, and are served queue by queue, in order of entry within a
// queue, running jobs ahead of waiting ones in the same queue (a job never preempts one of its own queue),
// in a SKIP walk that counts GPUs per type. Running jobs left out are preempted.
// Starvation promotion (`knob` > 0): a waiting job that has run since its last promotion goes back to the
// tail of Q0, its service counter reset, once it has waited knob × what it ran since then (as the
// shipped simulator: wall time waited against wall time run, counted from its first start after the
// promotion).
// Deviations from the shipped simulator, on purpose: by default (`timer=exact`) the policy asks to be
// called at the exact instant of the next demotion or promotion; ties of entry are broken by arrival then
// trace order. `timer=tiresias-sim` reproduces the simulator's late demotion timer: at every call the
// wake-up is (θ_q − wall seconds run)/g from now instead of θ_q/g − wall seconds run, so a gang that has
// run is demoted late, at that timer or at the next arrival or completion.
// Defaults (the example of Tiresias's README): K = 2, thresholds [3600] GPU-s, knob 0. Preset `tiresias-sim`: K = 3,
// [3250, 7200], knob 0, timer=tiresias-sim (the shipped simulator's `dlas-gpu`).
//
// Cost per call: the running jobs are kept in an ordered set (their key changes only at a demotion,
// which a set of crossing times finds), so a call costs O(changes × log n + waiting jobs walked): a full
// walk over the running jobs happens only when a waiting job could displace one. knob > 0 adds a pass
// over the waiting jobs. `full_walk=true` walks every running job at every call: the reference the fast
// path is tested against. A subclass whose order within a queue drifts while jobs run (tiresias-gittins)
// re-ranks its running jobs at the calls that need the full walk.
#include "policies/desired_state.hpp"
#include "policies/policy.hpp"
#include "policies/queue/priority_walk.hpp"
#include "policies/type_choice.hpp"

#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace dlsim {

class TiresiasPolicy : public Policy {
public:
    /// When a demotion is due: at the exact crossing, or at Tiresias's simulator's (late) timer.
    enum class DemotionTimer { Exact, TiresiasSim };
    /// `thresholds`: the service at which a job leaves queue k (ascending; K = size + 1 queues).
    /// `full_walk`: walk every running job at every call (the reference the fast path is tested against).
    TiresiasPolicy(TypeOrder order, std::vector<double> thresholds, bool gpu_service, double knob,
                   DemotionTimer timer = DemotionTimer::Exact, bool full_walk = false);
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) final;

protected:
    /// The walk order: queue first, then a place within the queue (lower first), then a tie-break.
    struct Rank {
        std::uint32_t queue = 0;
        double within = 0;
        auto operator<=>(const Rank&) const = default;
    };
    /// (rank, tie-break, job). Jobs whose ranks tie are served running ones first.
    using Key = std::tuple<Rank, std::int64_t, JobIdx>;

    /// Job j's key, `running` or waiting. Tiresias: the order of entry into its queue.
    virtual Key key(const ClusterView& view, JobIdx j, bool running) const;
    /// True when a running job's place within its queue changes while it runs: the running jobs are then
    /// re-ranked (O(running × log n)) at each call that cannot take the fast path, where a waiting job of
    /// the last running job's queue counts as one that might displace a running job.
    virtual bool ranks_drift() const { return false; }
    /// Told what changed before anything else; true when every waiting job's key must be recomputed.
    virtual bool observe(const ClusterView&, const Changes&) { return false; }

    /// Service since the last promotion, in the thresholds' unit.
    double service(const ClusterView& view, JobIdx j) const;
    /// Total attained service, in the thresholds' unit.
    double total_service(const ClusterView& view, JobIdx j) const;
    /// Service left before job j leaves its queue (infinity in the last queue).
    double to_threshold(const ClusterView& view, JobIdx j) const;
    std::uint32_t queue(JobIdx j) const { return states_[j].queue; }
    std::uint64_t entry(JobIdx j) const { return states_[j].entry; }
    bool gpu_service() const { return gpu_service_; }
    const std::vector<double>& thresholds() const { return thresholds_; }

private:
    /// (service per second, D, job): the simulator's wake-up for the job is now + (D − now)/(service per second).
    using Late = std::tuple<int, double, JobIdx>;
    struct State {
        std::uint32_t queue = 0;
        std::uint64_t entry = 0;   // order of entry into its queue
        Time service_from = 0;     // attained wall time at its last promotion (or arrival)
        Time count_from = kNever;  // its first start since then (waiting counts from here; kNever: not yet)
        Key key{};                 // its key in waiting_ or running_ (the one it was inserted with)
        Time crossing = kNever;    // while running: when it crosses its queue's threshold (kNever: last queue)
        Late late{};               // while running, timer=tiresias-sim, not in the last queue: its entry in late_
        bool waiting = false, running = false;
    };
    State& state(JobIdx j);
    void enter(JobIdx j, std::uint32_t queue);
    void wait(const ClusterView& view, JobIdx j);
    void unwait(JobIdx j);
    /// Job j runs from now on (as far as this policy knows): into running_, its crossing into crossings_.
    void run(const ClusterView& view, JobIdx j);
    void unrun(JobIdx j);
    /// The instant job j, running, crosses its queue's threshold (rounded up to the µs).
    Time crossing(const ClusterView& view, JobIdx j) const;
    void demote_crossed(const ClusterView& view);
    void promote_starved(const ClusterView& view);
    Time next_call(const ClusterView& view) const;

    TypeOrder order_;
    std::vector<double> thresholds_;
    bool gpu_service_;
    double knob_;
    DemotionTimer timer_;
    bool full_walk_;
    std::uint64_t entries_ = 0;
    std::vector<State> states_;
    std::set<Key> waiting_;
    std::set<Key> running_;                        // the jobs running after the last call
    std::set<std::pair<Time, JobIdx>> crossings_;  // (crossing, job) of the running jobs not in the last queue
    std::set<Late> late_;                          // timer=tiresias-sim: the running jobs not in the last queue
    std::vector<Key> ranked_;                      // scratch: running jobs re-ranked (ranks_drift)
    std::vector<int> capacity_;                    // scratch
    std::vector<JobIdx> to_preempt_, promoted_, selected_;
    WalkReasons why_;  // the last full walk's reasons for the jobs it left waiting
    FreeGpuWalk<Key> fast_;
    DesiredState desired_;
};

}  // namespace dlsim
