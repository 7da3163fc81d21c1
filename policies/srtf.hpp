#pragma once
// `srtf`: preemptive shortest remaining time first, oracle on remaining work (POLICIES.md §4,
// DESIGN.md "Rules of the model"). At every call it walks all runnable jobs, running and waiting, on one
// basis: remaining work ÷ the rate on the fastest type the job may use (its best-case remaining time),
// ties by arrival then trace order, counting GPUs per type. A waiting job takes the fastest type with
// room (SKIP walk, so freed GPUs are filled greedily). A running job ranks ahead by the restart cost of a
// move plus `margin`: a waiting job displaces it only when it is shorter by more than that, so two jobs
// never swap back and forth. Running jobs left without room are preempted.
//
// A running job is re-placed as Tiresias does (`migrate=true`, the default): it moves up to the fastest
// type with room when that finishes it sooner by more than the restart cost plus the margin, and over to
// another type (instead of a preemption) when shorter jobs took its own. With `migrate=false` it keeps
// its GPUs if its type still has room. Every move is a preemption and a restart at the same instant,
// counted as a migration.
//
// `srsf` (POLICIES.md §4, Tiresias's `shortest-gpu`) is the same walk on remaining time × GPUs, with the
// hysteresis scaled by the running job's GPUs too.
//
// Why migration is the default: without it, a long job that shorter arrivals pushed onto a slow
// type stays there while the fast types idle (on the bundled trace, srtf's GPU utilization fell to
// a quarter of fifo's).
#include "policies/desired_state.hpp"
#include "policies/displacement_cost.hpp"
#include "policies/policy.hpp"
#include "policies/type_choice.hpp"

#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

class SrtfPolicy final : public Policy {
public:
    /// `gpu_weighted`: `srsf`, the key is the remaining time × the job's GPUs (wide jobs yield to narrow ones).
    SrtfPolicy(TypeOrder order, bool migrate, double margin, bool gpu_weighted = false)
        : order_(order), migrate_(migrate), displacement_(margin), gpu_weighted_(gpu_weighted) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// (best-case remaining seconds, submit, job): the walk order.
    using Key = std::tuple<double, Time, JobIdx>;
    Key key(const ClusterView& view, JobIdx j);
    /// Whether moving running job j to type t finishes it sooner by more than its displacement cost.
    bool saves_time(const ClusterView& view, JobIdx j, GpuTypeIdx t) const;

    TypeOrder order_;
    bool migrate_;
    DisplacementCost displacement_;  // what a running job's displacement must gain: restart cost + margin
    bool gpu_weighted_;
    std::set<Key> waiting_;
    std::vector<double> best_rate_;  // per job: its rate on its fastest type (0 = not computed yet)
    std::vector<Key> running_;   // scratch, rebuilt each call (bounded by the GPU count)
    std::vector<int> capacity_;  // scratch: GPUs per type not yet claimed in this walk
    std::vector<JobIdx> to_preempt_;
    DesiredState desired_;       // what the walk selects, turned into preemptions, moves and starts
};

}  // namespace dlsim
