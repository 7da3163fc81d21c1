#pragma once
// `las`: preemptive least attained service (the LAS of Blox, Agarwal et al., EuroSys'24, and of Synergy, Mohan
// et al., OSDI'22; the 1-D limit of Tiresias). At arrivals, completions and every `quantum` it walks all
// runnable jobs in order of attained service, ties by arrival then trace order, and selects them while their
// gangs fit (SKIP walk, GPUs counted per type); running jobs left out are preempted and wait with their
// service kept.
//   - service=gpu (default): GPU-seconds, so a g-GPU gang's service grows g times faster (Tiresias's 2D
//     argument); service=wall: seconds held (Blox).
//   - A running job keeps its GPUs on a tie, and a waiting job displaces it only when its service is lower
//     by more than what the displacement costs the running job: (restart cost + `margin`) × its GPUs in
//     GPU-second units (wall: seconds), the rule of every preemptive policy.
//   - A waiting job takes the type `type_order` gives it among those with room; running jobs keep theirs.
// Equal jobs alternate once per quantum: processor sharing at the quantum's granularity.
// Waiting jobs sit in an ordered set (their service does not change while they wait). Running jobs'
// services grow at a rate set by their GPUs, so the largest one now is the largest intercept of a few
// lines (one per GPU count): a call whose waiting jobs all fit in the free GPUs or rank behind every running
// job starts them without visiting the running ones (O(changes × log n)); otherwise the running jobs are
// ranked afresh and walked with the waiting ones (O(running × log running)). `full_walk=true` always walks in
// full: the reference the fast path is tested against. Preset `blox-las`: service=wall (Blox's rounds of
// 300 s count wall time).
#include "policies/desired_state.hpp"
#include "policies/policy.hpp"
#include "policies/queue/displacement_cost.hpp"
#include "policies/type_choice.hpp"

#include "policies/queue/priority_walk.hpp"

#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace dlsim {

class LasPolicy final : public Policy {
public:
    /// `full_walk`: walk every running job at every call (the reference the fast path is tested against).
    LasPolicy(TypeOrder order, bool gpu_service, double quantum_s, double margin_s, bool full_walk = false)
        : order_(order),
          gpu_service_(gpu_service),
          quantum_(to_time(quantum_s)),
          displacement_(margin_s),
          full_walk_(full_walk) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override;

private:
    /// (attained service, submit, job): the walk order.
    using Key = std::tuple<double, Time, JobIdx>;
    Key key(const ClusterView& view, JobIdx j) const;
    /// Service a waiting job must be below a running one by to displace it.
    double hysteresis(const ClusterView& view, JobIdx j) const;

    /// Service per second of running job j (its GPUs, or 1 with wall service).
    double slope(const ClusterView& view, JobIdx j) const;
    /// The largest running key now (the first key element), or -infinity when nothing runs.
    double last_running(const ClusterView& view) const;
    /// Brings the mirror of the running jobs up to date: the last call's starts that run, the jobs that stopped.
    void sync(const ClusterView& view, const Changes& changes);
    void forget(JobIdx j);

    TypeOrder order_;
    bool gpu_service_;
    Time quantum_;
    DisplacementCost displacement_;
    bool full_walk_;
    std::set<Key> waiting_;
    std::vector<Key> running_;   // scratch, rebuilt each call
    std::vector<int> capacity_;  // scratch: GPUs per type not yet claimed in this walk
    std::vector<JobIdx> to_preempt_;
    DesiredState desired_;
    FreeGpuWalk<Key> fast_;
    // The running jobs' keys as lines in time: key(now) = intercept + slope × now (s). By slope, the
    // (intercept, job) pairs; per job its intercept while mirrored.
    std::map<double, std::set<std::pair<double, JobIdx>>> lines_;
    std::vector<double> intercept_, slope_;
    std::vector<char> mirrored_;
    std::size_t mirrored_count_ = 0;
    std::vector<JobIdx> started_;  // the last call's starts
};

}  // namespace dlsim
