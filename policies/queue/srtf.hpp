#pragma once
// `srtf`: preemptive shortest remaining time first, oracle on remaining work (as Tiresias's
// `shortest` and Helios's `srtf`). Every job, running or waiting, is ranked on one basis: remaining work
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
// heterogeneous cluster such a cascade costs several preemptions and moves per job (README.md, "srtf churn").
//
// `tick` > 0 decides only at its multiples, as Helios's simulator loop does every second (arrivals and
// freed GPUs wait for the next tick).
//
// `srsf` (Tiresias's `shortest-gpu`) ranks on remaining time × GPUs, and weighs the
// restart cost and the margin by the victim's GPUs.
//
// Cost per call, O(changes × log n): waiting jobs sit in an ordered set (their keys do not change while
// they wait). Running jobs' keys only fall, at different speeds, so they sit per type in max-heaps keyed by
// their key when last computed, an upper bound: the top is recomputed until it stays on top (stale
// entries of jobs that left are dropped there, and the heaps are rebuilt when stale entries outnumber
// live ones). Walks stop once no waiting job can start or displace, and a gang size that failed to
// displace is not tried again in the same call. Moving running jobs up scans them, but only on a
// cluster with several types and idle GPUs.
#include "policies/policy.hpp"
#include "policies/queue/displacement_cost.hpp"
#include "policies/type_choice.hpp"

#include <map>
#include <optional>
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
        : order_(order),
          migrate_(migrate),
          displacement_(margin),
          gpu_weighted_(gpu_weighted),
          tick_(tick),
          up_ahead_(up_ahead) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// (best-case remaining seconds [× GPUs], submit, job): the ranking.
    using Key = std::tuple<double, Time, JobIdx>;
    /// A running job in its type's heap: its key when last computed (an upper bound: keys only fall),
    /// and the start of the allocation it was pushed for (the entry is stale once the job left it).
    struct Held {
        Key key;
        Time since;
        bool operator<(const Held& o) const { return key < o.key; }
    };
    Key key(const ClusterView& view, JobIdx j);
    void add_waiting(const ClusterView& view, JobIdx j);
    void erase_waiting(std::set<Key>::iterator it, int gang);
    /// The walk over waiting jobs; `displace` allows step 2.
    void fill(const ClusterView& view, bool displace);
    /// Step 2 for waiting job w; true if it was given GPUs.
    bool displace_for(const ClusterView& view, const Key& w);
    /// The longest running job on type t, its key brought up to date, or nullptr; stale entries are dropped.
    const Held* longest_on(const ClusterView& view, GpuTypeIdx t);
    /// The largest running key over all types (an upper bound is enough: it only stops walks early).
    double longest_running(const ClusterView& view);
    /// Job k starts or moves onto type t in this call: its heap entry, pushed after the call.
    void hold(GpuTypeIdx t, const Key& k, Time now);
    /// Marks j as moved or displaced in this call (no victim again, not moved again); touched() asks.
    void touch(JobIdx j);
    bool touched(JobIdx j) const;
    /// Step 4 (`ahead`: before the walk, for jobs ranked ahead of every waiting one); true if one moved.
    bool move_up(const ClusterView& view, bool ahead);
    /// What displacing running job j must gain, in key units.
    double cost_of(const ClusterView& view, JobIdx j) const;
    void start(JobIdx j, GpuTypeIdx t, int n, const Key& k, Time now);
    void move(const ClusterView& view, JobIdx j, GpuTypeIdx t, Time now);
    void emit(Decisions& out) const;

    TypeOrder order_;
    bool migrate_;
    DisplacementCost displacement_;  // restart cost + margin
    bool gpu_weighted_;
    Time tick_;
    bool up_ahead_;
    std::set<Key> waiting_;
    std::map<int, int> waiting_gangs_;     // gang size -> waiting jobs of that size (when to stop the walk)
    std::vector<double> best_rate_;        // per job: its rate on its fastest type (0 = not computed yet)
    std::vector<std::vector<Held>> held_;  // per type: max-heap of running jobs (with stale entries)
    std::size_t running_ = 0;              // running jobs after the last call (when to rebuild held_)

    // Scratch of one call (storage kept).
    std::vector<int> free_;               // GPUs per type free now, less what this call hands out
    std::vector<std::uint32_t> touched_;  // per job: the call stamp at which it was moved or displaced
    std::uint32_t stamp_ = 0;
    double longest_ = 0;
    bool longest_known_ = false;
    std::vector<Held> chosen_;                                  // victims of one displacement
    std::vector<Key> by_rank_;                                  // running jobs, shortest first (step 4)
    std::vector<int> released_;                                 // per type: GPUs movers left (step 4, ahead)
    std::map<int, int> unvisited_;                              // waiting gangs not yet passed in this walk
    std::vector<std::pair<int, GpuTypeMask>> cannot_displace_;  // (gang, types) that failed in this call
    struct Wish {
        JobIdx job;
        GpuTypeIdx gpu_type;
        int num_gpus;
    };
    std::vector<JobIdx> preempt_;                       // displaced and moving jobs, preempted first
    std::vector<JobIdx> requeue_;                       // of those, the ones that wait again
    std::vector<Wish> starts_;                          // then started, in priority order (moves too)
    std::vector<std::pair<GpuTypeIdx, Held>> holding_;  // heap entries of this call's starts and moves
};

}  // namespace dlsim
