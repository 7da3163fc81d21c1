#pragma once
// The round mechanism that realises an allocation X (Narayanan et al., OSDI'20; stanford-futuredata/gavel
// scheduler/scheduler.py: _update_priorities, _reset_time_run_so_far, _schedule_jobs_on_workers{,_helper},
// _assign_workers_to_job). The policies gavel-las, gavel-ftf, gavel-makespan, gavel-max-throughput (and
// their -agnostic forms), fifo-het and gavel-fifo are this mechanism over one allocation source each.
//
// Priorities. For each type t, f_{m,t} = time m ran on t since the last reset ÷ that time summed over the
// jobs (wall seconds, not GPU-seconds, as Gavel). At a reset every active job's time is seeded with τ/2
// (a job arriving between resets too, but without adding to the sum: Gavel's add_job), and the deficit
// ∫x_{m,t}dt since the last reset (over every X that held) − time received accumulates. p_{m,t} = x/f;
// x·1e9 when the sum is 0;
// 0 when x = 0, T = 0 or m is not in the current allocation. X is kept on a 1e-6 grid, so that solver
// noise or an LP's phase-2 slack (1e-7) does not decide between equal shares.
// Walk. Per type, jobs by (p, deficit, x) descending, ties by arrival then trace order (Gavel's stable sort
// over its arrival-ordered dicts); the type lists concatenated in a fixed order for heterogeneity-aware
// policies: the cluster's type order (the bundled Gavel clusters list V100, P100, K80: Gavel's fixed
// fastest-first order); shuffled at every walk from Rng(seed, "gavel-type-order") for agnostic ones. A job
// runs on at most one type; it is passed over where g_m exceeds what is left of the type or T = 0.
//
// Two mechanisms (`gavel_compat`):
//  - Default (event-driven): X is recomputed (warm) at every arrival and completion, so a new job has its
//    share at once; the time shares are reset at the first round boundary at least reset_interval after
//    the last reset (so that x/f measures over a window of rounds, as in Gavel, however often X changes).
//    Every `round` seconds (from the first arrival while jobs are active) a full walk over
//    all GPUs reassigns: running jobs not selected are preempted, the selected ones keep their GPUs when
//    they stay on their type (a renewed lease: no restart), the others start through the run's placer.
//    At other events the free GPUs are filled by the same walk over the waiting jobs, nobody preempted.
//    Work-conserving throughout: a job with x = 0 takes GPUs nobody with x > 0 wants (FIFO included).
//  - gavel_compat=true (Gavel's simulator exactly; policies/rounds/README.md): a round lasts until its longest
//    micro-task ends, micro-task = min(⌊T·τ⌋, R)/T seconds; arrivals and freed GPUs wait for the round's end (a round
//    starts at once when none is running). X is recomputed at a round's start only if a job arrived or finished since
//    the last reset AND (no reset happened at a time > 0 yet, or >= reset_interval since the last one). A job not in
//    X is walked with p = 0 and takes its GPUs out of the round but is not placed (Gavel's quirk: those GPUs idle).
//    FIFO allocations pass over p = 0. Selected jobs are placed by decreasing gang: first each one's previous GPUs if
//    none of them is taken yet (the lease), then the lowest free GPUs in node order (Gavel's strided server walk), as
//    explicit placements.
//    Deviations: (1) dlsim progresses a job fluidly at T for the whole round, not int(T·τ) steps and then
//    idle: a job whose micro-task is shorter than the round gets less than one extra iteration
//    (⌊T·τ⌋/T > τ − 1/T), and one with ⌊T·τ⌋ < R <= T·τ finishes in this round instead of after 1 step
//    in the next. (2) A round that places nothing while jobs wait for a reset: Gavel sleeps until the next arrival
//    (forcing a reset only once its trace is exhausted); dlsim also calls again when the gate opens.
//    (3) A restart cost (Gavel has none) is paid inside the round; it does not lengthen it. (4) Time shares
//    count the time a job held its GPUs; Gavel counts from the previous round's end, which after an idle
//    gap includes the gap. (5) Rounds are timed with the profile's rate T (Gavel has no network model): a job
//    that a network model slows down does fewer iterations in its round.
//
// Cost: a call accounts the running jobs and arrivals, O(active); a walk sorts the active jobs per type,
// O(active·types·log); the LP dominates. Vectors are reused, so a steady-state call allocates nothing.
#include "models/base/random.hpp"
#include "policies/desired_state.hpp"
#include "policies/policy.hpp"
#include "policies/rounds/round_cycle.hpp"
#include "policies/rounds/round_shares.hpp"
#include "policies/rounds/share_source.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace dlsim {

struct RoundOptions {
    double round_s = 360;            ///< τ
    bool gavel_compat = false;       ///< Gavel's simulator's rounds (see above)
    double reset_interval_s = 1920;  ///< compat: minimum time between allocation resets
    bool type_aware = true;          ///< fixed type order; false: shuffled per walk (agnostic policies)
    bool fifo = false;               ///< Gavel's FIFO-named policies: compat passes over priority 0
    std::uint64_t seed = 0;
};

