#pragma once
// `tiresias-gittins`: Tiresias's MLFQ (policies/queue/tiresias.hpp: the same queues, demotions, promotion and
// SKIP walk) with jobs ordered inside each queue by the Gittins index of their attained service,
// highest first, ties by earlier submission then trace order (Tiresias's `dlas-gpu-gittins` in
// simulator/run_sim.py). The index (policies/queue/gittins_index.hpp) is the textbook one over the
// distribution of the finished jobs' total services (a uniform prior until 100 have finished), with
//   - `delta` = 0 (default): Δ = the service left before the job leaves its queue (the rest of the job in
//     the last queue); `delta` > 0: a fixed Δ;
//   - `gittins_compat`: the simulator's E (raw d_l summed) and, unless `delta` is set, its fixed Δ = 3250.
// Deviations from the simulator, on purpose: the textbook E; the distribution estimated online instead
// of read from a fixed table (yarn-gput1000.csv); the index evaluated at the attained service itself,
// not at the sample point below it. As in the simulator, jobs are re-ranked only when the policy is
// called (arrivals, completions, demotion and promotion timers): a running job whose index falls below a
// waiting one's between calls keeps its GPUs until the next call. A running job is ranked by the better
// of its index now and its index before the service its displacement would waste (restart cost plus
// `margin`), so a waiting job displaces it only when it gains more than that (the rule of every preemptive policy).
//
// Cost per call: a running job's index changes as it runs, so a call that may displace a running job
// (a waiting job of the last running job's queue or above that does not fit in the free GPUs) re-ranks
// the running jobs: O(running × log n), two binary searches each and a sort. Other calls take Tiresias's
// fast path: O(changes × log n). Waiting jobs' indices change only when the estimate is refreshed: then
// all are re-keyed, O(waiting × log waiting).
#include "policies/queue/displacement_cost.hpp"
#include "policies/queue/gittins_index.hpp"
#include "policies/queue/tiresias.hpp"

namespace dlsim {

class TiresiasGittinsPolicy final : public TiresiasPolicy {
public:
    static constexpr double kCompatDelta = 3250;  ///< Tiresias's simulator's fixed Δ (GPU-s)

    TiresiasGittinsPolicy(TypeOrder order, std::vector<double> thresholds, bool gpu_service, double knob, double delta,
                          bool compat, double margin_s, bool full_walk = false);

protected:
    Key key(const ClusterView& view, JobIdx j, bool running) const override;
    bool ranks_drift() const override { return true; }
    bool observe(const ClusterView& view, const Changes& changes) override;

private:
    /// G at attained service `a` for job j (Δ per `delta`; `extra`: service added to the queue gap).
    double index(const ClusterView& view, JobIdx j, double a, double extra) const;

    ServiceDistribution distribution_;
    double delta_;
    bool compat_;
    DisplacementCost displacement_;
};

}  // namespace dlsim
