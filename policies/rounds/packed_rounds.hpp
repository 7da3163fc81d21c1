#pragma once
// Gavel's round mechanism with space sharing (its `_packed` policies; stanford-futuredata/gavel
// scheduler/scheduler.py: JobIdPair priorities in _update_priorities, _schedule_jobs_on_workers_helper):
// policies/rounds/round_scheduler.hpp's compat mechanism (read its comment) over
// units, a unit being a single job or a pair of jobs that share the same GPUs (Decisions::pack).
//   - X comes from a PackedShareSource (policies/rounds/packed_share.hpp) over singles and pairs.
//   - Every unit has its own time shares, deficit and priority per type, as Gavel keeps them per JobIdPair:
//     a pair's time counts for the pair, not for its members; p_{u,t} = x_{u,t}/f_{u,t}.
//   - The walk ranks the units of each type by (p, deficit, x) descending (ties: earliest member arrival,
//     then members), concatenated in the cluster's type order; a unit is passed over if one of its jobs was
//     selected already this round, if it cannot run on the type (a pair: either packed rate 0) or its gang
//     exceeds what is left (a pair takes its gang once).
//   - A selected pair runs packed: the member that keeps its GPUs (a lease: a running member's GPUs if
//     still free) stays, the other is packed onto it; with neither running, the first is started on the
//     lowest free GPUs and the second packed onto it. A pair that stays together keeps its GPUs.
//   - Micro-tasks: a packed member's is min(⌊P·τ⌋, R)/P at its pair rate P.
// Both mechanisms of round_scheduler.hpp:
//  - gavel_compat=true: Gavel's simulator's rounds; selected units get explicit GPUs (leases first).
//  - default (event-driven): X at every arrival and completion, a full walk over units every τ; a kept
//    single keeps its GPUs if it stays on its type; a pair already packed stays; otherwise a running member
//    on the pair's type is the leader that stays and the other is packed onto it, else the first member is
//    started by the run's placer and the second packed onto it. Between boundaries the free GPUs are filled
//    by waiting single jobs (no new pairs: packing waits for the next boundary).
// Deviations from Gavel, beyond round_scheduler's: (1) Gavel keeps a priority for every pair of active jobs
// (x = 0 for most), so a pair outside X can fill GPUs left over in a round; here a pair is a unit only once
// an X gave it x > 0 (until a member leaves), so leftover GPUs go to singles. (2) When a packed member's
// micro-task ends first, its partner runs on alone at its isolated rate until the round ends (Gavel's
// partner does its ⌊P·τ⌋ steps and idles).
#include "policies/policy.hpp"
#include "policies/rounds/packed_share.hpp"
#include "policies/rounds/round_cycle.hpp"
#include "policies/rounds/round_scheduler.hpp"
#include "policies/rounds/round_shares.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace dlsim {

struct PackedRoundStats {
    std::uint64_t rounds = 0;
    std::uint64_t fills = 0;  ///< default mode: walks over the free GPUs between boundaries
    std::uint64_t allocations = 0;
    std::uint64_t resets = 0;
    std::uint64_t lease_renewals = 0;  ///< selected units whose jobs all kept their GPUs
    std::uint64_t unplaced = 0;        ///< selections of jobs not in X (their GPUs idle the round)
    std::uint64_t packed_picks = 0;    ///< pairs selected (over all rounds)
    std::uint64_t packs = 0;           ///< Decisions::pack emitted
};

class PackedRoundScheduler final : public Policy {
public:
    PackedRoundScheduler(RoundOptions options, std::unique_ptr<PackedShareSource> source);
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;
    const PackedRoundStats& stats() const { return stats_; }

private:
    static constexpr std::uint32_t kNone = UINT32_MAX;
    struct Unit {
        JobIdx a = 0, b = kNoPartner;  ///< b = kNoPartner: the single job a
        int gang = 1;
        bool alive = false;
    };
    struct Entry {
        double priority, deficit, x;
        Time submit;
        JobIdx a, b;
        std::uint32_t unit;
    };
    struct Pick {
        std::uint32_t unit;
        GpuTypeIdx type;
        std::uint32_t nodes_begin = 0, nodes_size = 0;
        bool placed = false;
    };

