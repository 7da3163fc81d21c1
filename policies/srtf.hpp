#pragma once
// `srtf`: preemptive shortest remaining time first, oracle on remaining work (POLICIES.md §4,
// DESIGN.md "Rules of the model"). Every job, running or waiting, is ranked on one basis: remaining work
// ÷ its rate on the fastest type it may use (its best-case remaining time), ties by arrival then trace
// order. At each call the waiting jobs are walked in that order (SKIP: a job that cannot start is passed
// over, so freed GPUs are filled greedily):
//   1. A waiting job takes free GPUs first: the fastest type (or the first in cluster order with
//      `type_order=spec`) that has its gang free.
//   2. Only when no type has room does it displace running jobs, on the first type in the same order where
//      enough longer-ranked jobs hold GPUs, longest first, and only if that gains more than it costs:
//      the longest victim's remaining time (what the job would otherwise wait for) must exceed, summed over
//      the victims, the job's own remaining time plus each victim's restart cost plus `margin`. With one
//      victim this is "shorter by more than the restart cost plus the margin" (SRPT with hysteresis); with
//      several it is the exchange argument of SRPT for a gang: each victim is delayed by the whole job.
//   3. A displaced job moves to free GPUs of another type when it fits there (`migrate=true`, a migration),
//      else it is preempted and waits with its remaining work.
//   4. With `migrate=true`, GPUs still free after the walk (no waiting job could use them) take running
//      jobs up from slower types, shortest first, when that finishes them sooner by more than the restart
//      cost plus the margin. `move_up=ahead` also lets running jobs ranked ahead of every waiting job take
//      freed faster GPUs before the walk (one move per freed GPU: what a mover leaves goes to waiting
//      jobs): lower mean JCT under heavy load for more moves (README "srtf churn").
// Why free GPUs first and no displacement for speed alone: taking a running job's fast GPU while a slower
// one is free buys the newcomer seconds for a move out and a move back of the other job; on the bundled
// heterogeneous cluster that cascade made 7.6 preemptions and moves per job (README "srtf churn").
//
// `tick` > 0 decides only at its multiples, as Helios's simulator loop does every second (arrivals and
// freed GPUs wait for the next tick).
//
// `srsf` (POLICIES.md §4, Tiresias's `shortest-gpu`) ranks on remaining time × GPUs, and weighs the
// restart cost and the margin by the victim's GPUs.
//
// Cost per call: waiting jobs sit in an ordered set (their keys do not change while they wait); running
// jobs' keys drift at different speeds, so they are ranked afresh, and only when a displacement or a move
// is possible: O(changes × log n + running × log running).
#include "policies/desired_state.hpp"
#include "policies/displacement_cost.hpp"
#include "policies/policy.hpp"
#include "policies/type_choice.hpp"

#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

class SrtfPolicy final : public Policy {
public:
    /// `gpu_weighted`: `srsf`, the key is the remaining time × the job's GPUs (wide jobs yield to narrow ones).
    /// `tick`: decide only at multiples of it (Helios's 1 s loop), 0 = at every change.
    /// `up_ahead`: move_up=ahead (running jobs ranked ahead of every waiting job move up first).
    SrtfPolicy(TypeOrder order, bool migrate, double margin, bool gpu_weighted = false, Time tick = 0,
               bool up_ahead = false)
        : order_(order), migrate_(migrate), displacement_(margin), gpu_weighted_(gpu_weighted), tick_(tick),
          up_ahead_(up_ahead) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// (best-case remaining seconds [× GPUs], submit, job): the ranking.
    using Key = std::tuple<double, Time, JobIdx>;
    Key key(const ClusterView& view, JobIdx j);
    void add_waiting(const ClusterView& view, JobIdx j);
    /// The walk over waiting jobs; `displace` allows step 2.
    void fill(const ClusterView& view, bool displace);
    /// Step 2 for waiting job w; true if it was given GPUs.
    bool displace_for(const ClusterView& view, const Key& w);
    /// Ranks the running jobs: per type, longest first (victims), built once per call when needed.
    void rank_running(const ClusterView& view);
    /// Step 4 (`ahead`: before the walk, for jobs ranked ahead of every waiting one); true if one moved.
    bool move_up(const ClusterView& view, bool ahead);
    /// What displacing running job j must gain, in key units.
    double cost_of(const ClusterView& view, JobIdx j) const;

    TypeOrder order_;
    bool migrate_;
    DisplacementCost displacement_;  // restart cost + margin
    bool gpu_weighted_;
    Time tick_;
    bool up_ahead_;
    std::set<Key> waiting_;
    std::map<int, int> waiting_gangs_;  // gang size -> waiting jobs of that size (when to stop the walk)
    std::vector<double> best_rate_;     // per job: its rate on its fastest type (0 = not computed yet)

    // Scratch of one call (storage kept).
    std::vector<int> free_;                      // GPUs per type free now, less what this call hands out
    std::vector<std::vector<Key>> victims_;      // per type: running jobs, longest first
    std::vector<std::size_t> next_victim_;       // per type: the first not yet displaced
    bool ranked_ = false;
    double longest_running_ = 0;                 // the largest running key (before this call's changes)
    std::vector<std::uint32_t> touched_;         // per job: the call stamp at which it was moved or displaced
    std::uint32_t stamp_ = 0;
    std::vector<Key> chosen_;                    // scratch for one displacement
    std::vector<Key> by_rank_;                   // running jobs, shortest first (step 4)
    std::vector<int> released_;                  // per type: GPUs movers left (step 4, ahead)
    std::vector<JobIdx> to_preempt_;
    std::map<int, int> unvisited_;               // waiting gangs not yet passed in this walk
    DesiredState desired_;
};

}  // namespace dlsim