/// What the mechanism did, for tests and reports.
struct RoundStats {
    std::uint64_t rounds = 0;          ///< full walks (round boundaries)
    std::uint64_t fills = 0;           ///< default mode: walks over the free GPUs between boundaries
    std::uint64_t allocations = 0;     ///< X computed
    std::uint64_t resets = 0;          ///< time shares reset (deficits settled)
    std::uint64_t lease_renewals = 0;  ///< jobs selected again at a boundary that kept their GPUs
    std::uint64_t unplaced = 0;        ///< compat: selections of jobs not in X (their GPUs idle the round)
};

class RoundScheduler final : public Policy {
public:
    RoundScheduler(RoundOptions options, std::unique_ptr<ShareSource> source);
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;
    const RoundStats& stats() const { return stats_; }

private:
    struct Entry {
        double priority, deficit, x;
        Time submit;
        JobIdx job;
    };
    struct Pick {
        JobIdx job;
        GpuTypeIdx type;
        int gpus;
        std::uint32_t nodes_begin = 0, nodes_size = 0;  ///< compat: its explicit placement in nodes_
        bool placed = false;
    };

    void setup(const ClusterView& view);
    /// Gives job j a slot in the per-job tables (reusing a finished job's): memory follows the active jobs.
    std::uint32_t take_slot(JobIdx j);
    /// Adds the time since it was last accounted to the type job j runs (ran) on.
    void account(const ClusterView& view, JobIdx j);
    void add_job(const ClusterView& view, JobIdx j);
    void remove_job(JobIdx j);
    /// Deficits settled and the time shares reseeded (RoundShares::reset), counted in the stats.
    void reset_shares(Time now);
    /// The slots of the active jobs: the rows of shares_ in use.
    /// (A list kept for reuse rather than a std::views pipeline, which clang 14 cannot compile against
    /// libstdc++ 12: the fuzzing build, tests/fuzz/, uses clang.)
    const std::vector<std::size_t>& live_slots() const {
        live_.clear();
        for (JobIdx j : active_) live_.push_back(slot_of_[j]);
        return live_;
    }
    /// X for the active jobs from the allocation source.
    void recompute_allocation(const ClusterView& view);
    double priority(JobIdx j, GpuTypeIdx t) const;
    /// The walk: fills picks_ with the selected jobs, in walk order. `waiting_only`: running jobs are
    /// left out and only the free GPUs count (the default mode's fill).
    void walk(const ClusterView& view, bool waiting_only);
    void shuffle_type_order();  ///< per walk, for agnostic policies (Gavel's worker-type shuffle)
    // RoundCycle's hooks (round_cycle.hpp).
    friend class RoundCycle;
    void boundary_round(const ClusterView& view, Decisions& out);
    void fill_round(const ClusterView& view, Decisions& out);
    /// Compat FIFO: the round that only renews every lease, without a walk (kNever: walk).
    Time renew_only_round(const ClusterView& view);
    Time compat_round(const ClusterView& view, Decisions& out);
    /// Compat: explicit placements for the picks, by decreasing gang (leases first, then lowest free GPUs).
    void place_compat(const ClusterView& view);
    std::size_t cell(JobIdx j, GpuTypeIdx t) const { return static_cast<std::size_t>(slot_of_[j]) * types_ + t; }

    RoundOptions options_;
    RoundCycle cycle_;
    std::unique_ptr<ShareSource> source_;
    Rng rng_;
    RoundStats stats_;
    bool ready_ = false;
    bool round_began_ = false;  // this call began a round (a job it leaves out has spent its share)
    std::size_t types_ = 0;

    // The active jobs (arrived, not finished), ascending: the allocation input's order.
    std::vector<JobIdx> active_;
    // Per active job, by its slot (slot_of_[JobIdx]), and per slot and type (cell()).
    static constexpr std::uint32_t kNoSlot = UINT32_MAX;
    std::vector<std::uint32_t> slot_of_;
    mutable std::vector<std::size_t> live_;  // live_slots()'s list
    std::vector<std::uint32_t> free_slots_;
    std::vector<double> throughput_;
    RoundShares shares_;  // x, time received, deficits: rows are the slots
    std::vector<Time> accounted_;
    std::vector<std::uint32_t> picked_;  // the walk number that selected the job
    std::vector<std::uint32_t> skip_;    // the call number at which the job was declined
    std::uint32_t walk_stamp_ = 0, call_stamp_ = 0;
    // Per type.
    std::vector<int> capacity_;  // scratch: GPUs left in a walk
    std::vector<GpuTypeIdx> type_order_;
    std::vector<std::vector<NodeIdx>> nodes_of_type_;

    ShareInput input_;
    std::vector<Time> submit_;
    std::vector<Entry> entries_;
    std::vector<Pick> picks_;
    std::vector<std::uint32_t> pick_order_;
    std::vector<int> plan_free_;            // compat: per node, GPUs not yet given out in this round
    std::vector<std::size_t> node_cursor_;  // compat: per type, the first of its nodes that may have GPUs left
    std::vector<NodeShare> nodes_;
    DesiredState desired_;
};

}  // namespace dlsim