    void setup(const ClusterView& view);
    std::uint32_t new_unit(const ClusterView& view, JobIdx a, JobIdx b);
    std::uint32_t pair_unit(const ClusterView& view, JobIdx a, JobIdx b);  ///< found or made (a, b in any order)
    void credit(std::uint32_t u, GpuTypeIdx t, Time from, Time to);
    void account_finished(const ClusterView& view, JobIdx j);
    void account_running(const ClusterView& view, JobIdx j);
    void add_job(const ClusterView& view, JobIdx j);
    void remove_job(JobIdx j);
    /// Deficits settled and the time shares reseeded (RoundShares::reset), counted in the stats.
    void reset_shares(Time now);
    /// The units in use: the rows of shares_ that count.
    /// (A list kept for reuse rather than a std::views pipeline, which clang 14 cannot compile against
    /// libstdc++ 12: the fuzzing build, tests/fuzz/, uses clang.)
    const std::vector<std::size_t>& live_units() const {
        live_.clear();
        for (std::size_t u = 0; u < units_.size(); ++u)
            if (units_[u].alive) live_.push_back(u);
        return live_;
    }
    void recompute_allocation(const ClusterView& view);
    double priority(std::uint32_t u, GpuTypeIdx t) const;
    bool can_run(std::uint32_t u, GpuTypeIdx t) const;
    double rate(std::uint32_t u, GpuTypeIdx t, int member) const { return rate_[(u * types_ + t) * 2 + member]; }
    /// `waiting_only`: single units of queued jobs over the free GPUs (the default mode's fill).
    void walk(const ClusterView& view, bool waiting_only);
    void place(const ClusterView& view);
    void emit(const ClusterView& view, Decisions& out);
    void emit_default(const ClusterView& view, Decisions& out);
    /// The actions of one selected unit once the preemptions are out (shared by both modes).
    void emit_pick(const Pick& p, std::span<const NodeShare> nodes, Decisions& out);
    // RoundCycle's hooks (round_cycle.hpp).
    friend class RoundCycle;
    void boundary_round(const ClusterView& view, Decisions& out);
    void fill_round(const ClusterView& view, Decisions& out);
    Time renew_only_round(const ClusterView&) const { return kNever; }  ///< always walks
    Time compat_round(const ClusterView& view, Decisions& out);
    std::size_t cell(std::uint32_t u, GpuTypeIdx t) const { return static_cast<std::size_t>(u) * types_ + t; }
    void grow_jobs(JobIdx j);
    /// RateModel::pair for models a, b on type t, looked up once per model pair ({-1, -1}: not measured).
    const double* pair_rates(const ClusterView& view, ModelIdx a, ModelIdx b, GpuTypeIdx t);

    RoundOptions options_;
    RoundCycle cycle_;
    std::unique_ptr<PackedShareSource> source_;
    PackedRoundStats stats_;
    bool ready_ = false;
    std::size_t types_ = 0;

    std::vector<JobIdx> active_;  // ascending
    // Per job (by JobIdx).
    std::vector<std::uint32_t> single_;                 // its single unit
    std::vector<std::vector<std::uint32_t>> units_of_;  // every live unit containing it
    std::vector<Time> accounted_;
    std::vector<JobIdx> intended_partner_;  // whom the last round packed it with (kNoPartner: alone)
    std::vector<std::uint32_t> picked_;     // walk stamp
    std::vector<std::uint32_t> wanted_;     // emit stamp
    std::vector<GpuTypeIdx> want_type_;
    std::vector<JobIdx> want_partner_;
    std::vector<std::uint32_t> want_nodes_begin_, want_nodes_size_;
    std::vector<char> keep_;
    std::vector<std::uint32_t> skip_;  // the call number at which the job's start was declined
    std::uint32_t walk_stamp_ = 0, emit_stamp_ = 0, call_stamp_ = 0;

    // Per unit, and per unit and type (cell()); rate_ per unit, type and member.
    std::vector<Unit> units_;
    mutable std::vector<std::size_t> live_;  // live_units()'s list
    std::vector<std::uint32_t> free_units_;
    std::map<std::pair<JobIdx, JobIdx>, std::uint32_t> pair_units_;
    RoundShares shares_;  // x, time received, deficits: rows are the units
    std::vector<double> rate_;

    std::vector<int> capacity_;
    std::vector<std::vector<NodeIdx>> nodes_of_type_;
    std::vector<int> plan_free_;
    std::vector<std::size_t> node_cursor_;

    std::vector<double> pair_cache_;  // [((a·dim + b)·types + t)·2 + k]; NaN: not looked up yet
    std::size_t pair_cache_dim_ = 0;
    PackedShareInput input_;
    std::vector<Time> submit_;
    std::vector<Entry> entries_;
    std::vector<Pick> picks_;
    std::vector<std::uint32_t> pick_order_;
    std::vector<NodeShare> nodes_;
};

}  // namespace dlsim
